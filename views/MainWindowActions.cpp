// MainWindow's menus and toolbar (File, View, the main toolbar with the node
// search field) and what the search does.
#include "MainWindow.h"

#include "Document.h"
#include "GraphScene.h"
#include "GraphView.h"
#include "MiniMap.h"
#include "NodeSearchField.h"

#include <QAction>
#include <QMenuBar>
#include <QSettings>
#include <QStatusBar>
#include <QToolBar>

namespace fusebox {

namespace {
/// The focus view's radius, in edges.
constexpr int kFocusHops = 2;
} // namespace

void MainWindow::createActions()
{
    QAction *open = createFileMenu();
    const ViewActions view = createViewMenu();
    createToolBar(open, view);
}

QAction *MainWindow::createFileMenu()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    m_fileMenu = file;
    QAction *open = file->addAction(tr("&Open…"), this, &MainWindow::showOpenDialog);
    open->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addAction(tr("Open &Demo Model"), this, [this] { openDemoModel(); });
    QAction *shapes = file->addAction(tr("&Input Shapes…"), this, [this] { setInputShapes(); });
    shapes->setObjectName(QStringLiteral("inputShapesAction"));
    m_inferShapesAction = file->addAction(tr("Infer S&hapes in PyTorch 2"), this, [this] { inferShapes(); });
    m_inferShapesAction->setObjectName(QStringLiteral("inferShapesAction"));
    m_inferShapesAction->setEnabled(false);
    shapes->setToolTip(tr("Set the shapes of the model's tensor inputs and open it again with them"));
    file->addSeparator();
    QAction *saveSessionAction = file->addAction(tr("&Save Session"), this, [this] { saveSessionInteractive(); });
    saveSessionAction->setShortcut(QKeySequence::Save);
    saveSessionAction->setToolTip(tr("Save the review to its session file; asks for a name the first time (Ctrl+S)"));
    // No key: Ctrl+Shift+S, SaveAs on most platforms, exports the rewritten model.
    file->addAction(tr("Save Session &As…"), this, [this] { saveSessionAs(); });
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);
    return open;
}

MainWindow::ViewActions MainWindow::createViewMenu()
{
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
        QSettings().setValue(kShowConstantsKey, on);
    });
    view->addSeparator();
    QAction *expandAll = view->addAction(tr("&Expand All"), this, &MainWindow::onExpandAll);
    expandAll->setShortcut(Qt::CTRL | Qt::Key_E);
    QAction *collapseAll = view->addAction(tr("Co&llapse All"), m_scene, &GraphScene::collapseAll);
    collapseAll->setShortcut(Qt::CTRL | Qt::SHIFT | Qt::Key_E);
    view->addSeparator();
    QAction *focus = view->addAction(tr("&Focus on Selection"), this, [this] {
        std::vector<NodeId> nodes = m_scene->selectedNodes();
        if (nodes.empty()) {
            statusBar()->showMessage(tr("Select nodes (or a match) to focus on"), 5000);
            return;
        }
        m_scene->showNeighbourhood(nodes, kFocusHops);
        statusBar()->showMessage(tr("Showing the %1-hop neighbourhood of %2 node(s); Shift+K shows the whole graph")
                                     .arg(kFocusHops)
                                     .arg(nodes.size()),
                                 8000);
    });
    focus->setShortcut(Qt::Key_K);
    focus->setToolTip(tr("Show only the nodes within %1 edges of the selection").arg(kFocusHops));
    QAction *whole = view->addAction(tr("Show &Whole Graph"), m_scene, &GraphScene::showWholeGraph);
    whole->setShortcut(Qt::SHIFT | Qt::Key_K);
    QAction *miniMap = view->addAction(tr("&Minimap"));
    miniMap->setCheckable(true);
    miniMap->setChecked(QSettings().value(kMiniMapKey, true).toBool());
    miniMap->setShortcut(Qt::Key_M);
    m_view->miniMap()->setWanted(miniMap->isChecked());
    connect(miniMap, &QAction::toggled, this, [this](bool on) {
        m_view->miniMap()->setWanted(on);
        QSettings().setValue(kMiniMapKey, on);
    });
    m_viewMenu = view;
    return {fit, zoomIn, zoomOut, expandAll, collapseAll};
}

void MainWindow::createToolBar(QAction *open, const ViewActions &view)
{
    QToolBar *bar = addToolBar(tr("Main"));
    m_toolBar = bar;
    bar->setObjectName(QStringLiteral("mainToolBar"));
    bar->setMovable(false);
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    bar->addAction(open);
    bar->addSeparator();
    bar->addAction(view.fit);
    bar->addAction(view.zoomIn);
    bar->addAction(view.zoomOut);
    bar->addSeparator();
    bar->addAction(m_showConstants);
    bar->addAction(view.expandAll);
    bar->addAction(view.collapseAll);
    auto *spacer = new QWidget(bar);
    spacer->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    m_toolBarSpacer = bar->addWidget(spacer);
    m_search = new NodeSearchField(bar);
    bar->addWidget(m_search);
    QAction *find = m_viewMenu->addAction(tr("&Find Node…"), this, [this] {
        m_search->setFocus(Qt::ShortcutFocusReason);
        m_search->selectAll();
    });
    find->setShortcut(QKeySequence::Find);
    connect(m_search, &NodeSearchField::searchRequested, this, &MainWindow::onSearch);
}

void MainWindow::onSearch(const QString &text)
{
    if (!m_document->model().hasGraph())
        return;
    // Enter on the same text steps to the next hit.
    if (text != m_searchText || m_searchHits.empty()) {
        m_searchText = text;
        m_searchHits = NodeSearchField::findAll(m_document->model().graph(), text);
        m_searchIndex = 0;
    } else {
        m_searchIndex = (m_searchIndex + 1) % m_searchHits.size();
    }
    if (m_searchHits.empty()) {
        statusBar()->showMessage(tr("No node matches \"%1\"").arg(text), 5000);
        return;
    }
    const NodeId id = m_searchHits[m_searchIndex];
    statusBar()->showMessage(
        tr("\"%1\": %2 of %3 (Enter for the next)").arg(text).arg(m_searchIndex + 1).arg(m_searchHits.size()), 8000);
    goToNode(id);
}

void MainWindow::goToNode(NodeId id)
{
    // A node in a collapsed scope is centred by onLayoutFinished().
    m_scene->selectNode(id);
    if (!m_scene->focusRect().isEmpty() && m_scene->nodeItem(id))
        m_view->focusOn(m_scene->focusRect());
}

} // namespace fusebox
