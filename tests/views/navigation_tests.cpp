// Finding one's way in a big graph: regex search with next-hit stepping, the
// k-hop focus view, the minimap.
#include "ViewTestGraphs.h"

#include "views/BoxItem.h"
#include "views/Document.h"
#include "views/GraphScene.h"
#include "views/GraphView.h"
#include "views/MainWindow.h"
#include "views/MiniMap.h"
#include "views/NodeSearchField.h"

#include <catch.hpp>

#include <QFile>
#include <QAction>
#include <QApplication>
#include <QSignalSpy>

using namespace fusebox;
using namespace fusebox::viewtest;

namespace {
/// Opens the demo model (the fixtures' copy) in a 1600x1000 window and waits until it is drawn.
void openDemoIn(MainWindow &w)
{
    const QString demo = (QString::fromUtf8(FUSEBOX_FIXTURE_DIR) + QStringLiteral("/recsys_demo.pt"));
    w.setErrorDialogsEnabled(false);
    w.resize(1600, 1000);
    w.show();
    QSignalSpy shown(&w, &MainWindow::graphShown);
    REQUIRE(QFile::exists(demo));
    w.openFile(demo);
    REQUIRE(shown.wait(120000));
}
} // namespace

TEST_CASE("search takes a regex over names, ops and shapes, and Enter steps through the hits", "[views]")
{
    MainWindow w;
    openDemoIn(w);
    const Graph &g = w.document()->model().graph();

    const auto byName = NodeSearchField::findAll(g, QStringLiteral("^layer_norm_1[0-5]$"));
    CHECK(byName.size() == 6);
    const auto byShape = NodeSearchField::findAll(g, QStringLiteral("f32\\[8, 128\\]"));
    REQUIRE_FALSE(byShape.empty());
    for (NodeId id : byShape)
        CHECK(g.node(id)->meta.toString().find("f32[8, 128]") != std::string::npos);
    CHECK(NodeSearchField::findAll(g, QStringLiteral("aten::embed")).size() == 6);
    // An invalid regex is taken literally (and finds nothing here), never an error.
    CHECK(NodeSearchField::findAll(g, QStringLiteral("relu(")).empty());

    auto *field = w.findChild<NodeSearchField *>();
    REQUIRE(field);
    emit field->searchRequested(QStringLiteral("^layer_norm_1[0-5]$"));
    REQUIRE(waitForLayout(*w.scene()));
    CHECK(w.scene()->selectedNode() == byName[0]);
    emit field->searchRequested(QStringLiteral("^layer_norm_1[0-5]$"));
    REQUIRE(waitForLayout(*w.scene()));
    CHECK(w.scene()->selectedNode() == byName[1]);
}

TEST_CASE("the focus view shows a node's k-hop neighbourhood, the minimap the whole", "[views]")
{
    MainWindow w;
    openDemoIn(w);
    const Graph &g = w.document()->model().graph();
    const int everything = w.scene()->nodeItemCount();
    REQUIRE(everything > 100);

    // relu_3 <- linear_3 <- getitem_3 (2 hops up), -> layer_norm_3 -> cat (2 hops down).
    const NodeId relu = g.findByName("relu_3");
    w.scene()->showNeighbourhood({relu}, 2);
    REQUIRE(waitForLayout(*w.scene()));
    CHECK(w.scene()->isFocused());
    CHECK(w.scene()->nodeItem(relu));
    CHECK(w.scene()->nodeItem(g.findByName("linear_3")));
    CHECK(w.scene()->nodeItem(g.findByName("layer_norm_3")));
    CHECK_FALSE(w.scene()->nodeItem(g.findByName("relu_4")));
    CHECK(w.scene()->nodeItemCount() < 12);
    const int hits = w.scene()->layoutCacheHits();
    w.scene()->showWholeGraph();
    REQUIRE(waitForLayout(*w.scene()));
    CHECK(w.scene()->nodeItemCount() == everything);
    // The whole graph was laid out before: the layout comes from the cache.
    CHECK(w.scene()->layoutCacheHits() == hits + 1);

    // The demo does not fit at a readable zoom: the minimap shows, and moves the view.
    MiniMap *map = w.view()->miniMap();
    map->refresh();
    CHECK(map->isVisible());
    const QPointF before = w.view()->mapToScene(w.view()->viewport()->rect().center());
    QTest::mouseClick(map->viewport(), Qt::LeftButton, {}, QPoint(map->width() - 12, map->height() - 12));
    const QPointF after = w.view()->mapToScene(w.view()->viewport()->rect().center());
    CHECK(before != after);
    // A fifth of the view each way, within bounds; none in a cramped view.
    const QSize port = w.view()->viewport()->size();
    CHECK(map->width() == std::clamp(port.width() / 5, MiniMap::kMinWidth, MiniMap::kMaxWidth));
    CHECK(map->height() == std::clamp(port.height() / 5, MiniMap::kMinHeight, MiniMap::kMaxHeight));
    CHECK(double(map->width()) * map->height() <= 0.05 * port.width() * port.height());
    w.resize(500, 400);
    QApplication::processEvents();
    map->refresh();
    REQUIRE(w.view()->viewport()->width() < MiniMap::kMinViewWidth);
    CHECK_FALSE(map->isVisible());
    w.resize(1600, 1000);
    QApplication::processEvents();
    map->setWanted(false);
    CHECK_FALSE(map->isVisible());
}

TEST_CASE("Focus, Show Whole Graph, Collapse All and Expand All show the new layout fitted", "[views]")
{
    MainWindow w;
    openDemoIn(w);
    const Graph &g = w.document()->model().graph();
    GraphView &view = *w.view();
    // Zoomed in far on a corner first: the old view must not survive a new layout.
    auto zoomIn = [&] {
        view.setZoom(3.0);
        view.centerOn(w.scene()->itemsBoundingRect().bottomRight());
        QApplication::processEvents();
    };
    // As a freshly opened graph is shown: whole when it fits at a readable
    // zoom, else its top at a readable zoom.
    auto shownAsOpened = [&](const char *step) {
        INFO(step);
        REQUIRE(waitForLayout(*w.scene()));
        QApplication::processEvents();
        const QRectF bounds = w.scene()->itemsBoundingRect();
        const QRectF visible = view.mapToScene(view.viewport()->rect()).boundingRect();
        const QRectF port = view.viewport()->rect();
        const QRectF padded = bounds.adjusted(-20, -20, 20, 20);
        const bool fits = std::min(port.width() / padded.width(), port.height() / padded.height())
                          >= GraphView::kReadableZoom;
        CHECK(view.zoom() < 3.0);
        if (fits) {
            CHECK(visible.contains(bounds));
        } else {
            CHECK(view.zoom() >= GraphView::kReadableZoom);
            CHECK(view.zoom() <= 1.0);
            CHECK(visible.top() <= bounds.top());
        }
        return fits;
    };
    QAction *focus = nullptr, *whole = nullptr, *collapse = nullptr, *expand = nullptr;
    for (QAction *a : w.findChildren<QAction *>()) {
        if (a->text() == QStringLiteral("&Focus on Selection"))
            focus = a;
        else if (a->text() == QStringLiteral("Show &Whole Graph"))
            whole = a;
        else if (a->text() == QStringLiteral("Co&llapse All"))
            collapse = a;
        else if (a->text() == QStringLiteral("&Expand All"))
            expand = a;
    }
    REQUIRE(focus);
    REQUIRE(whole);
    REQUIRE(collapse);
    REQUIRE(expand);

    zoomIn();
    w.scene()->selectNode(g.findByName("relu_3"));
    focus->trigger();
    CHECK(shownAsOpened("Focus")); // a few nodes: they fit
    CHECK(w.scene()->isFocused());

    zoomIn();
    whole->trigger();
    CHECK_FALSE(shownAsOpened("Show Whole Graph")); // the demo is too big to fit readably
    CHECK_FALSE(w.scene()->isFocused());

    zoomIn();
    collapse->trigger();
    shownAsOpened("Collapse All");

    zoomIn();
    expand->trigger();
    shownAsOpened("Expand All");
}

TEST_CASE("Find at 3 % zoom zooms in to its hit", "[views]")
{
    // It centred the hit at 3 % and left it unreadable (issue 36).
    MainWindow w;
    openDemoIn(w);
    GraphView &view = *w.view();
    REQUIRE(waitForLayout(*w.scene()));
    view.setZoom(0.03);
    QApplication::processEvents();
    const QRectF node(0, 0, 120, 40); // a box's size, anywhere
    view.focusOn(node);
    const QRectF port = view.viewport()->rect();
    const qreal fit = std::min(port.width() / (node.width() + 60), port.height() / (node.height() + 60));
    CHECK(view.zoom() == Approx(std::min(fit, GraphView::kReadableZoom)));
    CHECK(view.mapToScene(view.viewport()->rect()).boundingRect().contains(node.center()));
}

TEST_CASE("a graph opened collapsed shows its boxes first, and an expanded group where the view looks", "[views]")
{
    // Issue 36 item 7: the first view of a collapsed graph landed on an empty
    // area, and an expanded group was not brought into the view.
    MainWindow w;
    w.setErrorDialogsEnabled(false);
    w.resize(1600, 1000);
    w.show();
    QSignalSpy shown(&w, &MainWindow::graphShown);
    w.document()->setGraph(blockGraph(9, 10, 10), QStringLiteral("blocks"));
    REQUIRE(shown.wait(60000));
    REQUIRE(w.scene()->startedCollapsed());
    GraphView &view = *w.view();
    QApplication::processEvents();
    auto visible = [&] { return view.mapToScene(view.viewport()->rect()).boundingRect(); };
    int boxes = 0;
    for (QGraphicsItem *item : w.scene()->items(visible()))
        boxes += dynamic_cast<BoxItem *>(item) != nullptr;
    CHECK(boxes >= 3); // x and the first blocks, read from the top

    const int block3 = w.scene()->scopeTree().find("block3");
    REQUIRE(block3 > 0);
    w.scene()->expandScope(block3);
    REQUIRE(waitForLayout(*w.scene()));
    QApplication::processEvents();
    const QRectF expanded = w.scene()->focusRect();
    REQUIRE_FALSE(expanded.isEmpty());
    INFO("view " << visible().x() << "," << visible().y() << " " << visible().width() << "x" << visible().height()
                 << "; group at " << expanded.x() << "," << expanded.y());
    CHECK(visible().intersects(expanded));
    CHECK(std::abs(visible().center().x() - expanded.center().x()) < visible().width() / 4);
}
