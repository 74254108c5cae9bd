// What the document does in PyTorch 2 through its own bridge: the verifier of
// PT2 graphs, applies verified there in the background, and exports.
#include "DocumentPt2.h"

#include "TaskService.h"

#include "Document.h"
#include "DocumentHistory.h"
#include "DocumentJobs.h"
#include "DocumentPatterns.h"
#include "DocumentReview.h"
#include "DocumentTr.h"
#include "Pt2Controller.h"
#include "QtStrings.h"

#include "core/ir/GraphSource.h"
#include "core/pt2/PythonCommand.h"
#include "core/rewrite/GreedyDriver.h"

#include <QFileInfo>

#include <cstdio>

namespace fusebox {

namespace {

using document_tr::tr;

/// "1.5e-06", as the verifier's messages write differences.
std::string sci(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.1e", value);
    return text;
}

/// The kind of the document's PyTorch 2 jobs in its TaskService.
const QString kPt2Task = QStringLiteral("document.pt2");

} // namespace

DocumentPt2::DocumentPt2(Document &document, const DocumentParts &parts)
    : m_document(document)
    , m_parts(parts)
{}

DocumentPt2::~DocumentPt2()
{
    cancel();
    waitForFinished();
}

bool DocumentPt2::verifiesInPyTorch2() const
{
    return m_parts.model->hasGraph() && isPt2Graph(m_parts.history->original())
           && pt2::findPythonCommand(Pt2Controller::pythonCommand().toStdString()).has_value();
}

QString DocumentPt2::whyNotPyTorch2() const
{
    if (!m_parts.model->hasGraph() || !isPt2Graph(m_parts.history->original())
        || pt2::findPythonCommand(Pt2Controller::pythonCommand().toStdString()))
        return {};
    return qs(pt2::noPythonMessage());
}

std::shared_ptr<pt2::Pt2Bridge> DocumentPt2::bridge()
{
    const std::string command = Pt2Controller::pythonCommand().toStdString();
    if (m_bridge && command == m_bridgeCommand)
        return m_bridge;
    // Another Python chosen in the settings: a new bridge (the running jobs keep theirs).
    auto found = pt2::Pt2Bridge::find(command);
    m_bridgeCommand = command;
    m_bridge = found ? std::shared_ptr<pt2::Pt2Bridge>(std::move(*found)) : nullptr;
    std::lock_guard lock(m_verifierMutex);
    m_verifier.reset();
    return m_bridge;
}

Expected<std::shared_ptr<pt2::BridgeVerifier>> DocumentPt2::pt2Verifier(const pt2::RequestControl &control)
{
    std::lock_guard lock(m_verifierMutex);
    if (m_verifier)
        return m_verifier;
    if (!m_bridge)
        return Error{pt2::noPythonMessage()};
    setProgress("starting PyTorch 2 and running the original graph");
    auto created = pt2::BridgeVerifier::create(m_bridge, m_parts.history->original(), 1e-4, control);
    if (!created)
        return created.error();
    m_verifier = std::make_shared<pt2::BridgeVerifier>(std::move(*created));
    return m_verifier;
}

void DocumentPt2::resetVerifier()
{
    std::lock_guard lock(m_verifierMutex);
    m_verifier.reset();
}

void DocumentPt2::setProgress(const std::string &text)
{
    std::lock_guard lock(m_progressMutex);
    m_progress = text;
    if (m_task)
        m_task->setStatus(qs(text));
}

void DocumentPt2::reportTo(TaskControl *task)
{
    std::lock_guard lock(m_progressMutex);
    m_task = task;
}

DocumentPt2::Reporting::Reporting(DocumentPt2 &pt2, TaskControl &task)
    : m_pt2(pt2)
{
    m_pt2.reportTo(&task);
}

DocumentPt2::Reporting::~Reporting()
{
    m_pt2.reportTo(nullptr);
}

QString DocumentPt2::progressText() const
{
    if (!m_applying && !m_exporting)
        return {};
    std::lock_guard lock(m_progressMutex);
    return tr("PyTorch 2: %1…").arg(qs(m_progress));
}

void DocumentPt2::cancel()
{
    m_document.tasks()->cancel(kPt2Task);
}

void DocumentPt2::waitForFinished()
{
    m_document.tasks()->waitFor(kPt2Task);
}

// ---- applies verified in PyTorch 2 ------------------------------------------------

bool DocumentPt2::applyInBackground(std::vector<MatchEntry> chosen)
{
    if (m_applying || m_exporting || chosen.empty())
        return false;
    bridge(); // made here, on the GUI thread; its Python starts in the worker
    m_applying = true;
    setProgress("starting");
    const QString what = chosen.size() == 1
                             ? tr("Apply %1 at %%2").arg(qs(chosen.front().match.pattern), chosen.front().anchorName)
                             : tr("Apply %n matches", nullptr, int(chosen.size()));
    emit applyStarted(what);

    // The rewrites happen on a copy off the GUI thread, each checked in
    // PyTorch 2 as it is made; the copy then replaces the graph.
    struct Outcome {
        Graph graph;
        std::vector<MatchEntry> chosen, applied, failed;
        std::vector<EditGroup> groups;
        int stale = 0;
        std::string error; // the verifier could not be made, or the job was cancelled
    };
    auto outcome = std::make_shared<Outcome>();
    outcome->graph = m_parts.history->graph().clone();
    outcome->chosen = std::move(chosen);
    const quint64 version = m_parts.jobs->version();
    auto finish = [this, outcome, version, what](bool cancelled) {
        m_applying = false;
        DocumentReview &review = *m_parts.review;
        if (cancelled || !outcome->error.empty() || version != m_parts.jobs->version()) {
            const QString why = cancelled ? tr("cancelled; nothing was applied")
                                : !outcome->error.empty()
                                    ? tr("not applied: %1").arg(qs(outcome->error))
                                    : tr("the graph changed while PyTorch 2 verified it; nothing was applied");
            emit applyFinished(0, tr("%1: %2").arg(what, why));
            return;
        }
        for (MatchEntry &e : outcome->failed)
            review.recordFailure(std::move(e));
        if (!outcome->applied.empty())
            m_parts.history->replaceGraph(std::move(outcome->graph));
        const int applied = int(outcome->applied.size());
        QString error;
        review.commitApplies(std::move(outcome->groups), std::move(outcome->applied), outcome->stale, &error);
        emit applyFinished(applied, applied ? tr("%1: verified in PyTorch 2").arg(what) : tr("%1: %2").arg(what, error));
    };
    const PatternSet &patterns = m_parts.patternSet->patterns();
    m_document.tasks()->run(
        tr("PyTorch 2: %1").arg(what), kPt2Task, &m_document,
        [this, &patterns, outcome](TaskControl &task) {
            const Reporting reporting(*this, task);
            pt2::RequestControl control;
            control.cancel = task.cancelFlag();
            const std::atomic<bool> *cancel = task.cancelFlag();
            control.progress = [this](const std::string &text, double) { setProgress(text); };
            auto verifier = pt2Verifier(control);
            if (!verifier) {
                outcome->error = cancel->load() ? "cancelled" : verifier.error().message;
                return;
            }
            const size_t total = outcome->chosen.size();
            for (size_t i = 0; i < total && !cancel->load(); ++i) {
                MatchEntry e = outcome->chosen[i];
                // PyTorch 2's check is the verifier of the one apply path
                // (applyOneMatch): a rewrite it objects to is undone there.
                double maxAbsDiff = 0;
                DriverOptions options;
                options.verifyRewrite = [&](const Graph &g) -> std::optional<std::string> {
                    setProgress(
                        "verifying " + e.match.pattern + " at %" + e.anchorName.toStdString() + " in "
                        + (*verifier)->engine()
                        + (total > 1 ? " (" + std::to_string(i + 1) + " of " + std::to_string(total) + ")" : ""));
                    auto checked = (*verifier)->check(g, control);
                    if (!checked)
                        return checked.error().message;
                    if (!checked->passed)
                        return checked->message;
                    maxAbsDiff = checked->maxAbsDiff;
                    return std::nullopt;
                };
                EditLog log;
                const ApplyOutcome applied = applyOneMatch(outcome->graph, patterns, e.match, log, options);
                if (cancel->load())
                    return; // the outcome is dropped whole: the copy's state does not matter
                if (applied.kind == ApplyOutcome::Kind::FailedVerification) {
                    e.status = MatchStatus::FailedVerification;
                    e.verification = qs(applied.message);
                    outcome->failed.push_back(std::move(e));
                    continue;
                }
                if (applied.kind != ApplyOutcome::Kind::Applied) {
                    ++outcome->stale; // an earlier rewrite of this batch changed it
                    continue;
                }
                e.verification = qs("passed in " + (*verifier)->engine() + " (max |diff| " + sci(maxAbsDiff) + ")");
                e.status = MatchStatus::Applied;
                const std::vector<EditGroup> mine(log.groups().begin(),
                                                  log.groups().begin() + std::ptrdiff_t(log.appliedCount()));
                for (const EditGroup &g : mine)
                    countEdits(g, e);
                outcome->groups.insert(outcome->groups.end(), mine.begin(), mine.end());
                outcome->applied.push_back(std::move(e));
            }
        },
        std::move(finish));
    return true;
}

// ---- exports for stock PyTorch 2 ----------------------------------------------------

bool DocumentPt2::exportInBackground(const QString &path, pt2::Pt2ExportFormat format,
                                     std::function<void(Expected<pt2::Pt2ExportResult>)> done, QString *error)
{
    if (m_applying || m_exporting) {
        if (error)
            *error = tr("a PyTorch 2 job is running");
        return false;
    }
    std::shared_ptr<pt2::Pt2Bridge> b = bridge();
    if (!b) {
        if (error)
            *error = qs(pt2::noPythonMessage());
        return false;
    }
    m_exporting = true;
    setProgress("exporting " + path.toStdString());
    // Copies: the review may go on while PyTorch 2 exports.
    auto graphs = std::make_shared<std::pair<Graph, Graph>>(m_parts.history->graph().clone(),
                                                            m_parts.history->original().clone());
    auto result = std::make_shared<Expected<pt2::Pt2ExportResult>>(Error{"not run"});
    m_document.tasks()->run(
        tr("PyTorch 2: exporting %1").arg(QFileInfo(path).fileName()), kPt2Task, &m_document,
        [this, b, graphs, result, path, format](TaskControl &task) {
            const Reporting reporting(*this, task);
            pt2::RequestControl control;
            control.cancel = task.cancelFlag();
            control.progress = [this](const std::string &text, double) { setProgress(text); };
            *result = pt2::exportForPyTorch2(*b, graphs->first, graphs->second, path.toStdString(), format, control);
        },
        [this, result, done](bool cancelled) {
            m_exporting = false;
            done(cancelled ? Expected<pt2::Pt2ExportResult>(Error{"cancelled; nothing was written"})
                           : std::move(*result));
        });
    return true;
}

} // namespace fusebox
