// Issue 14: the review workflow tells the truth. Each case drives the real
// widgets and actions on the demo model and checks that the readouts agree
// with the document's graph and decisions, counted here independently.
#include "core/ir/GraphBuilder.h"
#include "ReviewTestSupport.h"
#include "ViewTestGraphs.h"

#include "core/torch/ModelLoader.h"
#include "views/DiffView.h"
#include "views/Document.h"
#include "views/InputShapes.h"
#include "views/GraphScene.h"
#include "views/GraphView.h"
#include "views/NodeItem.h"
#include "views/InspectorPanel.h"
#include "views/MainWindow.h"
#include "views/MatchTableModel.h"
#include "views/MatchesPanel.h"
#include "views/PatternsPanel.h"
#include "views/ReviewFiles.h"
#include "views/ScopeTree.h"
#include "views/WhyNotPanel.h"
#include "views/CollapsedGraph.h"
#include "views/RewriteController.h"

#include <catch.hpp>

#include <QAction>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QDateTime>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QTableView>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QUndoStack>

#include <map>

using namespace fusebox;
using namespace fusebox::viewtest;

TEST_CASE("a rejection survives unrelated applies and Apply All, and every readout agrees", "[views][review]")
{
    auto window = openDemo();
    MainWindow &w = *window;
    Document &doc = *w.document();
    RewriteController &rc = *w.rewrite();
    findMatches(w);

    const int relu = firstRow(doc, "batch_relu", MatchStatus::Pending);
    REQUIRE(relu >= 0);
    const std::vector<NodeId> rejectedNodes = doc.review().matches()[size_t(relu)].match.nodes;
    rejectRow(w, relu);
    REQUIRE(countStatus(doc, MatchStatus::Rejected) == 1);

    auto agree = [&](const char *step) {
        INFO(step);
        const int rejected = countStatus(doc, MatchStatus::Rejected);
        CHECK(rejected == 1);
        CHECK(doc.review().tally("batch_relu").rejected == 1);
        CHECK(rc.matchesPanel()->summaryText().contains(QStringLiteral("· 1 rejected")));
        QTreeWidgetItem *item = rc.patternsPanel()->patternItem("batch_relu");
        REQUIRE(item);
        CHECK(item->text(PatternsPanel::Rejected) == QStringLiteral("1"));
        CHECK(doc.persistence().passConfig().rejected.size() == 1);
        // No applied rewrite took the rejected match's nodes as batch_relu.
        for (const MatchEntry &e : doc.review().matches())
            if (e.status == MatchStatus::Applied && e.match.pattern == "batch_relu")
                for (NodeId id : e.match.nodes)
                    CHECK(std::find(rejectedNodes.begin(), rejectedNodes.end(), id) == rejectedNodes.end());
    };
    agree("after the rejection");

    // An unrelated apply (batch_layernorm) re-finds the candidates.
    const int layernorm = firstRow(doc, "batch_layernorm", MatchStatus::Pending);
    REQUIRE(layernorm >= 0);
    rc.matchesPanel()->selectMatchRow(layernorm);
    rc.applyAction()->trigger();
    REQUIRE(settle(w));
    REQUIRE(doc.review().tally("batch_layernorm").applied == 1);
    agree("after applying batch_layernorm");

    // Apply All skips it, in either schedule; the table, the patterns panel,
    // the pass file and the report agree. When another rule rewrites its
    // nodes (batch_aten_relu, in Inductor's post-grad stage), the rejection
    // stays, saying it is no longer on the graph.
    const PassSchedule schedule = GENERATE(PassSchedule::Inductor, PassSchedule::Greedy);
    doc.setSchedule(schedule);
    applyAll(w);
    agree("after Apply All");
    const int rejectedRow = firstRow(doc, "batch_relu", MatchStatus::Rejected);
    REQUIRE(rejectedRow >= 0);
    const MatchEntry &kept = doc.review().matches()[size_t(rejectedRow)];
    const bool nodesGone = std::any_of(rejectedNodes.begin(), rejectedNodes.end(),
                                       [&](NodeId id) { return !doc.model().graph().contains(id); });
    CHECK(kept.notFound == nodesGone);
    if (nodesGone) {
        CHECK(kept.note.contains(QStringLiteral("rewritten since")));
        CHECK(doc.review().tally("batch_relu").candidates == 0);
    } else {
        CHECK(kept.match.nodes == rejectedNodes);
    }
    QTemporaryDir dir;
    QString error;
    const QString report = dir.filePath(QStringLiteral("review.md"));
    REQUIRE(rc.files()->exportReport(report, &error));
    QFile md(report);
    REQUIRE(md.open(QIODevice::ReadOnly));
    CHECK(QString::fromUtf8(md.readAll()).contains(QStringLiteral("## Rejected (1)")));

    // Undoing everything brings the rejected candidate back, still rejected.
    while (doc.history().undoStack()->index() > 1)
        rc.undoAction()->trigger();
    REQUIRE(settle(w));
    agree("after undoing the applies");
    CHECK(doc.review().matches()[size_t(firstRow(doc, "batch_relu", MatchStatus::Rejected))].match.nodes
          == rejectedNodes);
}

TEST_CASE("a rejection survives applying every other candidate, one at a time", "[views][review]")
{
    auto window = openDemo();
    MainWindow &w = *window;
    Document &doc = *w.document();
    RewriteController &rc = *w.rewrite();
    findMatches(w);
    const std::string rejectedPattern = GENERATE("batch_relu", "batch_linear", "batch_layernorm");
    const int row = firstRow(doc, rejectedPattern, MatchStatus::Pending);
    REQUIRE(row >= 0);
    const std::vector<NodeId> rejectedNodes = doc.review().matches()[size_t(row)].match.nodes;
    rejectRow(w, row);
    int applies = 0;
    for (;;) {
        int next = -1;
        // Every other pending candidate, except those over the rejected nodes
        // (batch_aten_relu over batch_relu's relus): applying one of those is
        // the reviewer's choice of another rewrite for them (the first case).
        for (size_t i = 0; i < doc.review().matches().size() && next < 0; ++i) {
            const MatchEntry &e = doc.review().matches()[i];
            const bool overlaps = std::any_of(e.match.nodes.begin(), e.match.nodes.end(), [&](NodeId id) {
                return std::find(rejectedNodes.begin(), rejectedNodes.end(), id) != rejectedNodes.end();
            });
            if (e.status == MatchStatus::Pending && !overlaps)
                next = int(i);
        }
        if (next < 0 || applies == 20)
            break;
        INFO("apply " << applies << ": " << doc.review().matches()[size_t(next)].match.pattern);
        rc.matchesPanel()->selectMatchRow(next);
        rc.applyAction()->trigger();
        REQUIRE(settle(w));
        ++applies;
        CHECK(countStatus(doc, MatchStatus::Rejected) == 1);
        CHECK(doc.review().tally(rejectedPattern).rejected == 1);
        CHECK(rc.matchesPanel()->summaryText().contains(QStringLiteral("· 1 rejected")));
    }
    CHECK(applies > 0);
    // Only other matches were applied: the rejected one is still on the graph.
    const int kept = firstRow(doc, rejectedPattern, MatchStatus::Rejected);
    REQUIRE(kept >= 0);
    INFO(rejectedPattern << ": " << doc.review().matches()[size_t(kept)].note.toStdString());
    CHECK_FALSE(doc.review().matches()[size_t(kept)].notFound);
    CHECK(doc.review().matches()[size_t(kept)].match.nodes == rejectedNodes);
}

TEST_CASE("redo answers Ctrl+Shift+Z and Ctrl+Y, the undo text counts Apply All's rewrites", "[views][review]")
{
    auto window = openDemo();
    MainWindow &w = *window;
    Document &doc = *w.document();
    RewriteController &rc = *w.rewrite();
    w.activateWindow();
    REQUIRE(QTest::qWaitForWindowActive(&w));
    findMatches(w);

    const size_t before = doc.model().graph().size();
    const int appliedBefore = countStatus(doc, MatchStatus::Applied);
    const int rewritten = applyAll(w);
    const int rewrites = countStatus(doc, MatchStatus::Applied) - appliedBefore;
    REQUIRE(rewrites > 1);
    CHECK(rewritten == rewrites);
    CHECK(rc.undoAction()->text().toStdString()
          == QStringLiteral("&Undo Apply All (%1 rewrites)").arg(rewrites).toStdString());
    const size_t after = doc.model().graph().size();
    REQUIRE(after != before);

    // The keys a user presses, sent to the window.
    QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier);
    REQUIRE(settle(w));
    CHECK(doc.model().graph().size() == before);
    QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
    REQUIRE(settle(w));
    CHECK(doc.model().graph().size() == after);
    CHECK(rc.undoAction()->text().toStdString()
          == QStringLiteral("&Undo Apply All (%1 rewrites)").arg(rewrites).toStdString());
    QTest::keyClick(&w, Qt::Key_Z, Qt::ControlModifier);
    REQUIRE(settle(w));
    CHECK(doc.model().graph().size() == before);
    CHECK(rc.redoAction()->text().toStdString()
          == QStringLiteral("&Redo Apply All (%1 rewrites)").arg(rewrites).toStdString());
    QTest::keyClick(&w, Qt::Key_Y, Qt::ControlModifier);
    REQUIRE(settle(w));
    CHECK(doc.model().graph().size() == after);
}

TEST_CASE("no key sequence is bound twice in the main window", "[views][review]")
{
    // Qt ignores a key bound twice in one window ("Ambiguous shortcut
    // overload"), as Ctrl+Shift+Z was: on X11 it was both Redo's platform
    // binding and an extra one on the same action.
    MainWindow w;
    std::map<QString, QStringList> owners;
    for (QAction *a : w.findChildren<QAction *>()) {
        // Keys scoped to a panel (the pattern editor's Ctrl+S) are its own.
        if (a->shortcutContext() != Qt::WindowShortcut && a->shortcutContext() != Qt::ApplicationShortcut)
            continue;
        for (const QKeySequence &key : a->shortcuts())
            if (!key.isEmpty())
                owners[key.toString()] << a->text();
    }
    for (const auto &[key, actions] : owners) {
        INFO(key.toStdString() << ": " << actions.join(QStringLiteral(", ")).toStdString());
        CHECK(actions.size() == 1);
    }
    CHECK(owners.count(QStringLiteral("Ctrl+Shift+Z")) == 1);
    CHECK(owners.count(QStringLiteral("Ctrl+Y")) == 1);
}

TEST_CASE("the Inspector follows every apply, undo, redo and Apply All", "[views][review]")
{
    auto window = openDemo();
    MainWindow &w = *window;
    Document &doc = *w.document();
    RewriteController &rc = *w.rewrite();
    findMatches(w);
    checkInspectorSummary(w, "loaded");

    // A node the rewrite removes, shown in the Inspector: it gives way to the summary.
    const int layernorm = firstRow(doc, "batch_layernorm", MatchStatus::Pending);
    REQUIRE(layernorm >= 0);
    auto *inspector = w.findChild<InspectorPanel *>();
    inspector->showNode(doc.review().matches()[size_t(layernorm)].match.anchor);
    rc.matchesPanel()->selectMatchRow(layernorm);
    rc.applyAction()->trigger();
    REQUIRE(settle(w));
    CHECK_FALSE(inspector->node().isValid());
    checkInspectorSummary(w, "after apply");
    rc.undoAction()->trigger();
    REQUIRE(settle(w));
    checkInspectorSummary(w, "after undo");
    rc.redoAction()->trigger();
    REQUIRE(settle(w));
    checkInspectorSummary(w, "after redo");

    // A node that stays is shown again as it is now.
    const NodeId input = doc.model().graph().inputs().front();
    inspector->showNode(input);
    applyAll(w);
    CHECK(inspector->node() == input);
    inspector->clear();
    checkInspectorSummary(w, "after Apply All");
}

TEST_CASE("the Log records every review action with what it did", "[views][review]")
{
    auto window = openDemo();
    MainWindow &w = *window;
    Document &doc = *w.document();
    RewriteController &rc = *w.rewrite();
    auto *log = w.findChild<QPlainTextEdit *>(QStringLiteral("log"));
    REQUIRE(log);
    auto logSince = [&](int lines) {
        const QStringList all = log->toPlainText().split(QLatin1Char('\n'));
        return all.mid(lines).join(QLatin1Char('\n'));
    };
    auto lineCount = [&] { return log->toPlainText().split(QLatin1Char('\n')).size(); };

    int mark = lineCount();
    findMatches(w);
    const int candidates = int(doc.review().matches().size());
    CHECK(logSince(mark).contains(QStringLiteral("Find Matches: %1 candidates").arg(candidates)));

    // Del and Shift+Del.
    const int relu = firstRow(doc, "batch_relu", MatchStatus::Pending);
    REQUIRE(relu >= 0);
    const QString reluName = QStringLiteral("batch_relu at %") + doc.review().matches()[size_t(relu)].anchorName;
    rc.matchesPanel()->selectMatchRow(relu);
    mark = lineCount();
    rc.rejectAction()->trigger();
    CHECK(logSince(mark).contains(QStringLiteral("rejected ") + reluName));
    mark = lineCount();
    rc.restoreAction()->trigger();
    CHECK(logSince(mark).contains(QStringLiteral("restored ") + reluName));

    // Ctrl+Return names the pattern, the node counts and the verification.
    const int layernorm = firstRow(doc, "batch_layernorm", MatchStatus::Pending);
    REQUIRE(layernorm >= 0);
    const QString anchor = doc.review().matches()[size_t(layernorm)].anchorName;
    rc.matchesPanel()->selectMatchRow(layernorm);
    mark = lineCount();
    rc.applyAction()->trigger();
    REQUIRE(settle(w));
    const int appliedRow = firstRow(doc, "batch_layernorm", MatchStatus::Applied);
    REQUIRE(appliedRow >= 0);
    const MatchEntry &applied = doc.review().matches()[size_t(appliedRow)];
    CHECK(logSince(mark).contains(QStringLiteral("applied batch_layernorm at %%1: −%2 +%3 nodes; verification %4")
                                      .arg(anchor)
                                      .arg(applied.nodesRemoved)
                                      .arg(applied.nodesAdded)
                                      .arg(applied.verification)));

    // Undo and redo say which step.
    mark = lineCount();
    INFO("undo text: " << rc.undoAction()->text().toStdString());
    rc.undoAction()->trigger();
    REQUIRE(settle(w));
    INFO("log: " << logSince(mark).toStdString());
    CHECK(logSince(mark).contains(QStringLiteral("undo: Apply batch_layernorm at %") + anchor));
    mark = lineCount();
    rc.redoAction()->trigger();
    REQUIRE(settle(w));
    CHECK(logSince(mark).contains(QStringLiteral("redo: Apply batch_layernorm at %") + anchor));

    // A double-click on a row applies it, and is logged the same way.
    const int linear = firstRow(doc, "batch_linear", MatchStatus::Pending);
    REQUIRE(linear >= 0);
    QTableView *table = rc.matchesPanel()->table();
    rc.matchesPanel()->selectMatchRow(linear);
    const QModelIndex index = table->currentIndex();
    REQUIRE(index.isValid());
    table->scrollTo(index);
    mark = lineCount();
    const QPoint at = table->visualRect(index).center();
    INFO("row under the pointer: " << table->indexAt(at).row() << ", selected row " << index.row());
    QSignalSpy activated(rc.matchesPanel(), &MatchesPanel::matchActivated);
    QSignalSpy status(&rc, &RewriteController::statusMessage);
    // A user's double-click: the first click, then the second (QTest's
    // mouseDClick sends only the second one's events).
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, at);
    QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, at);
    REQUIRE(settle(w));
    INFO("activated " << activated.count()
                      << (status.isEmpty() ? std::string() : status.last().at(0).toString().toStdString()));
    CHECK(doc.review().tally("batch_linear").applied == 1);
    CHECK(logSince(mark).contains(QStringLiteral("applied batch_linear at %")));
}

TEST_CASE("the title marks unsaved decisions, Ctrl+S saves to the session, Save As asks", "[views][review]")
{
    QTemporaryDir dir;
    const QString first = dir.filePath(QStringLiteral("review.fusebox"));
    const QString second = dir.filePath(QStringLiteral("copy.fusebox"));
    int asked = 0;
    QString answer = first;
    auto choose = [&](const QString &) {
        ++asked;
        return answer;
    };
    auto saveAction = [](MainWindow &w) {
        for (QAction *a : w.findChildren<QAction *>())
            if (a->shortcuts().contains(QKeySequence(QKeySequence::Save)) && a->shortcutContext() == Qt::WindowShortcut)
                return a;
        return static_cast<QAction *>(nullptr);
    };
    {
        auto window = openDemo();
        MainWindow &w = *window;
        Document &doc = *w.document();
        RewriteController &rc = *w.rewrite();
        w.setSavePathChooser(choose);
        findMatches(w);
        CHECK(w.windowTitle().contains(QStringLiteral("[*]")));
        CHECK_FALSE(w.isWindowModified());

        rc.matchesPanel()->selectMatchRow(firstRow(doc, "batch_relu", MatchStatus::Pending));
        rc.rejectAction()->trigger();
        CHECK(w.isWindowModified());
        // The first Ctrl+S asks where; the file becomes the session's.
        QAction *save = saveAction(w);
        REQUIRE(save);
        save->trigger();
        CHECK(asked == 1);
        CHECK(QFileInfo::exists(first));
        CHECK_FALSE(w.isWindowModified());
        CHECK(w.windowTitle().startsWith(QStringLiteral("review.fusebox (")));

        // An apply marks it again, undo back to the saved state clears it.
        rc.matchesPanel()->selectMatchRow(firstRow(doc, "batch_layernorm", MatchStatus::Pending));
        rc.applyAction()->trigger();
        REQUIRE(settle(w));
        CHECK(w.isWindowModified());
        rc.undoAction()->trigger();
        REQUIRE(settle(w));
        CHECK_FALSE(w.isWindowModified());
        rc.redoAction()->trigger();
        REQUIRE(settle(w));
        CHECK(w.isWindowModified());
        // The next Ctrl+S writes the same file without asking.
        save->trigger();
        CHECK(asked == 1);
        CHECK_FALSE(w.isWindowModified());
        // Save As asks, and the new file is the session's from then on.
        answer = second;
        REQUIRE(w.saveSessionAs());
        CHECK(asked == 2);
        CHECK(w.sessionPath() == QFileInfo(second).absoluteFilePath());
    }
    // Reopened, Ctrl+S saves back to the session file it came from.
    MainWindow w;
    w.setErrorDialogsEnabled(false);
    w.setSavePathChooser(choose);
    w.show();
    QSignalSpy restored(&w, &MainWindow::sessionRestored);
    REQUIRE(w.openSession(first));
    REQUIRE(restored.wait(120000));
    REQUIRE(restored.first().at(0).toBool());
    REQUIRE(settle(w));
    CHECK_FALSE(w.isWindowModified());
    CHECK(w.sessionPath() == QFileInfo(first).absoluteFilePath());
    CHECK(w.document()->review().tally("batch_layernorm").applied == 1);
    w.rewrite()->undoAction()->trigger();
    REQUIRE(settle(w));
    CHECK(w.isWindowModified());
    const QDateTime before = QFileInfo(first).lastModified();
    QTest::qWait(20);
    saveAction(w)->trigger();
    CHECK(asked == 2);
    CHECK_FALSE(w.isWindowModified());
    CHECK(QFileInfo(first).lastModified() >= before);
}

TEST_CASE("a Matches table narrowed by the selection says so and shows all again", "[views][review]")
{
    auto window = openDemo();
    MainWindow &w = *window;
    Document &doc = *w.document();
    RewriteController &rc = *w.rewrite();
    MatchesPanel &panel = *rc.matchesPanel();
    findMatches(w);
    auto *bar = panel.findChild<QWidget *>(QStringLiteral("matchesFilterBar"));
    auto *showAll = panel.findChild<QPushButton *>(QStringLiteral("matchesShowAll"));
    REQUIRE(bar);
    REQUIRE(showAll);
    CHECK(bar->isHidden());

    // Select a layer_norm: only the matches covering it are listed, and the bar says how many.
    const int layernorm = firstRow(doc, "batch_layernorm", MatchStatus::Pending);
    REQUIRE(layernorm >= 0);
    const NodeId node = doc.review().matches()[size_t(layernorm)].match.anchor;
    int covering = 0;
    for (const MatchEntry &e : doc.review().matches())
        covering += e.status != MatchStatus::Applied
                    && std::find(e.match.nodes.begin(), e.match.nodes.end(), node) != e.match.nodes.end();
    REQUIRE(covering >= 1);
    w.scene()->selectNode(node);
    REQUIRE(settle(w));
    CHECK_FALSE(bar->isHidden());
    CHECK(panel.model()->rowCount() == covering);
    CHECK(panel.filterText().contains(covering == 1 ? QStringLiteral("the 1 match")
                                                    : QStringLiteral("the %1 matches").arg(covering)));

    // Apply it: the layer_norm is gone, so the table shows every match again.
    panel.selectMatchRow(firstRow(doc, "batch_layernorm", MatchStatus::Pending));
    rc.applyAction()->trigger();
    REQUIRE(settle(w));
    REQUIRE_FALSE(doc.model().graph().contains(node));
    CHECK(bar->isHidden());
    CHECK(panel.model()->rowCount() == int(doc.review().matches().size()));

    // A node no match covers: the table is empty and says why; Show All brings the rows back.
    const NodeId input = doc.model().graph().inputs().front();
    w.scene()->selectNode(input);
    REQUIRE(settle(w));
    CHECK(panel.model()->rowCount() == 0);
    CHECK_FALSE(bar->isHidden());
    CHECK(panel.filterText() == QStringLiteral("No match covers the selected nodes."));
    QTest::mouseClick(showAll, Qt::LeftButton);
    CHECK(panel.model()->rowCount() == int(doc.review().matches().size()));
    CHECK(bar->isHidden());
}

TEST_CASE("the open diff agrees with the Matches table after every apply and undo", "[views][review]")
{
    auto window = openDemo();
    MainWindow &w = *window;
    Document &doc = *w.document();
    RewriteController &rc = *w.rewrite();
    findMatches(w);
    rc.diffAction()->trigger(); // open throughout
    checkDiffAgreesWithRows(w, "nothing applied");

    rc.matchesPanel()->selectMatchRow(firstRow(doc, "batch_layernorm", MatchStatus::Pending));
    rc.applyAction()->trigger();
    REQUIRE(settle(w));
    checkDiffAgreesWithRows(w, "one apply");

    applyAll(w);
    REQUIRE(countStatus(doc, MatchStatus::Applied) > 2);
    checkDiffAgreesWithRows(w, "Apply All");

    rc.undoAction()->trigger();
    REQUIRE(settle(w));
    checkDiffAgreesWithRows(w, "Apply All undone");
    rc.undoAction()->trigger();
    REQUIRE(settle(w));
    checkDiffAgreesWithRows(w, "all undone");
    CHECK(rc.diffView()->summaryText().contains(QStringLiteral("No rewrite applied yet")));
    rc.redoAction()->trigger();
    REQUIRE(settle(w));
    checkDiffAgreesWithRows(w, "redo");
    rc.redoAction()->trigger();
    REQUIRE(settle(w));
    checkDiffAgreesWithRows(w, "redo all");
}

TEST_CASE("Apply and Reject wait for a pending candidate, Restore for a rejected one", "[views][review]")
{
    auto window = openDemo();
    MainWindow &w = *window;
    RewriteController &rc = *w.rewrite();
    CHECK(rc.findMatchesAction()->isEnabled());
    CHECK_FALSE(rc.applyAction()->isEnabled());
    CHECK_FALSE(rc.rejectAction()->isEnabled());
    CHECK_FALSE(rc.restoreAction()->isEnabled());
    findMatches(w);
    CHECK(rc.applyAction()->isEnabled());
    CHECK(rc.rejectAction()->isEnabled());
    CHECK_FALSE(rc.restoreAction()->isEnabled());
    // With every candidate rejected there is nothing to apply or reject, only to restore.
    Document &doc = *w.document();
    auto firstPending = [&doc] {
        for (size_t row = 0; row < doc.review().matches().size(); ++row)
            if (doc.review().matches()[row].status == MatchStatus::Pending)
                return int(row);
        return -1;
    };
    for (int row = firstPending(); row >= 0; row = firstPending())
        REQUIRE(doc.rejectMatch(row));
    CHECK_FALSE(rc.applyAction()->isEnabled());
    CHECK_FALSE(rc.rejectAction()->isEnabled());
    CHECK(rc.restoreAction()->isEnabled());
}

TEST_CASE("Apply All before any search: the Matches header counts what it applied", "[views][review]")
{
    // The header said "Press F5 … to run the engine's search" over the rows
    // Apply All had just applied (issue 36).
    auto window = openDemo();
    MainWindow &w = *window;
    Document &doc = *w.document();
    RewriteController &rc = *w.rewrite();
    REQUIRE_FALSE(doc.review().hasMatchResults());
    const int applied = applyAll(w);
    REQUIRE(applied > 0);
    if (!doc.review().hasMatchResults()) {
        CHECK(rc.matchesPanel()->summaryText().startsWith(QStringLiteral("%1 applied · ").arg(applied)));
        CHECK(rc.matchesPanel()->summaryText().contains(QStringLiteral("to list the candidates left")));
    }
    CHECK_FALSE(rc.matchesPanel()->summaryText().contains(QStringLiteral("to run the engine's search")));
}

TEST_CASE("candidates left after a whole Apply All say that Inductor's schedule leaves them too", "[views][review]")
{
    auto window = openDemo();
    MainWindow &w = *window;
    Document &doc = *w.document();
    RewriteController &rc = *w.rewrite();
    findMatches(w);
    doc.setSchedule(PassSchedule::Inductor);
    for (const MatchEntry &e : doc.review().matches())
        CHECK_FALSE(e.afterApplyAll); // before Apply All: ordinary candidates
    // As a review goes: batch_relu rejected first (its relus are then
    // stacked by the other fusions and stay for later passes to match).
    const int relu = firstRow(doc, "batch_relu", MatchStatus::Pending);
    REQUIRE(relu >= 0);
    rejectRow(w, relu);
    applyAll(w);
    REQUIRE(doc.jobs().graphIsApplyAllResult());
    // The run makes nodes that earlier passes would match (a normalization
    // at a new stack, a cat sink_cat_after_pointwise reads): Inductor ran
    // those passes before the nodes existed.
    int left = 0;
    MatchTableModel *model = rc.matchesPanel()->model();
    for (int row = 0; row < model->rowCount(); ++row) {
        const MatchEntry &e = doc.review().matches()[size_t(row)];
        if (e.status != MatchStatus::Pending)
            continue;
        INFO(e.match.pattern);
        ++left;
        CHECK(e.afterApplyAll);
        CHECK(model->index(row, MatchTableModel::Status).data().toString()
              == QStringLiteral("pending · after Apply All"));
        CHECK(model->index(row, MatchTableModel::Verification)
                  .data()
                  .toString()
                  .contains(QStringLiteral("production Inductor leaves it too")));
    }
    CHECK(left >= 1);
    // One more apply changes the graph: what is left then is an ordinary candidate.
    const auto &rows = doc.review().matches();
    const int first = int(
        std::find_if(rows.begin(), rows.end(), [](const MatchEntry &e) { return e.status == MatchStatus::Pending; })
        - rows.begin());
    REQUIRE(first < int(rows.size()));
    rc.matchesPanel()->selectMatchRow(first);
    rc.applyAction()->trigger();
    REQUIRE(settle(w));
    CHECK_FALSE(doc.jobs().graphIsApplyAllResult());
    for (const MatchEntry &e : doc.review().matches())
        if (e.status == MatchStatus::Pending)
            CHECK_FALSE(e.afterApplyAll);
}

TEST_CASE("after Apply All and its undo the view stays on the nodes it showed", "[views][review]")
{
    // Apply All removes most nodes of the demo and lays the rest out anew;
    // the view used to keep its scroll position and could look at empty
    // space. Zoomed in on an input (inputs survive every rewrite), the view
    // keeps that input where it was on screen.
    auto window = openDemo();
    MainWindow &w = *window;
    GraphView &view = *w.view();
    findMatches(w);
    const Graph &graph = w.document()->model().graph();
    const NodeId sparse = graph.findByName("sparse");
    REQUIRE(sparse.isValid());
    auto onScreen = [&]() -> std::optional<QPoint> {
        const NodeItem *item = w.scene()->nodeItem(sparse);
        if (!item)
            return std::nullopt;
        const QPoint at = view.mapFromScene(item->sceneBoundingRect().center());
        return view.viewport()->rect().contains(at) ? std::optional(at) : std::nullopt;
    };
    view.setZoom(2.0);
    view.centerOn(w.scene()->nodeItem(sparse)->sceneBoundingRect().center() + QPointF(40, 30));
    const auto before = onScreen();
    REQUIRE(before);

    applyAll(w);
    REQUIRE(graph.size() < 200); // most of the demo was rewritten
    const auto applied = onScreen();
    REQUIRE(applied);
    CHECK((*applied - *before).manhattanLength() <= 2);
    CHECK(view.zoom() == Approx(2.0)); // the zoom stays

    w.rewrite()->undoAction()->trigger();
    REQUIRE(settle(w));
    const auto undone = onScreen();
    REQUIRE(undone);
    CHECK((*undone - *before).manhattanLength() <= 2);
}
