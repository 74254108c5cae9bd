#include "NodeSearchField.h"

#include "core/ir/Graph.h"

#include <QCompleter>
#include <QStringListModel>

namespace fusebox {

NodeSearchField::NodeSearchField(QWidget *parent) : QLineEdit(parent), m_names(new QStringListModel(this))
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
    const std::string exact = text.toStdString();
    if (NodeId id = graph.findByName(exact); id.isValid())
        return id;
    for (NodeId id : graph.nodeIds()) {
        const Node &n = *graph.node(id);
        if (QString::fromStdString(n.name).contains(text, Qt::CaseInsensitive)
            || QString::fromStdString(n.op).contains(text, Qt::CaseInsensitive))
            return id;
    }
    return {};
}

} // namespace fusebox
