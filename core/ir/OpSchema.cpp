#include "OpSchema.h"

#include <set>

namespace fusebox {

std::string OpSchema::toString() const
{
    auto formatArgs = [](const std::vector<SchemaArgument> &args, bool withKwargMarker) {
        std::string s;
        bool markedKwargs = false;
        for (size_t i = 0; i < args.size(); ++i) {
            if (i)
                s += ", ";
            if (withKwargMarker && args[i].kwargOnly && !markedKwargs) {
                s += "*, ";
                markedKwargs = true;
            }
            s += args[i].type;
            if (!args[i].name.empty())
                s += " " + args[i].name;
            if (args[i].defaultValue)
                s += "=" + *args[i].defaultValue;
        }
        return s;
    };
    std::string rets = formatArgs(returns, false);
    if (returns.size() != 1)
        rets = "(" + rets + ")";
    return qualifiedName() + "(" + formatArgs(arguments, true) + ") -> " + rets;
}

int OpSchema::argumentIndex(std::string_view argName) const
{
    for (size_t i = 0; i < arguments.size(); ++i)
        if (arguments[i].name == argName)
            return static_cast<int>(i);
    return -1;
}

void OpSchemaRegistry::add(OpSchema schema)
{
    if (const OpSchema *existing = find(schema.name, schema.overload)) {
        m_schemas[existing - m_schemas.data()] = std::move(schema);
        return;
    }
    m_byName.emplace(schema.name, m_schemas.size());
    m_schemas.push_back(std::move(schema));
}

std::vector<const OpSchema *> OpSchemaRegistry::overloads(std::string_view name) const
{
    std::vector<const OpSchema *> found;
    auto [begin, end] = m_byName.equal_range(name);
    for (auto it = begin; it != end; ++it)
        found.push_back(&m_schemas[it->second]);
    return found;
}

const OpSchema *OpSchemaRegistry::find(std::string_view name, std::string_view overload) const
{
    auto [begin, end] = m_byName.equal_range(name);
    for (auto it = begin; it != end; ++it)
        if (m_schemas[it->second].overload == overload)
            return &m_schemas[it->second];
    return nullptr;
}

std::vector<std::string> OpSchemaRegistry::opNames() const
{
    std::set<std::string> names;
    for (const OpSchema &s : m_schemas)
        names.insert(s.name);
    return {names.begin(), names.end()};
}

} // namespace fusebox
