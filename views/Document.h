#pragma once

#include "MatchEntry.h"
#include "SessionFile.h"
#include "core/io/PassConfig.h"
#include "core/io/PatternFile.h"
#include "core/ir/Graph.h"
#include "core/rewrite/EditLog.h"
#include "core/rewrite/Explainer.h"
#include "core/rewrite/GreedyDriver.h"
#include "core/rewrite/PatternSet.h"
#include "core/torch/ModelLoader.h"
#include "patterns/PassSchedule.h"

#include <QFuture>
#include <QObject>
#include <QString>
#include <QStringList>

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <vector>

class QUndoStack;

namespace fusebox {

class RewriteVerifier;

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
class Document final : public QObject {
    Q_OBJECT

public:
    /// Above this many nodes, a search does not count near misses.
    static constexpr size_t kNearMissNodeLimit = 50000;

    explicit Document(QObject *parent = nullptr);
    ~Document() override;

    const Graph &graph() const { return m_graph; }
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
    bool isLoading() const { return m_loading; }

    /// Starts reading a model file in the background: emits loadStarted(),
    /// then graphLoaded() or loadFailed(). The current graph stays until then.
    void open(const QString &path, const LoadOptions &options = {}, const QString &displayName = {});
    /// The options the graph was opened with (the input shapes the user gave;
    /// sessions and recent files keep them).
    const LoadOptions &loadOptions() const { return m_loadOptions; }
    /// Replaces the graph at once (tests, importers that already ran); emits graphLoaded().
    /// `nodeLines` as nodeLines() returns them.
    void setGraph(Graph graph, const QString &displayName, const QStringList &warnings = {},
                  const QString &filePath = {}, std::vector<int> nodeLines = {}, LoadOptions options = {});
    /// The tensor inputs (their positions among graph().inputs()) whose shape
    /// is not known: most rules check shapes and find nothing there.
    std::vector<size_t> inputsWithoutShape() const;

    // ---- patterns -----------------------------------------------------------
    const PatternSet &patterns() const { return m_patterns; }
    void setPatternEnabled(const QString &name, bool enabled);
    /// Sets one option of a pattern (an Inductor knob); an Error for unknown names.
    Status setPatternOption(const QString &pattern, const QString &option, const OptionValue &value);
    /// Compiles a pattern file and adds its patterns (enabled); errors carry file:line:col.
    Status addPatternFile(const QString &path);
    /// Compiles pattern text (the editor's "Use in Document") and adds or
    /// replaces its patterns; returns their names.
    Expected<std::vector<std::string>> addPatternText(const QString &text, const QString &sourceName);
    /// Names of the patterns that came from pattern files or text.
    const std::vector<std::string> &customPatternNames() const { return m_customNames; }
    /// Where a custom pattern came from: its file's name, "Pattern Editor", or the pass file.
    std::string customOrigin(const std::string &pattern) const;
    PatternTally tally(const std::string &pattern) const;
    /// Every pattern's tally in one pass over the matches (patterns with no
    /// match and no near-miss count are absent).
    std::map<std::string, PatternTally> tallies() const;

    // ---- matches --------------------------------------------------------------
    /// Candidates on the current graph (pending or rejected), then failed
    /// verifications, then what was applied (oldest first).
    const std::vector<MatchEntry> &matches() const { return m_matches; }
    /// Starts finding every candidate match of the enabled patterns in the
    /// background (what the greedy driver's first round would consider);
    /// emits matchSearchStarted(), then matchesChanged().
    void findMatches();
    bool isSearching() const { return m_searching; }
    /// Blocks until a running search ends (its result is then applied).
    void waitForSearch();
    /// True once findMatches() ran on this graph (matches are shown).
    bool hasMatchResults() const { return m_haveMatches; }

    /// Applies the candidate matches at these rows of matches() as one undo
    /// step, verifying each rewrite when verification is on: a rewrite that
    /// changes the outputs is undone at once and listed as failed. Returns
    /// how many were applied; `error` says why none could be.
    int applyMatches(const std::vector<int> &rows, QString *error = nullptr);
    /// Runs the greedy driver to a fixed point (skipping rejected matches),
    /// in the background; one undo step. Emits applyAllFinished().
    void applyAll();
    bool isApplyingAll() const { return m_applyingAll; }
    /// Rewrites the running Apply All has made so far.
    int applyAllProgress() const;
    /// Cancels a running search (its result is dropped; the table asks for F5)
    /// or Apply All (it stops after the current rewrite and, having run on a
    /// copy, changes nothing).
    void cancelBackground();
    /// The driver's per-pattern counters of the last Apply All (matched,
    /// applied, rejected matches skipped, failed verification).
    const std::map<std::string, PatternCounters> &lastApplyAllCounters() const { return m_lastCounters; }
    /// Rejects the candidate at this row (undoable); it stays rejected for
    /// this document and goes into the exported pass file.
    bool rejectMatch(int row);
    /// Undoes a rejection (undoable).
    bool restoreMatch(int row);
    bool isRejected(const std::string &signature) const { return m_rejected.count(signature) != 0; }

    /// Verify each apply numerically (default on).
    /// Which driver Apply All runs: Inductor 2.6's schedule (the default, as
    /// fusebox-pass run) or Fusebox's own benefit-ordered search.
    void setSchedule(PassSchedule schedule) { m_schedule = schedule; }
    PassSchedule schedule() const { return m_schedule; }
    void setVerifyApplies(bool on) { m_verifyApplies = on; }
    bool verifyApplies() const { return m_verifyApplies; }

    /// Why `pattern` does or does not fire at `node` (the engine's check trace).
    std::optional<Explanation> explain(const std::string &pattern, NodeId node) const;
    /// Where `pattern` came closest to firing, grouped by failed check.
    std::optional<NearMissSummary> nearMisses(const std::string &pattern) const;

    // ---- history --------------------------------------------------------------
    QUndoStack *undoStack() const { return m_undo; }
    /// The graph as loaded, before any rewrite.
    const Graph &originalGraph() const { return m_original; }
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
    const std::vector<std::string> &configNotes() const { return m_configNotes; }

    // ---- sessions ---------------------------------------------------------------
    /// The applied undo steps, oldest first, as a session stores them.
    std::vector<SessionStep> sessionSteps() const;
    /// Applies the steps again on this graph (a reopened session): each
    /// step's matches are found by signature and applied as one undo step;
    /// an Apply All runs again. False, with the step that failed, when a
    /// step's matches are no longer there.
    bool replaySteps(const std::vector<SessionStep> &steps, QString *error = nullptr);

    // ---- used by the undo commands ----------------------------------------------
    /// Undo and redo of a rewrite step: the graph changes at once;
    /// graphRewritten() follows when the undo stack has moved its index.
    void revertGroups(const std::vector<EditGroup> &groups);
    void replayGroups(const std::vector<EditGroup> &groups);
    void setRejected(const MatchEntry &entry, bool rejected);

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

private:
    void finishLoad(quint64 generation, const QString &path, const QString &displayName,
                    std::shared_ptr<Expected<LoadedModel>> result);

    void resetSession();
    /// Compiles a parsed pattern file and adds (or replaces) its patterns.
    Expected<std::vector<std::string>> adoptPatterns(const PatternFile &file, CustomPatternSource source);
    /// After any change of the patterns: mark unsaved, tell the views, search again.
    void patternsEdited();
    /// The candidates of `patterns` on `graph` with their signatures (any thread).
    static std::vector<MatchEntry> searchCandidates(const Graph &graph, const PatternSet &patterns);
    void graphChanged();
    /// Reverts the groups' edits on the graph, newest first (no signal).
    void revertEdits(const std::vector<EditGroup> &groups);
    /// Emits the graph change an undo or redo left pending.
    void onUndoIndexChanged();
    /// Rebuilds matches() from a search's candidates: each is pending or, when
    /// it is a rejected match, rejected; the rejections no candidate stands
    /// for follow, marked notFound; then the failures and the applied entries.
    void rebuildMatchList(std::vector<MatchEntry> candidates);
    /// The rejection `candidate` is, by its signature or, under the same
    /// pattern, by the same nodes, or by part of them or all of them and more
    /// (two at least: a horizontal group regrouped); null when none.
    static const MatchEntry *rejectionOf(const std::map<std::string, MatchEntry> &rejections, const Match &candidate,
                                         const std::string &signature);
    std::vector<MatchEntry> appliedEntries() const;
    const RewriteVerifier *verifier(QString *whyNot);
    void waitForPatternsIdle();

    Graph m_graph;
    Graph m_original;
    LoadOptions m_loadOptions, m_pendingLoadOptions;
    bool m_hasGraph = false;
    PatternSet m_patterns;
    std::vector<std::string> m_customNames;
    std::vector<std::string> m_configNotes;
    std::map<std::string, std::string> m_customOrigin;
    std::vector<CustomPatternSource> m_customSources;
    std::vector<MatchEntry> m_matches;
    /// The last search's candidates (status unset; signatures computed).
    std::vector<MatchEntry> m_candidates;
    std::vector<MatchEntry> m_failures;
    std::map<std::string, MatchEntry> m_rejected;
    std::map<std::string, PatternCounters> m_lastCounters;
    std::map<std::string, int> m_nearMissCounts;
    QUndoStack *m_undo;
    bool m_verifyApplies = true;
    PassSchedule m_schedule = PassSchedule::Inductor;
    /// The order of the rules in the pass config last applied: Inductor runs
    /// them in it, and an exported pass file keeps it.
    std::vector<std::string> m_preGradOrder, m_postGradOrder;
    bool m_searching = false;
    bool m_graphChangePending = false;
    bool m_searchAgain = false;
    bool m_haveMatches = false;
    bool m_applyingAll = false;
    bool m_searchCancelled = false;
    std::shared_ptr<std::atomic<bool>> m_stopApplyAll;
    std::shared_ptr<std::atomic<int>> m_applyAllProgress;
    quint64 m_graphVersion = 0;
    QFuture<void> m_background;
    std::shared_ptr<RewriteVerifier> m_verifier;
    QString m_verifierError;
    bool m_verifierTried = false;
    int m_savedIndex = 0;
    bool m_decisionsDirty = false;
    bool m_loading = false;
    QString m_filePath;
    QString m_displayName;
    QStringList m_warnings;
    std::vector<int> m_nodeLines;
    quint64 m_generation = 0;
};

} // namespace fusebox
