#include "MatchesPanel.h"

#include "Document.h"
#include "MatchTableModel.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace fusebox {

MatchesPanel::MatchesPanel(const Document *document, QWidget *parent)
    : QWidget(parent)
    , m_document(document)
    , m_model(new MatchTableModel(document, this))
    , m_table(new QTableView(this))
    , m_summary(new QLabel(this))
    , m_filterBar(new QWidget(this))
    , m_filterLabel(new QLabel(m_filterBar))
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
    // Selecting nodes in the graph narrows the table to their matches; the
    // bar says so and offers the way back (a table that empties after an
    // apply must not look like "no matches").
    m_filterBar->setObjectName(QStringLiteral("matchesFilterBar"));
    m_filterLabel->setObjectName(QStringLiteral("matchesFilterText"));
    m_filterLabel->setWordWrap(true);
    auto *showAllButton = new QPushButton(tr("Show All"), m_filterBar);
    showAllButton->setObjectName(QStringLiteral("matchesShowAll"));
    showAllButton->setToolTip(tr("Show every match, not only those covering the selected nodes"));
    connect(showAllButton, &QPushButton::clicked, this, &MatchesPanel::showAll);
    auto *bar = new QHBoxLayout(m_filterBar);
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(m_filterLabel, 1);
    bar->addWidget(showAllButton);
    m_filterBar->setStyleSheet(QStringLiteral("#matchesFilterBar { background: #fff4cc; }"));
    m_filterBar->hide();
    layout->addWidget(m_filterBar);
    layout->addWidget(m_table);

    auto emitCurrent = [this] {
        const QModelIndex current = m_table->selectionModel()->currentIndex();
        emit matchSelected(current.isValid() ? m_model->matchRow(current.row()) : -1);
    };
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, emitCurrent);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &MatchesPanel::rememberSelection);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &MatchesPanel::rememberSelection);
    connect(m_table, &QTableView::doubleClicked, this,
            [this](const QModelIndex &index) { emit matchActivated(m_model->matchRow(index.row())); });
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        // Measuring every row is linear in the rows: on thousands of matches
        // keep the widths the table has.
        if (m_model->rowCount() <= kMeasuredRows)
            m_table->resizeColumnsToContents();
        restoreSelection();
        updateSummary();
    });
    connect(&m_document->jobs(), &DocumentJobs::matchSearchStarted, this, &MatchesPanel::updateSummary);
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
    // Exactly this row, whatever modifier keys are down (selectRow would
    // add to the selection under Ctrl or Shift).
    const QModelIndex index = m_model->index(row, 0);
    m_table->selectionModel()->setCurrentIndex(index, QItemSelectionModel::NoUpdate);
    m_table->selectionModel()->select(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_table->scrollTo(index);
}

namespace {

/// How a candidate or rejection is recognised across rebuilds of the list.
std::pair<std::string, std::string> keyOf(const MatchEntry &e)
{
    return {e.match.pattern, e.signature};
}

bool isDecidable(const MatchEntry &e)
{
    return e.status == MatchStatus::Pending || e.status == MatchStatus::Rejected;
}

} // namespace

void MatchesPanel::rememberSelection()
{
    if (m_restoring)
        return;
    m_selectedKeys.clear();
    m_currentKey = {};
    const auto &matches = m_document->review().matches();
    for (int row : selectedMatchRows())
        if (size_t(row) < matches.size() && isDecidable(matches[size_t(row)]))
            m_selectedKeys.push_back(keyOf(matches[size_t(row)]));
    const int current = m_model->matchRow(m_table->selectionModel()->currentIndex().row());
    if (current >= 0 && size_t(current) < matches.size() && isDecidable(matches[size_t(current)]))
        m_currentKey = keyOf(matches[size_t(current)]);
}

void MatchesPanel::restoreSelection()
{
    if (m_selectedKeys.empty())
        return;
    const auto &matches = m_document->review().matches();
    QItemSelection selection;
    QModelIndex current;
    for (int row = 0; row < m_model->rowCount(); ++row) {
        const int matchRow = m_model->matchRow(row);
        const MatchEntry &e = matches[size_t(matchRow)];
        if (!isDecidable(e))
            continue;
        const auto key = keyOf(e);
        if (std::find(m_selectedKeys.begin(), m_selectedKeys.end(), key) == m_selectedKeys.end())
            continue;
        selection.select(m_model->index(row, 0), m_model->index(row, m_model->columnCount() - 1));
        if (key == m_currentKey || !current.isValid())
            current = m_model->index(row, 0);
    }
    if (selection.isEmpty())
        return; // what was selected was applied or is gone: nothing to keep
    m_restoring = true;
    m_table->selectionModel()->setCurrentIndex(current, QItemSelectionModel::NoUpdate);
    m_table->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect);
    m_restoring = false;
    rememberSelection();
}

void MatchesPanel::setNodeFilter(std::vector<NodeId> nodes)
{
    m_model->setNodeFilter(std::move(nodes));
    updateSummary();
}

QString MatchesPanel::summaryText() const
{
    return m_summary->text();
}

void MatchesPanel::updateSummary()
{
    m_filterBar->setVisible(m_model->isFiltered());
    if (m_document->jobs().isSearching()) {
        m_summary->setText(tr("Finding matches…"));
        return;
    }
    if (!m_document->review().hasMatchResults()) {
        // Apply All before any search lists what it applied: the header counts
        // those rows instead of reading as if the list were empty.
        int applied = 0, failed = 0;
        for (const MatchEntry &e : m_document->review().matches()) {
            applied += e.status == MatchStatus::Applied;
            failed += e.status == MatchStatus::FailedVerification;
        }
        if (applied == 0 && failed == 0)
            m_summary->setText(tr("Press F5 (Rewrite → Find Matches) to run the engine's search."));
        else
            m_summary->setText(tr("%1 applied · %2 failed verification · press F5 (Rewrite → Find Matches) to list "
                                  "the candidates left")
                                   .arg(applied)
                                   .arg(failed));
        return;
    }
    int candidates = 0, rejected = 0, applied = 0, failed = 0;
    for (const auto &[pattern, t] : m_document->review().tallies()) {
        candidates += t.candidates; // rejected ones included
        rejected += t.rejected;
        applied += t.applied;
        failed += t.failed;
    }
    QString text = (candidates == 1 ? tr("1 candidate") : tr("%1 candidates").arg(candidates))
                   + tr(" · %1 rejected · %2 applied").arg(rejected).arg(applied);
    if (failed)
        text += tr(" · <span style='color:#c02020'>%1 failed verification</span>").arg(failed);
    m_summary->setText(text);
    m_filterBar->setVisible(m_model->isFiltered());
    if (m_model->isFiltered()) {
        const int shown = m_model->rowCount();
        m_filterLabel->setText(shown == 0   ? tr("No match covers the selected nodes.")
                               : shown == 1 ? tr("Showing the 1 match covering the selected nodes.")
                                            : tr("Showing the %1 matches covering the selected nodes.").arg(shown));
    }
}

QString MatchesPanel::filterText() const
{
    return m_model->isFiltered() ? m_filterLabel->text() : QString();
}

void MatchesPanel::showAll()
{
    m_model->setNodeFilter({});
    updateSummary();
}

} // namespace fusebox
