#pragma once

#include "ItemMark.h"

#include <QGraphicsItem>

namespace fusebox {

/// What a node's box and a collapsed group's box share: a rounded rectangle
/// centred on the item's position, selectable, a mark ring drawn around it
/// and a hover state. The subclasses draw their own face (paint()).
class BoxItem : public QGraphicsItem {
public:
    /// The ring drawn around the box (none by default).
    void setMark(const ItemMark &mark);
    const ItemMark &mark() const { return m_mark; }

    QRectF boundingRect() const override;
    QPainterPath shape() const override;

protected:
    /// A box of `size` with corners of `radius`, above the edges.
    BoxItem(QSizeF size, qreal radius);

    const QRectF &rect() const { return m_rect; }
    qreal radius() const { return m_radius; }
    bool isHovered() const { return m_hovered; }

    void hoverEnterEvent(QGraphicsSceneHoverEvent *event) override;
    void hoverLeaveEvent(QGraphicsSceneHoverEvent *event) override;

private:
    QRectF m_rect;
    qreal m_radius;
    bool m_hovered = false;
    ItemMark m_mark;
};

} // namespace fusebox
