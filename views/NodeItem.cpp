#include "NodeItem.h"

#include "OpPalette.h"
#include "SceneStyle.h"

#include "core/ir/Graph.h"
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

/// How many items of a value its readers take, when every reader is a
/// getitem of it (the highest index read, plus one); 0 otherwise.
size_t itemsRead(const Graph &graph, NodeId id)
{
    size_t items = 0;
    for (NodeId reader : graph.users(id)) {
        const Node &user = *graph.node(reader);
        if (user.op != "getitem" || user.args().size() < 2 || user.args()[0].node() != id)
            return 0;
        const std::optional<int64_t> index = user.args()[1].asInt();
        if (!index || *index < 0)
            return 0;
        items = std::max(items, size_t(*index) + 1);
    }
    return items;
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
                    node.name.find("_buffers_") != std::string::npos ? QStringLiteral("buffer")
                                                                     : QStringLiteral("parameter")};
        return {name, typeText(node), QStringLiteral("input")};
    case NodeKind::Constant: return {name, typeText(node), QStringLiteral("constant")};
    case NodeKind::Output: {
        const size_t values = node.inputNodes().size();
        return {QStringLiteral("output"),
                values == 1 ? QStringLiteral("1 value") : QStringLiteral("%1 values").arg(values), name};
    }
    case NodeKind::Op: break;
    }
    return {shortOp(node.op), typeText(node), name};
}

NodeItem::Label NodeItem::labelFor(const Graph &graph, NodeId id)
{
    const Node &node = *graph.node(id);
    Label label = labelFor(node);
    if (node.kind() == NodeKind::Op)
        if (const size_t items = itemsRead(graph, id))
            label.detail = items == 1 ? QStringLiteral("list · 1 item read")
                                      : QStringLiteral("list · %1 items read").arg(items);
    return label;
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
    : BoxItem(size, kRadius)
    , m_id(id)
    , m_label(label)
    , m_family(family)
{
    setToolTip(QStringLiteral("%1\n%2\n%3").arg(label.title, label.detail, label.caption));
}

void NodeItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *)
{
    const FamilyStyle style = OpPalette::style(m_family);
    const bool selected = option->state & QStyle::State_Selected;
    painter->setRenderHint(QPainter::Antialiasing);

    QPainterPath box;
    box.addRoundedRect(rect(), kRadius, kRadius);
    painter->fillPath(box, style.fill);
    // The family accent as a stripe on the left edge.
    painter->save();
    painter->setClipPath(box);
    painter->fillRect(QRectF(rect().left(), rect().top(), kStripe, rect().height()), style.accent);
    painter->restore();

    QColor border = selected ? SceneStyle::highlight() : style.accent;
    if (!selected && !isHovered())
        border.setAlpha(150);
    painter->setPen(QPen(border, selected ? 2.6 : (isHovered() ? 1.8 : 1.1)));
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(box);
    mark().paint(painter, rect(), kRadius);

    const qreal left = rect().left() + kStripe + kPadX - 2;
    const qreal width = rect().width() - kStripe - 2 * kPadX + 4;
    qreal y = rect().top() + kPadY;
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

} // namespace fusebox
