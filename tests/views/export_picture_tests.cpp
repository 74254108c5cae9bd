// File ▸ Export Picture: the whole graph at a readable scale, or the visible part.
#include "ReviewTestSupport.h"

#include "views/GraphView.h"
#include "views/NodeItem.h"
#include "views/ReviewFiles.h"
#include "views/RewriteController.h"

#include <catch.hpp>

#include <QFile>
#include <QImage>
#include <QPlainTextEdit>
#include <QTemporaryDir>

using namespace fusebox;
using namespace fusebox::viewtest;

namespace {
QString readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}
} // namespace

TEST_CASE("Export Picture draws the whole graph at 100 %, or only the visible part", "[views][picture]")
{
    auto w = openDemo();
    REQUIRE(settle(*w));
    QTemporaryDir dir;
    ReviewFiles &files = *w->rewrite()->files();
    const Graph &g = w->document()->model().graph();
    // Zoomed in on the first input: the view shows a small part of the graph.
    const NodeId first = g.inputs().front();
    const NodeId last = g.outputValues().back();
    w->view()->setZoom(2.0);
    w->view()->centerOn(w->scene()->nodeItem(first));
    QTest::qWait(50);
    const QRectF whole = w->scene()->itemsBoundingRect();
    const QRectF visible = w->view()->mapToScene(w->view()->viewport()->rect()).boundingRect();
    REQUIRE_FALSE(visible.contains(whole));
    REQUIRE_FALSE(visible.contains(w->scene()->nodeItem(last)->sceneBoundingRect()));

    // The whole graph: every item, at 100 % (the app's own label size), whatever the view shows.
    ReviewFiles::PictureInfo info;
    QString error;
    const QString png = dir.filePath(QStringLiteral("whole.png"));
    REQUIRE(files.exportPicture(png, ReviewFiles::PictureExtent::WholeGraph, &error, &info));
    CHECK(info.scale == 1.0);
    const QImage image(png);
    CHECK(image.width() == qRound(whole.width() + 48));
    CHECK(image.height() == qRound(whole.height() + 48));
    CHECK(image.size() == info.size);
    const QString svg = dir.filePath(QStringLiteral("whole.svg"));
    REQUIRE(files.exportPicture(svg, &error)); // the menu's default: the whole graph
    const QString wholeSvg = readAll(svg);
    // Each end's title, as the node draws it (unique in the demo: an input's name, the last op's).
    const QString firstName = w->scene()->nodeItem(first)->label().title;
    const QString lastName = w->scene()->nodeItem(last)->label().title;
    CHECK(wholeSvg.contains(QStringLiteral(">%1<").arg(firstName)));
    CHECK(wholeSvg.contains(QStringLiteral(">%1<").arg(lastName)));

    // The visible part: the view's zoom, and not the far end of the graph.
    const QString part = dir.filePath(QStringLiteral("part.svg"));
    REQUIRE(files.exportPicture(part, ReviewFiles::PictureExtent::VisiblePart, &error, &info));
    CHECK(info.scale == Approx(2.0));
    CHECK(info.size.width() == qRound(visible.width() * 2.0));
    const QString partSvg = readAll(part);
    CHECK(partSvg.contains(QStringLiteral(">%1<").arg(firstName)));
    CHECK_FALSE(partSvg.contains(QStringLiteral(">%1<").arg(lastName)));

    const QString log = w->findChild<QPlainTextEdit *>(QStringLiteral("log"))->toPlainText();
    CHECK(log.contains(QStringLiteral("exported the whole graph to %1 (%2 x %3 px at 100 %)")
                           .arg(png)
                           .arg(image.width())
                           .arg(image.height())));
    CHECK(log.contains(QStringLiteral("exported the visible part to %1").arg(part)));
    CHECK_FALSE(files.exportPicture(dir.filePath(QStringLiteral("x.bmp")), &error));
    CHECK(error.contains(QStringLiteral("use .png or .svg")));
}
