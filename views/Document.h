#pragma once

#include "core/ir/Graph.h"
#include "core/torch/ModelLoader.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>

namespace fusebox {

/// The model being looked at: owns the Graph, the loader's warnings and where
/// the graph came from. Views keep NodeIds and ask the document for nodes.
///
/// Files are read on a worker thread (QtConcurrent), so opening a big model
/// never blocks the GUI; the result is applied on the GUI thread. Opening a
/// second file while one loads supersedes the first.
class Document final : public QObject {
    Q_OBJECT

public:
    explicit Document(QObject *parent = nullptr);
    ~Document() override;

    const Graph &graph() const { return m_graph; }
    /// True once a graph was loaded or set.
    bool hasGraph() const { return m_hasGraph; }
    /// The file the graph was read from (may be a temporary copy); empty when set directly.
    QString filePath() const { return m_filePath; }
    /// What to call the graph in titles: the file name unless told otherwise.
    QString displayName() const { return m_displayName; }
    /// The loader's and the verifier's findings, one line each.
    const QStringList &warnings() const { return m_warnings; }
    bool isLoading() const { return m_loading; }

    /// Starts reading a model file in the background: emits loadStarted(),
    /// then graphLoaded() or loadFailed(). The current graph stays until then.
    void open(const QString &path, const LoadOptions &options = {}, const QString &displayName = {});
    /// Replaces the graph at once (tests, importers that already ran); emits graphLoaded().
    void setGraph(Graph graph, const QString &displayName, const QStringList &warnings = {},
                  const QString &filePath = {});

signals:
    void loadStarted(const QString &path);
    void graphLoaded();
    void loadFailed(const QString &path, const QString &message);

private:
    void finishLoad(quint64 generation, const QString &path, const QString &displayName,
                    std::shared_ptr<Expected<LoadedModel>> result);

    Graph m_graph;
    bool m_hasGraph = false;
    bool m_loading = false;
    QString m_filePath;
    QString m_displayName;
    QStringList m_warnings;
    quint64 m_generation = 0;
};

} // namespace fusebox
