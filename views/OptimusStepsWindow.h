#pragma once

#include "core/io/TorchTrace.h"
#include "core/ir/Graph.h"
#include "patterns/TraceReplay.h"

#include <QWidget>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

class QLabel;
class QListWidget;
class QPushButton;

namespace fusebox {

class DiffView;
class TaskService;

/// "Optimus, pass by pass" for one compile of a TORCH_TRACE log: the
/// compile's pre-grad graph before Optimus, after each pass that changed it
/// and after all of them (optimusStepsOf), listed on the left; the selected
/// step is a before/after diff (DiffView's comparison: the nodes the pass
/// removed on the left, those it added on the right) under a headline with
/// the pass and its count. Replay runs Fusebox's Inductor profile on the
/// before-graph (replayCompile, through the TaskService) and marks each step
/// "same" or what differs, with Why Not where production's pass fired and
/// Fusebox's did not; the header names whose answers these are.
/// The profile a replay follows where the log records no torch version (the
/// document's, Settings ▸ Inductor Version), asked when a replay starts;
/// null or empty: the newest profile.
using FallbackProfile = std::function<const InductorProfile *()>;

/// How the app replays a log (the Optimus window, the Compiles panel): the
/// graphs opened as every command opens a file, compared with the schemas
/// PT2 graphs are read with; the profile is the log's torch version's, else
/// `fallback`'s.
TraceReplayOptions traceReplayOptions(const FallbackProfile &fallback);

class OptimusStepsWindow final : public QWidget {
    Q_OBJECT

public:
    OptimusStepsWindow(std::shared_ptr<const TraceLog> log, size_t compile, TaskService *tasks,
                       FallbackProfile fallback = {}, QWidget *parent = nullptr);

    QListWidget *steps() const { return m_steps; }
    DiffView *diff() const { return m_diff; }
    QPushButton *replayButton() const { return m_replay; }
    QLabel *header() const { return m_header; }
    /// The step graphs once read (empty before stepsLoaded()).
    size_t loadedSteps() const { return m_graphs.size(); }
    /// The replay once done (replayed()).
    const std::optional<CompileReplay> &replay() const { return m_replayResult; }

    /// Starts the replay in the background.
    void startReplay();
    /// Shows step `row` (0: the before-graph alone).
    void showStep(int row);

signals:
    void stepsLoaded();
    void replayed();
    /// The steps' graphs or the replay could not be read; message is one line.
    void failed(const QString &message);

private:
    void loadSteps();
    void markSteps();

    std::shared_ptr<const TraceLog> m_log;
    const TraceCompile &m_compile;
    TaskService *m_tasks;
    FallbackProfile m_fallback;
    std::vector<const TracePayload *> m_payloads;
    std::vector<Graph> m_graphs;
    std::optional<CompileReplay> m_replayResult;
    QLabel *m_header;
    QListWidget *m_steps;
    DiffView *m_diff;
    QPushButton *m_replay;
};

} // namespace fusebox
