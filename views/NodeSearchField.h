#pragma once

#include "core/ir/NodeId.h"

#include <QLineEdit>

#include <vector>

class QStringListModel;

namespace fusebox {

class Graph;

/// "Find node…" (Ctrl+F): a line edit that completes node names of the
/// current graph and asks for the nodes on Enter; pressing Enter again steps
/// to the next hit. The text is a regular expression (case-insensitive; a
/// pattern that is not valid is taken literally) matched against each node's
/// name, op and output type/shape ("f32[8, 16]").
class NodeSearchField final : public QLineEdit {
    Q_OBJECT

public:
    explicit NodeSearchField(QWidget *parent = nullptr);

    /// Takes the names to complete from graph (keeps no reference to it).
    void setGraph(const Graph &graph) { setNames(namesOf(graph)); }
    /// The names to complete, made by namesOf() (on any thread).
    void setNames(QStringList names);
    /// Every node's name, in program order; any thread (a 100k-node graph's
    /// take tens of milliseconds: MainWindow makes them in the background).
    static QStringList namesOf(const Graph &graph);
    /// The node called text, else the first node (program order) whose name
    /// or op contains text, case-insensitive; invalid when none.
    static NodeId find(const Graph &graph, const QString &text);
    /// Every node whose name, op or output type matches `text` (see above),
    /// in program order; an exact name comes first.
    static std::vector<NodeId> findAll(const Graph &graph, const QString &text);

signals:
    /// Enter was pressed on text; the receiver looks the node up.
    void searchRequested(const QString &text);

private:
    QStringListModel *m_names;
};

} // namespace fusebox
