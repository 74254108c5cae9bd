#pragma once
// The pickle machine behind parsePickle(), private to core/io:
// TorchPickleMachine.cpp runs the opcodes (protocols 0-5) and keeps the
// stack and the memo; TorchPickle.cpp holds the value model and what torch
// makes of its globals (storages, rebuilt tensors), and the zip around it.

#include "TorchPickle.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fusebox::torch_pickle {

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

    /// How many values exist, for the tests that no pickle leaks any.
    static inline std::atomic<int64_t> live{0};

    PyObj() { ++live; }
    explicit PyObj(Kind k)
        : kind(k)
    {
        ++live;
    }
    PyObj(const PyObj &) = delete;
    PyObj &operator=(const PyObj &) = delete;

    // Deeply nested values (a list in a list in ... a million deep) must not
    // overflow the stack when they are freed: children leave iteratively.
    ~PyObj()
    {
        --live;
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

Ref make(Kind kind);
Ref makeInt(int64_t value);
/// A Str, Bytes or Global holding `text`.
Ref makeStr(Kind kind, std::string text);

/// Text from the pickle as it may appear in a message: printable ASCII, other
/// bytes as \xNN (messages end up in JSON, which wants valid UTF-8), cut at 60.
std::string printable(std::string_view text);

/// What a value is, for messages ("a tuple", "the global torch.Size").
std::string describe(const Ref &value);

/// torch.<Name>Storage (what torch.save names a typed storage) to its dtype.
std::optional<DType> storageDtype(const std::string &type);

/// A malformed pickle: the message and the byte it was found at.
struct ParseError {
    std::string message;
    size_t at;
};

/// Runs one pickle. Errors throw ParseError at the opcode being run.
class Machine {
public:
    explicit Machine(const std::string &bytes)
        : m_bytes(bytes)
    {}
    /// Empties every container still alive: a pickle can put a value inside
    /// itself (APPEND of a list to itself, through DUP or the memo), and such
    /// a cycle of shared pointers was never freed (found by
    /// fuzz/pt2_archive_fuzz.cpp under LeakSanitizer). What run() returned
    /// must be used up before the machine goes.
    ~Machine();
    Machine(const Machine &) = delete;
    Machine &operator=(const Machine &) = delete;

    /// Runs the opcodes up to STOP; returns the value it leaves on top.
    Ref run();

    /// The storages the persistent ids run so far referred to.
    const std::vector<StorageReference> &storages() const { return m_storages; }

private:
    // run()'s opcode groups: each handles its opcodes and returns true, or
    // returns false for an opcode of another group.
    bool pushValue(uint8_t op);
    bool buildContainer(uint8_t op);
    bool makeObject(uint8_t op);
    bool useMemo(uint8_t op);
    [[noreturn]] void fail(const std::string &message) const { throw ParseError{message, m_opAt}; }

    // Reading the opcodes' arguments.
    uint8_t byte();
    std::string take(uint64_t count);
    uint64_t littleEndian(int count);
    std::string line();
    int64_t parseInt(const std::string &text) const;
    static std::string unquote(std::string text);

    // Scalars.
    static Ref makeBool(bool value);
    void pushTextInt(const std::string &text);
    void pushTextLong(std::string text);
    void pushLong(uint64_t count);
    void pushTextFloat(const std::string &text);
    void pushBinFloat();

    // The stack, its marks and the memo.
    void push(Ref value);
    Ref pop();
    const Ref &top() const;
    std::vector<Ref> popN(size_t n);
    std::vector<Ref> popMark();
    void memoPut(int64_t index);
    void memoGet(int64_t index);

    // Containers.
    static Ref sequence(Kind kind, std::vector<Ref> items);
    Ref dict(std::vector<Ref> items);
    /// Lists, sets and list-like objects (their items are of no interest).
    void extend(const Ref &target, std::vector<Ref> items);
    void setItems(const Ref &target, std::vector<Ref> items);

    // Globals and objects (TorchPickle.cpp).
    static Ref global(const std::string &module, const std::string &name);
    static Ref object(Ref cls, Ref args);
    /// ('storage', torch.<Type>Storage, key, location, numel), as torch.save writes it.
    Ref persistent(const Ref &pid);
    static std::optional<std::vector<int64_t>> ints(const Ref &value);
    static Ref unreadableTensor(std::string why);
    /// _rebuild_tensor(storage, offset, size, stride), _v2(..., requires_grad,
    /// hooks[, metadata]), _v3(..., requires_grad, hooks, dtype[, metadata]).
    Ref rebuildTensor(const std::vector<Ref> &a, bool v3);
    /// REDUCE: what calling `callable` with `args` makes (tensors for torch's
    /// rebuild functions, an opaque object for anything unknown).
    Ref apply(const Ref &callable, const Ref &args);

    const std::string &m_bytes;
    size_t m_pos = 0;
    size_t m_opAt = 0;
    std::vector<Ref> m_stack;
    std::vector<size_t> m_marks;
    std::map<int64_t, Ref> m_memo;
    std::vector<StorageReference> m_storages;
    std::vector<std::weak_ptr<PyObj>> m_containers; ///< every value pushed that can hold others
};

} // namespace fusebox::torch_pickle
