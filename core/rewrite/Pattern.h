#pragma once

#include "LogicalResult.h"
#include "MatchTrace.h"
#include "PatternRewriter.h"

#include "core/ir/Graph.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace fusebox {

/// Optimus's two rule families.
enum class PatternFamily {
    Vertical,   ///< a connected subgraph rewritten in place (split -> getitem -> cat)
    Horizontal, ///< mutually independent nodes with equal keys fused into one batched op
};

/// Where Inductor runs the rule: on Torch-level (pre-grad) or ATen-level
/// (post-grad) graphs. Decides which config section names it.
enum class PassStage { PreGrad, PostGrad };

std::string_view toString(PatternFamily family);
std::string_view toString(PassStage stage);

/// An option value, as Inductor's config dictionaries hold them.
using OptionValue = std::variant<bool, int64_t, double>;

/// A pattern's options under Inductor's knob names, with defaults filled in.
class PatternOptions {
public:
    /// Sets (or overrides) an option.
    void set(const std::string &name, OptionValue value) { m_values[name] = value; }
    bool has(const std::string &name) const { return m_values.count(name) != 0; }
    /// The option as an integer (bools and doubles converted); `fallback` when absent.
    int64_t getInt(const std::string &name, int64_t fallback = 0) const;
    bool getBool(const std::string &name, bool fallback = false) const;
    double getDouble(const std::string &name, double fallback = 0) const;
    const std::map<std::string, OptionValue> &values() const { return m_values; }

private:
    std::map<std::string, OptionValue> m_values;
};

/// "5", "true", "0.0001".
std::string toString(const OptionValue &value);

/// A found match: the nodes a rewrite would replace.
struct Match {
    /// The pattern's name ("merge_getitem_cat_pass").
    std::string pattern;
    /// The node the match was found at (vertical), or the group's first member.
    NodeId anchor;
    /// Every node the match covers (vertical: the matched subgraph, anchor
    /// included; horizontal: the group members, in candidate order).
    std::vector<NodeId> nodes;
    /// Horizontal rules: the group's key, in words ("input [8, 16], weight [16, 8], bias").
    std::string key;
    /// The pattern's benefit (the driver applies higher benefits first).
    int benefit = 0;
};

/// A rewrite rule. Subclass VerticalPattern or HorizontalPattern.
///
/// Contract: matching never mutates the graph; rewrite() mutates only through
/// the rewriter, only the nodes of the match and what it creates, and leaves
/// a graph with the same outputs for every input (the numeric verifier checks).
class Pattern {
public:
    virtual ~Pattern() = default;

    virtual PatternFamily family() const = 0;

    /// Inductor's name: "batch_linear", "merge_getitem_cat_pass".
    const std::string &name() const { return m_name; }
    PassStage stage() const { return m_stage; }
    /// Higher is applied first.
    int benefit() const { return m_benefit; }
    /// Op names a match can be anchored at ("aten::cat"); the driver tries the
    /// pattern only at nodes with one of these ops.
    const std::vector<std::string> &rootOps() const { return m_rootOps; }
    /// One sentence: what the rule does.
    const std::string &description() const { return m_description; }
    PatternOptions &options() { return m_options; }
    const PatternOptions &options() const { return m_options; }
    /// When set, the pattern can never apply here and says why (e.g.
    /// group_linear needs fbgemm); the driver skips it and explain reports it.
    const std::string &unavailableReason() const { return m_unavailable; }
    /// The PyTorch 2.6 code this rule follows, as "file function" ("split_cat.py
    /// merge_splits"): what an explanation names as the code that applies the
    /// rule's checks. Empty for custom patterns.
    const std::string &inductorSource() const { return m_inductorSource; }
    void setInductorSource(std::string source) { m_inductorSource = std::move(source); }

    /// True when op is one of rootOps() (overload suffixes ignored).
    bool isRootOp(std::string_view op) const;

    /// Whether the rule gives the answer of an Inductor that has `behaviour`:
    /// one of the named behaviour changes the Inductor profiles list
    /// (patterns/InductorProfile.h, e.g. "batch_detach.method_form"). The
    /// chosen profile sets them (applyInductorProfile); a rule with none gives
    /// the oldest profile's answers. Rules ask by name, so that what differs
    /// between versions stays data in the profiles, not version comparisons.
    bool follows(std::string_view behaviour) const;
    void setBehaviours(std::vector<std::string> behaviours) { m_behaviours = std::move(behaviours); }
    const std::vector<std::string> &behaviours() const { return m_behaviours; }

    /// Inductor 2.14's per-pass `devices` option before grad: Inductor's
    /// schedule runs the pass only on a graph one of whose tensor inputs is
    /// on one of these device types ("cuda", "cpu"); empty: on any graph.
    const std::vector<std::string> &requiredDevices() const { return m_requiredDevices; }
    void setRequiredDevices(std::vector<std::string> devices) { m_requiredDevices = std::move(devices); }

protected:
    Pattern(std::string name, PassStage stage, int benefit, std::vector<std::string> rootOps, std::string description);
    void setUnavailable(std::string reason) { m_unavailable = std::move(reason); }

private:
    std::string m_name;
    PassStage m_stage;
    int m_benefit;
    std::vector<std::string> m_rootOps;
    std::string m_description;
    PatternOptions m_options;
    std::string m_unavailable;
    std::string m_inductorSource;
    std::vector<std::string> m_behaviours;
    std::vector<std::string> m_requiredDevices;
};

/// What Inductor 2.6 does to counters["inductor"] when it makes one rewrite:
/// counters it increments, and counters it assigns (split_cat.py sets
/// scmerge_split_sections_removed with `=`).
struct InductorCounts {
    std::map<std::string, size_t> added;
    std::map<std::string, size_t> assigned;
};

/// A rule rewriting a connected subgraph found from an anchor node.
class VerticalPattern : public Pattern {
public:
    PatternFamily family() const final { return PatternFamily::Vertical; }

    /// Tries to match at `anchor` (a node with a root op), recording every
    /// condition in `trace`. Returns the match, or nullopt after a failed check.
    virtual std::optional<Match> match(const Graph &graph, NodeId anchor, MatchTrace &trace) const = 0;
    /// Rewrites a match that match() just returned on this graph. success()
    /// only when the graph changed; failure() (the graph untouched) when the
    /// match no longer holds.
    virtual LogicalResult rewrite(PatternRewriter &rewriter, const Match &match) const = 0;
    /// The counters Inductor 2.6 moves for this rewrite, asked on the graph
    /// before it; by default the rule's own name, once. Rules whose 2.6
    /// handler credits other names (split_cat_pass's merges count as
    /// unbind_stack_pass and scmerge_*) say so here.
    virtual InductorCounts inductorCounts(const Graph &graph, const Match &match) const;
    /// The counters Inductor 2.6 moves when its pass visits `anchor` and no
    /// rewrite follows: its pattern matched the call and the handler returned
    /// without a change, or re-created the call as it was (normalization_pass
    /// counts pattern_matcher_* for every call it visits, and re-creates,
    /// counting, every unbind and stack). Empty by default.
    virtual InductorCounts inductorCountsWithoutRewrite(const Graph &graph, NodeId anchor) const;

protected:
    using Pattern::Pattern;
};

/// A rule fusing mutually independent nodes that share a key (Inductor's
/// GroupBatchFusionBase). The greedy search (HorizontalSearch) finds groups.
class HorizontalPattern : public Pattern {
public:
    PatternFamily family() const final { return PatternFamily::Horizontal; }

    /// The fusion key of a candidate node, or nullopt (after a failed check)
    /// when the node cannot take part. Nodes with equal keys may be fused.
    virtual std::optional<std::string> key(const Graph &graph, NodeId node, MatchTrace &trace) const = 0;
    /// Fuses a group of mutually independent nodes with equal keys (at least
    /// min_fuse_set_size of them, in candidate order). success() only when the
    /// graph changed; failure() (the graph untouched) when the group no longer
    /// matches (a member gone, its key changed, too few left).
    virtual LogicalResult fuse(PatternRewriter &rewriter, const std::vector<NodeId> &group) const = 0;

protected:
    HorizontalPattern(std::string name, PassStage stage, int benefit, std::vector<std::string> rootOps,
                      std::string description);
};

/// Inductor's graph_search_options defaults (shared/reference/optimus.md).
namespace search_defaults {
inline constexpr int64_t kMinFuseSetSize = 5;
inline constexpr int64_t kMaxFuseSetSize = 300;
inline constexpr int64_t kMaxFuseSearchDepth = 5;
} // namespace search_defaults

} // namespace fusebox
