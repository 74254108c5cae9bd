#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fusebox {

/// One argument or return of an op schema, as libtorch declares it.
struct SchemaArgument {
    std::string name;
    /// TorchScript type text: "Tensor", "int[]", "ScalarType?", "float".
    std::string type;
    /// Default value as the schema writes it ("1", "None", "[]"), when there is one.
    std::optional<std::string> defaultValue;
    bool kwargOnly = false;
};

/// A registered operator signature: aten::split.Tensor(Tensor(a) self, int split_size, int dim=0) -> Tensor(a)[]
struct OpSchema {
    /// Qualified name without overload: "aten::split".
    std::string name;
    /// Overload name: "Tensor"; empty for the default overload.
    std::string overload;
    std::vector<SchemaArgument> arguments;
    std::vector<SchemaArgument> returns;
    /// True when the op writes to one of its arguments (in-place/out variants).
    bool isMutable = false;

    /// "aten::split.Tensor" or "aten::relu".
    std::string qualifiedName() const { return overload.empty() ? name : name + "." + overload; }
    /// The whole signature as libtorch prints it.
    std::string toString() const;
    /// Index of the argument called name, or -1.
    int argumentIndex(std::string_view argName) const;
};

/// The op schemas known to this process. core/ defines it so that core code
/// can normalise arguments without libtorch; core/torch fills it from libtorch's
/// operator registry (loadTorchSchemas()), tests may fill it by hand.
class OpSchemaRegistry {
public:
    /// Adds a schema; a later schema with the same qualified name replaces the earlier.
    void add(OpSchema schema);
    /// Every overload of name ("aten::split"), in registration order.
    std::vector<const OpSchema *> overloads(std::string_view name) const;
    /// True when name has an overload: overloads(name) is not empty, found
    /// without building the list (readers ask for every call they read).
    bool knows(std::string_view name) const { return m_byName.find(name) != m_byName.end(); }
    /// The schema name.overload, or nullptr. An empty overload finds the default one.
    const OpSchema *find(std::string_view name, std::string_view overload = {}) const;
    /// Number of schemas (overloads counted separately).
    size_t size() const { return m_schemas.size(); }
    /// Distinct op names, sorted.
    std::vector<std::string> opNames() const;

    /// The registry as a schema table: one schema a line, tab-separated
    /// fields (name, overload, mutable, argument and return counts, then
    /// name, type, flags and default of each). What fusebox-dump-schemas
    /// embeds in the light build, which reads it much faster than the
    /// bridge's JSON. Throws std::invalid_argument when a field holds a tab
    /// or a newline (no libtorch schema does).
    std::string toTable() const;
    /// Reads toTable()'s text; an Error names the line that does not read.
    struct TableResult;
    static TableResult fromTable(std::string_view table);

private:
    struct NameHash {
        using is_transparent = void;
        size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    std::vector<OpSchema> m_schemas;
    /// Each name's overloads (indices into m_schemas) in registration order:
    /// readers look names up once per call they read.
    std::unordered_map<std::string, std::vector<size_t>, NameHash, std::equal_to<>> m_byName;
};

/// OpSchemaRegistry::fromTable's answer: the registry, or the line that does not read.
struct OpSchemaRegistry::TableResult {
    OpSchemaRegistry registry;
    /// Empty when the table read; else "line N: expected …".
    std::string error;
};

} // namespace fusebox
