#include "OpSchema.h"

#include "TextSplit.h"

#include <algorithm>
#include <charconv>
#include <stdexcept>

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
    m_byName[schema.name].push_back(m_schemas.size());
    m_schemas.push_back(std::move(schema));
}

std::vector<const OpSchema *> OpSchemaRegistry::overloads(std::string_view name) const
{
    std::vector<const OpSchema *> found;
    if (auto it = m_byName.find(name); it != m_byName.end()) {
        found.reserve(it->second.size());
        for (size_t index : it->second)
            found.push_back(&m_schemas[index]);
    }
    return found;
}

const OpSchema *OpSchemaRegistry::find(std::string_view name, std::string_view overload) const
{
    auto it = m_byName.find(name);
    if (it == m_byName.end())
        return nullptr;
    for (size_t index : it->second)
        if (m_schemas[index].overload == overload)
            return &m_schemas[index];
    return nullptr;
}

std::vector<std::string> OpSchemaRegistry::opNames() const
{
    std::vector<std::string> names;
    names.reserve(m_byName.size());
    for (const auto &[name, indices] : m_byName)
        names.push_back(name);
    std::sort(names.begin(), names.end());
    return names;
}

// ---- the schema table ----------------------------------------------------------

namespace {

/// Appends a field, which must not hold the table's separators.
void appendField(std::string &out, std::string_view field)
{
    if (field.find_first_of("\t\n") != std::string_view::npos)
        throw std::invalid_argument("a schema field holds a tab or a newline: " + std::string(field));
    out += field;
}

void appendArgument(std::string &out, const SchemaArgument &a)
{
    out += '\t';
    appendField(out, a.name);
    out += '\t';
    appendField(out, a.type);
    out += '\t';
    out += a.kwargOnly ? 'k' : '-';
    out += a.defaultValue ? 'd' : '-';
    out += '\t';
    if (a.defaultValue)
        appendField(out, *a.defaultValue);
}

bool readCount(std::string_view field, size_t &out)
{
    const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), out);
    return ec == std::errc() && end == field.data() + field.size();
}

} // namespace

std::string OpSchemaRegistry::toTable() const
{
    std::string out;
    for (const OpSchema &s : m_schemas) {
        appendField(out, s.name);
        out += '\t';
        appendField(out, s.overload);
        out += '\t';
        out += s.isMutable ? '1' : '0';
        out += '\t';
        out += std::to_string(s.arguments.size());
        out += '\t';
        out += std::to_string(s.returns.size());
        for (const SchemaArgument &a : s.arguments)
            appendArgument(out, a);
        for (const SchemaArgument &a : s.returns)
            appendArgument(out, a);
        out += '\n';
    }
    return out;
}

OpSchemaRegistry::TableResult OpSchemaRegistry::fromTable(std::string_view table)
{
    TableResult result;
    size_t lineNumber = 0;
    while (!table.empty()) {
        ++lineNumber;
        const size_t newline = table.find('\n');
        const std::string_view line = table.substr(0, newline);
        table.remove_prefix(newline == std::string_view::npos ? table.size() : newline + 1);
        if (line.empty())
            continue;
        const std::vector<std::string_view> f = splitAt(line, '\t');
        size_t arguments = 0, returns = 0;
        if (f.size() < 5 || !readCount(f[3], arguments) || !readCount(f[4], returns)
            || f.size() != 5 + 4 * (arguments + returns) || (f[2] != "0" && f[2] != "1")) {
            result.error = "line " + std::to_string(lineNumber)
                           + ": expected name, overload, mutable, the counts and four fields per argument";
            return result;
        }
        OpSchema schema;
        schema.name = f[0];
        schema.overload = f[1];
        schema.isMutable = f[2] == "1";
        auto argumentAt = [&](size_t i) {
            const size_t at = 5 + 4 * i;
            SchemaArgument a;
            a.name = f[at];
            a.type = f[at + 1];
            a.kwargOnly = !f[at + 2].empty() && f[at + 2][0] == 'k';
            if (f[at + 2].size() > 1 && f[at + 2][1] == 'd')
                a.defaultValue = std::string(f[at + 3]);
            return a;
        };
        schema.arguments.reserve(arguments);
        for (size_t i = 0; i < arguments; ++i)
            schema.arguments.push_back(argumentAt(i));
        schema.returns.reserve(returns);
        for (size_t i = 0; i < returns; ++i)
            schema.returns.push_back(argumentAt(arguments + i));
        result.registry.add(std::move(schema));
    }
    return result;
}

} // namespace fusebox
