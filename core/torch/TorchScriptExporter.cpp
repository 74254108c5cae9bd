#include "TorchScriptExporter.h"

#include "IrToTorchGraph.h"
#include "TorchShapeInference.h"
#include "TorchValueConversion.h"

#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>

#include <optional>
#include <set>
#include <unordered_map>

namespace fusebox {
namespace {

namespace jit = torch::jit;

constexpr const char *kClassName = "__torch__.fusebox.ExportedModule";

/// Names a buffer must not take: the module's own attribute and method, and
/// what Python's ScriptModule would shadow.
const std::set<std::string> &reservedNames()
{
    static const std::set<std::string> kReserved = {
        "training",   "forward", "code",    "graph",    "inlined_graph", "original_name", "eval", "train",
        "to",         "cpu",     "cuda",    "float",    "double",        "half",          "type", "state_dict",
        "parameters", "buffers", "modules", "children", "apply",         "save",          "self",
    };
    return kReserved;
}

std::string uniqueName(const std::string &base, std::set<std::string> &taken)
{
    const std::string name = torchimport::sanitizeIdentifier(base);
    std::string candidate = name;
    for (int k = 1; taken.count(candidate); ++k)
        candidate = name + "_" + std::to_string(k);
    taken.insert(candidate);
    return candidate;
}

/// fusebox/inputs.json for the graph, or nullopt when an input's shape is not static.
std::optional<std::string> inputSpecsJson(const Graph &graph)
{
    std::vector<std::string> names;
    std::vector<torchimport::InputSpec> specs;
    for (NodeId id : graph.inputs()) {
        const Node &input = *graph.node(id);
        if (!input.meta.hasStaticShape())
            return std::nullopt;
        torchimport::InputSpec spec;
        for (const Dim &d : *input.meta.shape)
            spec.shape.push_back(std::get<int64_t>(d));
        spec.dtype = input.meta.dtype == DType::Unknown ? DType::Float32 : input.meta.dtype;
        names.push_back(input.name);
        specs.push_back(std::move(spec));
    }
    return torchimport::formatInputSpecs(names, specs);
}

/// Replaces the lowered graph's tensor constants by buffers of `module` read
/// from `self`, one buffer per weight key.
void constantsToBuffers(const Graph &graph, const torchlower::LoweredGraph &lowered, jit::Module &module,
                        jit::Value *self)
{
    std::set<std::string> taken = reservedNames();
    std::unordered_map<std::string, std::string> bufferOfKey;
    for (const torchlower::LoweredConstant &constant : lowered.constants) {
        const Node &node = *graph.node(constant.node);
        auto [it, fresh] = bufferOfKey.try_emplace(node.weightKey);
        if (fresh) {
            it->second = uniqueName(node.name, taken);
            module.register_buffer(it->second, jit::toIValue(constant.value)->toTensor());
        }
        jit::Graph &g = *constant.value->owningGraph();
        jit::WithInsertPoint point(constant.value->node());
        jit::Value *read = g.insertGetAttr(self, it->second);
        const std::string name = constant.value->debugName();
        constant.value->replaceAllUsesWith(read);
        constant.value->node()->destroy();
        read->setDebugName(name);
    }
}

} // namespace

Status exportTorchScript(const Graph &graph, const std::string &path)
{
    Expected<torchlower::LoweredGraph> lowered = torchlower::lowerGraph(graph);
    if (!lowered)
        return Error{path + ": cannot export: " + lowered.error().message};
    try {
        auto unit = std::make_shared<jit::CompilationUnit>();
        jit::Module module(c10::QualifiedName(kClassName), unit, /*shouldMangle=*/true);
        module.register_attribute("training", c10::BoolType::get(), false);

        std::shared_ptr<jit::Graph> forward = lowered->graph;
        jit::Value *self = forward->insertInput(0, "self");
        self->setType(module.type());
        constantsToBuffers(graph, *lowered, module, self);

        jit::Function *function = unit->create_function(c10::QualifiedName(*module.type()->name(), "forward"), forward);
        module.type()->addMethod(function);

        jit::ExtraFilesMap extraFiles;
        if (std::optional<std::string> specs = inputSpecsJson(graph))
            extraFiles[torchimport::kInputSpecsFile] = *specs;
        module.save(path, extraFiles);
    } catch (const std::exception &e) {
        return Error{path + ": cannot export: " + torchimport::oneLineMessage(e)};
    }
    return Status::ok();
}

} // namespace fusebox
