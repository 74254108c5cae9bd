#pragma once

#include "DocumentGraph.h"
#include "DocumentHistory.h"
#include "DocumentJobs.h"
#include "DocumentParts.h"
#include "DocumentPatterns.h"
#include "DocumentPersistence.h"
#include "DocumentPt2.h"
#include "DocumentReview.h"
#include "MatchEntry.h"
#include "ScopeTree.h"
#include "SessionFile.h"
#include "core/io/PassConfig.h"
#include "core/io/PatternFile.h"
#include "core/ir/Graph.h"
#include "core/ir/GraphSummary.h"
#include "core/ir/OpFamily.h"
#include "core/ir/ShapeInference.h"
#include "core/ir/Verifier.h"
#include "core/rewrite/EditLog.h"
#include "core/rewrite/Explainer.h"
#include "core/rewrite/GreedyDriver.h"
#include "core/pt2/Pt2Export.h"
#include "core/rewrite/PatternSet.h"
#include "core/torch/ModelLoader.h"
#include "patterns/PassSchedule.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

class QUndoStack;

namespace fusebox {

class TaskService;
struct InductorProfile;

/// The model being looked at, and the review of it: a tree of parts, one
/// job each, that the document makes and wires (DocumentParts.h). Views read
/// the part they show, through const references, and connect to that part's
/// own past-tense signals:
/// - model(), DocumentGraph: the read model. The graph, where it came from,
///   its facts; graphLoaded(), graphRewritten().
/// - history(), DocumentHistory: the graph as loaded, the undo stack, what
///   is unsaved; saved().
/// - review(), DocumentReview: the matches and the reviewer's decisions
///   (statuses, tallies, rejections, failed verifications); matchesChanged(),
///   matchesApplied(), verificationFailed().
/// - jobs(), DocumentJobs: what runs on a worker thread (loading, finding
///   matches, Apply All) and the verifier; loadStarted(), loadFailed(),
///   matchSearchStarted(), matchSearchFinished(), applyAllStarted(),
///   applyAllFinished().
/// - patternSet(), DocumentPatterns: the pattern set (the catalog, options,
///   custom patterns); patternsChanged().
/// - persistence(), DocumentPersistence: the pass file and sessions.
/// - pt2(), DocumentPt2: what the document does in PyTorch 2 through its own
///   bridge (verified applies, exports; Measure Latency shares its bridge);
///   applyStarted(), applyFinished().
///
/// What changes the review goes through the document's commands below, so
/// that views never reach a part's hooks (the parts' non-const members are
/// for the document and each other). Every graph change goes through the
/// rewriter, whose edit groups the undo commands revert and replay.
///
/// Files are read on a worker thread, so opening a big model never blocks
/// the GUI; the result is applied on the GUI thread. Opening a second file
/// while one loads supersedes the first.
class Document final : public QObject {
    Q_OBJECT

public:
    /// Above this many nodes, a search does not count near misses.
    static constexpr size_t kNearMissNodeLimit = 50000;

    explicit Document(QObject *parent = nullptr);
    ~Document() override;

    // ---- the parts, for reading and for their signals --------------------------
    const DocumentGraph &model() const { return *m_model; }
    const DocumentHistory &history() const { return *m_history; }
    const DocumentReview &review() const { return *m_review; }
    const DocumentJobs &jobs() const { return *m_jobs; }
    const DocumentPatterns &patternSet() const { return *m_patterns; }
    const DocumentPersistence &persistence() const { return *m_persistence; }
    const DocumentPt2 &pt2() const { return *m_pt2; }
    /// The document's background tasks (load, find, Apply All) and its
    /// window's (views/TaskService.h): one list, one status, one Cancel.
    TaskService *tasks() const { return m_tasks; }

    // ---- a graph ------------------------------------------------------------------
    /// Starts reading a model file in the background: jobs() emits
    /// loadStarted(), then model() graphLoaded() or jobs() loadFailed(). The
    /// current graph stays until then. With requirePytorchShapes, the values
    /// the C++ shape rules leave without a shape must get one from PyTorch 2
    /// (fake tensors; Infer Shapes): if it cannot run, the load fails with its reason.
    void open(const QString &path, const LoadOptions &options = {}, const QString &displayName = {},
              bool requirePytorchShapes = false);
    /// Replaces the graph at once (tests, importers that already ran); emits
    /// graphLoaded(). `nodeLines` as DocumentGraph::nodeLines() returns them.
    void setGraph(Graph graph, const QString &displayName, const QStringList &warnings = {},
                  const QString &filePath = {}, std::vector<int> nodeLines = {}, LoadOptions options = {});
    /// Opens a graph made in memory as open() opens a file: what is made of
    /// it before it is shown (OpenedGraph) is made in the background; emits
    /// loadStarted(), then graphLoaded(). A later open supersedes it.
    void openGraph(Graph graph, const QString &displayName);
    /// Makes `opened` the document's graph (setGraph's work; open() and
    /// openGraph() once the background work is done); emits graphLoaded().
    void adopt(OpenedGraph opened, GraphOrigin origin);
    /// After the graph changed (an apply, an undo, a redo, Apply All): the
    /// model's facts go, the views hear graphRewritten(), and the matches are
    /// found again (or relisted when nothing was searched). The parts call it.
    void graphChanged();

    // ---- patterns -------------------------------------------------------------------
    /// The Inductor version whose answers the rules give (DocumentPatterns::setInductorProfile).
    void setInductorProfile(const InductorProfile &profile);
    void setPatternEnabled(const QString &name, bool enabled);
    /// Sets one option of a pattern (an Inductor knob); an Error for unknown names.
    Status setPatternOption(const QString &pattern, const QString &option, const OptionValue &value);
    /// Compiles a pattern file and adds its patterns (enabled); errors carry file:line:col.
    Status addPatternFile(const QString &path);
    /// Compiles pattern text (the editor's "Use in Document") and adds or
    /// replaces its patterns; returns their names.
    Expected<std::vector<std::string>> addPatternText(const QString &text, const QString &sourceName);

    // ---- matches and decisions ------------------------------------------------------
    /// Starts finding every candidate match of the enabled patterns in the
    /// background (what the greedy driver's first round would consider);
    /// jobs() emits matchSearchStarted(), then review() matchesChanged().
    void findMatches();
    /// Blocks until a running search ends (its result is then applied).
    void waitForSearch();
    /// Applies the candidate matches at these rows of review().matches() as
    /// one undo step, verifying each rewrite when verification is on: a
    /// rewrite that changes the outputs is undone at once and listed as
    /// failed. Returns how many were applied; `error` says why none could be.
    /// A PT2 graph is verified in PyTorch 2 (verifiesInPyTorch2()): then the
    /// rewrites and their checks run in the background and it returns 0 with
    /// `error` empty; pt2()'s applyStarted() and applyFinished() bracket the
    /// job, pt2().isApplying() is true meanwhile, and cancelBackground()
    /// stops it without applying.
    int applyMatches(const std::vector<int> &rows, QString *error = nullptr);
    /// True when rewrites are verified in PyTorch 2, not libtorch (a PT2 graph,
    /// a Python set up, verification on).
    bool verifiesInPyTorch2() const;
    /// Runs the chosen schedule to a fixed point (skipping rejected matches),
    /// in the background; one undo step. jobs() emits applyAllFinished().
    void applyAll();
    /// Cancels a running search (its result is dropped; the table asks for F5),
    /// Apply All (it stops after the current rewrite and, having run on a
    /// copy, changes nothing) or a PyTorch 2 job (its Python is killed).
    void cancelBackground();
    /// Rejects the candidate at this row (undoable); it stays rejected for
    /// this document and goes into the exported pass file.
    bool rejectMatch(int row);
    /// Undoes a rejection (undoable).
    bool restoreMatch(int row);
    /// Which driver Apply All runs: Inductor's schedule, as the chosen
    /// profile has it (the default, as fusebox-pass run), or Fusebox's own
    /// benefit-ordered search.
    void setSchedule(PassSchedule schedule);
    /// Verify each apply numerically (default on).
    void setVerifyApplies(bool on);

    /// Why `pattern` does or does not fire at `node` (the engine's check
    /// trace), under the schedule Apply All runs.
    std::optional<Explanation> explain(const std::string &pattern, NodeId node) const;
    /// Where `pattern` came closest to firing, grouped by failed check.
    std::optional<NearMissSummary> nearMisses(const std::string &pattern) const;

    // ---- PyTorch 2 ---------------------------------------------------------------------
    /// The document's own bridge to PyTorch 2 (Measure Latency shares it);
    /// null when no Python is set up.
    std::shared_ptr<pt2::Pt2Bridge> pt2Bridge();
    /// Exports the current graph for stock PyTorch 2 in the background
    /// (a torch.export .pt2, or a module source and its weights), loaded back
    /// there and run against the original; `done` gets the result on the GUI
    /// thread. False (and why) when it cannot start.
    bool exportForPyTorch2(const QString &path, pt2::Pt2ExportFormat format,
                           std::function<void(Expected<pt2::Pt2ExportResult>)> done, QString *error = nullptr);

    // ---- saving and reopening ----------------------------------------------------------
    /// Nothing is unsaved now (history() emits saved()).
    void markSaved();
    Status savePassFile(const QString &path);
    /// Reads a pass file: enables its rules with their options, adds its
    /// custom patterns and takes its rejections; re-finds matches.
    Status loadPassFile(const QString &path);
    /// The same for a config already read (sourceName resolves its files).
    Status applyPassConfig(const PassConfig &config, const std::string &sourceName);
    /// Applies the steps again on this graph (a reopened session): each
    /// step's matches are found by signature and applied as one undo step;
    /// an Apply All runs again. False, with the step that failed, when a
    /// step's matches are no longer there. With the session's `pass` (the
    /// config already applied, read from `sourceName`), each step that says
    /// which custom patterns it had runs with those alone, and `pass` is
    /// whole again at the end.
    bool replaySteps(const std::vector<SessionStep> &steps, QString *error = nullptr, const PassConfig *pass = nullptr,
                     const std::string &sourceName = {});

private:
    /// A new graph is a new review: decisions and history belong to the old one.
    void resetSession();

    TaskService *m_tasks;
    DocumentParts m_parts; // before the parts: each is made with it
    std::unique_ptr<DocumentHistory> m_history;
    std::unique_ptr<DocumentGraph> m_model;
    std::unique_ptr<DocumentPatterns> m_patterns;
    std::unique_ptr<DocumentReview> m_review;
    std::unique_ptr<DocumentJobs> m_jobs;
    std::unique_ptr<DocumentPersistence> m_persistence;
    std::unique_ptr<DocumentPt2> m_pt2;
};

} // namespace fusebox
