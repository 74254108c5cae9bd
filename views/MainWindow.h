#pragma once

#include "core/ir/NodeId.h"
#include "core/ir/ShapeInference.h"
#include "core/torch/ModelLoader.h"
#include "views/GraphView.h"

#include <QElapsedTimer>
#include <QMainWindow>

#include <functional>

#include <memory>
#include <optional>
#include <vector>

class QAction;
class QLabel;
class QMenu;
class QPlainTextEdit;
class QProgressBar;
class QTemporaryFile;
class QToolBar;

class QPushButton;

namespace fusebox {

class CompilesPanel;
class TaskService;

class Document;
class GraphScene;

class InspectorPanel;
class LegendWidget;
class NodeSearchField;
class ProblemsPanel;
class Pt2Controller;
class RewriteController;

/// The IDE window: the graph canvas in the middle, the inspector and the
/// op-family legend on the right, the log and the reader's problems at the
/// bottom; File
/// and View menus; a status bar with the layout progress, what is shown,
/// "N nodes · E edges" and the file name. Window geometry, dock state, recent
/// files and the constants toggle persist in QSettings.
class MainWindow final : public QMainWindow {
    Q_OBJECT

public:
    static constexpr int kMaxRecentFiles = 8;
    /// Where the demo model is embedded (resources/fusebox.qrc).
    static constexpr const char *kDemoResource = ":/demo/recsys_demo.pt";

    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    Document *document() const { return m_document; }
    GraphScene *scene() const { return m_scene; }
    GraphView *view() const { return m_view; }
    InspectorPanel *inspector() const { return m_inspector; }
    /// The reader's warnings grouped by kind; activating one selects its node.
    ProblemsPanel *problems() const { return m_problems; }
    /// The rewriting workflow: matches, why-not, apply/reject, patterns, pass files.
    RewriteController *rewrite() const { return m_rewrite; }
    /// The PyTorch 2 actions: capture from a script, compare with Inductor, the Python setting.
    Pt2Controller *pt2() const { return m_pt2; }
    /// Every background task of this window's jobs that it runs through the
    /// service (the status bar shows the newest; Cancel stops them).
    TaskService *tasks() const { return m_tasks; }
    /// The TORCH_TRACE log opened last: its compiles, their graphs and Optimus steps.
    CompilesPanel *compiles() const { return m_compiles; }

    /// Options for files opened from now on (--input-shape).
    void setLoadOptions(const LoadOptions &options) { m_loadOptions = options; }
    /// When false, errors go only to openFailed() and the log, not to a message box.
    void setErrorDialogsEnabled(bool enabled) { m_errorDialogs = enabled; }
    /// Whether errors also go to a message box (the controllers ask).
    bool errorDialogsEnabled() const { return m_errorDialogs; }

    /// Starts opening a model file (in the background).
    /// Starts opening a model file with the load options of the command line
    /// (or, for a recent file, the input shapes it was last opened with).
    void openFile(const QString &path);
    /// The same with these options (input shapes).
    void openFile(const QString &path, const LoadOptions &options);
    /// File ▸ Input Shapes…: asks for the tensor inputs' shapes (prefilled
    /// with those the graph has) and opens the model again with them.
    bool setInputShapes();
    /// Who answers Input Shapes… (a dialog; tests set their own: a null
    /// string is Cancel).
    void setInputShapesPrompt(std::function<QString(const QString &current)> ask) { m_askInputShapes = std::move(ask); }
    /// File ▸ Infer Shapes: opens a PT2 graph again with the values its C++
    /// shape rules left without a shape inferred in PyTorch 2 (fake tensors,
    /// whatever device it was recorded on). False when there is nothing to
    /// infer or the user keeps unsaved decisions; a PyTorch 2 that cannot run
    /// is an error, and the graph shown stays.
    bool inferShapes();
    /// Opens the embedded demo model; false (and an error) when it is not embedded.
    bool openDemoModel(const LoadOptions *options = nullptr);
    /// Opens subgraph `name` of the higher-order op `node` (cond's branch,
    /// wrap's body, ...) as a graph of its own, in a new window that closes
    /// with this one; a copy: rewrites there leave this graph alone. Null
    /// (and an error) when the node has no such subgraph.
    MainWindow *openSubgraph(NodeId node, const QString &name);
    /// Saves the review as a session file (*.fusebox); it becomes the file
    /// Save Session (Ctrl+S) writes to.
    bool saveSession(const QString &path, QString *error = nullptr);
    /// The session file the review was opened from or last saved to (empty
    /// when none): Ctrl+S saves there without asking.
    QString sessionPath() const { return m_sessionPath; }
    /// Who picks a file name for Save Session As (a file dialog; tests set
    /// their own). Returns an empty string when the user cancels.
    void setSavePathChooser(std::function<QString(const QString &suggested)> chooser)
    {
        m_chooseSavePath = std::move(chooser);
    }
    /// File ▸ Save Session (Ctrl+S): to sessionPath(), or as Save As when none.
    bool saveSessionInteractive();
    /// File ▸ Save Session As…: asks for a file name, then saves there.
    bool saveSessionAs();
    /// Opens a session: its model, then its decisions (sessionRestored()).
    bool openSession(const QString &path);
    /// True when the open model is the embedded demo.
    bool isDemoOpen() const;
    /// "N nodes · E edges", as the status bar shows it.
    QString countsText() const;
    QStringList recentFiles() const;

signals:
    /// A loaded graph has been laid out and placed in the view.
    void graphShown();
    /// Opening a file (or laying it out) failed; message is one line.
    void openFailed(const QString &message);
    /// A session's decisions were replayed on its model (ok false: message says what failed).
    void sessionRestored(bool ok, const QString &message);
    /// openSubgraph() made `window` (its graph is still loading).
    void subgraphOpened(fusebox::MainWindow *window);

protected:
    void closeEvent(QCloseEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    /// The View menu's actions that the toolbar shows too.
    struct ViewActions {
        QAction *fit, *zoomIn, *zoomOut, *expandAll, *collapseAll;
    };
    /// QSettings keys of the View menu's toggles (read back in restoreSettings()).
    static constexpr const char *kShowConstantsKey = "view/showConstants";
    static constexpr const char *kMiniMapKey = "view/miniMap";

    /// The File and View menus and the main toolbar (MainWindowActions.cpp).
    void createActions();
    /// The File menu; its Open action, which the toolbar shows too.
    QAction *createFileMenu();
    ViewActions createViewMenu();
    void createToolBar(QAction *open, const ViewActions &view);
    void createDocks();
    void createStatusBar();
    void restoreSettings();
    void saveSettings();
    void showOpenDialog();
    /// saveSession() with its error in a message box and "saved" in the status bar.
    bool saveSessionReporting(const QString &path);
    void addRecentFile(const QString &path);
    /// The input shapes a recent file was opened with ("" when its own).
    QString recentShapes(const QString &path) const;
    void rebuildRecentMenu();
    void reportError(const QString &title, const QString &message);
    void log(const QString &line);

    void onLoadStarted(const QString &path);
    void onGraphLoaded();
    void onLoadFailed(const QString &path, const QString &message);
    void onLayoutStarted(int items);
    void onLayoutFinished(bool firstForGraph);
    void onLayoutFailed(const QString &message);
    void onNodeSelected(NodeId id);
    void onGroupSelected(int scope);
    void onExpandAll();
    void onExpandAllLimited(int opened);
    void onSearch(const QString &text);
    /// Selects the node and centres the view on it (after the layout when a
    /// collapsed scope hides it).
    void goToNode(NodeId id);
    void updateStatus();
    void updateTitle();
    void setBusy(const QString &what);

    Document *m_document;
    /// The document's: its jobs and the window's share one list and one status.
    TaskService *m_tasks;
    GraphScene *m_scene;
    GraphView *m_view;
    InspectorPanel *m_inspector;
    ProblemsPanel *m_problems;
    CompilesPanel *m_compiles;
    LegendWidget *m_legend;
    NodeSearchField *m_search = nullptr;
    QPlainTextEdit *m_log;
    QString m_sessionPath;
    std::function<QString(const QString &)> m_chooseSavePath;
    std::function<QString(const QString &)> m_askInputShapes;
    QPushButton *m_shapesButton = nullptr;
    /// Shown while op values of a PT2 graph whose inputs are shaped have none.
    QPushButton *m_inferShapesButton = nullptr;
    QAction *m_inferShapesAction = nullptr;
    QMenu *m_recentMenu = nullptr;
    QMenu *m_viewMenu = nullptr;
    QMenu *m_fileMenu = nullptr;
    QToolBar *m_toolBar = nullptr;
    QAction *m_toolBarSpacer = nullptr;
    /// Set when what is shown changes wholesale: the next layout is shown fitted.
    bool m_refitAfterLayout = false;
    GraphView::Anchor m_viewAnchor;
    RewriteController *m_rewrite = nullptr;
    Pt2Controller *m_pt2 = nullptr;
    QAction *m_showConstants = nullptr;
    QProgressBar *m_progress;
    QLabel *m_busyLabel;
    QLabel *m_viewLabel;
    QLabel *m_countsLabel;
    /// Completes the search field's names from the current graph, in the background.
    void indexNodeNames();
    quint64 m_namesGeneration = 0;
    QLabel *m_zoomLabel;
    QLabel *m_fileLabel;
    LoadOptions m_loadOptions;
    std::unique_ptr<QTemporaryFile> m_demoFile;
    QString m_pendingRecent;
    bool m_errorDialogs = true;
    /// False in subgraph windows: geometry and dock state are the main window's.
    bool m_savesSettings = true;
    bool m_waitingForFirstLayout = false;
    QElapsedTimer m_layoutTimer;
    QString m_searchText;
    std::vector<NodeId> m_searchHits;
    size_t m_searchIndex = 0;
};

} // namespace fusebox
