#pragma once
// Internal to the torch.export importer: decoding of the schema's one-key
// unions (Argument, SymInt, OptionalTensorArgument), enums and TensorMeta.

#include "ExportJsonCursor.h"

#include "core/ir/Arg.h"
#include "core/ir/TensorMeta.h"

#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace fusebox::export_json {

/// Non-fatal findings, in order, each line once.
class Warnings {
public:
    void add(std::string line);
    std::vector<std::string> take() { return std::move(m_lines); }

private:
    std::vector<std::string> m_lines;
    std::set<std::string> m_seen;
};

/// The member of a union object and its value: the only key of a one-key
/// object, as torch >= 2.3 writes unions, and the older spellings too (the
/// set member of a whole dataclass, torch 2.1/2.2; {"$type", "$value"}, early
/// 2024 nightlies). Throws (naming the path) when the value is not an object
/// or no one member is set.
std::pair<std::string, Cursor> unionMember(const Cursor &value, std::string_view unionName);

/// The name a symbolic value (SymIntArgument, SymFloatArgument,
/// SymBoolArgument) defines: its as_name member; throws (naming the path)
/// when it is a literal instead.
Cursor symbolicName(const Cursor &value);

/// torch/_export/serde/schema.py ScalarType (FLOAT=7, LONG=5, ...) to DType;
/// nullopt for UNKNOWN and the types Fusebox has no DType for (UINT16, *FNUZ).
std::optional<DType> dtypeFromScalarType(int64_t value);
/// schema.py MemoryFormat to c10's MemoryFormat int (TorchScript's spelling); nullopt when unknown.
std::optional<int64_t> c10MemoryFormat(int64_t value);
/// schema.py Layout to c10's Layout int; nullopt when unknown.
std::optional<int64_t> c10Layout(int64_t value);

/// A schema TensorMeta plus what Fusebox's TensorMeta does not keep.
struct DecodedTensorMeta {
    TensorMeta meta;
    /// Element offset into the storage (weights payloads are whole storages).
    int64_t storageOffset = 0;
};

/// Decodes TensorMeta{dtype, sizes, strides, device, storage_offset, ...}.
/// Symbolic sizes become string dims; symbolic strides drop the strides.
DecodedTensorMeta decodeTensorMeta(const Cursor &meta, Warnings &warnings);

/// "cpu", "cuda:0" from Device{type, index}.
std::string decodeDevice(const Cursor &device);

/// Turns Argument unions into Args; tensor and symbol names are resolved
/// through `values` (graph inputs and outputs of earlier nodes).
class ArgumentDecoder {
public:
    ArgumentDecoder(const std::unordered_map<std::string, NodeId> &values, Warnings &warnings)
        : m_values(values)
        , m_warnings(warnings)
    {}

    /// Decodes one Argument. Unknown union keys and unsupported ones
    /// (as_graph, as_complex, ...) give a warning and None; when
    /// `unsupported` is given, it receives a note for each such argument.
    Arg decode(const Cursor &argument, std::vector<std::string> *unsupported = nullptr) const;

    /// The node producing the value named by the string at `name`; throws when unknown.
    NodeId resolve(const Cursor &name) const;

private:
    // decode()'s steps: values and lists of them; dtypes, layouts, devices and
    // custom objects; and the kinds this reader keeps as None (with the note).
    std::optional<Arg> decodeValue(const std::string &key, const Cursor &value) const;
    std::optional<Arg> decodeTyped(const std::string &key, const Cursor &value) const;
    Arg unsupportedArgument(const Cursor &argument, const std::string &key, const Cursor &value,
                            std::vector<std::string> *unsupported) const;

    Arg decodeSymbolic(const Cursor &value, std::string_view literalKey) const;
    Arg decodeList(const Cursor &list, Arg (ArgumentDecoder::*item)(const Cursor &) const) const;
    Arg tensorRef(const Cursor &tensorArgument) const;
    Arg optionalTensor(const Cursor &optionalTensorArgument) const;
    Arg symInt(const Cursor &value) const { return decodeSymbolic(value, "as_int"); }
    Arg symFloat(const Cursor &value) const { return decodeSymbolic(value, "as_float"); }
    Arg symBool(const Cursor &value) const { return decodeSymbolic(value, "as_bool"); }
    Arg intValue(const Cursor &value) const { return value.integer(); }
    Arg floatValue(const Cursor &value) const { return value.number(); }
    Arg boolValue(const Cursor &value) const { return value.boolean(); }
    Arg stringValue(const Cursor &value) const { return value.string(); }
    Arg intList(const Cursor &value) const { return decodeList(value, &ArgumentDecoder::intValue); }
    Arg tensorList(const Cursor &value) const { return decodeList(value, &ArgumentDecoder::tensorRef); }

    const std::unordered_map<std::string, NodeId> &m_values;
    Warnings &m_warnings;
};

} // namespace fusebox::export_json
