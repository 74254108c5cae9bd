#include "ExportJsonCursor.h"

#include "JsonSupport.h"

#include <cmath>
#include <limits>

namespace fusebox::export_json {

std::string childPath(const std::string &parent, std::string_view key)
{
    return parent.empty() ? std::string(key) : parent + "." + std::string(key);
}

void Cursor::fail(const std::string &message) const
{
    throw JsonPathError{m_path, message};
}

void Cursor::expected(const std::string &what) const
{
    fail("expected " + what + ", found "
         + (m_value->is_null() ? std::string("null") : json_support::describe(*m_value)));
}

const nlohmann::json &Cursor::object() const
{
    if (!m_value->is_object())
        expected("an object");
    return *m_value;
}

Cursor Cursor::operator[](std::string_view key) const
{
    auto it = object().find(key);
    if (it == m_value->end())
        throw JsonPathError{childPath(m_path, key), "missing"};
    return Cursor(*it, childPath(m_path, key));
}

std::optional<Cursor> Cursor::find(std::string_view key) const
{
    auto it = object().find(key);
    if (it == m_value->end() || it->is_null())
        return std::nullopt;
    return Cursor(*it, childPath(m_path, key));
}

size_t Cursor::size() const
{
    if (!m_value->is_array())
        expected("an array");
    return m_value->size();
}

Cursor Cursor::operator[](size_t index) const
{
    return Cursor((*m_value)[index], m_path + "[" + std::to_string(index) + "]");
}

std::string Cursor::string() const
{
    if (!m_value->is_string())
        expected("a string");
    return m_value->get<std::string>();
}

int64_t Cursor::integer() const
{
    if (m_value->is_number_unsigned() && m_value->get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max()))
        expected("a 64-bit integer");
    if (!m_value->is_number_integer())
        expected("an integer");
    return m_value->get<int64_t>();
}

double Cursor::number() const
{
    if (m_value->is_number())
        return m_value->get<double>();
    if (m_value->is_string()) {
        const std::string &s = m_value->get_ref<const std::string &>();
        if (s == "Infinity" || s == "inf")
            return HUGE_VAL;
        if (s == "-Infinity" || s == "-inf")
            return -HUGE_VAL;
        if (s == "NaN" || s == "nan")
            return std::nan("");
    }
    expected("a number");
}

bool Cursor::boolean() const
{
    if (!m_value->is_boolean())
        expected("a bool");
    return m_value->get<bool>();
}

} // namespace fusebox::export_json
