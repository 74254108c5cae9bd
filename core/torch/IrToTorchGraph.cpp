#include "IrToTorchGraph.h"

#include "FuseboxOps.h"
#include "TorchValueConversion.h"
#include "core/ir/Traversal.h"

#include <ATen/ATen.h>
#include <ATen/core/jit_type.h>
#include <torch/csrc/jit/frontend/schema_matching.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/ir/named_value.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/runtime/operator.h>

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

namespace fusebox::torchlower {
namespace {

namespace jit = torch::jit;

/// A lowering failure whose message is already one line naming the node.
struct LoweringError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

c10::TypePtr unwrapOptional(const c10::TypePtr &type)
{
    if (auto optional = type->cast<c10::OptionalType>())
        return optional->getElementType();
    return type;
}

/// A type the lowering may rely on: known, and without type variables (`t`).
c10::TypePtr concrete(const c10::TypePtr &type)
{
    return type && !type->hasFreeVariables() && type->kind() != c10::TypeKind::AnyType ? type : nullptr;
}

/// A list of literals as one constant, typed by the element type the schema
/// wants (or by the items when it is not known); nullopt when there is none.
std::optional<c10::IValue> literalList(const std::vector<Arg> &items, const c10::TypePtr &elem)
{
    auto all = [&](auto pred) { return std::all_of(items.begin(), items.end(), pred); };
    auto isInt = [](const Arg &a) { return std::holds_alternative<int64_t>(a.value); };
    auto isNumber = [](const Arg &a) {
        return std::holds_alternative<int64_t>(a.value) || std::holds_alternative<double>(a.value);
    };
    auto isBool = [](const Arg &a) { return std::holds_alternative<bool>(a.value); };
    const c10::TypeKind kind = elem ? elem->kind() : c10::TypeKind::AnyType;
    if ((kind == c10::TypeKind::IntType || (!elem && !items.empty())) && all(isInt)) {
        c10::List<int64_t> list;
        for (const Arg &a : items)
            list.push_back(std::get<int64_t>(a.value));
        return c10::IValue(list);
    }
    if ((kind == c10::TypeKind::FloatType || (!elem && !items.empty())) && all(isNumber)) {
        c10::List<double> list;
        for (const Arg &a : items)
            list.push_back(isInt(a) ? double(std::get<int64_t>(a.value)) : std::get<double>(a.value));
        return c10::IValue(list);
    }
    if ((kind == c10::TypeKind::BoolType || (!elem && !items.empty())) && all(isBool)) {
        c10::List<bool> list;
        for (const Arg &a : items)
            list.push_back(std::get<bool>(a.value));
        return c10::IValue(list);
    }
    return std::nullopt;
}

class Lowerer {
public:
    explicit Lowerer(const Graph &ir)
        : m_ir(ir)
        , m_graph(std::make_shared<jit::Graph>())
    {}

    LoweredGraph run()
    {
        std::vector<NodeId> order = topologicalOrder(m_ir);
        if (order.empty() && m_ir.size() != 0)
            throw LoweringError("the graph has a cycle");
        if (!m_ir.output().isValid())
            throw LoweringError("the graph has no output node");
        LoweredGraph lowered;
        // Graph inputs in declaration order, whatever their program position.
        for (NodeId id : m_ir.inputs()) {
            m_current = m_ir.node(id);
            lowerInput(*m_current);
            lowered.inputs.push_back(id);
        }
        for (NodeId id : order) {
            const Node &n = *m_ir.node(id);
            m_current = &n;
            switch (n.kind()) {
            case NodeKind::Input: break;
            case NodeKind::Constant: lowerConstant(n); break;
            case NodeKind::Op: lowerOp(n); break;
            case NodeKind::Output:
                lowerOutput(n);
                lowered.outputs = returnedValues(n);
                break;
            }
        }
        m_current = nullptr;
        // Failed schema candidates leave unused constants and lists behind.
        jit::EliminateDeadCode(m_graph);
        m_graph->lint();
        for (jit::Node *node : m_graph->nodes())
            if (auto it = m_constants.find(node); it != m_constants.end())
                lowered.constants.push_back({node->output(), it->second});
        lowered.graph = m_graph;
        return lowered;
    }

    const Node *current() const { return m_current; }

private:
    /// What an IR node became: one value, or the outputs of a node with several.
    struct Lowered {
        jit::Value *value = nullptr;
        std::vector<jit::Value *> outputs;
    };

    [[noreturn]] void fail(const std::string &message) const
    {
        throw LoweringError(describeNode(*m_current) + ": " + message);
    }

    void name(jit::Value *value, const Node &n) { value->setDebugName(torchimport::sanitizeIdentifier(n.name)); }

    void lowerInput(const Node &n)
    {
        if (!n.type.empty() && n.type != "Tensor")
            fail("input of type '" + n.type + "' cannot be lowered (only tensor inputs are supported)");
        jit::Value *v = m_graph->addInput();
        v->setType(c10::TensorType::get());
        name(v, n);
        m_values[n.id()].value = v;
    }

    void lowerConstant(const Node &n)
    {
        std::shared_ptr<const Weight> payload = m_ir.weights().get(n.weightKey);
        if (!payload)
            fail("constant has no payload (weight '" + n.weightKey
                 + "' is not in the graph's weight store; graph JSON written without --weights?)");
        at::Tensor tensor = torchimport::tensorFromWeight(*payload, describeNode(n) + ": payload '" + n.weightKey + "'");
        jit::Value *v = m_graph->insertConstant(tensor);
        name(v, n);
        m_constants.emplace(v->node(), n.id());
        m_values[n.id()].value = v;
    }

    /// The values the output node returns: the items of its one list arg
    /// (Graph::setOutputs), else its args.
    static std::vector<Arg> returnedValues(const Node &output)
    {
        const std::vector<Arg> &args = output.args();
        if (args.size() == 1 && args[0].isList() && std::get<ArgList>(args[0].value).kind == ArgList::Kind::List)
            return *args[0].items();
        return args;
    }

    void lowerOutput(const Node &n)
    {
        std::vector<jit::Value *> values;
        for (const Arg &arg : returnedValues(n))
            values.push_back(toValue(arg, nullptr));
        jit::Value *result = values.size() == 1 ? values.front()
                                                : m_graph->insertNode(m_graph->createTuple(values))->output();
        m_graph->registerOutput(result);
    }

    void lowerOp(const Node &n)
    {
        if (!n.opaqueBody.empty())
            fail("control flow cannot be lowered (its blocks are kept as opaque text)");
        if (n.op == ops::kGetItem)
            return lowerGetItem(n);
        if (n.op.find("::") == std::string::npos)
            fail("'" + n.op + "' is not a TorchScript operator (expected namespace::name)");
        std::vector<const c10::FunctionSchema *> schemas = candidates(n);
        if (schemas.empty())
            fail("no schema is registered for " + n.qualifiedOp());
        // Like libtorch's matchSchemas: an exact type match first, then one
        // that needs implicit conversions.
        std::string firstFailure;
        for (bool strict : {true, false})
            for (const c10::FunctionSchema *schema : schemas)
                if (tryCandidate(n, *schema, strict, firstFailure))
                    return;
        fail("no schema of " + n.op + " accepts " + describeArgs(n) + ": " + firstFailure);
    }

    /// The recorded overload first, then the default one, then the others.
    std::vector<const c10::FunctionSchema *> candidates(const Node &n) const
    {
        std::vector<const c10::FunctionSchema *> exact, rest;
        for (const auto &op : jit::getAllOperatorsFor(c10::Symbol::fromQualString(n.op))) {
            const c10::FunctionSchema &s = op->schema();
            if (!n.overload.empty() && s.overload_name() == n.overload)
                exact.insert(exact.begin(), &s);
            else if (s.overload_name().empty())
                exact.push_back(&s);
            else
                rest.push_back(&s);
        }
        exact.insert(exact.end(), rest.begin(), rest.end());
        return exact;
    }

    bool tryCandidate(const Node &n, const c10::FunctionSchema &schema, bool strict, std::string &why)
    {
        auto reject = [&](const std::string &reason) {
            if (why.empty())
                why = reason;
            return false;
        };
        const std::vector<c10::Argument> &params = schema.arguments();
        if (n.args().size() > params.size())
            return reject(schema.operator_name().name + " takes " + std::to_string(params.size()) + " arguments, "
                          + std::to_string(n.args().size()) + " given");
        for (const NamedArg &kw : n.kwargs()) {
            auto it = std::find_if(params.begin(), params.end(),
                                   [&](const c10::Argument &p) { return p.name() == kw.name; });
            if (it == params.end())
                return reject("no argument named '" + kw.name + "'");
            if (static_cast<size_t>(it - params.begin()) < n.args().size())
                return reject("argument '" + kw.name + "' given twice");
        }
        try {
            std::vector<jit::NamedValue> positional, named;
            bool gap = false;
            for (size_t i = 0; i < params.size(); ++i) {
                const c10::Argument &p = params[i];
                const Arg *arg = i < n.args().size() ? &n.args()[i] : n.kwarg(p.name());
                if (!arg) {
                    gap = true; // the default applies; later args go by name
                    continue;
                }
                jit::Value *v = toValue(*arg, p.type());
                if (strict && concrete(p.type()) && !v->type()->isSubtypeOf(*p.type()))
                    return false;
                if (gap || p.kwarg_only())
                    named.emplace_back(p.name(), v);
                else
                    positional.emplace_back(v);
            }
            jit::MatchedSchema matched = jit::matchSchema(schema, {}, *m_graph, positional, named);
            jit::Node *node = m_graph->insertNode(
                m_graph->create(c10::Symbol::fromQualString(schema.name()), matched.inputs, 0));
            for (const c10::TypePtr &type : matched.return_types)
                node->addOutput()->setType(type);
            Lowered &lowered = m_values[n.id()];
            if (node->outputs().size() == 1) {
                lowered.value = node->output();
                name(node->output(), n);
            } else {
                lowered.outputs.assign(node->outputs().begin(), node->outputs().end());
            }
            return true;
        } catch (const LoweringError &) {
            throw;
        } catch (const std::exception &e) {
            return reject(torchimport::oneLineMessage(e));
        }
    }

    void lowerGetItem(const Node &n)
    {
        std::optional<int64_t> index = n.args().size() == 2 ? n.args()[1].asInt() : std::nullopt;
        if (!index || !n.args()[0].isNode())
            fail("expected getitem(node, int)");
        auto it = m_values.find(n.args()[0].node());
        if (it == m_values.end())
            fail("reads a node that is not lowered yet");
        if (!it->second.value) {
            // Item i of a node with several outputs: that output itself.
            const std::vector<jit::Value *> &outputs = it->second.outputs;
            int64_t i = *index < 0 ? *index + static_cast<int64_t>(outputs.size()) : *index;
            if (i < 0 || i >= static_cast<int64_t>(outputs.size()))
                fail("index " + std::to_string(*index) + " out of range for " + std::to_string(outputs.size())
                     + " outputs");
            return setValue(n, outputs[i]);
        }
        jit::Value *source = it->second.value;
        if (source->type()->cast<c10::ListType>())
            return setValue(n, m_graph->insert(c10::aten::__getitem__, {source, *index}));
        if (auto tuple = source->type()->cast<c10::TupleType>()) {
            const auto &elements = tuple->elements();
            int64_t i = *index < 0 ? *index + static_cast<int64_t>(elements.size()) : *index;
            if (i < 0 || i >= static_cast<int64_t>(elements.size()))
                fail("index " + std::to_string(*index) + " out of range for a tuple of "
                     + std::to_string(elements.size()));
            jit::Node *item = m_graph->createTupleIndex(source, m_graph->insertConstant(i), elements[i]);
            return setValue(n, m_graph->insertNode(item)->output());
        }
        fail("getitem of a value of type " + source->type()->annotation_str());
    }

    void setValue(const Node &n, jit::Value *value)
    {
        name(value, n);
        m_values[n.id()].value = value;
    }

    jit::Value *valueOf(NodeId id)
    {
        auto it = m_values.find(id);
        if (it == m_values.end()) {
            const Node *source = m_ir.node(id);
            fail("reads " + (source ? "%" + source->name : "a missing node") + ", which is not lowered yet");
        }
        Lowered &lowered = it->second;
        if (!lowered.value) // a node with several outputs, read whole: pack them
            lowered.value = m_graph->insertNode(m_graph->createTuple(lowered.outputs))->output();
        return lowered.value;
    }

    /// The value of an arg; literals become constants typed by `expected`
    /// (the schema argument's type; null when unknown).
    jit::Value *toValue(const Arg &arg, const c10::TypePtr &expected)
    {
        if (arg.isNode())
            return valueOf(arg.node());
        c10::TypePtr want = expected ? concrete(unwrapOptional(expected)) : nullptr;
        if (const auto *list = std::get_if<ArgList>(&arg.value))
            return listValue(*list, want);
        return m_graph->insertConstant(literal(arg, want));
    }

    c10::IValue literal(const Arg &arg, const c10::TypePtr &want) const
    {
        const c10::TypeKind kind = want ? want->kind() : c10::TypeKind::AnyType;
        if (const auto *i = std::get_if<int64_t>(&arg.value))
            return kind == c10::TypeKind::FloatType ? c10::IValue(double(*i)) : c10::IValue(*i);
        if (const auto *d = std::get_if<double>(&arg.value))
            return c10::IValue(*d);
        if (const auto *b = std::get_if<bool>(&arg.value))
            return c10::IValue(*b);
        if (const auto *s = std::get_if<std::string>(&arg.value))
            return kind == c10::TypeKind::DeviceObjType ? c10::IValue(c10::Device(*s)) : c10::IValue(*s);
        if (const auto *dtype = std::get_if<DType>(&arg.value)) {
            auto scalar = torchimport::toScalarType(*dtype);
            if (!scalar)
                fail("dtype " + std::string(torchName(*dtype)) + " has no libtorch type");
            return c10::IValue(static_cast<int64_t>(*scalar));
        }
        if (const auto *device = std::get_if<Device>(&arg.value))
            return c10::IValue(c10::Device(device->toString()));
        return c10::IValue(); // None
    }

    jit::Value *listValue(const ArgList &list, const c10::TypePtr &want)
    {
        if (list.kind == ArgList::Kind::Slice)
            fail("slice literals cannot be lowered");
        auto tupleWanted = want ? want->cast<c10::TupleType>() : nullptr;
        auto listWanted = want ? want->cast<c10::ListType>() : nullptr;
        if (tupleWanted || (list.kind == ArgList::Kind::Tuple && !listWanted)) {
            std::vector<jit::Value *> values;
            for (size_t i = 0; i < list.items.size(); ++i)
                values.push_back(toValue(list.items[i], tupleWanted && i < tupleWanted->elements().size()
                                                            ? tupleWanted->elements()[i]
                                                            : nullptr));
            return m_graph->insertNode(m_graph->createTuple(values))->output();
        }
        c10::TypePtr elem = listWanted ? concrete(listWanted->getElementType()) : nullptr;
        const bool literalItems = std::none_of(list.items.begin(), list.items.end(),
                                               [](const Arg &a) { return a.isNode() || a.isList(); });
        if (literalItems)
            if (std::optional<c10::IValue> folded = literalList(list.items, elem))
                return m_graph->insertConstant(*folded);
        std::vector<jit::Value *> values;
        for (const Arg &item : list.items)
            values.push_back(toValue(item, elem));
        if (!elem) {
            std::vector<c10::TypePtr> types;
            for (const jit::Value *v : values)
                types.push_back(v->type());
            std::ostringstream whyNot;
            c10::optional<c10::TypePtr> unified = c10::unifyTypeList(types, whyNot);
            elem = unified ? *unified : c10::TensorType::get();
        }
        return m_graph->insertNode(m_graph->createList(elem, values))->output();
    }

    std::string describeArgs(const Node &n)
    {
        std::string text = "(";
        auto describe = [&](const Arg &a) {
            if (a.isNode()) {
                auto it = m_values.find(a.node());
                return it != m_values.end() && it->second.value ? it->second.value->type()->annotation_str()
                                                                : std::string("Tuple");
            }
            return a.toString([&](NodeId id) { return "%" + m_ir.node(id)->name; });
        };
        for (size_t i = 0; i < n.args().size(); ++i)
            text += (i ? ", " : "") + describe(n.args()[i]);
        for (const NamedArg &kw : n.kwargs())
            text += (text.size() > 1 ? ", " : "") + kw.name + "=" + describe(kw.value);
        return text + ")";
    }

    const Graph &m_ir;
    std::shared_ptr<jit::Graph> m_graph;
    const Node *m_current = nullptr;
    std::unordered_map<NodeId, Lowered> m_values;
    std::unordered_map<const jit::Node *, NodeId> m_constants;
};

} // namespace

std::string describeNode(const Node &node)
{
    return "%" + node.name + (node.isOp() ? " (" + node.qualifiedOp() + ")" : "");
}

Expected<LoweredGraph> lowerGraph(const Graph &graph)
{
    ensureFuseboxOpsRegistered(); // graphs may use fusebox:: fused ops
    Lowerer lowerer(graph);
    try {
        return lowerer.run();
    } catch (const LoweringError &e) {
        return Error{e.what()};
    } catch (const std::exception &e) {
        const Node *at = lowerer.current();
        return Error{(at ? describeNode(*at) + ": " : std::string()) + torchimport::oneLineMessage(e)};
    }
}

} // namespace fusebox::torchlower
