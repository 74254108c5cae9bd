#include "GraphSignature.h"

#include <algorithm>
#include <functional>
#include <unordered_map>

namespace fusebox {

namespace {

uint64_t mix(uint64_t h, uint64_t v)
{
    // boost::hash_combine's constant, widened: order-sensitive and cheap.
    return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}

uint64_t hashText(std::string_view s)
{
    return std::hash<std::string_view>{}(s);
}

uint64_t hashArg(const Arg &a, const std::vector<uint64_t> &sig)
{
    if (const auto *id = std::get_if<NodeId>(&a.value))
        return mix(1, id->value < sig.size() ? sig[id->value] : 0);
    if (const auto *list = std::get_if<ArgList>(&a.value)) {
        uint64_t h = mix(2, list->items.size());
        for (const Arg &item : list->items)
            h = mix(h, hashArg(item, sig));
        return h;
    }
    return mix(3, hashText(a.toString()));
}

std::string describe(const Graph &g, NodeId id)
{
    const Node *n = g.node(id);
    std::string what = n->isOp() ? n->qualifiedOp() : std::string(toString(n->kind()));
    std::string meta = n->meta.toString();
    return what + " %" + n->name + (meta.empty() ? "" : " (" + meta + ")");
}

} // namespace

std::vector<uint64_t> structuralSignatures(const Graph &graph)
{
    std::vector<uint64_t> sig(graph.idBound(), 0);
    std::unordered_map<uint32_t, size_t> inputIndex;
    for (size_t i = 0; i < graph.inputs().size(); ++i)
        inputIndex[graph.inputs()[i].value] = i;
    for (NodeId id = graph.first(); id.isValid(); id = graph.next(id)) {
        const Node *n = graph.node(id);
        uint64_t h = mix(static_cast<uint64_t>(n->kind()) + 17, hashText(n->meta.toString()));
        switch (n->kind()) {
        case NodeKind::Input: h = mix(h, inputIndex[id.value]); break;
        case NodeKind::Constant: break;
        case NodeKind::Op:
        case NodeKind::Output: {
            h = mix(h, hashText(n->qualifiedOp()));
            for (const Arg &a : n->args())
                h = mix(h, hashArg(a, sig));
            // Keyword order is the writer's choice, not structure.
            std::vector<uint64_t> kw;
            for (const NamedArg &k : n->kwargs())
                kw.push_back(mix(hashText(k.name), hashArg(k.value, sig)));
            std::sort(kw.begin(), kw.end());
            for (uint64_t k : kw)
                h = mix(h, k);
            break;
        }
        }
        sig[id.value] = h;
    }
    return sig;
}

std::optional<StructuralDifference> firstStructuralDifference(const Graph &a, const Graph &b)
{
    const std::vector<uint64_t> sa = structuralSignatures(a), sb = structuralSignatures(b);
    std::unordered_map<uint64_t, int64_t> balance;
    for (NodeId id = a.first(); id.isValid(); id = a.next(id))
        ++balance[sa[id.value]];
    for (NodeId id = b.first(); id.isValid(); id = b.next(id))
        --balance[sb[id.value]];
    StructuralDifference d;
    // Walk each graph and take the nodes its count exceeds the other's by.
    std::unordered_map<uint64_t, int64_t> extraA, extraB;
    for (const auto &[h, n] : balance) {
        if (n > 0)
            extraA[h] = n;
        else if (n < 0)
            extraB[h] = -n;
    }
    for (NodeId id = a.first(); id.isValid(); id = a.next(id))
        if (auto it = extraA.find(sa[id.value]); it != extraA.end() && it->second > 0) {
            --it->second;
            d.onlyInA.push_back(id);
        }
    for (NodeId id = b.first(); id.isValid(); id = b.next(id))
        if (auto it = extraB.find(sb[id.value]); it != extraB.end() && it->second > 0) {
            --it->second;
            d.onlyInB.push_back(id);
        }
    if (d.onlyInA.empty() && d.onlyInB.empty())
        return std::nullopt;
    // Ops first: an output or a consumer differs whenever what it reads does.
    auto firstOf = [](const Graph &g, const std::vector<NodeId> &ids) {
        for (NodeId id : ids)
            if (g.node(id)->kind() != NodeKind::Output)
                return id;
        return ids.front();
    };
    if (!d.onlyInA.empty())
        d.description = describe(a, firstOf(a, d.onlyInA)) + " is in the first graph only";
    else
        d.description = describe(b, firstOf(b, d.onlyInB)) + " is in the second graph only";
    if (!d.onlyInA.empty() && !d.onlyInB.empty())
        d.description += "; the second has " + describe(b, firstOf(b, d.onlyInB)) + " instead";
    return d;
}

NamedDifference namedDifference(const Graph &a, const Graph &b)
{
    NamedDifference difference;
    for (NodeId id : a.nodeIds())
        if (!b.findByName(a.node(id)->name).isValid())
            difference.onlyInA.push_back(id);
    for (NodeId id : b.nodeIds())
        if (!a.findByName(b.node(id)->name).isValid())
            difference.onlyInB.push_back(id);
    return difference;
}

} // namespace fusebox
