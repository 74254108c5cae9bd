#pragma once

#include "core/ir/NodeId.h"

#include <QDockWidget>

#include <string>
#include <vector>

class QLabel;
class QTreeWidget;
class QTreeWidgetItem;

namespace fusebox {

class DocumentGraph;
class Graph;

/// A dock listing what the reader had to say about the model
/// (DocumentGraph::warnings()), grouped by kind (WarningSummary.h): one row per
/// kind, "412 × kind (first at model.py:28)", with its warnings below
/// (message and location), or, for a summary warning, the ops it lists
/// ("prims::iota ×48"). Activating an entry (double-click, Enter) emits
/// nodeActivated() with the first node read from the warning's line, or the
/// first node of the listed op (a module call "self.foo" is the op
/// "call_module:foo"). The title counts the problems: "Problems (16)";
/// "No problems" when there are none. Refilled when a graph is loaded.
class ProblemsPanel final : public QDockWidget {
    Q_OBJECT

public:
    explicit ProblemsPanel(const DocumentGraph *model, QWidget *parent = nullptr);

    /// Fills the tree from the document's warnings.
    void refresh();
    /// The problems counted in the title: the sum of the kinds' counts (a
    /// summary warning counts what it summarises).
    size_t problemCount() const { return m_count; }
    QTreeWidget *tree() const { return m_tree; }
    /// The node an entry leads to on the current graph; invalid for a kind
    /// row, a warning without a line, or when the node is gone.
    NodeId nodeFor(const QTreeWidgetItem *item) const;
    /// Activates an entry as a double-click does: a kind row opens or
    /// closes, a warning emits nodeActivated() (or problemUnresolved()).
    void activate(QTreeWidgetItem *item);

    /// The first node, in program order, read from `line` (0: none).
    static NodeId firstNodeAtLine(const Graph &graph, const std::vector<int> &nodeLines, int line);
    /// The first node, in program order, of the op a summary names:
    /// "prims::iota", "self.foo" (op "call_module:foo"); failing that, the
    /// first op whose last name part is the same ("torch.foo" for "aten::foo",
    /// the reader keeps a torch-level spelling when the schemas lack its op).
    static NodeId firstNodeOfOp(const Graph &graph, const std::string &name);

signals:
    /// An entry leading to a node was activated.
    void nodeActivated(fusebox::NodeId id);
    /// An entry was activated whose node cannot be found; message is one line.
    void problemUnresolved(const QString &message);

private:
    const DocumentGraph *m_model;
    QTreeWidget *m_tree;
    QLabel *m_empty;
    size_t m_count = 0;
};

} // namespace fusebox
