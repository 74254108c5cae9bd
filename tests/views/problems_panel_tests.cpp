// The Problems panel: the reader's warnings by kind, and going from one to its node.
#include "core/ir/GraphBuilder.h"
#include "ViewTestGraphs.h"

#include "views/Document.h"
#include "views/GraphScene.h"
#include "views/GraphView.h"
#include "views/MainWindow.h"
#include "views/NodeItem.h"
#include "views/ProblemsPanel.h"

#include <catch.hpp>

#include <QAction>
#include <QFile>
#include <QLabel>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTreeWidget>

using namespace fusebox;
using namespace fusebox::viewtest;

namespace {

// Line 6 and 7 call relu with an argument too many (a warning each, one kind);
// apex:: ops have no schema and self.block no class (a summary warning each).
const char *kProblems = R"FX(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 8]"):
        foo: "f32[4, 8]" = torch.ops.apex.foo.default(x)
        foo_1: "f32[4, 8]" = torch.ops.apex.foo.default(foo)
        bar: "f32[4, 8]" = torch.ops.apex.bar.default(foo_1)
        relu: "f32[4, 8]" = torch.ops.aten.relu.default(bar, 3)
        relu_1: "f32[4, 8]" = torch.ops.aten.relu.default(relu, 4)
        sub = self.block(relu_1)
        return (sub,)
)FX";

QStringList childTexts(const QTreeWidgetItem *item)
{
    QStringList out;
    for (int i = 0; i < item->childCount(); ++i)
        out << item->child(i)->text(0);
    return out;
}

/// True when the view shows the centre of the node's item.
bool inView(MainWindow &w, NodeId id)
{
    const NodeItem *item = w.scene()->nodeItem(id);
    const QRectF shown = w.view()->mapToScene(w.view()->viewport()->rect()).boundingRect();
    return item && shown.contains(item->sceneBoundingRect().center());
}

} // namespace

TEST_CASE("Problems panel groups the reader's warnings by kind and goes to their nodes", "[views][problems]")
{
    QTemporaryDir dir;
    REQUIRE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("probs.py"));
    {
        QFile file(path);
        REQUIRE(file.open(QIODevice::WriteOnly));
        file.write(kProblems);
    }
    MainWindow w;
    w.setErrorDialogsEnabled(false);
    w.resize(1400, 900);
    w.show();
    QSignalSpy shown(&w, &MainWindow::graphShown);
    w.openFile(path);
    REQUIRE(shown.wait(60000));
    const Graph &g = w.document()->model().graph();
    INFO(w.document()->model().warnings().join(QLatin1Char('\n')).toStdString());

    // The document keeps the line each node was read from.
    const std::vector<int> &lines = w.document()->model().nodeLines();
    REQUIRE(lines.size() > g.findByName("relu_1").value);
    CHECK(lines[g.findByName("relu").value] == 6);
    CHECK(lines[g.findByName("relu_1").value] == 7);

    ProblemsPanel *panel = w.problems();
    QTreeWidget *tree = panel->tree();
    // The reader's three kinds, then the shapes: self.block's value has none
    // (a module call), said with where it starts; PyTorch 2, when one is set
    // up, cannot run the apex ops either, and says so too.
    int shapeKinds = 0;
    bool unknownSaid = false;
    for (int i = 3; i < tree->topLevelItemCount(); ++i) {
        const QString text = tree->topLevelItem(i)->text(0);
        const bool aboutShapes = text.contains(QStringLiteral("op values have no shape"))
                                 || text.contains(QStringLiteral("could not infer"));
        INFO(text.toStdString());
        shapeKinds += aboutShapes;
        unknownSaid = unknownSaid || text.contains(QStringLiteral("op values have no shape, the first %"));
    }
    CHECK(unknownSaid);
    REQUIRE(tree->topLevelItemCount() == 3 + shapeKinds);
    CHECK(panel->problemCount() == 6 + shapeKinds);
    CHECK(panel->windowTitle() == QStringLiteral("Problems (%1)").arg(6 + shapeKinds));
    CHECK_FALSE(panel->findChild<QLabel *>(QStringLiteral("problemsEmpty"))->isVisibleTo(panel));

    // One row per kind, in the order of the first warning of each; locations by file name.
    const QTreeWidgetItem *relu = tree->topLevelItem(0);
    CHECK(relu->text(0).startsWith(QStringLiteral("2 × aten::relu: ")));
    CHECK(relu->text(0).endsWith(QStringLiteral(" (first at probs.py:6)")));
    REQUIRE(relu->childCount() == 2);
    CHECK(relu->child(0)->text(0).startsWith(QStringLiteral("aten::relu: 2 positional arguments")));
    CHECK(relu->child(0)->text(1) == QStringLiteral("probs.py:6"));
    CHECK(relu->child(1)->text(1) == QStringLiteral("probs.py:7"));
    CHECK(relu->child(1)->toolTip(0).startsWith(path + QStringLiteral(":7: aten::relu")));

    const QTreeWidgetItem *custom = tree->topLevelItem(1);
    CHECK(custom->text(0)
          == QStringLiteral("3 × custom ops (no schema), arguments kept as written (first at probs.py:3)"));
    CHECK(childTexts(custom) == QStringList{QStringLiteral("apex::foo ×2"), QStringLiteral("apex::bar")});
    const QTreeWidgetItem *module = tree->topLevelItem(2);
    CHECK(module->text(0).startsWith(QStringLiteral("1 × module calls")));
    CHECK(childTexts(module) == QStringList{QStringLiteral("self.block")});

    // Each entry leads to a node: a warning by its line, a summary item by its op.
    CHECK(panel->nodeFor(relu) == NodeId{});
    CHECK(panel->nodeFor(relu->child(0)) == g.findByName("relu"));
    CHECK(panel->nodeFor(relu->child(1)) == g.findByName("relu_1"));
    CHECK(panel->nodeFor(custom->child(0)) == g.findByName("foo"));
    CHECK(panel->nodeFor(custom->child(1)) == g.findByName("bar"));
    CHECK(panel->nodeFor(module->child(0)) == g.findByName("sub"));

    // Activating one selects its node and brings it into view.
    panel->activate(relu->child(1));
    CHECK(w.scene()->selectedNode() == g.findByName("relu_1"));
    CHECK(inView(w, g.findByName("relu_1")));
    panel->activate(custom->child(1));
    CHECK(w.scene()->selectedNode() == g.findByName("bar"));
    CHECK(inView(w, g.findByName("bar")));
    // Enter on the tree's current item activates it as a double-click does.
    tree->setCurrentItem(module->child(0));
    tree->setFocus();
    QTest::keyClick(tree, Qt::Key_Return);
    CHECK(w.scene()->selectedNode() == g.findByName("sub"));
    // A kind row opens and closes.
    tree->topLevelItem(0)->setExpanded(true);
    panel->activate(tree->topLevelItem(0));
    CHECK_FALSE(tree->topLevelItem(0)->isExpanded());

    // View ▸ Problems (Ctrl+Shift+P) brings the panel up from behind the Log's tab.
    auto *action = w.findChild<QAction *>(QStringLiteral("showProblems"));
    REQUIRE(action);
    CHECK(action->shortcut() == QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    CHECK(panel->visibleRegion().isEmpty()); // the Log's tab is in front at first
    action->trigger();
    QTest::qWait(50);
    CHECK(panel->isVisible());
    CHECK_FALSE(panel->visibleRegion().isEmpty());
    CHECK(action->isChecked());

    // A graph without warnings: "No problems".
    shown.clear();
    w.document()->setGraph(encoderGraph(), QStringLiteral("encoder.json"));
    REQUIRE(shown.wait(60000));
    CHECK(tree->topLevelItemCount() == 0);
    CHECK(panel->problemCount() == 0);
    CHECK(panel->windowTitle() == QStringLiteral("Problems"));
    CHECK(panel->findChild<QLabel *>(QStringLiteral("problemsEmpty"))->isVisibleTo(panel));
    CHECK(panel->findChild<QLabel *>(QStringLiteral("problemsEmpty"))->text() == QStringLiteral("No problems"));
    CHECK(w.document()->model().nodeLines().empty());
}

TEST_CASE("Problems panel finds a summary's op by name, a module call, or a torch-level spelling", "[views][problems]")
{
    Graph g;
    GraphBuilder build(g);
    NodeId x = build.addInput("x", f32({4}));
    NodeId a = build.addOp("torch.special_thing", {x}, {}, "a");
    NodeId b = build.addOp("apex::foo", {a}, {}, "b");
    NodeId m = build.addOp("call_module:enc.block", {b}, {}, "m");
    NodeId c = build.addOp("apex::foo", {m}, {}, "c");
    build.setOutputs({c});

    CHECK(ProblemsPanel::firstNodeOfOp(g, "apex::foo") == b);
    CHECK(ProblemsPanel::firstNodeOfOp(g, "self.enc.block") == m);
    CHECK(ProblemsPanel::firstNodeOfOp(g, "self.block") == NodeId{}); // module paths match whole
    CHECK(ProblemsPanel::firstNodeOfOp(g, "aten::special_thing") == a);
    CHECK(ProblemsPanel::firstNodeOfOp(g, "aten::missing") == NodeId{});

    std::vector<int> lines(m.value + 1, 0);
    lines[a.value] = 3;
    lines[b.value] = 4;
    lines[m.value] = 4;
    CHECK(ProblemsPanel::firstNodeAtLine(g, lines, 4) == b);
    CHECK(ProblemsPanel::firstNodeAtLine(g, lines, 9) == NodeId{});
    CHECK(ProblemsPanel::firstNodeAtLine(g, lines, 0) == NodeId{});
}
