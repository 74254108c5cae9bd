#include "MainWindow.h"

#include "Document.h"
#include "GraphScene.h"
#include "GraphView.h"
#include "InputShapes.h"
#include "InspectorPanel.h"
#include "LegendWidget.h"
#include "MiniMap.h"
#include "NodeSearchField.h"
#include "CompilesPanel.h"
#include "ProblemsPanel.h"
#include "TaskService.h"
#include "Pt2Controller.h"
#include "HelpMenu.h"
#include "RewriteController.h"
#include "SessionFile.h"

#include "core/ir/GraphSource.h"
#include "core/ir/ShapeInference.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QUndoStack>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QTemporaryFile>
#include <QToolBar>
#include <QVBoxLayout>

#include <utility>

namespace fusebox {

namespace {
const char *kGeometryKey = "mainWindow/geometry";
const char *kStateKey = "mainWindow/state";
} // namespace

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
    , m_document(new Document(this))
    , m_tasks(m_document->tasks())
    , m_scene(new GraphScene(m_document, this))
    , m_view(new GraphView(m_scene, this))
    , m_inspector(new InspectorPanel(&m_document->model(), m_scene, this))
    , m_problems(new ProblemsPanel(&m_document->model(), this))
    , m_compiles(new CompilesPanel(m_tasks, this))
    , m_legend(new LegendWidget(this))
    , m_log(new QPlainTextEdit(this))
    , m_progress(new QProgressBar(this))
    , m_busyLabel(new QLabel(this))
    , m_viewLabel(new QLabel(this))
    , m_countsLabel(new QLabel(this))
    , m_zoomLabel(new QLabel(this))
    , m_fileLabel(new QLabel(this))
{
    setObjectName(QStringLiteral("mainWindow"));
    if (QFile::exists(QStringLiteral(":/icons/fusebox.svg"))) // not embedded in test binaries
        setWindowIcon(QIcon(QStringLiteral(":/icons/fusebox.svg")));
    setCentralWidget(m_view);
    setAcceptDrops(true);
    m_view->setAcceptDrops(false); // drops go to the window
    m_view->viewport()->setAcceptDrops(false);

    createActions();
    createDocks();
    createStatusBar();
    m_rewrite = new RewriteController(this, m_document, m_scene, m_view);
    m_rewrite->install(m_fileMenu, m_viewMenu, m_toolBar, m_toolBarSpacer);
    m_rewrite->setDemoCheck([this] { return isDemoOpen(); });
    m_rewrite->setSessionSaver([this] { return saveSessionInteractive(); });
    connect(m_rewrite, &RewriteController::logLine, this, &MainWindow::log);
    connect(m_rewrite, &RewriteController::statusMessage, this,
            [this](const QString &line) { statusBar()->showMessage(line, 10000); });
    connect(m_compiles, &CompilesPanel::graphActivated, this, [this](const QString &address) { openFile(address); });
    m_compiles->setFallbackProfile([this] { return &m_document->patternSet().inductorProfile(); });
    connect(m_compiles, &CompilesPanel::logIndexed, this, [this](const QString &path) {
        addRecentFile(QFileInfo(path).absoluteFilePath());
        const auto log = m_compiles->log();
        this->log(tr("%1: %2 compiles, %3 graphs (torch %4); double-click a graph in Compiles to open it")
                      .arg(path)
                      .arg(log->compiles.size())
                      .arg(log->graphs().size())
                      .arg(log->torchVersion.empty() ? tr("version not recorded")
                                                     : QString::fromStdString(log->torchVersion)));
        for (const std::string &warning : log->warnings)
            this->log(tr("warning: %1").arg(QString::fromStdString(warning)));
    });
    connect(m_compiles, &CompilesPanel::indexFailed, this,
            [this](const QString &message) { reportError(tr("Open TORCH_TRACE Log"), message); });
    m_pt2 = new Pt2Controller(this, m_rewrite);
    connect(m_pt2, &Pt2Controller::logLine, this, &MainWindow::log);
    connect(m_pt2, &Pt2Controller::statusMessage, this,
            [this](const QString &line) { statusBar()->showMessage(line, 10000); });
    m_pt2->install(m_fileMenu, m_rewrite->rewriteMenu()); // logs the Inductor version followed
    installHelpMenu(this);
    connect(&m_document->model(), &DocumentGraph::graphRewritten, this, [this] {
        m_searchHits.clear();
        m_legend->setCounts(m_document->model().familyCounts());
        indexNodeNames();
        updateStatus();
    });

    connect(&m_document->jobs(), &DocumentJobs::loadStarted, this, &MainWindow::onLoadStarted);
    connect(&m_document->model(), &DocumentGraph::graphLoaded, this, &MainWindow::onGraphLoaded);
    connect(&m_document->jobs(), &DocumentJobs::loadFailed, this, &MainWindow::onLoadFailed);
    connect(m_scene, &GraphScene::layoutStarted, this, &MainWindow::onLayoutStarted);
    connect(m_scene, &GraphScene::layoutFinished, this, &MainWindow::onLayoutFinished);
    connect(m_scene, &GraphScene::wholeLayoutChanging, this, [this] { m_refitAfterLayout = true; });
    connect(m_scene, &GraphScene::layoutFailed, this, &MainWindow::onLayoutFailed);
    connect(m_scene, &GraphScene::expandAllLimited, this, &MainWindow::onExpandAllLimited);
    connect(m_scene, &GraphScene::selectedNodeChanged, this, &MainWindow::onNodeSelected);
    connect(m_scene, &GraphScene::selectedGroupChanged, this, &MainWindow::onGroupSelected);
    connect(m_inspector, &InspectorPanel::nodeActivated, m_scene, &GraphScene::selectNode);
    connect(m_inspector, &InspectorPanel::subgraphRequested, this, &MainWindow::openSubgraph);
    connect(m_problems, &ProblemsPanel::nodeActivated, this, &MainWindow::goToNode);
    connect(m_problems, &ProblemsPanel::problemUnresolved, this,
            [this](const QString &line) { statusBar()->showMessage(line, 8000); });
    connect(m_view, &GraphView::zoomChanged, this,
            [this](qreal zoom) { m_zoomLabel->setText(QStringLiteral("%1%").arg(qRound(zoom * 100))); });

    // The modified mark follows every decision, undo, redo and save.
    connect(m_document->history().undoStack(), &QUndoStack::indexChanged, this, &MainWindow::updateTitle);
    connect(&m_document->review(), &DocumentReview::matchesChanged, this, &MainWindow::updateTitle);
    connect(&m_document->patternSet(), &DocumentPatterns::patternsChanged, this, &MainWindow::updateTitle);
    connect(&m_document->history(), &DocumentHistory::saved, this, &MainWindow::updateTitle);

    restoreSettings();
    updateTitle();
    updateStatus();
}

MainWindow::~MainWindow()
{
    // Every background task ends (cancelled) before the window its results go to.
    m_tasks->cancel();
    m_tasks->waitFor();
    delete m_pt2;
    // The scene emits selectionChanged while its items are deleted; the
    // controller must not hear it once the panels it updates are going.
    delete m_rewrite;
}

void MainWindow::createDocks()
{
    m_inspector->setAllowedAreas(Qt::LeftDockWidgetArea | Qt::RightDockWidgetArea);
    addDockWidget(Qt::RightDockWidgetArea, m_inspector);

    auto *legendDock = new QDockWidget(tr("Legend"), this);
    legendDock->setObjectName(QStringLiteral("legendDock"));
    legendDock->setWidget(m_legend);
    addDockWidget(Qt::RightDockWidgetArea, legendDock);

    auto *logDock = new QDockWidget(tr("Log"), this);
    logDock->setObjectName(QStringLiteral("logDock"));
    m_log->setObjectName(QStringLiteral("log"));
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(2000);
    m_log->setLineWrapMode(QPlainTextEdit::NoWrap);
    QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    m_log->setFont(mono);
    logDock->setWidget(m_log);
    addDockWidget(Qt::BottomDockWidgetArea, logDock);
    m_problems->setAllowedAreas(Qt::BottomDockWidgetArea | Qt::LeftDockWidgetArea | Qt::RightDockWidgetArea);
    addDockWidget(Qt::BottomDockWidgetArea, m_problems);
    // Shown when a TORCH_TRACE log is opened.
    addDockWidget(Qt::LeftDockWidgetArea, m_compiles);
    m_compiles->hide();
    tabifyDockWidget(logDock, m_problems);
    logDock->raise();
    resizeDocks({logDock}, {110}, Qt::Vertical);
    resizeDocks({m_inspector}, {380}, Qt::Horizontal);

    m_viewMenu->addSeparator();
    m_viewMenu->addAction(m_inspector->toggleViewAction());
    m_viewMenu->addAction(legendDock->toggleViewAction());
    m_viewMenu->addAction(logDock->toggleViewAction());
    m_viewMenu->addAction(m_compiles->toggleViewAction());
    // Not the dock's toggleViewAction(): behind the Log's tab the panel counts
    // as open, and the shortcut would close it instead of bringing it up.
    QAction *problems = m_viewMenu->addAction(tr("&Problems"));
    problems->setObjectName(QStringLiteral("showProblems"));
    problems->setCheckable(true);
    problems->setShortcut(Qt::CTRL | Qt::SHIFT | Qt::Key_P);
    problems->setToolTip(tr("The reader's warnings, by kind; activate one to go to its node"));
    connect(m_problems, &QDockWidget::visibilityChanged, problems, &QAction::setChecked);
    connect(problems, &QAction::triggered, this, [this](bool show) {
        m_problems->setVisible(show);
        if (show)
            m_problems->raise();
    });
}

void MainWindow::createStatusBar()
{
    m_progress->setRange(0, 0); // busy indicator
    m_progress->setMaximumWidth(110);
    m_progress->setMaximumHeight(14);
    m_progress->setTextVisible(false);
    m_progress->hide();
    m_busyLabel->hide();
    m_countsLabel->setObjectName(QStringLiteral("countsLabel"));
    m_viewLabel->setObjectName(QStringLiteral("viewLabel"));
    m_fileLabel->setObjectName(QStringLiteral("fileLabel"));
    m_zoomLabel->setObjectName(QStringLiteral("zoomLabel"));
    m_busyLabel->setObjectName(QStringLiteral("busyLabel"));
    m_zoomLabel->setMinimumWidth(44);
    m_zoomLabel->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    statusBar()->addWidget(m_progress);
    statusBar()->addWidget(m_busyLabel);
    statusBar()->addWidget(m_viewLabel, 1);
    // Shown while some tensor input has no known shape.
    m_shapesButton = new QPushButton(tr("Set Input Shapes…"), this);
    m_shapesButton->setObjectName(QStringLiteral("setInputShapesButton"));
    m_shapesButton->setToolTip(tr("Most rules check shapes: without the inputs' shapes they find nothing"));
    m_shapesButton->hide();
    connect(m_shapesButton, &QPushButton::clicked, this, [this] { setInputShapes(); });
    statusBar()->addPermanentWidget(m_shapesButton);
    m_inferShapesButton = new QPushButton(tr("Infer Shapes"), this);
    m_inferShapesButton->setObjectName(QStringLiteral("inferShapesButton"));
    m_inferShapesButton->hide();
    connect(m_inferShapesButton, &QPushButton::clicked, this, [this] { inferShapes(); });
    statusBar()->addPermanentWidget(m_inferShapesButton);
    statusBar()->addPermanentWidget(m_countsLabel);
    statusBar()->addPermanentWidget(m_zoomLabel);
    statusBar()->addPermanentWidget(m_fileLabel);
}

void MainWindow::restoreSettings()
{
    QSettings settings;
    const QByteArray geometry = settings.value(kGeometryKey).toByteArray();
    if (geometry.isEmpty()) {
        // The first run: most of the screen, with room for the graph and a
        // Matches table that shows more than two rows.
        if (const QScreen *s = screen()) {
            const QRect available = s->availableGeometry();
            const QSize size(available.width() * 85 / 100, available.height() * 85 / 100);
            setGeometry(QRect(available.center() - QPoint(size.width() / 2, size.height() / 2), size));
        }
        QList<QDockWidget *> bottom, left;
        for (QDockWidget *dock : findChildren<QDockWidget *>()) {
            if (dockWidgetArea(dock) == Qt::BottomDockWidgetArea)
                bottom << dock;
            else if (dockWidgetArea(dock) == Qt::LeftDockWidgetArea)
                left << dock;
        }
        resizeDocks(bottom, QList<int>(bottom.size(), height() / 4), Qt::Vertical);
        resizeDocks(left, QList<int>(left.size(), width() / 4), Qt::Horizontal);
    }
    restoreGeometry(geometry);
    restoreState(settings.value(kStateKey).toByteArray());
    m_showConstants->setChecked(settings.value(kShowConstantsKey, false).toBool());
    rebuildRecentMenu();
}

void MainWindow::saveSettings()
{
    if (!m_savesSettings)
        return;
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState());
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    // No unsaved review is lost without a prompt (tests run without dialogs).
    if (m_errorDialogs && !m_rewrite->maybeSave()) {
        event->ignore();
        return;
    }
    saveSettings();
    event->accept();
}

QString MainWindow::countsText() const
{
    return m_countsLabel->text();
}

void MainWindow::reportError(const QString &title, const QString &message)
{
    log(tr("error: %1").arg(message));
    statusBar()->showMessage(message, 10000);
    emit openFailed(message);
    if (!m_errorDialogs)
        return;
    // Window-modal and non-blocking: the event loop (and any running load) goes on.
    auto *box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::log(const QString &line)
{
    m_log->appendPlainText(
        QStringLiteral("%1  %2").arg(QTime::currentTime().toString(QStringLiteral("HH:mm:ss")), line));
    // Appending scrolls to the new line's end: a line wider than the dock
    // then hid the start of every line, time included.
    m_log->horizontalScrollBar()->setValue(0);
}

void MainWindow::setBusy(const QString &what)
{
    m_progress->setVisible(!what.isEmpty());
    m_busyLabel->setVisible(!what.isEmpty());
    m_busyLabel->setText(what);
}

void MainWindow::onLoadStarted(const QString &path)
{
    const bool demo = m_demoFile && path == m_demoFile->fileName();
    setBusy(tr("Loading %1…").arg(demo ? tr("the demo model") : QFileInfo(path).fileName()));
    log(demo ? tr("loading the embedded demo model (%1)").arg(QString::fromLatin1(kDemoResource))
             : tr("loading %1").arg(path));
    m_view->viewport()->update();
}

void MainWindow::indexNodeNames()
{
    // Read off the GUI thread, as the layout reads the graph: every change to
    // the graph waits for kGraphReadTask first. A later index supersedes this one.
    const quint64 generation = ++m_namesGeneration;
    auto names = std::make_shared<QStringList>();
    m_document->tasks()->run(
        tr("Indexing node names"), kGraphReadTask, this,
        [graph = &m_document->model().graph(), names](TaskControl &) { *names = NodeSearchField::namesOf(*graph); },
        [this, generation, names](bool cancelled) {
            if (!cancelled && generation == m_namesGeneration)
                m_search->setNames(std::move(*names));
        });
}

void MainWindow::onGraphLoaded()
{
    const Graph &graph = m_document->model().graph();
    if (!m_pendingRecent.isEmpty() && m_document->model().filePath() == m_pendingRecent)
        addRecentFile(m_pendingRecent);
    else if (!m_pendingRecent.isEmpty()
             && QFileInfo(m_document->model().filePath()).absoluteFilePath() == m_pendingRecent)
        addRecentFile(m_pendingRecent);
    m_pendingRecent.clear();
    m_legend->setCounts(m_document->model().familyCounts());
    indexNodeNames();
    m_searchHits.clear();
    m_inspector->clear();
    log(tr("loaded %1: %2 nodes, %3 edges")
            .arg(m_document->model().displayName())
            .arg(graph.size())
            .arg(graph.edgeCount()));
    if (!m_document->model().loadOptions().inputShapes.empty())
        log(tr("input shapes: %1").arg(inputShapesText(m_document->model().loadOptions().inputShapes)));
    const std::vector<size_t> unknown = m_document->model().inputsWithoutShape();
    m_shapesButton->setVisible(!unknown.empty());
    if (!unknown.empty()) {
        QStringList names;
        for (size_t i : unknown)
            names << QStringLiteral("%") + QString::fromStdString(graph.node(graph.inputs()[i])->name);
        const QString line = tr("the shape of %1 is unknown: most rules check shapes and find nothing without it; "
                                "File ▸ Input Shapes… sets it")
                                 .arg(names.join(QStringLiteral(", ")));
        log(line);
        statusBar()->showMessage(line, 15000);
    }
    for (const QString &warning : m_document->model().warnings())
        log(tr("warning: %1").arg(warning));
    m_waitingForFirstLayout = true;
    updateTitle();
    updateStatus();
}

void MainWindow::onLoadFailed(const QString &path, const QString &message)
{
    setBusy({});
    reportError(tr("Cannot open %1").arg(QFileInfo(path).fileName()), message);
    m_view->viewport()->update();
}

void MainWindow::onLayoutStarted(int items)
{
    // Read before the new layout replaces the items (the layout is applied
    // from the event loop): a rewrite's layout puts the view back here.
    m_viewAnchor = m_view->anchor();
    m_layoutTimer.start();
    setBusy(items == 1 ? tr("Laying out 1 item…") : tr("Laying out %1 items…").arg(items));
    m_view->viewport()->update();
}

void MainWindow::onLayoutFinished(bool firstForGraph)
{
    setBusy({});
    const CollapsedGraph &shown = m_scene->visibleGraph();
    log(tr("laid out %1 items and %2 edges in %3 ms")
            .arg(shown.items().size())
            .arg(shown.edges().size())
            .arg(m_layoutTimer.elapsed()));
    // What is shown changed wholesale (Collapse All, Expand All, Focus, Show
    // Whole Graph): show the new layout as a first one is shown.
    const bool refit = std::exchange(m_refitAfterLayout, false);
    if (firstForGraph || refit)
        m_view->showReadable();
    if (firstForGraph) {
        if (m_scene->startedCollapsed())
            log(tr("%1 nodes, layout size %2: opened with the module hierarchy collapsed (limits: %3 items, "
                   "size %4); double-click a group to expand it")
                    .arg(m_scene->fullItemCount())
                    .arg(qRound64(m_scene->fullLayoutSize()))
                    .arg(GraphScene::kCollapseThreshold)
                    .arg(qRound64(GraphScene::kMaxLayoutSize)));
    } else if (!refit && !m_scene->focusRect().isEmpty()) {
        m_view->focusOn(m_scene->focusRect());
    } else if (!refit) {
        // A rewrite, an undo: every node moved; the view stays on the
        // nodes it showed (after Apply All it looked at empty space).
        m_view->keepAnchor(m_viewAnchor);
    }
    m_zoomLabel->setText(QStringLiteral("%1%").arg(qRound(m_view->zoom() * 100)));
    updateStatus();
    m_view->viewport()->update();
    if (firstForGraph && m_waitingForFirstLayout) {
        m_waitingForFirstLayout = false;
        emit graphShown();
    }
}

void MainWindow::onLayoutFailed(const QString &message)
{
    setBusy({});
    m_waitingForFirstLayout = false;
    reportError(tr("Layout failed"), message);
}

void MainWindow::onNodeSelected(NodeId id)
{
    if (id.isValid())
        m_inspector->showNode(id);
    else if (m_scene->selectedGroup() < 0)
        m_inspector->clear();
}

void MainWindow::onGroupSelected(int scope)
{
    if (scope >= 0)
        m_inspector->showGroup(scope);
    else if (!m_scene->selectedNode().isValid())
        m_inspector->clear();
}

void MainWindow::onExpandAll()
{
    m_scene->expandAll(); // what stopped it short is reported by expandAllLimited
}

void MainWindow::onExpandAllLimited(int opened)
{
    const QString message
        = opened == 0 ? tr("Expand All: nothing more can be opened at once (the view holds at most %1 items); "
                           "double-click a group to open it")
                            .arg(GraphScene::kMaxExpandedItems)
                      : tr("Expand All opened %1 groups, as far as %2 items; expand the remaining groups one by one")
                            .arg(opened)
                            .arg(GraphScene::kMaxExpandedItems);
    statusBar()->showMessage(message, 10000);
    log(message);
}

void MainWindow::updateTitle()
{
    // "[*]" is where Qt shows the modified mark ("*") while isWindowModified().
    if (!m_document->model().hasGraph())
        setWindowTitle(tr("Fusebox"));
    else if (!m_sessionPath.isEmpty())
        setWindowTitle(
            tr("%1 (%2)[*] — Fusebox").arg(QFileInfo(m_sessionPath).fileName(), m_document->model().displayName()));
    else
        setWindowTitle(tr("%1[*] — Fusebox").arg(m_document->model().displayName()));
    setWindowModified(m_document->model().hasGraph() && m_document->history().isModified());
    m_fileLabel->setText(m_document->model().hasGraph() ? m_document->model().displayName() : QString());
    m_fileLabel->setToolTip(m_document->model().filePath());
}

void MainWindow::updateStatus()
{
    if (!m_document->model().hasGraph()) {
        m_countsLabel->setText(tr("no model"));
        m_viewLabel->clear();
        return;
    }
    const Graph &graph = m_document->model().graph();
    // Values without a shape are where rules cannot decide: counted where
    // the user looks, with the offer to infer them.
    // Counted once per graph (DocumentGraph::shapeCounts()), not on every status
    // update: each layout ends with one, and on a 100k-node graph the count
    // took a third of a stall.
    const ShapeCounts &shapes = m_document->model().shapeCounts();
    const bool offerInference = shapes.unknown > 0 && isPt2Graph(graph)
                                && m_document->model().inputsWithoutShape().empty() && !isDemoOpen();
    m_inferShapesButton->setVisible(offerInference);
    m_inferShapesAction->setEnabled(offerInference);
    if (shapes.unknown == 0) {
        m_countsLabel->setText(tr("%1 nodes · %2 edges").arg(graph.size()).arg(graph.edgeCount()));
        m_countsLabel->setToolTip({});
    } else {
        m_countsLabel->setText(tr("%1 nodes · %2 edges · %3 of %4 values without a shape")
                                   .arg(graph.size())
                                   .arg(graph.edgeCount())
                                   .arg(shapes.unknown)
                                   .arg(shapes.known + shapes.unknown));
        const Node *first = graph.node(shapes.firstUnknown);
        const QString why = tr("Rules that read a value without a shape cannot decide there (Why Not says so).");
        m_countsLabel->setToolTip(
            first ? tr("%1 The first is %%2 (%3). %4")
                        .arg(why, QString::fromStdString(first->name), QString::fromStdString(first->qualifiedOp()),
                             offerInference ? tr("Infer Shapes asks PyTorch 2 for them.")
                                            : tr("Set the inputs' shapes first (File ▸ Input Shapes…)."))
                  : why);
        m_inferShapesButton->setToolTip(
            tr("Opens the model again with its %1 values without a shape inferred in PyTorch 2 (%2) on fake "
               "tensors; decisions not saved are lost")
                .arg(shapes.unknown)
                .arg(Pt2Controller::pythonCommand().isEmpty() ? tr("the one Fusebox finds")
                                                              : Pt2Controller::pythonCommand()));
    }
    const CollapsedGraph &shown = m_scene->visibleGraph();
    QStringList parts;
    const size_t groups = shown.groupCount();
    const size_t nodes = shown.items().size() - groups;
    if (groups)
        parts << tr("showing %1 nodes + %2 collapsed groups (double-click to expand)").arg(nodes).arg(groups);
    else
        parts << tr("showing all %1 nodes").arg(nodes);
    // Focus mode hides the nodes away from the focus, not only constants: each is named for what it is.
    if (shown.outsideFocusCount())
        parts << tr("%1 nodes outside the focus (View ▸ Show Whole Graph)").arg(shown.outsideFocusCount());
    if (shown.hiddenConstantCount())
        parts << tr("%1 constants hidden (View ▸ Show Constants)").arg(shown.hiddenConstantCount());
    m_viewLabel->setText(parts.join(QStringLiteral(" · ")));
}

} // namespace fusebox
