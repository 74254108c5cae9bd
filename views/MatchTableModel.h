#pragma once

#include "core/ir/NodeId.h"

#include <QAbstractTableModel>

#include <vector>

namespace fusebox {

class Document;

/// The document's matches() as a table: pattern, anchor, nodes, benefit,
/// status, verification. Rows are indices into DocumentReview::matches(); the
/// model resets on matchesChanged(). A node filter keeps the rows whose match
/// covers one of the given nodes (the graph's selection).
class MatchTableModel final : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { Pattern, Anchor, Size, Benefit, Status, Verification, ColumnCount };

    explicit MatchTableModel(const Document *document, QObject *parent = nullptr);

    /// Keeps only matches covering one of these nodes; empty shows all.
    void setNodeFilter(std::vector<NodeId> nodes);
    bool isFiltered() const { return !m_filter.empty(); }
    /// The row of DocumentReview::matches() shown at `row`, or -1.
    int matchRow(int row) const;
    /// The table row showing DocumentReview::matches()[matchRow], or -1.
    int rowOf(int matchRow) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    void rebuild();

    const Document *m_document;
    std::vector<NodeId> m_filter;
    std::vector<int> m_rows;
};

} // namespace fusebox
