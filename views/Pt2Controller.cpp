#include "Pt2Controller.h"

#include "DiffView.h"
#include "Document.h"
#include "InductorVersionSetting.h"
#include "MainWindow.h"
#include "QtStrings.h"
#include "TaskService.h"
#include "RewriteController.h"

#include "core/io/FxText.h"
#include "core/io/PassConfig.h"
#include "core/ir/GraphSignature.h"
#include "core/pt2/InductorComparison.h"
#include "core/pt2/InductorInput.h"
#include "core/torch/TorchSchemas.h"

#include <QAction>
#include <QDir>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QInputDialog>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <set>

namespace fusebox {

namespace {
const char *kScriptDirKey = "pt2/lastScriptDir";

QString countersText(const pt2::Counters &counters)
{
    QStringList parts;
    for (const auto &[name, n] : counters)
        parts << QStringLiteral("%1 %2").arg(qs(name)).arg(n);
    return parts.isEmpty() ? QObject::tr("none") : parts.join(QStringLiteral(" · "));
}
} // namespace

Pt2Controller::Pt2Controller(MainWindow *window, RewriteController *rewrite)
    : QObject(window)
    , m_window(window)
    , m_rewrite(rewrite)
{
    m_settings = new QAction(tr("PyTorch 2 &Python…"), this);
    m_settings->setToolTip(tr("The Python with torch >= 2.4 that captures scripts and runs Inductor's passes"));
    connect(m_settings, &QAction::triggered, this, &Pt2Controller::showPythonDialog);
    m_inductorVersion = new InductorVersionSetting(m_window->document(), this);
    connect(m_inductorVersion, &InductorVersionSetting::logLine, this, &Pt2Controller::logLine);

    m_capture = new QAction(tr("&Capture from Python Script…"), this);
    m_capture->setToolTip(tr("Run a model script in PyTorch 2 and open the graph Dynamo captures, with its shapes"));
    connect(m_capture, &QAction::triggered, this, &Pt2Controller::showCaptureDialog);

    m_compare = new QAction(tr("Compare with &Inductor"), this);
    m_compare->setShortcut(Qt::CTRL | Qt::ALT | Qt::Key_I);
    m_compare->setToolTip(tr("Run Inductor's own passes on the model under the same pass config and show its result "
                             "beside the current graph (Ctrl+Alt+I)"));
    connect(m_compare, &QAction::triggered, this, &Pt2Controller::compareWithInductor);

    connect(&m_window->document()->model(), &DocumentGraph::graphLoaded, this, &Pt2Controller::updateActions);
    // Its jobs run through the window's TaskService, whose text the busy label shows.
    updateActions();
}

Pt2Controller::~Pt2Controller()
{
    cancel();
    m_window->tasks()->waitFor(kTaskKind);
}

void Pt2Controller::install(QMenu *fileMenu, QMenu *rewriteMenu)
{
    fileMenu->insertAction(fileMenu->actions().value(3), m_capture); // after Open, Recent, Demo
    rewriteMenu->addSeparator();
    rewriteMenu->addAction(m_compare);
    QMenu *settings = m_window->menuBar()->addMenu(tr("&Settings"));
    settings->addAction(m_settings);
    QMenu *version = m_inductorVersion->menu();
    version->setParent(settings, version->windowFlags());
    settings->addMenu(version);
    m_inductorVersion->refresh(pythonCommand());
}

QString Pt2Controller::pythonCommand()
{
    return QSettings().value(kPythonKey).toString().trimmed();
}

void Pt2Controller::setPythonCommand(const QString &command)
{
    if (command.trimmed().isEmpty())
        QSettings().remove(kPythonKey);
    else
        QSettings().setValue(kPythonKey, command.trimmed());
    m_inductorVersion->refresh(pythonCommand());
    checkPython();
}

QString Pt2Controller::defaultCaptureDir(const QString &scriptPath)
{
    const QFileInfo script(scriptPath);
    return script.absoluteDir().filePath(script.completeBaseName() + QStringLiteral("_capture"));
}

bool Pt2Controller::isBusy() const
{
    return m_window->tasks()->isRunning(kTaskKind);
}

QString Pt2Controller::busyText() const
{
    return m_window->tasks()->statusText(kTaskKind);
}

void Pt2Controller::cancel()
{
    m_window->tasks()->cancel(kTaskKind);
}

void Pt2Controller::updateActions()
{
    m_capture->setEnabled(!isBusy());
    m_compare->setEnabled(!isBusy() && m_window->document()->model().hasGraph());
    m_rewrite->updateBusy();
}

void Pt2Controller::fail(const QString &title, const QString &message)
{
    emit logLine(m_cancelled ? message : tr("error: %1").arg(message));
    emit statusMessage(message);
    if (m_cancelled || !m_window->errorDialogsEnabled())
        return;
    // Window-modal and non-blocking, as the window's own errors.
    auto *box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, m_window);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

QString Pt2Controller::startJob(const QString &what, Work work, std::function<void()> done)
{
    if (isBusy())
        return tr("a PyTorch 2 job is running (%1); Esc cancels it").arg(busyText());
    // The document's bridge: one Python for everything the document does in
    // PyTorch 2. Its requests are served one at a time (Pt2Bridge.h), so a
    // check or a capture waits for a verification running meanwhile, and a
    // cancel that restarts the Python leaves the verifier to begin again.
    std::shared_ptr<pt2::Pt2Bridge> bridge = m_window->document()->pt2Bridge();
    if (!bridge) {
        auto found = pt2::Pt2Bridge::find(pythonCommand().toStdString());
        return found ? tr("PyTorch 2 could not be started") : qs(found.error().message);
    }
    m_window->tasks()->run(
        what, kTaskKind, this,
        [bridge, work](TaskControl &task) mutable {
            pt2::RequestControl control;
            control.cancel = task.cancelFlag();
            control.progress = [&task](const std::string &text, double fraction) {
                task.setStatus(qs(text));
                if (fraction >= 0)
                    task.setProgress(qRound(fraction * 100), 100);
            };
            work(*bridge, control);
        },
        [this, done](bool cancelled) {
            m_cancelled = cancelled;
            updateActions();
            done();
            m_cancelled = false;
        });
    updateActions();
    return {};
}

void Pt2Controller::showPythonDialog()
{
    const auto fallback = pt2::findPythonCommand();
    const QString defaultText = fallback ? qs(fallback->text()) : tr("none found");
    bool ok = false;
    const QString command = QInputDialog::getText(
        m_window, tr("PyTorch 2 Python"),
        tr("The command that runs a Python with torch >= 2.4, e.g.\n"
           "  /path/venv/bin/python\n"
           "  chroot /root/.cache/fusebox/pt2-root python3\n"
           "Empty: the default (FUSEBOX_PYTHON, else the scripts/setup-pt2.sh roots, Debian testing first): %1")
            .arg(defaultText),
        QLineEdit::Normal, pythonCommand(), &ok);
    if (ok)
        setPythonCommand(command);
}

bool Pt2Controller::checkPython()
{
    auto outcome = std::make_shared<std::optional<Expected<pt2::Pt2Info>>>();
    const QString error = startJob(
        tr("PyTorch 2: checking the Python"),
        [outcome](pt2::Pt2Bridge &bridge, const pt2::RequestControl &control) {
            pt2::RequestControl quick = control;
            quick.timeoutSeconds = pt2::Pt2Bridge::shortRequest().timeoutSeconds;
            *outcome = bridge.check(quick);
        },
        [this, outcome] {
            const Expected<pt2::Pt2Info> &info = **outcome;
            if (!info) {
                fail(tr("PyTorch 2 Python"), qs(info.error().message));
                emit checkFinished(false, qs(info.error().message));
                return;
            }
            const QString line = tr("PyTorch %1 (Python %2) via %3")
                                     .arg(qs(info->torch), qs(info->python), qs(info->command.text()));
            emit logLine(line);
            emit statusMessage(line);
            m_inductorVersion->refresh(pythonCommand(), qs(info->torch));
            emit checkFinished(true, line);
        });
    if (!error.isEmpty()) {
        fail(tr("PyTorch 2 Python"), error);
        emit checkFinished(false, error);
    }
    return error.isEmpty();
}

void Pt2Controller::showCaptureDialog()
{
    const QString script = QFileDialog::getOpenFileName(m_window, tr("Capture from Python Script"),
                                                        QSettings().value(kScriptDirKey).toString(),
                                                        tr("Python scripts (*.py);;All files (*)"));
    if (script.isEmpty())
        return;
    QSettings().setValue(kScriptDirKey, QFileInfo(script).absolutePath());
    capture(script, defaultCaptureDir(script));
}

bool Pt2Controller::capture(const QString &scriptPath, const QString &outputDir)
{
    auto outcome = std::make_shared<std::optional<Expected<pt2::CaptureResult>>>();
    const QString script = QFileInfo(scriptPath).absoluteFilePath();
    const QString dir = QFileInfo(outputDir).absoluteFilePath();
    const QString title = tr("Capture from Python Script");
    const QString error = startJob(
        tr("PyTorch 2: capturing %1").arg(QFileInfo(script).fileName()),
        [outcome, script, dir](pt2::Pt2Bridge &bridge, const pt2::RequestControl &control) {
            *outcome = bridge.capture(script.toStdString(), dir.toStdString(), control);
        },
        [this, outcome, dir, title] {
            const Expected<pt2::CaptureResult> &captured = **outcome;
            if (!captured) {
                fail(title, qs(captured.error().message));
                emit captureFinished(false, qs(captured.error().message));
                return;
            }
            QString open;
            for (const std::string &file : captured->files) {
                const QString path = QDir(dir).filePath(qs(file));
                emit logLine(tr("wrote %1").arg(path));
                if (file == "dynamo.py" || (open.isEmpty() && path.endsWith(QStringLiteral(".py"))))
                    open = path;
            }
            if (!captured->exportError.empty())
                emit logLine(
                    tr("note: exported.pt2 not written: torch.export failed: %1").arg(qs(captured->exportError)));
            for (const std::string &note : captured->notes)
                emit logLine(tr("note: %1").arg(qs(note)));
            const QString files = captured->files.size() == 1 ? tr("1 graph file")
                                                              : tr("%1 graph files").arg(captured->files.size());
            const QString line
                = tr("captured %1 into %2 in %3 s (inside Python)").arg(files, dir).arg(captured->seconds, 0, 'f', 2);
            emit logLine(line);
            emit statusMessage(line);
            if (open.isEmpty()) {
                fail(title, tr("the capture wrote no graph to open into %1").arg(dir));
                emit captureFinished(false, tr("the capture wrote no graph to open"));
                return;
            }
            m_window->openFile(open);
            emit captureFinished(true, open);
        });
    if (!error.isEmpty()) {
        fail(title, error);
        emit captureFinished(false, error);
        return false;
    }
    emit logLine(tr("capturing %1 in PyTorch 2 into %2 (dynamo.py opens when done; Esc cancels)").arg(script, dir));
    return true;
}

DiffView *Pt2Controller::comparisonView()
{
    if (!m_comparison) {
        m_comparison = new DiffView(nullptr, m_window);
        m_comparison->setObjectName(QStringLiteral("inductorComparison"));
        m_comparison->setWindowFlag(Qt::Window);
        m_comparison->resize(1500, 900);
    }
    return m_comparison;
}

bool Pt2Controller::compareWithInductor()
{
    const QString title = tr("Compare with Inductor");
    Document *document = m_window->document();
    if (!document->model().hasGraph()) {
        const QString error = tr("Open a model first: Compare with Inductor runs on the open graph.");
        fail(title, error);
        emit comparisonFinished(false, error);
        return false;
    }
    struct Outcome {
        Graph original, current;
        PassConfig config;
        std::vector<std::string> leftOut;
        std::optional<Expected<pt2::InductorComparison>> compared;
    };
    auto o = std::make_shared<Outcome>();
    o->original = document->history().original().clone();
    o->current = document->model().graph().clone();
    // The document's pass config is what Fusebox runs: the enabled rules with their options.
    o->config = document->persistence().passConfig();
    std::map<std::string, int64_t> applied;
    for (const MatchEntry &e : document->review().matches())
        if (e.status == MatchStatus::Applied)
            ++applied[e.match.pattern];
    const QString name = document->model().displayName();
    const QString error = startJob(
        tr("PyTorch 2: Inductor's passes on %1").arg(name),
        [o](pt2::Pt2Bridge &bridge, const pt2::RequestControl &control) {
            auto passes = bridge.request("inductor_passes", nlohmann::json::object(), control);
            if (!passes) {
                o->compared = Error{"Inductor: " + passes.error().message};
                return;
            }
            const std::string config = writePassConfig(pt2::passesInductorHas(o->config, *passes, &o->leftOut));
            o->compared = pt2::compareWithInductor(bridge, o->original, {}, o->current, config,
                                                   pt2GraphSchemas().registry, control);
        },
        [this, o, applied, name, title] {
            const Expected<pt2::InductorComparison> &compared = *o->compared;
            if (!compared) {
                const QString message = qs(compared.error().message);
                fail(title, message);
                emit comparisonFinished(false, message);
                return;
            }
            const pt2::InductorResult *inductor = &compared->inductor;
            const Graph &theirs = compared->inductorGraph;
            const std::optional<StructuralDifference> &difference = compared->difference;
            m_lastCounters = inductor->counters;
            // The same graph can come of other counts (a pass that fires twice
            // on one node): "Same" is said only when the counts agree too.
            std::set<std::string> passesRun;
            for (const auto *section : {&o->config.preGradFusionOptions, &o->config.postGradFusionOptions})
                for (const auto &[pass, options] : *section)
                    if (std::find(o->leftOut.begin(), o->leftOut.end(), pass) == o->leftOut.end())
                        passesRun.insert(pass);
            QStringList counts;
            for (const pt2::CountDifference &d : pt2::countDifferences(applied, inductor->counters, passesRun))
                counts << tr("%1 %2 here, %3 in Inductor").arg(qs(d.pass)).arg(d.fusebox).arg(d.inductor);
            const QString headline = difference ? tr("Differs from Inductor: %1").arg(qs(difference->description))
                                     : counts.isEmpty()
                                         ? tr("Same as Inductor (up to node names)")
                                         : tr("Same graph as Inductor (up to node names), but not the same counts: %1")
                                               .arg(counts.join(QStringLiteral(", ")));
            QStringList fusebox;
            for (const auto &[pattern, n] : applied)
                fusebox << QStringLiteral("%1 %2").arg(qs(pattern)).arg(n);
            QStringList details;
            details << tr("Fusebox (current graph): %1 nodes; rewrites applied: %2")
                           .arg(o->current.size())
                           .arg(fusebox.isEmpty()
                                    ? tr("none yet (Rewrite ▸ Apply All first to compare Fusebox's result)")
                                    : fusebox.join(QStringLiteral(" · ")));
            details << tr("Inductor %1 (%2, %3 s): %4 nodes; counters[\"inductor\"]: %5")
                           .arg(qs(inductor->torchVersion), qs(inductor->stage))
                           .arg(inductor->seconds, 0, 'f', 3)
                           .arg(theirs.size())
                           .arg(countersText(inductor->counters));
            if (!o->leftOut.empty()) {
                QStringList names;
                for (const std::string &n : o->leftOut)
                    names << qs(n);
                details << tr("Left out of Inductor's run (Inductor %1 has no such pass): %2")
                               .arg(qs(inductor->torchVersion), names.join(QStringLiteral(", ")));
            }
            if (difference)
                details << tr("%1 Fusebox node(s) and %2 Inductor node(s) without a counterpart, outlined orange")
                               .arg(difference->onlyInA.size())
                               .arg(difference->onlyInB.size());
            DiffView *view = comparisonView();
            view->setWindowTitle(tr("%1: Fusebox / Inductor — Fusebox").arg(name));
            view->showComparison(o->current, tr("Fusebox (current graph)"), theirs,
                                 tr("Inductor %1 (%2)").arg(qs(inductor->torchVersion), qs(inductor->stage)),
                                 difference ? difference->onlyInA : std::vector<NodeId>{},
                                 difference ? difference->onlyInB : std::vector<NodeId>{}, headline, details);
            view->show();
            view->raise();
            emit logLine(tr("Compare with Inductor: %1").arg(headline));
            for (const QString &line : details)
                emit logLine(QStringLiteral("  ") + line);
            emit statusMessage(headline);
            emit comparisonFinished(true, headline);
        });
    if (!error.isEmpty()) {
        fail(title, error);
        emit comparisonFinished(false, error);
        return false;
    }
    emit logLine(tr("running Inductor's passes on %1 under the document's pass config (Esc cancels)").arg(name));
    return true;
}

} // namespace fusebox
