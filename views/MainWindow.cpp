#include "MainWindow.h"

#include "Document.h"
#include "GraphScene.h"
#include "GraphView.h"
#include "InspectorPanel.h"
#include "LegendWidget.h"
#include "NodeSearchField.h"

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
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QSettings>
#include <QStatusBar>
#include <QTemporaryFile>
#include <QToolBar>
#include <QVBoxLayout>

namespace fusebox {

namespace {
const char *kRecentKey = "recentFiles";
const char *kGeometryKey = "mainWindow/geometry";
const char *kStateKey = "mainWindow/state";
const char *kConstantsKey = "view/showConstants";
} // namespace

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
    , m_document(new Document(this))
    , m_scene(new GraphScene(m_document, this))
    , m_view(new GraphView(m_scene, this))
    , m_inspector(new InspectorPanel(m_document, m_scene, this))
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

    connect(m_document, &Document::loadStarted, this, &MainWindow::onLoadStarted);
    connect(m_document, &Document::graphLoaded, this, &MainWindow::onGraphLoaded);
    connect(m_document, &Document::loadFailed, this, &MainWindow::onLoadFailed);
    connect(m_scene, &GraphScene::layoutStarted, this, &MainWindow::onLayoutStarted);
    connect(m_scene, &GraphScene::layoutFinished, this, &MainWindow::onLayoutFinished);
    connect(m_scene, &GraphScene::layoutFailed, this, &MainWindow::onLayoutFailed);
    connect(m_scene, &GraphScene::selectedNodeChanged, this, &MainWindow::onNodeSelected);
    connect(m_scene, &GraphScene::selectedGroupChanged, this, &MainWindow::onGroupSelected);
    connect(m_inspector, &InspectorPanel::nodeActivated, m_scene, &GraphScene::selectNode);
    connect(m_view, &GraphView::zoomChanged, this,
            [this](qreal zoom) { m_zoomLabel->setText(QStringLiteral("%1%").arg(qRound(zoom * 100))); });

    restoreSettings();
    updateTitle();
    updateStatus();
}

MainWindow::~MainWindow() = default;

void MainWindow::createActions()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *open = file->addAction(tr("&Open…"), this, &MainWindow::showOpenDialog);
    open->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addAction(tr("Open &Demo Model"), this, [this] { openDemoModel(); });
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    QAction *fit = view->addAction(tr("&Fit to View"), m_view, &GraphView::fitToView);
    fit->setShortcut(Qt::Key_F);
    QAction *zoomIn = view->addAction(tr("Zoom &In"), m_view, &GraphView::zoomIn);
    zoomIn->setShortcuts({QKeySequence::ZoomIn, QKeySequence(Qt::Key_Plus), QKeySequence(Qt::Key_Equal)});
    QAction *zoomOut = view->addAction(tr("Zoom &Out"), m_view, &GraphView::zoomOut);
    zoomOut->setShortcuts({QKeySequence::ZoomOut, QKeySequence(Qt::Key_Minus)});
    QAction *actual = view->addAction(tr("&Actual Size"), m_view, [this] { m_view->setZoom(1.0); });
    actual->setShortcut(Qt::Key_1);
    view->addSeparator();
    m_showConstants = view->addAction(tr("Show &Constants"));
    m_showConstants->setCheckable(true);
    m_showConstants->setShortcut(Qt::Key_C);
    m_showConstants->setToolTip(tr("Show weight/buffer constants as nodes"));
    connect(m_showConstants, &QAction::toggled, this, [this](bool on) {
        m_scene->setShowConstants(on);
        QSettings().setValue(kConstantsKey, on);
    });
    view->addSeparator();
    QAction *expandAll = view->addAction(tr("&Expand All"), this, &MainWindow::onExpandAll);
    expandAll->setShortcut(Qt::CTRL | Qt::Key_E);
    QAction *collapseAll = view->addAction(tr("Co&llapse All"), m_scene, &GraphScene::collapseAll);
    collapseAll->setShortcut(Qt::CTRL | Qt::SHIFT | Qt::Key_E);
    m_viewMenu = view;

    QToolBar *bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("mainToolBar"));
    bar->setMovable(false);
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    bar->addAction(open);
    bar->addSeparator();
    bar->addAction(fit);
    bar->addAction(zoomIn);
    bar->addAction(zoomOut);
    bar->addSeparator();
    bar->addAction(m_showConstants);
    bar->addAction(expandAll);
    bar->addAction(collapseAll);
    auto *spacer = new QWidget(bar);
    spacer->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    bar->addWidget(spacer);
    m_search = new NodeSearchField(bar);
    bar->addWidget(m_search);
    QAction *find = view->addAction(tr("&Find Node…"), this, [this] {
        m_search->setFocus(Qt::ShortcutFocusReason);
        m_search->selectAll();
    });
    find->setShortcut(QKeySequence::Find);
    connect(m_search, &NodeSearchField::searchRequested, this, &MainWindow::onSearch);
}

void MainWindow::onSearch(const QString &text)
{
    if (!m_document->hasGraph())
        return;
    const NodeId id = NodeSearchField::find(m_document->graph(), text);
    if (!id.isValid()) {
        statusBar()->showMessage(tr("No node matches \"%1\"").arg(text), 5000);
        return;
    }
    m_scene->selectNode(id);
    if (!m_scene->focusRect().isEmpty() && m_scene->nodeItem(id))
        m_view->focusOn(m_scene->focusRect());
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
    resizeDocks({logDock}, {110}, Qt::Vertical);
    resizeDocks({m_inspector}, {380}, Qt::Horizontal);

    m_viewMenu->addSeparator();
    m_viewMenu->addAction(m_inspector->toggleViewAction());
    m_viewMenu->addAction(legendDock->toggleViewAction());
    m_viewMenu->addAction(logDock->toggleViewAction());
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
    statusBar()->addPermanentWidget(m_countsLabel);
    statusBar()->addPermanentWidget(m_zoomLabel);
    statusBar()->addPermanentWidget(m_fileLabel);
}

void MainWindow::restoreSettings()
{
    QSettings settings;
    restoreGeometry(settings.value(kGeometryKey).toByteArray());
    restoreState(settings.value(kStateKey).toByteArray());
    m_showConstants->setChecked(settings.value(kConstantsKey, false).toBool());
    rebuildRecentMenu();
}

void MainWindow::saveSettings()
{
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState());
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    saveSettings();
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.size() == 1 && urls.first().isLocalFile())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.isEmpty() || !urls.first().isLocalFile())
        return;
    event->acceptProposedAction();
    openFile(urls.first().toLocalFile());
}

void MainWindow::showOpenDialog()
{
    QStringList patterns;
    for (const std::string &ext : supportedModelExtensions())
        patterns << QStringLiteral("*.%1").arg(QString::fromStdString(ext));
    const QString filter = tr("Models (%1);;All files (*)").arg(patterns.join(QLatin1Char(' ')));
    QString start;
    if (!recentFiles().isEmpty())
        start = QFileInfo(recentFiles().first()).absolutePath();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Model"), start, filter);
    if (!path.isEmpty())
        openFile(path);
}

void MainWindow::openFile(const QString &path)
{
    m_pendingRecent = QFileInfo(path).absoluteFilePath();
    m_demoFile.reset();
    m_document->open(path, m_loadOptions);
}

bool MainWindow::openDemoModel()
{
    QFile resource(QString::fromLatin1(kDemoResource));
    if (!resource.open(QIODevice::ReadOnly)) {
        reportError(tr("Demo model"), tr("The demo model is not embedded in this build (%1).").arg(kDemoResource));
        return false;
    }
    auto temp = std::make_unique<QTemporaryFile>(QDir::tempPath() + QStringLiteral("/fusebox-demo-XXXXXX.pt"));
    if (!temp->open() || temp->write(resource.readAll()) != resource.size() || !temp->flush()) {
        reportError(tr("Demo model"), tr("Could not write the demo model to %1.").arg(QDir::tempPath()));
        return false;
    }
    temp->close(); // the loader reopens it by name; the file lives as long as m_demoFile
    const QString path = temp->fileName();
    m_demoFile = std::move(temp);
    m_pendingRecent.clear();
    m_document->open(path, m_loadOptions, tr("recsys_demo.pt (demo)"));
    return true;
}

QString MainWindow::countsText() const { return m_countsLabel->text(); }

QStringList MainWindow::recentFiles() const { return QSettings().value(kRecentKey).toStringList(); }

void MainWindow::addRecentFile(const QString &path)
{
    QStringList files = recentFiles();
    files.removeAll(path);
    files.prepend(path);
    while (files.size() > kMaxRecentFiles)
        files.removeLast();
    QSettings().setValue(kRecentKey, files);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList files = recentFiles();
    for (const QString &file : files) {
        QAction *action = m_recentMenu->addAction(QFileInfo(file).fileName(), this, [this, file] { openFile(file); });
        action->setToolTip(file);
        action->setStatusTip(file);
    }
    if (!files.isEmpty()) {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(tr("Clear Menu"), this, [this] {
            QSettings().remove(kRecentKey);
            rebuildRecentMenu();
        });
    }
    m_recentMenu->setEnabled(!files.isEmpty());
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
    m_log->appendPlainText(QStringLiteral("%1  %2").arg(QTime::currentTime().toString(QStringLiteral("HH:mm:ss")), line));
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
    log(demo ? tr("loading the embedded demo model (%1)").arg(QString::fromLatin1(kDemoResource)) : tr("loading %1").arg(path));
    m_view->viewport()->update();
}

void MainWindow::onGraphLoaded()
{
    const Graph &graph = m_document->graph();
    if (!m_pendingRecent.isEmpty() && m_document->filePath() == m_pendingRecent)
        addRecentFile(m_pendingRecent);
    else if (!m_pendingRecent.isEmpty() && QFileInfo(m_document->filePath()).absoluteFilePath() == m_pendingRecent)
        addRecentFile(m_pendingRecent);
    m_pendingRecent.clear();
    m_legend->setGraph(graph);
    m_search->setGraph(graph);
    m_inspector->clear();
    log(tr("loaded %1: %2 nodes, %3 edges").arg(m_document->displayName()).arg(graph.size()).arg(graph.edgeCount()));
    for (const QString &warning : m_document->warnings())
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
    m_layoutTimer.start();
    setBusy(items == 1 ? tr("Laying out 1 item…") : tr("Laying out %1 items…").arg(items));
    m_view->viewport()->update();
}

void MainWindow::onLayoutFinished(bool firstForGraph)
{
    setBusy({});
    const CollapsedGraph &shown = m_scene->visibleGraph();
    log(tr("laid out %1 items and %2 edges in %3 ms")
            .arg(shown.items().size()).arg(shown.edges().size()).arg(m_layoutTimer.elapsed()));
    if (firstForGraph) {
        m_view->showReadable();
        if (m_scene->startedCollapsed())
            log(tr("%1 nodes, layout size %2: opened with the module hierarchy collapsed (limits: %3 items, "
                   "size %4); double-click a group to expand it")
                    .arg(m_scene->fullItemCount())
                    .arg(qRound64(m_scene->fullLayoutSize()))
                    .arg(GraphScene::kCollapseThreshold)
                    .arg(qRound64(GraphScene::kMaxLayoutSize)));
    } else if (!m_scene->focusRect().isEmpty()) {
        m_view->focusOn(m_scene->focusRect());
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
    if (!m_scene->expandAll())
        statusBar()->showMessage(tr("Expanded as far as %1 items; expand the remaining groups one by one")
                                     .arg(GraphScene::kMaxExpandedItems),
                                 10000);
}

void MainWindow::updateTitle()
{
    if (m_document->hasGraph())
        setWindowTitle(tr("%1 — Fusebox").arg(m_document->displayName()));
    else
        setWindowTitle(tr("Fusebox"));
    m_fileLabel->setText(m_document->hasGraph() ? m_document->displayName() : QString());
    m_fileLabel->setToolTip(m_document->filePath());
}

void MainWindow::updateStatus()
{
    if (!m_document->hasGraph()) {
        m_countsLabel->setText(tr("no model"));
        m_viewLabel->clear();
        return;
    }
    const Graph &graph = m_document->graph();
    m_countsLabel->setText(tr("%1 nodes · %2 edges").arg(graph.size()).arg(graph.edgeCount()));
    const CollapsedGraph &shown = m_scene->visibleGraph();
    QStringList parts;
    const size_t groups = shown.groupCount();
    const size_t nodes = shown.items().size() - groups;
    if (groups)
        parts << tr("showing %1 nodes + %2 collapsed groups (double-click to expand)").arg(nodes).arg(groups);
    else
        parts << tr("showing all %1 nodes").arg(nodes);
    if (shown.hiddenNodeCount())
        parts << tr("%1 constants hidden (View ▸ Show Constants)").arg(shown.hiddenNodeCount());
    m_viewLabel->setText(parts.join(QStringLiteral(" · ")));
}

} // namespace fusebox
