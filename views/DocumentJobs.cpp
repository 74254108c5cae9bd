// Document's background jobs: reading a model, finding matches and Apply
// All on a worker thread, their progress and cancel; and the verifier.
#include "DocumentJobs.h"

#include "Document.h"
#include "DocumentCommands.h"
#include "DocumentHistory.h"
#include "DocumentPatterns.h"
#include "DocumentPt2.h"
#include "DocumentReview.h"
#include "DocumentTr.h"
#include "Pt2Controller.h"
#include "QtStrings.h"
#include "TaskService.h"

#include "core/pt2/PytorchShapes.h"
#include "core/rewrite/Explainer.h"
#include "core/torch/FuseboxOps.h"
#include "core/torch/RewriteVerifier.h"
#include "patterns/PassConfiguration.h"

#include <QFileInfo>

#include <exception>

namespace fusebox {

/// What Apply All's worker makes of a copy of the graph, for the GUI thread.
struct ApplyAllOutcome {
    Graph graph;
    EditLog log;
    DriverResult result;
    std::vector<MatchEntry> undone;
    PassSchedule schedule;
    PassConfig config;  // the rules' order, for Inductor's schedule
    std::string engine; // the verifier's ("PyTorch 2.6.0+debian through the bridge" once made, on the worker)
};

/// The listed candidates the schedule will not apply: how many, and the first one with why.
struct OffSchedule {
    int count = 0;
    QString first;
};

namespace {

using document_tr::tr;

// The kinds of the document's own tasks in its TaskService.
const QString kLoadTask = QStringLiteral("document.load");
const QString kFindTask = QStringLiteral("document.find");
const QString kApplyAllTask = QStringLiteral("document.applyAll");

/// Hears Apply All's driver on the worker: counts the rewrites for the task's
/// status, and keeps the rewrites verification undid as rows.
class UndoneCollector final : public DriverListener {
public:
    UndoneCollector(std::vector<MatchEntry> &out, std::atomic<int> &progress, TaskControl &task)
        : m_out(out)
        , m_progress(progress)
        , m_task(task)
    {}
    void rewriteApplied(const Graph &, const Match &, const EditGroup &) override
    {
        const int done = ++m_progress;
        m_task.setStatus(done == 1 ? tr("1 rewrite so far") : tr("%1 rewrites so far").arg(done));
    }
    void rewriteUndone(const Graph &g, const Match &m, const std::string &reason) override
    {
        MatchEntry e;
        e.match = m;
        e.status = MatchStatus::FailedVerification;
        e.verification = QString::fromStdString(reason);
        if (const Node *n = g.node(m.anchor))
            e.anchorName = QString::fromStdString(n->name);
        m_out.push_back(e);
    }

private:
    std::vector<MatchEntry> &m_out;
    std::atomic<int> &m_progress;
    TaskControl &m_task;
};

/// Listed candidates the schedule will not apply on this graph: the summary
/// says so, rather than leave the rows pending without a word.
OffSchedule offScheduleCandidates(const std::vector<MatchEntry> &matches)
{
    OffSchedule off;
    for (const MatchEntry &e : matches)
        if (e.offSchedule && e.status == MatchStatus::Pending && off.count++ == 0)
            off.first = qs(e.match.pattern) + QStringLiteral(": ") + e.note;
    return off;
}

/// The rows of the rewrites Apply All made.
std::vector<MatchEntry> appliedEntries(const ApplyAllOutcome &outcome, bool verified)
{
    std::vector<MatchEntry> applied;
    for (const AppliedRewrite &a : outcome.result.rewrites) {
        MatchEntry e;
        e.match.pattern = a.pattern;
        e.anchorName = qs(a.anchor);
        e.status = MatchStatus::Applied;
        e.nodesAdded = a.nodesAdded;
        e.nodesRemoved = a.nodesRemoved;
        // "PyTorch 2.6.0+debian through the bridge", as a single apply says.
        e.verification = verified ? tr("passed in %1").arg(qs(outcome.engine)) : QString();
        applied.push_back(e);
    }
    return applied;
}

/// "5 rewrites in Inductor's schedule; 90 → 80 nodes", with the passes left
/// out, the candidates left pending and the undecided attempts.
QString applyAllSummary(const ApplyAllOutcome &outcome, const OffSchedule &offSchedule)
{
    const DriverResult &r = outcome.result;
    const QString how = outcome.schedule == PassSchedule::Inductor ? tr("in Inductor's schedule")
                        : r.rounds == 1                            ? tr("in 1 round of the greedy search")
                                        : tr("in %1 rounds of the greedy search").arg(r.rounds);
    const QString count = r.rewrites.size() == 1 ? tr("1 rewrite") : tr("%1 rewrites").arg(r.rewrites.size());
    QString summary = tr("%1 %2; %3 → %4 nodes").arg(count, how).arg(r.nodesBefore).arg(r.nodesAfter)
                      + (r.converged ? QString() : QStringLiteral(" (%1)").arg(qs(r.message)));
    // Passes the schedule left out for this graph (a pass's devices).
    for (const std::string &note : r.notes)
        summary += QStringLiteral("; ") + qs(note);
    if (offSchedule.count)
        summary += (offSchedule.count == 1 ? tr("; 1 listed candidate left pending")
                                           : tr("; %1 listed candidates left pending").arg(offSchedule.count))
                   + tr(" (first: %1)").arg(offSchedule.first);
    if (!r.undecided.empty())
        summary += (r.undecided.size() == 1 ? tr("; 1 attempt undecided")
                                            : tr("; %1 attempts undecided").arg(r.undecided.size()))
                   + tr(": a value's shape is unknown (first: %1 at %2; Why Not shows which)")
                         .arg(qs(r.undecided.front().pattern), QStringLiteral("%") + qs(r.undecided.front().nodeName));
    return summary;
}

} // namespace

DocumentJobs::DocumentJobs(Document &document, const DocumentParts &parts)
    : m_document(document)
    , m_parts(parts)
{}

// ---- loading -------------------------------------------------------------------

void DocumentJobs::open(const QString &path, const LoadOptions &options, const QString &displayName,
                        bool requirePytorchShapes)
{
    const quint64 generation = ++m_generation;
    m_loading = true;
    m_pendingLoadOptions = options;
    emit loadStarted(path);

    const std::string file = path.toStdString();
    // Read here, on the GUI thread: the Python Settings chose for PyTorch 2.
    const std::string python = Pt2Controller::pythonCommand().toStdString();
    auto result = std::make_shared<std::shared_ptr<Expected<LoadedModel>>>();
    auto opened = std::make_shared<OpenedGraph>();
    m_document.tasks()->run(
        tr("Opening %1").arg(displayName.isEmpty() ? QFileInfo(path).fileName() : displayName), kLoadTask, &m_document,
        [file, options, python, requirePytorchShapes, result, opened](TaskControl &) {
            *result = [&] {
                // The loader reports errors as values; anything else escaping it must
                // not take the GUI down.
                try {
                    auto loaded = std::make_shared<Expected<LoadedModel>>(loadModel(file, options));
                    // An FX dump's values the C++ rules left without a shape: PyTorch 2
                    // on fake tensors, when one is set up (cached per file; its
                    // problems and what stays unknown become the load's warnings).
                    // Infer Shapes asks for PyTorch 2's answer: its failure is the
                    // error the user sees, and the graph shown stays.
                    if (*loaded) {
                        auto shaped = pt2::completeShapes(**loaded, file, python,
                                                          requirePytorchShapes ? pt2::ShapeSource::Pytorch
                                                                               : pt2::ShapeSource::Auto);
                        if (!shaped)
                            return std::make_shared<Expected<LoadedModel>>(
                                Error{"cannot infer its shapes in PyTorch 2: " + shaped.error().message});
                    }
                    return loaded;
                } catch (const std::exception &e) {
                    return std::make_shared<Expected<LoadedModel>>(Error{file + ": " + e.what()});
                } catch (...) {
                    return std::make_shared<Expected<LoadedModel>>(Error{file + ": unknown error while loading"});
                }
            }();
            // What becomes of the graph before it is shown is made here too.
            if (*result && (*result)->hasValue())
                *opened = OpenedGraph::prepare(std::move((*result)->value().graph));
        },
        [this, generation, path, displayName, result, opened](bool) {
            finishLoad(generation, path, displayName, *result, opened);
        });
}

void DocumentJobs::openGraph(Graph graph, const QString &displayName)
{
    const quint64 generation = ++m_generation;
    m_loading = true;
    emit loadStarted(displayName);
    auto opened = std::make_shared<OpenedGraph>();
    auto given = std::make_shared<Graph>(std::move(graph));
    m_document.tasks()->run(
        tr("Opening %1").arg(displayName), kLoadTask, &m_document,
        [given, opened](TaskControl &) { *opened = OpenedGraph::prepare(std::move(*given)); },
        [this, generation, displayName, opened](bool) {
            if (generation != m_generation)
                return; // superseded by a later open
            m_loading = false;
            m_document.adopt(std::move(*opened), GraphOrigin{displayName, {}, {}, {}, {}});
        });
}

void DocumentJobs::finishLoad(quint64 generation, const QString &path, const QString &displayName,
                              std::shared_ptr<Expected<LoadedModel>> result, std::shared_ptr<OpenedGraph> opened)
{
    if (generation != m_generation)
        return; // superseded by a later open()
    m_loading = false;
    if (!result || !result->hasValue()) {
        emit loadFailed(path, result ? QString::fromStdString(result->error().message)
                                     : tr("%1: the loader returned nothing").arg(path));
        return;
    }
    QStringList warnings;
    for (const std::string &w : result->value().warnings)
        warnings << QString::fromStdString(w);
    const LoadOptions options = m_pendingLoadOptions;
    m_document.adopt(std::move(*opened), GraphOrigin{displayName.isEmpty() ? QFileInfo(path).fileName() : displayName,
                                                     path, warnings, std::move(result->value().nodeLines), options});
}

void DocumentJobs::supersedeLoad()
{
    ++m_generation; // a pending load must not overwrite this graph
    waitForFinished();
    m_loading = false;
}

void DocumentJobs::waitForFinished()
{
    m_document.tasks()->waitFor(kFindTask);
    m_document.tasks()->waitFor(kApplyAllTask);
}

// ---- finding matches -------------------------------------------------------------

void DocumentJobs::waitForPatternsIdle()
{
    // The background search, Apply All and applies verified in PyTorch 2 read the pattern set.
    waitForSearch();
    if (m_applyingAll)
        m_document.tasks()->waitFor(kApplyAllTask);
    if (m_parts.pt2->isApplying())
        m_parts.pt2->waitForFinished();
}

std::vector<MatchEntry> DocumentJobs::searchCandidates(const Graph &graph, const PatternSet &patterns)
{
    std::vector<MatchEntry> found;
    for (const Match &m : GreedyDriver(patterns).findMatches(graph)) {
        MatchEntry e;
        e.match = m;
        e.signature = matchSignature(graph, m);
        if (const Node *n = graph.node(m.anchor))
            e.anchorName = qs(n->name);
        found.push_back(std::move(e));
    }
    return found;
}

void DocumentJobs::findMatches()
{
    if (!m_parts.model->hasGraph())
        return;
    if (m_searching || m_applyingAll) {
        m_searchAgain = true;
        return;
    }
    DocumentReview &review = *m_parts.review;
    m_searching = true;
    m_searchCancelled = false;
    review.setHasMatchResults(true); // from now on, changes re-find the matches
    emit matchSearchStarted();
    const quint64 version = m_graphVersion;
    auto found = std::make_shared<std::vector<MatchEntry>>();
    auto nearMissCounts = std::make_shared<std::map<std::string, int>>();
    // Reads the graph and the patterns: every mutation waits for it first. The
    // signatures are computed here too (a 100k-node graph has thousands).
    const Graph &graph = m_parts.history->graph();
    const PatternSet &patterns = m_parts.patternSet->patterns();
    m_document.tasks()->run(
        tr("Finding matches"), kFindTask, &m_document,
        [&graph, &patterns, found, nearMissCounts](TaskControl &) {
            *found = searchCandidates(graph, patterns);
            // Near misses explain every attempt: affordable on ordinary models,
            // left to the Why Not panel (one pattern at a time) on huge graphs.
            if (graph.size() <= Document::kNearMissNodeLimit)
                for (const Pattern *p : patterns.enabled()) {
                    const NearMissSummary s = fusebox::nearMisses(graph, *p);
                    (*nearMissCounts)[p->name()] = int(s.attempted - s.matched);
                }
        },
        [this, &review, version, found, nearMissCounts](bool) {
            m_searching = false;
            if (m_searchCancelled) {
                m_searchCancelled = false;
                m_searchAgain = false;
                review.rebuildMatchList({}); // keeps the applied and failed entries
                return;
            }
            if (version == m_graphVersion && !m_searchAgain) {
                review.setNearMissCounts(std::move(*nearMissCounts));
                review.rebuildMatchList(std::move(*found));
                emit matchSearchFinished();
                return;
            }
            m_searchAgain = false;
            if (review.hasMatchResults())
                findMatches(); // the graph or the patterns changed meanwhile
        });
}

void DocumentJobs::waitForSearch()
{
    if (m_searching)
        m_document.tasks()->waitFor(kFindTask);
}

// ---- Apply All -------------------------------------------------------------------

void DocumentJobs::applyAll()
{
    if (!m_parts.model->hasGraph() || m_applyingAll)
        return;
    waitForSearch();
    m_applyingAll = true;
    emit applyAllStarted();
    // The driver rewrites a copy off the GUI thread; the copy then replaces
    // the graph, and its edit groups become one undo step.
    auto outcome = std::make_shared<ApplyAllOutcome>();
    outcome->graph = m_parts.history->graph().clone();
    outcome->schedule = m_schedule;
    outcome->config = m_parts.persistence->passConfig();
    m_stopApplyAll = std::make_shared<std::atomic<bool>>(false);
    m_applyAllProgress = std::make_shared<std::atomic<int>>(0);
    DriverOptions options = applyAllOptions(outcome);
    auto finish = [this, version = m_graphVersion, outcome, verified = bool(options.verifyRewrite),
                   offSchedule = offScheduleCandidates(m_parts.review->matches())](bool cancelled) {
        finishApplyAll(version, *outcome, offSchedule, verified, cancelled);
    };
    const PatternSet &patterns = m_parts.patternSet->patterns();
    m_document.tasks()->run(
        tr("Applying all"), kApplyAllTask, &m_document,
        [&patterns, outcome, options, progress = m_applyAllProgress](TaskControl &task) mutable {
            // Stopped by Cancel (the document's flag) or through the service.
            options.shouldStop = [stop = options.shouldStop, &task] { return stop() || task.isCancelled(); };
            UndoneCollector undone(outcome->undone, *progress, task);
            outcome->result = runPassSchedule(outcome->schedule, patterns, outcome->config, outcome->graph, options,
                                              &outcome->log, &undone);
        },
        std::move(finish));
}

DriverOptions DocumentJobs::applyAllOptions(const std::shared_ptr<ApplyAllOutcome> &outcome)
{
    DriverOptions options;
    options.shouldStop = [stop = m_stopApplyAll] { return stop->load(); };
    // As `fusebox-pass run --config` skips them (by signature), and by their
    // nodes: the copy keeps the graph's NodeIds.
    options.isRejected = [bySignature = rejectionFilter(m_parts.persistence->passConfig()),
                          rejected = m_parts.review->rejections()](const Graph &g, const Match &m) {
        return (bySignature && bySignature(g, m)) || DocumentReview::rejectionOf(rejected, m, std::string()) != nullptr;
    };
    if (!m_verifyApplies)
        return options;
    // A PT2 graph is verified in PyTorch 2: its verifier is made (the Python
    // started, the original run) on the worker thread, as the first rewrite needs it.
    if (m_parts.pt2->verifiesInPyTorch2()) {
        m_parts.pt2->bridge();
        auto control = std::make_shared<pt2::RequestControl>();
        control->cancel = m_stopApplyAll.get();
        outcome->engine = "PyTorch 2";
        options.verifyRewrite = [pt2 = &*m_parts.pt2, control, stop = m_stopApplyAll,
                                 outcome](const Graph &g) -> std::optional<std::string> {
            auto verifier = pt2->pt2Verifier(*control);
            if (!verifier)
                return stop->load() ? std::string("cancelled") : verifier.error().message;
            outcome->engine = (*verifier)->engine();
            return (**verifier)(g);
        };
    } else if (verifier(nullptr)) {
        std::shared_ptr<const OutputVerifier> keep = m_verifier;
        options.verifyRewrite = [keep](const Graph &g) { return (*keep)(g); };
        outcome->engine = m_verifier->engine();
    }
    return options;
}

void DocumentJobs::finishApplyAll(quint64 version, ApplyAllOutcome &outcome, const OffSchedule &offSchedule,
                                  bool verified, bool cancelled)
{
    m_applyingAll = false;
    const DriverResult &r = outcome.result;
    m_lastCounters = r.counters;
    if (m_stopApplyAll->load() || cancelled) {
        // It ran on a copy: cancelling leaves the document as it was.
        emit applyAllFinished(0, tr("cancelled; nothing was applied"));
        return;
    }
    if (version != m_graphVersion) {
        emit applyAllFinished(0, tr("the graph changed while Apply All ran; nothing was applied"));
        return;
    }
    std::vector<MatchEntry> applied = appliedEntries(outcome, verified);
    if (!applied.empty()) {
        DocumentHistory &history = *m_parts.history;
        history.replaceGraph(std::move(outcome.graph));
        std::vector<EditGroup> groups(outcome.log.groups().begin(), outcome.log.groups().end());
        // Named before the call: an argument that moves `applied` away may be
        // evaluated before one that counts it.
        const QString text = applied.size() == 1 ? tr("Apply All (1 rewrite)")
                                                 : tr("Apply All (%1 rewrites)").arg(applied.size());
        const int rewrites = int(applied.size());
        history.pushRewrite(text, std::move(groups), std::move(applied),
                            SessionStep{true, {}, rewrites, m_parts.patternSet->customNames()});
    }
    m_parts.review->addFailures(outcome.undone);
    m_searchAgain = false;
    emit applyAllFinished(int(r.rewrites.size()), applyAllSummary(outcome, offSchedule));
    m_document.graphChanged();
    // The search graphChanged() started lists what the schedule left: any
    // later change (an apply, an undo, a pattern toggled) bumps the version.
    m_applyAllResultVersion = m_graphVersion;
}

void DocumentJobs::cancel()
{
    if (m_applyingAll && m_stopApplyAll)
        m_stopApplyAll->store(true);
    if (m_searching) {
        m_searchCancelled = true;
        m_parts.review->setHasMatchResults(false);
    }
}

int DocumentJobs::applyAllProgress() const
{
    return m_applyAllProgress ? m_applyAllProgress->load() : 0;
}

// ---- verification ------------------------------------------------------------------

const OutputVerifier *DocumentJobs::verifier(QString *whyNot)
{
    if (!m_verifierTried) {
        m_verifierTried = true;
        ensureFuseboxOpsRegistered();
        // libtorch only: verification runs on the GUI thread after each apply,
        // where starting a PyTorch 2 process (seconds) would stall the window.
        auto created = RewriteVerifier::create(m_parts.history->original(), 1e-4, /*allowBridge=*/false);
        if (created)
            m_verifier = std::make_shared<const RewriteVerifier>(std::move(*created));
        else
            m_verifierError = qs(created.error().message);
        // A PT2 graph is verified in PyTorch 2 once a Python is set up: say so.
        if (const QString why = m_parts.pt2->whyNotPyTorch2(); !created && !why.isEmpty())
            m_verifierError += tr("; not in PyTorch 2 either: %1").arg(why);
    }
    if (!m_verifier && whyNot)
        *whyNot = m_verifierError;
    return m_verifier.get();
}

void DocumentJobs::resetVerifier()
{
    m_verifier.reset();
    m_verifierTried = false;
    m_verifierError.clear();
}

} // namespace fusebox
