#include "Commands.h"

#include "core/ir/GraphSummary.h"
#include "core/ir/ShapeInference.h"

#include <nlohmann/json.hpp>

#include <iomanip>
#include <iostream>

namespace fusebox::cli {
namespace {

std::string typeAndMeta(const Node &n)
{
    if (n.type == "Tensor" || n.meta.isKnown())
        return n.meta.isKnown() ? n.meta.toString() : "Tensor (shape unknown)";
    return n.type;
}

nlohmann::json valueJson(const Node &n)
{
    nlohmann::json j{{"name", n.name}, {"type", n.type}};
    if (n.meta.dtype != DType::Unknown)
        j["dtype"] = std::string(shortName(n.meta.dtype));
    if (n.meta.shape)
        j["shape"] = n.meta.shapeString();
    return j;
}

int runInspect(const ParsedArgs &args)
{
    if (args.positionals.size() != 1) {
        std::cerr << "fusebox-pass inspect: expected one MODEL argument (see --help)\n";
        return kExitUsage;
    }
    auto model = loadModelForCommand(args, "inspect");
    if (!model)
        return kExitFailure;
    const Graph &g = model->graph;
    const GraphSummary s = summarize(g);
    std::vector<NodeId> outputs = g.outputValues();
    const ShapeCounts shapes = countShapes(g);
    const std::string inferredBy = g.metadata().count("shapes.inferred_by") ? g.metadata().at("shapes.inferred_by")
                                                                            : "";

    if (args.has("--json")) {
        nlohmann::json j;
        j["file"] = args.positionals[0];
        j["format"] = g.metadata().count("source.format") ? g.metadata().at("source.format") : "";
        j["nodes"] = s.nodes;
        j["edges"] = s.edges;
        j["inputs_count"] = s.inputs;
        j["constants"] = s.constants;
        j["ops"] = s.ops;
        // Over op values that are one tensor (list values such as split's are
        // counted through their getitems): how many have a shape.
        j["shapes"] = {{"known", shapes.known}, {"unknown", shapes.unknown}};
        if (!inferredBy.empty())
            j["shapes"]["inferred_by"] = inferredBy;
        j["op_histogram"] = nlohmann::json::object();
        for (const auto &[op, count] : s.opCounts)
            j["op_histogram"][op] = count;
        j["inputs"] = nlohmann::json::array();
        for (NodeId id : g.inputs())
            j["inputs"].push_back(valueJson(*g.node(id)));
        j["outputs"] = nlohmann::json::array();
        for (NodeId id : outputs)
            j["outputs"].push_back(valueJson(*g.node(id)));
        j["warnings"] = model->warnings;
        std::cout << j.dump(2) << "\n";
        return kExitOk;
    }

    std::cout << args.positionals[0];
    if (g.metadata().count("source.format"))
        std::cout << "  (" << g.metadata().at("source.format") << ")";
    std::cout << "\n"
              << "nodes: " << s.nodes << "  (" << s.inputs << " inputs, " << s.constants << " constants, " << s.ops
              << " ops, 1 output)\n"
              << "edges: " << s.edges << "\n"
              << "shapes: " << shapes.known << " of " << shapes.known + shapes.unknown << " op values known";
    if (shapes.unknown)
        std::cout << " (" << shapes.unknown << " unknown: the rules cannot decide on them)";
    if (!inferredBy.empty())
        std::cout << "; inferred by " << inferredBy;
    std::cout << "\n"
              << "inputs:\n";
    for (NodeId id : g.inputs())
        std::cout << "  " << std::left << std::setw(24) << g.node(id)->name << " " << typeAndMeta(*g.node(id)) << "\n";
    std::cout << "outputs:\n";
    for (NodeId id : outputs)
        std::cout << "  " << std::left << std::setw(24) << g.node(id)->name << " " << typeAndMeta(*g.node(id)) << "\n";
    std::cout << "ops (" << s.opCounts.size() << " distinct):\n";
    for (const auto &[op, count] : s.opHistogram)
        std::cout << "  " << std::right << std::setw(6) << count << "  " << op << "\n";
    return kExitOk;
}

} // namespace

Command inspectCommand()
{
    return {"inspect",
            "inspect MODEL [--json] [--input-shape N,N,...]",
            "print node count, op histogram, inputs and outputs with shapes",
            "Reads MODEL (TorchScript, torch.export, FX text or graph JSON) and prints its node and\n"
            "edge counts, the histogram of operators and the graph's inputs and outputs\n"
            "with their shapes. Warnings (e.g. control flow imported as opaque nodes)\n"
            "go to stderr.",
            {{"--json", "", "print the summary as JSON"},
             inputShapeOption(),
             warningsOption(),
             shapesOption(),
             shapesFromPytorchOption()},
            runInspect};
}

} // namespace fusebox::cli
