#pragma once

#include "CollapsedGraph.h"
#include "GroupItem.h"
#include "ItemMark.h"
#include "ScopeTree.h"
#include "core/layout/LayoutTypes.h"
#include "core/ir/Expected.h"

#include <QGraphicsScene>
#include <QHash>
#include <QMenu>

#include <list>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

namespace fusebox {

class Document;
class EdgeItem;
class NodeItem;

class ScopeFrameItem;

/// The drawing of the document's graph, keyed by ids: a NodeItem per visible
/// node, a GroupItem per collapsed scope, an EdgeItem per aggregated edge.
///
/// Collapse rule: when a graph is loaded and would show more than
/// kCollapseThreshold items fully expanded (or dot would face more than
/// kMaxLayoutSize boxes + virtual nodes), it starts with only the top-level
/// scopes as group boxes (while that shows fewer than kMinInitialItems items,
/// the biggest group is opened, as long as the view stays under the
/// limits); otherwise every scope starts expanded. Double-clicking a group
/// expands it; double-clicking the header of an expanded scope's frame, or a
/// node's context menu, collapses it again.
///
/// Layout runs on a worker thread (Graphviz dot via layoutWithDot); item sizes
/// are measured before, and the items are rebuilt when it finishes. A request
/// made while one runs supersedes it. The last kLayoutCacheSize layouts are
/// cached by their input, so returning to a view seen before is immediate.
class GraphScene final : public QGraphicsScene {
    Q_OBJECT

public:
    /// Start collapsed above this many items...
    static constexpr size_t kCollapseThreshold = 800;
    /// ...or when dot would face more than this many boxes + virtual nodes
    /// (estimatedLayoutSize(); about a second here), as densely connected
    /// graphs (DenseNet) do long before they have many items.
    static constexpr double kMaxLayoutSize = 6000;
    /// A collapsed start opens its biggest groups until it shows this many items.
    static constexpr size_t kMinInitialItems = 8;
    /// Expand All stops before the view would exceed this many items or this
    /// layout size (a few seconds of dot).
    static constexpr size_t kMaxExpandedItems = 1500;
    static constexpr double kMaxExpandedLayoutSize = 12000;
    /// Layouts kept for views seen before (by their exact layout input).
    static constexpr size_t kLayoutCacheSize = 8;

    explicit GraphScene(const Document *document, QObject *parent = nullptr);
    ~GraphScene() override;

    const Document *document() const { return m_document; }
    const ScopeTree &scopeTree() const { return *m_tree; }
    /// What the items show (the last finished layout).
    const CollapsedGraph &visibleGraph() const { return m_shown; }
    bool isLayoutRunning() const { return m_layoutRunning; }
    /// Layouts served from the cache since the graph was loaded.
    int layoutCacheHits() const { return m_layoutCacheHits; }
    /// True when the current graph was opened collapsed by the collapse rule.
    bool startedCollapsed() const { return m_startedCollapsed; }
    /// Why: the item count and layout size of the fully expanded graph.
    size_t fullItemCount() const { return m_fullItemCount; }
    double fullLayoutSize() const { return m_fullLayoutSize; }
    bool showConstants() const { return m_options.showConstants; }
    const std::set<std::string> &expandedScopes() const { return m_expanded; }
    bool isExpanded(int scope) const;

    void setShowConstants(bool show);
    void expandScope(int scope);
    void collapseScope(int scope);
    /// Expands scopes breadth-first up to kMaxExpandedItems items; false when it stopped short.
    bool expandAll();
    void collapseAll();

    /// Selects the node, expanding the scopes that hide it (then after layout).
    void selectNode(NodeId id);
    NodeId selectedNode() const;
    /// The selected group's scope, or -1.
    int selectedGroup() const;

    /// The focus view: shows only the nodes within `hops` edges (either
    /// direction) of `centre`, with the scopes holding them expanded. Kept
    /// until showWholeGraph() or another graph is loaded. (Not setFocus()/clearFocus():
    /// those would hide QGraphicsScene's keyboard-focus functions.)
    void showNeighbourhood(const std::vector<NodeId> &centre, int hops);
    void showWholeGraph();
    bool isFocused() const { return bool(m_options.onlyNodes); }

    /// Every selected node (Ctrl+click or rubber band selects several).
    std::vector<NodeId> selectedNodes() const;
    /// Expands the scopes hiding these nodes (then lays out again).
    void revealNodes(const std::vector<NodeId> &nodes);
    /// The scene rect of the items that show these nodes (groups for hidden ones).
    QRectF rectOf(const std::vector<NodeId> &nodes) const;

    /// Rings around nodes, keyed by NodeId value: candidate matches, the
    /// selected match, why-not checks. A node hidden in a collapsed scope
    /// lends its ring to the group that shows it. Kept across layouts. The
    /// items are updated from the event loop, once for all the overlay
    /// setters called together.
    void setMarks(QHash<uint32_t, ItemMark> marks);
    const QHash<uint32_t, ItemMark> &marks() const { return m_marks; }
    /// A dashed frame around these nodes' items with a caption (the selected
    /// match); empty nodes clear it. Kept across layouts.
    void setOutline(const std::vector<NodeId> &nodes, const QColor &color, const QString &caption);
    /// The frame's rect (empty when none).
    QRectF outlineRect() const;
    /// A light dotted frame around each group of nodes (every vertical
    /// candidate match, in its pattern's colour); at most kMaxGroupFrames.
    struct GroupFrame {
        std::vector<NodeId> nodes;
        QColor color;
    };
    static constexpr size_t kMaxGroupFrames = 400;
    void setGroupFrames(std::vector<GroupFrame> frames);
    int groupFrameCount() const { return int(m_frames.size()); }
    /// True while overlay changes wait for the event loop to reach the items.
    bool hasPendingOverlays() const { return m_marksScheduled; }

    NodeItem *nodeItem(NodeId id) const { return m_nodeItems.value(id.value); }
    GroupItem *groupItem(int scope) const { return m_groupItems.value(scope); }
    const QList<EdgeItem *> &edgeItems() const { return m_edgeItems; }
    /// Frames around expanded scopes (see ScopeFrameItem::build).
    const QList<ScopeFrameItem *> &frameItems() const { return m_frameItems; }
    int nodeItemCount() const { return int(m_nodeItems.size()); }
    int groupItemCount() const { return int(m_groupItems.size()); }
    /// Where the last expand/collapse/select happened, for the view to look at; empty otherwise.
    QRectF focusRect() const { return m_focusRect; }
    /// The items of the first layout rank(s): the top of the graph.
    QRectF topRect(qreal height) const;

signals:
    void layoutStarted(int itemCount);
    /// Items were rebuilt from a finished layout. firstForGraph: the first
    /// layout since a graph was loaded.
    void layoutFinished(bool firstForGraph);
    /// What is shown changed wholesale (Collapse All, Expand All, Focus, the
    /// whole graph again), before the relayout: the view fits the next layout.
    void wholeLayoutChanging();
    void layoutFailed(const QString &message);
    /// The selected node changed (invalid id when none).
    void selectedNodeChanged(fusebox::NodeId id);
    /// A group was selected (-1 when none).
    void selectedGroupChanged(int scope);
    /// Expand All stopped short of the whole graph (the item and layout
    /// limits): `opened` groups were opened, none when it could open nothing.
    /// Whoever asked for it (the menu, the context menu) hears it here.
    void expandAllLimited(int opened);
    /// A node's context menu is about to open: add actions to `menu` (direct connection).
    void nodeContextMenu(fusebox::NodeId id, QMenu *menu);

protected:
    void mouseDoubleClickEvent(QGraphicsSceneMouseEvent *event) override;
    void contextMenuEvent(QGraphicsSceneContextMenuEvent *event) override;

private:
    void onGraphLoaded();
    void onGraphRewritten();
    void applyMarks();
    void scheduleMarks();
    /// Lays out what m_expanded and m_options show, in two background tasks
    /// of the document's TaskService: the first reads the graph (what is
    /// shown, its labels and box sizes: kLayoutReadTask, which every change
    /// of the graph waits for), the second runs dot on what the first made;
    /// applyLayout() then builds the items on the GUI thread.
    void relayout(std::optional<int> focusScope = std::nullopt);
    /// What a new graph's first view opens, and why (startedCollapsed()).
    struct InitialView {
        std::set<std::string> expanded;
        size_t fullItemCount = 0;
        double fullLayoutSize = 0;
        bool startedCollapsed = false;
    };
    static InitialView planInitialView(const Graph &graph, const ScopeTree &tree,
                                       const CollapsedGraph::Options &options);
    struct PreparedLayout;
    static PreparedLayout prepareLayout(const Graph &graph, const ScopeTree &tree,
                                        const std::set<std::string> &expanded, const CollapsedGraph::Options &options);
    void layOut(quint64 generation, PreparedLayout prepared);
    /// Either of the layout's tasks was cancelled (Esc): the old drawing stays.
    void layoutCancelled();
    /// Replaces the items with the layout's (the newest request's only) and
    /// restores the selection where the selected thing is still shown.
    void applyLayout(quint64 generation, const std::shared_ptr<Expected<LayoutResult>> &result);
    /// Deletes every item, telling nobody (applyLayout() announces the selection).
    void removeAllItems();
    /// The nodes, groups and edges of a layout, at their places.
    void addPlacedItems(const LayoutResult &layout);
    /// The frames of the expanded scopes around what is shown of them.
    void addScopeFrames();
    /// What scope `scope` occupies on the scene: its nodes, groups and frame.
    QRectF scopeRect(int scope) const;
    void onSelectionChanged();
    void updateEdgeHighlights();
    QString groupTitle(int scope) const;

    const Document *m_document;
    /// The document's (DocumentGraph::sharedScopeTree()), shared: a layout task holds it
    /// while the GUI thread may take a new one (copying a 100k-node graph's
    /// tree took 25 ms of the GUI thread per layout).
    std::shared_ptr<const ScopeTree> m_tree = std::make_shared<const ScopeTree>();
    std::set<std::string> m_expanded;
    CollapsedGraph::Options m_options;
    CollapsedGraph m_pending;
    CollapsedGraph m_shown;
    std::unordered_map<int, GroupItem::Label> m_pendingLabels;
    std::unordered_map<int, GroupItem::Label> m_shownLabels;
    QHash<uint32_t, NodeItem *> m_nodeItems;
    QHash<int, GroupItem *> m_groupItems;
    QList<EdgeItem *> m_edgeItems;
    QList<ScopeFrameItem *> m_frameItems;
    quint64 m_generation = 0;
    bool m_layoutRunning = false;
    bool m_firstLayout = false;
    bool m_startedCollapsed = false;
    /// The graph is new: the next layout plans the first view (planInitialView).
    bool m_planPending = false;
    size_t m_fullItemCount = 0;
    double m_fullLayoutSize = 0;
    std::optional<int> m_focusScope;
    NodeId m_pendingSelection;
    QRectF m_focusRect;
    NodeId m_selectedNode;
    int m_selectedGroup = -1;
    QHash<uint32_t, ItemMark> m_marks;
    std::vector<NodeId> m_outlineNodes;
    QColor m_outlineColor;
    QString m_outlineCaption;
    QGraphicsItem *m_outline = nullptr;
    std::vector<GroupFrame> m_groupFrames;
    QList<QGraphicsItem *> m_frames;
    bool m_marksScheduled = false;
    std::list<std::pair<LayoutInput, std::shared_ptr<Expected<LayoutResult>>>> m_layoutCache;
    int m_layoutCacheHits = 0;
};

} // namespace fusebox
