#pragma once

#include "core/ir/NodeId.h"

#include <QDockWidget>

class QTextBrowser;
class QUrl;

namespace fusebox {

class DocumentGraph;
class GraphScene;

/// A dock that describes the selected node: name, op with overload, the
/// original spelling, kind, args and kwargs with node names, output type,
/// shape, dtype and device, users, scope and source location. Node names are
/// links: clicking one emits nodeActivated(). A higher-order op's subgraphs
/// (cond's branches, wrap's body, ...) are "Open subgraph <name>" links that
/// emit subgraphRequested(). For a selected group it shows the scope's size
/// and op histogram.
class InspectorPanel final : public QDockWidget {
    Q_OBJECT

public:
    /// The model summary lists this many inputs and outputs, then how many more.
    static constexpr size_t kListedValues = 24;

    InspectorPanel(const DocumentGraph *model, GraphScene *scene, QWidget *parent = nullptr);

    void showNode(NodeId id);
    void showGroup(int scope);
    /// The model's summary (no node or group shown).
    void clear();
    /// Shows again what it shows, from the graph as it is now: the node, or
    /// the summary when the node is gone or a group was shown (a rewrite
    /// rebuilds the scopes). Runs on every rewrite, undo and redo.
    void refresh();
    /// The node shown (invalid when none).
    NodeId node() const { return m_node; }
    /// What the panel shows, as plain text.
    QString text() const;

signals:
    /// A node name was clicked.
    void nodeActivated(fusebox::NodeId id);
    /// "Open subgraph <name>" was clicked on the shown node.
    void subgraphRequested(fusebox::NodeId id, const QString &name);

private:
    void onAnchorClicked(const QUrl &url);

    const DocumentGraph *m_model;
    GraphScene *m_scene;
    QTextBrowser *m_browser;
    NodeId m_node;
};

} // namespace fusebox
