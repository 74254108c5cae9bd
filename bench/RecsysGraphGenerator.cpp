#include "RecsysGraphGenerator.h"

#include "core/ir/GraphBuilder.h"

#include <random>
#include <string>
#include <vector>

namespace fusebox::bench {

namespace {

class Builder {
public:
    explicit Builder(Graph &graph)
        : g(graph)
    {}
    GraphBuilder g;
    std::string scope;

    NodeId input(const std::string &name, std::vector<int64_t> shape)
    {
        NodeId id = g.addInput(name, f32(std::move(shape), "cpu"));
        g.node(id).provenance.scope = scope;
        return id;
    }
    /// A constant with meta only (no payload in the weight store).
    NodeId constant(const std::string &name, std::vector<int64_t> shape)
    {
        NodeId id = g.addConstant(name, name, f32(std::move(shape), "cpu"));
        g.node(id).provenance.scope = scope;
        return id;
    }
    NodeId op(const std::string &opName, std::vector<Arg> args, std::vector<int64_t> shape,
              const std::string &overload = {})
    {
        NodeId id = g.addOp(opName, std::move(args));
        Node *n = &g.node(id);
        n->overload = overload;
        n->meta = f32(std::move(shape), "cpu");
        n->provenance.scope = scope;
        return id;
    }
    NodeId listOp(const std::string &opName, std::vector<Arg> args, const std::string &overload = {})
    {
        NodeId id = g.addOp(opName, std::move(args));
        Node *n = &g.node(id);
        n->overload = overload;
        n->type = "Tensor[]";
        n->provenance.scope = scope;
        return id;
    }
    NodeId item(NodeId list, int64_t index, std::vector<int64_t> shape)
    {
        return op("getitem", {list, index}, std::move(shape));
    }
    NodeId linear(NodeId x, int64_t in, int64_t out, int64_t batch, const std::string &prefix)
    {
        NodeId w = constant(prefix + "_weight", {out, in});
        NodeId b = constant(prefix + "_bias", {out});
        return op("aten::linear", {x, w, b}, {batch, out});
    }
};

} // namespace

Graph generateRecsysGraph(const RecsysGraphOptions &options)
{
    Graph graph;
    Builder bld(graph);
    std::mt19937_64 rng(options.seed);
    // Raw engine output only (distributions are not portable across libraries).
    auto pick = [&](uint64_t n) { return static_cast<int64_t>(rng() % n); };
    const int64_t B = options.batch;
    static const char *kActs[] = {"aten::relu", "aten::tanh", "aten::sigmoid"};

    std::vector<NodeId> groupOutputs;
    std::vector<NodeId> towerOutputs;
    std::vector<int64_t> towerWidths;
    int tower = 0, group = 0;

    auto closeGroup = [&] {
        if (towerOutputs.empty())
            return;
        bld.scope = "group" + std::to_string(group);
        int64_t width = 0;
        for (int64_t w : towerWidths)
            width += w;
        NodeId joined = bld.op("aten::cat", {nodeList(towerOutputs), int64_t(1)}, {B, width});
        NodeId out = bld.linear(joined, width, 64, B, "group" + std::to_string(group) + "_proj");
        groupOutputs.push_back(out);
        towerOutputs.clear();
        towerWidths.clear();
        ++group;
    };

    // Leaves room for the last tower, the group join and the output node.
    while (graph.size() + 1 < options.targetNodes) {
        const std::string tname = "tower" + std::to_string(tower);
        bld.scope = tname;
        const int64_t k = 4 + pick(5);        // 4..8 branches
        const int64_t d = 8 * (1 + pick(4));  // chunk width 8..32
        const int64_t h = 16 * (1 + pick(3)); // hidden width 16..48
        NodeId x = bld.input(tname + "_x", {B, k * d});

        std::vector<NodeId> chunks;
        if (tower % 2 == 0) {
            NodeId s = bld.listOp("aten::split_with_sizes",
                                  {x, intList(std::vector<int64_t>(size_t(k), d)), int64_t(1)});
            for (int64_t j = 0; j < k; ++j)
                chunks.push_back(bld.item(s, j, {B, d}));
        } else {
            NodeId s = bld.listOp("aten::split", {x, d, int64_t(1)}, "Tensor");
            for (int64_t j = 0; j < k; ++j)
                chunks.push_back(bld.item(s, j, {B, d}));
        }

        std::vector<NodeId> branches;
        for (int64_t j = 0; j < k; ++j) {
            const std::string bname = tname + "_branch" + std::to_string(j);
            bld.scope = tname + ".branch" + std::to_string(j);
            NodeId lin = bld.linear(chunks[size_t(j)], d, h, B, bname);
            NodeId act = bld.op(kActs[(tower + j) % 3], {lin}, {B, h});
            NodeId g = bld.constant(bname + "_ln_weight", {h});
            NodeId beta = bld.constant(bname + "_ln_bias", {h});
            NodeId ln = bld.op("aten::layer_norm", {act, intList({h}), g, beta, 1e-5, true}, {B, h});
            branches.push_back(ln);
        }
        bld.scope = tname;
        if (tower % 4 == 3) {
            // stack -> tanh -> unbind -> getitems, as merge_stack_tanh_unbind sees them.
            NodeId st = bld.op("aten::stack", {nodeList(branches), int64_t(0)}, {k, B, h});
            NodeId th = bld.op("aten::tanh", {st}, {k, B, h});
            NodeId ub = bld.listOp("aten::unbind", {th, int64_t(0)}, "int");
            std::vector<NodeId> items;
            for (int64_t j = 0; j < k; ++j)
                items.push_back(bld.item(ub, j, {B, h}));
            branches = std::move(items);
        }
        NodeId cat = bld.op("aten::cat", {nodeList(branches), int64_t(1)}, {B, k * h});
        const int64_t o = 32;
        NodeId head = bld.linear(cat, k * h, o, B, tname + "_head");
        NodeId headAct = bld.op("aten::relu", {head}, {B, o});
        towerOutputs.push_back(headAct);
        towerWidths.push_back(o);
        ++tower;
        if (int(towerOutputs.size()) == options.towersPerGroup)
            closeGroup();
    }
    closeGroup();
    std::vector<Arg> outs;
    for (NodeId id : groupOutputs)
        outs.emplace_back(id);
    bld.g.setOutputs(std::move(outs));
    bld.g.metadata()["source.format"] = "fusebox.bench.recsys";
    return graph;
}

} // namespace fusebox::bench
