#include "ViewTestGraphs.h"

#include "views/Document.h"
#include "views/GraphScene.h"
#include "views/InspectorPanel.h"

#include <catch.hpp>

#include <QSignalSpy>
#include <QTextBrowser>
#include <QUrl>

using namespace fusebox;
using namespace fusebox::viewtest;

TEST_CASE("InspectorPanel describes the selected node", "[views]")
{
    Document doc;
    GraphScene scene(&doc);
    InspectorPanel inspector(&doc.model(), &scene);
    doc.setGraph(encoderGraph(), QStringLiteral("encoder"));
    const Graph &g = doc.model().graph();

    inspector.showNode(g.findByName("square"));
    const QString text = inspector.text();
    CHECK(text.contains(QStringLiteral("square")));
    CHECK(text.contains(QStringLiteral("aten::mul.Tensor"))); // op with overload
    CHECK(text.contains(QStringLiteral("torch.mul")));        // original spelling
    CHECK(text.contains(QStringLiteral("f32[4, 16]")));       // output shape
    CHECK(text.contains(QStringLiteral("torch.float32")));    // dtype
    CHECK(text.contains(QStringLiteral("cpu")));              // device
    CHECK(text.contains(QStringLiteral("head")));             // scope
    CHECK(text.contains(QStringLiteral("model.py:42:8")));    // source location
    CHECK(text.contains(QStringLiteral("%residual")));        // args by node name
    CHECK(text.contains(QStringLiteral("%output")));          // users
    CHECK(inspector.node() == g.findByName("square"));

    inspector.showNode(g.findByName("fc1"));
    CHECK(inspector.text().contains(QStringLiteral("enc.fc1")));
    CHECK(inspector.text().contains(QStringLiteral("%x")));
    CHECK(inspector.text().contains(QStringLiteral("%w")));
    CHECK(inspector.text().contains(QStringLiteral("None")));
    CHECK_FALSE(inspector.text().contains(QStringLiteral("model.py")));

    // Clicking a node name asks for that node.
    QSignalSpy activated(&inspector, &InspectorPanel::nodeActivated);
    auto *browser = inspector.findChild<QTextBrowser *>(QStringLiteral("inspectorText"));
    REQUIRE(browser);
    emit browser->anchorClicked(QUrl(QStringLiteral("node:%1").arg(g.findByName("x").value)));
    REQUIRE(activated.count() == 1);
    CHECK(activated.first().at(0).value<NodeId>() == g.findByName("x"));

    // Nothing selected: a summary of the model instead.
    inspector.clear();
    CHECK(!inspector.node().isValid());
    CHECK_FALSE(inspector.text().contains(QStringLiteral("model.py:42:8")));
    CHECK(inspector.text().contains(QStringLiteral("9 nodes")));
    CHECK(inspector.text().contains(QStringLiteral("x: f32[4, 16]")));
    CHECK(inspector.text().contains(QStringLiteral("aten::linear ×2")));
}

TEST_CASE("InspectorPanel summarises a collapsed group", "[views]")
{
    Document doc;
    GraphScene scene(&doc);
    InspectorPanel inspector(&doc.model(), &scene);
    doc.setGraph(encoderGraph(), QStringLiteral("encoder"));
    inspector.showGroup(scene.scopeTree().find("enc"));
    const QString text = inspector.text();
    CHECK(text.contains(QStringLiteral("enc")));
    CHECK(text.contains(QStringLiteral("aten::linear ×2")));
    CHECK(text.contains(QStringLiteral("6")));
}

#include "views/NodeSearchField.h"

TEST_CASE("NodeSearchField finds nodes by name, then by substring of name or op", "[views]")
{
    Graph g = encoderGraph();
    CHECK(NodeSearchField::find(g, QStringLiteral("fc2")) == g.findByName("fc2"));
    CHECK(NodeSearchField::find(g, QStringLiteral("RESID")) == g.findByName("residual"));
    CHECK(NodeSearchField::find(g, QStringLiteral("aten::mul")) == g.findByName("square"));
    // The box's own label: "mul" is what the box of aten::mul reads.
    CHECK(NodeSearchField::findAll(g, QStringLiteral("^mul$")) == std::vector<NodeId>{g.findByName("square")});
    CHECK_FALSE(NodeSearchField::find(g, QStringLiteral("nothing-like-this")).isValid());

    NodeSearchField field;
    field.setGraph(g);
    QSignalSpy requested(&field, &NodeSearchField::searchRequested);
    field.setText(QStringLiteral("  act "));
    emit field.returnPressed();
    REQUIRE(requested.count() == 1);
    CHECK(requested.first().at(0).toString() == QStringLiteral("act"));
}
