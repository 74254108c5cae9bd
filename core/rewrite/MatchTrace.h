#pragma once

#include "core/ir/NodeId.h"

#include <concepts>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace fusebox {

/// The nodes a check is about, passed as a view: a braced list (`{a, b}`)
/// or a vector, read only while the check runs (its caller's full
/// expression keeps the list alive). Quiet matching, every check of every
/// match attempt in a schedule, never copies them (a std::vector parameter
/// allocated on each one); explaining copies them into the Check.
class CheckNodes {
public:
    CheckNodes() = default;
    // GCC warns that keeping begin() does not extend the list's life: it
    // need not, a CheckNodes is a parameter and dies with the full expression
    // that built the list.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
    CheckNodes(std::initializer_list<NodeId> nodes)
        : m_data(nodes.begin())
        , m_size(nodes.size())
    {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
    CheckNodes(const std::vector<NodeId> &nodes)
        : m_data(nodes.data())
        , m_size(nodes.size())
    {}
    std::vector<NodeId> toVector() const
    {
        return std::vector<NodeId>(m_data, m_data + m_size);
    }

private:
    const NodeId *m_data = nullptr;
    size_t m_size = 0;
};

/// One condition a pattern checked while matching at a node.
struct Check {
    /// What was required, in words: "cat dim equals split dim".
    std::string description;
    bool passed = false;
    /// The values seen: "cat dim 0 ≠ split dim 1"; may be empty for a pass.
    std::string actual;
    /// Nodes the check is about (marked on the graph by the IDE).
    std::vector<NodeId> nodes;
    /// Where the check is made: the PyTorch 2.6 code that applies the same
    /// condition ("group_batch_fusion.py is_linear_node_can_be_fused"), or,
    /// when `fuseboxOnly`, why Fusebox alone makes it.
    std::string source;
    /// True for a check Inductor 2.6 does not make: Fusebox refuses where
    /// Inductor would go on (`source` says why).
    bool fuseboxOnly = false;
    /// True when the check could not be decided: a value it reads has no
    /// shape Fusebox knows (Inductor, with every value's example_value, would
    /// decide it). The rule does not fire, but the answer depends on that
    /// shape, not on the rule: "undecided", never "failed".
    bool undecided = false;
};

/// The record of one match attempt (MLIR's notifyMatchFailure idea). A
/// pattern's matcher reports each condition through check(); the same code
/// path serves the driver (Quiet: only counts, nothing is formatted) and the
/// "why not?" explanation (Explain: every check is kept with its values), so
/// an explanation can never drift from what the matcher does.
class MatchTrace {
public:
    enum class Mode { Quiet, Explain };
    explicit MatchTrace(Mode mode = Mode::Quiet)
        : m_mode(mode)
    {}

    bool explaining() const { return m_mode == Mode::Explain; }

    /// While alive, the checks recorded are attributed to `source` (see
    /// Check::source); the previous attribution comes back at its end. The
    /// text must outlive the scope (a literal, or a string the caller keeps).
    /// Quiet matching pays one pointer copy.
    class Source {
    public:
        Source(MatchTrace &trace, std::string_view source, bool fuseboxOnly = false)
            : m_trace(trace)
            , m_previous(trace.m_source)
            , m_previousFuseboxOnly(trace.m_fuseboxOnly)
        {
            trace.m_source = source;
            trace.m_fuseboxOnly = fuseboxOnly;
        }
        ~Source()
        {
            m_trace.m_source = m_previous;
            m_trace.m_fuseboxOnly = m_previousFuseboxOnly;
        }
        Source(const Source &) = delete;
        Source &operator=(const Source &) = delete;

    private:
        MatchTrace &m_trace;
        std::string_view m_previous;
        bool m_previousFuseboxOnly;
    };
    /// A scope for checks Fusebox makes and Inductor 2.6 does not; `why`
    /// says why Fusebox refuses there.
    Source fuseboxOnly(std::string_view why) { return Source(*this, why, true); }

    /// Records a condition and returns `passed`, so a matcher writes
    /// `if (!trace.check(ok, "...", [&] { return ...; })) return std::nullopt;`.
    /// `actual` is a callable returning the std::string of observed values; it
    /// runs only when explaining, keeping quiet matching free of formatting.
    template<typename Actual>
    requires std::invocable<Actual &>
    bool check(bool passed, std::string_view description, Actual &&actual, CheckNodes nodes = {})
    {
        if (passed)
            ++m_passed;
        else
            m_failed = true;
        if (m_mode == Mode::Explain)
            m_checks.push_back({std::string(description), passed, std::string(actual()), nodes.toVector(),
                                std::string(m_source), m_fuseboxOnly});
        return passed;
    }
    /// A check that needs a value's shape: when `known` is false, the check
    /// is recorded as undecided (Check::undecided) rather than failed, and
    /// dependsOnUnknownShape() becomes true. Returns `known`.
    template<typename Actual>
    requires std::invocable<Actual &>
    bool requireShape(bool known, std::string_view description, Actual &&actual, CheckNodes nodes = {})
    {
        const bool passed = check(known, description, std::forward<Actual>(actual), nodes);
        if (!known) {
            m_unknownShape = true;
            if (m_mode == Mode::Explain)
                m_checks.back().undecided = true;
        }
        return passed;
    }
    /// True once a check could not be decided for an unknown shape (both modes).
    bool dependsOnUnknownShape() const { return m_unknownShape; }

    /// A check with no values worth showing.
    bool check(bool passed, std::string_view description, CheckNodes nodes = {})
    {
        return check(
            passed, description, [] { return std::string(); }, nodes);
    }
    /// Records a failed condition; returns false.
    template<typename Actual>
    requires std::invocable<Actual &>
    bool fail(std::string_view description, Actual &&actual, CheckNodes nodes = {})
    {
        return check(false, description, std::forward<Actual>(actual), nodes);
    }

    /// Every check, in order, when explaining; empty when quiet.
    const std::vector<Check> &checks() const { return m_checks; }
    /// The first failed check when explaining, or nullptr.
    const Check *failure() const;
    /// True once any check failed (both modes).
    bool failed() const { return m_failed; }
    /// Number of checks that passed before the first failure: how far the
    /// attempt got (the near-miss ranking).
    int progress() const { return m_passed; }

private:
    Mode m_mode;
    int m_passed = 0;
    bool m_failed = false;
    bool m_unknownShape = false;
    std::vector<Check> m_checks;
    std::string_view m_source;
    bool m_fuseboxOnly = false;
};

/// "%name" of a node, for check texts.
class Graph;
std::string nodeRef(const Graph &graph, NodeId id);

} // namespace fusebox
