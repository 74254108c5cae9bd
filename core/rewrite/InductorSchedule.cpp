#include "InductorSchedule.h"

#include "InductorScheduleRun.h"

#include "core/ir/GraphSource.h"
#include "core/ir/Traversal.h"

#include <algorithm>
#include <array>
#include <set>

namespace fusebox {
namespace {

/// pre_grad.py's fuse_fx runs these before any configured pass, whatever the
/// config says (2.6 has no config key for them).
constexpr std::array<std::string_view, 4> kFuseFxRules = {"sink_cat_after_pointwise", "linear_permute_fusion",
                                                          "permute_linear_fusion", "permute_matmul_fusion"};

/// Passes 2.6 names but registers no pattern for: their PatternMatcherPass
/// is empty, so Inductor's schedule changes nothing with them.
constexpr std::array<std::string_view, 1> kPassesWithoutPatterns = {"merge_stack_tahn_unbind_pass"};

} // namespace

bool isFuseFxRule(std::string_view name)
{
    return std::find(kFuseFxRules.begin(), kFuseFxRules.end(), name) != kFuseFxRules.end();
}

bool inductorRegistersNoPattern(std::string_view pass)
{
    return std::find(kPassesWithoutPatterns.begin(), kPassesWithoutPatterns.end(), pass)
           != kPassesWithoutPatterns.end();
}

GraphStage graphStage(const Graph &graph)
{
    auto format = graph.metadata().find("source.format");
    const std::string f = format == graph.metadata().end() ? std::string() : format->second;
    const bool pt2 = f == "fx-text" || f == "fx-graph" || f == "torch.export" || f.starts_with("pt2");
    if (!pt2)
        return GraphStage::Both;
    return isPreGradGraph(graph) ? GraphStage::PreGrad : GraphStage::PostGrad;
}

bool runsOnStage(PassStage pass, GraphStage graph)
{
    return graph == GraphStage::Both || (pass == PassStage::PreGrad) == (graph == GraphStage::PreGrad);
}

std::string_view toString(GraphStage stage)
{
    switch (stage) {
    case GraphStage::PreGrad: return "pre_grad";
    case GraphStage::PostGrad: return "post_grad";
    case GraphStage::Both: break;
    }
    return "pre_grad+post_grad";
}

std::vector<ScheduledPass> inductorSchedule(const PatternSet &patterns, PassStage stage,
                                            const std::vector<std::string> &order)
{
    // The stage's runnable patterns, named ones in the config's order first.
    std::vector<const Pattern *> ordered;
    auto runnable = [&](const Pattern *p) {
        return p && p->stage() == stage && p->unavailableReason().empty() && !inductorRegistersNoPattern(p->name())
               && std::find(ordered.begin(), ordered.end(), p) == ordered.end();
    };
    const std::vector<const Pattern *> enabled = patterns.enabled();
    for (const std::string &name : order) {
        const Pattern *p = patterns.find(name);
        if (runnable(p) && std::find(enabled.begin(), enabled.end(), p) != enabled.end())
            ordered.push_back(p);
    }
    for (const Pattern *p : enabled)
        if (runnable(p))
            ordered.push_back(p);

    std::vector<ScheduledPass> schedule;
    auto add = [&](const Pattern *p, bool honoursCounter) {
        schedule.push_back({p->name(), honoursCounter ? std::max<int64_t>(0, p->options().getInt("counter", 1)) : 1});
    };
    if (stage == PassStage::PreGrad) {
        // fuse_fx runs sink_cat_after_pointwise whatever the config says; the
        // permute fusions only under config.permute_fusion off the CPU, so
        // here only when enabled.
        const Pattern *sink = patterns.find("sink_cat_after_pointwise");
        if (sink && sink->stage() == stage && sink->unavailableReason().empty())
            add(sink, false);
        for (const Pattern *p : ordered)
            if (isFuseFxRule(p->name()) && p != sink)
                add(p, false);
        // pre_grad_passes runs normalization_pass first wherever the config
        // lists it, and once.
        for (const Pattern *p : ordered)
            if (p->name() == "normalization_pass")
                add(p, false);
    }
    for (const Pattern *p : ordered)
        if (p->family() == PatternFamily::Horizontal && !isFuseFxRule(p->name()))
            add(p, false);
    for (const Pattern *p : ordered)
        if (p->family() == PatternFamily::Vertical && !isFuseFxRule(p->name()) && p->name() != "normalization_pass")
            add(p, stage == PassStage::PreGrad);
    return schedule;
}

InductorScheduleDriver::InductorScheduleDriver(const PatternSet &patterns, std::vector<std::string> preGradOrder,
                                               std::vector<std::string> postGradOrder, DriverOptions options)
    : m_patterns(patterns)
    , m_preGradOrder(std::move(preGradOrder))
    , m_postGradOrder(std::move(postGradOrder))
    , m_options(std::move(options))
{}

namespace {

/// The device types of the graph's tensor inputs ("cuda" for "cuda:0"); a
/// tensor input without a recorded device adds "".
std::set<std::string> inputDeviceTypes(const Graph &graph)
{
    std::set<std::string> types;
    for (NodeId id : graph.inputs()) {
        const Node &n = *graph.node(id);
        if (n.type == "Tensor")
            types.insert(n.meta.device.substr(0, n.meta.device.find(':')));
    }
    return types;
}

std::string listed(const std::vector<std::string> &items)
{
    std::string s;
    for (const std::string &i : items)
        s += (s.empty() ? "" : ", ") + i;
    return "[" + s + "]";
}

} // namespace

std::string droppedForDevices(const Pattern &pattern, const Graph &graph)
{
    const auto &wanted = pattern.requiredDevices();
    if (wanted.empty())
        return {};
    const std::set<std::string> have = inputDeviceTypes(graph);
    for (const std::string &d : wanted)
        if (have.count(d))
            return {};
    std::string seen;
    for (const std::string &d : have)
        if (!d.empty())
            seen += (seen.empty() ? "" : ", ") + d;
    if (seen.empty() || have.count(""))
        return pattern.name() + " kept: its devices are " + listed(wanted) + " and the graph's inputs record "
               + (seen.empty() ? "no device" : "no device for some (others: " + seen + ")")
               + ", so Fusebox cannot tell whether Inductor drops it";
    return pattern.name() + " dropped: its devices are " + listed(wanted) + " and no input of the graph is on one ("
           + seen + "), as Inductor drops it (_resolve_pre_grad_fusion_options)";
}

std::vector<ScheduledPass> InductorScheduleDriver::schedule(GraphStage stage, const Graph *graph) const
{
    std::vector<PassStage> stages;
    if (stage != GraphStage::PostGrad)
        stages.push_back(PassStage::PreGrad);
    if (stage != GraphStage::PreGrad)
        stages.push_back(PassStage::PostGrad);
    std::vector<ScheduledPass> schedule;
    auto anyStage = [&](const std::string &name) {
        return std::find(m_anyStage.begin(), m_anyStage.end(), name) != m_anyStage.end();
    };
    auto dropped = [&](const std::string &name) {
        const Pattern *p = m_patterns.find(name);
        return graph && p && droppedForDevices(*p, *graph).find(" dropped: ") != std::string::npos;
    };
    for (PassStage s : stages)
        for (ScheduledPass &pass :
             inductorSchedule(m_patterns, s, s == PassStage::PreGrad ? m_preGradOrder : m_postGradOrder))
            if (!anyStage(pass.pattern) && !dropped(pass.pattern))
                schedule.push_back(std::move(pass));
    const std::vector<const Pattern *> enabled = m_patterns.enabled();
    for (const std::string &name : m_anyStage) {
        const Pattern *p = m_patterns.find(name);
        if (p && p->unavailableReason().empty() && std::find(enabled.begin(), enabled.end(), p) != enabled.end())
            schedule.push_back({name, 1});
    }
    return schedule;
}

DriverResult InductorScheduleDriver::run(Graph &graph, EditLog *log, DriverListener *listener) const
{
    return run(graph, graphStage(graph), log, listener);
}

DriverResult InductorScheduleDriver::run(Graph &graph, GraphStage stage, EditLog *log, DriverListener *listener) const
{
    InductorScheduleRun run(graph, m_patterns, m_options, m_observer, log, listener);
    return run.run(schedule(stage, &graph));
}

} // namespace fusebox
