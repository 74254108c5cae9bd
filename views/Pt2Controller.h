#pragma once

#include "core/pt2/Pt2Bridge.h"

#include <QFuture>
#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>

class QAction;
class QMenu;

namespace fusebox {

class DiffView;
class InductorVersionSetting;
class MainWindow;
class RewriteController;

/// The window's PyTorch 2 side (docs/pt2-bridge.md): Settings ▸ PyTorch 2
/// Python…, File ▸ Capture from Python Script… and Rewrite ▸ Compare with
/// Inductor. Every bridge call runs on a worker thread that owns its own
/// Pt2Bridge for the call (one job at a time), so the GUI never waits on the
/// Python; the job's progress is the status bar's busy text and Cancel (Esc)
/// kills the Python. Results go to the log and the status bar; errors (one
/// line) also to a message box when the window shows error dialogs.
///
/// The dialogs only ask for paths and the command: checkPython(), capture()
/// and compareWithInductor() are the actions without them.
class Pt2Controller final : public QObject {
    Q_OBJECT

public:
    /// QSettings key of the bridge's Python command; absent or "": the default
    /// (FUSEBOX_PYTHON, else the root scripts/setup-pt2.sh makes).
    static constexpr const char *kPythonKey = "pt2/python";

    Pt2Controller(MainWindow *window, RewriteController *rewrite);
    /// Cancels a running job and waits until its Python is gone.
    ~Pt2Controller() override;

    /// Adds the actions to the File and Rewrite menus and a Settings menu;
    /// called once by the window.
    void install(QMenu *fileMenu, QMenu *rewriteMenu);

    /// The command in the settings ("" for the default).
    static QString pythonCommand();
    /// Stores `command` ("" for the default), then checks it (checkPython()).
    void setPythonCommand(const QString &command);
    /// Asks the chosen Python for its torch and Python versions in the
    /// background; emits checkFinished(). False (and the error) when it cannot start.
    bool checkPython();
    /// Runs the model script in PyTorch 2 in the background and writes its
    /// graphs into `outputDir` (created when missing), then opens
    /// outputDir/dynamo.py in the window; emits captureFinished().
    bool capture(const QString &scriptPath, const QString &outputDir);
    /// Where File ▸ Capture writes: <script's folder>/<script's stem>_capture.
    static QString defaultCaptureDir(const QString &scriptPath);
    /// Runs Inductor's own passes on the open graph as loaded, under the
    /// document's pass config, in the background; then shows Inductor's result
    /// beside the document's current graph in comparisonView(), the nodes
    /// without a counterpart outlined, and emits comparisonFinished().
    bool compareWithInductor();

    /// True while a job (check, capture, comparison) runs.
    bool isBusy() const;
    /// "PyTorch 2: capturing model.py — tracing the model (3 s)"; "" when idle.
    QString busyText() const;
    /// Cancels the running job: its Python is killed, nothing is written or shown.
    void cancel();

    /// The Fusebox / Inductor window (created on first use).
    DiffView *comparisonView();
    /// Inductor's counters in the last comparison, as counters["inductor"] has them.
    const pt2::Counters &lastInductorCounters() const { return m_lastCounters; }

    /// Settings ▸ PyTorch 2 Python…, File ▸ Capture from Python Script…, Rewrite ▸ Compare with Inductor.
    QAction *settingsAction() const { return m_settings; }
    /// Settings ▸ Inductor Version (follows the Python chosen here).
    InductorVersionSetting *inductorVersion() const { return m_inductorVersion; }
    QAction *captureAction() const { return m_capture; }
    QAction *compareAction() const { return m_compare; }

signals:
    /// A line for the window's log.
    void logLine(const QString &line);
    /// A line for the status bar.
    void statusMessage(const QString &line);
    /// checkPython() ended: "PyTorch 2.6.0 (Python 3.13.5) via CMD", or the one-line error.
    void checkFinished(bool ok, const QString &message);
    /// capture() ended: the graph file it opens, or the one-line error.
    void captureFinished(bool ok, const QString &message);
    /// compareWithInductor() ended: the comparison's headline, or the one-line error.
    void comparisonFinished(bool ok, const QString &message);

private:
    using Work = std::function<void(pt2::Pt2Bridge &bridge, const pt2::RequestControl &control)>;

    /// Starts `work` on a worker thread with a bridge of its own; `done` runs
    /// on the GUI thread after it. Returns the one-line reason it cannot start, else "".
    QString startJob(const QString &what, Work work, std::function<void()> done);
    void showPythonDialog();
    void showCaptureDialog();
    /// Logs the error and shows it in the status bar and, with dialogs on and
    /// unless the user cancelled the job, in a message box.
    void fail(const QString &title, const QString &message);
    void updateActions();

    MainWindow *m_window;
    RewriteController *m_rewrite;
    QAction *m_settings = nullptr;
    InductorVersionSetting *m_inductorVersion = nullptr;
    QAction *m_capture = nullptr;
    QAction *m_compare = nullptr;
    DiffView *m_comparison = nullptr;
    /// The kind of its jobs in the window's TaskService.
    static constexpr const char *kTaskKind = "pt2";
    pt2::Counters m_lastCounters;
    bool m_cancelled = false; ///< while a cancelled job's result is handled
};

} // namespace fusebox
