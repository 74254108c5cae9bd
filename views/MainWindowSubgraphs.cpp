// MainWindow's subgraph windows: a higher-order op's subgraph (the FX text
// the reader keeps on the node, core/io/FxSubgraphs.h) opened as a graph of
// its own, read by the same loader as any FX dump.
#include "MainWindow.h"

#include "Document.h"
#include "core/io/FxSubgraphs.h"

#include <QDir>
#include <QTemporaryFile>

namespace fusebox {

MainWindow *MainWindow::openSubgraph(NodeId node, const QString &name)
{
    const Node *n = m_document->model().graph().node(node);
    const std::optional<std::string> text = n ? subgraphText(*n, name.toStdString()) : std::nullopt;
    if (!text) {
        reportError(tr("Open Subgraph"),
                    tr("%1 has no subgraph %2").arg(n ? QString::fromStdString(n->name) : tr("the node"), name));
        return nullptr;
    }
    auto *window = new MainWindow(this);
    window->setAttribute(Qt::WA_DeleteOnClose);
    window->m_savesSettings = false;
    window->setErrorDialogsEnabled(m_errorDialogs);
    // The loader reads files: the text goes to a temporary one that lives as long as the window.
    auto *file = new QTemporaryFile(QDir::tempPath() + QStringLiteral("/fusebox-subgraph-XXXXXX.py"), window);
    const QByteArray bytes = QByteArray::fromStdString(*text);
    if (!file->open() || file->write(bytes) != bytes.size() || !file->flush()) {
        delete window;
        reportError(tr("Open Subgraph"), tr("Could not write subgraph %1 to %2.").arg(name, QDir::tempPath()));
        return nullptr;
    }
    file->close();
    const QString title = tr("%1 ▸ %2 ▸ %3")
                              .arg(m_document->model().displayName(), QString::fromStdString(n->name), name);
    window->log(tr("subgraph %1 of %2 (%3), opened as a copy: rewrites here leave %4 alone")
                    .arg(name, QString::fromStdString(n->name), QString::fromStdString(n->qualifiedOp()),
                         m_document->model().displayName()));
    window->document()->open(file->fileName(), {}, title); // the model's input shapes are not its subgraph's
    window->resize(size());
    window->move(pos() + QPoint(48, 48));
    window->show();
    emit subgraphOpened(window);
    return window;
}

} // namespace fusebox
