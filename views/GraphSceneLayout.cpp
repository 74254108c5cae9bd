// GraphScene's layout: the two background tasks (what is shown and its box
// sizes, then dot), the cache of recent layouts, and the items built from a
// layout on the GUI thread.
#include "GraphScene.h"

#include "Document.h"
#include "EdgeItem.h"
#include "GroupItem.h"
#include "NodeItem.h"
#include "ScopeFrameItem.h"
#include "SceneStyle.h"
#include "TaskService.h"
#include "core/layout/DotLayout.h"

#include <QSignalBlocker>

namespace fusebox {

namespace {
constexpr qreal kSceneMargin = 40;
} // namespace

/// What the layout's first task makes of the graph: what is shown, the group
/// labels and dot's input (each box's size).
struct GraphScene::PreparedLayout {
    /// The first view's plan, when the graph is new (m_planPending).
    std::optional<InitialView> plan;
    CollapsedGraph view;
    std::unordered_map<int, GroupItem::Label> labels;
    LayoutInput input;
};

void GraphScene::relayout(std::optional<int> focusScope)
{
    m_focusScope = focusScope;
    const quint64 generation = ++m_generation;
    m_layoutRunning = true;
    // A 100k-node graph takes tens of milliseconds to collapse and label: off
    // the GUI thread, as the search reads it. The tree, the expansions and
    // the options are copied (the GUI thread may change them meanwhile); the
    // graph is not, since every change to it waits for this task first.
    auto prepared = std::make_shared<PreparedLayout>();
    m_document->tasks()->run(
        tr("Preparing the layout"), kGraphReadTask, this,
        [graph = &m_document->model().graph(), tree = m_tree, expanded = m_expanded, options = m_options,
         plan = m_planPending, prepared](TaskControl &) mutable {
            std::optional<InitialView> initial;
            if (plan) { // what the user opened meanwhile stays open
                initial = planInitialView(*graph, *tree, options);
                initial->expanded.insert(expanded.begin(), expanded.end());
                expanded = initial->expanded;
            }
            *prepared = prepareLayout(*graph, *tree, expanded, options);
            prepared->plan = std::move(initial);
        },
        [this, generation, prepared](bool cancelled) {
            if (generation != m_generation)
                return; // a newer request is running
            if (cancelled)
                return layoutCancelled();
            if (prepared->plan) {
                m_planPending = false;
                m_expanded = std::move(prepared->plan->expanded);
                m_fullItemCount = prepared->plan->fullItemCount;
                m_fullLayoutSize = prepared->plan->fullLayoutSize;
                m_startedCollapsed = prepared->plan->startedCollapsed;
            }
            layOut(generation, std::move(*prepared));
        });
}

GraphScene::PreparedLayout GraphScene::prepareLayout(const Graph &graph, const ScopeTree &tree,
                                                     const std::set<std::string> &expanded,
                                                     const CollapsedGraph::Options &options)
{
    PreparedLayout p;
    p.view = CollapsedGraph(graph, tree, expanded, options);
    p.labels = GroupItem::labelsFor(graph, tree, p.view);
    // Room between ranks for the header of a scope frame (ScopeFrameItem).
    p.input.rankSeparation = 38;
    p.input.nodeSeparation = 24;
    p.input.nodes.reserve(p.view.items().size());
    for (const CollapsedGraph::Item &item : p.view.items()) {
        const QSizeF size = item.isGroup() ? GroupItem::sizeFor(p.labels.at(item.scope))
                                           : NodeItem::sizeFor(NodeItem::labelFor(graph, item.node));
        p.input.nodes.push_back(LayoutNode{item.key, size.width(), size.height()});
    }
    p.input.edges.reserve(p.view.edges().size());
    for (const CollapsedGraph::Edge &e : p.view.edges())
        p.input.edges.push_back(LayoutEdge{e.from, e.to});
    return p;
}

void GraphScene::layoutCancelled()
{
    m_layoutRunning = false;
    m_pendingSelection = {};
    emit layoutFailed(tr("the layout was cancelled"));
}

void GraphScene::layOut(quint64 generation, PreparedLayout prepared)
{
    m_pending = std::move(prepared.view);
    m_pendingLabels = std::move(prepared.labels);
    const LayoutInput &input = prepared.input;
    emit layoutStarted(int(input.nodes.size()));

    using Result = std::shared_ptr<Expected<LayoutResult>>;
    // A view seen before (collapse after expand, focus and back) comes from
    // the cache; the result is still delivered from the event loop, as a
    // computed one is.
    for (auto it = m_layoutCache.begin(); it != m_layoutCache.end(); ++it) {
        if (it->first == input) {
            Result cached = it->second;
            m_layoutCache.splice(m_layoutCache.begin(), m_layoutCache, it);
            ++m_layoutCacheHits;
            QMetaObject::invokeMethod(
                this, [this, generation, cached] { applyLayout(generation, cached); }, Qt::QueuedConnection);
            return;
        }
    }
    auto result = std::make_shared<Result>();
    m_document->tasks()->run(
        input.nodes.size() == 1 ? tr("Laying out 1 item") : tr("Laying out %1 items").arg(input.nodes.size()),
        kLayoutTask, this,
        [input, result](TaskControl &) { *result = std::make_shared<Expected<LayoutResult>>(layoutWithDot(input)); },
        [this, generation, input, result](bool cancelled) {
            if (generation != m_generation)
                return;
            if (cancelled)
                return layoutCancelled();
            if (*result && (*result)->hasValue()) {
                m_layoutCache.emplace_front(input, *result);
                if (m_layoutCache.size() > kLayoutCacheSize)
                    m_layoutCache.pop_back();
            }
            applyLayout(generation, *result);
        });
}

void GraphScene::applyLayout(quint64 generation, const std::shared_ptr<Expected<LayoutResult>> &result)
{
    if (generation != m_generation)
        return; // a newer request is running
    m_layoutRunning = false;
    if (!result || !result->hasValue()) {
        m_pendingSelection = {};
        emit layoutFailed(result ? QString::fromStdString(result->error().message) : tr("layout returned nothing"));
        return;
    }
    const LayoutResult &layout = result->value();
    const bool requestedSelection = m_pendingSelection.isValid();
    const NodeId keepNode = requestedSelection ? m_pendingSelection : m_selectedNode;
    const int keepGroup = m_selectedGroup;
    m_pendingSelection = {};

    disconnect(this, &QGraphicsScene::selectionChanged, this, &GraphScene::onSelectionChanged);
    const bool hadSelection = !selectedItems().isEmpty();
    removeAllItems();
    m_shown = std::move(m_pending);
    m_pending = CollapsedGraph();
    m_shownLabels = std::move(m_pendingLabels);
    m_pendingLabels.clear();
    addPlacedItems(layout);
    addScopeFrames();
    setSceneRect(itemsBoundingRect()
                     .adjusted(-kSceneMargin, -kSceneMargin, kSceneMargin, kSceneMargin)
                     .united(QRectF(-kSceneMargin, -kSceneMargin, layout.width + 2 * kSceneMargin,
                                    layout.height + 2 * kSceneMargin)));

    // Restore the selection where the selected thing is still visible.
    NodeId newNode;
    int newGroup = -1;
    if (NodeItem *n = nodeItem(keepNode)) {
        n->setSelected(true);
        newNode = keepNode;
    } else if (GroupItem *g = groupItem(keepGroup)) {
        g->setSelected(true);
        newGroup = keepGroup;
    } else if (hadSelection) {
        emit selectionChanged(); // the selection went with the old items
    }
    connect(this, &QGraphicsScene::selectionChanged, this, &GraphScene::onSelectionChanged);

    m_focusRect = requestedSelection && newNode.isValid()
                      ? nodeItem(newNode)->sceneBoundingRect() // selected through selectNode()
                  : m_focusScope ? scopeRect(*m_focusScope)
                                 : QRectF();
    m_focusScope.reset();

    const bool nodeChanged = newNode != m_selectedNode;
    const bool groupChanged = newGroup != m_selectedGroup;
    m_selectedNode = newNode;
    m_selectedGroup = newGroup;
    updateEdgeHighlights();
    applyMarks();
    const bool first = m_firstLayout;
    m_firstLayout = false;
    emit layoutFinished(first);
    if (nodeChanged)
        emit selectedNodeChanged(m_selectedNode);
    if (groupChanged)
        emit selectedGroupChanged(m_selectedGroup);
}

void GraphScene::removeAllItems()
{
    // Deleting a selected item makes QGraphicsScene emit selectionChanged from
    // inside clear(). A listener (the review's node filter) then asked for
    // rectOf() the selection and got items already deleted: a crash after
    // Apply All or Undo. So the maps are emptied first (a lookup during the
    // teardown finds nothing) and nobody hears the teardown; applyLayout()
    // announces the final selection once the new items exist.
    m_nodeItems.clear();
    m_groupItems.clear();
    m_edgeItems.clear();
    m_frameItems.clear();
    m_outline = nullptr; // clear() deletes it
    m_frames.clear();
    const QSignalBlocker quietTeardown(this);
    clear();
}

void GraphScene::addPlacedItems(const LayoutResult &layout)
{
    const Graph &graph = m_document->model().graph();
    for (const PlacedNode &placed : layout.nodes) {
        const QSizeF size(placed.width, placed.height);
        QGraphicsItem *item = nullptr;
        if (CollapsedGraph::isGroupKey(placed.key)) {
            const int scope = CollapsedGraph::scopeOfKey(placed.key);
            const GroupItem::Label &label = m_shownLabels.at(scope);
            auto *group = new GroupItem(scope, label, size);
            m_groupItems.insert(scope, group);
            item = group;
        } else {
            const NodeId id = CollapsedGraph::nodeOfKey(placed.key);
            const Node *node = graph.node(id);
            if (!node)
                continue;
            auto *nodeItem = new NodeItem(id, NodeItem::labelFor(graph, id), opFamily(*node), size);
            m_nodeItems.insert(id.value, nodeItem);
            item = nodeItem;
        }
        item->setPos(placed.x, placed.y);
        addItem(item);
    }
    for (size_t i = 0; i < layout.edges.size(); ++i) {
        const RoutedEdge &routed = layout.edges[i];
        std::vector<QPointF> points;
        points.reserve(routed.spline.size());
        for (const Point &p : routed.spline)
            points.emplace_back(p.x, p.y);
        std::optional<QPointF> tip;
        if (routed.arrowEnd)
            tip = QPointF(routed.arrowEnd->x, routed.arrowEnd->y);
        const size_t multiplicity = i < m_shown.edges().size() ? m_shown.edges()[i].multiplicity : 1;
        auto *edge = new EdgeItem(routed.from, routed.to, points, tip, multiplicity);
        m_edgeItems.append(edge);
        addItem(edge);
    }
}

void GraphScene::addScopeFrames()
{
    m_frameItems.clear();
    const auto frames = ScopeFrameItem::build(
        *m_tree, m_shown,
        [this](uint64_t key) {
            if (CollapsedGraph::isGroupKey(key)) {
                GroupItem *g = groupItem(CollapsedGraph::scopeOfKey(key));
                return g ? g->sceneBoundingRect() : QRectF();
            }
            NodeItem *n = nodeItem(CollapsedGraph::nodeOfKey(key));
            return n ? n->sceneBoundingRect() : QRectF();
        },
        [this](int scope) { return isExpanded(scope); });
    for (ScopeFrameItem *frame : frames) {
        addItem(frame);
        m_frameItems.append(frame);
    }
}

QRectF GraphScene::scopeRect(int scope) const
{
    QRectF rect;
    for (auto it = m_nodeItems.cbegin(); it != m_nodeItems.cend(); ++it)
        if (m_tree->contains(scope, m_tree->scopeOf(NodeId{it.key()})))
            rect |= it.value()->sceneBoundingRect();
    for (auto it = m_groupItems.cbegin(); it != m_groupItems.cend(); ++it)
        if (m_tree->contains(scope, it.key()) || m_tree->contains(it.key(), scope))
            rect |= it.value()->sceneBoundingRect();
    for (ScopeFrameItem *frame : std::as_const(m_frameItems))
        if (frame->scope() == scope)
            rect |= frame->frameRect();
    return rect;
}

} // namespace fusebox
