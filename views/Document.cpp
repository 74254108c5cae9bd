#include "Document.h"

#include "core/ir/Verifier.h"
#include "patterns/Catalog.h"

#include <QFileInfo>
#include <QFutureWatcher>
#include <QUndoStack>
#include <QtConcurrent/QtConcurrentRun>

#include <exception>

namespace fusebox {

Document::Document(QObject *parent) : QObject(parent), m_patterns(builtinCatalog()), m_undo(new QUndoStack(this))
{
    connect(m_undo, &QUndoStack::indexChanged, this, &Document::onUndoIndexChanged);
}

Document::~Document()
{
    // A background search or Apply All reads the graph and the patterns.
    m_background.waitForFinished();
    // The undo stack is a child, so QObject would delete it after this object's members are
    // gone, and its clear() emits indexChanged to windows that then read them (a double free
    // of the display name in valgrind). Quiet it and delete it while the members still live.
    m_undo->blockSignals(true);
    delete m_undo;
    m_undo = nullptr;
}

void Document::open(const QString &path, const LoadOptions &options, const QString &displayName)
{
    const quint64 generation = ++m_generation;
    m_loading = true;
    m_pendingLoadOptions = options;
    emit loadStarted(path);

    const std::string file = path.toStdString();
    auto *watcher = new QFutureWatcher<std::shared_ptr<Expected<LoadedModel>>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation, path, displayName] {
        watcher->deleteLater();
        finishLoad(generation, path, displayName, watcher->result());
    });
    watcher->setFuture(QtConcurrent::run([file, options] {
        // The loader reports errors as values; anything else escaping it must
        // not take the GUI down.
        try {
            return std::make_shared<Expected<LoadedModel>>(loadModel(file, options));
        } catch (const std::exception &e) {
            return std::make_shared<Expected<LoadedModel>>(Error{file + ": " + e.what()});
        } catch (...) {
            return std::make_shared<Expected<LoadedModel>>(Error{file + ": unknown error while loading"});
        }
    }));
}

void Document::finishLoad(quint64 generation, const QString &path, const QString &displayName,
                          std::shared_ptr<Expected<LoadedModel>> result)
{
    if (generation != m_generation)
        return; // superseded by a later open()
    m_loading = false;
    if (!result || !result->hasValue()) {
        emit loadFailed(path, result ? QString::fromStdString(result->error().message)
                                     : tr("%1: the loader returned nothing").arg(path));
        return;
    }
    QStringList warnings;
    for (const std::string &w : result->value().warnings)
        warnings << QString::fromStdString(w);
    const LoadOptions options = m_pendingLoadOptions;
    setGraph(std::move(result->value().graph),
             displayName.isEmpty() ? QFileInfo(path).fileName() : displayName, warnings, path,
             std::move(result->value().nodeLines), options);
}

void Document::setGraph(Graph graph, const QString &displayName, const QStringList &warnings,
                        const QString &filePath, std::vector<int> nodeLines, LoadOptions options)
{
    ++m_generation; // a pending load must not overwrite this graph
    m_background.waitForFinished();
    m_loading = false;
    m_loadOptions = std::move(options);
    m_graph = std::move(graph);
    m_hasGraph = true;
    m_displayName = displayName;
    m_filePath = filePath;
    m_warnings = warnings;
    m_nodeLines = std::move(nodeLines);
    resetSession();
    for (const VerifierIssue &issue : verify(m_graph))
        m_warnings << tr("verifier: %1").arg(QString::fromStdString(issue.message));
    emit graphLoaded();
}

std::vector<size_t> Document::inputsWithoutShape() const
{
    std::vector<size_t> unknown;
    const auto &inputs = m_graph.inputs();
    for (size_t i = 0; i < inputs.size(); ++i) {
        const Node *n = m_graph.node(inputs[i]);
        // Tensor inputs only: an int or a list input has no shape to give.
        if (n && (n->type.empty() || n->type == "Tensor") && !n->meta.hasStaticShape())
            unknown.push_back(i);
    }
    return unknown;
}

void Document::resetSession()
{
    // A new graph is a new review: decisions and history belong to the old one.
    ++m_graphVersion;
    m_original = m_graph.clone();
    m_undo->clear();
    m_savedIndex = 0;
    m_decisionsDirty = false;
    m_matches.clear();
    m_candidates.clear();
    m_failures.clear();
    m_rejected.clear();
    m_haveMatches = false;
    m_nearMissCounts.clear();
    m_verifier.reset();
    m_verifierTried = false;
    m_verifierError.clear();
}

} // namespace fusebox
