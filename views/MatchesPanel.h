#pragma once

#include "core/ir/NodeId.h"

#include <QWidget>

#include <vector>

class QLabel;
class QTableView;

namespace fusebox {

class Document;
class MatchTableModel;

/// The matches table (pattern, anchor, nodes, benefit, status, verification)
/// with a one-line summary above it. Selecting a row emits matchSelected()
/// (the window outlines the match and centres the view on it); the graph's
/// node selection filters the table (setNodeFilter).
class MatchesPanel final : public QWidget {
    Q_OBJECT

public:
    /// Column widths follow the contents up to this many rows.
    static constexpr int kMeasuredRows = 300;

    explicit MatchesPanel(const Document *document, QWidget *parent = nullptr);

    QTableView *table() const { return m_table; }
    MatchTableModel *model() const { return m_model; }
    /// Rows of DocumentReview::matches() selected in the table.
    std::vector<int> selectedMatchRows() const;
    /// Selects the table row showing DocumentReview::matches()[matchRow].
    void selectMatchRow(int matchRow);
    void setNodeFilter(std::vector<NodeId> nodes);
    QString summaryText() const;
    /// The filter bar's text ("" when the table shows every match).
    QString filterText() const;
    /// Shows every match again (the bar's Show All button).
    void showAll();

signals:
    /// The current row changed: its row in DocumentReview::matches(), or -1.
    void matchSelected(int matchRow);
    /// A row was double-clicked (the window applies it).
    void matchActivated(int matchRow);

private:
    void updateSummary();
    /// Remembers which matches are selected, by pattern and signature.
    void rememberSelection();
    /// Selects the remembered matches again in the rebuilt table (a decision
    /// or a re-search rebuilds it; Del then Shift+Del must act on one row).
    void restoreSelection();

    const Document *m_document;
    MatchTableModel *m_model;
    QTableView *m_table;
    QLabel *m_summary;
    /// Shown while the table is filtered by the node selection: what it shows, and Show All.
    QWidget *m_filterBar;
    QLabel *m_filterLabel;
    std::vector<std::pair<std::string, std::string>> m_selectedKeys;
    std::pair<std::string, std::string> m_currentKey;
    bool m_restoring = false;
};

} // namespace fusebox
