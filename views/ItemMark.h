#pragma once

#include <QColor>
#include <QPainter>
#include <QPainterPath>

namespace fusebox {

/// A coloured ring drawn around a node or group box: a candidate match (the
/// pattern's colour), the selected match (wider), a why-not check (red/green).
struct ItemMark {
    QColor color;
    qreal width = 0;
    bool dashed = false;

    bool isSet() const { return color.isValid() && width > 0; }
    friend bool operator==(const ItemMark &, const ItemMark &) = default;

    /// Room the ring needs outside the box.
    static constexpr qreal kMargin = 7;

    /// Paints the ring around `box` (a rounded rect of `radius`).
    void paint(QPainter *painter, const QRectF &box, qreal radius) const
    {
        if (!isSet())
            return;
        QColor glow = color;
        glow.setAlpha(70);
        QPen pen(color, width);
        if (dashed)
            pen.setStyle(Qt::DashLine);
        const qreal out = width / 2 + 2;
        QPainterPath ring;
        ring.addRoundedRect(box.adjusted(-out, -out, out, out), radius + out, radius + out);
        painter->save();
        painter->setBrush(Qt::NoBrush);
        painter->setPen(QPen(glow, width + 4));
        painter->drawPath(ring);
        painter->setPen(pen);
        painter->drawPath(ring);
        painter->restore();
    }
};

} // namespace fusebox
