#include "core/ir/GraphBuilder.h"
#include "TorchGraphConverter.h"

#include "TorchValueConversion.h"

#include <ATen/core/jit_type.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>

#include <algorithm>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

namespace fusebox::torchimport {
namespace {

namespace jit = torch::jit;

bool allDigits(std::string_view text)
{
    return !text.empty()
           && std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

/// "x.1" -> "x": TorchScript numbers the SSA versions of a Python name.
std::string inputName(const jit::Value &value)
{
    std::string name = value.debugName();
    if (auto dot = name.rfind('.');
        dot != std::string::npos && dot > 0 && allDigits(std::string_view(name).substr(dot + 1)))
        name.resize(dot);
    return sanitizeIdentifier(name);
}

/// "self.layer1.0.conv1.weight" -> "layer1_0_conv1_weight"; anonymous
/// constants get FX's "_tensor_constant".
std::string constantName(const jit::Value &value)
{
    if (!value.hasDebugName())
        return "_tensor_constant";
    std::string name = value.debugName();
    return sanitizeIdentifier(std::string_view(name).substr(name.starts_with("self.") ? 5 : 0));
}

/// True when a schema argument is a ScalarType (or ScalarType?), whose int
/// constants are dtypes.
bool isScalarTypeArgument(const c10::Argument &argument)
{
    c10::TypePtr type = argument.real_type();
    if (auto optional = type->cast<c10::OptionalType>())
        type = optional->getElementType();
    return type->kind() == c10::TypeKind::ScalarTypeType;
}

std::string tupleTypeText(at::ArrayRef<jit::Value *> values)
{
    if (values.empty())
        return "NoneType";
    std::string text = "Tuple[";
    for (size_t i = 0; i < values.size(); ++i)
        text += (i ? ", " : "") + values[i]->type()->annotation_str();
    return text + "]";
}

bool referencesNode(const Arg &arg)
{
    bool found = false;
    forEachNodeRef(arg, [&found](NodeId) { found = true; });
    return found;
}

class Converter {
public:
    Converter(jit::Graph &source, const jit::Module *module, const std::string &displayName, Graph &target,
              std::vector<std::string> &warnings)
        : m_source(source)
        , m_modules(module)
        , m_displayName(displayName)
        , m_target(target)
        , m_warnings(warnings)
    {}

    void run()
    {
        convertInputs();
        for (jit::Node *node : m_source.nodes())
            convertNode(*node);
        std::vector<Arg> outputs;
        for (const jit::Value *value : m_source.outputs())
            outputs.push_back(argFor(*value));
        // A returned tuple or list is folded: the output node lists its items.
        if (outputs.size() == 1 && outputs.front().isList())
            outputs = std::vector<Arg>(*outputs.front().items());
        m_build.setOutputs(std::move(outputs));
    }

private:
    void convertInputs()
    {
        auto inputs = m_source.inputs();
        for (size_t i = 0; i < inputs.size(); ++i) {
            jit::Value &input = *inputs[i];
            // The module itself; kept only when something still reads an
            // attribute that freezing could not fold.
            if (i == 0 && input.type()->cast<c10::ClassType>() && !input.hasUses())
                continue;
            TensorMeta meta;
            if (auto tensor = input.type()->cast<c10::TensorType>())
                meta = metaFromType(*tensor);
            NodeId id = m_build.addInput(inputName(input), std::move(meta), input.type()->annotation_str());
            m_values.emplace(&input, Arg(id));
        }
    }

    void convertNode(jit::Node &node)
    {
        const jit::NodeKind kind = node.kind();
        if (kind == c10::prim::Constant)
            convertConstant(node);
        else if (kind == c10::prim::ListConstruct || kind == c10::prim::TupleConstruct)
            convertConstruct(node);
        else if (kind == c10::prim::ListUnpack || kind == c10::prim::TupleUnpack)
            convertUnpack(node);
        else
            convertOp(node);
    }

    void convertConstant(jit::Node &node)
    {
        jit::Value &out = *node.output();
        c10::optional<c10::IValue> value = jit::toIValue(&out);
        if (!value)
            throw std::runtime_error("prim::Constant %" + out.debugName() + " has no value");
        if (value->isTensor()) {
            m_values.emplace(&out, Arg(addTensorConstant(node, out, value->toTensor(), out.debugName())));
            return;
        }
        if (value->isTensorList()) {
            std::vector<Arg> items;
            size_t i = 0;
            for (const at::Tensor &t : value->toTensorVector())
                items.emplace_back(addTensorConstant(node, out, t, out.debugName() + "." + std::to_string(i++)));
            m_values.emplace(&out, Arg::list(std::move(items)));
            return;
        }
        std::optional<Arg> literal = literalFromIValue(*value);
        if (!literal) {
            std::ostringstream text;
            text << *value;
            m_warnings.push_back(m_displayName + ": constant %" + out.debugName() + " of type "
                                 + out.type()->annotation_str() + " has no literal form; kept as the string '"
                                 + text.str() + "'");
            literal = Arg(text.str());
        }
        m_values.emplace(&out, std::move(*literal));
    }

    NodeId addTensorConstant(jit::Node &node, const jit::Value &out, const at::Tensor &tensor, const std::string &key)
    {
        m_build.weights().put(key, weightFromTensor(tensor));
        NodeId id = m_build.addConstant(constantName(out), key, metaFromTensor(tensor));
        Node &n = m_build.node(id);
        n.type = "Tensor";
        n.provenance = provenanceOf(node, m_modules);
        return id;
    }

    void convertConstruct(jit::Node &node)
    {
        std::vector<Arg> items;
        for (const jit::Value *in : node.inputs())
            items.push_back(argFor(*in));
        auto kind = node.kind() == c10::prim::TupleConstruct ? ArgList::Kind::Tuple : ArgList::Kind::List;
        m_values.emplace(node.output(), Arg::list(std::move(items), kind));
    }

    void convertUnpack(jit::Node &node)
    {
        Arg source = argFor(*node.input(0));
        auto outputs = node.outputs();
        if (const std::vector<Arg> *items = source.items()) {
            // Unpacking a folded construct: forward its items, no node.
            if (items->size() != outputs.size())
                throw std::runtime_error(std::string(node.kind().toQualString()) + " of a list with the wrong length");
            for (size_t i = 0; i < outputs.size(); ++i)
                m_values.emplace(outputs[i], (*items)[i]);
            return;
        }
        if (!source.isNode())
            throw std::runtime_error(std::string(node.kind().toQualString()) + " of a literal value");
        addGetItems(node, source.node(), /*onlyUsed=*/false);
    }

    /// One getitem(source, i) per output of node (per used output when onlyUsed).
    void addGetItems(jit::Node &node, NodeId source, bool onlyUsed)
    {
        Provenance provenance = provenanceOf(node, m_modules);
        auto outputs = node.outputs();
        for (size_t i = 0; i < outputs.size(); ++i) {
            if (onlyUsed && !outputs[i]->hasUses())
                continue;
            NodeId id = m_build.addOp(std::string(ops::kGetItem), {Arg(source), Arg(static_cast<int64_t>(i))});
            describe(id, *outputs[i]);
            m_build.node(id).provenance = provenance;
            m_values.emplace(outputs[i], Arg(id));
        }
    }

    /// list[i] (aten::__getitem__.t) and tuple[i] (prim::TupleIndex) with a
    /// constant index on a node's value are the IR's getitem: Fusebox's own
    /// exports write getitem that way, and rules must see it again on re-import.
    bool convertIndexing(jit::Node &node)
    {
        const bool listIndex = node.kind() == c10::aten::__getitem__ && node.maybeSchema()
                               && node.maybeSchema()->overload_name() == "t";
        if ((!listIndex && node.kind() != c10::prim::TupleIndex) || node.outputs().size() != 1)
            return false;
        Arg source = argFor(*node.input(0));
        auto index = argFor(*node.input(1)).asInt();
        if (!source.isNode() || !index)
            return false;
        NodeId id = m_build.addOp(std::string(ops::kGetItem), {source, Arg(*index)});
        describe(id, *node.output());
        m_build.node(id).provenance = provenanceOf(node, m_modules);
        m_values.emplace(node.output(), Arg(id));
        return true;
    }

    void convertOp(jit::Node &node)
    {
        if (convertIndexing(node))
            return;
        const c10::FunctionSchema *schema = node.maybeSchema();
        std::vector<Arg> args;
        auto inputs = node.inputs();
        args.reserve(inputs.size());
        for (size_t i = 0; i < inputs.size(); ++i) {
            Arg arg = argFor(*inputs[i]);
            if (schema && i < schema->arguments().size() && isScalarTypeArgument(schema->arguments()[i]))
                if (auto code = arg.asInt())
                    arg = Arg(toDType(static_cast<c10::ScalarType>(*code)));
            args.push_back(std::move(arg));
        }

        std::vector<NamedArg> kwargs;
        const bool opaque = !node.blocks().empty();
        if (opaque)
            kwargs = captures(node);

        NodeId id = m_build.addOp(node.kind().toQualString(), std::move(args), std::move(kwargs));
        Node &n = m_build.node(id);
        n.provenance = provenanceOf(node, m_modules);
        if (schema)
            n.overload = schema->overload_name();

        auto outputs = node.outputs();
        if (outputs.size() == 1) {
            describe(id, *outputs[0]);
            m_values.emplace(outputs[0], Arg(id));
        } else {
            m_build.node(id).type = tupleTypeText(outputs);
        }

        if (opaque) {
            std::ostringstream body;
            body << node;
            Node &o = m_build.node(id);
            o.opaqueBody = body.str();
            m_warnings.push_back(m_displayName + ": " + o.op + " at " + describeLocation(o.provenance.source)
                                 + " imported as an opaque node (its blocks are not rewritten)");
        }
        if (outputs.size() > 1)
            addGetItems(node, id, /*onlyUsed=*/true);
    }

    /// The values a node's blocks read from outside the node, as one kwarg
    /// "captures", so that the dataflow graph keeps them alive and ordered.
    std::vector<NamedArg> captures(jit::Node &node) const
    {
        std::unordered_set<const jit::Value *> inside;
        std::vector<const jit::Value *> used;
        std::function<void(jit::Block &)> visit = [&](jit::Block &block) {
            for (const jit::Value *param : block.inputs())
                inside.insert(param);
            for (jit::Node *inner : block.nodes()) {
                for (const jit::Value *in : inner->inputs())
                    used.push_back(in);
                for (jit::Block *nested : inner->blocks())
                    visit(*nested);
                for (const jit::Value *out : inner->outputs())
                    inside.insert(out);
            }
            for (const jit::Value *out : block.outputs())
                used.push_back(out);
        };
        for (jit::Block *block : node.blocks())
            visit(*block);

        std::unordered_set<const jit::Value *> seen;
        std::vector<Arg> captured;
        for (const jit::Value *v : used) {
            if (inside.count(v) || !seen.insert(v).second)
                continue;
            auto it = m_values.find(v);
            if (it != m_values.end() && referencesNode(it->second))
                captured.push_back(it->second);
        }
        if (captured.empty())
            return {};
        return {NamedArg{"captures", Arg::list(std::move(captured))}};
    }

    /// Sets a node's type text and tensor metadata from a TorchScript value.
    void describe(NodeId id, const jit::Value &value)
    {
        Node &n = m_build.node(id);
        n.type = value.type()->annotation_str();
        if (auto tensor = value.type()->cast<c10::TensorType>())
            n.meta = metaFromType(*tensor);
    }

    Arg argFor(const jit::Value &value) const
    {
        auto it = m_values.find(&value);
        if (it == m_values.end())
            throw std::runtime_error("%" + value.debugName() + " (made by " + value.node()->kind().toQualString()
                                     + ") is read before it is converted");
        return it->second;
    }

    jit::Graph &m_source;
    ModulePathResolver m_modules;
    const std::string &m_displayName;
    Graph &m_target;
    GraphBuilder m_build{m_target};
    std::vector<std::string> &m_warnings;
    std::unordered_map<const jit::Value *, Arg> m_values;
};

} // namespace

void convertGraph(jit::Graph &source, const jit::Module *module, const std::string &displayName, Graph &target,
                  std::vector<std::string> &warnings)
{
    Converter(source, module, displayName, target, warnings).run();
}

} // namespace fusebox::torchimport
