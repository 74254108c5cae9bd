#pragma once
// The one path by which a match is applied: reviewer rejections, the edit
// group, the rewriter, verification with undo, counters, the listener.
// Shared by GreedyDriver (Fusebox's benefit-ordered search), InductorSchedule
// (Inductor's pass-by-pass order) and applyOneMatch() (GreedyDriver.h: the
// IDE's single applies). Internal to core/rewrite.

#include "GreedyDriver.h"
#include "PatternRewriter.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace fusebox {

/// Marks the nodes a rewrite inserted, erased or modified, and keeps the
/// nodes whose neighbourhood changed (the seeds of the next round's search).
class TouchTracker final : public RewriteListener {
public:
    TouchTracker();
    ~TouchTracker() override;
    TouchTracker(const TouchTracker &) = delete;
    TouchTracker &operator=(const TouchTracker &) = delete;

    /// Touched nodes and the inputs they had before the change, in mark order.
    std::vector<NodeId> seeds;
    /// Nodes inserted and erased, net per rewrite: a node that one rewrite
    /// inserts and erases again (a temporary) counts in neither, so that the
    /// counts say what the rewrite did to the graph, as netNodeChange() reads
    /// them from its edit group.
    size_t inserted = 0, erased = 0;

    /// Starts one rewrite's net counts (RewriteApplier::apply calls it).
    void beginRewrite();

    void mark(NodeId id);
    void seed(NodeId id) { seeds.push_back(id); }
    bool isTouched(NodeId id) const;
    void nodeInserted(const Graph &, NodeId id) override;
    void nodeErasing(const Graph &graph, NodeId id) override;
    void nodeModifying(const Graph &graph, NodeId id) override;
    void nodeModified(const Graph &, NodeId id) override { mark(id); }

private:
    /// The marked ids: a hash set, not a bitmap over the graph's ids, since
    /// a tracker often lives for one rewrite (one fused group) and touches a
    /// few dozen nodes of a graph of 100k (RewriteApplier.cpp).
    struct Marks;
    std::unique_ptr<Marks> m_marks;
};

/// Rewrites `match` with its pattern, whichever the family: a vertical
/// pattern's rewrite(), a horizontal one's fuse() of the match's nodes.
LogicalResult rewriteMatch(const Pattern &pattern, PatternRewriter &rewriter, const Match &match);

/// Applies matches to one graph for one driver run, filling `result`.
class RewriteApplier {
public:
    /// `edits` may be null when nobody needs the edits (no log, no
    /// verification, no listener).
    RewriteApplier(Graph &graph, const PatternSet &patterns, const DriverOptions &options, EditLog *edits,
                   DriverListener *listener, DriverResult &result);

    /// Applies `candidate` (found on this graph as it is now) unless a reviewer
    /// rejected it or it was undone before. Returns true when the graph
    /// changed and stayed changed: the pattern reported success, a horizontal
    /// fusion closed no cycle (one that does is undone and counted in
    /// closedCycle), and verification passed.
    bool apply(const Match &candidate, TouchTracker &tracker);

    /// Rewrites leave metadata as Inductor 2.6 does
    /// (PatternRewriter::setInductorMetadata); off by default.
    void setInductorMetadata(bool on) { m_inductorMetadata = on; }

    /// Whether each horizontal fusion is checked for a cycle and undone when
    /// it closes one (on by default): the one cycle check of every driver.
    /// InductorSchedule turns it off while it fuses a whole pass live, as 2.6
    /// does, and checks the order once after; should that find a cycle, it
    /// fuses the pass again group by group with the check on.
    void setUndoCycles(bool on) { m_undoCycles = on; }

    /// Labels each rewrite "pattern@anchor" (the IDE's single applies) rather
    /// than "pattern#N" (a driver run's); off by default.
    void setAnchorLabels(bool on) { m_anchorLabels = on; }
    /// Restores topological order after each rewrite that stays (always when
    /// verifying: the verifier executes the graph); a rewrite after which the
    /// order cannot be restored made a cycle and is undone like a fusion that
    /// closes one. Off by default: the drivers sort once a round or a pass.
    void setRestoreOrder(bool on) { m_restoreOrder = on; }

    /// Who hears the matches and rewrites from now on (may be null).
    void setListener(DriverListener *listener) { m_listener = listener; }
    /// Where the edits go from now on; null under the constructor's terms.
    void setEdits(EditLog *edits) { m_edits = edits; }

    /// What the applier remembers between matches (labels given, matches
    /// rejected or failed), so that a driver can take back a stretch of
    /// rewrites together with the edits and retry it.
    struct Memory {
        std::map<std::string, size_t> labelCounts;
        std::set<std::string> rejectedSeen, blocked;
    };
    Memory memory() const { return {m_labelCounts, m_rejectedSeen, m_blocked}; }
    void restore(Memory memory)
    {
        m_labelCounts = std::move(memory.labelCounts);
        m_rejectedSeen = std::move(memory.rejectedSeen);
        m_blocked = std::move(memory.blocked);
    }

private:
    /// One candidate on its way through apply().
    struct Attempt {
        const Match &candidate;
        PatternCounters &counters;
        std::string signature; ///< set when a rejection or verification needs it
        std::string anchorName;
        std::string label;
        size_t insertedBefore = 0, erasedBefore = 0;
    };
    /// The reviewer's gate: false (counted, and heard by the listener) when the
    /// candidate is rejected, or was rejected or undone before.
    bool admit(Attempt &attempt);
    /// After a rewrite that held and closed no cycle: verification (undone on
    /// failure), then the result's counts and the listener.
    bool verifyAndRecord(const Attempt &attempt, const TouchTracker &tracker);

    /// Whether the nodes the rewrite recorded in `group` inserted lie on a
    /// cycle (RewriteApplier.cpp says why a walk up from their outside
    /// inputs decides it).
    bool insertedNodesCloseCycle(const EditGroup &group);

    Graph &m_graph;
    const PatternSet &m_patterns;
    const DriverOptions &m_options;
    EditLog *m_edits;
    /// Keeps a horizontal fusion's edits when m_edits is null, so that one
    /// that closes a cycle can be taken back (not redoable: cheap).
    EditLog m_scratch;
    /// insertedNodesCloseCycle()'s visited marks: m_seen[id] == m_walk when
    /// the current walk saw id (one allocation for the whole run).
    std::vector<uint32_t> m_seen;
    uint32_t m_walk = 0;
    DriverListener *m_listener;
    bool m_inductorMetadata = false;
    bool m_undoCycles = true;
    bool m_anchorLabels = false;
    bool m_restoreOrder = false;
    DriverResult &m_result;
    std::map<std::string, size_t> m_labelCounts;
    // Matches already rejected or failed: reported once, never retried.
    std::set<std::string> m_rejectedSeen, m_blocked;
};

} // namespace fusebox
