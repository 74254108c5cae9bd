#include "WhyNotPanel.h"

#include "Document.h"
#include "QtStrings.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace fusebox {

namespace {
constexpr int kNodeRole = Qt::UserRole + 1;
const QColor kWhyNotFailColor(0xc0, 0x20, 0x20);
const QColor kWhyNotPassColor(0x2a, 0x8a, 0x3a);
} // namespace

WhyNotPanel::WhyNotPanel(const Document *document, QWidget *parent)
    : QWidget(parent)
    , m_document(document)
    , m_patternBox(new QComboBox(this))
    , m_nodeLabel(new QLabel(this))
    , m_summary(new QLabel(this))
    , m_checks(new QTreeWidget(this))
    , m_nearMisses(new QTreeWidget(this))
    , m_nearMissLabel(new QLabel(this))
{
    setObjectName(QStringLiteral("whyNotPanel"));
    m_patternBox->setObjectName(QStringLiteral("whyNotPattern"));
    m_summary->setObjectName(QStringLiteral("whyNotSummary"));
    m_checks->setObjectName(QStringLiteral("whyNotChecks"));
    m_nearMisses->setObjectName(QStringLiteral("nearMisses"));
    m_summary->setWordWrap(true);
    // Long answers wrap: a label that does not would widen the dock (and
    // shrink the graph) to fit its text.
    m_nodeLabel->setWordWrap(true);
    m_nodeLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_checks->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Expanding);
    m_nearMisses->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Expanding);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_checks->setHeaderLabels({tr("Check"), tr("Actual"), tr("Where")});
    m_checks->setRootIsDecorated(false);
    // Whole rows, wrapped, never cut with "…": a check's values are the answer.
    m_checks->setWordWrap(true);
    m_checks->setTextElideMode(Qt::ElideNone);
    m_checks->setUniformRowHeights(false);
    m_checks->header()->setStretchLastSection(false);
    // A third of the width each: fixed widths for Check and Where left the
    // Actual column, the values the user came for, 3 characters wide in a
    // docked panel.
    m_checks->header()->setSectionResizeMode(QHeaderView::Stretch);
    // Row heights follow the columns' widths.
    connect(m_checks->header(), &QHeaderView::sectionResized, m_checks, [this] { m_checks->doItemsLayout(); });
    m_nearMisses->setHeaderLabels({tr("Failed check / node"), tr("Checks passed")});
    m_nearMisses->header()->resizeSection(0, 300);

    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Pattern:"), this));
    top->addWidget(m_patternBox, 1);
    auto *nearRow = new QHBoxLayout;
    auto *nearButton = new QPushButton(tr("Near Misses"), this);
    nearButton->setObjectName(QStringLiteral("nearMissButton"));
    nearButton->setToolTip(tr("Where this pattern came closest to firing, over the whole graph"));
    nearRow->addWidget(m_nearMissLabel, 1);
    nearRow->addWidget(nearButton);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_nodeLabel); // its own row: it wraps over the dock's width
    layout->addWidget(m_summary);
    layout->addWidget(m_checks, 3);
    layout->addLayout(nearRow);
    layout->addWidget(m_nearMisses, 2);

    connect(&m_document->patternSet(), &DocumentPatterns::patternsChanged, this, &WhyNotPanel::fillPatterns);
    connect(&m_document->model(), &DocumentGraph::graphLoaded, this, [this] {
        m_node = {};
        m_unconcerned = false;
        m_nearMisses->clear();
        refresh();
    });
    connect(&m_document->model(), &DocumentGraph::graphRewritten, this, &WhyNotPanel::refresh);
    connect(m_patternBox, &QComboBox::currentIndexChanged, this, [this] {
        m_unconcerned = false; // the user asks about this pattern here
        m_nearMisses->clear();
        m_nearMissLabel->clear();
        refresh();
    });
    connect(nearButton, &QPushButton::clicked, this, &WhyNotPanel::showNearMisses);
    connect(m_nearMisses, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem *item) {
        const QVariant v = item->data(0, kNodeRole);
        if (v.isValid())
            emit nodeActivated(NodeId{v.toUInt()});
    });
    fillPatterns();
}

void WhyNotPanel::fillPatterns()
{
    const QString current = m_patternBox->currentText();
    QSignalBlocker block(m_patternBox);
    m_patternBox->clear();
    for (const Pattern *p : m_document->patternSet().patterns().all())
        m_patternBox->addItem(qs(p->name()));
    if (int i = m_patternBox->findText(current); i >= 0)
        m_patternBox->setCurrentIndex(i);
}

std::string WhyNotPanel::pattern() const
{
    return m_patternBox->currentText().toStdString();
}

void WhyNotPanel::explain(const std::string &pattern, NodeId node)
{
    if (!pattern.empty()) {
        QSignalBlocker block(m_patternBox);
        if (int i = m_patternBox->findText(qs(pattern)); i >= 0 && i != m_patternBox->currentIndex()) {
            m_patternBox->setCurrentIndex(i);
            m_nearMisses->clear();
            m_nearMissLabel->clear();
        }
    }
    if (node.isValid())
        m_node = node;
    m_unconcerned = false;
    refresh();
}

void WhyNotPanel::explainUnconcerned(NodeId node)
{
    m_node = node;
    m_unconcerned = true;
    refresh();
}

void WhyNotPanel::refresh()
{
    m_checks->clear();
    const Node *n = m_document->model().graph().node(m_node);
    m_nodeLabel->setText(n ? tr("at %%1 (%2)").arg(qs(n->name), qs(n->op)) : tr("no node selected"));
    m_nodeLabel->setToolTip({});
    if (!n) {
        m_summary->setText(tr("Select a node, then a pattern (or right-click a node → “Why didn't … fire here?”)."));
        emit marksChanged({}, {});
        return;
    }
    if (m_unconcerned) {
        m_summary->setText(tr("No pattern starts at %1: none of the %2 patterns rewrites from this op. Choose one "
                              "above to see its checks here.")
                               .arg(qs(n->op))
                               .arg(m_document->patternSet().patterns().all().size()));
        emit marksChanged({}, {});
        return;
    }
    auto e = m_document->explain(pattern(), m_node);
    if (!e) {
        m_summary->setText(tr("No pattern chosen."));
        emit marksChanged({}, {});
        return;
    }
    if (e->matched)
        m_summary->setText(
            tr("<b style='color:#2a8a3a'>%1 fires here</b>: %2").arg(qs(e->pattern), qs(e->summary).toHtmlEscaped()));
    else if (e->undecided())
        m_summary->setText(tr("<b style='color:#b06000'>Cannot tell whether %1 fires at %%2</b>: %3")
                               .arg(qs(e->pattern), qs(n->name), qs(e->summary).toHtmlEscaped()));
    else
        m_summary->setText(tr("<b style='color:#c02020'>%1 does not fire at %%2</b>: %3")
                               .arg(qs(e->pattern), qs(n->name), qs(e->summary).toHtmlEscaped()));
    // Whose answer: Inductor's schedule (which pass) or the greedy search.
    m_nodeLabel->setText(tr("at %%1 (%2) — %3").arg(qs(n->name), qs(n->op), qs(e->context)));
    m_nodeLabel->setToolTip(tr("Rewrite ▸ Schedule chooses whose answer the panel gives"));
    std::vector<NodeId> failed, passed;
    const Check *failure = e->failure();
    for (const Check &c : e->checks) {
        // A check is written as what it requires; a failed one says so first,
        // so that it does not read as the condition that held.
        const QString what = c.passed      ? QStringLiteral("✓ ") + qs(c.description)
                             : c.undecided ? QStringLiteral("? ") + tr("unknown shape: %1").arg(qs(c.description))
                                           : QStringLiteral("✗ ") + tr("not met: %1").arg(qs(c.description));
        auto *item = new QTreeWidgetItem(m_checks, {what, qs(c.actual), qs(c.source)});
        item->setToolTip(0, qs(c.description));
        item->setToolTip(1, qs(c.actual));
        item->setToolTip(2, c.fuseboxOnly
                                ? qs(c.source)
                                : tr("Made by %1's %2 (its code as PyTorch 2.6 has it)")
                                      .arg(qs(m_document->patternSet().patterns().inductorLabel()), qs(c.source)));
        if (c.fuseboxOnly)
            item->setForeground(2, QColor(0xb0, 0x60, 0x00)); // a check Inductor does not make
        if (&c == failure) {
            QFont bold = item->font(0);
            bold.setBold(true);
            for (int col = 0; col < 3; ++col) {
                item->setFont(col, bold);
                item->setForeground(col, kWhyNotFailColor);
                item->setBackground(col, QColor(0xfd, 0xe8, 0xe8));
            }
            failed.insert(failed.end(), c.nodes.begin(), c.nodes.end());
            m_checks->scrollToItem(item);
        } else {
            item->setForeground(0, c.passed ? kWhyNotPassColor : kWhyNotFailColor);
            if (c.passed)
                passed.insert(passed.end(), c.nodes.begin(), c.nodes.end());
        }
    }
    if (failed.empty() && failure)
        failed.push_back(m_node);
    emit marksChanged(failed, passed);
}

void WhyNotPanel::showNearMisses()
{
    m_nearMisses->clear();
    auto summary = m_document->nearMisses(pattern());
    if (!summary) {
        m_nearMissLabel->setText(tr("No pattern chosen."));
        return;
    }
    const size_t checks = summary->groups.size();
    m_nearMissLabel->setText(tr("%1: attempted at %2 nodes, fires at %3; %4")
                                 .arg(qs(summary->pattern))
                                 .arg(summary->attempted)
                                 .arg(summary->matched)
                                 .arg(checks == 1 ? tr("1 check failed") : tr("%1 checks failed").arg(checks)));
    const Graph &g = m_document->model().graph();
    for (const NearMissGroup &group : summary->groups) {
        auto *top = new QTreeWidgetItem(m_nearMisses, {qs(group.check), group.nodes.size() == 1
                                                                            ? tr("1 node")
                                                                            : tr("%1 nodes").arg(group.nodes.size())});
        top->setForeground(0, kWhyNotFailColor);
        for (const Explanation &e : group.nodes) {
            const Node *n = g.node(e.node);
            const int passedChecks = int(
                std::count_if(e.checks.begin(), e.checks.end(), [](const Check &c) { return c.passed; }));
            auto *item = new QTreeWidgetItem(top, {n ? QStringLiteral("%") + qs(n->name) + QStringLiteral("  ")
                                                           + qs(e.summary)
                                                     : qs(e.summary),
                                                   QString::number(passedChecks)});
            item->setData(0, kNodeRole, e.node.value);
            item->setToolTip(0, qs(e.summary));
        }
    }
    if (m_nearMisses->topLevelItemCount() > 0)
        m_nearMisses->topLevelItem(0)->setExpanded(true);
}

QString WhyNotPanel::text() const
{
    QString out = m_summary->text() + QLatin1Char('\n');
    for (int i = 0; i < m_checks->topLevelItemCount(); ++i) {
        const QTreeWidgetItem *item = m_checks->topLevelItem(i);
        out += item->text(0) + QStringLiteral(" — ") + item->text(1)
               + (item->text(2).isEmpty() ? QString() : QStringLiteral(" [") + item->text(2) + QLatin1Char(']'))
               + QLatin1Char('\n');
    }
    return out;
}

} // namespace fusebox
