#include "ExportArgumentDecoder.h"

namespace fusebox::export_json {

void Warnings::add(std::string line)
{
    if (m_seen.insert(line).second)
        m_lines.push_back(std::move(line));
}

std::pair<std::string, Cursor> unionMember(const Cursor &value, std::string_view unionName)
{
    const nlohmann::json &object = value.object();
    auto member = [&](nlohmann::json::const_iterator it) {
        return std::pair{it.key(), Cursor(*it, childPath(value.path(), it.key()))};
    };
    if (object.size() == 1)
        return member(object.begin());
    // Between December 2023 and March 2024 (PyTorch #116511 to #121263) a
    // union was written as its tag and value.
    if (object.size() == 2 && object.contains("$type") && object.contains("$value") && object["$type"].is_string()) {
        const std::string tag = object["$type"].get<std::string>();
        return {tag, Cursor(object["$value"], childPath(value.path(), tag))};
    }
    // Torch 2.1 and 2.2 wrote the union dataclass whole (dataclasses.asdict):
    // every member, the unset ones null, the one that is set not null (its
    // __post_init__ asserted exactly one).
    auto set = object.end();
    size_t setCount = 0;
    for (auto it = object.begin(); it != object.end(); ++it)
        if (!it->is_null()) {
            set = it;
            ++setCount;
        }
    if (setCount == 1)
        return member(set);
    std::string keys;
    for (const auto &item : object.items())
        keys += (keys.empty() ? "" : ", ") + item.key();
    value.fail("expected a one-key " + std::string(unionName) + " union, found "
               + (object.empty()  ? std::string("an empty object")
                  : setCount == 0 ? "keys " + keys + ", every one null"
                                  : "keys " + keys));
}

Cursor symbolicName(const Cursor &value)
{
    auto [key, member] = unionMember(value, "symbolic argument");
    if (key != "as_name")
        member.fail("expected as_name (a symbolic value's name), found " + key);
    return member;
}

std::optional<DType> dtypeFromScalarType(int64_t value)
{
    switch (value) {
    case 1: return DType::UInt8;
    case 2: return DType::Int8;
    case 3: return DType::Int16;
    case 4: return DType::Int32;
    case 5: return DType::Int64;
    case 6: return DType::Float16;
    case 7: return DType::Float32;
    case 8: return DType::Float64;
    case 9: return DType::Complex32;
    case 10: return DType::Complex64;
    case 11: return DType::Complex128;
    case 12: return DType::Bool;
    case 13: return DType::BFloat16;
    case 29: return DType::Float8E4M3FN;
    case 30: return DType::Float8E5M2;
    default: return std::nullopt; // UNKNOWN=0, UINT16=28, the FNUZ float8s
    }
}

std::optional<int64_t> c10MemoryFormat(int64_t value)
{
    // schema: Unknown=0, ContiguousFormat=1, ChannelsLast=2, ChannelsLast3d=3, PreserveFormat=4.
    // c10:    Contiguous=0, Preserve=1, ChannelsLast=2, ChannelsLast3d=3.
    switch (value) {
    case 1: return 0;
    case 2: return 2;
    case 3: return 3;
    case 4: return 1;
    default: return std::nullopt;
    }
}

std::optional<int64_t> c10Layout(int64_t value)
{
    // schema: SparseCoo=1, SparseCsr=2, SparseCsc=3, SparseBsr=4, SparseBsc=5, _mkldnn=6, Strided=7.
    // c10:    Strided=0, Sparse=1, SparseCsr=2, Mkldnn=3, SparseCsc=4, SparseBsr=5, SparseBsc=6.
    switch (value) {
    case 1: return 1;
    case 2: return 2;
    case 3: return 4;
    case 4: return 5;
    case 5: return 6;
    case 6: return 3;
    case 7: return 0;
    default: return std::nullopt;
    }
}

namespace {

/// A SymInt union {as_int} | {as_expr{expr_str}} (older: {as_symbol}, or as_expr
/// a string; schema 1-3 wrote TensorMeta.storage_offset as a bare integer).
Dim decodeDim(const Cursor &symInt)
{
    if (symInt.json().is_number_integer())
        return symInt.integer();
    auto [key, value] = unionMember(symInt, "SymInt");
    if (key == "as_int")
        return value.integer();
    if (key == "as_expr") {
        if (value.json().is_string())
            return value.string();
        return value["expr_str"].string();
    }
    if (key == "as_symbol")
        return value.string();
    value.fail("unknown SymInt kind '" + key + "' (expected as_int or as_expr)");
}

} // namespace

std::string decodeDevice(const Cursor &device)
{
    Device d{device["type"].string(), -1};
    if (auto index = device.find("index"))
        d.index = static_cast<int>(index->integer());
    return d.toString();
}

DecodedTensorMeta decodeTensorMeta(const Cursor &meta, Warnings &warnings)
{
    DecodedTensorMeta decoded;
    const Cursor dtype = meta["dtype"];
    if (auto d = dtypeFromScalarType(dtype.integer()))
        decoded.meta.dtype = *d;
    else
        warnings.add(dtype.path() + ": scalar type " + std::to_string(dtype.integer())
                     + " has no Fusebox dtype; imported as unknown");

    const Cursor sizes = meta["sizes"];
    std::vector<Dim> shape;
    for (size_t i = 0; i < sizes.size(); ++i)
        shape.push_back(decodeDim(sizes[i]));
    decoded.meta.shape = std::move(shape);

    if (auto strides = meta.find("strides")) {
        std::vector<int64_t> values;
        bool symbolic = false;
        for (size_t i = 0; i < strides->size(); ++i) {
            Dim d = decodeDim((*strides)[i]);
            if (const auto *v = std::get_if<int64_t>(&d))
                values.push_back(*v);
            else
                symbolic = true;
        }
        if (!symbolic)
            decoded.meta.strides = std::move(values);
    }
    if (auto device = meta.find("device"))
        decoded.meta.device = decodeDevice(*device);
    if (auto offset = meta.find("storage_offset")) {
        Dim d = decodeDim(*offset);
        if (const auto *v = std::get_if<int64_t>(&d))
            decoded.storageOffset = *v;
    }
    return decoded;
}

NodeId ArgumentDecoder::resolve(const Cursor &name) const
{
    const std::string text = name.string();
    auto it = m_values.find(text);
    if (it == m_values.end())
        name.fail("unknown value '" + text + "' (neither a graph input nor an output of an earlier node)");
    return it->second;
}

Arg ArgumentDecoder::tensorRef(const Cursor &tensorArgument) const
{
    return resolve(tensorArgument["name"]);
}

Arg ArgumentDecoder::optionalTensor(const Cursor &optionalTensorArgument) const
{
    auto [key, value] = unionMember(optionalTensorArgument, "OptionalTensorArgument");
    if (key == "as_tensor" && value.json().is_string()) // schema <= 3: the bare name
        return resolve(value);
    if (key == "as_tensor")
        return tensorRef(value);
    if (key == "as_none")
        return NoneArg{};
    value.fail("unknown OptionalTensorArgument kind '" + key + "' (expected as_tensor or as_none)");
}

Arg ArgumentDecoder::decodeSymbolic(const Cursor &value, std::string_view literalKey) const
{
    auto [key, member] = unionMember(value, "symbolic argument");
    if (key == "as_name")
        return resolve(member);
    if (key == literalKey) {
        if (key == "as_int")
            return member.integer();
        if (key == "as_float")
            return member.number();
        return member.boolean();
    }
    member.fail("unknown kind '" + key + "' (expected as_name or " + std::string(literalKey) + ")");
}

Arg ArgumentDecoder::decodeList(const Cursor &list, Arg (ArgumentDecoder::*item)(const Cursor &) const) const
{
    std::vector<Arg> items;
    const size_t n = list.size();
    items.reserve(n);
    for (size_t i = 0; i < n; ++i)
        items.push_back((this->*item)(list[i]));
    return Arg::list(std::move(items));
}

Arg ArgumentDecoder::decode(const Cursor &argument, std::vector<std::string> *unsupported) const
{
    auto [key, value] = unionMember(argument, "Argument");
    if (std::optional<Arg> plain = decodeValue(key, value))
        return std::move(*plain);
    if (std::optional<Arg> typed = decodeTyped(key, value))
        return std::move(*typed);
    return unsupportedArgument(argument, key, value, unsupported);
}

std::optional<Arg> ArgumentDecoder::decodeValue(const std::string &key, const Cursor &value) const
{
    if (key == "as_none")
        return NoneArg{};
    if (key == "as_tensor")
        return tensorRef(value);
    if (key == "as_tensors")
        return tensorList(value);
    if (key == "as_optional_tensors")
        return decodeList(value, &ArgumentDecoder::optionalTensor);
    if (key == "as_optional_tensor")
        return optionalTensor(value);
    if (key == "as_nested_tensors")
        return decodeList(value, &ArgumentDecoder::tensorList);
    if (key == "as_int")
        return Arg(value.integer());
    if (key == "as_ints")
        return intList(value);
    if (key == "as_int_lists")
        return decodeList(value, &ArgumentDecoder::intList);
    if (key == "as_float")
        return Arg(value.number());
    if (key == "as_floats")
        return decodeList(value, &ArgumentDecoder::floatValue);
    if (key == "as_bool")
        return Arg(value.boolean());
    if (key == "as_bools")
        return decodeList(value, &ArgumentDecoder::boolValue);
    if (key == "as_string" || key == "as_operator")
        return Arg(value.string());
    if (key == "as_strings")
        return decodeList(value, &ArgumentDecoder::stringValue);
    if (key == "as_sym_int")
        return symInt(value);
    if (key == "as_sym_ints")
        return decodeList(value, &ArgumentDecoder::symInt);
    if (key == "as_sym_float")
        return symFloat(value);
    if (key == "as_sym_floats")
        return decodeList(value, &ArgumentDecoder::symFloat);
    if (key == "as_sym_bool")
        return symBool(value);
    if (key == "as_sym_bools")
        return decodeList(value, &ArgumentDecoder::symBool);
    return std::nullopt;
}

std::optional<Arg> ArgumentDecoder::decodeTyped(const std::string &key, const Cursor &value) const
{
    if (key == "as_scalar_type") {
        if (auto d = dtypeFromScalarType(value.integer()))
            return Arg(*d);
        m_warnings.add(value.path() + ": scalar type " + std::to_string(value.integer())
                       + " has no Fusebox dtype; imported as None");
        return NoneArg{};
    }
    if (key == "as_memory_format" || key == "as_layout") {
        auto c10 = key == "as_layout" ? c10Layout(value.integer()) : c10MemoryFormat(value.integer());
        if (c10)
            return Arg(*c10);
        m_warnings.add(value.path() + ": unknown " + key.substr(3) + " " + std::to_string(value.integer())
                       + "; imported as None");
        return NoneArg{};
    }
    if (key == "as_device") {
        Device d{value["type"].string(), -1};
        if (auto index = value.find("index"))
            d.index = static_cast<int>(index->integer());
        return Arg(d);
    }
    if (key == "as_custom_obj")
        return resolve(value["name"]);
    return std::nullopt;
}

Arg ArgumentDecoder::unsupportedArgument(const Cursor &argument, const std::string &key, const Cursor &value,
                                         std::vector<std::string> *unsupported) const
{
    // as_graph (higher-order op bodies), as_complex, as_string_to_argument and
    // keys newer than this reader: kept as None, the node is marked opaque.
    const bool known = key == "as_graph" || key == "as_complex" || key == "as_string_to_argument";
    std::string note = argument.path() + ": " + (known ? "unsupported" : "unknown") + " Argument kind '" + key
                       + "' imported as None";
    if (key == "as_graph" && value.json().is_object() && value.json().contains("name")
        && value.json()["name"].is_string())
        note += " (subgraph '" + value.json()["name"].get<std::string>() + "')";
    m_warnings.add(note);
    if (unsupported)
        unsupported->push_back(note);
    return NoneArg{};
}

} // namespace fusebox::export_json
