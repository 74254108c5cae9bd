// Document: makes and wires its parts (Document.h lists them), and gives the
// views the commands that change the review, each carried out by the part
// that owns what it changes.
#include "Document.h"

#include "TaskService.h"

#include "core/ir/Verifier.h"

namespace fusebox {

Document::Document(QObject *parent)
    : QObject(parent)
    , m_tasks(new TaskService(this))
    , m_history(std::make_unique<DocumentHistory>(*this, m_parts))
    , m_model(std::make_unique<DocumentGraph>(*m_history))
    , m_patterns(std::make_unique<DocumentPatterns>(*this, m_parts))
    , m_review(std::make_unique<DocumentReview>(*this, m_parts))
    , m_jobs(std::make_unique<DocumentJobs>(*this, m_parts))
    , m_persistence(std::make_unique<DocumentPersistence>(*this, m_parts))
    , m_pt2(std::make_unique<DocumentPt2>(*this, m_parts))
{
    // No part uses another while it is made: the set is whole before any is used.
    m_parts = {m_history.get(), m_model.get(),       m_patterns.get(), m_review.get(),
               m_jobs.get(),    m_persistence.get(), m_pt2.get()};
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

void Document::open(const QString &path, const LoadOptions &options, const QString &displayName,
                    bool requirePytorchShapes)
{
    m_jobs->open(path, options, displayName, requirePytorchShapes);
}

void Document::setGraph(Graph graph, const QString &displayName, const QStringList &warnings, const QString &filePath,
                        std::vector<int> nodeLines, LoadOptions options)
{
    adopt(OpenedGraph::prepare(std::move(graph)),
          GraphOrigin{displayName, filePath, warnings, std::move(nodeLines), std::move(options)});
}

void Document::openGraph(Graph graph, const QString &displayName)
{
    m_jobs->openGraph(std::move(graph), displayName);
}

void Document::adopt(OpenedGraph opened, GraphOrigin origin)
{
    m_jobs->supersedeLoad();
    m_pt2->cancel(); // its result is for the old graph
    m_pt2->waitForFinished();
    m_jobs->bumpVersion();
    m_history->reset(std::move(opened.graph), std::move(opened.original));
    resetSession();
    for (const VerifierIssue &issue : opened.issues)
        origin.warnings << tr("verifier: %1").arg(QString::fromStdString(issue.message));
    m_model->adopt(std::move(origin), std::move(opened.facts));
}

void Document::resetSession()
{
    // A new graph is a new review: decisions and history belong to the old one
    // (the history was reset with the graph).
    m_review->reset();
    m_jobs->resetVerifier();
    m_pt2->resetVerifier();
}

void Document::graphChanged()
{
    m_jobs->bumpVersion();
    m_model->rewritten();
    if (m_review->hasMatchResults())
        findMatches();
    else
        m_review->rebuildMatchList({});
}

// ---- patterns ----------------------------------------------------------------------

void Document::setPatternEnabled(const QString &name, bool enabled)
{
    m_patterns->setPatternEnabled(name, enabled);
}
void Document::setInductorProfile(const InductorProfile &profile)
{
    m_patterns->setInductorProfile(profile);
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

// ---- matches -----------------------------------------------------------------------

void Document::findMatches()
{
    m_jobs->findMatches();
}

void Document::waitForSearch()
{
    m_jobs->waitForSearch();
}

int Document::applyMatches(const std::vector<int> &rows, QString *error)
{
    return m_review->applyMatches(rows, error);
}

void Document::applyAll()
{
    m_jobs->applyAll();
}

bool Document::verifiesInPyTorch2() const
{
    return m_jobs->verifyApplies() && m_pt2->verifiesInPyTorch2();
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

void Document::cancelBackground()
{
    m_jobs->cancel();
    m_pt2->cancel();
}

bool Document::rejectMatch(int row)
{
    return m_review->rejectMatch(row);
}

bool Document::restoreMatch(int row)
{
    return m_review->restoreMatch(row);
}

void Document::setSchedule(PassSchedule schedule)
{
    m_jobs->setSchedule(schedule);
}

void Document::setVerifyApplies(bool on)
{
    m_jobs->setVerifyApplies(on);
}

std::optional<Explanation> Document::explain(const std::string &pattern, NodeId node) const
{
    const PatternSet &patterns = m_patterns->patterns();
    const Pattern *p = patterns.find(pattern);
    const Graph &graph = m_history->graph();
    if (!p || !graph.contains(node))
        return std::nullopt;
    // The answer for the schedule Apply All runs (Rewrite ▸ Schedule).
    return explainForSchedule(m_jobs->schedule(), patterns, m_persistence->passConfig(), graph, *p, {node}).front();
}

std::optional<NearMissSummary> Document::nearMisses(const std::string &pattern) const
{
    const PatternSet &patterns = m_patterns->patterns();
    const Pattern *p = patterns.find(pattern);
    if (!p)
        return std::nullopt;
    return nearMissesForSchedule(m_jobs->schedule(), patterns, m_persistence->passConfig(), m_history->graph(), *p);
}

// ---- history -----------------------------------------------------------------------

void Document::markSaved()
{
    m_history->markSaved();
}

// ---- the pass file and sessions ----------------------------------------------------

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

bool Document::replaySteps(const std::vector<SessionStep> &steps, QString *error, const PassConfig *pass,
                           const std::string &sourceName)
{
    return m_persistence->replaySteps(steps, error, pass, sourceName);
}

} // namespace fusebox
