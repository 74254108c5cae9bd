#include "core/pt2/InductorComparison.h"

#include "core/io/FxText.h"
#include "core/ir/ShapeInference.h"
#include "core/pt2/InductorInput.h"
#include "core/rewrite/CanonicalCalls.h"

#include <algorithm>

namespace fusebox::pt2 {

std::optional<StructuralDifference> firstCanonicalDifference(const Graph &a, const Graph &b,
                                                             const OpSchemaRegistry &schemas)
{
    Graph left = a.clone(), right = b.clone();
    for (Graph *g : {&left, &right}) {
        canonicaliseCalls(*g, schemas);
        forgetListMetadata(*g);
    }
    // clone() keeps NodeIds, so the difference names nodes of a and b.
    return firstStructuralDifference(left, right);
}

Expected<InductorComparison> compareWithInductor(Pt2Bridge &bridge, const Graph &original,
                                                 const std::string &originalPath, const Graph &fuseboxResult,
                                                 const std::string &configJson, const OpSchemaRegistry &schemas,
                                                 const RequestControl &control)
{
    auto inductor = bridge.runInductor(graphTextForInductor(original, originalPath), configJson, "auto",
                                       inductorInputsOf(original), control);
    if (!inductor)
        return Error{"Inductor: " + inductor.error().message};
    auto graph = readFxText(inductor->graphText, {&schemas, "Inductor's result"});
    if (!graph)
        return Error{"cannot read Inductor's result back: " + graph.error().message};
    // The printed graph annotates named values only; the steps a subscript
    // becomes get their shapes as on Fusebox's side, where loading infers them.
    inferShapes(graph->graph);
    InductorComparison out;
    out.difference = firstCanonicalDifference(fuseboxResult, graph->graph, schemas);
    out.inductor = std::move(*inductor);
    out.inductorGraph = std::move(graph->graph);
    return out;
}

std::vector<CountDifference> countDifferences(const std::map<std::string, int64_t> &fuseboxCounts,
                                              const Counters &inductorCounters, const std::set<std::string> &passesRun)
{
    std::vector<CountDifference> differences;
    for (const auto &[counter, theirs] : inductorCounters) {
        if (!passesRun.count(counter))
            continue;
        auto ours = fuseboxCounts.find(counter);
        const int64_t mine = ours == fuseboxCounts.end() ? 0 : ours->second;
        if (mine != theirs)
            differences.push_back({counter, mine, theirs});
    }
    std::sort(differences.begin(), differences.end(),
              [](const CountDifference &a, const CountDifference &b) { return a.pass < b.pass; });
    return differences;
}

} // namespace fusebox::pt2
