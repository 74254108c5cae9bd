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
