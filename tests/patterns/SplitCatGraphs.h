#pragma once
// Hand-built graphs for the vertical split/cat rules, shared by the pattern
// tests (structure, explanations) and the numeric tests (before/after run
// through libtorch). Graphs have only tensor inputs (no weights), float32
// static shapes, and ATen schema-ordered positional args.

#include "core/ir/GraphBuilder.h"
#include "core/ir/Graph.h"

#include <functional>
#include <string>
#include <vector>

namespace fusebox::test::sc {

using Shape = std::vector<int64_t>;

/// Builds a graph with metadata on every tensor value.
class ShapedGraph {
public:
    ShapedGraph() = default;
    // Not copied or moved: `build` refers to this object's `g`.
    ShapedGraph(const ShapedGraph &) = delete;
    ShapedGraph &operator=(const ShapedGraph &) = delete;

    Graph g;
    /// The one builder of g, for the nodes a test adds by hand between the helpers' own.
    fusebox::GraphBuilder build{g};

    NodeId input(const std::string &name, const Shape &shape) { return build.addInput(name, f32(shape, "cpu")); }

    /// An op producing a float32 tensor of static `shape` (an empty shape is a 0-d tensor).
    NodeId op(const std::string &op, std::vector<Arg> args, const Shape &shape, const std::string &name,
              const std::string &overload = {})
    {
        NodeId id = build.addOp(op, std::move(args), {}, name);
        build.node(id).meta = f32(shape, "cpu");
        build.node(id).overload = overload;
        return id;
    }

    /// An op producing a Tensor[] (no meta).
    NodeId listOp(const std::string &op, std::vector<Arg> args, const std::string &name,
                  const std::string &overload = {})
    {
        NodeId id = build.addOp(op, std::move(args), {}, name);
        build.node(id).type = "Tensor[]";
        build.node(id).overload = overload;
        return id;
    }

    NodeId item(NodeId list, int64_t index, const Shape &shape, const std::string &name)
    {
        return op("getitem", {list, index}, shape, name);
    }

    /// split_with_sizes(x, sections, dim) named `name`, with getitems
    /// `<prefix><i>` for the indices in `used` (all when empty).
    std::vector<NodeId> split(NodeId x, const std::vector<int64_t> &sections, int64_t dim, const std::string &name,
                              const std::string &prefix, std::vector<int64_t> used = {})
    {
        NodeId s = listOp("aten::split_with_sizes", {x, intList(sections), dim}, name);
        if (used.empty())
            for (int64_t i = 0; i < int64_t(sections.size()); ++i)
                used.push_back(i);
        std::vector<NodeId> items;
        for (int64_t i : used) {
            Shape shape = shapeOf(x);
            shape[size_t(dim)] = sections[size_t(i)];
            items.push_back(item(s, i, shape, prefix + std::to_string(i)));
        }
        return items;
    }

    /// unbind.int(x, dim) named `name` with getitems `<prefix><i>` for the indices in `used` (all when empty).
    std::vector<NodeId> unbind(NodeId x, int64_t dim, const std::string &name, const std::string &prefix,
                               std::vector<int64_t> used = {})
    {
        NodeId u = listOp("aten::unbind", {x, dim}, name, "int");
        Shape shape = shapeOf(x);
        const int64_t d = dim < 0 ? dim + int64_t(shape.size()) : dim; // the dim as written may be negative
        const int64_t count = shape[size_t(d)];
        shape.erase(shape.begin() + d);
        if (used.empty())
            for (int64_t i = 0; i < count; ++i)
                used.push_back(i);
        std::vector<NodeId> items;
        for (int64_t i : used)
            items.push_back(item(u, i, shape, prefix + std::to_string(i)));
        return items;
    }

    NodeId cat(const std::vector<NodeId> &tensors, int64_t dim, const Shape &shape, const std::string &name)
    {
        return op("aten::cat", {nodeList(tensors), dim}, shape, name);
    }

    NodeId stack(const std::vector<NodeId> &tensors, int64_t dim, const Shape &shape, const std::string &name)
    {
        return op("aten::stack", {nodeList(tensors), dim}, shape, name);
    }

    NodeId relu(NodeId x, const std::string &name) { return op("aten::relu", {x}, shapeOf(x), name); }

    Shape shapeOf(NodeId id) const
    {
        Shape s;
        for (const Dim &d : *g.node(id)->meta.shape)
            s.push_back(std::get<int64_t>(d));
        return s;
    }

    Graph finish(const std::vector<NodeId> &outputs)
    {
        std::vector<Arg> values;
        for (NodeId id : outputs)
            values.emplace_back(id);
        build.setOutputs(std::move(values));
        return std::move(g);
    }
};

/// Range helper: {first, ..., last}.
inline std::vector<int64_t> span(int64_t first, int64_t last)
{
    std::vector<int64_t> v;
    for (int64_t i = first; i <= last; ++i)
        v.push_back(i);
    return v;
}

// --- the firing graphs, one or more per rule ------------------------------------

/// normalization_pass: x[8,64] -> split.Tensor(x, 16, -1) -> 4 getitems -> cat(., -1).
inline Graph normalizationGraph()
{
    ShapedGraph b;
    NodeId x = b.input("x", {8, 64});
    NodeId s = b.listOp("aten::split", {x, int64_t(16), int64_t(-1)}, "split", "Tensor");
    std::vector<NodeId> items;
    for (int64_t i = 0; i < 4; ++i)
        items.push_back(b.item(s, i, {8, 16}, "g" + std::to_string(i)));
    NodeId cat = b.cat({items[3], items[0]}, -1, {8, 32}, "cat");
    NodeId u = b.listOp("aten::unbind", {x, int64_t(-2)}, "unbind", "int");
    NodeId u0 = b.item(u, 0, {64}, "u0");
    NodeId st = b.stack({u0, u0}, -1, {64, 2}, "stack");
    NodeId sq = b.op("aten::squeeze", {st, int64_t(-1)}, {64, 2}, "squeeze", "dim");
    return b.finish({cat, items[1], sq});
}

/// remove_split_with_size_one_pass: x[8,16] -> split(x, [16], 1) -> g0 -> relu.
inline Graph removeSplitWithSizeOneGraph()
{
    ShapedGraph b;
    NodeId x = b.input("x", {8, 16});
    auto g = b.split(x, {16}, 1, "split", "g");
    return b.finish({b.relu(g[0], "relu"), g[0]});
}

/// merge_getitem_cat_pass: split(x, [8, 16, 16, 24], 1); cat([g1, g2], 1) -> relu; g0, g3 out.
inline Graph mergeGetItemCatGraph()
{
    ShapedGraph b;
    NodeId x = b.input("x", {8, 64});
    auto g = b.split(x, {8, 16, 16, 24}, 1, "split", "g");
    NodeId cat = b.cat({g[1], g[2]}, 1, {8, 32}, "cat");
    return b.finish({g[0], b.relu(cat, "relu"), g[3]});
}

/// merge_stack_tahn_unbind_pass: split(x, [16]*4, 1); stack([g1, g2], 0) -> tanh -> unbind(0).
inline Graph mergeStackTanhUnbindGraph()
{
    ShapedGraph b;
    NodeId x = b.input("x", {8, 64});
    auto g = b.split(x, {16, 16, 16, 16}, 1, "split", "g");
    NodeId st = b.stack({g[1], g[2]}, 0, {2, 8, 16}, "stack");
    NodeId t = b.op("aten::tanh", {st}, {2, 8, 16}, "tanh");
    auto u = b.unbind(t, 0, "unbind", "u");
    return b.finish({g[0], b.relu(u[0], "relu0"), u[1], g[3]});
}

/// merge_splits_pass: split(x, [16, 32, 16], 1) -> g1 -> split(g1, [8, 24], 1).
inline Graph mergeSplitsGraph()
{
    ShapedGraph b;
    NodeId x = b.input("x", {8, 64});
    auto g = b.split(x, {16, 32, 16}, 1, "split", "g");
    auto h = b.split(g[1], {8, 24}, 1, "split2", "h");
    return b.finish({g[0], h[0], b.relu(h[1], "relu"), g[2]});
}

/// mutate_cat_pass: cat of all four getitems (g0 also read by relu) and cat of g1, g2.
inline Graph mutateCatGraph()
{
    ShapedGraph b;
    NodeId x = b.input("x", {8, 64});
    auto g = b.split(x, {16, 16, 16, 16}, 1, "split", "g");
    NodeId all = b.cat(g, 1, {8, 64}, "cat_all");
    NodeId mid = b.cat({g[1], g[2]}, 1, {8, 32}, "cat_mid");
    return b.finish({all, mid, b.relu(g[0], "relu")});
}

/// split_cat_pass, same dim: cat([g1, g2], 1) with g0 and g3 read by relus.
inline Graph splitCatSameDimGraph()
{
    ShapedGraph b;
    NodeId x = b.input("x", {8, 64});
    auto g = b.split(x, {16, 16, 16, 16}, 1, "split", "g");
    NodeId cat = b.cat({g[1], g[2]}, 1, {8, 32}, "cat");
    return b.finish({b.relu(g[0], "relu0"), cat, b.relu(g[3], "relu3")});
}

/// split_cat_pass, other dims: stack(all, 0) and cat([g0..g3, y], 0) of split(x, [16]*4, 1).
inline Graph splitCatOtherDimGraph()
{
    ShapedGraph b;
    NodeId x = b.input("x", {8, 64});
    NodeId y = b.input("y", {8, 16});
    auto g = b.split(x, {16, 16, 16, 16}, 1, "split", "g");
    NodeId st = b.stack(g, 0, {4, 8, 16}, "stack");
    NodeId cat = b.cat({g[0], g[1], g[2], g[3], y}, 0, {40, 16}, "cat");
    return b.finish({st, cat});
}

/// split_cat_pass, merge_split_squeeze: split(x, [1]*4, 1) -> squeeze.dim(g, 1).
inline Graph splitSqueezeGraph()
{
    ShapedGraph b;
    NodeId x = b.input("x", {8, 4});
    auto g = b.split(x, {1, 1, 1, 1}, 1, "split", "g");
    std::vector<NodeId> out;
    for (int i = 0; i < 4; ++i)
        out.push_back(b.op("aten::squeeze", {g[size_t(i)], int64_t(1)}, {8}, "sq" + std::to_string(i), "dim"));
    return b.finish(out);
}

/// unbind_stack_pass: unbind(x[4,8,16], 0) -> stack(all, 1) and cat([y, all], 1).
inline Graph unbindStackGraph()
{
    ShapedGraph b;
    NodeId x = b.input("x", {4, 8, 16});
    NodeId y = b.input("y", {8, 5});
    auto u = b.unbind(x, 0, "unbind", "u");
    NodeId st = b.stack(u, 1, {8, 4, 16}, "stack");
    NodeId cat = b.cat({y, u[0], u[1], u[2], u[3]}, 1, {8, 69}, "cat");
    return b.finish({st, cat});
}

/// split_cat_to_slices_pass: cat([y, g0..g10, z0, z1, z2], 1); g11 read by relu.
inline Graph splitCatToSlicesGraph()
{
    ShapedGraph b;
    NodeId x = b.input("x", {4, 24});
    NodeId y = b.input("y", {4, 3});
    NodeId z = b.input("z", {4, 6});
    auto g = b.split(x, std::vector<int64_t>(12, 2), 1, "split", "g");
    auto zs = b.split(z, {2, 2, 2}, 1, "split_z", "z");
    std::vector<NodeId> inputs{y};
    inputs.insert(inputs.end(), g.begin(), g.begin() + 11);
    inputs.insert(inputs.end(), zs.begin(), zs.end());
    NodeId cat = b.cat(inputs, 1, {4, 31}, "cat");
    return b.finish({cat, b.relu(g[11], "relu")});
}

/// unbind_cat_to_view_pass: cat([y, u0..u10], 1) of unbind(x[12,4,3], 0), cat(all of unbind(w[3,4,3], 0), 1).
inline Graph unbindCatToViewGraph()
{
    ShapedGraph b;
    NodeId x = b.input("x", {12, 4, 3});
    NodeId y = b.input("y", {4, 2});
    NodeId w = b.input("w", {3, 4, 3});
    auto u = b.unbind(x, 0, "unbind", "u");
    auto v = b.unbind(w, 0, "unbind_w", "v");
    std::vector<NodeId> inputs{y};
    inputs.insert(inputs.end(), u.begin(), u.begin() + 11);
    NodeId cat = b.cat(inputs, 1, {4, 35}, "cat");
    NodeId cat2 = b.cat(v, 1, {4, 9}, "cat_w");
    return b.finish({cat, cat2, b.relu(u[11], "relu")});
}

/// split_stack_to_cats_pass: stack([y, g0..g11], 0) of split(x[4,24], [2]*12, 1); stack(h, 1) of split(z[4,6]).
inline Graph splitStackToCatsGraph()
{
    ShapedGraph b;
    NodeId x = b.input("x", {4, 24});
    NodeId y = b.input("y", {4, 2});
    NodeId z = b.input("z", {4, 6});
    auto g = b.split(x, std::vector<int64_t>(12, 2), 1, "split", "g");
    auto h = b.split(z, {2, 2, 2}, 1, "split_z", "h");
    std::vector<NodeId> inputs{y};
    inputs.insert(inputs.end(), g.begin(), g.end());
    NodeId st = b.stack(inputs, 0, {13, 4, 2}, "stack");
    NodeId st2 = b.stack(h, 1, {4, 3, 2}, "stack_z");
    return b.finish({st, st2});
}

/// unbind_stack_to_slices_pass: stack([y, u0..u10], 1) of unbind(x[12,4,3], 0).
inline Graph unbindStackToSlicesGraph()
{
    ShapedGraph b;
    NodeId x = b.input("x", {12, 4, 3});
    NodeId y = b.input("y", {4, 3});
    auto u = b.unbind(x, 0, "unbind", "u");
    std::vector<NodeId> inputs{y};
    inputs.insert(inputs.end(), u.begin(), u.begin() + 11);
    NodeId st = b.stack(inputs, 1, {4, 12, 3}, "stack");
    return b.finish({st, b.relu(u[11], "relu")});
}

/// move_reshape_out_of_split_stack_pass: reshape(g_i, [4, 2, 3]) -> stack(., 0) of split(x[4,72], [6]*12, 1).
inline Graph moveReshapeGraph(int64_t stackDim = 0)
{
    ShapedGraph b;
    NodeId x = b.input("x", {4, 72});
    auto g = b.split(x, std::vector<int64_t>(12, 6), 1, "split", "g");
    std::vector<NodeId> reshaped;
    for (size_t i = 0; i < g.size(); ++i)
        reshaped.push_back(b.op("aten::reshape", {g[i], intList({4, 2, 3})}, {4, 2, 3}, "r" + std::to_string(i)));
    Shape out{4, 2, 3};
    out.insert(out.begin() + stackDim, 12);
    NodeId st = b.stack(reshaped, stackDim, out, "stack");
    return b.finish({st});
}

/// sink_cat_after_pointwise: relu(view(cat([a, b], 1), [8, 4])).
inline Graph sinkCatGraph()
{
    ShapedGraph b;
    NodeId a = b.input("a", {4, 3});
    NodeId c = b.input("b", {4, 5});
    NodeId cat = b.cat({a, c}, 1, {4, 8}, "cat");
    NodeId v = b.op("aten::view", {cat, intList({8, 4})}, {8, 4}, "view");
    NodeId r = b.relu(v, "relu");
    return b.finish({b.op("aten::neg", {r}, {8, 4}, "neg")});
}

/// permute_linear_fusion: linear(permute(x[2,8,4], [0,2,1]), w[16,8], b[16]).
inline Graph permuteLinearGraph()
{
    ShapedGraph b;
    NodeId x = b.input("x", {2, 8, 4});
    NodeId w = b.input("w", {16, 8});
    NodeId bias = b.input("bias", {16});
    NodeId p = b.op("aten::permute", {x, intList({0, 2, 1})}, {2, 4, 8}, "permute");
    return b.finish({b.op("aten::linear", {p, w, bias}, {2, 4, 16}, "linear")});
}

/// permute_matmul_fusion: matmul(permute(a[2,8,4], [0,2,1]), c[2,8,5]) and bmm(c^T.., permute(d)).
inline Graph permuteMatmulGraph()
{
    ShapedGraph b;
    NodeId a = b.input("a", {2, 8, 4});
    NodeId c = b.input("c", {2, 8, 5});
    NodeId d = b.input("d", {2, 3, 5});
    NodeId p = b.op("aten::permute", {a, intList({0, 2, 1})}, {2, 4, 8}, "permute");
    NodeId mm = b.op("aten::matmul", {p, c}, {2, 4, 5}, "matmul");
    NodeId q = b.op("aten::permute", {d, intList({0, -1, -2})}, {2, 5, 3}, "permute_d");
    NodeId bmm = b.op("aten::bmm", {mm, q}, {2, 4, 3}, "bmm");
    return b.finish({bmm});
}

/// linear_permute_fusion: permute(linear(x[2,4,8], w[16,8], b[16]), [0,2,1]).
inline Graph linearPermuteGraph()
{
    ShapedGraph b;
    NodeId x = b.input("x", {2, 4, 8});
    NodeId w = b.input("w", {16, 8});
    NodeId bias = b.input("bias", {16});
    NodeId lin = b.op("aten::linear", {x, w, bias}, {2, 4, 16}, "linear");
    return b.finish({b.op("aten::permute", {lin, intList({0, 2, 1})}, {2, 16, 4}, "permute")});
}

/// unbind_stack_aten_pass: cat(unsqueeze(select(p[3,4], 0, i), 0) for i in 0..2, 0) -> relu.
inline Graph unbindStackAtenGraph()
{
    ShapedGraph b;
    NodeId p = b.input("p", {3, 4});
    NodeId q = b.relu(p, "q");
    std::vector<NodeId> parts;
    for (int64_t i = 0; i < 3; ++i) {
        NodeId s = b.op("aten::select", {q, int64_t(0), i}, {4}, "select" + std::to_string(i), "int");
        parts.push_back(b.op("aten::unsqueeze", {s, int64_t(0)}, {1, 4}, "unsqueeze" + std::to_string(i)));
    }
    return b.finish({b.relu(b.cat(parts, 0, {3, 4}, "cat"), "relu")});
}

/// Rules whose dims are far apart (where swapping two dims differs from movedim).
/// unbind_cat_to_view_pass: cat(unbind(x[4,3,5], 2), 0).
inline Graph unbindCatFarDimsGraph()
{
    ShapedGraph b;
    auto u = b.unbind(b.input("x", {4, 3, 5}), 2, "unbind", "u");
    return b.finish({b.cat(u, 0, {20, 3}, "cat")});
}

/// split_stack_to_cats_pass: stack(split(x[6,4,3], [2, 2, 2], 0), 3).
inline Graph splitStackFarDimsGraph()
{
    ShapedGraph b;
    auto g = b.split(b.input("x", {6, 4, 3}), {2, 2, 2}, 0, "split", "g");
    return b.finish({b.stack(g, 3, {2, 4, 3, 3}, "stack")});
}

/// unbind_stack_to_slices_pass: stack([u0..u10, y], 2) of unbind(x[12,4,3], 0).
inline Graph unbindStackFarDimsGraph()
{
    ShapedGraph b;
    NodeId x = b.input("x", {12, 4, 3});
    NodeId y = b.input("y", {4, 3});
    auto u = b.unbind(x, 0, "unbind", "u");
    std::vector<NodeId> inputs(u.begin(), u.begin() + 11);
    inputs.push_back(y);
    return b.finish({b.stack(inputs, 2, {4, 3, 12}, "stack"), u[11]});
}

/// split_cat_pass: cat(split(x[64,8], [16]*4, 0), 1), the cat dim after the split dim.
inline Graph splitCatLaterDimGraph()
{
    ShapedGraph b;
    auto g = b.split(b.input("x", {64, 8}), {16, 16, 16, 16}, 0, "split", "g");
    return b.finish({b.cat(g, 1, {16, 32}, "cat")});
}

/// One firing graph of one rule (numeric tests run each before/after).
struct FiringCase {
    std::string rule;
    std::string label;
    std::function<Graph()> build;
};

inline std::vector<FiringCase> firingCases()
{
    return {
        {"normalization_pass", "split/cat/unbind/stack/squeeze", normalizationGraph},
        {"remove_split_with_size_one_pass", "one section", removeSplitWithSizeOneGraph},
        {"merge_getitem_cat_pass", "sections 1..2", mergeGetItemCatGraph},
        {"merge_stack_tahn_unbind_pass", "sections 1..2", mergeStackTanhUnbindGraph},
        {"merge_splits_pass", "split of section 1", mergeSplitsGraph},
        {"mutate_cat_pass", "all and 1..2", mutateCatGraph},
        {"split_cat_pass", "same dim", splitCatSameDimGraph},
        {"split_cat_pass", "other dims", splitCatOtherDimGraph},
        {"split_cat_pass", "squeeze", splitSqueezeGraph},
        {"split_cat_pass", "cat dim after split dim", splitCatLaterDimGraph},
        {"unbind_stack_pass", "stack and cat", unbindStackGraph},
        {"split_cat_to_slices_pass", "slice and whole", splitCatToSlicesGraph},
        {"unbind_cat_to_view_pass", "slice and whole", unbindCatToViewGraph},
        {"unbind_cat_to_view_pass", "unbind dim 2, cat dim 0", unbindCatFarDimsGraph},
        {"split_stack_to_cats_pass", "mixed and whole", splitStackToCatsGraph},
        {"split_stack_to_cats_pass", "split dim 0, stack dim 3", splitStackFarDimsGraph},
        {"unbind_stack_to_slices_pass", "slice", unbindStackToSlicesGraph},
        {"unbind_stack_to_slices_pass", "unbind dim 0, stack dim 2", unbindStackFarDimsGraph},
        {"move_reshape_out_of_split_stack_pass", "stack dim 0", [] { return moveReshapeGraph(0); }},
        {"move_reshape_out_of_split_stack_pass", "stack dim 1", [] { return moveReshapeGraph(1); }},
        {"move_reshape_out_of_split_stack_pass", "stack dim 3", [] { return moveReshapeGraph(3); }},
        {"sink_cat_after_pointwise", "view then relu", sinkCatGraph},
        {"permute_linear_fusion", "with bias", permuteLinearGraph},
        {"permute_matmul_fusion", "matmul and bmm", permuteMatmulGraph},
        {"linear_permute_fusion", "with bias", linearPermuteGraph},
        {"unbind_stack_aten_pass", "three selects", unbindStackAtenGraph},
    };
}

} // namespace fusebox::test::sc
