#include "Arg.h"

#include <charconv>
#include <cmath>

namespace fusebox {

std::string Device::toString() const
{
    return index < 0 ? type : type + ":" + std::to_string(index);
}

bool operator==(const ArgList &a, const ArgList &b)
{
    return a.kind == b.kind && a.items == b.items;
}

Arg Arg::list(std::vector<Arg> items, ArgList::Kind kind)
{
    return Arg(ArgList{std::move(items), kind});
}

NodeId Arg::node() const
{
    if (const auto *id = std::get_if<NodeId>(&value))
        return *id;
    return {};
}

const std::vector<Arg> *Arg::items() const
{
    if (const auto *list = std::get_if<ArgList>(&value))
        return &list->items;
    return nullptr;
}

std::optional<int64_t> Arg::asInt() const
{
    if (const auto *i = std::get_if<int64_t>(&value))
        return *i;
    return std::nullopt;
}

namespace {

std::string formatDouble(double d)
{
    if (std::isnan(d))
        return "nan";
    if (std::isinf(d))
        return d > 0 ? "inf" : "-inf";
    // The shortest of Python-like "%.{p}g" texts (what a stream of that
    // precision prints) that reads back to the same double; to_chars writes
    // exactly that text without a stream per try (the FX reader writes the
    // eps of every layer norm).
    char text[40];
    std::string s;
    for (int p = 1; p <= 17; ++p) {
        char *end = std::to_chars(text, text + sizeof text, d, std::chars_format::general, p).ptr;
        double back = 0;
        std::from_chars(text, end, back);
        if (back == d || p == 17) {
            s.assign(text, end);
            break;
        }
    }
    if (s.find_first_of(".einf") == std::string::npos)
        s += ".0";
    return s;
}

} // namespace

std::string Arg::toString(const std::function<std::string(NodeId)> &nodeName) const
{
    std::string out;
    appendTo(out, [&nodeName](std::string &o, NodeId id) {
        if (nodeName)
            o += nodeName(id);
        else
            o.append("%").append(std::to_string(id.value));
    });
    return out;
}

void Arg::appendTo(std::string &out, const std::function<void(std::string &, NodeId)> &appendNode) const
{
    struct Printer {
        std::string &out;
        const std::function<void(std::string &, NodeId)> &appendNode;
        void operator()(NoneArg) const { out += "None"; }
        void operator()(EllipsisArg) const { out += "Ellipsis"; }
        void operator()(NodeId id) const { appendNode(out, id); }
        void operator()(bool b) const { out += b ? "True" : "False"; }
        void operator()(int64_t i) const
        {
            char digits[24];
            auto end = std::to_chars(digits, digits + sizeof digits, i).ptr;
            out.append(digits, end);
        }
        void operator()(double d) const { out += formatDouble(d); }
        void operator()(const std::string &s) const { out.append("'").append(s).append("'"); }
        void operator()(DType t) const { out += torchName(t); }
        void operator()(const Device &d) const
        {
            out.append("device(type='").append(d.type).append("'");
            if (d.index >= 0)
                out.append(", index=").append(std::to_string(d.index));
            out += ")";
        }
        void operator()(const ArgList &l) const
        {
            const char *open = "[", *close = "]";
            if (l.kind == ArgList::Kind::Tuple) {
                open = "(";
                close = l.items.size() == 1 ? ",)" : ")";
            } else if (l.kind == ArgList::Kind::Slice) {
                open = "slice(";
                close = ")";
            } else if (l.kind == ArgList::Kind::Dict) {
                out += "{";
                for (size_t i = 0; i + 1 < l.items.size(); i += 2) {
                    if (i)
                        out += ", ";
                    l.items[i].appendTo(out, appendNode);
                    out += ": ";
                    l.items[i + 1].appendTo(out, appendNode);
                }
                out += "}";
                return;
            }
            out += open;
            for (size_t i = 0; i < l.items.size(); ++i) {
                if (i)
                    out += ", ";
                l.items[i].appendTo(out, appendNode);
            }
            out += close;
        }
    };
    std::visit(Printer{out, appendNode}, value);
}

void forEachNodeRef(const Arg &arg, const std::function<void(NodeId)> &fn)
{
    if (const auto *id = std::get_if<NodeId>(&arg.value)) {
        fn(*id);
    } else if (const auto *list = std::get_if<ArgList>(&arg.value)) {
        for (const Arg &item : list->items)
            forEachNodeRef(item, fn);
    }
}

} // namespace fusebox
