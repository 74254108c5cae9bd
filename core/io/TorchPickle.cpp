// torch.save files without Python: a small pickle machine (protocols 0-5)
// that knows how torch rebuilds tensors, and the zip records around it.
#include "TorchPickle.h"

#include "Pt2Weights.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>

namespace fusebox::torch_pickle {

namespace {

struct PyObj;
using Ref = std::shared_ptr<PyObj>;

enum class Kind { None, Bool, Int, BigInt, Float, Str, Bytes, Tuple, List, Dict, Set, Global, Object, Storage, Tensor };

/// One Python value. Dicts keep their items as key, value, key, value, ...
struct PyObj {
    Kind kind = Kind::None;
    int64_t integer = 0;
    double real = 0;
    std::string text;       // Str, Bytes; Global: "module.name"; Storage: its type name
    std::vector<Ref> items; // Tuple, List, Set, Dict
    Ref callable, args;     // Object: what made it
    // Storage
    DType storageDtype = DType::Unknown;
    std::string storageKey, location;
    // Tensor
    TensorRecord tensor;

    PyObj() = default;
    explicit PyObj(Kind k) : kind(k) {}
    PyObj(const PyObj &) = delete;
    PyObj &operator=(const PyObj &) = delete;

    // Deeply nested values (a list in a list in ... a million deep) must not
    // overflow the stack when they are freed: children leave iteratively.
    ~PyObj()
    {
        std::vector<Ref> pending;
        moveChildren(pending);
        while (!pending.empty()) {
            Ref child = std::move(pending.back());
            pending.pop_back();
            if (child && child.use_count() == 1)
                child->moveChildren(pending);
        }
    }

    void moveChildren(std::vector<Ref> &out)
    {
        for (Ref &item : items)
            out.push_back(std::move(item));
        items.clear();
        if (callable)
            out.push_back(std::move(callable));
        if (args)
            out.push_back(std::move(args));
    }
};

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

/// Text from the pickle as it may appear in a message: printable ASCII, other
/// bytes as \xNN (messages end up in JSON, which wants valid UTF-8), cut at 60.
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

/// A malformed pickle: the message and the byte it was found at.
struct ParseError {
    std::string message;
    size_t at;
};

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

/// torch.<Name>Storage (what torch.save names a typed storage) to its dtype.
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

class Machine {
public:
    explicit Machine(const std::string &bytes) : m_bytes(bytes) {}

    Ref run()
    {
        while (true) {
            m_opAt = m_pos;
            const uint8_t op = byte();
            switch (op) {
            case 0x80: byte(); break;  // PROTO
            case 0x95: take(8); break; // FRAME
            case '.':                  // STOP
                if (m_stack.empty())
                    fail("STOP with an empty stack");
                return m_stack.back();
            case '(': m_marks.push_back(m_stack.size()); break;
            case '0': // POP
                if (!m_marks.empty() && m_marks.back() == m_stack.size())
                    m_marks.pop_back();
                else
                    pop();
                break;
            case '1': popMark(); break; // POP_MARK
            case '2': push(top()); break; // DUP
            case 'N': push(make(Kind::None)); break;
            case 0x88: push(makeBool(true)); break;
            case 0x89: push(makeBool(false)); break;
            case 'I': pushTextInt(line()); break;
            case 'J': push(makeInt(static_cast<int32_t>(littleEndian(4)))); break;
            case 'K': push(makeInt(static_cast<int64_t>(littleEndian(1)))); break;
            case 'M': push(makeInt(static_cast<int64_t>(littleEndian(2)))); break;
            case 'L': pushTextLong(line()); break;
            case 0x8a: pushLong(littleEndian(1)); break; // LONG1
            case 0x8b: pushLong(littleEndian(4)); break; // LONG4
            case 'F': pushTextFloat(line()); break;
            case 'G': pushBinFloat(); break;
            case 'S': push(makeStr(Kind::Str, unquote(line()))); break; // STRING
            case 'T': push(makeStr(Kind::Str, take(littleEndian(4)))); break; // BINSTRING
            case 'U': push(makeStr(Kind::Str, take(littleEndian(1)))); break; // SHORT_BINSTRING
            case 'V': push(makeStr(Kind::Str, line())); break; // UNICODE (raw-unicode-escape; escapes kept)
            case 'X': push(makeStr(Kind::Str, take(littleEndian(4)))); break; // BINUNICODE
            case 0x8c: push(makeStr(Kind::Str, take(littleEndian(1)))); break; // SHORT_BINUNICODE
            case 0x8d: push(makeStr(Kind::Str, take(littleEndian(8)))); break; // BINUNICODE8
            case 'B': push(makeStr(Kind::Bytes, take(littleEndian(4)))); break; // BINBYTES
            case 'C': push(makeStr(Kind::Bytes, take(littleEndian(1)))); break; // SHORT_BINBYTES
            case 0x8e: push(makeStr(Kind::Bytes, take(littleEndian(8)))); break; // BINBYTES8
            case 0x96: push(makeStr(Kind::Bytes, take(littleEndian(8)))); break; // BYTEARRAY8
            case ')': push(make(Kind::Tuple)); break;
            case 't': push(sequence(Kind::Tuple, popMark())); break;
            case 0x85: push(sequence(Kind::Tuple, popN(1))); break;
            case 0x86: push(sequence(Kind::Tuple, popN(2))); break;
            case 0x87: push(sequence(Kind::Tuple, popN(3))); break;
            case ']': push(make(Kind::List)); break;
            case 'l': push(sequence(Kind::List, popMark())); break;
            case 'a': { // APPEND
                Ref item = pop();
                extend(top(), {item});
                break;
            }
            case 'e': { // APPENDS
                auto items = popMark();
                extend(top(), std::move(items));
                break;
            }
            case '}': push(make(Kind::Dict)); break;
            case 'd': push(dict(popMark())); break;
            case 's': { // SETITEM
                Ref value = pop();
                Ref key = pop();
                setItems(top(), {key, value});
                break;
            }
            case 'u': { // SETITEMS
                auto items = popMark();
                setItems(top(), std::move(items));
                break;
            }
            case 0x8f: push(make(Kind::Set)); break; // EMPTY_SET
            case 0x90: { // ADDITEMS
                auto items = popMark();
                extend(top(), std::move(items));
                break;
            }
            case 0x91: push(sequence(Kind::Set, popMark())); break; // FROZENSET
            case 'c': { // GLOBAL
                std::string module = line();
                std::string name = line();
                push(global(module, name));
                break;
            }
            case 0x93: { // STACK_GLOBAL
                Ref name = pop();
                Ref module = pop();
                if (name->kind != Kind::Str || module->kind != Kind::Str)
                    fail("STACK_GLOBAL expects two strings");
                push(global(module->text, name->text));
                break;
            }
            case 'R': { // REDUCE
                Ref args = pop();
                Ref callable = pop();
                push(apply(callable, args));
                break;
            }
            case 0x81: { // NEWOBJ
                Ref args = pop();
                Ref cls = pop();
                push(object(cls, args));
                break;
            }
            case 0x92: { // NEWOBJ_EX
                pop(); // kwargs
                Ref args = pop();
                Ref cls = pop();
                push(object(cls, args));
                break;
            }
            case 'o': { // OBJ
                auto items = popMark();
                if (items.empty())
                    fail("OBJ without a class");
                Ref cls = items.front();
                items.erase(items.begin());
                push(object(cls, sequence(Kind::Tuple, std::move(items))));
                break;
            }
            case 'i': { // INST
                std::string module = line();
                std::string name = line();
                push(object(global(module, name), sequence(Kind::Tuple, popMark())));
                break;
            }
            case 'b': pop(); break; // BUILD: the state of tensors, dicts and objects is not needed
            case 'P': push(persistent(makeStr(Kind::Str, line()))); break; // PERSID
            case 'Q': push(persistent(pop())); break;                     // BINPERSID
            case 'p': memoPut(parseInt(line())); break;                   // PUT
            case 'q': memoPut(static_cast<int64_t>(littleEndian(1))); break;
            case 'r': memoPut(static_cast<int64_t>(littleEndian(4))); break;
            case 0x94: memoPut(static_cast<int64_t>(m_memo.size())); break; // MEMOIZE
            case 'g': memoGet(parseInt(line())); break;                      // GET
            case 'h': memoGet(static_cast<int64_t>(littleEndian(1))); break;
            case 'j': memoGet(static_cast<int64_t>(littleEndian(4))); break;
            default: {
                static const char *kHex = "0123456789abcdef";
                fail(std::string("unsupported pickle opcode 0x") + kHex[op >> 4] + kHex[op & 15]);
            }
            }
        }
    }

private:
    [[noreturn]] void fail(const std::string &message) const { throw ParseError{message, m_opAt}; }

    uint8_t byte()
    {
        if (m_pos >= m_bytes.size())
            fail("the pickle ends without STOP");
        return static_cast<uint8_t>(m_bytes[m_pos++]);
    }

    std::string take(uint64_t count)
    {
        if (count > m_bytes.size() - m_pos)
            fail("a length of " + std::to_string(count) + " bytes runs past the end of the pickle");
        std::string out = m_bytes.substr(m_pos, static_cast<size_t>(count));
        m_pos += static_cast<size_t>(count);
        return out;
    }

    uint64_t littleEndian(int count)
    {
        const std::string raw = take(static_cast<uint64_t>(count));
        uint64_t value = 0;
        for (int i = count; i-- > 0;)
            value = (value << 8) | static_cast<uint8_t>(raw[static_cast<size_t>(i)]);
        return value;
    }

    std::string line()
    {
        const size_t end = m_bytes.find('\n', m_pos);
        if (end == std::string::npos)
            fail("a text argument without its newline");
        std::string out = m_bytes.substr(m_pos, end - m_pos);
        m_pos = end + 1;
        if (!out.empty() && out.back() == '\r')
            out.pop_back();
        return out;
    }

    int64_t parseInt(const std::string &text) const
    {
        if (text.empty() || text.size() > 19)
            fail("not an integer: '" + printable(text) + "'");
        size_t k = text[0] == '-' || text[0] == '+' ? 1 : 0;
        if (k == text.size())
            fail("not an integer: '" + printable(text) + "'");
        int64_t value = 0;
        for (; k < text.size(); ++k) {
            if (text[k] < '0' || text[k] > '9')
                fail("not an integer: '" + printable(text) + "'");
            value = value * 10 + (text[k] - '0');
        }
        return text[0] == '-' ? -value : value;
    }

    static Ref makeBool(bool value)
    {
        Ref r = make(Kind::Bool);
        r->integer = value ? 1 : 0;
        return r;
    }

    void pushTextInt(const std::string &text)
    {
        if (text == "00" || text == "01")
            push(makeBool(text == "01"));
        else
            push(makeInt(parseInt(text)));
    }

    void pushTextLong(std::string text)
    {
        if (!text.empty() && text.back() == 'L')
            text.pop_back();
        if (text.size() > 18)
            push(make(Kind::BigInt));
        else
            push(makeInt(parseInt(text)));
    }

    void pushLong(uint64_t count)
    {
        const std::string raw = take(count);
        if (raw.size() > 8) {
            push(make(Kind::BigInt));
            return;
        }
        uint64_t value = 0;
        for (size_t i = raw.size(); i-- > 0;)
            value = (value << 8) | static_cast<uint8_t>(raw[i]);
        if (!raw.empty() && raw.size() < 8 && (static_cast<uint8_t>(raw.back()) & 0x80))
            value |= ~uint64_t(0) << (8 * raw.size()); // sign-extend
        push(makeInt(static_cast<int64_t>(value)));
    }

    void pushTextFloat(const std::string &text)
    {
        Ref r = make(Kind::Float);
        try {
            r->real = std::stod(text);
        } catch (...) {
            fail("not a float: '" + printable(text) + "'");
        }
        push(r);
    }

    void pushBinFloat()
    {
        const std::string raw = take(8);
        uint64_t bits = 0;
        for (char c : raw)
            bits = (bits << 8) | static_cast<uint8_t>(c); // big-endian
        Ref r = make(Kind::Float);
        std::memcpy(&r->real, &bits, sizeof bits);
        push(r);
    }

    static std::string unquote(std::string text)
    {
        if (text.size() >= 2 && (text.front() == '\'' || text.front() == '"') && text.back() == text.front())
            return text.substr(1, text.size() - 2);
        return text;
    }

    void push(Ref value) { m_stack.push_back(std::move(value)); }

    Ref pop()
    {
        if (m_stack.empty() || (!m_marks.empty() && m_marks.back() == m_stack.size()))
            fail("the stack is empty");
        Ref value = std::move(m_stack.back());
        m_stack.pop_back();
        return value;
    }

    const Ref &top() const
    {
        if (m_stack.empty() || (!m_marks.empty() && m_marks.back() == m_stack.size()))
            fail("the stack is empty");
        return m_stack.back();
    }

    std::vector<Ref> popN(size_t n)
    {
        std::vector<Ref> items(n);
        for (size_t i = n; i-- > 0;)
            items[i] = pop();
        return items;
    }

    std::vector<Ref> popMark()
    {
        if (m_marks.empty())
            fail("no MARK to pop to");
        const size_t at = m_marks.back();
        m_marks.pop_back();
        std::vector<Ref> items(std::make_move_iterator(m_stack.begin() + static_cast<std::ptrdiff_t>(at)),
                               std::make_move_iterator(m_stack.end()));
        m_stack.resize(at);
        return items;
    }

    static Ref sequence(Kind kind, std::vector<Ref> items)
    {
        Ref r = make(kind);
        r->items = std::move(items);
        return r;
    }

    Ref dict(std::vector<Ref> items)
    {
        if (items.size() % 2)
            fail("a dict with an odd number of keys and values");
        return sequence(Kind::Dict, std::move(items));
    }

    // Lists, sets and list-like objects (their items are of no interest).
    void extend(const Ref &target, std::vector<Ref> items)
    {
        if (target->kind == Kind::List || target->kind == Kind::Set)
            for (Ref &item : items)
                target->items.push_back(std::move(item));
        else if (target->kind != Kind::Object)
            fail("APPEND to " + describe(target));
    }

    void setItems(const Ref &target, std::vector<Ref> items)
    {
        if (items.size() % 2)
            fail("SETITEMS with an odd number of keys and values");
        if (target->kind == Kind::Dict)
            for (Ref &item : items)
                target->items.push_back(std::move(item));
        else if (target->kind != Kind::Object)
            fail("SETITEM on " + describe(target));
    }

    static Ref global(const std::string &module, const std::string &name)
    {
        return makeStr(Kind::Global, module + "." + name);
    }

    static Ref object(Ref cls, Ref args)
    {
        Ref r = make(Kind::Object);
        r->callable = std::move(cls);
        r->args = std::move(args);
        return r;
    }

    void memoPut(int64_t index)
    {
        if (index < 0)
            fail("a negative memo index");
        m_memo[index] = top();
    }

    void memoGet(int64_t index)
    {
        auto it = m_memo.find(index);
        if (it == m_memo.end())
            fail("memo entry " + std::to_string(index) + " was never stored");
        push(it->second);
    }

    /// ('storage', torch.<Type>Storage, key, location, numel), as torch.save writes it.
    Ref persistent(const Ref &pid)
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
        return storage;
    }

    static std::optional<std::vector<int64_t>> ints(const Ref &value)
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

    static Ref unreadableTensor(std::string why)
    {
        Ref r = make(Kind::Tensor);
        r->tensor.unreadable = std::move(why);
        return r;
    }

    /// _rebuild_tensor(storage, offset, size, stride), _v2(..., requires_grad,
    /// hooks[, metadata]), _v3(..., requires_grad, hooks, dtype[, metadata]).
    Ref rebuildTensor(const std::vector<Ref> &a, bool v3)
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

    Ref apply(const Ref &callable, const Ref &args)
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

    const std::string &m_bytes;
    size_t m_pos = 0;
    size_t m_opAt = 0;
    std::vector<Ref> m_stack;
    std::vector<size_t> m_marks;
    std::map<int64_t, Ref> m_memo;
};

} // namespace

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
    : m_archive(std::move(archive)), m_root(std::move(root)), m_name(std::move(name)), m_bigEndian(bigEndian),
      m_contents(std::move(contents))
{
}

Expected<TorchSaveFile> TorchSaveFile::open(std::string bytes, const std::string &name)
{
    if (bytes.empty())
        return Error{name + ": empty (no torch.save data)"};
    if (!bytes.starts_with("PK\x03\x04") && !bytes.starts_with("PK\x05\x06")) {
        if (static_cast<uint8_t>(bytes[0]) == 0x80)
            return Error{name + ": a torch.save file in the legacy (pre-1.6, not zip) format, which Fusebox does not read"};
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
    const std::string reason =
        gatherStrided(cached->second, tensor.dtype, tensor.sizes, tensor.strides, tensor.storageOffset, weight.data);
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
