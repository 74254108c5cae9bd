// Document, the facade: the loaded graph's identity and the public API,
// forwarded to the parts that do the work (Document.h lists them).
#include "Document.h"

#include "TaskService.h"

#include "DocumentHistory.h"
#include "DocumentJobs.h"
#include "DocumentPatterns.h"
#include "DocumentPersistence.h"
#include "DocumentPt2.h"
#include "DocumentReview.h"

#include "core/ir/Verifier.h"

namespace fusebox {

Document::Document(QObject *parent)
    : QObject(parent)
    , m_tasks(new TaskService(this))
    , m_history(std::make_unique<DocumentHistory>(*this, m_parts))
    , m_patterns(std::make_unique<DocumentPatterns>(*this, m_parts))
    , m_review(std::make_unique<DocumentReview>(*this, m_parts))
    , m_jobs(std::make_unique<DocumentJobs>(*this, m_parts))
    , m_persistence(std::make_unique<DocumentPersistence>(*this, m_parts))
    , m_pt2(std::make_unique<DocumentPt2>(*this, m_parts))
{
    // No part uses another while it is made: the set is whole before any is used.
    m_parts = {m_history.get(), m_patterns.get(), m_review.get(), m_jobs.get(), m_persistence.get(), m_pt2.get()};
}

Document::~Document()
{
    // A PyTorch 2 job reads the patterns; its Python is killed.
    m_pt2->cancel();
    m_pt2->waitForFinished();
    // A background task (a search, Apply All, a load) reads the graph and the patterns.
    m_tasks->cancel();
    m_tasks->waitFor();
    // The undo stack is a child, so QObject would delete it after this object's members are
    // gone, and its clear() emits indexChanged to windows that then read them (a double free
    // of the display name in valgrind). Quiet it and delete it while the members still live.
    m_history->deleteUndoStack();
}

// ---- the graph ---------------------------------------------------------------------

const Graph &Document::graph() const
{
    return m_history->graph();
}

bool Document::isLoading() const
{
    return m_jobs->isLoading();
}

void Document::open(const QString &path, const LoadOptions &options, const QString &displayName,
                    bool requirePytorchShapes)
{
    m_jobs->open(path, options, displayName, requirePytorchShapes);
}

namespace {

std::map<OpFamily, size_t> countFamilies(const Graph &graph)
{
    std::map<OpFamily, size_t> counts;
    for (NodeId id : graph.nodeIds())
        ++counts[opFamily(*graph.node(id))];
    return counts;
}

} // namespace

OpenedGraph OpenedGraph::prepare(Graph graph)
{
    OpenedGraph opened;
    opened.original = graph.clone();
    opened.issues = verify(graph);
    opened.shapes = countShapes(graph);
    opened.summary = summarize(graph);
    opened.families = countFamilies(graph);
    opened.scopes = std::make_shared<const ScopeTree>(graph);
    opened.graph = std::move(graph);
    return opened;
}

void Document::setGraph(Graph graph, const QString &displayName, const QStringList &warnings, const QString &filePath,
                        std::vector<int> nodeLines, LoadOptions options)
{
    adopt(OpenedGraph::prepare(std::move(graph)), displayName, warnings, filePath, std::move(nodeLines),
          std::move(options));
}

void Document::openGraph(Graph graph, const QString &displayName)
{
    m_jobs->openGraph(std::move(graph), displayName);
}

void Document::adopt(OpenedGraph opened, const QString &displayName, const QStringList &warnings,
                     const QString &filePath, std::vector<int> nodeLines, LoadOptions options)
{
    m_jobs->supersedeLoad();
    m_pt2->cancel(); // its result is for the old graph
    m_pt2->waitForFinished();
    m_loadOptions = std::move(options);
    m_hasGraph = true;
    m_displayName = displayName;
    m_filePath = filePath;
    m_warnings = warnings;
    m_nodeLines = std::move(nodeLines);
    m_jobs->bumpVersion();
    m_history->reset(std::move(opened.graph), std::move(opened.original));
    m_shapeCounts = opened.shapes;
    m_summary = std::move(opened.summary);
    m_families = std::move(opened.families);
    m_scopeTree = std::move(opened.scopes);
    resetSession();
    for (const VerifierIssue &issue : opened.issues)
        m_warnings << tr("verifier: %1").arg(QString::fromStdString(issue.message));
    emit graphLoaded();
}

std::vector<size_t> Document::inputsWithoutShape() const
{
    std::vector<size_t> unknown;
    const auto &inputs = graph().inputs();
    for (size_t i = 0; i < inputs.size(); ++i) {
        const Node *n = graph().node(inputs[i]);
        // Tensor inputs only: an int or a list input has no shape to give.
        if (n && (n->type.empty() || n->type == "Tensor") && !n->meta.hasStaticShape())
            unknown.push_back(i);
    }
    return unknown;
}

void Document::resetSession()
{
    // A new graph is a new review: decisions and history belong to the old one
    // (the history was reset with the graph).
    m_review->reset();
    m_jobs->resetVerifier();
    m_pt2->resetVerifier();
}

const ShapeCounts &Document::shapeCounts() const
{
    if (!m_shapeCounts)
        m_shapeCounts = countShapes(graph());
    return *m_shapeCounts;
}

const std::map<OpFamily, size_t> &Document::familyCounts() const
{
    if (!m_families)
        m_families = countFamilies(graph());
    return *m_families;
}

const GraphSummary &Document::summary() const
{
    if (!m_summary)
        m_summary = summarize(graph());
    return *m_summary;
}

std::shared_ptr<const ScopeTree> Document::sharedScopeTree() const
{
    if (!m_scopeTree)
        m_scopeTree = std::make_shared<const ScopeTree>(graph());
    return m_scopeTree;
}

void Document::graphChanged()
{
    m_jobs->bumpVersion();
    m_shapeCounts.reset();
    m_summary.reset();
    m_families.reset();
    m_scopeTree.reset();
    emit graphRewritten();
    if (m_review->hasMatchResults())
        findMatches();
    else
        m_review->rebuildMatchList({});
}

// ---- patterns ----------------------------------------------------------------------

const PatternSet &Document::patterns() const
{
    return m_patterns->patterns();
}

void Document::setPatternEnabled(const QString &name, bool enabled)
{
    m_patterns->setPatternEnabled(name, enabled);
}
void Document::setInductorProfile(const InductorProfile &profile)
{
    m_patterns->setInductorProfile(profile);
}
const InductorProfile &Document::inductorProfile() const
{
    return m_patterns->inductorProfile();
}

Status Document::setPatternOption(const QString &pattern, const QString &option, const OptionValue &value)
{
    return m_patterns->setPatternOption(pattern, option, value);
}

Status Document::addPatternFile(const QString &path)
{
    return m_patterns->addPatternFile(path);
}

Expected<std::vector<std::string>> Document::addPatternText(const QString &text, const QString &sourceName)
{
    return m_patterns->addPatternText(text, sourceName);
}

const std::vector<std::string> &Document::customPatternNames() const
{
    return m_patterns->customNames();
}

std::string Document::customOrigin(const std::string &pattern) const
{
    return m_patterns->customOrigin(pattern);
}

PatternTally Document::tally(const std::string &pattern) const
{
    return m_review->tally(pattern);
}

std::map<std::string, PatternTally> Document::tallies() const
{
    return m_review->tallies();
}

// ---- matches -----------------------------------------------------------------------

const std::vector<MatchEntry> &Document::matches() const
{
    return m_review->matches();
}

void Document::findMatches()
{
    m_jobs->findMatches();
}

bool Document::isSearching() const
{
    return m_jobs->isSearching();
}

void Document::waitForSearch()
{
    m_jobs->waitForSearch();
}

bool Document::hasMatchResults() const
{
    return m_review->hasMatchResults();
}

int Document::applyMatches(const std::vector<int> &rows, QString *error)
{
    return m_review->applyMatches(rows, error);
}

void Document::applyAll()
{
    m_jobs->applyAll();
}

bool Document::isApplying() const
{
    return m_pt2->isApplying();
}

bool Document::verifiesInPyTorch2() const
{
    return m_jobs->verifyApplies() && m_pt2->verifiesInPyTorch2();
}

QString Document::pt2ProgressText() const
{
    return m_pt2->progressText();
}

std::shared_ptr<pt2::Pt2Bridge> Document::pt2Bridge()
{
    return m_pt2->bridge();
}

bool Document::exportForPyTorch2(const QString &path, pt2::Pt2ExportFormat format,
                                 std::function<void(Expected<pt2::Pt2ExportResult>)> done, QString *error)
{
    return m_pt2->exportInBackground(path, format, std::move(done), error);
}

bool Document::isApplyingAll() const
{
    return m_jobs->isApplyingAll();
}

int Document::applyAllProgress() const
{
    return m_jobs->applyAllProgress();
}

void Document::cancelBackground()
{
    m_jobs->cancel();
    m_pt2->cancel();
}

const std::map<std::string, PatternCounters> &Document::lastApplyAllCounters() const
{
    return m_jobs->lastCounters();
}

bool Document::rejectMatch(int row)
{
    return m_review->rejectMatch(row);
}

bool Document::restoreMatch(int row)
{
    return m_review->restoreMatch(row);
}

bool Document::isRejected(const std::string &signature) const
{
    return m_review->isRejected(signature);
}

void Document::setSchedule(PassSchedule schedule)
{
    m_jobs->setSchedule(schedule);
}

PassSchedule Document::schedule() const
{
    return m_jobs->schedule();
}

void Document::setVerifyApplies(bool on)
{
    m_jobs->setVerifyApplies(on);
}

bool Document::verifyApplies() const
{
    return m_jobs->verifyApplies();
}

std::optional<Explanation> Document::explain(const std::string &pattern, NodeId node) const
{
    const Pattern *p = patterns().find(pattern);
    if (!p || !graph().contains(node))
        return std::nullopt;
    // The answer for the schedule Apply All runs (Rewrite ▸ Schedule).
    return explainForSchedule(schedule(), patterns(), passConfig(), graph(), *p, {node}).front();
}

std::optional<NearMissSummary> Document::nearMisses(const std::string &pattern) const
{
    const Pattern *p = patterns().find(pattern);
    if (!p)
        return std::nullopt;
    return nearMissesForSchedule(schedule(), patterns(), passConfig(), graph(), *p);
}

// ---- history -----------------------------------------------------------------------

QUndoStack *Document::undoStack() const
{
    return m_history->undoStack();
}

const Graph &Document::originalGraph() const
{
    return m_history->original();
}

std::vector<const EditGroup *> Document::appliedGroups() const
{
    return m_history->appliedGroups();
}

bool Document::isModified() const
{
    return m_history->isModified();
}

void Document::markSaved()
{
    m_history->markSaved();
}

// ---- the pass file and sessions ----------------------------------------------------

PassConfig Document::passConfig() const
{
    return m_persistence->passConfig();
}

Status Document::savePassFile(const QString &path)
{
    return m_persistence->savePassFile(path);
}

Status Document::loadPassFile(const QString &path)
{
    return m_persistence->loadPassFile(path);
}

Status Document::applyPassConfig(const PassConfig &config, const std::string &sourceName)
{
    return m_persistence->applyPassConfig(config, sourceName);
}

const std::vector<std::string> &Document::configNotes() const
{
    return m_patterns->configNotes();
}

std::vector<SessionStep> Document::sessionSteps() const
{
    return m_history->sessionSteps();
}

bool Document::replaySteps(const std::vector<SessionStep> &steps, QString *error, const PassConfig *pass,
                           const std::string &sourceName)
{
    return m_persistence->replaySteps(steps, error, pass, sourceName);
}

} // namespace fusebox
