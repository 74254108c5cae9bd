#include "DotLayout.h"

// Graphviz headers are confined to this file (docs/architecture.md).
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>

namespace fusebox {
namespace {

constexpr double kPointsPerInch = 72.0;

// Graphviz keeps global state (error handlers, plugin tables, the cgraph
// default discipline): every call into it happens under this mutex.
std::mutex &graphvizMutex()
{
    static std::mutex mutex;
    return mutex;
}

// Messages Graphviz reports during one call; only touched under the mutex.
std::string *g_messages = nullptr;

int collectMessage(char *message)
{
    if (g_messages && message)
        g_messages->append(message);
    return 0;
}

// cgraph's API takes char* for strings it only reads (and copies).
char *cstr(const char *text)
{
    return const_cast<char *>(text);
}

std::string inches(double points)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.4f", points / kPointsPerInch);
    return buffer;
}

std::string trimmed(std::string text)
{
    while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
        text.pop_back();
    for (char &c : text)
        if (c == '\n')
            c = ' ';
    return text;
}

// The process's one GVC context, created on first use (under the mutex) and
// kept: Graphviz 2.42's gvContext() leaks the plugin configuration it reads
// (gvconfig, ~3.6 KB per call), so a context per layout would leak per layout.
GVC_t *sharedContext()
{
    static GVC_t *context = gvContext();
    return context;
}

// Owns a graph for the duration of one layout, so every exit path frees it
// (gvFreeLayout before agclose, as Graphviz requires).
class GraphvizSession {
public:
    GraphvizSession()
        : m_context(sharedContext())
    {}
    ~GraphvizSession()
    {
        if (m_graph) {
            if (m_laidOut)
                gvFreeLayout(m_context, m_graph);
            agclose(m_graph);
        }
    }
    GraphvizSession(const GraphvizSession &) = delete;
    GraphvizSession &operator=(const GraphvizSession &) = delete;

    GVC_t *context() const { return m_context; }
    Agraph_t *open()
    {
        m_graph = agopen(cstr("fusebox"), Agdirected, nullptr);
        return m_graph;
    }
    int layout()
    {
        int rc = gvLayout(m_context, m_graph, "dot");
        m_laidOut = rc == 0;
        return rc;
    }

private:
    GVC_t *m_context = nullptr;
    Agraph_t *m_graph = nullptr;
    bool m_laidOut = false;
};

Expected<bool> validate(const LayoutInput &input)
{
    std::unordered_map<uint64_t, size_t> seen;
    seen.reserve(input.nodes.size());
    for (size_t i = 0; i < input.nodes.size(); ++i) {
        const LayoutNode &n = input.nodes[i];
        if (!seen.emplace(n.key, i).second)
            return Error{"layout: duplicate node key " + std::to_string(n.key) + " (nodes "
                         + std::to_string(seen[n.key]) + " and " + std::to_string(i) + ")"};
        if (!std::isfinite(n.width) || !std::isfinite(n.height) || n.width < 0 || n.height < 0)
            return Error{"layout: node key " + std::to_string(n.key) + " has an invalid size " + std::to_string(n.width)
                         + " x " + std::to_string(n.height)};
    }
    for (size_t i = 0; i < input.edges.size(); ++i) {
        const LayoutEdge &e = input.edges[i];
        for (uint64_t key : {e.from, e.to})
            if (!seen.count(key))
                return Error{"layout: edge " + std::to_string(i) + " (" + std::to_string(e.from) + " -> "
                             + std::to_string(e.to) + ") names unknown node key " + std::to_string(key)};
    }
    return true;
}

// A straight edge between box borders, for the rare edge dot leaves unrouted.
RoutedEdge straightEdge(const PlacedNode &from, const PlacedNode &to)
{
    Point a{from.x, from.y + from.height / 2};
    Point b{to.x, to.y - to.height / 2};
    RoutedEdge edge{from.key, to.key, {}, b};
    Point d{b.x - a.x, b.y - a.y};
    edge.spline = {a, {a.x + d.x / 3, a.y + d.y / 3}, {a.x + 2 * d.x / 3, a.y + 2 * d.y / 3}, b};
    return edge;
}

// dot's cost is dominated by network simplex on its auxiliary graph, whose
// size is the box count plus one virtual node per rank a long edge crosses.
// Estimate that size with a longest-path ranking (what dot starts from).
double auxiliarySize(const LayoutInput &input)
{
    std::unordered_map<uint64_t, size_t> index;
    for (size_t i = 0; i < input.nodes.size(); ++i)
        index.emplace(input.nodes[i].key, i);
    const size_t n = input.nodes.size();
    std::vector<std::vector<size_t>> out(n);
    std::vector<size_t> indegree(n, 0);
    for (const LayoutEdge &e : input.edges) {
        auto from = index.find(e.from), to = index.find(e.to);
        if (from == index.end() || to == index.end())
            continue;
        size_t a = from->second, b = to->second;
        if (a == b)
            continue;
        out[a].push_back(b);
        ++indegree[b];
    }
    std::vector<size_t> rank(n, 0), ready;
    for (size_t i = 0; i < n; ++i)
        if (indegree[i] == 0)
            ready.push_back(i);
    size_t visited = 0;
    while (!ready.empty()) {
        size_t i = ready.back();
        ready.pop_back();
        ++visited;
        for (size_t j : out[i]) {
            rank[j] = std::max(rank[j], rank[i] + 1);
            if (--indegree[j] == 0)
                ready.push_back(j);
        }
    }
    if (visited < n) // a cycle: dot reverses edges; assume modest spans
        return double(n + 2 * input.edges.size());
    double size = double(n);
    for (size_t a = 0; a < n; ++a)
        for (size_t b : out[a])
            size += double(rank[b] - rank[a]) - 1.0;
    return size;
}

// Bounds the x-coordinate network simplex (nslimit: iterations = nslimit x
// box count) so that iterations x auxiliary size stays near kWorkBudget
// (about a second here); its
// starting solution is already a valid, overlap-free placement, later
// iterations only straighten edges. Empty when no bound is needed.
std::string networkSimplexLimit(const LayoutInput &input)
{
    constexpr double kWorkBudget = 1.5e7;
    const double aux = auxiliarySize(input);
    const double n = double(input.nodes.size());
    // Unbounded dot needs roughly as many iterations as auxiliary nodes.
    if (aux * aux <= kWorkBudget)
        return {};
    const double iterations = std::max(kWorkBudget / aux, 100.0);
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.3f", iterations / n);
    return buffer;
}

} // namespace

double estimatedLayoutSize(const LayoutInput &input)
{
    return auxiliarySize(input);
}

namespace {

/// The graph's, nodes' and edges' attributes: top to bottom, the input's
/// separations, fixed-size unlabelled boxes (the sizes are ours).
struct DotAttributes {
    Agsym_t *width;
    Agsym_t *height;
};

DotAttributes setAttributes(Agraph_t *graph, const LayoutInput &input)
{
    const std::string nodeSep = inches(input.nodeSeparation);
    const std::string rankSep = inches(input.rankSeparation);
    agattr(graph, AGRAPH, cstr("rankdir"), cstr("TB"));
    agattr(graph, AGRAPH, cstr("nodesep"), cstr(nodeSep.c_str()));
    agattr(graph, AGRAPH, cstr("ranksep"), cstr(rankSep.c_str()));
    agattr(graph, AGRAPH, cstr("splines"), cstr("spline"));
    if (input.nodes.size() > 400) // fewer crossing-minimisation passes on big inputs
        agattr(graph, AGRAPH, cstr("mclimit"), cstr("0.5"));
    if (const std::string limit = networkSimplexLimit(input); !limit.empty())
        agattr(graph, AGRAPH, cstr("nslimit"), cstr(limit.c_str()));
    agattr(graph, AGNODE, cstr("shape"), cstr("box"));
    agattr(graph, AGNODE, cstr("fixedsize"), cstr("true"));
    agattr(graph, AGNODE, cstr("label"), cstr("")); // no text layout: sizes are ours
    agattr(graph, AGNODE, cstr("margin"), cstr("0"));
    DotAttributes sizes{agattr(graph, AGNODE, cstr("width"), cstr("0.75")),
                        agattr(graph, AGNODE, cstr("height"), cstr("0.5"))};
    agattr(graph, AGEDGE, cstr("arrowsize"), cstr("0.7"));
    return sizes;
}

/// The input's nodes and edges in dot, in the input's order.
struct DotItems {
    std::vector<Agnode_t *> nodes;
    std::vector<Agedge_t *> edges;
};

DotItems addItems(Agraph_t *graph, const LayoutInput &input, const DotAttributes &sizes)
{
    DotItems items;
    std::unordered_map<uint64_t, Agnode_t *> byKey;
    byKey.reserve(input.nodes.size());
    items.nodes.reserve(input.nodes.size());
    for (const LayoutNode &n : input.nodes) {
        const std::string name = std::to_string(n.key);
        Agnode_t *node = agnode(graph, cstr(name.c_str()), 1);
        const std::string w = inches(std::max(n.width, 1.0));
        const std::string h = inches(std::max(n.height, 1.0));
        agxset(node, sizes.width, cstr(w.c_str()));
        agxset(node, sizes.height, cstr(h.c_str()));
        byKey.emplace(n.key, node);
        items.nodes.push_back(node);
    }
    items.edges.reserve(input.edges.size());
    for (const LayoutEdge &e : input.edges)
        items.edges.push_back(agedge(graph, byKey.at(e.from), byKey.at(e.to), nullptr, 1));
    return items;
}

/// Where dot put everything, in scene points with y down from the top-left.
LayoutResult placement(Agraph_t *graph, const LayoutInput &input, const DotItems &items)
{
    LayoutResult result;
    const boxf bb = GD_bb(graph);
    auto toPoint = [&bb](pointf p) { return Point{p.x - bb.LL.x, bb.UR.y - p.y}; };
    result.width = bb.UR.x - bb.LL.x;
    result.height = bb.UR.y - bb.LL.y;
    result.nodes.reserve(input.nodes.size());
    std::unordered_map<uint64_t, size_t> placedIndex;
    for (size_t i = 0; i < input.nodes.size(); ++i) {
        Agnode_t *node = items.nodes[i];
        Point centre = toPoint(ND_coord(node));
        result.nodes.push_back(PlacedNode{input.nodes[i].key, centre.x, centre.y, ND_width(node) * kPointsPerInch,
                                          ND_height(node) * kPointsPerInch});
        placedIndex.emplace(input.nodes[i].key, i);
    }
    result.edges.reserve(items.edges.size());
    for (size_t i = 0; i < items.edges.size(); ++i) {
        const LayoutEdge &in = input.edges[i];
        const splines *spl = ED_spl(items.edges[i]);
        if (!spl || spl->size == 0 || spl->list[0].size == 0) {
            result.edges.push_back(
                straightEdge(result.nodes[placedIndex.at(in.from)], result.nodes[placedIndex.at(in.to)]));
            continue;
        }
        RoutedEdge routed{in.from, in.to, {}, std::nullopt};
        for (int b = 0; b < spl->size; ++b) {
            const bezier &bz = spl->list[b];
            for (int p = 0; p < bz.size; ++p) {
                Point pt = toPoint(bz.list[p]);
                if (p == 0 && !routed.spline.empty() && routed.spline.back() == pt)
                    continue;
                routed.spline.push_back(pt);
            }
            if (bz.eflag)
                routed.arrowEnd = toPoint(bz.ep);
        }
        result.edges.push_back(std::move(routed));
    }
    return result;
}

} // namespace

Expected<LayoutResult> layoutWithDot(const LayoutInput &input)
{
    if (auto valid = validate(input); !valid)
        return valid.error();
    if (input.nodes.empty())
        return LayoutResult{};

    std::lock_guard lock(graphvizMutex());
    std::string messages;
    g_messages = &messages;
    agusererrf previousHandler = agseterrf(collectMessage);
    agerrlevel_t previousLevel = agseterr(AGERR);
    struct Restore {
        agusererrf handler;
        agerrlevel_t level;
        ~Restore()
        {
            agseterrf(handler);
            agseterr(level);
            agreseterrors();
            g_messages = nullptr;
        }
    } restore{previousHandler, previousLevel};

    GraphvizSession session;
    if (!session.context())
        return Error{"layout: Graphviz could not create a context"};
    Agraph_t *graph = session.open();
    if (!graph)
        return Error{"layout: Graphviz could not create a graph"};
    const DotItems items = addItems(graph, input, setAttributes(graph, input));
    if (session.layout() != 0) {
        std::string why = trimmed(messages);
        return Error{"layout: Graphviz dot failed on " + std::to_string(input.nodes.size()) + " nodes / "
                     + std::to_string(input.edges.size()) + " edges" + (why.empty() ? std::string() : ": " + why)};
    }
    return placement(graph, input, items);
}

} // namespace fusebox
