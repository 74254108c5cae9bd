#include "NodeSearchField.h"

#include <array>
#include <string_view>
#include <unordered_map>
#include <variant>

#include "NodeItem.h"

#include "core/ir/Graph.h"

#include <QCompleter>
#include <QRegularExpression>
#include <QStringListModel>

#include <string>
#include <unordered_map>

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

QStringList NodeSearchField::namesOf(const Graph &graph)
{
    QStringList names;
    names.reserve(qsizetype(graph.size()));
    for (NodeId id : graph.nodeIds())
        names << QString::fromStdString(graph.node(id)->name);
    return names;
}

void NodeSearchField::setNames(QStringList names)
{
    m_names->setStringList(names);
}

NodeId NodeSearchField::find(const Graph &graph, const QString &text)
{
    const std::vector<NodeId> all = findAll(graph, text);
    return all.empty() ? NodeId{} : all.front();
}

namespace {

/// A tensor type as the search tells types apart: what toString() prints.
struct SearchTypeHash {
    size_t operator()(const TensorMeta &m) const
    {
        size_t h = std::hash<int>{}(int(m.dtype)) ^ (std::hash<std::string>{}(m.device) << 1);
        if (m.shape)
            for (const Dim &d : *m.shape)
                h = h * 31 + std::visit([](const auto &v) { return std::hash<std::decay_t<decltype(v)>>{}(v); }, d);
        return h;
    }
};

} // namespace

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
    re.optimize();
    auto matches = [&re](const QString &s) { return re.match(s).hasMatch(); };
    // The search runs on the GUI thread over every node. Names are each
    // node's own, but nodes share their op, the label on their box (a
    // function of the op, or the name) and their type: each distinct one is
    // matched once, not once per node, and looked up without making a string
    // per node (a 100k-node search took 25-60 ms, most of it formatting).
    // Keyed by kind too: an input and the output have no op, and only the
    // output's box has a title of its own.
    static_assert(int(NodeKind::Output) == 3, "one op table per NodeKind");
    std::array<std::unordered_map<std::string_view, bool>, 4> opOrTitle;
    std::unordered_map<TensorMeta, bool, SearchTypeHash> typeText;
    for (NodeId id : graph.nodeIds()) {
        if (id == exact)
            continue;
        const Node &n = *graph.node(id);
        bool hit = matches(QString::fromStdString(n.name));
        if (!hit) {
            auto &byOp = opOrTitle[size_t(n.kind())];
            auto [it, fresh] = byOp.try_emplace(std::string_view(n.op), false);
            if (fresh) {
                // What the box says ("cat" for aten::cat): "^cat$" finds the
                // boxes that read "cat". An input's or a constant's box says
                // its name, matched above.
                const bool titled = n.kind() == NodeKind::Op || n.kind() == NodeKind::Output;
                it->second = matches(QString::fromStdString(n.op)) || (titled && matches(NodeItem::labelFor(n).title));
            }
            hit = it->second;
        }
        if (!hit) {
            auto [it, fresh] = typeText.try_emplace(n.meta, false);
            if (fresh)
                it->second = matches(QString::fromStdString(n.meta.toString()));
            hit = it->second;
        }
        if (hit)
            hits.push_back(id);
    }
    return hits;
}

} // namespace fusebox
