#pragma once

#include <QGraphicsItem>
#include <QPainterPath>
#include <QPolygonF>

#include <cstdint>
#include <optional>
#include <vector>

namespace fusebox {

/// A routed edge between two visible items (keys as in CollapsedGraph): the
/// layout's cubic Bezier curve and an arrow head at the target. An edge that
/// stands for several graph edges is drawn heavier and labelled "×n".
class EdgeItem final : public QGraphicsItem {
public:
    enum { Type = UserType + 3 };

    /// spline: 3n+1 control points (p0, then c1 c2 p per segment).
    EdgeItem(uint64_t from, uint64_t to, const std::vector<QPointF> &spline, std::optional<QPointF> arrowTip,
             size_t multiplicity);

    uint64_t from() const { return m_from; }
    uint64_t to() const { return m_to; }
    size_t multiplicity() const { return m_multiplicity; }
    const QPainterPath &path() const { return m_path; }
    /// Drawn in the highlight colour (an end of it is selected).
    void setHighlighted(bool highlighted);
    bool isHighlighted() const { return m_highlighted; }

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    uint64_t m_from;
    uint64_t m_to;
    size_t m_multiplicity;
    QPainterPath m_path;
    QPolygonF m_arrow;
    QPointF m_labelPos;
    QRectF m_bounds;
    bool m_highlighted = false;
};

} // namespace fusebox
