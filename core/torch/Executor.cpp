#include "Executor.h"

#include "IrToTorchGraph.h"
#include "TorchShapeInference.h"
#include "TorchValueConversion.h"

#include <ATen/ATen.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/runtime/interpreter.h>
#include <torch/csrc/jit/serialization/import.h>

#include <unordered_map>

namespace fusebox {
namespace {

namespace jit = torch::jit;
using torchimport::oneLineMessage;

/// The interpreter wraps an op's error in a TorchScript traceback whose first
/// line says only "The following operation failed"; the cause follows it.
std::string interpreterMessage(const std::exception &e)
{
    std::string text = e.what();
    for (const char *marker : {"\nRuntimeError: ", "\nValueError: ", "\nIndexError: "})
        if (auto at = text.rfind(marker); at != std::string::npos) {
            std::string cause = text.substr(at + std::string(marker).size());
            return cause.substr(0, cause.find('\n'));
        }
    return oneLineMessage(e);
}

HostTensor hostTensorOf(const c10::IValue &value, const std::string &name)
{
    if (value.isTensor())
        return torchimport::weightFromTensor(value.toTensor());
    if (value.isInt())
        return torchimport::weightFromTensor(at::scalar_tensor(value.toInt(), at::kLong));
    if (value.isDouble())
        return torchimport::weightFromTensor(at::scalar_tensor(value.toDouble(), at::kDouble));
    if (value.isBool())
        return torchimport::weightFromTensor(at::scalar_tensor(value.toBool(), at::kBool));
    throw std::runtime_error("output " + (name.empty() ? std::string("literal") : "%" + name) + " is a "
                             + value.tagKind() + ", not a tensor");
}

/// Flattens a returned value: tensors and numbers are one output each, lists
/// and tuples their items (named "name[i]").
void flattenValue(const c10::IValue &value, const std::string &name, std::vector<HostTensor> &out,
                  std::vector<std::string> *names)
{
    auto items = [&](const auto &elements) {
        size_t i = 0;
        for (const c10::IValue &item : elements)
            flattenValue(item, name + "[" + std::to_string(i++) + "]", out, names);
    };
    if (value.isTuple())
        return items(value.toTupleRef().elements());
    if (value.isList())
        return items(value.toListRef());
    out.push_back(hostTensorOf(value, name));
    if (names)
        names->push_back(name);
}

/// Flattens one output arg of the IR and the value it became, in step, so
/// that list literals in the output node give their items' names.
void flattenArg(const Arg &arg, const c10::IValue &value, const std::unordered_map<uint32_t, std::string> &nodeNames,
                std::vector<HostTensor> &out, std::vector<std::string> *names)
{
    const std::vector<Arg> *items = arg.items();
    if (items && (value.isTuple() || value.isList())) {
        std::vector<c10::IValue> elements = value.isTuple() ? value.toTupleRef().elements().vec()
                                                            : value.toListRef().vec();
        if (elements.size() == items->size()) {
            for (size_t i = 0; i < items->size(); ++i)
                flattenArg((*items)[i], elements[i], nodeNames, out, names);
            return;
        }
    }
    auto it = arg.isNode() ? nodeNames.find(arg.node().value) : nodeNames.end();
    flattenValue(value, it == nodeNames.end() ? std::string() : it->second, out, names);
}

/// The outputs of a run: the value the graph returned, for its output args.
std::vector<HostTensor> flattenOutputs(const std::vector<Arg> &args, const c10::IValue &result,
                                       const std::unordered_map<uint32_t, std::string> &nodeNames,
                                       std::vector<std::string> *names)
{
    std::vector<HostTensor> outputs;
    if (names)
        names->clear();
    if (args.size() == 1) {
        flattenArg(args[0], result, nodeNames, outputs, names);
        return outputs;
    }
    const auto &elements = result.toTupleRef().elements();
    for (size_t i = 0; i < args.size(); ++i)
        flattenArg(args[i], elements.at(i), nodeNames, outputs, names);
    return outputs;
}

} // namespace

struct Executor::Impl {
    torchlower::LoweredGraph lowered;
    std::unique_ptr<jit::Code> code;
    std::vector<std::string> inputNames;
    std::vector<TensorMeta> inputMetas;
    /// Names of the IR nodes the output args refer to, by id (the IR graph
    /// may be gone by the time the executor runs).
    std::unordered_map<uint32_t, std::string> names;
};

Executor::Executor(std::unique_ptr<Impl> impl)
    : m_impl(std::move(impl))
{}
Executor::Executor(Executor &&) noexcept = default;
Executor &Executor::operator=(Executor &&) noexcept = default;
Executor::~Executor() = default;

size_t Executor::inputCount() const
{
    return m_impl->inputNames.size();
}

Expected<Executor> Executor::create(const Graph &graph)
{
    Expected<torchlower::LoweredGraph> lowered = torchlower::lowerGraph(graph);
    if (!lowered)
        return lowered.error();
    auto impl = std::make_unique<Impl>();
    impl->lowered = std::move(lowered).value();
    for (NodeId id : impl->lowered.inputs) {
        impl->inputNames.push_back(graph.node(id)->name);
        impl->inputMetas.push_back(graph.node(id)->meta);
    }
    for (const Arg &arg : impl->lowered.outputs)
        forEachNodeRef(arg, [&](NodeId id) { impl->names[id.value] = graph.node(id)->name; });
    try {
        impl->code = std::make_unique<jit::Code>(impl->lowered.graph, "forward");
    } catch (const std::exception &e) {
        return Error{"cannot compile the lowered graph: " + oneLineMessage(e)};
    }
    return Executor(std::move(impl));
}

Expected<std::vector<HostTensor>> Executor::run(const std::vector<HostTensor> &inputs,
                                                std::vector<std::string> *outputNames) const
{
    const Impl &impl = *m_impl;
    if (inputs.size() != impl.inputNames.size())
        return Error{"the graph has " + std::to_string(impl.inputNames.size()) + " inputs, "
                     + std::to_string(inputs.size()) + " given"};
    std::vector<at::Tensor> tensors;
    try {
        for (size_t i = 0; i < inputs.size(); ++i) {
            std::string what = "input " + std::to_string(i) + " (%" + impl.inputNames[i] + ")";
            DType recorded = impl.inputMetas[i].dtype;
            if (recorded != DType::Unknown && recorded != inputs[i].meta.dtype)
                return Error{what + ": " + std::string(shortName(recorded)) + " expected, "
                             + std::string(shortName(inputs[i].meta.dtype)) + " given"};
            tensors.push_back(torchimport::tensorFromWeight(inputs[i], what));
        }
    } catch (const std::exception &e) {
        return Error{oneLineMessage(e)};
    }

    at::NoGradGuard noGrad;
    jit::Stack stack(tensors.begin(), tensors.end());
    try {
        jit::InterpreterState(*impl.code).run(stack);
    } catch (const std::exception &e) {
        std::shared_ptr<jit::Graph> copy = impl.lowered.graph->copy();
        std::string failing;
        try {
            failing = torchimport::findFailingNode(*copy, tensors);
        } catch (const std::exception &) {
        }
        return Error{failing.empty() ? "running the graph failed: " + interpreterMessage(e) : failing};
    }

    try {
        return flattenOutputs(impl.lowered.outputs, stack.at(0), impl.names, outputNames);
    } catch (const std::exception &e) {
        return Error{oneLineMessage(e)};
    }
}

Expected<std::vector<HostTensor>> runGraph(const Graph &graph, const std::vector<HostTensor> &inputs)
{
    Expected<Executor> executor = Executor::create(graph);
    if (!executor)
        return executor.error();
    return executor->run(inputs);
}

Expected<std::vector<HostTensor>> runTorchScriptModule(const std::string &path, const std::vector<HostTensor> &inputs)
{
    try {
        jit::Module module = jit::load(path);
        module.eval();
        std::vector<c10::IValue> args;
        for (size_t i = 0; i < inputs.size(); ++i)
            args.emplace_back(torchimport::tensorFromWeight(inputs[i], "input " + std::to_string(i)));
        at::NoGradGuard noGrad;
        std::vector<HostTensor> outputs;
        flattenValue(module.forward(std::move(args)), "", outputs, nullptr);
        return outputs;
    } catch (const std::exception &e) {
        return Error{path + ": " + interpreterMessage(e)};
    }
}

} // namespace fusebox
