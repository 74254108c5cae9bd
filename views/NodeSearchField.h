#pragma once

#include "core/ir/NodeId.h"

#include <QLineEdit>

class QStringListModel;

namespace fusebox {

class Graph;

/// "Find node…": a line edit that completes node names of the current graph
/// (substring, case-insensitive) and asks for the node on Enter.
class NodeSearchField final : public QLineEdit {
    Q_OBJECT

public:
    explicit NodeSearchField(QWidget *parent = nullptr);

    /// Takes the names to complete from graph (keeps no reference to it).
    void setGraph(const Graph &graph);
    /// The node called text, else the first node (program order) whose name
    /// or op contains text, case-insensitive; invalid when none.
    static NodeId find(const Graph &graph, const QString &text);

signals:
    /// Enter was pressed on text; the receiver looks the node up.
    void searchRequested(const QString &text);

private:
    QStringListModel *m_names;
};

} // namespace fusebox
