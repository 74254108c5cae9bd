#include "TorchShapeInference.h"

#include "TorchValueConversion.h"

#include <ATen/ATen.h>
#include <ATen/core/ivalue.h>
#include <nlohmann/json.hpp>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/passes/shape_analysis.h>

#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace fusebox::torchimport {
namespace {

namespace jit = torch::jit;

/// Runs one node on concrete inputs; the containers the importer folds are
/// built here because libtorch runs them as interpreter instructions, not ops.
std::vector<c10::IValue> runNode(const jit::Node &node, std::vector<c10::IValue> inputs)
{
    const jit::NodeKind kind = node.kind();
    if (kind == c10::prim::ListConstruct) {
        c10::impl::GenericList list(node.output()->type()->expectRef<c10::ListType>().getElementType());
        for (c10::IValue &v : inputs)
            list.push_back(std::move(v));
        return {c10::IValue(std::move(list))};
    }
    if (kind == c10::prim::TupleConstruct && !node.output()->type()->expectRef<c10::TupleType>().name())
        return {c10::IValue(c10::ivalue::Tuple::create(std::move(inputs)))};
    if (kind == c10::prim::ListUnpack) {
        auto items = inputs.at(0).toListRef();
        return std::vector<c10::IValue>(items.begin(), items.end());
    }
    if (kind == c10::prim::TupleUnpack) {
        auto items = inputs.at(0).toTupleRef().elements();
        return std::vector<c10::IValue>(items.begin(), items.end());
    }
    jit::Stack stack(std::make_move_iterator(inputs.begin()), std::make_move_iterator(inputs.end()));
    node.getOperation()(stack);
    if (stack.size() != node.outputs().size())
        throw std::runtime_error("produced " + std::to_string(stack.size()) + " values");
    return std::vector<c10::IValue>(stack.begin(), stack.end());
}

/// One run of the graph on example inputs; every tensor a node computes
/// becomes its value's complete type. prim::If runs the branch taken,
/// prim::Loop its iterations; other nodes with blocks are skipped, and so is
/// whatever depends on a skipped or failed node. Top-level values are dropped
/// after their last use so that large activations do not pile up.
class ExampleRun {
public:
    ExampleRun(jit::Graph &graph, const std::vector<std::pair<jit::Value *, at::Tensor>> &examples)
        : m_graph(graph)
    {
        for (const auto &[value, tensor] : examples)
            bind(value, tensor);
    }

    /// Runs the graph; returns the first failure ("%x (aten::foo): message") or "".
    std::string run()
    {
        runBlock(*m_graph.block());
        return m_firstFailure;
    }

private:
    static constexpr int64_t kMaxIterations = 10000;

    void bind(const jit::Value *value, c10::IValue iv)
    {
        size_t topLevelUses = 0;
        for (const jit::Use &use : value->uses())
            if (use.user->owningBlock() == m_graph.block())
                ++topLevelUses;
            else
                m_pinned.insert(value); // read inside a block: keep it
        m_usesLeft[value] = topLevelUses;
        m_env[value] = std::move(iv);
    }

    std::optional<std::vector<c10::IValue>> inputsOf(const jit::Node &node) const
    {
        std::vector<c10::IValue> inputs;
        for (const jit::Value *in : node.inputs()) {
            auto it = m_env.find(in);
            if (it == m_env.end())
                return std::nullopt;
            inputs.push_back(it->second);
        }
        return inputs;
    }

    /// Runs a block's nodes; returns its outputs, or nullopt when one is unknown.
    std::optional<std::vector<c10::IValue>> runBlock(jit::Block &block)
    {
        for (jit::Node *node : block.nodes())
            runNodeRecorded(*node);
        std::vector<c10::IValue> outputs;
        for (const jit::Value *out : block.outputs()) {
            auto it = m_env.find(out);
            if (it == m_env.end())
                return std::nullopt;
            outputs.push_back(it->second);
        }
        return outputs;
    }

    void runNodeRecorded(jit::Node &node)
    {
        std::optional<std::vector<c10::IValue>> inputs = inputsOf(node);
        if (!inputs)
            return;
        if (node.owningBlock() == m_graph.block())
            for (const jit::Value *in : node.inputs())
                if (--m_usesLeft[in] == 0 && !m_pinned.count(in))
                    m_env.erase(in);

        std::optional<std::vector<c10::IValue>> outputs;
        try {
            outputs = evaluate(node, std::move(*inputs));
        } catch (const std::exception &e) {
            if (m_firstFailure.empty())
                m_firstFailure = (node.outputs().empty() ? std::string("a node") : "%" + node.output(0)->debugName())
                                 + " (" + node.kind().toQualString() + "): " + oneLineMessage(e);
        }
        if (!outputs || outputs->size() != node.outputs().size())
            return;
        for (size_t i = 0; i < outputs->size(); ++i) {
            jit::Value *out = node.output(i);
            c10::IValue &iv = (*outputs)[i];
            if (iv.isTensor() && out->type()->cast<c10::TensorType>())
                out->setType(c10::TensorType::create(iv.toTensor()));
            if (out->hasUses())
                bind(out, std::move(iv));
        }
    }

    std::optional<std::vector<c10::IValue>> evaluate(jit::Node &node, std::vector<c10::IValue> inputs)
    {
        const jit::NodeKind kind = node.kind();
        if (kind == c10::prim::Constant)
            return std::vector<c10::IValue>{*jit::toIValue(node.output())};
        if (kind == c10::prim::If)
            return runBlock(*node.blocks()[inputs.at(0).toBool() ? 0 : 1]);
        if (kind == c10::prim::Loop)
            return runLoop(node, std::move(inputs));
        if (!node.blocks().empty())
            return std::nullopt;
        return runNode(node, std::move(inputs));
    }

    /// prim::Loop(max_trip_count, initial_condition, carried...) with a body
    /// block (iteration, carried...) -> (condition, carried...).
    std::optional<std::vector<c10::IValue>> runLoop(jit::Node &node, std::vector<c10::IValue> inputs)
    {
        const int64_t maxTrips = inputs.at(0).toInt();
        bool condition = inputs.at(1).toBool();
        std::vector<c10::IValue> carried(inputs.begin() + 2, inputs.end());
        jit::Block &body = *node.blocks()[0];
        for (int64_t i = 0; condition && i < maxTrips; ++i) {
            if (i == kMaxIterations)
                return std::nullopt;
            bind(body.inputs()[0], c10::IValue(i));
            for (size_t k = 0; k < carried.size(); ++k)
                bind(body.inputs()[k + 1], carried[k]);
            std::optional<std::vector<c10::IValue>> outputs = runBlock(body);
            if (!outputs)
                return std::nullopt;
            condition = outputs->at(0).toBool();
            carried.assign(outputs->begin() + 1, outputs->end());
        }
        return carried;
    }

    jit::Graph &m_graph;
    std::unordered_map<const jit::Value *, c10::IValue> m_env;
    std::unordered_map<const jit::Value *, size_t> m_usesLeft;
    std::unordered_set<const jit::Value *> m_pinned;
    std::string m_firstFailure;
};

void refineByRunning(jit::Graph &graph, const std::vector<std::pair<jit::Value *, at::Tensor>> &examples,
                     const std::string &displayName, std::vector<std::string> &warnings)
{
    std::string failure = ExampleRun(graph, examples).run();
    if (!failure.empty())
        warnings.push_back(displayName + ": shapes unknown from " + failure);
}

} // namespace

std::string formatInputSpecs(const std::vector<std::string> &names, const std::vector<InputSpec> &specs)
{
    nlohmann::json inputs = nlohmann::json::array();
    for (size_t i = 0; i < specs.size(); ++i)
        inputs.push_back({{"name", i < names.size() ? names[i] : "input" + std::to_string(i)},
                          {"shape", specs[i].shape},
                          {"dtype", std::string(shortName(specs[i].dtype))}});
    return nlohmann::json{{"inputs", inputs}}.dump();
}

std::vector<InputSpec> parseInputSpecs(const std::string &displayName, const std::string &json,
                                       std::vector<std::string> &warnings)
{
    std::vector<InputSpec> specs;
    try {
        nlohmann::json j = nlohmann::json::parse(json);
        for (const nlohmann::json &entry : j.at("inputs")) {
            InputSpec spec;
            spec.shape = entry.at("shape").get<std::vector<int64_t>>();
            if (entry.contains("dtype")) {
                std::string dtype = entry.at("dtype").get<std::string>();
                auto parsed = parseDType(dtype);
                if (!parsed)
                    throw std::runtime_error("unknown dtype '" + dtype + "'");
                spec.dtype = *parsed;
            }
            specs.push_back(std::move(spec));
        }
    } catch (const std::exception &e) {
        warnings.push_back(displayName + ": fusebox/inputs.json ignored: " + oneLineMessage(e));
        return {};
    }
    return specs;
}

void inferShapes(const std::shared_ptr<jit::Graph> &graph, const std::vector<InputSpec> &specs, bool runExample,
                 const std::string &displayName, std::vector<std::string> &warnings)
{
    std::vector<jit::Value *> inputs;
    for (jit::Value *v : graph->inputs())
        if (!v->type()->cast<c10::ClassType>())
            inputs.push_back(v);
    if (inputs.size() != specs.size()) {
        warnings.push_back(displayName + ": " + std::to_string(specs.size()) + " input shapes given for "
                           + std::to_string(inputs.size()) + " inputs; shapes left unknown");
        return;
    }
    std::vector<std::pair<jit::Value *, at::Tensor>> examples;
    try {
        for (size_t i = 0; i < inputs.size(); ++i) {
            if (!inputs[i]->type()->cast<c10::TensorType>())
                continue;
            auto scalar = toScalarType(specs[i].dtype).value_or(c10::kFloat);
            at::Tensor example = at::zeros(specs[i].shape, at::TensorOptions().dtype(scalar));
            inputs[i]->setType(c10::TensorType::create(example));
            examples.emplace_back(inputs[i], example);
        }
        jit::PropagateInputShapes(graph);
    } catch (const std::exception &e) {
        warnings.push_back(displayName + ": shape propagation failed (" + oneLineMessage(e)
                           + "); some shapes stay unknown");
    }
    if (runExample && examples.size() == inputs.size())
        refineByRunning(*graph, examples, displayName, warnings);
}

std::string findFailingNode(jit::Graph &graph, const std::vector<at::Tensor> &inputs)
{
    std::vector<std::pair<jit::Value *, at::Tensor>> examples;
    for (size_t i = 0; i < inputs.size() && i < graph.inputs().size(); ++i)
        examples.emplace_back(graph.inputs()[i], inputs[i]);
    return ExampleRun(graph, examples).run();
}

} // namespace fusebox::torchimport
