#include "EdgeItem.h"

#include "SceneStyle.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QtMath>

namespace fusebox {

namespace {
constexpr qreal kArrowWidth = 3.8; // half the base width

QPolygonF arrowHead(QPointF base, QPointF tip)
{
    QPointF d = tip - base;
    qreal length = std::hypot(d.x(), d.y());
    if (length < 0.01)
        return {};
    QPointF n(-d.y() / length * kArrowWidth, d.x() / length * kArrowWidth);
    return QPolygonF({tip, base + n, base - n});
}
} // namespace

EdgeItem::EdgeItem(uint64_t from, uint64_t to, const std::vector<QPointF> &spline, std::optional<QPointF> arrowTip,
                   size_t multiplicity)
    : m_from(from)
    , m_to(to)
    , m_multiplicity(multiplicity)
{
    setZValue(1);
    setAcceptedMouseButtons(Qt::NoButton);
    if (!spline.empty()) {
        m_path.moveTo(spline.front());
        size_t i = 1;
        for (; i + 2 < spline.size(); i += 3)
            m_path.cubicTo(spline[i], spline[i + 1], spline[i + 2]);
        for (; i < spline.size(); ++i) // malformed tails: straight segments
            m_path.lineTo(spline[i]);
        QPointF end = spline.back();
        if (arrowTip)
            m_arrow = arrowHead(end, *arrowTip);
        m_labelPos = m_path.pointAtPercent(0.5);
    }
    m_bounds = m_path.boundingRect().united(m_arrow.boundingRect()).adjusted(-4, -4, 4, 4);
    if (m_multiplicity > 1)
        m_bounds = m_bounds.united(QRectF(m_labelPos, QSizeF(40, 18)).translated(0, -9));
}

void EdgeItem::setHighlighted(bool highlighted)
{
    if (m_highlighted == highlighted)
        return;
    m_highlighted = highlighted;
    setZValue(highlighted ? 1.5 : 1);
    update();
}

QRectF EdgeItem::boundingRect() const
{
    return m_bounds;
}

void EdgeItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *)
{
    painter->setRenderHint(QPainter::Antialiasing);
    const QColor color = m_highlighted ? SceneStyle::highlight() : SceneStyle::edge();
    qreal width = m_multiplicity > 1 ? std::min(1.3 + 0.5 * std::log2(double(m_multiplicity)), 3.5) : 1.3;
    if (m_highlighted)
        width += 0.9;
    painter->setPen(QPen(color, width, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(m_path);
    if (!m_arrow.isEmpty()) {
        painter->setPen(QPen(color, 1));
        painter->setBrush(color);
        painter->drawPolygon(m_arrow);
    }
    if (m_multiplicity > 1) {
        const QString text = QStringLiteral("×%1").arg(m_multiplicity);
        QFont font = SceneStyle::captionFont();
        const QFontMetricsF metrics(font);
        QRectF box(m_labelPos.x() + 4, m_labelPos.y() - metrics.height() / 2, metrics.horizontalAdvance(text) + 6,
                   metrics.height());
        painter->setPen(Qt::NoPen);
        painter->setBrush(QColor(255, 255, 255, 220));
        painter->drawRoundedRect(box, 3, 3);
        painter->setFont(font);
        painter->setPen(color.darker(130));
        painter->drawText(box, Qt::AlignCenter, text);
    }
}

} // namespace fusebox
