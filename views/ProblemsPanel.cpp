#include "ProblemsPanel.h"

#include "DocumentGraph.h"
#include "QtStrings.h"
#include "core/io/WarningSummary.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QStyle>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace fusebox {

namespace {

constexpr int kLineRole = Qt::UserRole + 1;
constexpr int kOpRole = Qt::UserRole + 2;
/// Up to this many entries in all, every kind starts open.
constexpr int kExpandAllLimit = 40;

/// "model.py:28" for "/long/path/model.py" and 28 ("" without a file).
QString shortLocation(const std::string &file, int line)
{
    if (file.empty())
        return {};
    return QStringLiteral("%1:%2").arg(QFileInfo(qs(file)).fileName()).arg(line);
}

/// The items of a summary warning ("12 × kind: a ×3, b"), or none when the
/// message is not one: the text after the kind and its ": ", split at ", ".
std::vector<std::string> summaryItems(const std::string &message, const std::string &kind)
{
    size_t digits = 0;
    while (digits < message.size() && message[digits] >= '0' && message[digits] <= '9')
        ++digits;
    const std::string head = " × " + kind + ": ";
    if (digits == 0 || message.compare(digits, head.size(), head) != 0)
        return {};
    std::vector<std::string> items;
    const std::string list = message.substr(digits + head.size());
    for (size_t start = 0; start <= list.size();) {
        size_t comma = list.find(", ", start);
        if (comma == std::string::npos)
            comma = list.size();
        if (comma > start)
            items.push_back(list.substr(start, comma - start));
        start = comma + 2;
    }
    return items;
}

/// "prims::iota" for "prims::iota ×48"; "" for "and 3 more".
std::string itemOp(const std::string &item)
{
    if (item.starts_with("and ") && item.ends_with(" more"))
        return {};
    const size_t times = item.rfind(" ×");
    return times == std::string::npos ? item : item.substr(0, times);
}

/// The last name part: "iota" for "prims::iota", "torch.iota" or "call_module:a.iota".
std::string_view lastName(std::string_view op)
{
    const size_t cut = op.find_last_of(".:");
    return cut == std::string_view::npos ? op : op.substr(cut + 1);
}

} // namespace

ProblemsPanel::ProblemsPanel(const DocumentGraph *model, QWidget *parent)
    : QDockWidget(tr("Problems"), parent)
    , m_model(model)
    , m_tree(new QTreeWidget)
    , m_empty(new QLabel)
{
    setObjectName(QStringLiteral("problemsDock"));
    m_tree->setObjectName(QStringLiteral("problemsTree"));
    m_empty->setObjectName(QStringLiteral("problemsEmpty"));
    m_tree->setHeaderLabels({tr("Problem"), tr("Location")});
    m_tree->setUniformRowHeights(true);
    m_tree->setExpandsOnDoubleClick(false); // activate() opens kind rows, on Enter too
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_tree->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_tree->setFrameShape(QFrame::NoFrame);
    m_empty->setText(tr("No problems"));
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setEnabled(false); // greyed, as a placeholder

    auto *body = new QWidget(this);
    auto *layout = new QVBoxLayout(body);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_tree);
    layout->addWidget(m_empty);
    setWidget(body);

    connect(m_tree, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem *item) { activate(item); });
    connect(m_model, &DocumentGraph::graphLoaded, this, &ProblemsPanel::refresh);
    refresh();
}

void ProblemsPanel::refresh()
{
    m_tree->clear();
    m_count = 0;
    std::vector<std::string> warnings;
    for (const QString &w : m_model->warnings())
        warnings.push_back(w.toStdString());
    const std::vector<WarningGroup> groups = groupWarnings(warnings);

    const QIcon icon = style()->standardIcon(QStyle::SP_MessageBoxWarning);
    int entries = 0;
    for (const WarningGroup &group : groups) {
        m_count += group.count;
        QString title = qs(formatWarningGroup(group));
        if (!group.firstLocation.empty()) {
            // The first location with the file's name only; the path is in the tooltip.
            const WarningParts first = splitWarning(warnings[group.warnings.front()]);
            title.replace(qs(group.firstLocation), shortLocation(first.file, first.line));
        }
        auto *top = new QTreeWidgetItem(m_tree, {title});
        top->setIcon(0, icon);
        top->setToolTip(0, qs(formatWarningGroup(group)));
        top->setFirstColumnSpanned(true);
        for (size_t index : group.warnings) {
            const std::string &warning = warnings[index];
            const WarningParts parts = splitWarning(warning);
            const QString location = shortLocation(parts.file, parts.line);
            const std::vector<std::string> items = summaryItems(parts.message, group.kind);
            if (items.empty()) {
                auto *child = new QTreeWidgetItem(top, {qs(parts.message), location});
                child->setData(0, kLineRole, parts.line);
                child->setToolTip(0, qs(warning));
                ++entries;
                continue;
            }
            for (const std::string &item : items) {
                auto *child = new QTreeWidgetItem(top, {qs(item)});
                const std::string op = itemOp(item);
                if (!op.empty())
                    child->setData(0, kOpRole, qs(op));
                else
                    child->setDisabled(true);
                child->setToolTip(0, qs(warning));
                ++entries;
            }
        }
    }
    if (entries <= kExpandAllLimit)
        m_tree->expandAll();
    m_tree->setVisible(!groups.empty());
    m_empty->setVisible(groups.empty());
    setWindowTitle(m_count ? tr("Problems (%1)").arg(m_count) : tr("Problems"));
}

NodeId ProblemsPanel::nodeFor(const QTreeWidgetItem *item) const
{
    if (!item || !m_model->hasGraph())
        return {};
    const QVariant op = item->data(0, kOpRole);
    if (op.isValid())
        return firstNodeOfOp(m_model->graph(), op.toString().toStdString());
    const QVariant line = item->data(0, kLineRole);
    if (line.isValid())
        return firstNodeAtLine(m_model->graph(), m_model->nodeLines(), line.toInt());
    return {};
}

void ProblemsPanel::activate(QTreeWidgetItem *item)
{
    if (!item)
        return;
    if (!item->parent()) {
        item->setExpanded(!item->isExpanded());
        return;
    }
    if (const NodeId id = nodeFor(item); id.isValid()) {
        emit nodeActivated(id);
        return;
    }
    const QVariant op = item->data(0, kOpRole);
    const int line = item->data(0, kLineRole).toInt();
    if (op.isValid())
        emit problemUnresolved(tr("No %1 node in the graph").arg(op.toString()));
    else if (line > 0)
        emit problemUnresolved(tr("No node read from line %1 is in the graph").arg(line));
    else
        emit problemUnresolved(tr("This problem names no line of the file"));
}

NodeId ProblemsPanel::firstNodeAtLine(const Graph &graph, const std::vector<int> &nodeLines, int line)
{
    if (line <= 0)
        return {};
    for (NodeId id = graph.first(); id.isValid(); id = graph.next(id))
        if (id.value < nodeLines.size() && nodeLines[id.value] == line)
            return id;
    return {};
}

NodeId ProblemsPanel::firstNodeOfOp(const Graph &graph, const std::string &name)
{
    if (name.empty())
        return {};
    const std::string module = name.starts_with("self.") ? "call_module:" + name.substr(5) : std::string();
    NodeId loose;
    for (NodeId id = graph.first(); id.isValid(); id = graph.next(id)) {
        const Node &node = *graph.node(id);
        if (node.kind() != NodeKind::Op)
            continue;
        if (node.op == name || (!module.empty() && node.op == module))
            return id;
        if (!loose.isValid() && module.empty() && !node.op.starts_with("call_module:")
            && lastName(node.op) == lastName(name))
            loose = id;
    }
    return loose;
}

} // namespace fusebox
