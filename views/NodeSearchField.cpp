#include "NodeSearchField.h"

#include "NodeItem.h"

#include "core/ir/Graph.h"

#include <QCompleter>
#include <QRegularExpression>
#include <QStringListModel>

namespace fusebox {

NodeSearchField::NodeSearchField(QWidget *parent)
    : QLineEdit(parent)
    , m_names(new QStringListModel(this))
{
    setObjectName(QStringLiteral("nodeSearch"));
    setPlaceholderText(tr("Find node…  (Ctrl+F)"));
    setClearButtonEnabled(true);
    setMaximumWidth(280);
    auto *completer = new QCompleter(m_names, this);
    completer->setCaseSensitivity(Qt::CaseInsensitive);
    completer->setFilterMode(Qt::MatchContains);
    completer->setMaxVisibleItems(16);
    setCompleter(completer);
    connect(this, &QLineEdit::returnPressed, this, [this] {
        if (!text().trimmed().isEmpty())
            emit searchRequested(text().trimmed());
    });
    connect(completer, qOverload<const QString &>(&QCompleter::activated), this,
            [this](const QString &name) { emit searchRequested(name); });
}

void NodeSearchField::setGraph(const Graph &graph)
{
    QStringList names;
    names.reserve(qsizetype(graph.size()));
    for (NodeId id : graph.nodeIds())
        names << QString::fromStdString(graph.node(id)->name);
    m_names->setStringList(names);
}

NodeId NodeSearchField::find(const Graph &graph, const QString &text)
{
    const std::vector<NodeId> all = findAll(graph, text);
    return all.empty() ? NodeId{} : all.front();
}

std::vector<NodeId> NodeSearchField::findAll(const Graph &graph, const QString &text)
{
    std::vector<NodeId> hits;
    if (text.isEmpty())
        return hits;
    const NodeId exact = graph.findByName(text.toStdString());
    if (exact.isValid())
        hits.push_back(exact);
    QRegularExpression re(text, QRegularExpression::CaseInsensitiveOption);
    if (!re.isValid())
        re = QRegularExpression(QRegularExpression::escape(text), QRegularExpression::CaseInsensitiveOption);
    for (NodeId id : graph.nodeIds()) {
        if (id == exact)
            continue;
        const Node &n = *graph.node(id);
        // What the box says ("cat" for aten::cat) as well as what the node is
        // called: "^cat$" finds the boxes that read "cat".
        if (re.match(QString::fromStdString(n.name)).hasMatch() || re.match(QString::fromStdString(n.op)).hasMatch()
            || re.match(NodeItem::labelFor(n).title).hasMatch()
            || re.match(QString::fromStdString(n.meta.toString())).hasMatch())
            hits.push_back(id);
    }
    return hits;
}

} // namespace fusebox
