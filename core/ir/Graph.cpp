#include "Graph.h"

#include <absl/container/flat_hash_map.h>

#include <algorithm>
#include <cassert>
#include <unordered_set>

namespace fusebox {

std::string_view toString(NodeKind kind)
{
    switch (kind) {
    case NodeKind::Input: return "input";
    case NodeKind::Op: return "op";
    case NodeKind::Constant: return "constant";
    case NodeKind::Output: return "output";
    }
    return "?";
}

const Arg *Node::kwarg(std::string_view name) const
{
    for (const NamedArg &kw : m_kwargs)
        if (kw.name == name)
            return &kw.value;
    return nullptr;
}

std::vector<NodeId> Node::inputNodes() const
{
    std::vector<NodeId> ids;
    auto collect = [&ids](NodeId id) { ids.push_back(id); };
    for (const Arg &a : m_args)
        forEachNodeRef(a, collect);
    for (const NamedArg &kw : m_kwargs)
        forEachNodeRef(kw.value, collect);
    return ids;
}

namespace {

/// "aten::linear" -> "linear"; "prim::If" -> "If"; keeps names identifier-like.
std::string baseNameForOp(std::string_view op)
{
    auto colon = op.rfind("::");
    std::string base(colon == std::string_view::npos ? op : op.substr(colon + 2));
    for (char &c : base)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
            c = '_';
    return base.empty() ? std::string("node") : base;
}

} // namespace

struct Graph::NameIndex {
    absl::flat_hash_map<std::string, NodeId> byName;
    absl::flat_hash_map<std::string, uint32_t> counters;
};

Graph::Graph() = default;
Graph::~Graph() = default;
Graph::Graph(Graph &&) noexcept = default;
Graph &Graph::operator=(Graph &&) noexcept = default;

// Made on first use, so that a moved-from graph is an empty one.
Graph::NameIndex &Graph::names()
{
    if (!m_names)
        m_names = std::make_unique<NameIndex>();
    return *m_names;
}

const Graph::NameIndex &Graph::names() const
{
    static const NameIndex empty;
    return m_names ? *m_names : empty;
}

Graph Graph::clone() const
{
    Graph copy;
    copy.m_metadata = m_metadata;
    copy.m_slots.reserve(m_slots.size());
    for (const Slot &s : m_slots)
        copy.m_slots.push_back(Slot{s.node ? std::make_unique<Node>(*s.node) : nullptr, s.users, s.inputs});
    copy.m_links = m_links;
    for (size_t i = 0; i < m_slots.size(); ++i) {
        copy.m_slots[i].opBucket = m_slots[i].opBucket;
        copy.m_slots[i].opBucketPos = m_slots[i].opBucketPos;
    }
    copy.m_opBuckets = m_opBuckets;
    copy.m_opBucketByName = m_opBucketByName;
    copy.m_names = std::make_unique<NameIndex>(names());
    copy.m_inputs = m_inputs;
    copy.m_output = m_output;
    copy.m_first = m_first;
    copy.m_last = m_last;
    copy.m_liveCount = m_liveCount;
    copy.m_edgeCount = m_edgeCount;
    copy.m_knownSorted = m_knownSorted;
    copy.m_weights = m_weights;
    return copy;
}

Graph::Slot *Graph::slot(NodeId id)
{
    if (!id.isValid() || id.value >= m_slots.size() || !m_slots[id.value].node)
        return nullptr;
    return &m_slots[id.value];
}

const Graph::Slot *Graph::slot(NodeId id) const
{
    return const_cast<Graph *>(this)->slot(id);
}

bool Graph::contains(NodeId id) const
{
    return slot(id) != nullptr;
}

Node *Graph::mutableNode(NodeId id)
{
    Slot *s = slot(id);
    return s ? s->node.get() : nullptr;
}

const Node *Graph::node(NodeId id) const
{
    const Slot *s = slot(id);
    return s ? s->node.get() : nullptr;
}

NodeId Graph::findByName(std::string_view name) const
{
    const auto &byName = names().byName;
    // (Debian's Abseil has its own string_view, not std's.)
    auto it = byName.find(absl::string_view(name.data(), name.size()));
    return it == byName.end() ? NodeId{} : it->second;
}

std::string Graph::uniqueName(std::string_view base) const
{
    const NameIndex &index = names();
    std::string name(base.empty() ? "node" : base);
    if (!index.byName.contains(name))
        return name;
    auto counter = index.counters.find(name);
    uint32_t n = counter == index.counters.end() ? 1 : counter->second;
    std::string candidate;
    do {
        candidate = name + "_" + std::to_string(n++);
    } while (index.byName.contains(candidate));
    return candidate;
}

NodeId Graph::allocate(NodeKind kind, std::string name, NodeId before)
{
    NodeId id{static_cast<uint32_t>(m_slots.size())};
    auto node = std::make_unique<Node>();
    node->m_id = id;
    node->m_kind = kind;
    if (name.empty())
        name = "node";
    NameIndex &index = names();
    // One lookup when the name is free, as importers' names are.
    if (index.byName.try_emplace(name, id).second) {
        node->name = std::move(name);
    } else {
        node->name = uniqueName(name);
        // Remember where numbering of this base stopped so the next unique name is O(1).
        index.counters[name] = std::stoul(node->name.substr(node->name.rfind('_') + 1)) + 1;
        index.byName.emplace(node->name, id);
    }
    m_slots.push_back(Slot{std::move(node), {}, {}});
    m_links.push_back({});
    link(id, before);
    ++m_liveCount;
    return id;
}

void Graph::link(NodeId id, NodeId before)
{
    Link &s = m_links[id.value];
    if (!contains(before)) {
        s.prev = m_last;
        s.next = {};
        if (m_last.isValid())
            m_links[m_last.value].next = id;
        else
            m_first = id;
        m_last = id;
        return;
    }
    Link &b = m_links[before.value];
    s.prev = b.prev;
    s.next = before;
    if (b.prev.isValid())
        m_links[b.prev.value].next = id;
    else
        m_first = id;
    b.prev = id;
}

void Graph::noteLinkedReader(NodeId id)
{
    // Appended, a node comes after everything it reads; placed before
    // another node, perhaps not. (A node that reads nothing cannot break it.)
    if (m_links[id.value].next.isValid() && !m_slots[id.value].inputs.empty())
        m_knownSorted = false;
}

void Graph::unlink(NodeId id)
{
    Link &s = m_links[id.value];
    if (s.prev.isValid())
        m_links[s.prev.value].next = s.next;
    else
        m_first = s.next;
    if (s.next.isValid())
        m_links[s.next.value].prev = s.prev;
    else
        m_last = s.prev;
    s.prev = s.next = {};
}

void Graph::addUses(NodeId user, const Node &node)
{
    m_slots[user.value].inputs = node.inputNodes();
    for (NodeId used : m_slots[user.value].inputs) {
        assert(contains(used) && "argument refers to a node that is not in the graph");
        if (Slot *s = slot(used)) {
            s->users.push_back(user);
            ++m_edgeCount;
        }
    }
}

void Graph::removeUses(NodeId user, const Node &)
{
    std::vector<NodeId> inputs = std::move(m_slots[user.value].inputs);
    m_slots[user.value].inputs.clear();
    for (NodeId used : inputs) {
        Slot *s = slot(used);
        if (!s)
            continue;
        auto it = std::find(s->users.begin(), s->users.end(), user);
        if (it != s->users.end()) {
            s->users.erase(it);
            --m_edgeCount;
        }
    }
}

void Graph::reserve(size_t nodes)
{
    m_slots.reserve(m_slots.size() + nodes);
    m_links.reserve(m_links.size() + nodes);
    names().byName.reserve(names().byName.size() + nodes);
}

NodeId Graph::addInput(std::string name, TensorMeta meta, std::string type)
{
    // Inputs go after the existing inputs so that they stay first in program order.
    NodeId before = m_inputs.empty() ? m_first : next(m_inputs.back());
    NodeId id = allocate(NodeKind::Input, std::move(name), before);
    Node &n = *m_slots[id.value].node;
    n.meta = std::move(meta);
    n.type = std::move(type);
    m_inputs.push_back(id);
    return id;
}

NodeId Graph::addConstant(std::string name, std::string weightKey, TensorMeta meta)
{
    NodeId id = allocate(NodeKind::Constant, std::move(name), m_output);
    Node &n = *m_slots[id.value].node;
    n.weightKey = std::move(weightKey);
    n.meta = std::move(meta);
    return id;
}

NodeId Graph::addOp(std::string op, std::vector<Arg> args, std::vector<NamedArg> kwargs, std::string name, NodeId before)
{
    if (name.empty())
        name = baseNameForOp(op);
    NodeId id = allocate(NodeKind::Op, std::move(name), before.isValid() ? before : m_output);
    Node &n = *m_slots[id.value].node;
    n.op = std::move(op);
    n.m_args = std::move(args);
    n.m_kwargs = std::move(kwargs);
    addUses(id, n);
    noteLinkedReader(id);
    indexOp(id);
    return id;
}

void Graph::indexOp(NodeId id)
{
    Slot &s = m_slots[id.value];
    if (s.node->kind() != NodeKind::Op)
        return;
    auto it = m_opBucketByName.find(std::string_view(s.node->op));
    if (it == m_opBucketByName.end()) {
        it = m_opBucketByName.emplace(s.node->op, static_cast<uint32_t>(m_opBuckets.size())).first;
        m_opBuckets.push_back({s.node->op, {}});
    }
    OpBucket &bucket = m_opBuckets[it->second];
    s.opBucket = it->second;
    s.opBucketPos = static_cast<uint32_t>(bucket.nodes.size());
    bucket.nodes.push_back(id);
}

void Graph::unindexOp(NodeId id)
{
    Slot &s = m_slots[id.value];
    if (s.opBucket == kNoBucket)
        return;
    // Swap-remove keeps removal O(1); buckets are unordered by contract.
    std::vector<NodeId> &nodes = m_opBuckets[s.opBucket].nodes;
    const NodeId moved = nodes.back();
    nodes[s.opBucketPos] = moved;
    m_slots[moved.value].opBucketPos = s.opBucketPos;
    nodes.pop_back();
    s.opBucket = kNoBucket;
    s.opBucketPos = 0;
}

void Graph::setOp(NodeId id, std::string op)
{
    Node *n = mutableNode(id);
    if (!n)
        return;
    n->op = std::move(op);
    refreshOpIndex(id);
}

void Graph::refreshOpIndex(NodeId id)
{
    const Slot *s = slot(id);
    if (!s)
        return;
    if (s->opBucket != kNoBucket && m_opBuckets[s->opBucket].op == s->node->op)
        return;
    unindexOp(id);
    indexOp(id);
}

const std::vector<NodeId> &Graph::nodesWithOp(std::string_view op) const
{
    static const std::vector<NodeId> none;
    auto it = m_opBucketByName.find(op);
    return it == m_opBucketByName.end() ? none : m_opBuckets[it->second].nodes;
}

std::vector<std::string> Graph::opNames() const
{
    std::vector<std::string> names;
    for (const OpBucket &b : m_opBuckets)
        if (!b.nodes.empty())
            names.push_back(b.op);
    return names;
}

NodeId Graph::setOutputs(std::vector<Arg> values)
{
    if (!m_output.isValid()) {
        m_output = allocate(NodeKind::Output, "output", {});
        m_slots[m_output.value].node->type = "";
    }
    setArgs(m_output, {Arg::list(std::move(values))}, {});
    return m_output;
}

void Graph::setArgs(NodeId id, std::vector<Arg> args, std::vector<NamedArg> kwargs)
{
    swapArgs(id, args, kwargs); // the old arguments die with the parameters
}

void Graph::swapArgs(NodeId id, std::vector<Arg> &args, std::vector<NamedArg> &kwargs)
{
    Node *n = mutableNode(id);
    if (!n)
        return;
    removeUses(id, *n);
    m_knownSorted = false; // the new arguments may come later than the node
    n->m_args.swap(args);
    n->m_kwargs.swap(kwargs);
    addUses(id, *n);
}

void Graph::replaceAllUsesWith(NodeId from, NodeId to)
{
    if (from == to || !contains(from) || !contains(to))
        return;
    std::function<void(Arg &)> rewrite = [&](Arg &a) {
        if (auto *ref = std::get_if<NodeId>(&a.value)) {
            if (*ref == from)
                *ref = to;
        } else if (auto *list = std::get_if<ArgList>(&a.value)) {
            for (Arg &item : list->items)
                rewrite(item);
        }
    };
    for (NodeId user : users(from)) {
        Node &u = *mutableNode(user);
        std::vector<Arg> args = u.m_args;
        std::vector<NamedArg> kwargs = u.m_kwargs;
        for (Arg &a : args)
            rewrite(a);
        for (NamedArg &kw : kwargs)
            rewrite(kw.value);
        setArgs(user, std::move(args), std::move(kwargs));
    }
}

bool Graph::erase(NodeId id)
{
    return extract(id) != nullptr;
}

std::unique_ptr<Node> Graph::extract(NodeId id)
{
    Slot *s = slot(id);
    if (!s || !s->users.empty())
        return nullptr;
    removeUses(id, *s->node);
    unlink(id);
    unindexOp(id);
    names().byName.erase(s->node->name);
    if (s->node->kind() == NodeKind::Input)
        m_inputs.erase(std::find(m_inputs.begin(), m_inputs.end(), id));
    if (id == m_output)
        m_output = {};
    s->users.clear();
    --m_liveCount;
    return std::move(s->node);
}

bool Graph::restore(std::unique_ptr<Node> node, NodeId before)
{
    if (!node || !node->m_id.isValid() || contains(node->m_id) || names().byName.contains(node->name))
        return false;
    for (NodeId in : node->inputNodes())
        if (!contains(in))
            return false;
    if (node->kind() == NodeKind::Output && m_output.isValid())
        return false;
    const NodeId id = node->m_id;
    if (id.value >= m_slots.size()) {
        m_slots.resize(id.value + 1);
        m_links.resize(id.value + 1);
    }
    names().byName.emplace(node->name, id);
    if (node->kind() == NodeKind::Input) {
        // Keep inputs in program order among themselves.
        auto pos = std::find_if(m_inputs.begin(), m_inputs.end(), [&](NodeId other) {
            for (NodeId n = before; n.isValid(); n = next(n))
                if (n == other)
                    return true;
            return false;
        });
        m_inputs.insert(pos, id);
    }
    if (node->kind() == NodeKind::Output)
        m_output = id;
    m_slots[id.value].node = std::move(node);
    link(id, before);
    addUses(id, *m_slots[id.value].node);
    noteLinkedReader(id);
    indexOp(id);
    ++m_liveCount;
    return true;
}

void Graph::moveBefore(NodeId id, NodeId before)
{
    if (!contains(id) || id == before)
        return;
    m_knownSorted = false;
    unlink(id);
    link(id, before);
}

bool Graph::reorder(const std::vector<NodeId> &order)
{
    if (order.size() != m_liveCount)
        return false;
    m_knownSorted = false;
    std::vector<char> seen(m_slots.size(), 0);
    for (NodeId id : order) {
        if (!contains(id) || seen[id.value])
            return false;
        seen[id.value] = 1;
    }
    NodeId prevId;
    for (NodeId id : order) {
        m_links[id.value].prev = prevId;
        if (prevId.isValid())
            m_links[prevId.value].next = id;
        prevId = id;
    }
    m_first = order.empty() ? NodeId{} : order.front();
    m_last = prevId;
    if (m_last.isValid())
        m_links[m_last.value].next = {};
    // Inputs keep their relative order as listed (marked from m_inputs, so
    // that no node has to be read).
    std::vector<char> isInput(m_slots.size(), 0);
    for (NodeId id : m_inputs)
        isInput[id.value] = 1;
    std::vector<NodeId> inputs;
    inputs.reserve(m_inputs.size());
    for (NodeId id : order)
        if (isInput[id.value])
            inputs.push_back(id);
    m_inputs = std::move(inputs);
    return true;
}

bool Graph::isTopologicallySorted() const
{
    if (m_knownSorted)
        return true;
    std::vector<char> defined(m_slots.size(), 0);
    for (NodeId id = m_first; id.isValid(); id = m_links[id.value].next) {
        for (NodeId in : m_slots[id.value].inputs)
            if (!defined[in.value] && contains(in))
                return false;
        defined[id.value] = 1;
    }
    m_knownSorted = true;
    return true;
}

std::vector<NodeId> Graph::nodeIds() const
{
    std::vector<NodeId> ids;
    ids.reserve(m_liveCount);
    for (NodeId id = m_first; id.isValid(); id = m_links[id.value].next)
        ids.push_back(id);
    return ids;
}

NodeId Graph::next(NodeId id) const
{
    // A dead id's links are cleared: no need to read its slot.
    return id.isValid() && id.value < m_links.size() ? m_links[id.value].next : NodeId{};
}

NodeId Graph::prev(NodeId id) const
{
    return id.isValid() && id.value < m_links.size() ? m_links[id.value].prev : NodeId{};
}

std::vector<NodeId> Graph::outputValues() const
{
    std::vector<NodeId> values;
    if (const Node *out = node(m_output))
        values = out->inputNodes();
    return values;
}

std::vector<NodeId> Graph::users(NodeId id) const
{
    const Slot *s = slot(id);
    if (!s)
        return {};
    std::vector<NodeId> distinct;
    distinct.reserve(s->users.size());
    for (NodeId u : s->users)
        if (std::find(distinct.begin(), distinct.end(), u) == distinct.end())
            distinct.push_back(u);
    return distinct;
}

size_t Graph::useCount(NodeId id) const
{
    const Slot *s = slot(id);
    return s ? s->users.size() : 0;
}

} // namespace fusebox
