#include "InspectorPanel.h"

#include "DocumentGraph.h"
#include "GraphScene.h"
#include "OpPalette.h"
#include "core/io/FxSubgraphs.h"
#include "core/ir/GraphSummary.h"

#include <QTextBrowser>
#include <QUrl>

#include <map>

namespace fusebox {

namespace {

QString esc(const std::string &text)
{
    return QString::fromStdString(text).toHtmlEscaped();
}

QString nodeLink(const Graph &graph, NodeId id)
{
    const Node *node = graph.node(id);
    if (!node)
        return QStringLiteral("<span class='missing'>%#%1</span>").arg(id.value);
    return QStringLiteral("<a href='node:%1'>%%2</a>").arg(id.value).arg(esc(node->name));
}

// Arg text with node references as links. Arg::toString writes literals
// (which may hold '<' or quotes), so node references are first written as
// markers, the whole text escaped, then the markers replaced by links.
QString argHtml(const Graph &graph, const Arg &arg)
{
    const std::string text = arg.toString([](NodeId id) { return "\x01" + std::to_string(id.value) + "\x02"; });
    QString escaped = QString::fromStdString(text).toHtmlEscaped();
    QString out;
    for (qsizetype i = 0; i < escaped.size(); ++i) {
        if (escaped[i] == QChar(1)) {
            qsizetype end = escaped.indexOf(QChar(2), i);
            if (end < 0)
                break;
            out += nodeLink(graph, NodeId{escaped.mid(i + 1, end - i - 1).toUInt()});
            i = end;
        } else {
            out += escaped[i];
        }
    }
    return out;
}

QString row(const QString &key, const QString &value)
{
    return QStringLiteral("<tr><td class='k'>%1</td><td>%2</td></tr>").arg(key, value);
}

const char *kStyle = "<style>"
                     "body{font-size:12px;} h2{margin:2px 0 0 0;} .sub{color:#5d6670;margin-bottom:6px;}"
                     "td{padding:2px 6px 2px 0;vertical-align:top;} td.k{color:#6b7480;white-space:nowrap;}"
                     "a{color:#1565c0;text-decoration:none;} code,.mono{font-family:monospace;}"
                     ".missing{color:#b00020;} .swatch{font-size:14px;}"
                     "</style>";

} // namespace

InspectorPanel::InspectorPanel(const DocumentGraph *model, GraphScene *scene, QWidget *parent)
    : QDockWidget(tr("Inspector"), parent)
    , m_model(model)
    , m_scene(scene)
    , m_browser(new QTextBrowser(this))
{
    setObjectName(QStringLiteral("inspectorDock"));
    m_browser->setObjectName(QStringLiteral("inspectorText"));
    m_browser->setOpenLinks(false);
    m_browser->setFrameShape(QFrame::NoFrame);
    setWidget(m_browser);
    connect(m_browser, &QTextBrowser::anchorClicked, this, &InspectorPanel::onAnchorClicked);
    connect(m_model, &DocumentGraph::graphRewritten, this, &InspectorPanel::refresh);
    clear();
}

void InspectorPanel::refresh()
{
    if (m_node.isValid() && m_model->graph().contains(m_node))
        showNode(m_node);
    else
        clear();
}

QString InspectorPanel::text() const
{
    return m_browser->toPlainText();
}

void InspectorPanel::clear()
{
    m_node = {};
    if (!m_model->hasGraph()) {
        m_browser->setHtml(QString::fromLatin1(kStyle)
                           + tr("<p style='color:#6b7480'>Open a model to inspect its graph.</p>"));
        return;
    }
    // Nothing selected: a summary of the model.
    const Graph &graph = m_model->graph();
    const GraphSummary &summary = m_model->summary();
    QString html = QString::fromLatin1(kStyle);
    html += QStringLiteral("<h2>%1</h2>").arg(m_model->displayName().toHtmlEscaped());
    html += QStringLiteral("<div class='sub'>%1</div>")
                .arg(tr("%1 nodes · %2 edges · %3 ops · %4 constants")
                         .arg(summary.nodes)
                         .arg(summary.edges)
                         .arg(summary.ops)
                         .arg(summary.constants));
    html += QStringLiteral("<table>");
    // The first values of each list and how many more: a model with
    // thousands of inputs (a Dynamo graph's lifted weights) made a page the
    // browser took a tenth of a second to lay out on every load.
    auto values = [&](const std::vector<NodeId> &ids) {
        QString text;
        size_t listed = 0;
        for (NodeId id : ids) {
            const Node *n = graph.node(id);
            if (!n)
                continue;
            if (listed++ == kListedValues) {
                text += tr("<div>… %1 more</div>").arg(ids.size() - kListedValues);
                break;
            }
            text += QStringLiteral("<div class='mono'>%1: %2</div>")
                        .arg(nodeLink(graph, id), esc(n->meta.isKnown() ? n->meta.toString() : n->type));
        }
        return text.isEmpty() ? tr("<i>none</i>") : text;
    };
    html += row(tr("Inputs"), values(graph.inputs()));
    html += row(tr("Outputs"), values(graph.outputValues()));
    QString ops;
    for (size_t i = 0; i < summary.opHistogram.size() && i < 12; ++i)
        ops += QStringLiteral("<div class='mono'>%1 &times;%2</div>")
                   .arg(esc(summary.opHistogram[i].first))
                   .arg(summary.opHistogram[i].second);
    if (summary.opHistogram.size() > 12)
        ops += tr("<div>… %1 more kinds</div>").arg(summary.opHistogram.size() - 12);
    html += row(tr("Ops"), ops);
    if (!m_model->warnings().isEmpty())
        html += row(tr("Warnings"), tr("%1 (see Problems, Ctrl+Shift+P)").arg(m_model->warnings().size()));
    html += QStringLiteral("</table><p style='color:#6b7480'>%1</p>")
                .arg(tr("Select a node to see its op, arguments, shape, users, scope and source location."));
    m_browser->setHtml(html);
}

void InspectorPanel::showNode(NodeId id)
{
    const Graph &graph = m_model->graph();
    const Node *node = graph.node(id);
    if (!node) {
        clear();
        return;
    }
    m_node = id;
    const OpFamily family = opFamily(*node);
    const FamilyStyle style = OpPalette::style(family);

    QString html = QString::fromLatin1(kStyle);
    html += QStringLiteral("<h2>%1</h2>").arg(esc(node->name));
    const QString what = node->isOp() ? esc(node->qualifiedOp()) : QString::fromUtf8(toString(node->kind()).data());
    html += QStringLiteral("<div class='sub'><span class='swatch' style='color:%1'>&#9632;</span> %2 &middot; %3</div>")
                .arg(style.accent.name(), what, OpPalette::label(family).toHtmlEscaped());
    html += QStringLiteral("<table>");
    if (node->isOp()) {
        html += row(tr("Op"), QStringLiteral("<code>%1</code>").arg(esc(node->qualifiedOp())));
        if (!node->provenance.originalSpelling.empty())
            html += row(tr("Original"), QStringLiteral("<code>%1</code>").arg(esc(node->provenance.originalSpelling)));
    }
    html += row(tr("Kind"), QString::fromUtf8(toString(node->kind()).data()));

    if (!node->args().empty()) {
        QString args;
        for (size_t i = 0; i < node->args().size(); ++i)
            args += QStringLiteral("<div class='mono'>%1: %2</div>").arg(i).arg(argHtml(graph, node->args()[i]));
        html += row(node->kind() == NodeKind::Output ? tr("Returns") : tr("Args"), args);
    }
    if (!node->kwargs().empty()) {
        QString kwargs;
        for (const NamedArg &kw : node->kwargs())
            kwargs += QStringLiteral("<div class='mono'>%1=%2</div>").arg(esc(kw.name), argHtml(graph, kw.value));
        html += row(tr("Kwargs"), kwargs);
    }
    if (const std::vector<FxSubgraph> subgraphs = subgraphsOf(*node); !subgraphs.empty()) {
        QString links;
        for (const FxSubgraph &sub : subgraphs)
            links += QStringLiteral("<div><a href='subgraph:%1'>%2</a></div>")
                         .arg(QString::fromStdString(sub.name).toHtmlEscaped(),
                              tr("Open subgraph %1").arg(esc(sub.name)));
        html += row(tr("Subgraphs"), links);
    }

    if (node->kind() != NodeKind::Output) {
        QString out = QStringLiteral("<code>%1</code>").arg(esc(node->type));
        if (node->meta.isKnown())
            out += QStringLiteral(" &nbsp;<code>%1</code>").arg(esc(node->meta.toString()));
        html += row(tr("Output"), out);
        if (node->meta.shape)
            html += row(tr("Shape"), QStringLiteral("<code>%1</code>").arg(esc(node->meta.shapeString())));
        if (node->meta.dtype != DType::Unknown)
            html += row(tr("Dtype"),
                        QStringLiteral("<code>%1</code>").arg(esc(std::string(torchName(node->meta.dtype)))));
        if (!node->meta.device.empty())
            html += row(tr("Device"), esc(node->meta.device));
        if (node->meta.strides) {
            std::string strides;
            for (size_t i = 0; i < node->meta.strides->size(); ++i)
                strides += (i ? ", " : "") + std::to_string((*node->meta.strides)[i]);
            html += row(tr("Strides"), QStringLiteral("<code>[%1]</code>").arg(esc(strides)));
        }
    }

    const std::vector<NodeId> users = graph.users(id);
    if (node->kind() != NodeKind::Output) {
        QStringList links;
        for (NodeId user : users)
            links << nodeLink(graph, user);
        html += row(tr("Users"), links.isEmpty() ? tr("<i>none</i>") : links.join(QStringLiteral(", ")));
    }
    html += row(tr("Scope"), node->provenance.scope.empty()
                                 ? tr("<i>top level</i>")
                                 : QStringLiteral("<code>%1</code>").arg(esc(node->provenance.scope)));
    if (node->provenance.source.isKnown()) {
        const SourceLocation &src = node->provenance.source;
        html += row(tr("Source"),
                    QStringLiteral("<code>%1:%2:%3</code>").arg(esc(src.file)).arg(src.line).arg(src.column));
    }
    if (!node->provenance.createdBy.empty())
        html += row(tr("Created by"), esc(node->provenance.createdBy));
    if (node->kind() == NodeKind::Constant) {
        QString weight = QStringLiteral("<code>%1</code>").arg(esc(node->weightKey));
        if (auto w = graph.weights().get(node->weightKey))
            weight += tr(" &middot; %1 bytes").arg(w->data.size());
        html += row(tr("Weight"), weight);
    }
    if (!node->opaqueBody.empty())
        html += row(tr("Body"), QStringLiteral("<pre>%1</pre>").arg(esc(node->opaqueBody)));
    html += QStringLiteral("</table>");
    m_browser->setHtml(html);
}

void InspectorPanel::showGroup(int scope)
{
    const ScopeTree &tree = m_scene->scopeTree();
    if (scope < 0 || size_t(scope) >= tree.size()) {
        clear();
        return;
    }
    m_node = {};
    const ScopeTree::Scope &s = tree.scope(scope);
    const Graph &graph = m_model->graph();
    std::map<std::string, size_t> ops;
    std::vector<int> stack{scope};
    while (!stack.empty()) {
        const ScopeTree::Scope &cur = tree.scope(stack.back());
        stack.pop_back();
        for (NodeId id : cur.nodes)
            if (const Node *n = graph.node(id); n && n->isOp())
                ++ops[n->op];
        stack.insert(stack.end(), cur.scopes.begin(), cur.scopes.end());
    }
    std::vector<std::pair<std::string, size_t>> sorted(ops.begin(), ops.end());
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto &a, const auto &b) { return a.second > b.second; });

    QString html = QString::fromLatin1(kStyle);
    html += QStringLiteral("<h2>%1</h2>").arg(esc(s.artificial ? s.label : s.path));
    html += QStringLiteral("<div class='sub'>%1</div>")
                .arg(s.artificial ? tr("group of consecutive children (the scope is too wide to show at once)")
                                  : tr("module scope (collapsed)"));
    html += QStringLiteral("<table>");
    html += row(tr("Nodes"), QString::number(s.nodeCount));
    html += row(tr("Children"), tr("%1 scopes, %2 nodes directly").arg(s.scopes.size()).arg(s.nodes.size()));
    QString hist;
    for (size_t i = 0; i < sorted.size() && i < 12; ++i)
        hist += QStringLiteral("<div class='mono'>%1 &times;%2</div>").arg(esc(sorted[i].first)).arg(sorted[i].second);
    if (!hist.isEmpty())
        html += row(tr("Ops"), hist);
    html += QStringLiteral("</table><p style='color:#1565c0'>%1</p>").arg(tr("Double-click the group to expand it."));
    m_browser->setHtml(html);
}

void InspectorPanel::onAnchorClicked(const QUrl &url)
{
    if (url.scheme() == QLatin1String("subgraph")) {
        if (m_node.isValid())
            emit subgraphRequested(m_node, url.path());
        return;
    }
    if (url.scheme() != QLatin1String("node"))
        return;
    bool ok = false;
    const uint value = url.path().toUInt(&ok);
    if (ok)
        emit nodeActivated(NodeId{value});
}

} // namespace fusebox
