// A higher-order op's subgraphs in the IDE: the Inspector offers each as
// "Open subgraph <name>", and opening one shows its nodes in a window of its own.

#include "core/io/FxText.h"
#include "views/Document.h"
#include "views/GraphScene.h"
#include "views/InspectorPanel.h"
#include "views/MainWindow.h"

#include <catch.hpp>

#include <QSignalSpy>
#include <QTextBrowser>
#include <QUrl>

using namespace fusebox;

namespace {

// torch.cond as Dynamo 2.6 prints it.
const char *kCond = R"FX(class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4]"):
        l_x_ = L_x_
        sum_1: "f32[]" = l_x_.sum()
        gt: "b8[]" = sum_1 > 0;  sum_1 = None
        cond_true_0 = self.cond_true_0
        cond_false_0 = self.cond_false_0
        cond = torch.ops.higher_order.cond(gt, cond_true_0, cond_false_0, [l_x_]);  gt = cond_true_0 = cond_false_0 = l_x_ = None
        getitem: "f32[4]" = cond[0];  cond = None
        return (getitem,)

    class cond_true_0(torch.nn.Module):
        def forward(self, l_x_):
            l_x__1 = l_x_
            sin: "f32[4]" = l_x__1.sin();  l_x__1 = None
            add: "f32[4]" = sin + 1;  sin = None
            return (add,)

    class cond_false_0(torch.nn.Module):
        def forward(self, l_x_):
            l_x__1 = l_x_
            cos: "f32[4]" = l_x__1.cos();  l_x__1 = None
            mul: "f32[4]" = cos * 2;  cos = None
            return (mul,)
)FX";

Graph condGraph()
{
    auto model = readFxText(kCond, {nullptr, "cond.py"});
    REQUIRE(model.hasValue());
    return std::move(model->graph);
}

QTextBrowser *browserOf(InspectorPanel &inspector)
{
    auto *browser = inspector.findChild<QTextBrowser *>(QStringLiteral("inspectorText"));
    REQUIRE(browser);
    return browser;
}

} // namespace

TEST_CASE("InspectorPanel offers a higher-order op's subgraphs", "[views]")
{
    Document doc;
    GraphScene scene(&doc);
    InspectorPanel inspector(&doc.model(), &scene);
    doc.setGraph(condGraph(), QStringLiteral("cond.py"));
    const Graph &g = doc.model().graph();

    inspector.showNode(g.findByName("cond"));
    CHECK(inspector.text().contains(QStringLiteral("higher_order::cond")));
    CHECK(inspector.text().contains(QStringLiteral("Open subgraph cond_true_0")));
    CHECK(inspector.text().contains(QStringLiteral("Open subgraph cond_false_0")));
    CHECK(browserOf(inspector)->toHtml().contains(QStringLiteral("subgraph:cond_false_0")));

    QSignalSpy requested(&inspector, &InspectorPanel::subgraphRequested);
    emit browserOf(inspector)->anchorClicked(QUrl(QStringLiteral("subgraph:cond_false_0")));
    REQUIRE(requested.count() == 1);
    CHECK(requested.first().at(0).value<NodeId>() == g.findByName("cond"));
    CHECK(requested.first().at(1).toString() == QStringLiteral("cond_false_0"));

    // Other nodes have none.
    inspector.showNode(g.findByName("gt"));
    CHECK_FALSE(inspector.text().contains(QStringLiteral("Open subgraph")));
}

TEST_CASE("MainWindow opens a subgraph as a graph of its own", "[views]")
{
    MainWindow w;
    w.setErrorDialogsEnabled(false);
    w.resize(1000, 700);
    w.show();
    QSignalSpy shown(&w, &MainWindow::graphShown);
    w.document()->setGraph(condGraph(), QStringLiteral("cond.py"));
    REQUIRE(shown.wait(60000));
    const NodeId cond = w.document()->model().graph().findByName("cond");
    w.inspector()->showNode(cond);

    // The Inspector's link opens it.
    QSignalSpy opened(&w, &MainWindow::subgraphOpened);
    emit browserOf(*w.inspector())->anchorClicked(QUrl(QStringLiteral("subgraph:cond_true_0")));
    REQUIRE(opened.count() == 1);
    auto *sub = opened.first().at(0).value<MainWindow *>();
    REQUIRE(sub);
    CHECK(sub != &w);
    QSignalSpy subShown(sub, &MainWindow::graphShown);
    REQUIRE(subShown.wait(60000));
    const Graph &g = sub->document()->model().graph();
    CHECK(g.findByName("sin").isValid());
    CHECK(g.findByName("add").isValid());
    CHECK_FALSE(g.findByName("cos").isValid());
    CHECK(g.size() == 4); // l_x_, sin, add, output
    CHECK(sub->document()->model().warnings().isEmpty());
    CHECK(sub->windowTitle().contains(QStringLiteral("cond.py ▸ cond ▸ cond_true_0")));
    CHECK(sub->scene()->nodeItem(g.findByName("sin")) != nullptr); // laid out and shown
    // The parent's graph is untouched: still one cond node, no branch nodes.
    CHECK_FALSE(w.document()->model().graph().findByName("sin").isValid());

    // A name the node does not carry opens nothing.
    QSignalSpy failed(&w, &MainWindow::openFailed);
    CHECK(w.openSubgraph(cond, QStringLiteral("nope")) == nullptr);
    CHECK(failed.count() == 1);
    CHECK(opened.count() == 1);
}
