#include "PatternsPanel.h"

#include "Document.h"
#include "PatternColors.h"
#include "QtStrings.h"
#include "patterns/Catalog.h"

#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>
#include <QVBoxLayout>

#include <algorithm>
#include <map>

namespace fusebox {

namespace {

constexpr int kPatternRole = Qt::UserRole + 1;
constexpr int kOptionRole = Qt::UserRole + 2;

/// Inductor's defaults: the options of a fresh catalog.
const PatternSet &defaults()
{
    static const PatternSet catalog = builtinCatalog();
    return catalog;
}

/// Reads an edited option value in the kind of the current one.
std::optional<OptionValue> parseOption(const QString &text, const OptionValue &current)
{
    const QString t = text.trimmed();
    if (std::holds_alternative<bool>(current)) {
        if (t.compare(QStringLiteral("true"), Qt::CaseInsensitive) == 0 || t == QStringLiteral("1"))
            return OptionValue{true};
        if (t.compare(QStringLiteral("false"), Qt::CaseInsensitive) == 0 || t == QStringLiteral("0"))
            return OptionValue{false};
        return std::nullopt;
    }
    bool ok = false;
    if (std::holds_alternative<int64_t>(current)) {
        const qlonglong v = t.toLongLong(&ok);
        return ok ? std::optional<OptionValue>(OptionValue{int64_t(v)}) : std::nullopt;
    }
    const double v = t.toDouble(&ok);
    return ok ? std::optional<OptionValue>(OptionValue{v}) : std::nullopt;
}

} // namespace

PatternsPanel::PatternsPanel(Document *document, QWidget *parent)
    : QWidget(parent)
    , m_document(document)
    , m_tree(new QTreeWidget(this))
{
    setObjectName(QStringLiteral("patternsPanel"));
    m_tree->setObjectName(QStringLiteral("patternsTree"));
    m_tree->setColumnCount(ColumnCount);
    m_tree->setHeaderLabels({tr("Pattern"), tr("Cand."), tr("Appl."), tr("Rej."), tr("Fail"), tr("Near")});
    m_tree->headerItem()->setToolTip(Candidates, tr("Candidate matches on the current graph"));
    m_tree->headerItem()->setToolTip(Applied, tr("Rewrites applied"));
    m_tree->headerItem()->setToolTip(Rejected, tr("Candidates the reviewer rejected"));
    m_tree->headerItem()->setToolTip(Failed, tr("Rewrites that failed numeric verification"));
    m_tree->headerItem()->setToolTip(NearMisses, tr("Nodes where the pattern was tried and did not fire "
                                                    "(Why Not ▸ Near Misses groups them by failed check)"));
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(Name, QHeaderView::Stretch);
    // Count columns are sized by updateCounts() from the widest count:
    // ResizeToContents would re-measure every row on each change, which a
    // 100k-node graph's thousands of matches make slow.
    for (int c = Candidates; c < ColumnCount; ++c)
        m_tree->header()->setSectionResizeMode(c, QHeaderView::Fixed);
    m_tree->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
    m_tree->setUniformRowHeights(true);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_tree);

    // Queued: an edit in the tree changes the patterns, and the rebuild must
    // not delete the edited item inside its own itemChanged signal.
    connect(&m_document->patternSet(), &DocumentPatterns::patternsChanged, this, &PatternsPanel::rebuild,
            Qt::QueuedConnection);
    connect(&m_document->review(), &DocumentReview::matchesChanged, this, &PatternsPanel::updateCounts);
    // A new graph is a new review: the last one's counts must go (the load
    // resets the matches without a matchesChanged of its own).
    connect(&m_document->model(), &DocumentGraph::graphLoaded, this, &PatternsPanel::updateCounts);
    connect(m_tree, &QTreeWidget::itemChanged, this, &PatternsPanel::onItemChanged);
    connect(m_tree, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem *item) {
        if (item && !item->data(Name, kPatternRole).toString().isEmpty())
            emit patternSelected(item->data(Name, kPatternRole).toString());
    });
    rebuild();
}

QTreeWidgetItem *PatternsPanel::patternItem(const std::string &name) const
{
    for (QTreeWidgetItemIterator it(m_tree); *it; ++it)
        if ((*it)->data(Name, kPatternRole).toString() == qs(name)
            && (*it)->data(Name, kOptionRole).toString().isEmpty())
            return *it;
    return nullptr;
}

std::string PatternsPanel::currentPattern() const
{
    QTreeWidgetItem *item = m_tree->currentItem();
    return item ? item->data(Name, kPatternRole).toString().toStdString() : std::string();
}

void PatternsPanel::rebuild()
{
    m_updating = true;
    const std::string current = currentPattern();
    m_tree->clear();
    const auto &custom = m_document->patternSet().customNames();
    auto *pre = new QTreeWidgetItem(m_tree, {tr("Pre-grad (pre_grad_fusion_options)")});
    auto *post = new QTreeWidgetItem(m_tree, {tr("Post-grad (post_grad_fusion_options)")});
    auto *files = new QTreeWidgetItem(m_tree, {tr("Custom patterns")});
    for (QTreeWidgetItem *section : {pre, post, files}) {
        QFont bold = section->font(Name);
        bold.setBold(true);
        section->setFont(Name, bold);
        section->setFlags(Qt::ItemIsEnabled);
    }
    for (const Pattern *p : m_document->patternSet().patterns().all()) {
        const bool isCustom = std::find(custom.begin(), custom.end(), p->name()) != custom.end();
        QTreeWidgetItem *section = p->stage() == PassStage::PreGrad ? pre : post;
        if (isCustom) {
            // Custom patterns sit under the file (or editor) they came from.
            const QString origin = qs(m_document->patternSet().customOrigin(p->name()));
            section = nullptr;
            for (int i = 0; i < files->childCount() && !section; ++i)
                if (files->child(i)->text(Name) == origin)
                    section = files->child(i);
            if (!section) {
                section = new QTreeWidgetItem(files, {origin});
                section->setFlags(Qt::ItemIsEnabled);
                section->setExpanded(true);
            }
        }
        auto *item = new QTreeWidgetItem(section, {qs(p->name())});
        item->setData(Name, kPatternRole, qs(p->name()));
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsUserCheckable);
        item->setCheckState(Name,
                            m_document->patternSet().patterns().isEnabled(p->name()) ? Qt::Checked : Qt::Unchecked);
        item->setIcon(Name, [&] {
            QPixmap swatch(10, 10);
            swatch.fill(PatternColors::colorFor(p->name()));
            return QIcon(swatch);
        }());
        QString tip = qs(p->description());
        if (!p->unavailableReason().empty())
            tip += tr("\nunavailable: %1").arg(qs(p->unavailableReason()));
        item->setToolTip(Name, tip);
        const Pattern *fresh = defaults().find(p->name());
        for (const auto &[key, value] : p->options().values()) {
            QString text = qs(toString(value));
            QString tip2 = tr("Double-click to edit");
            if (fresh && fresh->options().has(key)) {
                const QString def = qs(toString(fresh->options().values().at(key)));
                tip2 = tr("Inductor default: %1 — double-click to edit").arg(def);
                if (def != text)
                    text += tr("  (default %1)").arg(def);
            }
            auto *option = new QTreeWidgetItem(item, {qs(key) + QStringLiteral(" = ") + text});
            option->setData(Name, kPatternRole, qs(p->name()));
            option->setData(Name, kOptionRole, qs(key));
            option->setToolTip(Name, tip2);
            option->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsEditable);
            option->setForeground(Name, QColor(0x55, 0x5b, 0x66));
        }
        if (p->name() == current)
            m_tree->setCurrentItem(item);
    }
    for (QTreeWidgetItem *section : {pre, post, files}) {
        section->setExpanded(true);
        section->setText(Candidates, QString());
        if (section->childCount() == 0)
            section->setText(Name, section->text(Name) + tr(" — none loaded (File → Load Pattern File…)"));
    }
    m_updating = false;
    updateCounts();
}

void PatternsPanel::updateCounts()
{
    m_updating = true;
    const bool have = m_document->review().hasMatchResults();
    const std::map<std::string, PatternTally> tallies = m_document->review().tallies();
    std::map<QTreeWidgetItem *, int> sectionTotals;
    for (QTreeWidgetItemIterator it(m_tree); *it; ++it) {
        QTreeWidgetItem *item = *it;
        const QString pattern = item->data(Name, kPatternRole).toString();
        if (pattern.isEmpty() || !item->data(Name, kOptionRole).toString().isEmpty())
            continue;
        const auto found = tallies.find(pattern.toStdString());
        const PatternTally t = found == tallies.end() ? PatternTally{} : found->second;
        auto cell = [&](int column, int value) { item->setText(column, have ? QString::number(value) : QString()); };
        cell(Candidates, t.candidates);
        cell(Applied, t.applied);
        cell(Rejected, t.rejected);
        cell(Failed, t.failed);
        item->setText(NearMisses, have && t.nearMisses >= 0 ? QString::number(t.nearMisses) : QString());
        if (t.failed)
            item->setForeground(Failed, QColor(0xc0, 0x20, 0x20));
        for (QTreeWidgetItem *up = item->parent(); up; up = up->parent())
            sectionTotals[up] += t.candidates;
    }
    int widest = 0;
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i) {
        QTreeWidgetItem *section = m_tree->topLevelItem(i);
        section->setText(Candidates, have ? QString::number(sectionTotals[section]) : QString());
        widest = std::max(widest, sectionTotals[section]);
    }
    for (const auto &[name, t] : tallies)
        widest = std::max({widest, t.applied, t.rejected, t.failed, t.nearMisses});
    const QFontMetrics metrics = m_tree->fontMetrics();
    const int digits = metrics.horizontalAdvance(QString::number(widest)) + 10;
    for (int c = Candidates; c < ColumnCount; ++c)
        m_tree->header()->resizeSection(c, std::max(digits,
                                                    metrics.horizontalAdvance(m_tree->headerItem()->text(c)) + 10));
    m_updating = false;
}

void PatternsPanel::onItemChanged(QTreeWidgetItem *item, int column)
{
    if (m_updating || column != Name)
        return;
    const QString pattern = item->data(Name, kPatternRole).toString();
    const QString option = item->data(Name, kOptionRole).toString();
    if (option.isEmpty()) {
        m_document->setPatternEnabled(pattern, item->checkState(Name) == Qt::Checked);
        return;
    }
    // "key = value": take what follows '=' (or the whole text).
    QString text = item->text(Name);
    if (int eq = text.indexOf(QLatin1Char('=')); eq >= 0)
        text = text.mid(eq + 1);
    text = text.section(QStringLiteral("(default"), 0, 0);
    const Pattern *p = m_document->patternSet().patterns().find(pattern.toStdString());
    const auto &values = p->options().values();
    auto parsed = parseOption(text, values.at(option.toStdString()));
    if (!parsed) {
        QMessageBox::warning(this, tr("Option"),
                             tr("'%1' is not a valid value for %2.%3").arg(text.trimmed(), pattern, option));
        rebuild();
        return;
    }
    if (Status s = m_document->setPatternOption(pattern, option, *parsed); !s) {
        QMessageBox::warning(this, tr("Option"), qs(s.error().message));
        rebuild();
    }
}

} // namespace fusebox
