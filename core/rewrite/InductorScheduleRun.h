#pragma once
// One run of InductorScheduleDriver's schedule on one graph, pass by pass
// (InductorSchedule.h describes what each kind of pass does). Internal to
// core/rewrite: the driver makes one per run().

#include "DriverLoop.h"
#include "HorizontalSearch.h"
#include "InductorSchedule.h"
#include "RewriteApplier.h"

namespace fusebox {

/// Whether `name` is one of pre_grad.py's fuse_fx rules: plain graph
/// transforms in 2.6, run before any configured pass and moving no counter.
bool isFuseFxRule(std::string_view name);

/// The state of one schedule run: the graph, the edits kept to take a pass
/// back, the applier and the result so far. Each stage of a run is a method.
/// A round of the one driver loop (DriverLoop.h) is one repetition of a pass.
class InductorScheduleRun final : public RoundSource {
public:
    /// `log` and `listener` may be null (InductorScheduleDriver::run's terms);
    /// `observer` too. Nothing is owned.
    InductorScheduleRun(Graph &graph, const PatternSet &patterns, const DriverOptions &options,
                        ScheduleObserver *observer, EditLog *log, DriverListener *listener);
    ~InductorScheduleRun() override;
    InductorScheduleRun(const InductorScheduleRun &) = delete;
    InductorScheduleRun &operator=(const InductorScheduleRun &) = delete;

    /// Runs `schedule` to its end, or until a stop is asked for or a pass
    /// leaves a cycle (the result's message says which).
    DriverResult run(const std::vector<ScheduledPass> &schedule);

    // The loop's rounds: the schedule's passes, each `repeat` times.
    std::optional<DriverRound> nextRound() override;
    size_t runRound() override;
    /// Restores the order after a pass, and drops the edits kept only to
    /// take the pass back.
    bool restoreOrder() override;
    void roundEnded(size_t applied) override;

private:
    bool stopRequested() const;
    /// Puts the graph back in topological order (one edit group); false when
    /// it has a cycle.
    bool sortTopologically();

    void notePassesDroppedForDevices();
    /// One repetition of `pattern`'s pass, before the order is restored.
    void runPass(const Pattern &pattern);
    void addCounts(const InductorCounts &counts);
    void noteUndecided(const Pattern &pattern, NodeId id);

    void verticalPass(const VerticalPattern &pattern);
    /// The nodes that exist now with one of the pattern's root ops, last to first.
    std::vector<NodeId> verticalVisitOrder(const VerticalPattern &pattern) const;

    void horizontalPass(const HorizontalPattern &pattern);
    void noteUnkeyedRoots(const HorizontalPattern &pattern);
    void horizontalPassChecked(const HorizontalPattern &pattern, const HorizontalSearchResult &found);
    /// Fuses one group of the pass's search; false when it was not applied
    /// (a member gone, a reviewer's rejection, failed verification).
    bool fuseGroup(const HorizontalPattern &pattern, const FusionGroup &group, std::vector<NodeId> *changed = nullptr);

    Graph &m_graph;
    const PatternSet &m_patterns;
    const DriverOptions &m_options;
    ScheduleObserver *m_observer;
    EditLog *m_log;
    DriverListener *m_listener;
    /// The edits when the caller keeps none: a horizontal group that earlier
    /// fusions made dependent is taken back, which needs them.
    EditLog m_local;
    EditLog &m_edits;
    DriverResult m_result;
    RewriteApplier m_applier;
    /// Where the loop is in the schedule run() was given.
    const std::vector<ScheduledPass> *m_schedule = nullptr;
    size_t m_index = 0;
    int64_t m_repetition = 0;
};

} // namespace fusebox
