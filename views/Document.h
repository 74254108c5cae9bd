#pragma once

#include "DocumentParts.h"
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

/// A graph ready to become the document's: the copy kept as the original and
/// the IR verifier's findings, made where the graph was read (a worker
/// thread: on a 100k-node graph they take a quarter of a second).
struct OpenedGraph {
    Graph graph;
    Graph original;
    std::vector<VerifierIssue> issues;
    /// What Document::shapeCounts(), summary() and scopeTree() give for it.
    ShapeCounts shapes;
    GraphSummary summary;
    std::map<OpFamily, size_t> families;
    std::shared_ptr<const ScopeTree> scopes;

    /// Makes the copy and runs the verifier; any thread.
    static OpenedGraph prepare(Graph graph);
};

/// Counts the patterns panel shows for one pattern.
struct PatternTally {
    int candidates = 0;
    int applied = 0;
    int rejected = 0;
    int failed = 0;
    /// Nodes where the pattern was tried (a root op) and did not fire, from
    /// the last search; -1 when not computed (graphs over kNearMissNodeLimit).
    int nearMisses = -1;
};

/// The model being looked at: owns the Graph, the loader's warnings and where
/// the graph came from. Views keep NodeIds and ask the document for nodes.
///
/// It also owns the rewriting session: the pattern set (the built-in catalog
/// plus pattern files), the current candidate matches, the reviewer's
/// decisions (applied, rejected, failed verification) and the QUndoStack.
/// Every graph change goes through the rewriter (GreedyDriver::apply / run),
/// whose edit groups the undo commands revert and replay; views update only
/// from the past-tense signals.
///
/// Files are read on a worker thread (QtConcurrent), so opening a big model
/// never blocks the GUI; the result is applied on the GUI thread. Opening a
/// second file while one loads supersedes the first.
///
/// Document is the facade: the work is done by its parts, one job each, and
/// the signals stay here (the views connect to them).
/// - DocumentHistory: the graph, the graph as loaded, and the undo stack.
/// - DocumentReview: the matches and the reviewer's decisions (statuses,
///   tallies, rejections, failed verifications), and applying matches.
/// - DocumentJobs: what runs on a worker thread (loading, finding matches,
///   Apply All) with its progress and cancel, and the verifier.
/// - DocumentPatterns: the pattern set (the catalog, options, custom patterns).
/// - DocumentPersistence: the pass file (import and export) and sessions.
/// - DocumentPt2: what the document does in PyTorch 2 through its own bridge:
///   verifying a PT2 graph's rewrites (applies then run in the background),
///   exports for stock PyTorch 2; Measure Latency shares its bridge.
/// The undo commands reach the hooks that undo and redo a step through the
/// parts that own them (DocumentCommands.h), and nothing else can.
class Document final : public QObject {
    Q_OBJECT

public:
    /// Above this many nodes, a search does not count near misses.
    static constexpr size_t kNearMissNodeLimit = 50000;

    explicit Document(QObject *parent = nullptr);
    ~Document() override;

    const Graph &graph() const;
    /// True once a graph was loaded or set.
    bool hasGraph() const { return m_hasGraph; }
    /// The file the graph was read from (may be a temporary copy); empty when set directly.
    QString filePath() const { return m_filePath; }
    /// What to call the graph in titles: the file name unless told otherwise.
    QString displayName() const { return m_displayName; }
    /// The loader's and the verifier's findings, one line each.
    const QStringList &warnings() const { return m_warnings; }
    /// The file line each node was read from, indexed by NodeId value (0 where
    /// unknown; shorter than the id bound, or empty, when the reader kept none:
    /// only FX text dumps record lines). Leads a warning's "file:line" to its nodes.
    const std::vector<int> &nodeLines() const { return m_nodeLines; }
    bool isLoading() const;

    /// Starts reading a model file in the background: emits loadStarted(),
    /// then graphLoaded() or loadFailed(). The current graph stays until then.
    /// With requirePytorchShapes, the values the C++ shape rules leave
    /// without a shape must get one from PyTorch 2 (fake tensors; Infer
    /// Shapes): if it cannot run, the load fails with its reason.
    void open(const QString &path, const LoadOptions &options = {}, const QString &displayName = {},
              bool requirePytorchShapes = false);
    /// The options the graph was opened with (the input shapes the user gave;
    /// sessions and recent files keep them).
    const LoadOptions &loadOptions() const { return m_loadOptions; }
    /// Replaces the graph at once (tests, importers that already ran); emits graphLoaded().
    /// `nodeLines` as nodeLines() returns them.
    void setGraph(Graph graph, const QString &displayName, const QStringList &warnings = {},
                  const QString &filePath = {}, std::vector<int> nodeLines = {}, LoadOptions options = {});
    /// Opens a graph made in memory as open() opens a file: what is made of
    /// it before it is shown (OpenedGraph) is made in the background; emits
    /// loadStarted(), then graphLoaded(). A later open supersedes it.
    void openGraph(Graph graph, const QString &displayName);
    /// How many of the graph's values have a shape (made once per graph: the
    /// status bar asks after every layout).
    const ShapeCounts &shapeCounts() const;
    /// Node, edge and op counts, the op histogram (made once per graph: the
    /// inspector shows them whenever nothing is selected).
    const GraphSummary &summary() const;
    /// Nodes per op family, as the legend counts them (made once per graph).
    const std::map<OpFamily, size_t> &familyCounts() const;
    /// The graph's scopes, as the graph view groups them (made once per graph).
    /// Shared: a background layout holds it while the graph changes.
    std::shared_ptr<const ScopeTree> sharedScopeTree() const;
    /// The tensor inputs (their positions among graph().inputs()) whose shape
    /// is not known: most rules check shapes and find nothing there.
    std::vector<size_t> inputsWithoutShape() const;

    // ---- patterns -----------------------------------------------------------
    const PatternSet &patterns() const;
    /// The Inductor version whose answers the rules give (DocumentPatterns::setInductorProfile).
    void setInductorProfile(const InductorProfile &profile);
    const InductorProfile &inductorProfile() const;
    void setPatternEnabled(const QString &name, bool enabled);
    /// Sets one option of a pattern (an Inductor knob); an Error for unknown names.
    Status setPatternOption(const QString &pattern, const QString &option, const OptionValue &value);
    /// Compiles a pattern file and adds its patterns (enabled); errors carry file:line:col.
    Status addPatternFile(const QString &path);
    /// Compiles pattern text (the editor's "Use in Document") and adds or
    /// replaces its patterns; returns their names.
    Expected<std::vector<std::string>> addPatternText(const QString &text, const QString &sourceName);
    /// Names of the patterns that came from pattern files or text.
    const std::vector<std::string> &customPatternNames() const;
    /// Where a custom pattern came from: its file's name, "Pattern Editor", or the pass file.
    std::string customOrigin(const std::string &pattern) const;
    PatternTally tally(const std::string &pattern) const;
    /// Every pattern's tally in one pass over the matches (patterns with no
    /// match and no near-miss count are absent).
    std::map<std::string, PatternTally> tallies() const;

    // ---- matches --------------------------------------------------------------
    /// Candidates on the current graph (pending or rejected), then failed
    /// verifications, then what was applied (oldest first).
    const std::vector<MatchEntry> &matches() const;
    /// Starts finding every candidate match of the enabled patterns in the
    /// background (what the greedy driver's first round would consider);
    /// emits matchSearchStarted(), then matchesChanged().
    void findMatches();
    bool isSearching() const;
    /// Blocks until a running search ends (its result is then applied).
    void waitForSearch();
    /// True once findMatches() ran on this graph (matches are shown).
    bool hasMatchResults() const;

    /// Applies the candidate matches at these rows of matches() as one undo
    /// step, verifying each rewrite when verification is on: a rewrite that
    /// changes the outputs is undone at once and listed as failed. Returns
    /// how many were applied; `error` says why none could be.
    /// A PT2 graph is verified in PyTorch 2 (verifiesInPyTorch2()): then the
    /// rewrites and their checks run in the background and it returns 0 with
    /// `error` empty; applyStarted() and applyFinished() bracket the job
    /// (matchesApplied() and verificationFailed() as above), isApplying() is
    /// true meanwhile, and cancelBackground() stops it without applying.
    int applyMatches(const std::vector<int> &rows, QString *error = nullptr);
    /// True while matches are applied and verified in PyTorch 2 in the background.
    bool isApplying() const;
    /// True when rewrites are verified in PyTorch 2, not libtorch (a PT2 graph,
    /// a Python set up, verification on).
    bool verifiesInPyTorch2() const;
    /// What a running PyTorch 2 job of the document does ("PyTorch 2: verifying
    /// batch_linear at %linear in PyTorch 2.6.0+debian…"), "" when none runs.
    QString pt2ProgressText() const;
    /// The document's own bridge to PyTorch 2 (Measure Latency shares it);
    /// null when no Python is set up.
    std::shared_ptr<pt2::Pt2Bridge> pt2Bridge();
    /// Exports the current graph for stock PyTorch 2 in the background
    /// (a torch.export .pt2, or a module source and its weights), loaded back
    /// there and run against the original; `done` gets the result on the GUI
    /// thread. False (and why) when it cannot start.
    bool exportForPyTorch2(const QString &path, pt2::Pt2ExportFormat format,
                           std::function<void(Expected<pt2::Pt2ExportResult>)> done, QString *error = nullptr);
    /// Runs the greedy driver to a fixed point (skipping rejected matches),
    /// in the background; one undo step. Emits applyAllFinished().
    void applyAll();
    bool isApplyingAll() const;
    /// Rewrites the running Apply All has made so far.
    int applyAllProgress() const;
    /// Cancels a running search (its result is dropped; the table asks for F5),
    /// Apply All (it stops after the current rewrite and, having run on a
    /// copy, changes nothing) or a PyTorch 2 job (its Python is killed).
    void cancelBackground();
    /// The driver's per-pattern counters of the last Apply All (matched,
    /// applied, rejected matches skipped, failed verification).
    const std::map<std::string, PatternCounters> &lastApplyAllCounters() const;
    /// Rejects the candidate at this row (undoable); it stays rejected for
    /// this document and goes into the exported pass file.
    bool rejectMatch(int row);
    /// Undoes a rejection (undoable).
    bool restoreMatch(int row);
    bool isRejected(const std::string &signature) const;

    /// Which driver Apply All runs: Inductor's schedule, as the chosen
    /// profile has it (the default, as fusebox-pass run), or Fusebox's own
    /// benefit-ordered search.
    void setSchedule(PassSchedule schedule);
    PassSchedule schedule() const;
    /// Verify each apply numerically (default on).
    void setVerifyApplies(bool on);
    bool verifyApplies() const;

    /// Why `pattern` does or does not fire at `node` (the engine's check trace).
    std::optional<Explanation> explain(const std::string &pattern, NodeId node) const;
    /// Where `pattern` came closest to firing, grouped by failed check.
    std::optional<NearMissSummary> nearMisses(const std::string &pattern) const;

    // ---- history --------------------------------------------------------------
    QUndoStack *undoStack() const;
    /// The graph as loaded, before any rewrite.
    const Graph &originalGraph() const;
    /// The edit groups applied so far, oldest first (the undone ones excluded).
    std::vector<const EditGroup *> appliedGroups() const;
    /// True when there are decisions not saved to a pass file or session.
    bool isModified() const;
    void markSaved();

    // ---- the pass file ----------------------------------------------------------
    /// The enabled rules with their options, custom patterns, and rejected matches.
    PassConfig passConfig() const;
    Status savePassFile(const QString &path);
    /// Reads a pass file: enables its rules with their options, adds its
    /// custom patterns and takes its rejections; re-finds matches.
    Status loadPassFile(const QString &path);
    /// The same for a config already read (sourceName resolves its files).
    Status applyPassConfig(const PassConfig &config, const std::string &sourceName);
    /// What the last config applied named that Fusebox accepted without
    /// acting on it, as Inductor 2.6 does (configurePatterns' notes).
    const std::vector<std::string> &configNotes() const;

    // ---- sessions ---------------------------------------------------------------
    /// The applied undo steps, oldest first, as a session stores them.
    std::vector<SessionStep> sessionSteps() const;
    /// Applies the steps again on this graph (a reopened session): each
    /// step's matches are found by signature and applied as one undo step;
    /// an Apply All runs again. False, with the step that failed, when a
    /// step's matches are no longer there. With the session's `pass` (the
    /// config already applied, read from `sourceName`), each step that says
    /// which custom patterns it had runs with those alone, and `pass` is
    /// whole again at the end.
    bool replaySteps(const std::vector<SessionStep> &steps, QString *error = nullptr, const PassConfig *pass = nullptr,
                     const std::string &sourceName = {});

    /// The document's background tasks (load, find, Apply All) and its
    /// window's (views/TaskService.h): one list, one status, one Cancel.
    TaskService *tasks() const { return m_tasks; }

    /// Makes `opened` the document's graph (setGraph's work; open() and
    /// openGraph() once the background work is done); emits graphLoaded().
    void adopt(OpenedGraph opened, const QString &displayName, const QStringList &warnings, const QString &filePath,
               std::vector<int> nodeLines, LoadOptions options);
    /// After the graph changed (an apply, an undo, a redo, Apply All): the
    /// parts' caches go, the views hear graphRewritten(), and the matches are
    /// found again (or relisted when nothing was searched). The parts call it.
    void graphChanged();

signals:
    void loadStarted(const QString &path);
    void graphLoaded();
    void loadFailed(const QString &path, const QString &message);
    /// The set of patterns, their enable flags or options changed.
    void patternsChanged();
    void matchSearchStarted();
    /// A search's candidates are in matches() (not emitted when it was
    /// cancelled or superseded by another).
    void matchSearchFinished();
    /// Matches were rewritten as one undo step by applyMatches (not Apply
    /// All, which has applyAllFinished): the applied entries, with their
    /// node counts and verification.
    void matchesApplied(const std::vector<fusebox::MatchEntry> &applied);
    /// matches() changed (a search finished, a decision was made or undone).
    void matchesChanged();
    /// The graph was rewritten (an apply, an undo, a redo).
    void graphRewritten();
    /// A rewrite failed numeric verification and was undone; message is one line.
    void verificationFailed(const QString &pattern, const QString &anchor, const QString &message);
    /// markSaved() was called: nothing is unsaved now.
    void saved();
    void applyAllStarted();
    void applyAllFinished(int applied, const QString &summary);
    /// applyMatches() started verifying in PyTorch 2 in the background: what ("Apply batch_linear at %linear").
    void applyStarted(const QString &what);
    /// That background apply ended: how many were applied, and a line saying
    /// so ("...: verified in PyTorch 2", "...: cancelled; nothing was applied").
    void applyFinished(int applied, const QString &summary);

private:
    // The facade's own way to its parts (the parts reach each other through m_parts).
    DocumentHistory &history() const { return *m_history; }
    DocumentReview &review() const { return *m_review; }
    DocumentJobs &jobs() const { return *m_jobs; }
    DocumentPatterns &patternSet() const { return *m_patterns; }
    DocumentPersistence &persistence() const { return *m_persistence; }
    DocumentPt2 &pt2() const { return *m_pt2; }

    /// A new graph is a new review: decisions and history belong to the old one.
    void resetSession();

    TaskService *m_tasks;
    DocumentParts m_parts; // before the parts: each is made with it
    std::unique_ptr<DocumentHistory> m_history;
    std::unique_ptr<DocumentPatterns> m_patterns;
    std::unique_ptr<DocumentReview> m_review;
    std::unique_ptr<DocumentJobs> m_jobs;
    std::unique_ptr<DocumentPersistence> m_persistence;
    std::unique_ptr<DocumentPt2> m_pt2;
    LoadOptions m_loadOptions;
    bool m_hasGraph = false;
    QString m_filePath;
    QString m_displayName;
    QStringList m_warnings;
    std::vector<int> m_nodeLines;
    /// shapeCounts() and scopeTree() of the current graph; made again after a rewrite.
    mutable std::optional<ShapeCounts> m_shapeCounts;
    mutable std::optional<GraphSummary> m_summary;
    mutable std::optional<std::map<OpFamily, size_t>> m_families;
    mutable std::shared_ptr<const ScopeTree> m_scopeTree;
};

} // namespace fusebox
