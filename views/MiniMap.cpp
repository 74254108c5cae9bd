#include "MiniMap.h"

#include "GraphView.h"

#include <QMouseEvent>
#include <QScrollBar>
#include <QTimer>

#include <algorithm>

namespace fusebox {

MiniMap::MiniMap(GraphView *view)
    : QGraphicsView(view->scene(), view)
    , m_view(view)
{
    setObjectName(QStringLiteral("miniMap"));
    setFixedSize(sizeFor(view->viewport()->size()));
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setInteractive(false);
    setRenderHints(QPainter::Antialiasing);
    setFrameShape(QFrame::Box);
    setStyleSheet(QStringLiteral("QGraphicsView { border: 1px solid #9aa3ad; background: rgba(250, 251, 252, 230); }"));
    setCursor(Qt::PointingHandCursor);
    setToolTip(tr("Overview: click or drag to move the view (View ▸ Minimap, M)"));
    // Drawing every item small is what an overview is; caching keeps it cheap.
    setCacheMode(QGraphicsView::CacheBackground);
    // Deferred and coalesced: scrolling emits many changes, and the scene
    // emits some while it is being destroyed.
    m_refreshTimer.setSingleShot(true);
    m_refreshTimer.setInterval(0);
    connect(&m_refreshTimer, &QTimer::timeout, this, &MiniMap::refresh);
    auto later = [this] { m_refreshTimer.start(); };
    connect(view->horizontalScrollBar(), &QScrollBar::valueChanged, this, later);
    connect(view->verticalScrollBar(), &QScrollBar::valueChanged, this, later);
    connect(view, &GraphView::zoomChanged, this, later);
    connect(view->scene(), &QGraphicsScene::sceneRectChanged, this, later);
    refresh();
}

void MiniMap::setWanted(bool wanted)
{
    m_wanted = wanted;
    refresh();
}

QSize MiniMap::sizeFor(const QSize &viewport)
{
    return {std::clamp(viewport.width() / 5, kMinWidth, kMaxWidth),
            std::clamp(viewport.height() / 5, kMinHeight, kMaxHeight)};
}

void MiniMap::place()
{
    const QRect area = m_view->viewport()->geometry();
    setFixedSize(sizeFor(area.size()));
    move(area.right() - width() - 10, area.bottom() - height() - 10);
}

void MiniMap::refresh()
{
    if (!m_view->scene() || scene() != m_view->scene()) {
        hide();
        return;
    }
    const QRectF scene = m_view->scene()->itemsBoundingRect();
    const QRectF shown = m_view->mapToScene(m_view->viewport()->rect()).boundingRect();
    const bool fits = scene.isEmpty() || shown.contains(scene);
    const QSize room = m_view->viewport()->size();
    const bool cramped = room.width() < kMinViewWidth || room.height() < kMinViewHeight;
    setVisible(m_wanted && !fits && !cramped);
    if (!isVisible())
        return;
    place();
    fitInView(scene.adjusted(-20, -20, 20, 20), Qt::KeepAspectRatio);
    viewport()->update();
}

void MiniMap::drawForeground(QPainter *painter, const QRectF &)
{
    const QRectF shown = m_view->mapToScene(m_view->viewport()->rect()).boundingRect();
    painter->save();
    QPen pen(QColor(0x1f, 0x6f, 0xd0), 0); // cosmetic
    pen.setWidthF(2);
    pen.setCosmetic(true);
    painter->setPen(pen);
    painter->setBrush(QColor(0x1f, 0x6f, 0xd0, 40));
    painter->drawRect(shown);
    painter->restore();
}

void MiniMap::centerViewAt(const QPoint &pos)
{
    m_view->centerOn(mapToScene(pos));
}

void MiniMap::mousePressEvent(QMouseEvent *event)
{
    centerViewAt(event->pos());
}

void MiniMap::mouseMoveEvent(QMouseEvent *event)
{
    if (event->buttons() & Qt::LeftButton)
        centerViewAt(event->pos());
}

void MiniMap::wheelEvent(QWheelEvent *event)
{
    event->accept();
}

} // namespace fusebox
