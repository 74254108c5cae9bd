#pragma once

#include <QWidget>

#include <string>

class QTreeWidget;
class QTreeWidgetItem;

namespace fusebox {

class Document;

/// The pattern catalog and the loaded pattern files as a tree: pre-grad and
/// post-grad built-in rules, then custom patterns, each with an enable
/// checkbox and live counts (candidates, applied, rejected, failed
/// verification, near misses); a rule's options are child rows whose value is editable
/// (double-click), with Inductor's default in the tooltip and shown when the
/// value differs.
class PatternsPanel final : public QWidget {
    Q_OBJECT

public:
    enum Column { Name, Candidates, Applied, Rejected, Failed, NearMisses, ColumnCount };

    explicit PatternsPanel(Document *document, QWidget *parent = nullptr);

    QTreeWidget *tree() const { return m_tree; }
    /// The item of a pattern, or nullptr.
    QTreeWidgetItem *patternItem(const std::string &name) const;
    /// The selected pattern's name, or "".
    std::string currentPattern() const;

signals:
    /// The current pattern changed (the why-not panel follows it).
    void patternSelected(const QString &name);

private:
    void rebuild();
    void updateCounts();
    void onItemChanged(QTreeWidgetItem *item, int column);

    Document *m_document;
    QTreeWidget *m_tree;
    bool m_updating = false;
};

} // namespace fusebox
