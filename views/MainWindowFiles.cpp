// MainWindow's file side: opening models (dialog, drag and drop, recent
// files, the embedded demo) and review sessions.
#include "MainWindow.h"

#include "CompilesPanel.h"
#include "core/io/TorchTrace.h"

#include "Document.h"
#include "ReviewFiles.h"
#include "RewriteController.h"
#include "InputShapes.h"
#include "SessionFile.h"

#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QMenu>
#include <QMimeData>
#include <QSettings>
#include <QStatusBar>
#include <QTemporaryFile>

namespace fusebox {

namespace {
const char *kRecentKey = "recentFiles";
const char *kRecentShapesKey = "recentFileInputShapes"; // path -> "32,13;32,384"
} // namespace

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
    const QString filter = tr("Models (%1);;Fusebox sessions (*.fusebox);;All files (*)")
                               .arg(patterns.join(QLatin1Char(' ')));
    QString start;
    if (!recentFiles().isEmpty())
        start = QFileInfo(recentFiles().first()).absolutePath();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Model"), start, filter);
    if (!path.isEmpty())
        openFile(path);
}

bool MainWindow::isDemoOpen() const
{
    return m_demoFile && m_document->model().filePath() == m_demoFile->fileName();
}

bool MainWindow::saveSession(const QString &path, QString *error)
{
    if (!m_rewrite->files()->saveSession(path, isDemoOpen(), error))
        return false;
    m_sessionPath = QFileInfo(path).absoluteFilePath();
    updateTitle();
    return true;
}

bool MainWindow::saveSessionInteractive()
{
    if (m_sessionPath.isEmpty())
        return saveSessionAs();
    return saveSessionReporting(m_sessionPath);
}

bool MainWindow::saveSessionReporting(const QString &path)
{
    QString error;
    if (!saveSession(path, &error)) {
        reportError(tr("Save Session"), error);
        return false;
    }
    statusBar()->showMessage(tr("saved %1").arg(m_sessionPath), 5000);
    return true;
}

bool MainWindow::saveSessionAs()
{
    const QString suggested = m_sessionPath.isEmpty() ? QStringLiteral("review.fusebox") : m_sessionPath;
    const QString path = m_chooseSavePath ? m_chooseSavePath(suggested)
                                          : QFileDialog::getSaveFileName(this, tr("Save Session As"), suggested,
                                                                         tr("Fusebox sessions (*.fusebox)"));
    return !path.isEmpty() && saveSessionReporting(path);
}

bool MainWindow::openSession(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        reportError(tr("Open Session"), tr("%1: %2").arg(path, file.errorString()));
        return false;
    }
    auto session = readSession(QString::fromUtf8(file.readAll()), path);
    if (!session) {
        reportError(tr("Open Session"), QString::fromStdString(session.error().message));
        return false;
    }
    // Replay once the session's model has loaded (or give up if it fails).
    auto restore = std::make_shared<QMetaObject::Connection>();
    auto failed = std::make_shared<QMetaObject::Connection>();
    *restore = connect(&m_document->model(), &DocumentGraph::graphLoaded, this,
                       [this, restore, failed, path, s = *session] {
                           disconnect(*restore);
                           disconnect(*failed);
                           QString error;
                           const bool ok = m_rewrite->files()->restoreSession(s, path, &error);
                           if (!ok)
                               reportError(tr("Open Session"), error);
                           else
                               m_sessionPath = QFileInfo(path).absoluteFilePath(); // Ctrl+S saves back to it
                           updateTitle();
                           emit sessionRestored(ok, error);
                       });
    *failed = connect(&m_document->jobs(), &DocumentJobs::loadFailed, this, [this, restore, failed] {
        disconnect(*restore);
        disconnect(*failed);
        emit sessionRestored(false, tr("the session's model could not be opened"));
    });
    // The shapes the review used come back with it.
    LoadOptions options = m_loadOptions;
    if (!session->inputShapes.empty())
        options.inputShapes = session->inputShapes;
    if (session->demo)
        openDemoModel(&options);
    else
        openFile(session->modelPath, options);
    return true;
}

void MainWindow::openFile(const QString &path)
{
    // A recent file opens with the shapes it was reviewed with.
    LoadOptions options = m_loadOptions;
    if (options.inputShapes.empty())
        if (auto shapes = parseInputShapes(recentShapes(QFileInfo(path).absoluteFilePath())))
            options.inputShapes = *shapes;
    openFile(path, options);
}

void MainWindow::openFile(const QString &path, const LoadOptions &options)
{
    if (path.endsWith(QStringLiteral(".fusebox"), Qt::CaseInsensitive)) {
        openSession(path);
        return;
    }
    // A TORCH_TRACE log (or a directory of rank logs) is many graphs: its
    // compiles are listed, and each graph opens from there as a document.
    if (!path.contains(QLatin1Char('#')) && isTorchTracePath(path.toStdString())) {
        m_compiles->show();
        m_compiles->raise();
        // The compiles are what there is to see: most of the left column.
        resizeDocks({m_compiles}, {480}, Qt::Horizontal);
        resizeDocks({m_compiles}, {height() * 2 / 3}, Qt::Vertical);
        m_compiles->openLog(path);
        return;
    }
    if (m_errorDialogs && !m_rewrite->maybeSave())
        return;
    m_sessionPath.clear(); // a new review: Ctrl+S asks for a session file again
    m_pendingRecent = QFileInfo(path).absoluteFilePath();
    m_demoFile.reset();
    m_document->open(path, options);
}

bool MainWindow::inferShapes()
{
    if (!m_document->model().hasGraph() || !m_inferShapesAction->isEnabled())
        return false;
    if (m_errorDialogs && !m_rewrite->maybeSave())
        return false;
    log(tr("opening %1 again, its values without a shape inferred in PyTorch 2").arg(m_document->model().displayName()));
    m_sessionPath.clear(); // a new review, as for any open
    m_document->open(m_document->model().filePath(), m_document->model().loadOptions(), {},
                     /*requirePytorchShapes=*/true);
    return true;
}

bool MainWindow::setInputShapes()
{
    if (!m_document->model().hasGraph())
        return false;
    const QString current = m_document->model().loadOptions().inputShapes.empty()
                                ? currentInputShapesText(m_document->model().graph())
                                : inputShapesText(m_document->model().loadOptions().inputShapes);
    const QString hint = tr("Shapes of the tensor inputs, in order: sizes separated by ',', inputs by ';' (e.g. "
                            "32,13;32,384). The model is opened again with them; decisions not saved are lost.");
    QString text = current;
    for (;;) {
        bool ok = false;
        text = m_askInputShapes ? m_askInputShapes(text)
                                : QInputDialog::getText(this, tr("Input Shapes"), hint, QLineEdit::Normal, text, &ok);
        if (m_askInputShapes)
            ok = !text.isNull();
        if (!ok)
            return false;
        QString error;
        auto shapes = parseInputShapes(text, &error);
        if (shapes) {
            LoadOptions options = m_loadOptions;
            options.inputShapes = *shapes;
            log(tr("opening %1 again with input shapes %2")
                    .arg(m_document->model().displayName(), inputShapesText(*shapes)));
            if (isDemoOpen())
                openDemoModel(&options);
            else
                openFile(m_document->model().filePath(), options);
            return true;
        }
        reportError(tr("Input Shapes"), error);
        if (m_askInputShapes)
            return false; // a test's answer is not asked again
    }
}

bool MainWindow::openDemoModel(const LoadOptions *options)
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
    m_sessionPath.clear();
    m_document->open(path, options ? *options : m_loadOptions, tr("recsys_demo.pt (demo)"));
    return true;
}

QStringList MainWindow::recentFiles() const
{
    return QSettings().value(kRecentKey).toStringList();
}

void MainWindow::addRecentFile(const QString &path)
{
    QStringList files = recentFiles();
    files.removeAll(path);
    files.prepend(path);
    while (files.size() > kMaxRecentFiles)
        files.removeLast();
    QSettings settings;
    settings.setValue(kRecentKey, files);
    // The input shapes it was opened with, for Open Recent.
    QVariantMap shapes = settings.value(kRecentShapesKey).toMap();
    for (auto it = shapes.begin(); it != shapes.end();)
        it = files.contains(it.key()) ? std::next(it) : shapes.erase(it);
    if (m_document->model().loadOptions().inputShapes.empty())
        shapes.remove(path);
    else
        shapes.insert(path, inputShapesText(m_document->model().loadOptions().inputShapes));
    settings.setValue(kRecentShapesKey, shapes);
    rebuildRecentMenu();
}

QString MainWindow::recentShapes(const QString &path) const
{
    return QSettings().value(kRecentShapesKey).toMap().value(path).toString();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList files = recentFiles();
    for (const QString &file : files) {
        const QString shapes = recentShapes(file);
        const QString label = shapes.isEmpty() ? QFileInfo(file).fileName()
                                               : tr("%1 (inputs %2)").arg(QFileInfo(file).fileName(), shapes);
        QAction *action = m_recentMenu->addAction(label, this, [this, file] { openFile(file); });
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

} // namespace fusebox
