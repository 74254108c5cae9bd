#pragma once

#include "core/ir/NodeId.h"
#include "patterns/PassSchedule.h"

#include <QObject>

#include <functional>

#include <vector>

class QAction;
class QLabel;
class QTimer;
class QToolButton;
class QDockWidget;
class QMainWindow;
class QMenu;
class QToolBar;

namespace fusebox {

class TaskService;

class Document;
class GraphScene;
class GraphView;
class MatchesPanel;
class PatternEditor;
class DiffView;
class LatencyDialog;
class ReviewFiles;
class PatternsPanel;
class WhyNotPanel;

/// The rewriting workflow of the main window: the Rewrite menu and toolbar
/// actions (find matches, apply, apply all, reject, undo/redo, why not, new
/// pattern from selection, pass files), the Patterns, Matches, Why Not and
/// Pattern Editor docks, and the marks on the graph (candidate matches in
/// their pattern's colour, the selected match outlined, why-not checks red
/// and green, the editor's live matches). Views talk to the document only;
/// this class wires their signals.
class RewriteController final : public QObject {
    Q_OBJECT

public:
    RewriteController(QMainWindow *window, Document *document, GraphScene *scene, GraphView *view);

    /// Tells whether the open model is the embedded demo (for sessions).
    void setDemoCheck(std::function<bool()> isDemo) { m_isDemo = std::move(isDemo); }
    /// What "Save" in the unsaved-decisions question does (the window's Save
    /// Session: its session file, else a file dialog); true when saved.
    void setSessionSaver(std::function<bool()> save) { m_saveSession = std::move(save); }

    /// Adds the menus, the toolbar actions (before `toolBarAnchor`) and the
    /// docks; called once by the window.
    void install(QMenu *fileMenu, QMenu *viewMenu, QToolBar *toolBar, QAction *toolBarAnchor);

    MatchesPanel *matchesPanel() const { return m_matches; }
    PatternsPanel *patternsPanel() const { return m_patterns; }
    WhyNotPanel *whyNotPanel() const { return m_whyNot; }
    PatternEditor *patternEditor() const { return m_editor; }

    QAction *findMatchesAction() const { return m_findMatches; }
    QAction *applyAction() const { return m_apply; }
    QAction *applyAllAction() const { return m_applyAll; }
    QAction *rejectAction() const { return m_reject; }
    QAction *restoreAction() const { return m_restore; }
    QAction *undoAction() const { return m_undo; }
    QAction *redoAction() const { return m_redo; }
    QAction *diffAction() const { return m_diffAction; }
    QAction *cancelAction() const { return m_cancel; }
    QAction *measureLatencyAction() const { return m_latencyAction; }
    /// Rewrite ▸ Measure Latency's dialog (created on first use).
    LatencyDialog *latencyDialog();

    /// The status bar's "Finding matches… / Applying all: N rewrites" text ("" when idle).
    QString busyText() const;
    /// The before/after window (created on first use).
    DiffView *diffView();
    /// The Rewrite menu (after install()).
    QMenu *rewriteMenu() const { return m_rewriteMenu; }
    /// Shows the busy text again now (background work started or ended).
    void updateBusy();

    /// Explains `pattern` at `node` in the Why Not dock and shows it.
    void whyNot(const std::string &pattern, NodeId node);
    /// Chooses the schedule Apply All runs (Rewrite ▸ Schedule), logged.
    void setSchedule(PassSchedule schedule);
    /// Opens the pattern editor on a pattern made from the selected nodes;
    /// false (and a message) when the selection cannot become a pattern.
    bool newPatternFromSelection(QString *error = nullptr);
    /// Asks to save unsaved decisions (as a session); false when the user cancels.
    bool maybeSave();
    /// Pass files, sessions, model/picture/report exports (no dialogs).
    ReviewFiles *files() const { return m_files; }

signals:
    /// A line for the window's log.
    void logLine(const QString &line);
    /// A line for the status bar.
    void statusMessage(const QString &line);

private:
    /// The document's signals: marks, actions and the Log's lines.
    void connectDocument();
    /// The Log's line for a Find Matches the user asked for (not the
    /// searches after each rewrite): candidates, patterns, rejected.
    void logFindMatches();
    /// Matches, Why Not, Patterns and the scene: selection and activation.
    void connectPanels();
    /// The pattern editor: live marks, Use and Save.
    void connectEditor();
    /// The Edit and Rewrite menus' actions (RewriteControllerActions.cpp).
    void createActions();
    /// Undo and Redo, which also say in the Log and status bar what they took back.
    void createUndoActions();
    /// The review's own: Find Matches, Apply, Apply All and its schedule, Reject,
    /// Restore, Verify Each Apply.
    void createReviewActions();
    /// Why Not, Show Diff, Measure Latency, Cancel, New Pattern from Selection.
    void createToolActions();
    void createDocks();
    void updateActions();
    void updateMarks();
    void onMatchSelected(int matchRow);
    void onSceneSelection();
    /// The pattern Why Not explains for a selected node: the one chosen when
    /// it can start at the node's op, else one with a match over the node,
    /// else the enabled rule rooted at its op that the graph has most to say
    /// about (not simply the first in the catalog).
    std::string relevantPattern(NodeId id) const;
    void onNodeContextMenu(NodeId id, QMenu *menu);
    void applySelected();
    void rejectSelected(bool reject);
    void focusNodes(const std::vector<NodeId> &nodes);

    QMainWindow *m_window;
    Document *m_document;
    GraphScene *m_scene;
    GraphView *m_view;
    PatternsPanel *m_patterns;
    MatchesPanel *m_matches;
    WhyNotPanel *m_whyNot;
    PatternEditor *m_editor;
    ReviewFiles *m_files;
    QDockWidget *m_patternsDock = nullptr;
    QDockWidget *m_matchesDock = nullptr;
    QDockWidget *m_whyNotDock = nullptr;
    QDockWidget *m_editorDock = nullptr;
    QAction *m_findMatches = nullptr;
    QAction *m_apply = nullptr;
    QAction *m_applyAll = nullptr;
    QAction *m_reject = nullptr;
    QAction *m_restore = nullptr;
    QAction *m_verify = nullptr;
    QAction *m_scheduleInductor = nullptr, *m_scheduleGreedy = nullptr;
    QAction *m_undo = nullptr;
    QAction *m_redo = nullptr;
    QAction *m_whyNotAction = nullptr;
    QAction *m_latencyAction = nullptr;
    LatencyDialog *m_latency = nullptr;
    QAction *m_fromSelection = nullptr;
    QAction *m_diffAction = nullptr;
    QAction *m_cancel = nullptr;
    QLabel *m_busyLabel = nullptr;
    QToolButton *m_cancelButton = nullptr;
    QTimer *m_busyTimer = nullptr;
    DiffView *m_diff = nullptr;
    QMenu *m_rewriteMenu = nullptr;
    int m_selectedMatch = -1;
    std::vector<NodeId> m_whyFailed, m_whyPassed;
    bool m_focusPending = false;
    std::function<bool()> m_isDemo;
    std::function<bool()> m_saveSession;
    /// Find Matches was asked for (F5): its result goes to the Log.
    bool m_searchRequested = false;
};

} // namespace fusebox
