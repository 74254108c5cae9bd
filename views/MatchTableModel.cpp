#include "MatchTableModel.h"

#include "Document.h"
#include "PatternColors.h"

#include <QBrush>
#include <QFont>

#include <algorithm>

namespace fusebox {

MatchTableModel::MatchTableModel(const Document *document, QObject *parent)
    : QAbstractTableModel(parent)
    , m_document(document)
{
    connect(&m_document->review(), &DocumentReview::matchesChanged, this, &MatchTableModel::rebuild);
    connect(&m_document->model(), &DocumentGraph::graphLoaded, this, [this] {
        m_filter.clear(); // the old graph's nodes: their ids mean other nodes now
        rebuild();
    });
    rebuild();
}

void MatchTableModel::setNodeFilter(std::vector<NodeId> nodes)
{
    m_filter = std::move(nodes);
    rebuild();
}

void MatchTableModel::rebuild()
{
    // Nodes a rewrite removed filter nothing: keep the ones still there, and
    // show everything when none is.
    std::erase_if(m_filter, [this](NodeId id) { return !m_document->model().graph().contains(id); });
    beginResetModel();
    m_rows.clear();
    const auto &matches = m_document->review().matches();
    for (size_t i = 0; i < matches.size(); ++i) {
        if (!m_filter.empty()) {
            const auto &nodes = matches[i].match.nodes;
            const bool covers = std::any_of(m_filter.begin(), m_filter.end(), [&](NodeId id) {
                return std::find(nodes.begin(), nodes.end(), id) != nodes.end();
            });
            if (!covers || matches[i].status == MatchStatus::Applied)
                continue;
        }
        m_rows.push_back(int(i));
    }
    endResetModel();
}

int MatchTableModel::matchRow(int row) const
{
    return row >= 0 && size_t(row) < m_rows.size() ? m_rows[size_t(row)] : -1;
}

int MatchTableModel::rowOf(int matchRow) const
{
    auto it = std::find(m_rows.begin(), m_rows.end(), matchRow);
    return it == m_rows.end() ? -1 : int(it - m_rows.begin());
}

int MatchTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int MatchTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant MatchTableModel::data(const QModelIndex &index, int role) const
{
    const int row = matchRow(index.row());
    if (row < 0)
        return {};
    const MatchEntry &e = m_document->review().matches()[size_t(row)];
    const QString pattern = QString::fromStdString(e.match.pattern);
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        switch (index.column()) {
        case Pattern: return pattern;
        case Anchor: return QStringLiteral("%") + e.anchorName;
        case Size:
            if (e.status == MatchStatus::Applied)
                return tr("−%1 +%2").arg(e.nodesRemoved).arg(e.nodesAdded);
            return int(e.match.nodes.size());
        case Benefit: return e.match.benefit;
        case Status:
            if (e.notFound)
                return role == Qt::ToolTipRole ? e.note : tr("rejected · not found");
            if (e.offSchedule && e.status == MatchStatus::Pending)
                return role == Qt::ToolTipRole ? e.note : tr("pending · not in schedule");
            if (e.afterApplyAll && e.status == MatchStatus::Pending)
                return role == Qt::ToolTipRole ? e.note : tr("pending · after Apply All");
            return toString(e.status);
        case Verification:
            if (e.notFound
                || ((e.offSchedule || e.afterApplyAll) && e.status == MatchStatus::Pending && e.verification.isEmpty()))
                return e.note;
            if (role == Qt::ToolTipRole && !e.match.key.empty())
                return e.verification + QStringLiteral("\nkey: ") + QString::fromStdString(e.match.key);
            return e.verification;
        }
    }
    if (role == Qt::DecorationRole && index.column() == Pattern)
        return PatternColors::colorFor(e.match.pattern);
    if (role == Qt::ForegroundRole) {
        if (e.status == MatchStatus::Rejected || e.status == MatchStatus::Applied
            || ((e.offSchedule || e.afterApplyAll) && e.status == MatchStatus::Pending))
            return QBrush(QColor(0x80, 0x80, 0x80));
        if (e.status == MatchStatus::FailedVerification)
            return QBrush(QColor(0xc0, 0x20, 0x20));
    }
    if (role == Qt::FontRole && e.status == MatchStatus::Rejected) {
        QFont f;
        f.setStrikeOut(true);
        return f;
    }
    return {};
}

QVariant MatchTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Pattern: return tr("Pattern");
    case Anchor: return tr("Anchor");
    case Size: return tr("Nodes");
    case Benefit: return tr("Benefit");
    case Status: return tr("Status");
    case Verification: return tr("Verification");
    }
    return {};
}

} // namespace fusebox
