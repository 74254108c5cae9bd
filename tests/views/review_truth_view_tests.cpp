// Issue 14, continued: the review tells the truth in the graph view (a rewrite
// keeps a graph shown whole), in Why Not (what failed, where, for which
// pattern, in a dock that keeps its width), in Export Model, and about
// input shapes (said at load, set in a dialog, kept by sessions).
#include "core/ir/GraphBuilder.h"
#include "ReviewTestSupport.h"
#include "ViewTestGraphs.h"

#include "core/torch/ModelLoader.h"
#include "views/DiffView.h"
#include "views/Document.h"
#include "views/InputShapes.h"
#include "views/GraphScene.h"
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
#include <QComboBox>
#include <QDockWidget>
#include <QHeaderView>
#include <QTreeWidgetItemIterator>
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

using namespace fusebox;
using namespace fusebox::viewtest;

namespace {

/// The dock a panel sits in (null when none).
QDockWidget *dockOf(QWidget *panel)
{
    QWidget *w = panel;
    while (w && !qobject_cast<QDockWidget *>(w))
        w = w->parentWidget();
    return qobject_cast<QDockWidget *>(w);
}

} // namespace

TEST_CASE("a rewrite does not collapse part of a graph shown whole", "[views][review]")
{
    // 190 relus in a chain at the top level: one level, shown whole. A
    // pattern that turns each relu into two ops widens the level past the
    // 200 children it shows before ScopeTree splits it into groups.
    Graph g;
    GraphBuilder build(g);
    NodeId cur = build.addInput("x", f32({4, 8}, "cpu"));
    for (int i = 0; i < 190; ++i) {
        cur = build.addOp("aten::relu", {cur}, {}, "relu_" + std::to_string(i));
        build.node(cur).meta = f32({4, 8}, "cpu");
    }
    build.setOutputs({cur});
    MainWindow w;
    w.setErrorDialogsEnabled(false);
    w.resize(1600, 1000);
    w.show();
    Document &doc = *w.document();
    QSignalSpy shown(&w, &MainWindow::graphShown);
    doc.setGraph(std::move(g), QStringLiteral("chain"));
    REQUIRE(shown.wait(60000));
    REQUIRE(w.scene()->visibleGraph().groupCount() == 0);
    doc.setVerifyApplies(false);
    auto added
        = doc.addPatternText(QStringLiteral(
                                 "pattern grow {\n    match {\n        r = aten::relu(x)\n    }\n"
                                 "    replace {\n        a = aten::neg(x)\n        r = aten::neg(a)\n    }\n}\n"),
                             QStringLiteral("grow.patterns"));
    REQUIRE(added.hasValue());
    for (const Pattern *p : doc.patternSet().patterns().all())
        if (p->name() != "grow")
            doc.setPatternEnabled(QString::fromStdString(p->name()), false);
    doc.setSchedule(PassSchedule::Greedy);
    findMatches(w);
    applyAll(w);
    REQUIRE(doc.model().graph().nodesWithOp("aten::neg").size() == 380);
    REQUIRE(ScopeTree(doc.model().graph()).size() > 1); // the level is split into groups now
    // ... which are open, as everything else is: nothing is hidden.
    CHECK(w.scene()->visibleGraph().groupCount() == 0);
}

TEST_CASE("Export Model writes Fusebox's own ops as ATen ops in a .pt", "[views][review]")
{
    auto window = openDemo();
    MainWindow &w = *window;
    Document &doc = *w.document();
    REQUIRE(doc.addPatternFile(
        (QString::fromUtf8(FUSEBOX_SOURCE_DIR) + QStringLiteral("/resources/patterns/linear_relu_fusion.patterns"))));
    findMatches(w);
    const int row = firstRow(doc, "linear_relu_fusion", MatchStatus::Pending);
    REQUIRE(row >= 0);
    REQUIRE(doc.applyMatches({row}) == 1);
    REQUIRE(settle(w));
    REQUIRE_FALSE(doc.model().graph().nodesWithOp("fusebox::linear_relu").empty());
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("rewritten.pt"));
    QString error;
    REQUIRE(w.rewrite()->files()->exportModel(path, &error));
    auto back = loadModel(path.toStdString());
    REQUIRE(back.hasValue());
    CHECK(back->graph.nodesWithOp("fusebox::linear_relu").empty());
    CHECK(back->graph.nodesWithOp("aten::relu").size() == doc.model().graph().nodesWithOp("aten::relu").size() + 1);
    auto *log = w.findChild<QPlainTextEdit *>(QStringLiteral("log"));
    CHECK(log->toPlainText().contains(QStringLiteral("wrote fusebox::linear_relu as the ATen ops")));
}

TEST_CASE("why not: a failed check reads as what failed, rings every node it concerns", "[views][review]")
{
    auto window = openDemo();
    MainWindow &w = *window;
    Document &doc = *w.document();
    RewriteController &rc = *w.rewrite();
    findMatches(w);
    // A too-small candidate group somewhere in the demo: its check must name
    // every member, not only the node asked about.
    std::optional<std::tuple<std::string, NodeId, size_t>> tooSmall;
    for (const Pattern *p : doc.patternSet().patterns().all()) {
        if (p->family() != PatternFamily::Horizontal || tooSmall)
            continue;
        for (const std::string &op : p->rootOps())
            for (NodeId id : doc.model().graph().nodesWithOp(op)) {
                auto e = doc.explain(p->name(), id);
                const Check *f = e ? e->failure() : nullptr;
                if (!tooSmall && f && f->description == "candidate group reaches min_fuse_set_size") {
                    const size_t members = std::stoul(f->actual.substr(std::string("candidate group of ").size()));
                    if (members >= 2)
                        tooSmall = std::tuple{p->name(), id, members};
                }
            }
    }
    REQUIRE(tooSmall);
    const auto &[pattern, node, members] = *tooSmall;
    INFO(pattern << " at " << doc.model().graph().node(node)->name);
    const auto explanation = doc.explain(pattern, node);
    REQUIRE(explanation);
    const Check *f = explanation->failure();
    REQUIRE(f);
    CHECK(f->nodes.size() == members);
    for (NodeId id : f->nodes)
        CHECK(doc.model().graph().node(id)->op == doc.model().graph().node(node)->op);

    // The panel: the failed row starts with what was not met; the passed
    // search row does not read like a failure; every member is ringed red.
    WhyNotPanel &panel = *rc.whyNotPanel();
    std::vector<NodeId> ringed;
    QObject::connect(&panel, &WhyNotPanel::marksChanged, &w,
                     [&](const std::vector<NodeId> &failed, const std::vector<NodeId> &) { ringed = failed; });
    panel.explain(pattern, node);
    CHECK(ringed.size() == members);
    auto *checks = panel.findChild<QTreeWidget *>(QStringLiteral("whyNotChecks"));
    REQUIRE(checks);
    bool sawFailed = false;
    for (int i = 0; i < checks->topLevelItemCount(); ++i) {
        const QTreeWidgetItem *item = checks->topLevelItem(i);
        if (item->text(0).startsWith(QStringLiteral("✗")))
            sawFailed = item->text(0) == QStringLiteral("✗ not met: candidate group reaches min_fuse_set_size");
        if (item->text(0) == QStringLiteral("✓ found by a root's upward search"))
            CHECK(item->text(1).startsWith(QStringLiteral("a root's search reached it")));
    }
    CHECK(sawFailed);
    CHECK(checks->textElideMode() == Qt::ElideNone);
    // In a panel as narrow as a docked one, the values keep a column of their own.
    QDockWidget *dock = dockOf(&panel);
    REQUIRE(dock);
    dock->show();
    dock->setFloating(true);
    dock->resize(480, 500);
    REQUIRE(settle(w));
    INFO("columns " << checks->header()->sectionSize(0) << ", " << checks->header()->sectionSize(1) << ", "
                    << checks->header()->sectionSize(2) << " of " << checks->viewport()->width());
    CHECK(checks->header()->sectionSize(1) >= checks->viewport()->width() / 4);
    CHECK(checks->header()->sectionSize(1) >= 16 * checks->fontMetrics().averageCharWidth());
}

TEST_CASE("why not: selecting a node explains the pattern that concerns it", "[views][review]")
{
    auto window = openDemo();
    MainWindow &w = *window;
    Document &doc = *w.document();
    RewriteController &rc = *w.rewrite();
    findMatches(w);
    // Open the Why Not dock as a user does, then click a linear that a
    // batch_linear candidate covers.
    QDockWidget *dock = dockOf(rc.whyNotPanel());
    REQUIRE(dock);
    dock->show();
    const int linear = firstRow(doc, "batch_linear", MatchStatus::Pending);
    REQUIRE(linear >= 0);
    const NodeId node = doc.review().matches()[size_t(linear)].match.nodes.back();
    w.scene()->selectNode(node);
    REQUIRE(settle(w));
    CHECK(rc.whyNotPanel()->pattern() == "batch_linear"); // not permute_linear_fusion, the catalog's first at linear
}

TEST_CASE("a long Why Not answer does not widen its dock", "[views][review]")
{
    auto window = openDemo();
    MainWindow &w = *window;
    Document &doc = *w.document();
    RewriteController &rc = *w.rewrite();
    findMatches(w);
    QDockWidget *dock = dockOf(rc.whyNotPanel());
    REQUIRE(dock);
    dock->show();
    QTest::qWait(50);
    const int before = dock->width();
    const int row = firstRow(doc, "batch_linear", MatchStatus::Pending);
    REQUIRE(row >= 0);
    rc.whyNotPanel()->explain("batch_linear", doc.review().matches()[size_t(row)].match.anchor);
    QTest::qWait(50);
    CHECK(dock->width() == before);
}

namespace {

/// The demo archive without the input shapes it records (a traced model as
/// users have them), written with Python's zipfile.
QString demoWithoutShapes(const QTemporaryDir &dir)
{
    const QString out = dir.filePath(QStringLiteral("traced.pt"));
    const std::string script = "import zipfile,sys\n"
                               "src=zipfile.ZipFile(sys.argv[1]); dst=zipfile.ZipFile(sys.argv[2],'w')\n"
                               "[dst.writestr(i, src.read(i.filename)) for i in src.infolist() "
                               "if not i.filename.endswith('fusebox/inputs.json')]\n"
                               "dst.close()\n";
    QProcess python;
    python.start(QStringLiteral("/usr/bin/python3"), {QStringLiteral("-c"), QString::fromStdString(script), kDemo, out});
    REQUIRE(python.waitForFinished(60000));
    REQUIRE(python.exitCode() == 0);
    return out;
}

} // namespace

TEST_CASE("input shapes: unknown ones are said at load, set in a dialog, kept by sessions and recent files",
          "[views][review]")
{
    QTemporaryDir dir;
    const QString traced = demoWithoutShapes(dir);
    const QString sessionPath = dir.filePath(QStringLiteral("review.fusebox"));
    const QString shapes = QStringLiteral("8,128;8,8,16;8,6");
    size_t rewrittenSize = 0;
    {
        MainWindow w;
        w.setErrorDialogsEnabled(false);
        w.resize(1600, 1000);
        w.show();
        Document &doc = *w.document();
        QSignalSpy shown(&w, &MainWindow::graphShown);
        w.openFile(traced);
        REQUIRE(shown.wait(120000));
        // Said at load, with the button to set them.
        REQUIRE(doc.model().inputsWithoutShape().size() == 3);
        auto *log = w.findChild<QPlainTextEdit *>(QStringLiteral("log"));
        CHECK(log->toPlainText().contains(QStringLiteral("the shape of %dense, %sparse, %ids is unknown")));
        auto *button = w.findChild<QPushButton *>(QStringLiteral("setInputShapesButton"));
        REQUIRE(button);
        CHECK_FALSE(button->isHidden());
        findMatches(w);
        CHECK(log->toPlainText().contains(QStringLiteral("some inputs' shapes are unknown")));

        // The dialog is prefilled with what the graph has (nothing), and the
        // model opens again with the shapes given.
        QString prefilled = QStringLiteral("not asked");
        w.setInputShapesPrompt([&](const QString &current) {
            prefilled = current;
            return shapes;
        });
        QSignalSpy again(&w, &MainWindow::graphShown);
        QTest::mouseClick(button, Qt::LeftButton);
        REQUIRE(again.wait(120000));
        CHECK(prefilled == QStringLiteral(";;"));
        CHECK(doc.model().inputsWithoutShape().empty());
        CHECK(inputShapesText(doc.model().loadOptions().inputShapes) == shapes);
        CHECK(button->isHidden());
        CHECK(doc.model().graph().node(doc.model().graph().inputs()[1])->meta.toString() == "f32[8, 8, 16]");
        // Asked again, it shows the shapes in use.
        w.setInputShapesPrompt([&](const QString &current) {
            prefilled = current;
            return QString(); // Cancel
        });
        CHECK_FALSE(w.setInputShapes());
        CHECK(prefilled == shapes);

        findMatches(w);
        const int rewritten = applyAll(w);
        REQUIRE(rewritten > 0);
        rewrittenSize = doc.model().graph().size();
        QString error;
        REQUIRE(w.saveSession(sessionPath, &error));
        // The recent file remembers the shapes.
        CHECK(w.recentFiles().value(0) == QFileInfo(traced).absoluteFilePath());
    }
    {
        // The session reopens with its shapes, and replays the same rewrites.
        auto window = reopenSession(sessionPath);
        MainWindow &w = *window;
        CHECK(w.document()->model().inputsWithoutShape().empty());
        CHECK(w.document()->model().graph().size() == rewrittenSize);
    }
    {
        // Open Recent: the same shapes.
        MainWindow w;
        w.setErrorDialogsEnabled(false);
        w.show();
        QSignalSpy shown(&w, &MainWindow::graphShown);
        w.openFile(traced);
        REQUIRE(shown.wait(120000));
        CHECK(w.document()->model().inputsWithoutShape().empty());
        CHECK(inputShapesText(w.document()->model().loadOptions().inputShapes) == shapes);
    }
    {
        // A session whose Apply All makes fewer rewrites than it saved says so.
        QFile file(sessionPath);
        REQUIRE(file.open(QIODevice::ReadOnly));
        QString text = QString::fromUtf8(file.readAll());
        file.close();
        REQUIRE(text.contains(QStringLiteral("\"input_shapes\"")));
        const QRegularExpression saved(QStringLiteral("\"rewrites\": (\\d+)"));
        const auto m = saved.match(text);
        REQUIRE(m.hasMatch());
        const int count = m.captured(1).toInt();
        text.replace(m.capturedStart(1), m.capturedLength(1), QString::number(count + 5));
        REQUIRE(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(text.toUtf8());
        file.close();
        MainWindow w;
        w.setErrorDialogsEnabled(false);
        w.show();
        QSignalSpy restored(&w, &MainWindow::sessionRestored);
        REQUIRE(w.openSession(sessionPath));
        REQUIRE(restored.wait(120000));
        CHECK_FALSE(restored.first().at(0).toBool());
        CHECK(restored.first().at(1).toString().contains(
            QStringLiteral("Apply All made %1 of the %2 rewrites the session saved").arg(count).arg(count + 5)));
    }
}

TEST_CASE("another model loaded: every panel forgets the last one's counts and answers", "[views][review]")
{
    // Issue 36 item 7: after F5 on one model, opening another left the
    // Patterns panel's counts (and the Why Not near-miss line) of the first.
    auto window = openDemo();
    MainWindow &w = *window;
    RewriteController &rc = *w.rewrite();
    findMatches(w);
    QTreeWidgetItem *batched = rc.patternsPanel()->patternItem("batch_linear");
    REQUIRE(batched);
    REQUIRE_FALSE(batched->text(PatternsPanel::Candidates).isEmpty());
    rc.whyNotPanel()->explain("batch_linear", w.document()->model().graph().nodesWithOp("aten::linear").front());
    rc.whyNotPanel()->showNearMisses();
    const int linear = firstRow(*w.document(), "batch_linear", MatchStatus::Pending);
    REQUIRE(linear >= 0);
    w.scene()->selectNode(w.document()->review().matches()[size_t(linear)].match.nodes.back());
    REQUIRE(settle(w));
    REQUIRE_FALSE(rc.matchesPanel()->filterText().isEmpty()); // the table shows that node's matches
    const QString oldAnswer = rc.whyNotPanel()->text();
    REQUIRE_FALSE(oldAnswer.isEmpty());

    const QString resnet = QString::fromUtf8(FUSEBOX_FIXTURE_DIR) + QStringLiteral("/resnet18.pt");
    QSignalSpy shown(&w, &MainWindow::graphShown);
    w.openFile(resnet);
    REQUIRE(shown.wait(120000));
    REQUIRE(settle(w));
    CHECK(rc.matchesPanel()->summaryText()
          == QStringLiteral("Press F5 (Rewrite → Find Matches) to run the engine's search."));
    CHECK(rc.matchesPanel()->filterText().isEmpty());
    for (QTreeWidgetItemIterator it(rc.patternsPanel()->tree()); *it; ++it) {
        INFO((*it)->text(PatternsPanel::Name).toStdString());
        CHECK((*it)->text(PatternsPanel::Candidates).isEmpty());
        CHECK((*it)->text(PatternsPanel::Applied).isEmpty());
        CHECK((*it)->text(PatternsPanel::NearMisses).isEmpty());
    }
    CHECK(rc.whyNotPanel()->text() != oldAnswer);
    CHECK_FALSE(rc.whyNotPanel()->node().isValid());
    CHECK(rc.diffView()->summaryText().contains(QStringLiteral("No rewrite applied yet")));
}

TEST_CASE("why not: selecting a node no pattern starts at says so instead of explaining another node's pattern",
          "[views][review]")
{
    // Issue 36 item 7: selecting a conv2d explained whichever pattern the
    // panel showed last, as though it concerned the convolution.
    MainWindow w;
    w.setErrorDialogsEnabled(false);
    w.resize(1600, 1000);
    w.show();
    QSignalSpy shown(&w, &MainWindow::graphShown);
    w.openFile(QString::fromUtf8(FUSEBOX_FIXTURE_DIR) + QStringLiteral("/resnet18.pt"));
    REQUIRE(shown.wait(120000));
    RewriteController &rc = *w.rewrite();
    const Graph &g = w.document()->model().graph();
    NodeId conv;
    for (NodeId id : g.nodeIds())
        if (g.node(id)->op.find("conv") != std::string::npos)
            conv = id;
    REQUIRE(conv.isValid());
    // Hand check: no pattern of the catalog rewrites from a convolution.
    for (const Pattern *p : w.document()->patternSet().patterns().all())
        REQUIRE_FALSE(p->isRootOp(g.node(conv)->op));
    const auto linears = g.nodesWithOp("aten::linear");
    REQUIRE_FALSE(linears.empty()); // resnet18's fc
    rc.whyNot("batch_linear", linears.front());
    REQUIRE(settle(w));
    w.scene()->selectNode(conv);
    REQUIRE(settle(w));
    const QString answer = rc.whyNotPanel()->text();
    INFO(answer.toStdString());
    CHECK(answer.startsWith(QStringLiteral("No pattern starts at %1:").arg(QString::fromStdString(g.node(conv)->op))));
    CHECK_FALSE(answer.contains(QStringLiteral("batch_linear")));
    CHECK(rc.whyNotPanel()->node() == conv);
    // Choosing a pattern then asks about it at the convolution.
    auto *box = rc.whyNotPanel()->findChild<QComboBox *>(QStringLiteral("whyNotPattern"));
    REQUIRE(box);
    box->setCurrentIndex(box->findText(QStringLiteral("batch_relu")) >= 0 ? box->findText(QStringLiteral("batch_relu"))
                                                                          : 0);
    CHECK(rc.whyNotPanel()->text().contains(QStringLiteral("does not fire at")));
}
