#include "OptimusStepsWindow.h"

#include "DiffView.h"
#include "QtStrings.h"
#include "TaskService.h"
#include "core/io/TorchTraceGraphs.h"
#include "core/ir/GraphSignature.h"
#include "core/torch/ModelLoader.h"
#include "core/torch/TorchSchemas.h"

#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>

namespace fusebox {

TraceReplayOptions traceReplayOptions(const FallbackProfile &fallback)
{
    TraceReplayOptions options;
    options.load = [](const std::string &path) { return loadModel(path); };
    options.schemas = &pt2GraphSchemas().registry;
    if ((options.fallbackProfile = fallback ? fallback() : nullptr))
        options.fallbackSource = "the document's, Settings ▸ Inductor Version";
    return options;
}

OptimusStepsWindow::OptimusStepsWindow(std::shared_ptr<const TraceLog> log, size_t compile, TaskService *tasks,
                                       FallbackProfile fallback, QWidget *parent)
    : QWidget(parent)
    , m_log(std::move(log))
    , m_compile(m_log->compiles.at(compile))
    , m_tasks(tasks)
    , m_fallback(std::move(fallback))
    , m_payloads(optimusStepsOf(m_compile))
    , m_header(new QLabel)
    , m_steps(new QListWidget)
    , m_diff(new DiffView(nullptr))
    , m_replay(new QPushButton(tr("Replay with Fusebox")))
{
    setWindowTitle(tr("Optimus, pass by pass — [%1] %2").arg(qs(m_compile.label()), qs(m_compile.frame)));
    m_header->setWordWrap(true);
    m_header->setText(tr("Reading the %1 logged stages…").arg(m_payloads.size()));
    m_replay->setEnabled(false);
    m_replay->setToolTip(tr("Runs Fusebox's Inductor profile for the log's torch version on the before-graph, with "
                            "the options the compile used, and compares each pass with production's"));
    auto *left = new QWidget;
    left->setMinimumWidth(360);
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(m_steps, 1);
    leftLayout->addWidget(m_replay);
    auto *split = new QSplitter;
    split->addWidget(left);
    split->addWidget(m_diff);
    split->setStretchFactor(1, 4);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_header);
    layout->addWidget(split, 1);

    connect(m_steps, &QListWidget::currentRowChanged, this, &OptimusStepsWindow::showStep);
    connect(m_replay, &QPushButton::clicked, this, &OptimusStepsWindow::startReplay);
    loadSteps();
}

void OptimusStepsWindow::loadSteps()
{
    std::vector<std::string> addresses;
    for (const TracePayload *payload : m_payloads)
        addresses.push_back(traceGraphPath(*m_log, {&m_compile, payload}));
    auto graphs = std::make_shared<std::vector<Graph>>();
    auto error = std::make_shared<std::string>();
    m_tasks->run(
        tr("Reading the Optimus steps of [%1]").arg(qs(m_compile.label())), QStringLiteral("trace.steps"), this,
        [addresses, graphs, error](TaskControl &control) {
            for (size_t i = 0; i < addresses.size() && !control.isCancelled(); ++i) {
                control.setProgress(static_cast<qint64>(i), static_cast<qint64>(addresses.size()));
                auto model = loadModel(addresses[i]);
                if (!model) {
                    *error = model.error().message;
                    return;
                }
                graphs->push_back(std::move(model->graph));
            }
        },
        [this, graphs, error](bool cancelled) {
            if (cancelled || !error->empty()) {
                const QString message = cancelled ? tr("reading the steps was cancelled") : qs(*error);
                m_header->setText(message);
                emit failed(message);
                return;
            }
            m_graphs = std::move(*graphs);
            size_t passes = 0;
            for (size_t i = 0; i < m_payloads.size(); ++i) {
                QString text = qs(m_payloads[i]->kind);
                if (m_payloads[i]->kind == "before_post_grad_graph") {
                    text = tr("— post-grad: %1  %2 nodes").arg(text).arg(m_graphs[i].size());
                } else if (i > 0) {
                    passes += m_payloads[i]->kind != "after_pre_grad_graph";
                    const NamedDifference difference = namedDifference(m_graphs[i - 1], m_graphs[i]);
                    text += !difference.empty()
                                ? tr("  −%1 +%2 nodes").arg(difference.onlyInA.size()).arg(difference.onlyInB.size())
                                : tr("  (no change)");
                } else {
                    text += tr("  %1 nodes").arg(m_graphs[0].size());
                }
                m_steps->addItem(text);
            }
            m_header->setText(
                tr("%1 passes changed the graph in production (torch %2). Select a step to "
                   "see what its pass did; Replay compares Fusebox's passes with them.")
                    .arg(passes)
                    .arg(m_log->torchVersion.empty() ? tr("version not recorded") : qs(m_log->torchVersion)));
            m_replay->setEnabled(true);
            m_steps->setCurrentRow(m_payloads.size() > 1 ? 1 : 0);
            emit stepsLoaded();
        });
}

void OptimusStepsWindow::showStep(int row)
{
    if (row < 0 || static_cast<size_t>(row) >= m_graphs.size())
        return;
    const size_t i = static_cast<size_t>(row);
    const TracePayload &payload = *m_payloads[i];
    // A stage's start (before_pre_grad_graph, before_post_grad_graph) is
    // shown alone: no pass made it from the step above.
    const size_t from = isOptimusStart(payload) ? i : i - 1;
    const NamedDifference difference = namedDifference(m_graphs[from], m_graphs[i]);
    // Inductor runs its own post-grad passes before the first Optimus pattern
    // pass: the step from the graph above holds both.
    const bool firstPostGradPass = from != i && payload.kind.ends_with("_post_grad")
                                   && !m_payloads[from]->kind.ends_with("_post_grad");
    // Every headline but a start's names the step, its counts and its line.
    const QString stepFormat
        = payload.kind == "after_pre_grad_graph"
              ? tr("%1: the graph after every pre-grad pass (%2 nodes removed and %3 added since the step above) — "
                   "line %4")
          : firstPostGradPass
              ? tr("%1: the graph after this pass and Inductor's own post-grad passes before it (no-op removal, its "
                   "pattern passes), which the log does not hold apart: %2 nodes removed, %3 added — line %4")
              : tr("%1: the pass removed %2 nodes (outlined on the left) and added %3 (outlined on the right) — line "
                   "%4");
    const QString headline
        = isOptimusStart(payload)
              ? tr("%1: the graph Optimus starts from (line %2)").arg(qs(payload.kind)).arg(payload.line)
              : stepFormat.arg(qs(payload.kind))
                    .arg(difference.onlyInA.size())
                    .arg(difference.onlyInB.size())
                    .arg(payload.line);
    QStringList details;
    if (m_replayResult) {
        for (const ReplayStep &step : m_replayResult->steps) {
            if (step.artifact != payload.kind)
                continue;
            details << tr("Fusebox, as %1: %2").arg(qs(m_replayResult->profile), qs(step.verdict));
            for (const std::string &line : step.whyNot)
                details << tr("why not %1").arg(qs(line));
        }
        if (payload.kind == "after_pre_grad_graph")
            details << tr("Fusebox's result: %1").arg(qs(m_replayResult->verdict));
        if (payload.kind == "before_post_grad_graph" && !m_replayResult->postGradNote.empty())
            details << qs(m_replayResult->postGradNote);
    }
    m_diff->showComparison(m_graphs[from], qs(m_payloads[from]->kind), m_graphs[i], qs(payload.kind),
                           difference.onlyInA, difference.onlyInB, headline, details);
}

void OptimusStepsWindow::startReplay()
{
    m_replay->setEnabled(false);
    auto result = std::make_shared<Expected<CompileReplay>>(Error{"not run"});
    const TraceLog *log = m_log.get();
    const TraceCompile *compile = &m_compile;
    auto keep = m_log;
    // Made here, on the GUI thread, where the document's profile is read.
    auto options = std::make_shared<const TraceReplayOptions>(traceReplayOptions(m_fallback));
    m_tasks->run(
        tr("Replaying [%1] with Fusebox").arg(qs(m_compile.label())), QStringLiteral("trace.replay"), this,
        [log, compile, keep, result, options](TaskControl &) { *result = replayCompile(*log, *compile, *options); },
        [this, result](bool) {
            m_replay->setEnabled(true);
            if (!*result) {
                m_header->setText(qs(result->error().message));
                emit failed(qs(result->error().message));
                return;
            }
            m_replayResult = std::move(result->value());
            markSteps();
            emit replayed();
        });
}

void OptimusStepsWindow::markSteps()
{
    const CompileReplay &replay = *m_replayResult;
    m_header->setText(tr("Replayed with %1; options from %2. %3")
                          .arg(qs(replay.profile), qs(replay.optionsSource),
                               replay.same ? tr("Fusebox gives production's graph, pass by pass.")
                                           : tr("Fusebox differs: %1").arg(qs(replay.verdict))));
    for (size_t i = 0; i < m_payloads.size(); ++i) {
        QListWidgetItem *item = m_steps->item(static_cast<int>(i));
        for (const ReplayStep &step : replay.steps) {
            if (step.artifact != m_payloads[i]->kind)
                continue;
            item->setText(item->text()
                          + (!step.compared ? tr("  · not compared")
                             : step.same    ? tr("  ✓ same")
                                            : tr("  ≠ differs")));
            item->setToolTip(qs(step.verdict));
            if (step.compared && !step.same)
                item->setForeground(QColor(0xb0, 0x20, 0x20));
        }
        if (m_payloads[i]->kind == "after_pre_grad_graph")
            item->setText(item->text() + (replay.same ? tr("  ✓ Fusebox's result") : tr("  ≠ Fusebox's result")));
    }
    // Passes only Fusebox fired have no logged graph: listed after the steps.
    for (const ReplayStep &step : replay.steps)
        if (!step.production && step.fusebox)
            m_steps->addItem(tr("%1: fired in Fusebox only  ≠").arg(qs(step.pass)));
    showStep(m_steps->currentRow());
}

} // namespace fusebox
