#include "BoxItem.h"

#include <QPainterPath>

namespace fusebox {

BoxItem::BoxItem(QSizeF size, qreal radius)
    : m_rect(-size.width() / 2, -size.height() / 2, size.width(), size.height())
    , m_radius(radius)
{
    setFlags(ItemIsSelectable);
    setAcceptHoverEvents(true);
    setCacheMode(DeviceCoordinateCache);
    setZValue(2);
}

void BoxItem::setMark(const ItemMark &mark)
{
    if (mark == m_mark)
        return;
    m_mark = mark;
    update();
}

QRectF BoxItem::boundingRect() const
{
    const qreal m = ItemMark::kMargin + 3;
    return m_rect.adjusted(-m, -m, m, m);
}

QPainterPath BoxItem::shape() const
{
    QPainterPath path;
    path.addRoundedRect(m_rect, m_radius, m_radius);
    return path;
}

void BoxItem::hoverEnterEvent(QGraphicsSceneHoverEvent *event)
{
    m_hovered = true;
    update();
    QGraphicsItem::hoverEnterEvent(event);
}

void BoxItem::hoverLeaveEvent(QGraphicsSceneHoverEvent *event)
{
    m_hovered = false;
    update();
    QGraphicsItem::hoverLeaveEvent(event);
}

} // namespace fusebox
