#pragma once

#include "DType.h"
#include "NodeId.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace fusebox {

/// A device literal: type "cpu"/"cuda"/"meta", index -1 when not given.
struct Device {
    std::string type;
    int index = -1;
    /// "cpu", "cuda:0".
    std::string toString() const;
    friend bool operator==(const Device &, const Device &) = default;
};

struct Arg;

/// A list, tuple, slice or dict literal whose items may themselves be node
/// references. A Dict's items alternate keys (strings) and values.
struct ArgList {
    enum class Kind { List, Tuple, Slice, Dict };
    std::vector<Arg> items;
    Kind kind = Kind::List;
    friend bool operator==(const ArgList &, const ArgList &);
};

/// The None literal.
struct NoneArg {
    friend bool operator==(NoneArg, NoneArg) { return true; }
};

/// Python's Ellipsis (`x[..., 0]` in Dynamo graphs).
struct EllipsisArg {
    friend bool operator==(EllipsisArg, EllipsisArg) { return true; }
};

/// An argument of a node: a reference to another node's value, or a literal.
struct Arg {
    using Value = std::variant<NoneArg, NodeId, bool, int64_t, double, std::string, DType, Device, ArgList, EllipsisArg>;
    Value value;

    Arg() = default;
    Arg(NoneArg v)
        : value(v)
    {}
    Arg(EllipsisArg v)
        : value(v)
    {}
    Arg(NodeId v)
        : value(v)
    {}
    Arg(bool v)
        : value(v)
    {}
    Arg(int v)
        : value(int64_t(v))
    {}
    Arg(int64_t v)
        : value(v)
    {}
    Arg(double v)
        : value(v)
    {}
    Arg(std::string v)
        : value(std::move(v))
    {}
    Arg(const char *v)
        : value(std::string(v))
    {}
    Arg(DType v)
        : value(v)
    {}
    Arg(Device v)
        : value(std::move(v))
    {}
    Arg(ArgList v)
        : value(std::move(v))
    {}

    /// A list literal of the given items.
    static Arg list(std::vector<Arg> items, ArgList::Kind kind = ArgList::Kind::List);

    bool isNone() const { return std::holds_alternative<NoneArg>(value); }
    bool isNode() const { return std::holds_alternative<NodeId>(value); }
    bool isList() const { return std::holds_alternative<ArgList>(value); }
    /// The referenced node, or an invalid id when this is a literal.
    NodeId node() const;
    /// The list items, or nullptr when this is not a list.
    const std::vector<Arg> *items() const;
    /// An int literal, or nullopt.
    std::optional<int64_t> asInt() const;

    /// Python-like text: "%x", "3", "1e-05", "[%a, %b]", "torch.float32"; node
    /// references are written with nodeName(id) when given.
    std::string toString(const std::function<std::string(NodeId)> &nodeName = {}) const;
    /// Appends toString()'s text to out, node references written by
    /// appendNode(out, id): no string per item (readers write the arguments
    /// of every call they read).
    void appendTo(std::string &out, const std::function<void(std::string &, NodeId)> &appendNode) const;

    friend bool operator==(const Arg &, const Arg &) = default;
};

/// A keyword argument.
struct NamedArg {
    std::string name;
    Arg value;
    friend bool operator==(const NamedArg &, const NamedArg &) = default;
};

/// Calls fn(id) for every node reference in arg, lists included, in order.
void forEachNodeRef(const Arg &arg, const std::function<void(NodeId)> &fn);

} // namespace fusebox
