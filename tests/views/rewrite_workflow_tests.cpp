// The review workflow through the real widgets, on the demo model: run the
// engine, select a match, apply, undo, redo, reject another, ask why-not,
// make a pattern from a selection, export and reload the pass file.
// With FUSEBOX_SCREENSHOT_DIR set, it also saves the window at each stage.
#include "ReviewTestSupport.h"
#include "ViewTestGraphs.h"

#include "core/ir/GraphCompare.h"
#include "core/torch/ModelLoader.h"
#include "core/torch/TorchSchemas.h"
#include "patterns/Catalog.h"
#include "patterns/PassConfiguration.h"
#include "views/DiffView.h"
#include "views/Document.h"
#include "views/GraphScene.h"
#include "views/GraphView.h"
#include "views/MainWindow.h"
#include "views/MatchTableModel.h"
#include "views/MatchesPanel.h"
#include "views/NodeItem.h"
#include "views/PatternEditor.h"
#include "views/PatternsPanel.h"
#include "views/ReviewFiles.h"
#include "views/RewriteController.h"
#include "views/WhyNotPanel.h"

#include <catch.hpp>

#include <set>
#include <string>
#include <utility>

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QFile>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QUndoStack>

using namespace fusebox;
using namespace fusebox::viewtest;

namespace {

/// Saves the window to $FUSEBOX_SCREENSHOT_DIR/name.png when the variable is set.
void screenshot(QWidget &w, const char *name)
{
    const QString dir = qEnvironmentVariable("FUSEBOX_SCREENSHOT_DIR");
    if (dir.isEmpty())
        return;
    QDir().mkpath(dir);
    QTest::qWait(50);
    w.grab().save(dir + QLatin1Char('/') + QString::fromLatin1(name) + QStringLiteral(".png"));
}

} // namespace

TEST_CASE("review workflow: find, select, apply, undo, redo, reject", "[views][rewrite]")
{
    auto window = openDemo();
    MainWindow &w = *window;
    Document &doc = *w.document();
    RewriteController &rc = *w.rewrite();

    // Run the engine from its action (F5): the candidates arrive in the background.
    QSignalSpy changed(&doc.review(), &DocumentReview::matchesChanged);
    rc.findMatchesAction()->trigger();
    REQUIRE(changed.wait(60000));
    REQUIRE(settle(w));
    // The candidates, derived from the model's source (resources/demo/
    // make_demo_model.py): two torch.split calls (the dense tower's, the
    // top's) to normalize; DENSE_CHUNKS = 16 parallel linear -> relu ->
    // layer_norm branches (batch_linear, batch_relu, batch_aten_relu,
    // batch_layernorm, 16 members each); six projections of one pooled input
    // (batch_linear_lhs, and batch_linear: equal weight shapes).
    const std::multiset<std::pair<std::string, size_t>> expected{{"normalization_pass", 1}, {"normalization_pass", 1},
                                                                 {"batch_linear", 16},      {"batch_relu", 16},
                                                                 {"batch_aten_relu", 16},   {"batch_layernorm", 16},
                                                                 {"batch_linear_lhs", 6},   {"batch_linear", 6}};
    std::multiset<std::pair<std::string, size_t>> found;
    for (const MatchEntry &e : doc.review().matches())
        found.emplace(e.match.pattern, e.match.nodes.size());
    REQUIRE(found == expected);
    CHECK(rc.matchesPanel()->model()->rowCount() == int(expected.size()));
    CHECK(rc.matchesPanel()->summaryText().contains(QStringLiteral("%1 candidates").arg(expected.size())));
    // Every candidate's nodes are ringed in the pattern's colour.
    for (const MatchEntry &e : doc.review().matches())
        for (NodeId id : e.match.nodes)
            CHECK(w.scene()->marks().contains(id.value));
    // Vertical candidates are framed as groups (normalization_pass at %split and %split_1).
    CHECK(w.scene()->groupFrameCount() == 2);
    // The patterns panel counts them.
    QTreeWidgetItem *batchLinear = rc.patternsPanel()->patternItem("batch_linear");
    REQUIRE(batchLinear);
    CHECK(batchLinear->text(PatternsPanel::Candidates) == QStringLiteral("2"));
    // merge_getitem_cat_pass is tried at every cat of the graph and fires at
    // none: no cat of the demo reads only getitems of a normalized split.
    const size_t cats = doc.model().graph().nodesWithOp("aten::cat").size();
    REQUIRE(cats >= 4); // at least the dense tower's, left, right and the interaction's
    CHECK(doc.review().tally("merge_getitem_cat_pass").nearMisses == int(cats));
    CHECK(rc.patternsPanel()->patternItem("merge_getitem_cat_pass")->text(PatternsPanel::NearMisses)
          == QString::number(cats));
    screenshot(w, "demo_matches");

    // Selecting a row outlines the match and centres the view on it.
    const int layernorm = firstRow(doc, "batch_layernorm", MatchStatus::Pending);
    REQUIRE(layernorm >= 0);
    rc.matchesPanel()->selectMatchRow(layernorm);
    REQUIRE(settle(w));
    const QRectF outline = w.scene()->outlineRect();
    REQUIRE_FALSE(outline.isEmpty());
    CHECK(w.view()->mapToScene(w.view()->viewport()->rect()).boundingRect().intersects(outline));
    for (NodeId id : doc.review().matches()[size_t(layernorm)].match.nodes)
        CHECK(w.scene()->marks().value(id.value).width == 5);

    // Apply it (Ctrl+Return): one undo step, verified numerically.
    const size_t before = doc.model().graph().size();
    rc.applyAction()->trigger();
    REQUIRE(settle(w));
    CHECK(doc.history().undoStack()->count() == 1);
    CHECK(doc.model().graph().size() != before);
    CHECK(doc.review().tally("batch_layernorm").applied == 1);
    CHECK(doc.review().tally("batch_layernorm").candidates == 0);
    const int applied = firstRow(doc, "batch_layernorm", MatchStatus::Applied);
    REQUIRE(applied >= 0);
    CHECK(doc.review().matches()[size_t(applied)].verification.startsWith(QStringLiteral("passed")));
    const size_t after = doc.model().graph().size();

    // Undo restores the graph exactly; redo rewrites it again.
    rc.undoAction()->trigger();
    REQUIRE(settle(w));
    CHECK(firstDifference(doc.model().graph(), doc.history().original()) == std::nullopt);
    CHECK(doc.review().matches().size() == 8);
    CHECK(doc.review().tally("batch_layernorm").applied == 0);
    rc.redoAction()->trigger();
    REQUIRE(settle(w));
    CHECK(doc.model().graph().size() == after);
    CHECK(doc.review().tally("batch_layernorm").applied == 1);

    // Reject another (Del): it stays a candidate, struck out, and Apply All skips it.
    const int relu = firstRow(doc, "batch_relu", MatchStatus::Pending);
    REQUIRE(relu >= 0);
    rejectRow(w, relu);
    CHECK(doc.history().undoStack()->count() == 2);
    CHECK(doc.review().tally("batch_relu").rejected == 1);
    // Rejecting it again is no step at all.
    rc.rejectAction()->trigger();
    CHECK(doc.history().undoStack()->count() == 2);
    CHECK(doc.persistence().passConfig().rejected.size() == 1);
    CHECK(doc.history().isModified());
    screenshot(w, "demo_after_apply_reject");

    // Apply All shows its progress and can be cancelled (Esc): it ran on a
    // copy, so nothing changes.
    const size_t beforeAll = doc.model().graph().size();
    QSignalSpy cancelled(&doc.jobs(), &DocumentJobs::applyAllFinished);
    rc.applyAllAction()->trigger();
    CHECK(rc.busyText().startsWith(QStringLiteral("Applying all")));
    rc.cancelAction()->trigger();
    REQUIRE(cancelled.wait(60000));
    CHECK(cancelled.first().at(0).toInt() == 0);
    CHECK(cancelled.first().at(1).toString().contains(QStringLiteral("cancelled")));
    REQUIRE(settle(w));
    CHECK(doc.model().graph().size() == beforeAll);
    CHECK(doc.history().undoStack()->count() == 2);
    CHECK(rc.busyText().isEmpty());

    rc.applyAllAction()->trigger();
    QSignalSpy allDone(&doc.jobs(), &DocumentJobs::applyAllFinished);
    REQUIRE((allDone.count() > 0 || allDone.wait(60000)));
    REQUIRE(settle(w));
    // The rejected group was skipped (batch_aten_relu fused those relus instead).
    CHECK(doc.jobs().lastCounters().at("batch_relu").rejected >= 1);
    CHECK(doc.review().tally("batch_aten_relu").applied == 1);
    CHECK(doc.history().undoStack()->count() == 3);
    rc.undoAction()->trigger(); // Apply All is one step
    REQUIRE(settle(w));
    CHECK(doc.model().graph().size() == after);
}

TEST_CASE("why not: the failed check, its values and its nodes", "[views][rewrite]")
{
    auto window = openDemo();
    MainWindow &w = *window;
    Document &doc = *w.document();
    const NodeId cat = doc.model().graph().findByName("cat");
    REQUIRE(cat.isValid());
    // Another node is selected when the user right-clicks the cat.
    const NodeId other = doc.model().graph().findByName("layer_norm");
    REQUIRE(other.isValid());
    w.scene()->selectNode(other);
    REQUIRE(w.inspector()->node() == other);

    // Right-click a node: the menu offers the patterns rooted at its op.
    QMenu menu;
    emit w.scene()->nodeContextMenu(cat, &menu);
    REQUIRE_FALSE(menu.actions().isEmpty());
    QMenu *why = menu.actions().first()->menu();
    REQUIRE(why);
    QAction *merge = nullptr;
    for (QAction *a : why->actions())
        if (a->text() == QStringLiteral("merge_getitem_cat_pass"))
            merge = a;
    REQUIRE(merge);
    merge->trigger();

    WhyNotPanel &panel = *w.rewrite()->whyNotPanel();
    CHECK(panel.pattern() == "merge_getitem_cat_pass");
    CHECK(panel.node() == cat);
    // The Inspector shows the node asked about, not the one selected before (issue 36).
    CHECK(w.inspector()->node() == cat);
    // By default the answer is Inductor's schedule's: by the time
    // merge_getitem_cat_pass runs, batch_layernorm has fused the layer norms
    // that fed the cat, which now reads the getitems of an unbind.
    QString text = panel.text();
    CHECK(text.contains(QStringLiteral("does not fire at %cat")));
    CHECK(text.contains(QStringLiteral("✓ the node is still there when merge_getitem_cat_pass runs")));
    CHECK(text.contains(
        QStringLiteral("✗ not met: the getitems read a split — the getitems read %unbind_3 (aten::unbind), not a "
                       "split (%unbind_3: made by batch_layernorm#1) [split_cat.py:1523 merge_getitem_cat]")));

    screenshot(w, "why_not_inductor");

    // Fusebox's greedy search answers on the graph as it is.
    w.rewrite()->setSchedule(PassSchedule::Greedy);
    text = panel.text();
    CHECK(text.contains(QStringLiteral("does not fire at %cat")));
    CHECK(text.contains(QStringLiteral(
        "✗ not met: every cat input is a getitem — cat input %layer_norm (aten::layer_norm) is not a getitem")));
    // The failed check's nodes are ringed red on the graph.
    const NodeId layerNorm = doc.model().graph().findByName("layer_norm");
    CHECK(w.scene()->marks().value(layerNorm.value).color == QColor(0xd0, 0x20, 0x20));

    // Near misses over the graph, grouped by failed check; activating a node jumps there.
    panel.showNearMisses();
    QTreeWidget *tree = panel.nearMissTree();
    REQUIRE(tree->topLevelItemCount() == 2);
    CHECK(tree->topLevelItem(0)->text(0) == QStringLiteral("split is normalized"));
    QTreeWidgetItem *cat1 = tree->topLevelItem(0)->child(0);
    REQUIRE(cat1);
    emit tree->itemActivated(cat1, 0);
    CHECK(w.scene()->selectedNode() == doc.model().graph().findByName("cat_1"));
    CHECK(panel.node() == doc.model().graph().findByName("cat_1"));
    screenshot(w, "why_not");
}

TEST_CASE("a pattern from a selection matches every occurrence, live", "[views][rewrite]")
{
    auto window = openDemo();
    MainWindow &w = *window;
    Document &doc = *w.document();
    for (const char *name : {"relu", "layer_norm"}) {
        NodeItem *item = w.scene()->nodeItem(doc.model().graph().findByName(name));
        REQUIRE(item);
        item->setSelected(true);
    }
    PatternEditor &editor = *w.rewrite()->patternEditor();
    QSignalSpy compiled(&editor, &PatternEditor::compileFinished);
    QString error;
    REQUIRE(w.rewrite()->newPatternFromSelection(&error));
    REQUIRE((compiled.count() > 0 || compiled.wait(60000)));
    REQUIRE(QTest::qWaitFor([&] { return !editor.isBusy(); }, 60000));
    CHECK_FALSE(editor.hasError());
    CHECK(editor.liveMatches().size() == 16); // the demo's 16 dense branches
    // The live matches are ringed on the graph.
    for (const Match &m : editor.liveMatches())
        for (NodeId id : m.nodes)
            CHECK(w.scene()->marks().contains(id.value));
    // Its description says where it came from, by file name, and nothing that
    // stops being true with the first edit; the status line says that instead.
    CHECK(editor.text().contains(
        QStringLiteral("description = \"made from 2 nodes (%relu, %layer_norm) of recsys_demo.pt\"")));
    CHECK_FALSE(editor.text().contains(QStringLiteral("changes nothing")));
    CHECK(editor.unchangedPatterns() == QStringList{QStringLiteral("from_selection")});
    CHECK(editor.statusText().contains(QStringLiteral("from_selection changes nothing yet")));
    CHECK(editor.suggestedFileName() == QStringLiteral("from_selection.patterns"));

    // A mistake shows a marker at the parser's line and column.
    compiled.clear();
    editor.setText(editor.text().replace(QStringLiteral("aten::relu("), QStringLiteral("aten::rleu(")));
    REQUIRE(compiled.wait(60000));
    CHECK(editor.hasError());
    CHECK(editor.errorMessage().contains(QStringLiteral("did you mean 'aten::relu'")));
    CHECK(editor.errorLine() == 4);
    screenshot(w, "pattern_editor_error");

    // Fixed and used in the document: it joins the patterns and its matches the table.
    compiled.clear();
    editor.setText(editor.text().replace(QStringLiteral("aten::rleu("), QStringLiteral("aten::relu(")));
    REQUIRE(compiled.wait(60000));
    CHECK_FALSE(editor.hasError());
    QSignalSpy changed(&doc.review(), &DocumentReview::matchesChanged);
    emit editor.useRequested(editor.text());
    REQUIRE(changed.wait(60000));
    REQUIRE(settle(w));
    CHECK(doc.review().tally("from_selection").candidates == 16);
    QTreeWidgetItem *item = w.rewrite()->patternsPanel()->patternItem("from_selection");
    REQUIRE(item);
    REQUIRE(QTest::qWaitFor(
        [&] {
            return w.rewrite()->patternsPanel()->patternItem("from_selection")->text(PatternsPanel::Candidates)
                   == QStringLiteral("16");
        },
        5000));
    // Custom patterns sit under where they came from.
    CHECK(w.rewrite()->patternsPanel()->patternItem("from_selection")->parent()->text(0)
          == QStringLiteral("Pattern Editor"));

    // Renamed, and its replacement edited: the note goes, Save offers the new name.
    compiled.clear();
    QString text = editor.text().replace(QStringLiteral("pattern from_selection"), QStringLiteral("pattern relu_ln"));
    const qsizetype replace = text.indexOf(QStringLiteral("replace {"));
    REQUIRE(replace > 0);
    text.replace(text.indexOf(QStringLiteral("aten::relu("), replace), 11, QStringLiteral("aten::gelu("));
    editor.setText(text);
    REQUIRE(compiled.wait(60000));
    REQUIRE(QTest::qWaitFor([&] { return !editor.isBusy(); }, 60000));
    CHECK_FALSE(editor.hasError());
    CHECK(editor.unchangedPatterns().isEmpty());
    CHECK_FALSE(editor.statusText().contains(QStringLiteral("changes nothing")));
    CHECK(editor.suggestedFileName() == QStringLiteral("relu_ln.patterns"));
    QTemporaryDir dir;
    const QString saved = dir.filePath(QStringLiteral("relu_ln.patterns"));
    REQUIRE(editor.saveTo(saved, &error));
    CHECK(editor.suggestedFileName() == saved);
}

TEST_CASE("the pass file carries the rules, custom patterns and rejections, and reloads", "[views][rewrite]")
{
    QTemporaryDir dir;
    const QString pass = dir.filePath(QStringLiteral("passes.json"));
    std::string rejectedSignature;
    {
        auto window = openDemo();
        MainWindow &w = *window;
        Document &doc = *w.document();
        doc.setPatternEnabled(QStringLiteral("batch_aten_relu"), false);
        REQUIRE(doc.setPatternOption(QStringLiteral("batch_linear"), QStringLiteral("min_fuse_set_size"),
                                     OptionValue{int64_t(3)}));
        REQUIRE(doc.addPatternFile((QString::fromUtf8(FUSEBOX_SOURCE_DIR)
                                    + QStringLiteral("/resources/patterns/linear_relu_fusion.patterns"))));
        w.rewrite()->findMatchesAction()->trigger();
        REQUIRE(QTest::qWaitFor([&] { return doc.review().hasMatchResults() && !doc.jobs().isSearching(); }, 60000));
        const int row = firstRow(doc, "batch_layernorm", MatchStatus::Pending);
        REQUIRE(row >= 0);
        rejectedSignature = doc.review().matches()[size_t(row)].signature;
        REQUIRE(doc.rejectMatch(row));
        QString error;
        REQUIRE(w.rewrite()->files()->exportPassFile(pass, &error));
        CHECK_FALSE(doc.history().isModified());
        const QString report = dir.filePath(QStringLiteral("review.md"));
        REQUIRE(w.rewrite()->files()->exportReport(report, &error));
        QFile md(report);
        REQUIRE(md.open(QIODevice::ReadOnly));
        CHECK(QString::fromUtf8(md.readAll()).contains(QStringLiteral("## Rejected (1)")));
    }
    auto window = openDemo();
    MainWindow &w = *window;
    Document &doc = *w.document();
    QString error;
    REQUIRE(w.rewrite()->files()->importPassFile(pass, &error));
    CHECK_FALSE(doc.patternSet().patterns().isEnabled("batch_aten_relu"));
    CHECK(doc.patternSet().patterns().isEnabled("linear_relu_fusion"));
    CHECK(doc.patternSet().customOrigin("linear_relu_fusion") == "passes.json");
    CHECK(std::get<int64_t>(doc.patternSet().patterns().find("batch_linear")->options().values().at("min_fuse_set_size"))
          == 3);
    CHECK(doc.review().isRejected(rejectedSignature));
    w.rewrite()->findMatchesAction()->trigger();
    REQUIRE(QTest::qWaitFor([&] { return doc.review().hasMatchResults() && !doc.jobs().isSearching(); }, 60000));
    REQUIRE(settle(w));
    const int row = firstRow(doc, "batch_layernorm", MatchStatus::Rejected);
    REQUIRE(row >= 0);
    CHECK(doc.review().matches()[size_t(row)].signature == rejectedSignature);
}

TEST_CASE("the diff view shows what the applied rewrites removed and added", "[views][rewrite]")
{
    auto window = openDemo();
    MainWindow &w = *window;
    Document &doc = *w.document();
    w.rewrite()->findMatchesAction()->trigger();
    REQUIRE(QTest::qWaitFor([&] { return doc.review().hasMatchResults() && !doc.jobs().isSearching(); }, 60000));
    const int row = firstRow(doc, "batch_layernorm", MatchStatus::Pending);
    REQUIRE(row >= 0);
    REQUIRE(doc.applyMatches({row}) == 1);
    REQUIRE(settle(w));

    w.rewrite()->diffAction()->trigger();
    DiffView &diff = *w.rewrite()->diffView();
    REQUIRE(QTest::qWaitFor([&] { return !diff.isLayingOut() && diff.beforeScene()->nodeItemCount() > 0; }, 60000));
    // batch_layernorm stacks the 16 layer_norms into one: the 16 are removed.
    REQUIRE(diff.diff().byPattern.size() == 1);
    CHECK(diff.diff().byPattern[0].pattern == "batch_layernorm");
    CHECK(diff.diff().opCounts.at("aten::layer_norm") == std::pair<size_t, size_t>{16, 1});
    CHECK(diff.summaryText().contains(QStringLiteral("<b>1 rewrite</b>:")));
    CHECK(diff.summaryText().contains(QStringLiteral("aten::layer_norm 16→1")));
    const NodeId removed = doc.history().original().findByName("layer_norm_3");
    CHECK(std::find(diff.diff().removed.begin(), diff.diff().removed.end(), removed) != diff.diff().removed.end());
    CHECK(diff.beforeScene()->marks().value(removed.value).color == QColor(0xd0, 0x20, 0x20));
    REQUIRE_FALSE(diff.diff().added.empty());
    CHECK(diff.afterScene()->marks().value(diff.diff().added.front().value).color == QColor(0x1e, 0x9a, 0x3a));

    // Selecting a node on one side selects it on the other.
    const NodeId relu = doc.model().graph().findByName("relu_3");
    diff.afterScene()->selectNode(relu);
    REQUIRE(QTest::qWaitFor([&] { return !diff.isLayingOut(); }, 60000));
    CHECK(diff.beforeScene()->selectedNode() == relu);
    diff.resize(1600, 900);
    diff.show();
    screenshot(diff, "diff_view");

    // Undo empties the diff.
    w.rewrite()->undoAction()->trigger();
    REQUIRE(settle(w));
    CHECK(diff.diff().removed.empty());
    CHECK(diff.diff().added.empty());
}

TEST_CASE("a session saves the decisions and reopens them, the model and the view export", "[views][rewrite]")
{
    QTemporaryDir dir;
    const QString sessionPath = dir.filePath(QStringLiteral("review.fusebox"));
    size_t rewrittenSize = 0;
    std::string rejected;
    {
        auto window = openDemo();
        MainWindow &w = *window;
        Document &doc = *w.document();
        w.rewrite()->findMatchesAction()->trigger();
        REQUIRE(QTest::qWaitFor([&] { return doc.review().hasMatchResults() && !doc.jobs().isSearching(); }, 60000));
        REQUIRE(doc.applyMatches({firstRow(doc, "batch_layernorm", MatchStatus::Pending)}) == 1);
        REQUIRE(settle(w));
        const int relu = firstRow(doc, "batch_relu", MatchStatus::Pending);
        REQUIRE(relu >= 0);
        rejected = doc.review().matches()[size_t(relu)].signature;
        REQUIRE(doc.rejectMatch(relu));
        rewrittenSize = doc.model().graph().size();
        CHECK(doc.history().isModified());
        QString error;
        // A pass file holds the rejection but not the applied step: quitting
        // must still ask (issue 36: Export Pass File cleared the mark).
        REQUIRE(w.rewrite()->files()->exportPassFile(dir.filePath(QStringLiteral("review.json")), &error));
        CHECK(doc.history().isModified());
        REQUIRE(w.saveSession(sessionPath, &error));
        CHECK_FALSE(doc.history().isModified());

        // The rewritten model, in each format, and the view as SVG and PNG.
        ReviewFiles &files = *w.rewrite()->files();
        for (const char *name : {"rewritten.pt", "rewritten.py", "rewritten.json", "view.svg", "view.png"}) {
            const QString path = dir.filePath(QString::fromLatin1(name));
            const bool picture = path.endsWith(QStringLiteral(".svg")) || path.endsWith(QStringLiteral(".png"));
            INFO(name << ": " << error.toStdString());
            REQUIRE((picture ? files.exportPicture(path, &error) : files.exportModel(path, &error)));
            CHECK(QFileInfo(path).size() > 100);
        }
        auto reloaded = loadModel(dir.filePath(QStringLiteral("rewritten.pt")).toStdString());
        REQUIRE(reloaded.hasValue());
        CHECK(reloaded->graph.nodesWithOp("aten::layer_norm").size() == 1);
        CHECK_FALSE(files.exportModel(dir.filePath(QStringLiteral("rewritten.xyz")), &error));
        CHECK(error.contains(QStringLiteral("unknown output format")));
    }
    auto window = reopenSession(sessionPath);
    MainWindow &w = *window;
    Document &doc = *w.document();
    CHECK(doc.model().graph().size() == rewrittenSize);
    CHECK(doc.history().undoStack()->count() == 1); // the apply comes back as an undo step
    CHECK(doc.review().isRejected(rejected));
    CHECK(doc.review().tally("batch_layernorm").applied == 1);
    CHECK(doc.review().tally("batch_relu").rejected == 1);
    CHECK_FALSE(doc.history().isModified());
    // Undoing the replayed step gives back the model as loaded.
    doc.history().undoStack()->undo();
    REQUIRE(settle(w));
    CHECK(firstDifference(doc.model().graph(), doc.history().original()) == std::nullopt);
}

TEST_CASE("a rewrite that changes the outputs fails verification, is undone and explained", "[views][rewrite]")
{
    auto window = openDemo();
    MainWindow &w = *window;
    Document &doc = *w.document();
    auto added = doc.addPatternText(QStringLiteral(
                                        "pattern unsafe_relu {\n    match {\n        r = aten::relu(x)\n    }\n"
                                        "    replace {\n        r = aten::neg(x)\n    }\n}\n"),
                                    QStringLiteral("unsafe.patterns"));
    REQUIRE(added.hasValue());
    w.rewrite()->findMatchesAction()->trigger();
    REQUIRE(QTest::qWaitFor([&] { return doc.review().hasMatchResults() && !doc.jobs().isSearching(); }, 60000));
    const int row = firstRow(doc, "unsafe_relu", MatchStatus::Pending);
    REQUIRE(row >= 0);
    const size_t before = doc.model().graph().size();
    QSignalSpy failed(&doc.review(), &DocumentReview::verificationFailed);
    QString error;
    CHECK(doc.applyMatches({row}, &error) == 0);
    CHECK(error.contains(QStringLiteral("failed verification")));
    REQUIRE(failed.count() == 1);
    CHECK(failed.first().at(0).toString() == QStringLiteral("unsafe_relu"));
    CHECK(failed.first().at(2).toString().contains(QStringLiteral("max |diff|")));
    REQUIRE(settle(w));
    CHECK(firstDifference(doc.model().graph(), doc.history().original()) == std::nullopt);
    CHECK(doc.model().graph().size() == before);
    CHECK(doc.history().undoStack()->count() == 0);
    const int failedRow = firstRow(doc, "unsafe_relu", MatchStatus::FailedVerification);
    REQUIRE(failedRow >= 0);
    CHECK(doc.review().matches()[size_t(failedRow)].verification.contains(QStringLiteral("max |diff|")));
    CHECK(doc.review().tally("unsafe_relu").failed == 1);
    // Listed once, as the failure: the search after the undo finds the same
    // relu again, and it is not a pending row beside the failed one.
    const std::vector<NodeId> failedNodes = doc.review().matches()[size_t(failedRow)].match.nodes;
    int rowsOfIt = 0;
    for (const MatchEntry &e : doc.review().matches())
        rowsOfIt += e.match.pattern == "unsafe_relu" && e.match.nodes == failedNodes;
    CHECK(rowsOfIt == 1);
    w.rewrite()->findMatchesAction()->trigger();
    REQUIRE(QTest::qWaitFor([&] { return doc.review().hasMatchResults() && !doc.jobs().isSearching(); }, 60000));
    rowsOfIt = 0;
    for (const MatchEntry &e : doc.review().matches())
        rowsOfIt += e.match.pattern == "unsafe_relu" && e.match.nodes == failedNodes;
    CHECK(rowsOfIt == 1);
    // The log says what happened.
    auto *log = w.findChild<QPlainTextEdit *>(QStringLiteral("log"));
    REQUIRE(log);
    CHECK(log->toPlainText().contains(QStringLiteral("failed numeric verification and was undone")));
}

TEST_CASE("a custom pattern used from the editor and then loaded from its file is exported once", "[views][rewrite]")
{
    auto window = openDemo();
    Document &doc = *window->document();
    const QString path = QString::fromUtf8(FUSEBOX_SOURCE_DIR)
                         + QStringLiteral("/resources/patterns/linear_relu_fusion.patterns");
    QFile file(path);
    REQUIRE(file.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(file.readAll());
    // Use in Document from the Pattern Editor, then Load Pattern File of the same file.
    REQUIRE(doc.addPatternText(text, QStringLiteral("editor")).hasValue());
    REQUIRE(doc.addPatternFile(path).isOk());
    const PassConfig config = doc.persistence().passConfig();
    REQUIRE(config.customPatterns.size() == 1);
    CHECK(config.customPatterns.front().text.empty()); // the file replaced the editor's text
    // fusebox-pass reads the exported config: each pattern is defined once.
    PatternSet set = builtinCatalog();
    auto added = addCustomPatterns(set, config, "review.json", &torchSchemas());
    INFO((added ? "" : added.error().message));
    REQUIRE(added.hasValue());
    CHECK(added->size() == 2);

    // A source that redefines one of the file's two patterns but not the
    // other would leave two definitions: refused, and nothing changes.
    const QString onlyRelu = text.left(text.indexOf(QStringLiteral("pattern linear_gelu_fusion")));
    REQUIRE(onlyRelu.contains(QStringLiteral("pattern linear_relu_fusion")));
    auto refused = doc.addPatternText(onlyRelu, QStringLiteral("editor"));
    REQUIRE_FALSE(refused.hasValue());
    CHECK(refused.error().message.find("already defined in") != std::string::npos);
    CHECK(refused.error().message.find("linear_gelu_fusion") != std::string::npos);
    CHECK(doc.persistence().passConfig().customPatterns == config.customPatterns);
}

TEST_CASE("a session replays a custom pattern added after an Apply All at its own step", "[views][rewrite]")
{
    // Issue 36 item 7: the session loaded its custom pattern before replaying
    // the Apply All made without it, which then fused one more group, and the
    // step that applied the custom pattern found its match gone.
    QTemporaryDir dir;
    const QString sessionPath = dir.filePath(QStringLiteral("custom.fusebox"));
    const QString patternPath = QString::fromUtf8(FUSEBOX_SOURCE_DIR)
                                + QStringLiteral("/resources/patterns/linear_relu_fusion.patterns");
    size_t rewrittenSize = 0;
    int applyAllRewrites = 0;
    {
        auto window = openDemo();
        MainWindow &w = *window;
        Document &doc = *w.document();
        QSignalSpy finished(&doc.jobs(), &DocumentJobs::applyAllFinished);
        doc.applyAll();
        REQUIRE(finished.wait(60000));
        applyAllRewrites = finished.first().at(0).toInt();
        REQUIRE(applyAllRewrites > 0);
        REQUIRE(settle(w));
        QFile file(patternPath);
        REQUIRE(file.open(QIODevice::ReadOnly));
        REQUIRE(doc.addPatternText(QString::fromUtf8(file.readAll()), QStringLiteral("editor")).hasValue());
        findMatches(w);
        const int custom = firstRow(doc, "linear_relu_fusion", MatchStatus::Pending);
        REQUIRE(custom >= 0); // what the Apply All left, which the custom pattern fuses
        REQUIRE(doc.applyMatches({custom}) == 1);
        REQUIRE(settle(w));
        rewrittenSize = doc.model().graph().size();
        QString error;
        REQUIRE(w.saveSession(sessionPath, &error));
    }
    auto window = reopenSession(sessionPath);
    Document &doc = *window->document();
    CHECK(doc.model().graph().size() == rewrittenSize);
    REQUIRE(doc.history().undoStack()->count() == 2);
    CHECK(doc.history().undoStack()->text(0) == QStringLiteral("Apply All (%1 rewrites)").arg(applyAllRewrites));
    CHECK(doc.review().tally("linear_relu_fusion").applied == 1);
    // The custom pattern is the document's again after the replay.
    CHECK(std::find(doc.patternSet().customNames().begin(), doc.patternSet().customNames().end(), "linear_relu_fusion")
          != doc.patternSet().customNames().end());
}
