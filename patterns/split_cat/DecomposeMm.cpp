// decompose_mm_pass (post-grad; decompose_mem_bound_mm.py decompose_mm,
// decompose_addmm, decompose_bmm): a memory-bound matrix product becomes a
// broadcast multiply and a sum, which Inductor can fuse with its neighbours:
//   mm(a, b)         -> sum(a.unsqueeze(2) * b.unsqueeze(0), [-2])
//   addmm(c, a, b)   -> sum(a.unsqueeze(2) * b.unsqueeze(0), [-2]) + c
//   bmm(a, b)        -> sum(a.unsqueeze(3) * b.unsqueeze(1), [-2])
// (replace_by_example traces the replacement to exactly these ATen calls; the
// .to(dtype) of the source is a no-op there and leaves no node.)
//
// Which products count as memory-bound is a per-device size test, read from
// the operands' recorded shapes and device:
// - CUDA/XPU mm: a has at least min_first_dimension_decomposition (10240) rows
//   and both of b's dims are under max_other_dimension_decomposition (32);
//   bmm: a batch of at least the former and two of its three other dims under
//   the latter. (2.6 has no XPU branch and spells the option
//   max_other_dimention_decomposition.)
// - CPU, Inductor 2.6: mm when a has 1 row and b is at most [64, 16]; bmm
//   when both batches are 1. Inductor 2.14: mm when a has at most
//   cpu_max_first_dimension_decomposition (1) rows and b's dims are at most
//   cpu_max_other_dimension_decomposition (2048); bmm when both batches are
//   at most the former.
//
// Every mm, addmm and bmm the pass visits is a one-node pattern_matcher
// match, whether it is decomposed or not (the pattern has no extra check).
// Inductor reads the thresholds when the module is first imported; Fusebox
// applies the config's. 2.6 registers the pass only where PyTorch has
// MKL-DNN (both reference roots have it).

#include "patterns/InductorProfile.h"
#include "NodeBuilder.h"
#include "SplitCatPatterns.h"
#include "SplitCatUtils.h"

namespace fusebox::splitcat {
namespace {

enum class Product { Mm, Addmm, Bmm };

struct DecomposeMmPlan {
    std::vector<NodeId> nodes; // the product
    Product kind = Product::Mm;
    NodeId a, b, bias;
};

std::string_view counterOf(Product p)
{
    switch (p) {
    case Product::Mm: return "decompose_mm";
    case Product::Addmm: return "decompose_addmm";
    case Product::Bmm: break;
    }
    return "decompose_bmm";
}

std::string deviceType(const std::string &device)
{
    return device.substr(0, device.find(':'));
}

class DecomposeMm final : public PlannedPattern<DecomposeMmPlan> {
public:
    DecomposeMm()
        : PlannedPattern("decompose_mm_pass", PassStage::PostGrad, 46, {"aten::mm", "aten::addmm", "aten::bmm"},
                         "Decomposes a memory-bound mm, addmm or bmm (by the device's size thresholds) into a "
                         "broadcast multiply and a sum over the shared dim.")
    {
        options().set("min_first_dimension_decomposition", int64_t(10240));
        options().set("max_other_dimension_decomposition", int64_t(32));
        options().set("cpu_max_first_dimension_decomposition", int64_t(1));
        options().set("cpu_max_other_dimension_decomposition", int64_t(2048));
    }

protected:
    std::optional<DecomposeMmPlan> analyze(const Graph &graph, NodeId anchor, MatchTrace &trace) const override
    {
        const Node &n = *graph.node(anchor);
        if (!require(trace, isPostGradAtenCall(graph, n), "the call is an ATen op of a post-grad graph",
                     [&] { return nodeRef(graph, anchor) + " is not one, and no post-grad pass sees it"; }, {anchor}))
            return std::nullopt;
        DecomposeMmPlan plan;
        plan.nodes = {anchor};
        plan.kind = isOp(n, "aten::addmm") ? Product::Addmm : isOp(n, "aten::bmm") ? Product::Bmm : Product::Mm;
        // mm(self, mat2), bmm(self, mat2), addmm(self, mat1, mat2): self is addmm's bias.
        if (plan.kind == Product::Addmm) {
            plan.bias = nodeArgAt(n, 0, "self");
            plan.a = nodeArgAt(n, 1, "mat1");
        } else {
            plan.a = nodeArgAt(n, 0, "self");
        }
        plan.b = nodeArgAt(n, plan.kind == Product::Addmm ? 2 : 1, "mat2");
        const Node *a = graph.node(plan.a), *b = graph.node(plan.b);
        // should_decompose_*: both operands have metadata (meta["val"]).
        if (!require(trace, a && b && !a->inductorMeta.missing && !b->inductorMeta.missing,
                     "both operands have recorded metadata (meta[\"val\"])",
                     [&] { return nodeRef(graph, anchor) + " reads an operand without it"; }, {anchor}))
            return std::nullopt;
        auto as = staticShape(*a), bs = staticShape(*b);
        if (!require(trace, as && bs, "both operands' shapes are known and static",
                     [&] {
                         return nodeRef(graph, !as ? plan.a : plan.b) + " has shape " + (!as ? a : b)->meta.toString();
                     },
                     {anchor}))
            return std::nullopt;
        const size_t rank = plan.kind == Product::Bmm ? 3 : 2;
        if (!require(trace, as->size() == rank && bs->size() == rank,
                     plan.kind == Product::Bmm ? "both operands are 3-D" : "both operands are 2-D",
                     [&] { return formatInts(*as) + " and " + formatInts(*bs); }, {plan.a, plan.b}))
            return std::nullopt;
        const std::string da = deviceType(a->meta.device), db = deviceType(b->meta.device);
        if (!require(trace, !da.empty() && da == db, "both operands are on one known device type",
                     [&] { return "devices '" + a->meta.device + "' and '" + b->meta.device + "'"; }, {plan.a, plan.b}))
            return std::nullopt;
        if (!require(trace, memoryBound(plan.kind, da, *as, *bs), thresholdText(plan.kind, da),
                     [&] {
                         return nodeRef(graph, anchor) + " is " + formatInts(*as) + " x " + formatInts(*bs) + " on "
                                + da;
                     },
                     {anchor}))
            return std::nullopt;
        return plan;
    }

    bool memoryBound(Product kind, const std::string &device, const std::vector<int64_t> &a,
                     const std::vector<int64_t> &b) const
    {
        const int64_t minFirst = options().getInt("min_first_dimension_decomposition");
        const int64_t maxOther = options().getInt("max_other_dimension_decomposition");
        const bool v214 = follows(behaviour::kDecomposeMmCpuOptions);
        const bool gpu = device == "cuda" || (v214 && device == "xpu");
        if (kind == Product::Bmm) {
            if (gpu)
                return a[0] >= minFirst && (int(a[1] < maxOther) + int(a[2] < maxOther) + int(b[2] < maxOther)) >= 2;
            if (device != "cpu")
                return false;
            const int64_t cpuFirst = v214 ? options().getInt("cpu_max_first_dimension_decomposition") : 1;
            return v214 ? a[0] <= cpuFirst && b[0] <= cpuFirst : a[0] == 1 && b[0] == 1;
        }
        if (gpu)
            return a[0] >= minFirst && b[0] < maxOther && b[1] < maxOther;
        if (device != "cpu")
            return false;
        if (!v214)
            return a[0] == 1 && b[0] <= 64 && b[1] <= 16;
        const int64_t cpuFirst = options().getInt("cpu_max_first_dimension_decomposition");
        const int64_t cpuOther = options().getInt("cpu_max_other_dimension_decomposition");
        return a[0] <= cpuFirst && b[0] <= cpuOther && b[1] <= cpuOther;
    }

    std::string thresholdText(Product kind, const std::string &device) const
    {
        const bool v214 = follows(behaviour::kDecomposeMmCpuOptions);
        const std::string minFirst = std::to_string(options().getInt("min_first_dimension_decomposition"));
        const std::string maxOther = std::to_string(options().getInt("max_other_dimension_decomposition"));
        if (device == "cuda" || device == "xpu") {
            if (device == "xpu" && !v214)
                return "the device is cuda or cpu (this Inductor has no xpu branch)";
            return kind == Product::Bmm ? "batch >= " + minFirst + " and two of a's dims and b's last under " + maxOther
                                        : "a has >= " + minFirst + " rows and both of b's dims are under " + maxOther;
        }
        if (device != "cpu")
            return "the device is cuda, xpu or cpu";
        if (!v214)
            return kind == Product::Bmm ? "both batches are 1 (Inductor 2.6 on CPU)"
                                        : "a has 1 row and b is at most [64, 16] (Inductor 2.6 on CPU)";
        const std::string cpuFirst = std::to_string(options().getInt("cpu_max_first_dimension_decomposition"));
        const std::string cpuOther = std::to_string(options().getInt("cpu_max_other_dimension_decomposition"));
        return kind == Product::Bmm
                   ? "both batches are at most " + cpuFirst + " (CPU)"
                   : "a has at most " + cpuFirst + " rows and b's dims are at most " + cpuOther + " (CPU)";
    }

    InductorCounts countsOf(const Graph &graph, const DecomposeMmPlan &plan) const override
    {
        (void)graph;
        InductorCounts counts;
        counts.added[std::string(counterOf(plan.kind))] = 1;
        return patternMatcherCounts(1, counts);
    }

    InductorCounts inductorCountsWithoutRewrite(const Graph &graph, NodeId anchor) const override
    {
        // Every mm, addmm and bmm the pass visits is a match, decomposed or not.
        return isPostGradAtenCall(graph, *graph.node(anchor)) ? patternMatcherCounts(1) : InductorCounts{};
    }

    void apply(PatternRewriter &rewriter, const DecomposeMmPlan &plan) const override
    {
        const NodeId product = plan.nodes.front();
        NodeBuilder build(rewriter, product, product);
        const bool batched = plan.kind == Product::Bmm;
        const NodeId ua = build.unsqueeze(plan.a, batched ? 3 : 2);
        const NodeId ub = build.unsqueeze(plan.b, batched ? 1 : 0);
        const TensorMeta &out = rewriter.graph().node(product)->meta;
        std::vector<int64_t> as = *staticShape(*rewriter.graph().node(plan.a));
        std::vector<int64_t> bs = *staticShape(*rewriter.graph().node(plan.b));
        std::vector<int64_t> mulShape = batched ? std::vector<int64_t>{as[0], as[1], as[2], bs[2]}
                                                : std::vector<int64_t>{as[0], as[1], bs[1]};
        const NodeId mul = build.op("aten::mul", "Tensor", {ua, ub}, NodeBuilder::metaLike(out, Shape(mulShape)));
        NodeId result = build.op("aten::sum", "dim_IntList", {mul, Arg::list({int64_t(-2)})}, out);
        if (plan.kind == Product::Addmm)
            result = build.op("aten::add", "Tensor", {result, plan.bias}, out);
        rewriter.replaceAllUsesWith(product, result);
        rewriter.erase(product);
    }
};

} // namespace

std::unique_ptr<VerticalPattern> makeDecomposeMmPass()
{
    return std::make_unique<DecomposeMm>();
}

} // namespace fusebox::splitcat
