#pragma once
// Internal to the torch.export importer: a JSON value together with its path
// in the document, so that every type error names the field that is wrong.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fusebox::export_json {

/// Thrown inside the importer, caught at its public entry points and turned
/// into an Error "<source>: <path>: <message>".
struct JsonPathError {
    std::string path;
    std::string message;
};

/// A JSON value and its dotted path ("graph_module.graph.nodes[3].target").
/// Accessors check the type and throw JsonPathError naming the path and the
/// value actually found.
class Cursor {
public:
    Cursor(const nlohmann::json &value, std::string path)
        : m_value(&value)
        , m_path(std::move(path))
    {}

    const nlohmann::json &json() const { return *m_value; }
    const std::string &path() const { return m_path; }

    /// The member `key` of this object; throws when this is not an object or lacks the key.
    Cursor operator[](std::string_view key) const;
    /// The member `key`, or nullopt when absent or null; throws when this is not an object.
    std::optional<Cursor> find(std::string_view key) const;
    /// Item i of this array (the caller keeps i < size()).
    Cursor operator[](size_t index) const;
    /// Number of items; throws when this is not an array.
    size_t size() const;

    /// Throws unless this is an object.
    const nlohmann::json &object() const;
    std::string string() const;
    int64_t integer() const;
    /// A number; also the strings "Infinity", "-Infinity", "NaN" that the serializer writes.
    double number() const;
    bool boolean() const;

    /// Throws JsonPathError{path(), message}.
    [[noreturn]] void fail(const std::string &message) const;
    /// Throws "expected <what>, found <describe(value)>".
    [[noreturn]] void expected(const std::string &what) const;

private:
    const nlohmann::json *m_value;
    std::string m_path;
};

/// "a.b" (or "b" when the parent path is empty).
std::string childPath(const std::string &parent, std::string_view key);

} // namespace fusebox::export_json
