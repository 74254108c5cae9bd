#include "GroupItem.h"

#include "SceneStyle.h"

#include "CollapsedGraph.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <algorithm>
#include <cmath>
#include <map>

namespace fusebox {

namespace {
constexpr qreal kGroupPadX = 14;
constexpr qreal kGroupPadY = 8;
constexpr qreal kStack = 4; // offset of the "cards" behind the box
constexpr qreal kGroupMinWidth = 170;
constexpr qreal kGroupMaxTextWidth = 340;
constexpr qreal kGroupRadius = 8;
constexpr qreal kBadge = 16;

QString shortOpName(const std::string &op)
{
    return QString::fromStdString(op.rfind("aten::", 0) == 0 ? op.substr(6) : op);
}

QFont hintFont()
{
    QFont f = SceneStyle::captionFont();
    f.setItalic(true);
    return f;
}
} // namespace

QSizeF GroupItem::sizeFor(const Label &label)
{
    const QFontMetricsF title(SceneStyle::groupTitleFont());
    const QFontMetricsF caption(SceneStyle::captionFont());
    const QFontMetricsF hint(hintFont());
    qreal text = std::max({title.horizontalAdvance(label.title) + kBadge + 6, caption.horizontalAdvance(label.count),
                           caption.horizontalAdvance(label.summary), hint.horizontalAdvance(label.hint)});
    qreal width = std::clamp(text, kGroupMinWidth - 2 * kGroupPadX, kGroupMaxTextWidth) + 2 * kGroupPadX + 2 * kStack;
    qreal height = 2 * kGroupPadY + title.height() + 2 * caption.height() + hint.height() + 6 + 2 * kStack;
    return {std::ceil(width), std::ceil(height)};
}

GroupItem::GroupItem(int scope, const Label &label, QSizeF size)
    : BoxItem(size, kGroupRadius)
    , m_scope(scope)
    , m_label(label)
{
    setToolTip(QStringLiteral("%1\n%2\n%3\nDouble-click to expand").arg(label.title, label.count, label.summary));
}

void GroupItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *)
{
    const bool selected = option->state & QStyle::State_Selected;
    painter->setRenderHint(QPainter::Antialiasing);
    // The front card sits top-left; two cards peek out behind it (a stack of nodes).
    const QRectF front = rect().adjusted(0, 0, -2 * kStack, -2 * kStack);
    QColor border = selected ? SceneStyle::highlight() : SceneStyle::groupBorder();
    for (int i = 2; i >= 1; --i) {
        QRectF card = front.translated(i * kStack, i * kStack);
        painter->setPen(QPen(SceneStyle::groupBorder().lighter(150), 1));
        painter->setBrush(SceneStyle::groupFill().darker(100 + 4 * i));
        painter->drawRoundedRect(card, kGroupRadius, kGroupRadius);
    }
    painter->setPen(QPen(border, selected ? 2.6 : (isHovered() ? 2.0 : 1.4)));
    painter->setBrush(SceneStyle::groupFill());
    painter->drawRoundedRect(front, kGroupRadius, kGroupRadius);
    mark().paint(painter, front, kGroupRadius);

    const qreal left = front.left() + kGroupPadX;
    const qreal width = front.width() - 2 * kGroupPadX;
    qreal y = front.top() + kGroupPadY;

    // A "+" badge: this box opens.
    const QFontMetricsF titleMetrics(SceneStyle::groupTitleFont());
    QRectF badge(left, y + (titleMetrics.height() - kBadge) / 2, kBadge, kBadge);
    painter->setPen(QPen(border, 1.3));
    painter->setBrush(Qt::white);
    painter->drawRoundedRect(badge, 3, 3);
    painter->drawLine(QPointF(badge.center().x() - 4, badge.center().y()),
                      QPointF(badge.center().x() + 4, badge.center().y()));
    painter->drawLine(QPointF(badge.center().x(), badge.center().y() - 4),
                      QPointF(badge.center().x(), badge.center().y() + 4));

    painter->setFont(SceneStyle::groupTitleFont());
    painter->setPen(SceneStyle::text());
    const qreal titleLeft = left + kBadge + 6;
    painter->drawText(QRectF(titleLeft, y, width - kBadge - 6, titleMetrics.height()), Qt::AlignLeft | Qt::AlignVCenter,
                      titleMetrics.elidedText(m_label.title, Qt::ElideLeft, width - kBadge - 6));
    y += titleMetrics.height() + 4;

    auto line = [&](const QFont &font, const QColor &color, const QString &text) {
        QFontMetricsF metrics(font);
        painter->setFont(font);
        painter->setPen(color);
        painter->drawText(QRectF(left, y, width, metrics.height()), Qt::AlignLeft | Qt::AlignVCenter,
                          metrics.elidedText(text, Qt::ElideRight, width));
        y += metrics.height();
    };
    line(SceneStyle::captionFont(), SceneStyle::text(), m_label.count);
    line(SceneStyle::captionFont(), SceneStyle::mutedText(), m_label.summary);
    y += 2;
    line(hintFont(), SceneStyle::highlight(), m_label.hint);
}

QString GroupItem::titleFor(const ScopeTree &tree, int scope)
{
    const ScopeTree::Scope &s = tree.scope(scope);
    return QString::fromStdString(s.artificial ? s.label : s.path);
}

std::unordered_map<int, GroupItem::Label> GroupItem::labelsFor(const Graph &graph, const ScopeTree &tree,
                                                               const CollapsedGraph &view)
{
    std::unordered_map<int, GroupItem::Label> labels;
    std::unordered_map<int, std::map<std::string, size_t>> ops;
    for (const CollapsedGraph::Item &item : view.items())
        if (item.isGroup())
            ops[item.scope];
    if (ops.empty())
        return labels;
    for (NodeId id : graph.nodeIds()) {
        auto key = view.itemOf(id);
        const Node &n = *graph.node(id);
        if (key && CollapsedGraph::isGroupKey(*key) && n.isOp())
            ++ops[CollapsedGraph::scopeOfKey(*key)][n.op];
    }
    for (const CollapsedGraph::Item &item : view.items()) {
        if (!item.isGroup())
            continue;
        const ScopeTree::Scope &s = tree.scope(item.scope);
        GroupItem::Label label;
        label.title = titleFor(tree, item.scope);
        int modules = 0;
        for (int c : s.scopes)
            modules += tree.scope(c).artificial ? 0 : 1;
        label.count = item.nodeCount == 1 ? QObject::tr("1 node") : QObject::tr("%1 nodes").arg(item.nodeCount);
        if (modules)
            label.count += QStringLiteral(" · ")
                           + (modules == 1 ? QObject::tr("1 module") : QObject::tr("%1 modules").arg(modules));
        std::vector<std::pair<std::string, size_t>> sorted(ops[item.scope].begin(), ops[item.scope].end());
        std::stable_sort(sorted.begin(), sorted.end(), [](const auto &a, const auto &b) { return a.second > b.second; });
        QStringList parts;
        for (size_t i = 0; i < sorted.size() && i < 3; ++i)
            parts << QStringLiteral("%1 ×%2").arg(shortOpName(sorted[i].first)).arg(sorted[i].second);
        label.summary = parts.join(QStringLiteral(" · "));
        label.hint = QObject::tr("double-click to expand");
        labels.emplace(item.scope, std::move(label));
    }
    return labels;
}

} // namespace fusebox
