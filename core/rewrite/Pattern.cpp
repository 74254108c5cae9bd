#include "Pattern.h"

#include <algorithm>

#include <sstream>

namespace fusebox {

std::string_view toString(PatternFamily family)
{
    return family == PatternFamily::Vertical ? "vertical" : "horizontal";
}

std::string_view toString(PassStage stage)
{
    return stage == PassStage::PreGrad ? "pre_grad" : "post_grad";
}

int64_t PatternOptions::getInt(const std::string &name, int64_t fallback) const
{
    auto it = m_values.find(name);
    if (it == m_values.end())
        return fallback;
    return std::visit([](auto v) { return static_cast<int64_t>(v); }, it->second);
}

bool PatternOptions::getBool(const std::string &name, bool fallback) const
{
    auto it = m_values.find(name);
    if (it == m_values.end())
        return fallback;
    return std::visit([](auto v) { return v != 0; }, it->second);
}

double PatternOptions::getDouble(const std::string &name, double fallback) const
{
    auto it = m_values.find(name);
    if (it == m_values.end())
        return fallback;
    return std::visit([](auto v) { return static_cast<double>(v); }, it->second);
}

std::string toString(const OptionValue &value)
{
    if (const bool *b = std::get_if<bool>(&value))
        return *b ? "true" : "false";
    if (const int64_t *i = std::get_if<int64_t>(&value))
        return std::to_string(*i);
    std::ostringstream os;
    os << std::get<double>(value);
    return os.str();
}

Pattern::Pattern(std::string name, PassStage stage, int benefit, std::vector<std::string> rootOps,
                 std::string description)
    : m_name(std::move(name))
    , m_stage(stage)
    , m_benefit(benefit)
    , m_rootOps(std::move(rootOps))
    , m_description(std::move(description))
{}

bool Pattern::follows(std::string_view behaviour) const
{
    return std::find(m_behaviours.begin(), m_behaviours.end(), behaviour) != m_behaviours.end();
}

bool Pattern::isRootOp(std::string_view op) const
{
    for (const std::string &root : m_rootOps)
        if (op == root)
            return true;
    return false;
}

HorizontalPattern::HorizontalPattern(std::string name, PassStage stage, int benefit, std::vector<std::string> rootOps,
                                     std::string description)
    : Pattern(std::move(name), stage, benefit, std::move(rootOps), std::move(description))
{
    options().set("min_fuse_set_size", search_defaults::kMinFuseSetSize);
    options().set("max_fuse_set_size", search_defaults::kMaxFuseSetSize);
    options().set("max_fuse_search_depth", search_defaults::kMaxFuseSearchDepth);
}

InductorCounts VerticalPattern::inductorCounts(const Graph &, const Match &) const
{
    InductorCounts counts;
    counts.added[name()] = 1;
    return counts;
}

InductorCounts VerticalPattern::inductorCountsWithoutRewrite(const Graph &, NodeId) const
{
    return {};
}

} // namespace fusebox
