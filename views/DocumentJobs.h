#pragma once

#include <QObject>
#include "DocumentParts.h"

#include "MatchEntry.h"
#include "core/ir/Graph.h"
#include "core/rewrite/GreedyDriver.h"
#include "core/rewrite/PatternSet.h"
#include "core/torch/ModelLoader.h"
#include "patterns/PassSchedule.h"

#include <QString>

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace fusebox {

struct OpenedGraph;

class Document;
class OutputVerifier;
struct ApplyAllOutcome;
struct OffSchedule;

/// What Document runs in the background, as tasks of its TaskService
/// ("document.load", "document.find", "document.applyAll"), with their progress
/// and cancel: reading a model, finding matches, Apply All; and the numeric
/// verifier the applies use. A search and Apply All read the graph and the
/// patterns, so every change of those waits for them first
/// (waitForPatternsIdle); their results are applied on the GUI thread, and
/// dropped when the graph or the patterns changed meanwhile (version()).
class DocumentJobs final : public QObject {
    Q_OBJECT

public:
    DocumentJobs(Document &document, const DocumentParts &parts);
    DocumentJobs(const DocumentJobs &) = delete;
    DocumentJobs &operator=(const DocumentJobs &) = delete;

    // ---- loading
    /// Reads a model file in the background (Document::open).
    void open(const QString &path, const LoadOptions &options, const QString &displayName,
              bool requirePytorchShapes = false);
    /// Prepares a graph made in memory in the background (Document::openGraph).
    void openGraph(Graph graph, const QString &displayName);
    /// A graph set directly supersedes a pending load.
    void supersedeLoad();
    bool isLoading() const { return m_loading; }

    // ---- the graph's version
    /// Another change of the graph or the patterns: running jobs' results are stale.
    void bumpVersion() { ++m_graphVersion; }
    /// The graph's version: a background job whose graph changed meanwhile drops its result.
    quint64 version() const { return m_graphVersion; }
    /// True while the graph is what a whole Apply All (not cancelled) made
    /// of it, with the same patterns: its schedule has run on it to the end.
    bool graphIsApplyAllResult() const { return m_graphVersion == m_applyAllResultVersion; }

    // ---- finding matches
    void findMatches();
    bool isSearching() const { return m_searching; }
    void waitForSearch();
    /// Waits for whatever reads the graph and the patterns (a search, Apply All).
    void waitForPatternsIdle();
    /// Waits for a running search or Apply All (a new graph replaces the one they read).
    void waitForFinished();
    /// The candidates of `patterns` on `graph` with their signatures (any thread).
    static std::vector<MatchEntry> searchCandidates(const Graph &graph, const PatternSet &patterns);

    // ---- Apply All
    void applyAll();
    bool isApplyingAll() const { return m_applyingAll; }
    int applyAllProgress() const;
    const std::map<std::string, PatternCounters> &lastCounters() const { return m_lastCounters; }
    void cancel();

    // ---- what Apply All runs, and verification
    void setSchedule(PassSchedule schedule) { m_schedule = schedule; }
    PassSchedule schedule() const { return m_schedule; }
    void setVerifyApplies(bool on) { m_verifyApplies = on; }
    bool verifyApplies() const { return m_verifyApplies; }
    /// The libtorch verifier against the original graph, made on first use;
    /// null, with why in `whyNot`, when it cannot be made. (A PT2 graph is
    /// verified in PyTorch 2 instead when a Python is set up: DocumentPt2.)
    const OutputVerifier *verifier(QString *whyNot);
    /// A new graph needs a new verifier.
    void resetVerifier();

signals:
    void loadStarted(const QString &path);
    void loadFailed(const QString &path, const QString &message);
    void matchSearchStarted();
    /// A search's candidates are in DocumentReview::matches() (not emitted
    /// when it was cancelled or superseded by another).
    void matchSearchFinished();
    void applyAllStarted();
    void applyAllFinished(int applied, const QString &summary);

private:
    /// The driver's options for an Apply All of `outcome`'s graph: the stop
    /// flag, the rejections and the verifier (whose engine goes in `outcome`).
    DriverOptions applyAllOptions(const std::shared_ptr<ApplyAllOutcome> &outcome);
    /// On the GUI thread once the worker is done: the graph replaced and one
    /// undo step pushed, unless cancelled or the graph changed meanwhile.
    void finishApplyAll(quint64 version, ApplyAllOutcome &outcome, const OffSchedule &offSchedule, bool verified,
                        bool cancelled);
    void finishLoad(quint64 generation, const QString &path, const QString &displayName,
                    std::shared_ptr<Expected<LoadedModel>> result, std::shared_ptr<OpenedGraph> opened);

    Document &m_document;
    const DocumentParts &m_parts;
    LoadOptions m_pendingLoadOptions;
    quint64 m_generation = 0;
    bool m_loading = false;
    bool m_verifyApplies = true;
    PassSchedule m_schedule = PassSchedule::Inductor;
    bool m_searching = false;
    bool m_searchAgain = false;
    bool m_applyingAll = false;
    bool m_searchCancelled = false;
    std::map<std::string, PatternCounters> m_lastCounters;
    std::shared_ptr<std::atomic<bool>> m_stopApplyAll;
    std::shared_ptr<std::atomic<int>> m_applyAllProgress;
    quint64 m_graphVersion = 0;
    quint64 m_applyAllResultVersion = ~quint64(0);
    std::shared_ptr<const OutputVerifier> m_verifier;
    QString m_verifierError;
    bool m_verifierTried = false;
};

} // namespace fusebox
