#include "NodeItem.h"

#include "OpPalette.h"
#include "SceneStyle.h"

#include "core/ir/LiftedParameters.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <algorithm>

namespace fusebox {

namespace {
constexpr qreal kPadX = 12;
constexpr qreal kPadY = 6;
constexpr qreal kStripe = 5;
constexpr qreal kMinWidth = 104;
constexpr qreal kMaxTextWidth = 300;
constexpr qreal kRadius = 6;

QString shortOp(const std::string &op)
{
    // "aten::conv2d" -> "conv2d"; other namespaces (prim::, quantized::) stay.
    if (op.rfind("aten::", 0) == 0)
        return QString::fromStdString(op.substr(6));
    return QString::fromStdString(op);
}

QString typeText(const Node &node)
{
    if (node.meta.isKnown())
        return QString::fromStdString(node.meta.toString());
    return QString::fromStdString(node.type);
}
} // namespace

NodeItem::Label NodeItem::labelFor(const Node &node)
{
    const QString name = QString::fromStdString(node.name);
    switch (node.kind()) {
    case NodeKind::Input:
        // A weight Dynamo lifted into an input is drawn as the weight it is.
        if (isLiftedParameter(node))
            return {name, typeText(node),
                    node.name.find("_buffers_") != std::string::npos ? QStringLiteral("buffer") : QStringLiteral("parameter")};
        return {name, typeText(node), QStringLiteral("input")};
    case NodeKind::Constant:
        return {name, typeText(node), QStringLiteral("constant")};
    case NodeKind::Output: {
        const size_t values = node.inputNodes().size();
        return {QStringLiteral("output"),
                values == 1 ? QStringLiteral("1 value") : QStringLiteral("%1 values").arg(values), name};
    }
    case NodeKind::Op:
        break;
    }
    return {shortOp(node.op), typeText(node), name};
}

QSizeF NodeItem::sizeFor(const Label &label)
{
    const QFontMetricsF title(SceneStyle::titleFont());
    const QFontMetricsF detail(SceneStyle::detailFont());
    const QFontMetricsF caption(SceneStyle::captionFont());
    qreal text = std::max({title.horizontalAdvance(label.title), detail.horizontalAdvance(label.detail),
                           caption.horizontalAdvance(label.caption)});
    qreal width = std::clamp(text, kMinWidth - 2 * kPadX - kStripe, kMaxTextWidth) + 2 * kPadX + kStripe;
    qreal height = 2 * kPadY + title.height() + detail.height() + caption.height() + 2;
    return {std::ceil(width), std::ceil(height)};
}

NodeItem::NodeItem(NodeId id, const Label &label, OpFamily family, QSizeF size)
    : m_id(id), m_label(label), m_family(family), m_rect(-size.width() / 2, -size.height() / 2, size.width(), size.height())
{
    setFlags(ItemIsSelectable);
    setAcceptHoverEvents(true);
    setCacheMode(DeviceCoordinateCache);
    setZValue(2);
    setToolTip(QStringLiteral("%1\n%2\n%3").arg(label.title, label.detail, label.caption));
}

QRectF NodeItem::boundingRect() const
{
    const qreal m = ItemMark::kMargin + 3;
    return m_rect.adjusted(-m, -m, m, m);
}

void NodeItem::setMark(const ItemMark &mark)
{
    if (mark == m_mark)
        return;
    m_mark = mark;
    update();
}

QPainterPath NodeItem::shape() const
{
    QPainterPath path;
    path.addRoundedRect(m_rect, kRadius, kRadius);
    return path;
}

void NodeItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *)
{
    const FamilyStyle style = OpPalette::style(m_family);
    const bool selected = option->state & QStyle::State_Selected;
    painter->setRenderHint(QPainter::Antialiasing);

    QPainterPath box;
    box.addRoundedRect(m_rect, kRadius, kRadius);
    painter->fillPath(box, style.fill);
    // The family accent as a stripe on the left edge.
    painter->save();
    painter->setClipPath(box);
    painter->fillRect(QRectF(m_rect.left(), m_rect.top(), kStripe, m_rect.height()), style.accent);
    painter->restore();

    QColor border = selected ? SceneStyle::highlight() : style.accent;
    if (!selected && !m_hovered)
        border.setAlpha(150);
    painter->setPen(QPen(border, selected ? 2.6 : (m_hovered ? 1.8 : 1.1)));
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(box);
    m_mark.paint(painter, m_rect, kRadius);

    const qreal left = m_rect.left() + kStripe + kPadX - 2;
    const qreal width = m_rect.width() - kStripe - 2 * kPadX + 4;
    qreal y = m_rect.top() + kPadY;
    auto line = [&](const QFont &font, const QColor &color, const QString &text) {
        QFontMetricsF metrics(font);
        painter->setFont(font);
        painter->setPen(color);
        QRectF r(left, y, width, metrics.height());
        painter->drawText(r, Qt::AlignLeft | Qt::AlignVCenter, metrics.elidedText(text, Qt::ElideMiddle, width));
        y += metrics.height() + 1;
    };
    line(SceneStyle::titleFont(), SceneStyle::text(), m_label.title);
    line(SceneStyle::detailFont(), SceneStyle::text(), m_label.detail);
    line(SceneStyle::captionFont(), SceneStyle::mutedText(), m_label.caption);
}

void NodeItem::hoverEnterEvent(QGraphicsSceneHoverEvent *event)
{
    m_hovered = true;
    update();
    QGraphicsItem::hoverEnterEvent(event);
}

void NodeItem::hoverLeaveEvent(QGraphicsSceneHoverEvent *event)
{
    m_hovered = false;
    update();
    QGraphicsItem::hoverLeaveEvent(event);
}

} // namespace fusebox
