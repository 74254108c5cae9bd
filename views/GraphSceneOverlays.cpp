// GraphScene's overlays and selections: rings on nodes (marks), the outline
// of the selected match, the k-hop focus view, multi-selection.
#include "GraphScene.h"

#include "Document.h"
#include "GroupItem.h"
#include "NodeItem.h"
#include "SceneStyle.h"

#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <algorithm>
#include <set>
#include <tuple>
#include <unordered_set>

namespace fusebox {

namespace {

/// A frame with a dotted or dashed border whose border is stroked only where
/// it is exposed. QPainter strokes a dash pattern along the whole path before
/// it clips: a frame around a group spanning the graph, seen close up, made
/// tens of thousands of dots per frame and stalled the window for 100 ms per
/// repaint (fusebox_bench_gui, after Find Matches and an expand).
class ExposedFrameItem final : public QGraphicsRectItem {
public:
    explicit ExposedFrameItem(const QRectF &rect)
        : QGraphicsRectItem(rect)
    {
        setFlag(ItemUsesExtendedStyleOption); // exposedRect in item coordinates
    }

    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *) override
    {
        const QRectF r = rect();
        painter->setPen(Qt::NoPen);
        painter->setBrush(brush());
        painter->drawRect(r);
        // The border's sides, each cut to the exposed area (with room for the pen).
        const qreal m = 4 + pen().widthF();
        const QRectF shown = option->exposedRect.adjusted(-m, -m, m, m);
        painter->setPen(pen());
        auto side = [&](QPointF a, QPointF b) {
            if (a.y() == b.y()) { // horizontal
                if (a.y() < shown.top() || a.y() > shown.bottom())
                    return;
                const qreal left = std::max(std::min(a.x(), b.x()), shown.left());
                const qreal right = std::min(std::max(a.x(), b.x()), shown.right());
                if (left < right)
                    painter->drawLine(QPointF(left, a.y()), QPointF(right, a.y()));
            } else { // vertical
                if (a.x() < shown.left() || a.x() > shown.right())
                    return;
                const qreal top = std::max(std::min(a.y(), b.y()), shown.top());
                const qreal bottom = std::min(std::max(a.y(), b.y()), shown.bottom());
                if (top < bottom)
                    painter->drawLine(QPointF(a.x(), top), QPointF(a.x(), bottom));
            }
        };
        side(r.topLeft(), r.topRight());
        side(r.topRight(), r.bottomRight());
        side(r.bottomLeft(), r.bottomRight());
        side(r.topLeft(), r.bottomLeft());
    }
};

} // namespace

void GraphScene::showNeighbourhood(const std::vector<NodeId> &centre, int hops)
{
    const Graph &graph = m_document->model().graph();
    auto keep = std::make_shared<std::unordered_set<uint32_t>>();
    std::vector<NodeId> frontier;
    for (NodeId id : centre)
        if (graph.contains(id) && keep->insert(id.value).second)
            frontier.push_back(id);
    if (frontier.empty())
        return;
    for (int h = 0; h < hops && !frontier.empty(); ++h) {
        std::vector<NodeId> next;
        for (NodeId id : frontier) {
            auto visit = [&](NodeId other) {
                if (graph.contains(other) && keep->insert(other.value).second)
                    next.push_back(other);
            };
            for (NodeId in : graph.node(id)->inputNodes())
                visit(in);
            for (NodeId user : graph.users(id))
                visit(user);
        }
        frontier = std::move(next);
    }
    for (uint32_t v : *keep)
        for (int s : m_tree->chain(m_tree->scopeOf(NodeId{v})))
            m_expanded.insert(m_tree->scope(s).path);
    emit wholeLayoutChanging();
    m_options.onlyNodes = std::move(keep);
    relayout();
}

void GraphScene::showWholeGraph()
{
    if (!m_options.onlyNodes)
        return;
    emit wholeLayoutChanging();
    m_options.onlyNodes.reset();
    relayout();
}

std::vector<NodeId> GraphScene::selectedNodes() const
{
    std::vector<NodeId> out;
    for (QGraphicsItem *item : selectedItems())
        if (auto *n = qgraphicsitem_cast<NodeItem *>(item))
            out.push_back(n->nodeId());
    std::sort(out.begin(), out.end(), [](NodeId a, NodeId b) { return a.value < b.value; });
    return out;
}

void GraphScene::revealNodes(const std::vector<NodeId> &nodes)
{
    const Graph &graph = m_document->model().graph();
    bool changed = false;
    for (NodeId id : nodes) {
        if (!graph.contains(id) || nodeItem(id))
            continue;
        for (int s : m_tree->chain(m_tree->scopeOf(id)))
            changed = m_expanded.insert(m_tree->scope(s).path).second || changed;
    }
    if (changed)
        relayout();
}

QRectF GraphScene::rectOf(const std::vector<NodeId> &nodes) const
{
    QRectF rect;
    for (NodeId id : nodes) {
        if (NodeItem *n = nodeItem(id)) {
            rect |= n->sceneBoundingRect();
        } else if (auto key = m_shown.itemOf(id); key && CollapsedGraph::isGroupKey(*key)) {
            if (GroupItem *g = groupItem(CollapsedGraph::scopeOfKey(*key)))
                rect |= g->sceneBoundingRect();
        }
    }
    return rect;
}

void GraphScene::setMarks(QHash<uint32_t, ItemMark> marks)
{
    m_marks = std::move(marks);
    scheduleMarks();
}

void GraphScene::scheduleMarks()
{
    // Marks, frames and the outline usually change together: paint them once.
    if (m_marksScheduled)
        return;
    m_marksScheduled = true;
    QMetaObject::invokeMethod(
        this,
        [this] {
            m_marksScheduled = false;
            applyMarks();
        },
        Qt::QueuedConnection);
}

void GraphScene::setOutline(const std::vector<NodeId> &nodes, const QColor &color, const QString &caption)
{
    m_outlineNodes = nodes;
    m_outlineColor = color;
    m_outlineCaption = caption;
    scheduleMarks();
}

void GraphScene::setGroupFrames(std::vector<GroupFrame> frames)
{
    if (frames.size() > kMaxGroupFrames)
        frames.resize(kMaxGroupFrames);
    m_groupFrames = std::move(frames);
    scheduleMarks();
}

QRectF GraphScene::outlineRect() const
{
    return m_outline ? m_outline->sceneBoundingRect() : QRectF();
}

void GraphScene::applyMarks()
{
    // Groups take the strongest ring of the hidden nodes they show.
    QHash<int, ItemMark> groupMarks;
    for (auto it = m_marks.cbegin(); it != m_marks.cend(); ++it) {
        if (nodeItem(NodeId{it.key()}))
            continue;
        auto key = m_shown.itemOf(NodeId{it.key()});
        if (!key || !CollapsedGraph::isGroupKey(*key))
            continue;
        ItemMark &g = groupMarks[CollapsedGraph::scopeOfKey(*key)];
        if (it.value().width > g.width)
            g = it.value();
    }
    for (auto it = m_nodeItems.cbegin(); it != m_nodeItems.cend(); ++it)
        it.value()->setMark(m_marks.value(it.key()));
    for (auto it = m_groupItems.cbegin(); it != m_groupItems.cend(); ++it)
        it.value()->setMark(groupMarks.value(it.key()));

    // Every vertical candidate: a light frame around its nodes.
    qDeleteAll(m_frames);
    m_frames.clear();
    // One frame per place and colour: candidates inside a collapsed group all
    // frame the group's box, and a 100k-node graph has thousands of them.
    std::set<std::tuple<qreal, qreal, qreal, qreal, QRgb>> framed;
    for (const GroupFrame &f : m_groupFrames) {
        const QRectF r = rectOf(f.nodes);
        if (r.isEmpty() || !framed.emplace(r.x(), r.y(), r.width(), r.height(), f.color.rgba()).second)
            continue;
        auto *item = new ExposedFrameItem(r.adjusted(-12, -12, 12, 12));
        QPen pen(f.color, 1.2, Qt::DotLine);
        pen.setCosmetic(true);
        item->setPen(pen);
        QColor fill = f.color;
        fill.setAlpha(12);
        item->setBrush(fill);
        item->setZValue(0.4);
        addItem(item);
        m_frames.append(item);
    }

    delete m_outline;
    m_outline = nullptr;
    const QRectF rect = rectOf(m_outlineNodes);
    if (m_outlineNodes.empty() || rect.isEmpty())
        return;
    auto *frame = new ExposedFrameItem(rect.adjusted(-10, -10, 10, 10));
    QPen pen(m_outlineColor, 2, Qt::DashLine);
    pen.setCosmetic(true);
    frame->setPen(pen);
    QColor fill = m_outlineColor;
    fill.setAlpha(22);
    frame->setBrush(fill);
    frame->setZValue(0.5);
    auto *caption = new QGraphicsSimpleTextItem(m_outlineCaption, frame);
    caption->setBrush(m_outlineColor.darker(130));
    caption->setFont(SceneStyle::captionFont());
    caption->setPos(rect.left() - 10, rect.top() - 12 - caption->boundingRect().height());
    addItem(frame);
    m_outline = frame;
}

} // namespace fusebox
