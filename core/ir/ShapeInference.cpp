#include "ShapeInference.h"

#include "GraphBuilder.h"
#include "ShapeRules.h"

#include <string_view>

namespace fusebox {
namespace {

/// Ops whose value is a list or tuple of tensors: their getitem users carry
/// the shapes, and they are not counted as values of their own.
bool returnsList(std::string_view op)
{
    for (std::string_view list : {"aten::split",
                                  "aten::split_with_sizes",
                                  "aten::chunk",
                                  "aten::unbind",
                                  "aten::tensor_split",
                                  "aten::unsafe_split",
                                  "aten::native_layer_norm",
                                  "aten::native_batch_norm",
                                  "aten::topk",
                                  "aten::sort",
                                  "aten::max_pool2d_with_indices",
                                  "aten::_native_batch_norm_legit_functional",
                                  "aten::var_mean",
                                  "aten::std_mean",
                                  "aten::aminmax",
                                  "aten::lstm",
                                  "aten::gru",
                                  "aten::meshgrid",
                                  "aten::broadcast_tensors",
                                  "aten::multi_head_attention_forward",
                                  "torch.nn.functional.multi_head_attention_forward"})
        if (op == list)
            return true;
    return false;
}

/// The value a node already records: its tensor meta, or for a SymInt input
/// the symbol it stands for.
shapes::Value recorded(const Node &n)
{
    if (n.type == "SymInt" && n.kind() == NodeKind::Input) {
        std::string symbol = n.name;
        const std::string &spelled = n.provenance.originalSpelling;
        if (spelled.starts_with("Sym(") && spelled.ends_with(")"))
            symbol = spelled.substr(4, spelled.size() - 5);
        return shapes::Value::ofScalar(Dim(symbol));
    }
    if (n.type != "Tensor" || !n.meta.shape)
        return {};
    return shapes::Value::ofTensor(n.meta);
}

} // namespace

bool holdsOneTensor(const Graph &graph, NodeId id)
{
    const Node *n = graph.node(id);
    if (!n || !n->isOp() || n->type != "Tensor" || returnsList(n->op))
        return false;
    for (std::string_view scalar : {"aten::size", "aten::sym_size", "aten::numel", "aten::dim", "aten::item",
                                    "aten::sym_numel", "aten::_local_scalar_dense", "aten::is_floating_point",
                                    "aten::is_contiguous", "aten::equal", "aten::__contains__"})
        if (n->op == scalar)
            return false;
    if (n->op == "aten::max" || n->op == "aten::min") {
        // max(x, dim) is a tuple; max(x) and max(x, y) are tensors.
        const bool withDim = n->args().size() >= 2 ? n->args()[1].asInt().has_value() : n->kwarg("dim") != nullptr;
        return !withDim;
    }
    // Read only through getitems: a tuple or list (an op Fusebox has no schema
    // for, such as _native_batch_norm_legit_no_training), whose items carry
    // the shapes.
    bool anyUser = false, onlyGetitems = true;
    graph.forEachUse(id, [&](NodeId user) {
        anyUser = true;
        const Node *u = graph.node(user);
        onlyGetitems = onlyGetitems && u && u->op == "getitem";
    });
    if (anyUser && onlyGetitems)
        return false;
    // A call of a non-ATen target that nothing reads is made for its effect
    // (torch._C._log_api_usage_once, profiler records): no tensor to shape.
    if (!anyUser && n->op.find("::") == std::string::npos && n->op != "getitem")
        return false;
    // getitem of a torch.Size (x.size()[0]) is an int.
    if (n->op == "getitem" && !n->args().empty() && n->args()[0].isNode()) {
        const Node *source = graph.node(n->args()[0].node());
        if (source && (source->op == "aten::size" || source->type == "int" || source->type == "int[]"))
            return false;
    }
    return true;
}

ShapeCounts countShapes(const Graph &graph)
{
    ShapeCounts counts;
    for (NodeId id = graph.first(); id.isValid(); id = graph.next(id)) {
        if (!holdsOneTensor(graph, id))
            continue;
        if (graph.node(id)->meta.shape) {
            ++counts.known;
        } else {
            if (!counts.unknown)
                counts.firstUnknown = id;
            ++counts.unknown;
        }
    }
    return counts;
}

ShapeInferenceReport inferShapes(Graph &graph)
{
    ShapeInferenceReport report;
    std::vector<shapes::Value> values(graph.idBound());
    const shapes::Value unknown;
    const shapes::Lookup valueOf = [&](NodeId id) -> const shapes::Value & {
        return id.value < values.size() ? values[id.value] : unknown;
    };
    GraphBuilder build = GraphBuilder::reopen(graph); // an import-time fix-up (ShapeInference.h)
    for (NodeId id = graph.first(); id.isValid(); id = graph.next(id)) {
        const Node &n = *graph.node(id);
        values[id.value] = recorded(n);
        if (!n.isOp() || values[id.value].known())
            continue;
        bool ruled = true;
        shapes::Value v = shapes::inferNode(graph, n, valueOf, &ruled);
        if (!ruled)
            ++report.unruledOps[n.op];
        if (v.kind == shapes::Value::Kind::Tensor && holdsOneTensor(graph, id)) {
            Node &writable = build.node(id);
            writable.meta.shape = v.tensor.shape;
            if (writable.meta.dtype == DType::Unknown)
                writable.meta.dtype = v.tensor.dtype;
            if (writable.meta.device.empty())
                writable.meta.device = v.tensor.device;
            values[id.value] = recorded(writable);
            ++report.inferred;
        } else {
            // `size * 2` on sizes reads as aten::mul, typed Tensor by its
            // schema: it is an int, and no tensor value to count.
            if (v.kind == shapes::Value::Kind::Scalar && n.type == "Tensor")
                build.node(id).type = "int";
            values[id.value] = std::move(v);
        }
    }
    report.unknown = countShapes(graph).unknown;
    if (report.inferred > 0 && !graph.metadata().count("shapes.inferred_by"))
        build.metadata()["shapes.inferred_by"] = "Fusebox's shape rules (C++)";
    return report;
}

} // namespace fusebox
