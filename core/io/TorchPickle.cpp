// torch.save files without Python: the value model of the pickle machine
// (TorchPickleMachine.cpp runs the opcodes), what torch rebuilds from its
// globals, and the zip records around the pickle.
#include "TorchPickleImpl.h"

#include "Pt2Weights.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>

namespace fusebox::torch_pickle {

Ref make(Kind kind)
{
    return std::make_shared<PyObj>(kind);
}

Ref makeInt(int64_t value)
{
    Ref r = make(Kind::Int);
    r->integer = value;
    return r;
}

Ref makeStr(Kind kind, std::string text)
{
    Ref r = make(kind);
    r->text = std::move(text);
    return r;
}

std::string printable(std::string_view text)
{
    static const char *kHex = "0123456789abcdef";
    std::string out;
    for (size_t i = 0; i < text.size() && i < 60; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c >= 0x20 && c < 0x7f) {
            out += char(c);
        } else {
            out += "\\x";
            out += kHex[c >> 4];
            out += kHex[c & 15];
        }
    }
    if (text.size() > 60)
        out += "...";
    return out;
}

std::string describe(const Ref &value)
{
    if (!value)
        return "nothing";
    switch (value->kind) {
    case Kind::None: return "None";
    case Kind::Bool: return "a bool";
    case Kind::Int:
    case Kind::BigInt: return "an int";
    case Kind::Float: return "a float";
    case Kind::Str: return "a str";
    case Kind::Bytes: return "bytes";
    case Kind::Tuple: return "a tuple";
    case Kind::List: return "a list";
    case Kind::Dict: return "a dict";
    case Kind::Set: return "a set";
    case Kind::Global: return "the global " + printable(value->text);
    case Kind::Object:
        return value->callable && value->callable->kind == Kind::Global ? "a " + printable(value->callable->text)
                                                                        : "an object";
    case Kind::Storage: return "a storage";
    case Kind::Tensor: return "a tensor";
    }
    return "a value";
}

std::optional<DType> storageDtype(const std::string &type)
{
    static const std::pair<std::string_view, DType> kTypes[] = {
        {"DoubleStorage", DType::Float64},
        {"FloatStorage", DType::Float32},
        {"HalfStorage", DType::Float16},
        {"BFloat16Storage", DType::BFloat16},
        {"LongStorage", DType::Int64},
        {"IntStorage", DType::Int32},
        {"ShortStorage", DType::Int16},
        {"CharStorage", DType::Int8},
        {"ByteStorage", DType::UInt8},
        {"BoolStorage", DType::Bool},
        {"ComplexDoubleStorage", DType::Complex128},
        {"ComplexFloatStorage", DType::Complex64},
        // Raw bytes: _rebuild_tensor_v3 names the dtype (float8, uint16, ...).
        {"UntypedStorage", DType::UInt8},
    };
    for (const auto &[name, dtype] : kTypes)
        if (type == name)
            return dtype;
    return std::nullopt;
}

Ref Machine::global(const std::string &module, const std::string &name)
{
    return makeStr(Kind::Global, module + "." + name);
}

Ref Machine::object(Ref cls, Ref args)
{
    Ref r = make(Kind::Object);
    r->callable = std::move(cls);
    r->args = std::move(args);
    return r;
}

Ref Machine::persistent(const Ref &pid)
{
    const auto &items = pid->items;
    if (pid->kind != Kind::Tuple || items.size() < 4 || items[0]->kind != Kind::Str || items[0]->text != "storage")
        fail("a persistent id that is not a torch storage (" + describe(pid) + ")");
    if (items[1]->kind != Kind::Global || items[2]->kind != Kind::Str || items[3]->kind != Kind::Str)
        fail("a storage id of an unexpected shape");
    Ref storage = make(Kind::Storage);
    std::string type = items[1]->text;
    if (type.starts_with("torch."))
        type = type.substr(6);
    storage->text = type;
    storage->storageDtype = storageDtype(type).value_or(DType::Unknown);
    if (items[2]->text.empty() || printable(items[2]->text) != items[2]->text)
        fail("a storage key that is not plain text");
    storage->storageKey = items[2]->text;
    storage->location = printable(items[3]->text);
    const bool hasNumel = items.size() >= 5 && items[4]->kind == Kind::Int;
    m_storages.push_back({storage->storageKey, type, storage->storageDtype, hasNumel ? items[4]->integer : -1});
    return storage;
}

std::optional<std::vector<int64_t>> Machine::ints(const Ref &value)
{
    if (!value || (value->kind != Kind::Tuple && value->kind != Kind::List))
        return std::nullopt;
    std::vector<int64_t> out;
    for (const Ref &item : value->items) {
        if (item->kind != Kind::Int)
            return std::nullopt;
        out.push_back(item->integer);
    }
    return out;
}

Ref Machine::unreadableTensor(std::string why)
{
    Ref r = make(Kind::Tensor);
    r->tensor.unreadable = std::move(why);
    return r;
}

Ref Machine::rebuildTensor(const std::vector<Ref> &a, bool v3)
{
    if (a.size() < (v3 ? 7u : 4u))
        fail("a tensor rebuilt from " + std::to_string(a.size()) + " arguments");
    const Ref &storage = a[0];
    if (storage->kind != Kind::Storage)
        return unreadableTensor("a tensor on " + describe(storage) + ", not a storage");
    auto sizes = ints(a[2]);
    auto strides = ints(a[3]);
    if (a[1]->kind != Kind::Int || !sizes || !strides)
        fail("a tensor whose offset, sizes or strides are not integers");
    Ref r = make(Kind::Tensor);
    TensorRecord &t = r->tensor;
    t.dtype = storage->storageDtype;
    t.dtypeName = printable(storage->text);
    if (v3) {
        const Ref &dtype = a[6];
        if (dtype->kind != Kind::Global)
            fail("a tensor whose dtype is " + describe(dtype));
        t.dtypeName = printable(dtype->text);
        t.dtype = parseDType(dtype->text).value_or(DType::Unknown);
    }
    t.sizes = std::move(*sizes);
    t.strides = std::move(*strides);
    t.storageOffset = a[1]->integer;
    t.storageKey = storage->storageKey;
    t.device = storage->location;
    if (storageDtype(storage->text) == std::nullopt)
        t.unreadable = "a tensor of storage type " + printable(storage->text);
    return r;
}

Ref Machine::apply(const Ref &callable, const Ref &args)
{
    if (callable->kind != Kind::Global)
        return object(callable, args);
    const std::string &name = callable->text;
    const std::vector<Ref> empty;
    const std::vector<Ref> &a = args->kind == Kind::Tuple ? args->items : empty;
    if (name == "torch._utils._rebuild_tensor_v2" || name == "torch._utils._rebuild_tensor")
        return rebuildTensor(a, false);
    if (name == "torch._utils._rebuild_tensor_v3")
        return rebuildTensor(a, true);
    if (name == "torch._utils._rebuild_parameter" || name == "torch._utils._rebuild_parameter_with_state"
        || name == "torch._utils._rebuild_device_tensor_from_cpu_tensor") {
        if (!a.empty() && a[0]->kind == Kind::Tensor)
            return a[0];
        return unreadableTensor("a parameter of " + (a.empty() ? std::string("nothing") : describe(a[0])));
    }
    if (name == "torch._tensor._rebuild_from_type_v2" || name == "torch._tensor._rebuild_from_type") {
        // (func, new_type, args, state): a tensor subclass around what func rebuilds.
        if (a.size() >= 3 && a[0]->kind == Kind::Global && a[2]->kind == Kind::Tuple)
            return apply(a[0], a[2]);
        return object(callable, args);
    }
    if (name == "torch._utils._rebuild_meta_tensor_no_storage")
        return unreadableTensor("a meta tensor (no data)");
    if (name == "torch._export.serde.serialize._reconstruct_fake_tensor")
        return unreadableTensor("a fake tensor (saved without data)");
    if (name == "torch._utils._rebuild_qtensor")
        return unreadableTensor("a quantized tensor");
    if (name == "torch._utils._rebuild_sparse_tensor" || name == "torch._utils._rebuild_sparse_csr_tensor")
        return unreadableTensor("a sparse tensor");
    if (name == "torch._utils._rebuild_nested_tensor")
        return unreadableTensor("a nested tensor");
    if (name == "torch._utils._rebuild_wrapper_subclass" || name == "torch._utils._rebuild_device_tensor_from_numpy"
        || name == "torch._utils._rebuild_xla_tensor" || name == "torch._utils._rebuild_mlc_tensor")
        return unreadableTensor("a tensor rebuilt by " + printable(name));
    if (name == "collections.OrderedDict") {
        Ref d = make(Kind::Dict);
        // OrderedDict() or OrderedDict([(key, value), ...]).
        if (!a.empty() && a[0]->kind == Kind::List)
            for (const Ref &pair : a[0]->items)
                if (pair->kind == Kind::Tuple && pair->items.size() == 2) {
                    d->items.push_back(pair->items[0]);
                    d->items.push_back(pair->items[1]);
                }
        return d;
    }
    return object(callable, args);
}

Expected<std::vector<StorageReference>> storageReferences(const std::string &bytes)
{
    try {
        Machine machine(bytes);
        machine.run();
        return machine.storages();
    } catch (const ParseError &e) {
        return Error{e.message + " at byte " + std::to_string(e.at)};
    }
}

Expected<TorchSaveContents> parsePickle(const std::string &bytes)
{
    TorchSaveContents contents;
    try {
        Machine machine(bytes);
        Ref root = machine.run();
        if (root->kind == Kind::Tensor) {
            contents.tensors.emplace("", root->tensor);
        } else if (root->kind == Kind::Dict) {
            for (size_t i = 0; i + 1 < root->items.size(); i += 2) {
                const Ref &key = root->items[i];
                const Ref &value = root->items[i + 1];
                if (key->kind != Kind::Str)
                    continue;
                if (value->kind == Kind::Tensor)
                    contents.tensors[key->text] = value->tensor;
                else
                    contents.others[key->text] = describe(value);
            }
        } else {
            contents.others[""] = describe(root);
        }
    } catch (const ParseError &e) {
        return Error{e.message + " at byte " + std::to_string(e.at)};
    }
    return contents;
}

TorchSaveFile::TorchSaveFile(Pt2Archive archive, std::string root, std::string name, bool bigEndian,
                             TorchSaveContents contents)
    : m_archive(std::move(archive))
    , m_root(std::move(root))
    , m_name(std::move(name))
    , m_bigEndian(bigEndian)
    , m_contents(std::move(contents))
{}

Expected<TorchSaveFile> TorchSaveFile::open(std::string bytes, const std::string &name)
{
    if (bytes.empty())
        return Error{name + ": empty (no torch.save data)"};
    if (!bytes.starts_with("PK\x03\x04") && !bytes.starts_with("PK\x05\x06")) {
        if (static_cast<uint8_t>(bytes[0]) == 0x80)
            return Error{name
                         + ": a torch.save file in the legacy (pre-1.6, not zip) format, which Fusebox does not read"};
        return Error{name + ": not a torch.save zip (no zip signature)"};
    }
    auto archive = Pt2Archive::openBuffer(std::move(bytes), name);
    if (!archive)
        return Error{name + ": not a torch.save zip (" + archive.error().message.substr(name.size() + 2) + ")"};
    // <root>/data.pkl with <root> one folder ("archive/") or none.
    std::string root;
    bool found = false;
    for (const std::string &entry : archive->entries()) {
        if (!entry.ends_with("data.pkl"))
            continue;
        const std::string folder = entry.substr(0, entry.size() - 8);
        if (folder.empty() || (folder.back() == '/' && folder.find('/') == folder.size() - 1)) {
            root = folder;
            found = true;
            break;
        }
    }
    if (!found)
        return Error{name + ": no data.pkl in the torch.save zip"};
    auto pickle = archive->read(root + "data.pkl");
    if (!pickle)
        return pickle.error();
    bool bigEndian = false;
    if (archive->contains(root + "byteorder")) {
        auto order = archive->read(root + "byteorder");
        if (!order)
            return order.error();
        bigEndian = order->starts_with("big");
    }
    auto contents = parsePickle(*pickle);
    if (!contents)
        return Error{name + ": " + root + "data.pkl: " + contents.error().message};
    return TorchSaveFile(std::move(archive).value(), root, name, bigEndian, std::move(contents).value());
}

Expected<Weight> TorchSaveFile::load(const TensorRecord &tensor) const
{
    if (!tensor.unreadable.empty())
        return Error{tensor.unreadable};
    const int elem = elementSize(tensor.dtype);
    if (elem == 0)
        return Error{"dtype " + tensor.dtypeName + " not supported"};
    const std::string record = m_root + "data/" + tensor.storageKey;
    auto cached = m_storages.find(record);
    if (cached == m_storages.end()) {
        auto bytes = m_archive.read(record);
        if (!bytes)
            return Error{bytes.error().message};
        cached = m_storages.emplace(record, std::move(bytes).value()).first;
    }
    Weight weight;
    const std::string reason = gatherStrided(cached->second, tensor.dtype, tensor.sizes, tensor.strides,
                                             tensor.storageOffset, weight.data);
    if (!reason.empty())
        return Error{record + ": " + reason};
    if (m_bigEndian && elem > 1) {
        // Complex numbers swap each of their two parts.
        const size_t part = tensor.dtype == DType::Complex32 || tensor.dtype == DType::Complex64
                                    || tensor.dtype == DType::Complex128
                                ? size_t(elem) / 2
                                : size_t(elem);
        for (size_t at = 0; at + part <= weight.data.size(); at += part)
            std::reverse(weight.data.begin() + static_cast<std::ptrdiff_t>(at),
                         weight.data.begin() + static_cast<std::ptrdiff_t>(at + part));
    }
    std::vector<Dim> shape(tensor.sizes.begin(), tensor.sizes.end());
    weight.meta = TensorMeta{tensor.dtype, std::move(shape), std::nullopt, tensor.device};
    return weight;
}

} // namespace fusebox::torch_pickle
