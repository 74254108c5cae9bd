// Issue 14's acceptance: one review driven end to end through the real
// actions — open, set shapes, F5, reject, apply one, Apply All, undo all,
// redo all, with the diff open throughout, save the session, reopen it — on
// the demo and on a traced model whose input shapes the user sets. After
// every step every readout (status bar, Inspector, Legend, Patterns counts,
// Matches header and rows, undo text, diff headline, title mark) is checked
// against the document's graph and decisions, counted here independently.
// With FUSEBOX_SCREENSHOT_DIR set, the window is saved after every step.
#include "ReviewTestSupport.h"

#include "core/ir/OpFamily.h"
#include "views/DiffView.h"
#include "views/InputShapes.h"
#include "views/LegendWidget.h"
#include "views/MatchTableModel.h"
#include "views/MatchesPanel.h"
#include "views/OpPalette.h"
#include "views/PatternsPanel.h"

#include <catch.hpp>

#include <QDir>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QStatusBar>
#include <QUndoStack>

#include <set>
#include <vector>

using namespace fusebox;
using namespace fusebox::viewtest;

namespace {

/// What the test itself knows the review should show: the undo steps it made
/// (their texts, oldest first; `done` of them applied) and whether anything is unsaved.
struct Expected {
    std::vector<QString> steps;
    size_t done = 0;
    bool modified = false;
};

QString plural(qsizetype n, const char *one, const char *many)
{
    return QStringLiteral("%1 %2").arg(n).arg(QString::fromLatin1(n == 1 ? one : many));
}

/// Every readout against the graph and the decisions, counted here.
void checkReadouts(MainWindow &w, const Expected &x, const QString &step)
{
    INFO(step.toStdString());
    const Document &doc = *w.document();
    const Graph &g = doc.model().graph();
    RewriteController &rc = *w.rewrite();

    // The graph, counted node by node.
    size_t nodes = 0, edges = 0;
    std::map<OpFamily, size_t> families;
    std::set<uint32_t> now, before;
    for (NodeId id : g.nodeIds()) {
        ++nodes;
        edges += g.node(id)->inputNodes().size();
        ++families[opFamily(*g.node(id))];
        now.insert(id.value);
    }
    for (NodeId id : doc.history().original().nodeIds())
        before.insert(id.value);

    // Status bar.
    auto *counts = w.findChild<QLabel *>(QStringLiteral("countsLabel"));
    REQUIRE(counts);
    CHECK(counts->text() == QStringLiteral("%1 nodes · %2 edges").arg(nodes).arg(edges));
    // Inspector (no node selected: the model summary).
    checkInspectorSummary(w, "inspector");
    // Legend: nodes per op family.
    auto *legend = w.findChild<LegendWidget *>();
    REQUIRE(legend);
    for (OpFamily f : OpPalette::families()) {
        INFO(std::string(toString(f)));
        CHECK(legend->count(f) == families[f]);
    }

    // The decisions, from the match list.
    std::map<std::string, PatternTally> tallies;
    int candidates = 0, rejected = 0, applied = 0, failed = 0;
    for (const MatchEntry &e : doc.review().matches()) {
        PatternTally &t = tallies[e.match.pattern];
        const bool candidate = e.status == MatchStatus::Pending || (e.status == MatchStatus::Rejected && !e.notFound);
        t.candidates += candidate;
        t.applied += e.status == MatchStatus::Applied;
        t.rejected += e.status == MatchStatus::Rejected;
        t.failed += e.status == MatchStatus::FailedVerification;
        candidates += candidate;
        rejected += e.status == MatchStatus::Rejected;
        applied += e.status == MatchStatus::Applied;
        failed += e.status == MatchStatus::FailedVerification;
    }
    CHECK(failed == 0);
    // Patterns panel: every pattern's counts.
    for (const auto &[pattern, t] : tallies) {
        INFO(pattern);
        QTreeWidgetItem *item = rc.patternsPanel()->patternItem(pattern);
        REQUIRE(item);
        CHECK(item->text(PatternsPanel::Candidates) == QString::number(t.candidates));
        CHECK(item->text(PatternsPanel::Applied) == QString::number(t.applied));
        CHECK(item->text(PatternsPanel::Rejected) == QString::number(t.rejected));
    }
    // Matches header and rows.
    const QString header
        = doc.review().hasMatchResults()
              ? plural(candidates, "candidate", "candidates")
                    + QStringLiteral(" · %1 rejected · %2 applied").arg(rejected).arg(applied)
          : applied + failed == 0
              ? QStringLiteral("Press F5 (Rewrite → Find Matches) to run the engine's search.")
              : QStringLiteral("%1 applied · %2 failed verification · press F5 (Rewrite → Find Matches) to list the "
                               "candidates left")
                    .arg(applied)
                    .arg(failed);
    CHECK(rc.matchesPanel()->summaryText() == header);
    MatchTableModel *model = rc.matchesPanel()->model();
    REQUIRE(model->rowCount() == int(doc.review().matches().size()));
    for (int row = 0; row < model->rowCount(); ++row) {
        const MatchEntry &e = doc.review().matches()[size_t(row)];
        INFO("row " << row);
        CHECK(model->index(row, MatchTableModel::Pattern).data().toString() == QString::fromStdString(e.match.pattern));
        CHECK(model->index(row, MatchTableModel::Anchor).data().toString() == QStringLiteral("%") + e.anchorName);
        const QString status = e.notFound ? QStringLiteral("rejected · not found")
                               : e.offSchedule && e.status == MatchStatus::Pending
                                   ? QStringLiteral("pending · not in schedule")
                               : e.afterApplyAll && e.status == MatchStatus::Pending
                                   ? QStringLiteral("pending · after Apply All")
                                   : toString(e.status);
        CHECK(model->index(row, MatchTableModel::Status).data().toString() == status);
    }

    // Undo and redo texts: the steps this test made.
    const QString undo = x.done ? QStringLiteral("&Undo %1").arg(x.steps[x.done - 1]) : QStringLiteral("&Undo");
    const QString redo = x.done < x.steps.size() ? QStringLiteral("&Redo %1").arg(x.steps[x.done])
                                                 : QStringLiteral("&Redo");
    CHECK(rc.undoAction()->text() == undo);
    CHECK(rc.redoAction()->text() == redo);
    CHECK(rc.undoAction()->isEnabled() == (x.done > 0));
    CHECK(rc.redoAction()->isEnabled() == (x.done < x.steps.size()));

    // The open diff: the rewrites applied, the node counts, and the net
    // change as the sets of node ids differ between the graph as loaded and now.
    DiffView &diff = *rc.diffView();
    CHECK(diff.isVisible());
    checkDiffAgreesWithRows(w, "diff");
    size_t removed = 0, added = 0;
    for (uint32_t id : before)
        removed += !now.count(id);
    for (uint32_t id : now)
        added += !before.count(id);
    if (applied > 0)
        CHECK(diff.summaryText().contains(QStringLiteral("(−%1 removed, +%2 added,").arg(removed).arg(added)));
    else
        CHECK(diff.summaryText().contains(QStringLiteral("No rewrite applied yet")));

    // The title's modified mark.
    CHECK(w.windowTitle().contains(QStringLiteral("[*]")));
    CHECK(w.isWindowModified() == x.modified);
    CHECK(doc.history().isModified() == x.modified);

    if (const QString dir = qEnvironmentVariable("FUSEBOX_SCREENSHOT_DIR"); !dir.isEmpty()) {
        QDir().mkpath(dir);
        QTest::qWait(50);
        QString name = step;
        name.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9]+")), QStringLiteral("-"));
        w.grab().save(dir + QStringLiteral("/e2e-") + name + QStringLiteral(".png"));
    }
}

/// The traced model without recorded shapes (tests/views/models/traced_recsys.py, torch 1.13).
QString tracedModel(const QTemporaryDir &dir)
{
    const QString out = dir.filePath(QStringLiteral("traced_recsys.pt"));
    QProcess python;
    python.start(QStringLiteral("/usr/bin/python3"),
                 {(QString::fromUtf8(FUSEBOX_SOURCE_DIR) + QStringLiteral("/tests/views/models/traced_recsys.py")),
                  out});
    REQUIRE(python.waitForFinished(120000));
    INFO(python.readAllStandardError().toStdString());
    REQUIRE(python.exitCode() == 0);
    return out;
}

/// The first pending row of `pattern`, else of any pattern but `not`.
int pendingRow(const Document &doc, const std::string &pattern, const std::string &not_ = {})
{
    if (int row = firstRow(doc, pattern, MatchStatus::Pending); row >= 0)
        return row;
    for (size_t i = 0; i < doc.review().matches().size(); ++i)
        if (doc.review().matches()[i].status == MatchStatus::Pending && doc.review().matches()[i].match.pattern != not_)
            return int(i);
    return -1;
}

/// The review, from an open model to a reopened session.
void review(std::unique_ptr<MainWindow> window, const QString &name, const QString &sessionPath)
{
    MainWindow &w = *window;
    Document &doc = *w.document();
    RewriteController &rc = *w.rewrite();
    Expected x;
    rc.diffAction()->trigger(); // open throughout
    checkReadouts(w, x, name + QStringLiteral(" opened"));

    findMatches(w);
    REQUIRE(doc.review().matches().size() >= 3);
    checkReadouts(w, x, name + QStringLiteral(" F5"));

    // Reject one (Del on the selected row).
    const int reject = pendingRow(doc, "batch_relu");
    REQUIRE(reject >= 0);
    const MatchEntry rejectedEntry = doc.review().matches()[size_t(reject)];
    rejectRow(w, reject);
    x.steps.push_back(QStringLiteral("Reject %1 at %%2")
                          .arg(QString::fromStdString(rejectedEntry.match.pattern), rejectedEntry.anchorName));
    x.done = 1;
    x.modified = true;
    checkReadouts(w, x, name + QStringLiteral(" reject"));

    // Apply one (Ctrl+Return on the selected row).
    const int apply = pendingRow(doc, "batch_layernorm", rejectedEntry.match.pattern);
    REQUIRE(apply >= 0);
    const MatchEntry appliedEntry = doc.review().matches()[size_t(apply)];
    rc.matchesPanel()->selectMatchRow(apply);
    rc.applyAction()->trigger();
    REQUIRE(settle(w));
    REQUIRE(countStatus(doc, MatchStatus::Applied) == 1);
    x.steps.push_back(QStringLiteral("Apply %1 at %%2")
                          .arg(QString::fromStdString(appliedEntry.match.pattern), appliedEntry.anchorName));
    x.done = 2;
    checkReadouts(w, x, name + QStringLiteral(" apply one"));

    // Apply All: its undo text counts the rows it applied.
    QSignalSpy allDone(&doc.jobs(), &DocumentJobs::applyAllFinished);
    rc.applyAllAction()->trigger();
    REQUIRE((allDone.count() > 0 || allDone.wait(60000)));
    REQUIRE(settle(w));
    const int all = countStatus(doc, MatchStatus::Applied) - 1;
    REQUIRE(all > 0);
    CHECK(allDone.first().at(0).toInt() == all);
    x.steps.push_back(all == 1 ? QStringLiteral("Apply All (1 rewrite)")
                               : QStringLiteral("Apply All (%1 rewrites)").arg(all));
    x.done = 3;
    checkReadouts(w, x, name + QStringLiteral(" Apply All"));
    const size_t rewrittenSize = doc.model().graph().size();
    const int rejectedAfterAll = countStatus(doc, MatchStatus::Rejected);
    CHECK(rejectedAfterAll == 1); // the rejection survived
    // Apply All fused none of the rejected group's nodes together under its rule.
    for (const MatchEntry &e : doc.review().matches())
        if (e.status == MatchStatus::Applied && e.match.pattern == rejectedEntry.match.pattern) {
            const auto shared = std::count_if(e.match.nodes.begin(), e.match.nodes.end(), [&](NodeId id) {
                return std::find(rejectedEntry.match.nodes.begin(), rejectedEntry.match.nodes.end(), id)
                       != rejectedEntry.match.nodes.end();
            });
            INFO(e.match.pattern << " at %" << e.anchorName.toStdString());
            CHECK(shared < 2);
        }

    // Undo all, then redo all, one step at a time.
    while (x.done > 0) {
        rc.undoAction()->trigger();
        REQUIRE(settle(w));
        --x.done;
        x.modified = x.done > 0;
        // The status bar names the step taken back, not the last one taken.
        CHECK(w.statusBar()->currentMessage() == QStringLiteral("Undone: ") + x.steps[x.done]);
        checkReadouts(w, x, name + QStringLiteral(" undo to ") + QString::number(x.done));
    }
    CHECK(doc.model().graph().size() == doc.history().original().size());
    while (x.done < x.steps.size()) {
        rc.redoAction()->trigger();
        REQUIRE(settle(w));
        ++x.done;
        x.modified = true;
        CHECK(w.statusBar()->currentMessage() == QStringLiteral("Redone: ") + x.steps[x.done - 1]);
        checkReadouts(w, x, name + QStringLiteral(" redo to ") + QString::number(x.done));
    }
    CHECK(doc.model().graph().size() == rewrittenSize);

    // Save the session: no unsaved mark.
    QString error;
    REQUIRE(w.saveSession(sessionPath, &error));
    x.modified = false;
    checkReadouts(w, x, name + QStringLiteral(" saved"));
    const int appliedRows = countStatus(doc, MatchStatus::Applied);
    window.reset();

    // Reopen it: the same graph and decisions, nothing unsaved. The replay
    // makes the applies one undo step each as saved, and the rejection.
    auto again = std::make_unique<MainWindow>();
    again->setErrorDialogsEnabled(false);
    again->resize(1600, 1000);
    again->show();
    QSignalSpy restored(again.get(), &MainWindow::sessionRestored);
    REQUIRE(again->openSession(sessionPath));
    REQUIRE(restored.wait(120000));
    INFO(restored.first().at(1).toString().toStdString());
    REQUIRE(restored.first().at(0).toBool());
    REQUIRE(settle(*again));
    again->rewrite()->diffAction()->trigger();
    REQUIRE(settle(*again));
    Document &reopened = *again->document();
    CHECK(reopened.model().graph().size() == rewrittenSize);
    CHECK(countStatus(reopened, MatchStatus::Applied) == appliedRows);
    CHECK(countStatus(reopened, MatchStatus::Rejected) == 1);
    // What the undo stack holds now is the replay's: its texts are the stack's own.
    Expected y;
    for (int i = 0; i < reopened.history().undoStack()->count(); ++i)
        y.steps.push_back(reopened.history().undoStack()->text(i));
    y.done = size_t(reopened.history().undoStack()->index());
    y.modified = false;
    checkReadouts(*again, y, name + QStringLiteral(" reopened"));
}

} // namespace

TEST_CASE("end to end on the demo: every readout agrees with the document after every step", "[views][e2e]")
{
    QTemporaryDir dir;
    review(openDemo(), QStringLiteral("demo"), dir.filePath(QStringLiteral("demo.fusebox")));
}

TEST_CASE("end to end on a traced model whose input shapes the user sets", "[views][e2e]")
{
    QTemporaryDir dir;
    const QString traced = tracedModel(dir);
    auto w = std::make_unique<MainWindow>();
    w->setErrorDialogsEnabled(false);
    w->resize(1600, 1000);
    w->show();
    {
        QSignalSpy shown(w.get(), &MainWindow::graphShown);
        w->openFile(traced);
        REQUIRE(shown.wait(120000));
    }
    // Told at load; set through the status bar's button and its dialog.
    REQUIRE(w->document()->model().inputsWithoutShape().size() == 2);
    auto *button = w->findChild<QPushButton *>(QStringLiteral("setInputShapesButton"));
    REQUIRE(button);
    REQUIRE_FALSE(button->isHidden());
    const QString shapes = QStringLiteral("32,13;32,384");
    w->setInputShapesPrompt([&](const QString &) { return shapes; });
    {
        QSignalSpy shown(w.get(), &MainWindow::graphShown);
        QTest::mouseClick(button, Qt::LeftButton);
        REQUIRE(shown.wait(120000));
    }
    REQUIRE(settle(*w));
    CHECK(w->document()->model().inputsWithoutShape().empty());
    CHECK(inputShapesText(w->document()->model().loadOptions().inputShapes) == shapes);
    CHECK(button->isHidden());
    const Graph &g = w->document()->model().graph();
    CHECK(g.node(g.inputs()[0])->meta.toString() == "f32[32, 13]");
    CHECK(g.node(g.inputs()[1])->meta.toString() == "f32[32, 384]");
    const QString sessionPath = dir.filePath(QStringLiteral("traced.fusebox"));
    review(std::move(w), QStringLiteral("traced"), sessionPath);
}
