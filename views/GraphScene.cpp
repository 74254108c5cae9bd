#include "GraphScene.h"

#include "Document.h"
#include "EdgeItem.h"
#include "GroupItem.h"
#include "NodeItem.h"
#include "ScopeFrameItem.h"
#include "SceneStyle.h"
#include "TaskService.h"
#include "core/ir/LiftedParameters.h"
#include "core/layout/DotLayout.h"

#include <QGraphicsSceneContextMenuEvent>
#include <QGraphicsSceneMouseEvent>
#include <QMenu>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QSignalBlocker>

#include <algorithm>
#include <deque>
#include <map>

namespace fusebox {

namespace {
constexpr qreal kSceneMargin = 40;

// What dot would really lay out for this view (boxes + virtual nodes of long edges).
double layoutSize(const CollapsedGraph &view)
{
    LayoutInput input;
    input.nodes.reserve(view.items().size());
    for (const CollapsedGraph::Item &item : view.items())
        input.nodes.push_back(LayoutNode{item.key, 1, 1});
    for (const CollapsedGraph::Edge &e : view.edges())
        input.edges.push_back(LayoutEdge{e.from, e.to});
    return estimatedLayoutSize(input);
}

} // namespace

GraphScene::GraphScene(const Document *document, QObject *parent)
    : QGraphicsScene(parent)
    , m_document(document)
{
    m_options.showConstants = false; // weights clutter model graphs; the View menu shows them
    setBackgroundBrush(SceneStyle::background());
    setItemIndexMethod(QGraphicsScene::BspTreeIndex);
    connect(&m_document->model(), &DocumentGraph::graphLoaded, this, &GraphScene::onGraphLoaded);
    connect(&m_document->model(), &DocumentGraph::graphRewritten, this, &GraphScene::onGraphRewritten);
    connect(this, &QGraphicsScene::selectionChanged, this, &GraphScene::onSelectionChanged);
    if (m_document->model().hasGraph())
        onGraphLoaded();
}

GraphScene::~GraphScene()
{
    // Items hold no pointers back into the scene's maps; drop the maps first
    // so selectionChanged during teardown finds nothing stale.
    m_nodeItems.clear();
    m_groupItems.clear();
    m_edgeItems.clear();
    disconnect(this, &QGraphicsScene::selectionChanged, this, &GraphScene::onSelectionChanged);
    // ~QGraphicsScene deletes the items; listeners must not hear it (see applyLayout).
    blockSignals(true);
}

bool GraphScene::isExpanded(int scope) const
{
    if (scope == m_tree->root())
        return true;
    if (scope < 0 || size_t(scope) >= m_tree->size())
        return false;
    return m_expanded.count(m_tree->scope(scope).path) != 0;
}

void GraphScene::onGraphRewritten()
{
    // Scope ids may shift; expansions are kept by path, the selection by id.
    std::set<std::string> before;
    for (size_t i = 1; i < m_tree->size(); ++i)
        before.insert(m_tree->scope(int(i)).path);
    m_tree = m_document->model().sharedScopeTree();
    // A scope the rewrite made (new nodes widened a level past maxChildren,
    // so an artificial "[200:220]" group appeared) was never collapsed by
    // the user: while every scope is open (the graph is seen whole), it opens
    // too. A graph shown collapsed (by the user or by the size limits) keeps
    // new groups closed, as its other groups are.
    const bool allOpen = std::all_of(before.begin(), before.end(),
                                     [this](const std::string &path) { return m_expanded.count(path) != 0; });
    if (allOpen)
        for (size_t i = 1; i < m_tree->size(); ++i)
            if (!before.count(m_tree->scope(int(i)).path))
                m_expanded.insert(m_tree->scope(int(i)).path);
    m_options.onlyNodes.reset(); // the focus set names nodes of the old graph
    relayout();
}

void GraphScene::onGraphLoaded()
{
    m_marks.clear();
    m_outlineNodes.clear();
    m_groupFrames.clear();
    m_options.onlyNodes.reset();
    m_layoutCache.clear();
    m_layoutCacheHits = 0;
    m_tree = m_document->model().sharedScopeTree();
    m_expanded.clear();
    m_pendingSelection = {};
    m_focusScope.reset();
    if (m_selectedNode.isValid() || m_selectedGroup >= 0) {
        m_selectedNode = {};
        m_selectedGroup = -1;
        emit selectedNodeChanged({});
    }

    // What the first view opens (planInitialView) is decided with the
    // layout, off the GUI thread: on a 100k-node graph it collapses the
    // graph several times.
    m_planPending = true;
    m_firstLayout = true;
    relayout();
}

GraphScene::InitialView GraphScene::planInitialView(const Graph &graph, const ScopeTree &tree,
                                                    const CollapsedGraph::Options &options)
{
    InitialView plan;
    std::set<std::string> all;
    for (size_t s = 1; s < tree.size(); ++s)
        all.insert(tree.scope(int(s)).path);
    plan.fullItemCount = CollapsedGraph::fullyExpandedItemCount(graph, options);
    plan.fullLayoutSize = layoutSize(CollapsedGraph(graph, tree, all, options));
    plan.startedCollapsed = plan.fullItemCount > kCollapseThreshold || plan.fullLayoutSize > kMaxLayoutSize;
    if (!plan.startedCollapsed) {
        plan.expanded = std::move(all);
        return plan;
    }
    // Top-level scopes as groups. A model wrapped in a few big scopes
    // ("model", "encoder.layers") would show a handful of boxes: open the
    // biggest group while the view has fewer than kMinInitialItems items
    // and opening it keeps the view within both limits.
    for (;;) {
        CollapsedGraph view(graph, tree, plan.expanded, options);
        if (view.items().size() >= kMinInitialItems)
            break;
        const CollapsedGraph::Item *biggest = nullptr;
        for (const CollapsedGraph::Item &item : view.items())
            if (item.isGroup() && (!biggest || item.nodeCount > biggest->nodeCount))
                biggest = &item;
        if (!biggest)
            break;
        const ScopeTree::Scope &s = tree.scope(biggest->scope);
        if (view.items().size() - 1 + s.nodes.size() + s.scopes.size() > kCollapseThreshold)
            break;
        plan.expanded.insert(s.path);
        if (layoutSize(CollapsedGraph(graph, tree, plan.expanded, options)) > kMaxLayoutSize) {
            plan.expanded.erase(s.path);
            break;
        }
    }
    return plan;
}

void GraphScene::setShowConstants(bool show)
{
    if (m_options.showConstants == show)
        return;
    m_options.showConstants = show;
    if (m_document->model().hasGraph())
        relayout();
}

void GraphScene::expandScope(int scope)
{
    if (scope <= 0 || size_t(scope) >= m_tree->size())
        return;
    for (int s : m_tree->chain(scope))
        m_expanded.insert(m_tree->scope(s).path);
    relayout(scope);
}

void GraphScene::collapseScope(int scope)
{
    if (scope <= 0 || size_t(scope) >= m_tree->size())
        return;
    m_expanded.erase(m_tree->scope(scope).path);
    relayout(scope);
}

bool GraphScene::expandAll()
{
    // Breadth-first, so a huge graph opens evenly; each expansion replaces one
    // group by at most its children (nodes + child scopes).
    emit wholeLayoutChanging();
    CollapsedGraph current(m_document->model().graph(), *m_tree, m_expanded, m_options);
    size_t items = current.items().size();
    bool complete = true;
    int opened = 0;
    std::deque<int> queue(m_tree->scope(m_tree->root()).scopes.begin(), m_tree->scope(m_tree->root()).scopes.end());
    while (!queue.empty()) {
        int s = queue.front();
        queue.pop_front();
        const ScopeTree::Scope &scope = m_tree->scope(s);
        if (!m_expanded.count(scope.path)) {
            size_t grown = items - 1 + scope.nodes.size() + scope.scopes.size();
            if (grown > kMaxExpandedItems) {
                complete = false;
                continue;
            }
            m_expanded.insert(scope.path);
            // Dense connections (DenseNet) make dot slow long before the item
            // count is large: check what dot would really face.
            if (layoutSize(CollapsedGraph(m_document->model().graph(), *m_tree, m_expanded, m_options))
                > kMaxExpandedLayoutSize) {
                m_expanded.erase(scope.path);
                complete = false;
                continue;
            }
            items = grown;
            ++opened;
        }
        queue.insert(queue.end(), scope.scopes.begin(), scope.scopes.end());
    }
    relayout();
    if (!complete)
        emit expandAllLimited(opened);
    return complete;
}

void GraphScene::collapseAll()
{
    emit wholeLayoutChanging();
    m_expanded.clear();
    relayout();
}

void GraphScene::selectNode(NodeId id)
{
    const Graph &graph = m_document->model().graph();
    if (!graph.contains(id))
        return;
    if (NodeItem *item = nodeItem(id)) {
        clearSelection();
        item->setSelected(true);
        m_focusRect = item->sceneBoundingRect();
        return;
    }
    const Node &node = *graph.node(id);
    if (isWeight(node) && !m_options.showConstants) {
        // Hidden by the filter: tell the inspector, leave the drawing alone.
        clearSelection();
        m_selectedNode = id;
        emit selectedNodeChanged(id);
        return;
    }
    for (int s : m_tree->chain(m_tree->scopeOf(id)))
        m_expanded.insert(m_tree->scope(s).path);
    m_pendingSelection = id;
    relayout();
}

NodeId GraphScene::selectedNode() const
{
    return m_selectedNode;
}

int GraphScene::selectedGroup() const
{
    return m_selectedGroup;
}

QString GraphScene::groupTitle(int scope) const
{
    return GroupItem::titleFor(*m_tree, scope);
}

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
    const Graph &graph = m_document->model().graph();
    const bool requestedSelection = m_pendingSelection.isValid();
    const NodeId keepNode = requestedSelection ? m_pendingSelection : m_selectedNode;
    const int keepGroup = m_selectedGroup;
    m_pendingSelection = {};

    disconnect(this, &QGraphicsScene::selectionChanged, this, &GraphScene::onSelectionChanged);
    const bool hadSelection = !selectedItems().isEmpty();
    // Deleting a selected item makes QGraphicsScene emit selectionChanged from
    // inside clear(). A listener (the review's node filter) then asked for
    // rectOf() the selection and got items already deleted: a crash after
    // Apply All or Undo. So the maps are emptied first (a lookup during the
    // teardown finds nothing) and nobody hears the teardown; the final
    // selection is announced once the new items exist.
    m_nodeItems.clear();
    m_groupItems.clear();
    m_edgeItems.clear();
    m_frameItems.clear();
    m_outline = nullptr; // clear() deletes it
    m_frames.clear();
    {
        const QSignalBlocker quietTeardown(this);
        clear();
    }
    m_shown = std::move(m_pending);
    m_pending = CollapsedGraph();

    m_shownLabels = std::move(m_pendingLabels);
    m_pendingLabels.clear();

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

    m_focusRect = {};
    if (requestedSelection && newNode.isValid())
        m_focusRect = nodeItem(newNode)->sceneBoundingRect(); // selected through selectNode()
    else if (m_focusScope) {
        const int scope = *m_focusScope;
        for (auto it = m_nodeItems.cbegin(); it != m_nodeItems.cend(); ++it)
            if (m_tree->contains(scope, m_tree->scopeOf(NodeId{it.key()})))
                m_focusRect |= it.value()->sceneBoundingRect();
        for (auto it = m_groupItems.cbegin(); it != m_groupItems.cend(); ++it)
            if (m_tree->contains(scope, it.key()) || m_tree->contains(it.key(), scope))
                m_focusRect |= it.value()->sceneBoundingRect();
        for (ScopeFrameItem *frame : std::as_const(m_frameItems))
            if (frame->scope() == scope)
                m_focusRect |= frame->frameRect();
    }
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

void GraphScene::onSelectionChanged()
{
    NodeId node;
    int group = -1;
    for (QGraphicsItem *item : selectedItems()) {
        if (auto *n = qgraphicsitem_cast<NodeItem *>(item)) {
            node = n->nodeId();
            break;
        }
        if (auto *g = qgraphicsitem_cast<GroupItem *>(item)) {
            group = g->scope();
            break;
        }
    }
    const bool nodeChanged = node != m_selectedNode;
    const bool groupChanged = group != m_selectedGroup;
    m_selectedNode = node;
    m_selectedGroup = group;
    updateEdgeHighlights();
    if (nodeChanged)
        emit selectedNodeChanged(node);
    if (groupChanged)
        emit selectedGroupChanged(group);
}

void GraphScene::updateEdgeHighlights()
{
    std::optional<uint64_t> key;
    if (m_selectedNode.isValid() && nodeItem(m_selectedNode))
        key = CollapsedGraph::nodeKey(m_selectedNode);
    else if (m_selectedGroup >= 0)
        key = CollapsedGraph::groupKey(m_selectedGroup);
    for (EdgeItem *edge : m_edgeItems)
        edge->setHighlighted(key && (edge->from() == *key || edge->to() == *key));
}

QRectF GraphScene::topRect(qreal height) const
{
    QRectF items = itemsBoundingRect();
    QRectF top;
    for (QGraphicsItem *item : this->items()) {
        if (item->type() != NodeItem::Type && item->type() != GroupItem::Type)
            continue;
        QRectF r = item->sceneBoundingRect();
        if (r.top() <= items.top() + height)
            top |= r;
    }
    return top;
}

void GraphScene::mouseDoubleClickEvent(QGraphicsSceneMouseEvent *event)
{
    if (event->button() == Qt::LeftButton) {
        for (QGraphicsItem *item : items(event->scenePos())) {
            if (auto *group = qgraphicsitem_cast<GroupItem *>(item)) {
                expandScope(group->scope());
                event->accept();
                return;
            }
            if (qgraphicsitem_cast<NodeItem *>(item))
                break;
        }
        // On a frame's header (the innermost one under the cursor): collapse.
        for (ScopeFrameItem *frame : std::as_const(m_frameItems)) {
            if (frame->headerRect().contains(event->scenePos())) {
                const int scope = frame->scope();
                collapseScope(scope);
                event->accept();
                return;
            }
        }
    }
    QGraphicsScene::mouseDoubleClickEvent(event);
}

void GraphScene::contextMenuEvent(QGraphicsSceneContextMenuEvent *event)
{
    QMenu menu;
    for (QGraphicsItem *item : items(event->scenePos())) {
        if (auto *group = qgraphicsitem_cast<GroupItem *>(item)) {
            const int scope = group->scope();
            menu.addAction(tr("Expand %1").arg(groupTitle(scope)), this, [this, scope] { expandScope(scope); });
            const int parent = m_tree->scope(scope).parent;
            if (parent > 0)
                menu.addAction(tr("Collapse %1").arg(groupTitle(parent)), this,
                               [this, parent] { collapseScope(parent); });
            break;
        }
        if (auto *node = qgraphicsitem_cast<NodeItem *>(item)) {
            std::vector<int> chain = m_tree->chain(m_tree->scopeOf(node->nodeId()));
            emit nodeContextMenu(node->nodeId(), &menu);
            if (!menu.isEmpty() && !chain.empty())
                menu.addSeparator();
            for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
                const int scope = *it;
                menu.addAction(tr("Collapse %1").arg(groupTitle(scope)), this, [this, scope] { collapseScope(scope); });
            }
            break;
        }
    }
    if (!menu.isEmpty())
        menu.addSeparator();
    menu.addAction(tr("Expand All"), this, [this] { expandAll(); });
    menu.addAction(tr("Collapse All"), this, [this] { collapseAll(); });
    menu.exec(event->screenPos());
    event->accept();
}

} // namespace fusebox
