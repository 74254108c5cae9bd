#include "DiffView.h"

#include "Document.h"
#include "GraphScene.h"
#include "GraphView.h"
#include "NodeItem.h"
#include "QtStrings.h"

#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

#include <utility>

namespace fusebox {

namespace {
const QColor kRemoved(0xd0, 0x20, 0x20);
const QColor kAdded(0x1e, 0x9a, 0x3a);
const QColor kChanged(0xe0, 0x8a, 0x00);

QWidget *pane(QLabel *label, GraphView *view, QWidget *parent)
{
    auto *box = new QWidget(parent);
    auto *layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    label->setStyleSheet(QStringLiteral("font-weight: bold; padding: 2px 4px;"));
    layout->addWidget(label);
    layout->addWidget(view, 1);
    return box;
}
} // namespace

DiffView::DiffView(Document *document, QWidget *parent)
    : QWidget(parent)
    , m_comparison(document == nullptr)
    , m_document(document ? document : new Document(this))
    , m_before(new Document(this))
    , m_beforeScene(new GraphScene(m_before, this))
    , m_afterScene(new GraphScene(m_document, this))
    , m_beforeView(new GraphView(m_beforeScene, this))
    , m_afterView(new GraphView(m_afterScene, this))
    , m_summary(new QLabel(this))
    , m_beforeTitle(new QLabel(tr("Before (as loaded) — removed nodes in red"), this))
    , m_afterTitle(new QLabel(tr("After (current) — added nodes in green, changed in orange"), this))
{
    setObjectName(QStringLiteral("diffView"));
    setWindowTitle(tr("Before / After — Fusebox"));
    m_summary->setObjectName(QStringLiteral("diffSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(pane(m_beforeTitle, m_beforeView, splitter));
    splitter->addWidget(pane(m_afterTitle, m_afterView, splitter));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addWidget(m_summary);
    layout->addWidget(splitter, 1);

    connect(&m_document->model(), &DocumentGraph::graphRewritten, this, &DiffView::refresh);
    connect(&m_document->model(), &DocumentGraph::graphLoaded, this, &DiffView::refresh);
    for (auto [scene, view] : {std::pair{m_beforeScene, m_beforeView}, std::pair{m_afterScene, m_afterView}}) {
        connect(scene, &GraphScene::layoutFinished, this, &DiffView::applyMarks);
        connect(scene, &GraphScene::layoutFinished, view, [view](bool firstForGraph) {
            if (firstForGraph)
                view->showReadable();
        });
    }
    connect(m_beforeScene, &GraphScene::selectedNodeChanged, this,
            [this] { follow(m_beforeScene, m_afterScene, m_afterView); });
    connect(m_afterScene, &GraphScene::selectedNodeChanged, this,
            [this] { follow(m_afterScene, m_beforeScene, m_beforeView); });
    auto followZoom = [this](GraphView *to) {
        return [this, to](qreal z) {
            if (m_syncing || qAbs(to->zoom() - z) <= 1e-3)
                return;
            m_syncing = true;
            to->setZoom(z);
            m_syncing = false;
        };
    };
    connect(m_beforeView, &GraphView::zoomChanged, this, followZoom(m_afterView));
    connect(m_afterView, &GraphView::zoomChanged, this, followZoom(m_beforeView));
    refresh();
}

bool DiffView::isLayingOut() const
{
    return m_beforeScene->isLayoutRunning() || m_afterScene->isLayoutRunning();
}

void DiffView::refresh()
{
    if (m_comparison || !m_document->model().hasGraph())
        return;
    // The left side shows the graph as loaded; reload it only when that changed.
    if (!m_before->model().hasGraph() || m_before->model().graph().size() != m_document->history().original().size()
        || m_before->model().displayName() != m_document->model().displayName())
        m_before->setGraph(m_document->history().original().clone(), m_document->model().displayName());
    m_diff = diffFromEdits(m_document->history().original(), m_document->model().graph(),
                           m_document->history().appliedGroups());

    size_t rewrites = 0;
    for (const auto &p : m_diff.byPattern)
        rewrites += p.rewrites;
    QString html = tr("<b>%1</b>: %2 → %3 nodes (−%4 removed, +%5 added, %6 changed)")
                       .arg(rewrites == 1 ? tr("1 rewrite") : tr("%1 rewrites").arg(rewrites))
                       .arg(m_document->history().original().size())
                       .arg(m_document->model().graph().size())
                       .arg(m_diff.removed.size())
                       .arg(m_diff.added.size())
                       .arg(m_diff.changed.size());
    if (!m_diff.byPattern.empty()) {
        QStringList parts;
        for (const auto &p : m_diff.byPattern)
            parts << tr("%1 ×%2 (−%3 +%4)").arg(qs(p.pattern)).arg(p.rewrites).arg(p.removed).arg(p.added);
        html += QStringLiteral("<br>") + tr("By pattern: ") + parts.join(QStringLiteral(" · "));
    }
    QStringList ops;
    for (const auto &[op, counts] : m_diff.opCounts)
        if (counts.first != counts.second)
            ops << QStringLiteral("%1 %2→%3").arg(qs(op)).arg(counts.first).arg(counts.second);
    if (!ops.isEmpty())
        html += QStringLiteral("<br>") + tr("Ops before → after: ") + ops.join(QStringLiteral(" · "));
    else
        html += QStringLiteral("<br>") + tr("No rewrite applied yet: apply matches to see their diff here.");
    m_summary->setText(html);
    applyMarks();
}

void DiffView::showComparison(const Graph &left, const QString &leftTitle, const Graph &right,
                              const QString &rightTitle, std::vector<NodeId> markLeft, std::vector<NodeId> markRight,
                              const QString &headline, const QStringList &details)
{
    // The document-bound view's right side is the user's document: never replace it.
    Q_ASSERT(m_comparison);
    if (!m_comparison)
        return;
    m_markLeft = std::move(markLeft);
    m_markRight = std::move(markRight);
    m_beforeTitle->setText(leftTitle);
    m_afterTitle->setText(rightTitle);
    QStringList lines{QStringLiteral("<b>%1</b>").arg(headline.toHtmlEscaped())};
    for (const QString &line : details)
        lines << line.toHtmlEscaped();
    m_summary->setText(lines.join(QStringLiteral("<br>")));
    m_before->setGraph(left.clone(), leftTitle);
    m_document->setGraph(right.clone(), rightTitle);
    applyMarks();
}

QString DiffView::summaryText() const
{
    return m_summary->text();
}

void DiffView::applyMarks()
{
    QHash<uint32_t, ItemMark> before, after;
    if (m_comparison) {
        for (NodeId id : m_markLeft)
            before.insert(id.value, ItemMark{kChanged, 4, false});
        for (NodeId id : m_markRight)
            after.insert(id.value, ItemMark{kChanged, 4, false});
    }
    for (NodeId id : m_diff.removed)
        before.insert(id.value, ItemMark{kRemoved, 4, false});
    for (NodeId id : m_diff.added)
        after.insert(id.value, ItemMark{kAdded, 4, false});
    for (NodeId id : m_diff.changed) {
        before.insert(id.value, ItemMark{kChanged, 3, true});
        after.insert(id.value, ItemMark{kChanged, 3, true});
    }
    if (before != m_beforeScene->marks())
        m_beforeScene->setMarks(std::move(before));
    if (after != m_afterScene->marks())
        m_afterScene->setMarks(std::move(after));
}

void DiffView::follow(GraphScene *from, GraphScene *to, GraphView *toView)
{
    if (m_syncing)
        return;
    NodeId id = from->selectedNode();
    // Compared graphs share no NodeIds; their unchanged nodes share names.
    if (const Node *node = from->document()->model().graph().node(id); m_comparison)
        id = node ? to->document()->model().graph().findByName(node->name) : NodeId{};
    if (!id.isValid() || !to->document()->model().graph().contains(id) || to->selectedNode() == id)
        return;
    m_syncing = true;
    to->selectNode(id);
    if (NodeItem *item = to->nodeItem(id))
        toView->focusOn(item->sceneBoundingRect());
    m_syncing = false;
}

} // namespace fusebox
