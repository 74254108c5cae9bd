// The Rewrite menu, the toolbar actions, the file actions and the docks of
// RewriteController: what install() adds to the window, and the actions it
// wires (the workflow they trigger lives in RewriteController.cpp).
#include "RewriteController.h"
#include "TaskService.h"

#include "DiffView.h"
#include "Document.h"
#include "GraphScene.h"
#include "LatencyDialog.h"
#include "MatchesPanel.h"
#include "PatternEditor.h"
#include "PatternsPanel.h"
#include "QtStrings.h"
#include "ReviewFiles.h"
#include "WhyNotPanel.h"

#include <QAction>
#include <QActionGroup>
#include <QDockWidget>
#include <QFileDialog>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QUndoStack>

namespace fusebox {

void RewriteController::createActions()
{
    createUndoActions();
    createReviewActions();
    createToolActions();
    updateActions();
}

void RewriteController::createUndoActions()
{
    QUndoStack *stack = m_document->history().undoStack();
    m_undo = stack->createUndoAction(this, tr("&Undo"));
    m_undo->setShortcut(QKeySequence::Undo);
    m_redo = stack->createRedoAction(this, tr("&Redo"));
    // Both keys users try, whatever the platform's own binding is; each once,
    // since a sequence listed twice on one action is an "ambiguous shortcut"
    // to Qt, which then does nothing (X11's Redo is Ctrl+Shift+Z already).
    QList<QKeySequence> redoKeys = QKeySequence::keyBindings(QKeySequence::Redo);
    for (const QKeySequence &key : {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y)})
        if (!redoKeys.contains(key))
            redoKeys.append(key);
    m_redo->setShortcuts(redoKeys);
    // The stack acts first (its connection is older): the command just
    // undone is at index(), the one just redone right before it. The status
    // bar says it too, so that it no longer shows the step just taken back.
    connect(m_undo, &QAction::triggered, this, [this, stack] {
        if (const QUndoCommand *c = stack->command(stack->index())) {
            emit logLine(tr("undo: %1").arg(c->text()));
            emit statusMessage(tr("Undone: %1").arg(c->text()));
        }
    });
    connect(m_redo, &QAction::triggered, this, [this, stack] {
        if (const QUndoCommand *c = stack->command(stack->index() - 1)) {
            emit logLine(tr("redo: %1").arg(c->text()));
            emit statusMessage(tr("Redone: %1").arg(c->text()));
        }
    });
}

void RewriteController::createReviewActions()
{
    m_findMatches = new QAction(tr("&Find Matches"), this);
    m_findMatches->setShortcut(Qt::Key_F5);
    m_findMatches->setToolTip(tr("Run the engine's search: every candidate match of the enabled patterns (F5)"));
    connect(m_findMatches, &QAction::triggered, this, [this] {
        m_searchRequested = true;
        m_document->findMatches();
    });

    m_apply = new QAction(tr("&Apply Match"), this);
    m_apply->setShortcut(Qt::CTRL | Qt::Key_Return);
    m_apply->setToolTip(tr("Rewrite the selected matches (one undo step) (Ctrl+Return)"));
    connect(m_apply, &QAction::triggered, this, &RewriteController::applySelected);

    m_applyAll = new QAction(tr("Apply &All"), this);
    m_applyAll->setShortcut(Qt::CTRL | Qt::SHIFT | Qt::Key_Return);
    m_applyAll->setToolTip(tr("Run the enabled rules in the chosen schedule (Rewrite ▸ Schedule), skipping rejected "
                              "matches (Ctrl+Shift+Return)"));

    // Which driver Apply All runs, as fusebox-pass run --schedule.
    auto *schedules = new QActionGroup(this);
    m_scheduleInductor = new QAction(tr("&Inductor's Schedule"), schedules);
    m_scheduleInductor->setToolTip(tr("Apply All runs the passes as the Inductor of the session's profile does "
                                      "(Settings, the log names it): config order, each "
                                      "over the whole graph once (split/cat passes `counter` times), on the graph's "
                                      "stage (docs/inductor-schedule.md)"));
    m_scheduleGreedy = new QAction(tr("&Greedy Search (Fusebox's own)"), schedules);
    m_scheduleGreedy->setToolTip(tr("Apply All runs Fusebox's benefit-ordered search over every rule of both stages "
                                    "to a fixed point: it may go beyond what Inductor does"));
    for (QAction *a : {m_scheduleInductor, m_scheduleGreedy})
        a->setCheckable(true);
    m_scheduleInductor->setChecked(m_document->jobs().schedule() == PassSchedule::Inductor);
    m_scheduleGreedy->setChecked(m_document->jobs().schedule() == PassSchedule::Greedy);
    connect(m_scheduleInductor, &QAction::toggled, this, [this](bool on) {
        if (on)
            setSchedule(PassSchedule::Inductor);
    });
    connect(m_scheduleGreedy, &QAction::toggled, this, [this](bool on) {
        if (on)
            setSchedule(PassSchedule::Greedy);
    });
    connect(m_applyAll, &QAction::triggered, m_document, &Document::applyAll);

    m_reject = new QAction(tr("&Reject Match"), this);
    m_reject->setShortcut(Qt::Key_Delete);
    m_reject->setToolTip(tr("Reject the selected matches: kept out of Apply All and the exported pass (Del)"));
    connect(m_reject, &QAction::triggered, this, [this] { rejectSelected(true); });

    m_restore = new QAction(tr("Re&store Match"), this);
    m_restore->setShortcut(Qt::SHIFT | Qt::Key_Delete);
    connect(m_restore, &QAction::triggered, this, [this] { rejectSelected(false); });

    m_verify = new QAction(tr("&Verify Each Apply"), this);
    m_verify->setCheckable(true);
    m_verify->setChecked(m_document->jobs().verifyApplies());
    m_verify->setToolTip(tr("Run the model before and after each rewrite on the same random inputs; undo a rewrite "
                            "that changes the outputs"));
    connect(m_verify, &QAction::toggled, m_document, &Document::setVerifyApplies);
    // A reopened session brings its own toggle.
    connect(&m_document->patternSet(), &DocumentPatterns::patternsChanged, m_verify,
            [this] { m_verify->setChecked(m_document->jobs().verifyApplies()); });
}

void RewriteController::createToolActions()
{
    m_whyNotAction = new QAction(tr("&Why Not Here?"), this);
    m_whyNotAction->setShortcut(Qt::CTRL | Qt::Key_Question);
    m_whyNotAction->setToolTip(tr("Explain the chosen pattern at the selected node"));
    connect(m_whyNotAction, &QAction::triggered, this, [this] { whyNot(m_whyNot->pattern(), m_scene->selectedNode()); });

    m_diffAction = new QAction(tr("Show &Diff"), this);
    m_diffAction->setShortcut(Qt::CTRL | Qt::Key_D);
    m_diffAction->setToolTip(tr("Before/after of the applied rewrites, side by side (Ctrl+D)"));
    connect(m_diffAction, &QAction::triggered, this, [this] {
        DiffView *view = diffView();
        view->refresh();
        view->show();
        view->raise();
    });

    m_latencyAction = new QAction(tr("Measure &Latency…"), this);
    m_latencyAction->setToolTip(tr("Time the original and the current graph on the same inputs, runs alternating, "
                                   "and show medians and spread"));
    connect(m_latencyAction, &QAction::triggered, this, [this] {
        LatencyDialog *dialog = latencyDialog();
        dialog->show();
        dialog->raise();
        if (dialog->start())
            updateBusy();
    });

    m_cancel = new QAction(tr("&Cancel"), this);
    m_cancel->setShortcut(Qt::Key_Escape);
    m_cancel->setToolTip(tr("Cancel the running search, Apply All or PyTorch 2 job (Esc); a cancelled Apply All "
                            "changes nothing"));
    // Cancel stops every task of the window (TaskService); the document's
    // own jobs also drop what they would have shown.
    connect(m_cancel, &QAction::triggered, m_document, &Document::cancelBackground);
    connect(m_cancel, &QAction::triggered, m_document->tasks(), [tasks = m_document->tasks()] { tasks->cancel(); });
    connect(m_document->tasks(), &TaskService::changed, this, &RewriteController::updateBusy);

    m_fromSelection = new QAction(tr("&New Pattern from Selection"), this);
    m_fromSelection->setShortcut(Qt::CTRL | Qt::SHIFT | Qt::Key_N);
    connect(m_fromSelection, &QAction::triggered, this, [this] {
        QString error;
        if (!newPatternFromSelection(&error))
            QMessageBox::information(m_window, tr("New Pattern from Selection"), error);
    });
}

void RewriteController::install(QMenu *fileMenu, QMenu *viewMenu, QToolBar *toolBar, QAction *toolBarAnchor)
{
    QMenuBar *bar = m_window->menuBar();
    QMenu *edit = new QMenu(tr("&Edit"), bar);
    bar->insertMenu(viewMenu->menuAction(), edit);
    edit->addAction(m_undo);
    edit->addAction(m_redo);

    QMenu *rewrite = bar->addMenu(tr("&Rewrite"));
    m_rewriteMenu = rewrite;
    for (QAction *a : {m_findMatches, m_apply, m_applyAll, m_cancel})
        rewrite->addAction(a);
    rewrite->addSeparator();
    rewrite->addAction(m_reject);
    rewrite->addAction(m_restore);
    rewrite->addAction(m_verify);
    QMenu *schedule = rewrite->addMenu(tr("&Schedule"));
    schedule->addAction(m_scheduleInductor);
    schedule->addAction(m_scheduleGreedy);
    rewrite->addSeparator();
    rewrite->addAction(m_whyNotAction);
    rewrite->addAction(m_fromSelection);
    rewrite->addSeparator();
    rewrite->addAction(m_diffAction);
    rewrite->addAction(m_latencyAction);

    QAction *firstFileAction = fileMenu->actions().value(3); // after Open, Recent, Demo
    auto addFile = [&](const QString &text, const QKeySequence &key, auto slot) {
        auto *a = new QAction(text, this);
        a->setShortcut(key);
        connect(a, &QAction::triggered, this, slot);
        fileMenu->insertAction(firstFileAction, a);
        return a;
    };
    fileMenu->insertSeparator(firstFileAction);
    addFile(tr("Load &Pattern File…"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_P), [this] {
        const QString path = QFileDialog::getOpenFileName(m_window, tr("Load Pattern File"), {},
                                                          tr("Pattern files (*.patterns);;All files (*)"));
        if (path.isEmpty())
            return;
        if (Status s = m_document->addPatternFile(path); !s)
            QMessageBox::warning(m_window, tr("Load Pattern File"), qs(s.error().message));
        else
            emit logLine(tr("loaded patterns from %1").arg(path));
    });
    // The file actions: ask for a path, let ReviewFiles do the work, show its error.
    using FileOperation = bool (ReviewFiles::*)(const QString &, QString *);
    auto addFileOperation = [&](const QString &text, const QKeySequence &key, const QString &title,
                                const QString &suggested, const QString &filter, FileOperation operation) {
        const bool opens = operation == &ReviewFiles::importPassFile;
        addFile(text, key, [this, title, suggested, filter, operation, opens] {
            const QString path = opens ? QFileDialog::getOpenFileName(m_window, title, suggested, filter)
                                       : QFileDialog::getSaveFileName(m_window, title, suggested, filter);
            QString error;
            if (!path.isEmpty() && !(m_files->*operation)(path, &error))
                QMessageBox::warning(m_window, title, error);
        });
    };
    addFileOperation(tr("Open Pass &File…"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_O), tr("Open Pass File"), {},
                     tr("Pass files (*.json);;All files (*)"), &ReviewFiles::importPassFile);
    addFileOperation(tr("&Export Pass File…"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_S), tr("Export Pass File"),
                     QStringLiteral("passes.json"), tr("Pass files (*.json)"), &ReviewFiles::exportPassFile);
    addFileOperation(tr("Export Rewritten &Model…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S),
                     tr("Export Rewritten Model"), QStringLiteral("rewritten.pt"),
                     tr("TorchScript (*.pt);;Graph JSON with weights (*.json);;FX text (*.py);;"
                        "torch.export archive for stock PyTorch 2 (*.pt2)"),
                     &ReviewFiles::exportModel);
    addFileOperation(tr("Export for Stock PyTorch &2…"), QKeySequence(), tr("Export for Stock PyTorch 2"),
                     QStringLiteral("rewritten.pt2"),
                     tr("torch.export archive (*.pt2);;torch.nn.Module source and its weights (*.py)"),
                     &ReviewFiles::exportForPyTorch2);
    addFileOperation(tr("Export &Picture of the Whole Graph…"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_E),
                     tr("Export Picture of the Whole Graph"), QStringLiteral("graph.svg"),
                     tr("SVG (*.svg);;PNG (*.png)"), &ReviewFiles::exportPicture);
    addFileOperation(tr("Export Picture of the &Visible Part…"), QKeySequence(),
                     tr("Export Picture of the Visible Part"), QStringLiteral("view.svg"),
                     tr("SVG (*.svg);;PNG (*.png)"), &ReviewFiles::exportVisiblePicture);
    addFileOperation(tr("Export Review &Report…"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_R),
                     tr("Export Review Report"), QStringLiteral("review.md"), tr("Markdown (*.md);;JSON (*.json)"),
                     &ReviewFiles::exportReport);

    toolBar->insertSeparator(toolBarAnchor);
    for (QAction *a : {m_findMatches, m_apply, m_applyAll, m_reject, m_undo, m_redo, m_diffAction})
        toolBar->insertAction(toolBarAnchor, a);
    createDocks();
    // Progress and cancel for the background work, in the status bar.
    m_busyLabel = new QLabel(m_window);
    m_busyLabel->setObjectName(QStringLiteral("engineBusyLabel"));
    m_cancelButton = new QToolButton(m_window);
    m_cancelButton->setDefaultAction(m_cancel);
    m_window->statusBar()->addWidget(m_busyLabel);
    m_window->statusBar()->addWidget(m_cancelButton);
    m_busyTimer = new QTimer(this);
    m_busyTimer->setInterval(200);
    connect(m_busyTimer, &QTimer::timeout, this, &RewriteController::updateBusy);
    updateBusy();
    viewMenu->addSeparator();
    for (QDockWidget *d : {m_patternsDock, m_matchesDock, m_whyNotDock, m_editorDock})
        viewMenu->addAction(d->toggleViewAction());
}

void RewriteController::createDocks()
{
    auto dock = [this](const QString &title, const char *name, QWidget *widget, Qt::DockWidgetArea area) {
        auto *d = new QDockWidget(title, m_window);
        d->setObjectName(QString::fromLatin1(name));
        d->setWidget(widget);
        m_window->addDockWidget(area, d);
        return d;
    };
    m_patternsDock = dock(tr("Patterns"), "patternsDock", m_patterns, Qt::LeftDockWidgetArea);
    m_matchesDock = dock(tr("Matches"), "matchesDock", m_matches, Qt::BottomDockWidgetArea);
    m_whyNotDock = dock(tr("Why Not?"), "whyNotDock", m_whyNot, Qt::LeftDockWidgetArea);
    m_editorDock = dock(tr("Pattern Editor"), "patternEditorDock", m_editor, Qt::BottomDockWidgetArea);
    m_window->tabifyDockWidget(m_matchesDock, m_editorDock);
    m_matchesDock->raise();
    m_editorDock->hide();
    m_window->resizeDocks({m_patternsDock}, {330}, Qt::Horizontal);
    m_window->resizeDocks({m_matchesDock}, {210}, Qt::Vertical);
}

} // namespace fusebox
