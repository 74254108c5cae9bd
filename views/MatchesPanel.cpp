#include "MatchesPanel.h"

#include "Document.h"
#include "MatchTableModel.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace fusebox {

MatchesPanel::MatchesPanel(Document *document, QWidget *parent)
    : QWidget(parent), m_document(document), m_model(new MatchTableModel(document, this)),
      m_table(new QTableView(this)), m_summary(new QLabel(this))
{
    setObjectName(QStringLiteral("matchesPanel"));
    m_summary->setObjectName(QStringLiteral("matchesSummary"));
    m_summary->setWordWrap(true);
    m_table->setObjectName(QStringLiteral("matchesTable"));
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(22);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_summary);
    layout->addWidget(m_table);

    auto emitCurrent = [this] {
        const QModelIndex current = m_table->selectionModel()->currentIndex();
        emit matchSelected(current.isValid() ? m_model->matchRow(current.row()) : -1);
    };
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, emitCurrent);
    connect(m_table, &QTableView::doubleClicked, this,
            [this](const QModelIndex &index) { emit matchActivated(m_model->matchRow(index.row())); });
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        // Measuring every row is linear in the rows: on thousands of matches
        // keep the widths the table has.
        if (m_model->rowCount() <= kMeasuredRows)
            m_table->resizeColumnsToContents();
        updateSummary();
    });
    connect(m_document, &Document::matchSearchStarted, this, &MatchesPanel::updateSummary);
    updateSummary();
}

std::vector<int> MatchesPanel::selectedMatchRows() const
{
    std::vector<int> rows;
    for (const QModelIndex &index : m_table->selectionModel()->selectedRows())
        if (int r = m_model->matchRow(index.row()); r >= 0)
            rows.push_back(r);
    std::sort(rows.begin(), rows.end());
    return rows;
}

void MatchesPanel::selectMatchRow(int matchRow)
{
    const int row = m_model->rowOf(matchRow);
    if (row < 0)
        return;
    m_table->selectRow(row);
    m_table->scrollTo(m_model->index(row, 0));
}

void MatchesPanel::setNodeFilter(std::vector<NodeId> nodes) { m_model->setNodeFilter(std::move(nodes)); }

QString MatchesPanel::summaryText() const { return m_summary->text(); }

void MatchesPanel::updateSummary()
{
    if (m_document->isSearching()) {
        m_summary->setText(tr("Finding matches…"));
        return;
    }
    if (!m_document->hasMatchResults()) {
        m_summary->setText(tr("Press F5 (Rewrite → Find Matches) to run the engine's search."));
        return;
    }
    int candidates = 0, rejected = 0, applied = 0, failed = 0;
    for (const auto &[pattern, t] : m_document->tallies()) {
        candidates += t.candidates; // rejected ones included
        rejected += t.rejected;
        applied += t.applied;
        failed += t.failed;
    }
    QString text = tr("%1 candidates · %2 rejected · %3 applied").arg(candidates).arg(rejected).arg(applied);
    if (failed)
        text += tr(" · <span style='color:#c02020'>%1 failed verification</span>").arg(failed);
    if (m_model->isFiltered())
        text += tr(" — showing %1 covering the selected nodes").arg(m_model->rowCount());
    m_summary->setText(text);
}

} // namespace fusebox
