#include "ScopeFrameItem.h"

#include "CollapsedGraph.h"
#include "SceneStyle.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <map>

namespace fusebox {

ScopeFrameItem::ScopeFrameItem(int scope, const QString &title, const QRectF &rect, int depth)
    : m_scope(scope)
    , m_title(title)
    , m_rect(rect)
    , m_depth(depth)
{
    setAcceptedMouseButtons(Qt::NoButton);
    setZValue(-1.0 + 0.01 * depth); // behind edges and items, inner frames above outer ones
    setToolTip(QObject::tr("%1 (double-click the header to collapse)").arg(title));
}

QRectF ScopeFrameItem::headerRect() const
{
    return QRectF(m_rect.topLeft(), QSizeF(m_rect.width(), kHeader));
}

QRectF ScopeFrameItem::boundingRect() const
{
    return m_rect.adjusted(-1, -1, 1, 1);
}

void ScopeFrameItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *)
{
    painter->setRenderHint(QPainter::Antialiasing);
    QColor border = SceneStyle::groupBorder();
    border.setAlpha(110);
    QColor fill = SceneStyle::groupBorder();
    fill.setAlpha(10);
    painter->setPen(QPen(border, 1, Qt::DashLine));
    painter->setBrush(fill);
    painter->drawRoundedRect(m_rect, 8, 8);

    QFont font = SceneStyle::captionFont();
    font.setBold(true);
    const QFontMetricsF metrics(font);
    const QRectF header = headerRect().adjusted(8, 2, -8, 0);
    // A "−" badge: this frame folds.
    const QRectF badge(header.left(), header.center().y() - 6, 12, 12);
    painter->setPen(QPen(SceneStyle::groupBorder(), 1));
    painter->setBrush(Qt::white);
    painter->drawRoundedRect(badge, 2, 2);
    painter->drawLine(QPointF(badge.left() + 3, badge.center().y()), QPointF(badge.right() - 3, badge.center().y()));
    painter->setFont(font);
    painter->setPen(SceneStyle::mutedText());
    const QRectF text = header.adjusted(18, 0, 0, 0);
    painter->drawText(text, Qt::AlignLeft | Qt::AlignVCenter, metrics.elidedText(m_title, Qt::ElideLeft, text.width()));
}

std::vector<ScopeFrameItem *> ScopeFrameItem::build(const ScopeTree &tree, const CollapsedGraph &view,
                                                    const std::function<QRectF(uint64_t)> &itemRect,
                                                    const std::function<bool(int)> &isExpanded)
{
    // The scope each visible item sits in (a group sits in its parent scope).
    struct Placed {
        QRectF rect;
        int scope;
    };
    std::vector<Placed> placed;
    std::map<int, std::vector<size_t>> direct; // scope -> indices into placed
    for (const CollapsedGraph::Item &item : view.items()) {
        const QRectF rect = itemRect(item.key);
        if (rect.isEmpty())
            continue;
        const int scope = item.isGroup() ? tree.scope(item.scope).parent : tree.scopeOf(item.node);
        if (scope < 0)
            continue;
        direct[scope].push_back(placed.size());
        placed.push_back({rect, scope});
    }

    // Deepest scopes first, so a parent's frame wraps its children's frames.
    std::vector<int> scopes;
    for (const auto &[scope, members] : direct)
        for (int s = scope; s > 0; s = tree.scope(s).parent)
            scopes.push_back(s);
    std::sort(scopes.begin(), scopes.end());
    scopes.erase(std::unique(scopes.begin(), scopes.end()), scopes.end());
    std::stable_sort(scopes.begin(), scopes.end(),
                     [&tree](int a, int b) { return tree.scope(a).depth > tree.scope(b).depth; });

    std::map<int, QRectF> extent;    // union of a scope's items and child frames
    std::map<int, size_t> itemCount; // visible items inside, recursively
    std::vector<ScopeFrameItem *> frames;
    for (int s : scopes) {
        QRectF rect = extent[s];
        size_t count = itemCount[s];
        for (size_t i : direct[s]) {
            rect |= placed[i].rect;
            ++count;
        }
        QRectF frame = rect.adjusted(-kMargin, -kMargin - kHeader, kMargin, kMargin);
        const bool framed = isExpanded(s) && count >= 2 && !tree.scope(s).artificial
                            && std::none_of(placed.begin(), placed.end(), [&](const Placed &p) {
                                   return !tree.contains(s, p.scope) && p.rect.intersects(frame);
                               });
        if (framed)
            frames.push_back(
                new ScopeFrameItem(s, QString::fromStdString(tree.scope(s).path), frame, tree.scope(s).depth));
        else
            frame = rect; // no frame: the parent wraps the bare items
        const int parent = tree.scope(s).parent;
        if (parent > 0) {
            extent[parent] |= frame;
            itemCount[parent] += count;
        }
    }
    return frames;
}

} // namespace fusebox
