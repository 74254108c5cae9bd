#pragma once

#include "core/ir/NodeId.h"

#include <QWidget>

#include <string>
#include <vector>

class QComboBox;
class QLabel;
class QTreeWidget;

namespace fusebox {

class Document;

/// "Why didn't this pattern fire here?": for a node and a pattern, the
/// engine's check trace (the very code path the driver runs) with each check
/// passed or failed, its actual values, and the failed check highlighted; the
/// nodes the failed check is about are marked on the graph. Below it, the
/// pattern's near misses over the whole graph, grouped by failed check;
/// activating a node there jumps to it.
class WhyNotPanel final : public QWidget {
    Q_OBJECT

public:
    explicit WhyNotPanel(const Document *document, QWidget *parent = nullptr);

    /// Explains `pattern` at `node` (either may be empty/invalid: keeps the other).
    void explain(const std::string &pattern, NodeId node);
    /// Shows `node` as one that no pattern starts at (the selection followed
    /// a node that no rule rewrites from): says so instead of explaining the
    /// pattern chosen for another node; choosing a pattern then explains it.
    void explainUnconcerned(NodeId node);
    /// Fills the near-miss list for the current pattern.
    void showNearMisses();

    std::string pattern() const;
    NodeId node() const { return m_node; }
    /// The summary line and the checks, as plain text (tests, copy).
    QString text() const;
    QTreeWidget *checks() const { return m_checks; }
    QTreeWidget *nearMissTree() const { return m_nearMisses; }

signals:
    /// Nodes to mark: those the failed check is about, and the passed checks'.
    void marksChanged(const std::vector<NodeId> &failed, const std::vector<NodeId> &passed);
    /// A node in the near-miss list was activated.
    void nodeActivated(fusebox::NodeId id);

private:
    void refresh();
    void fillPatterns();

    const Document *m_document;
    QComboBox *m_patternBox;
    QLabel *m_nodeLabel;
    QLabel *m_summary;
    QTreeWidget *m_checks;
    QTreeWidget *m_nearMisses;
    QLabel *m_nearMissLabel;
    NodeId m_node;
    bool m_unconcerned = false; ///< m_node is one no pattern starts at (explainUnconcerned)
};

} // namespace fusebox
