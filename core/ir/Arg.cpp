#include "Arg.h"

#include <cmath>
#include <sstream>

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
    std::ostringstream os;
    os.precision(17);
    os << d;
    std::string s = os.str();
    // Prefer the shortest text that reads back to the same double.
    for (int p = 1; p < 17; ++p) {
        std::ostringstream shorter;
        shorter.precision(p);
        shorter << d;
        if (std::stod(shorter.str()) == d) {
            s = shorter.str();
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
    struct Printer {
        const std::function<std::string(NodeId)> &nodeName;
        std::string operator()(NoneArg) const { return "None"; }
        std::string operator()(EllipsisArg) const { return "Ellipsis"; }
        std::string operator()(NodeId id) const { return nodeName ? nodeName(id) : "%" + std::to_string(id.value); }
        std::string operator()(bool b) const { return b ? "True" : "False"; }
        std::string operator()(int64_t i) const { return std::to_string(i); }
        std::string operator()(double d) const { return formatDouble(d); }
        std::string operator()(const std::string &s) const { return "'" + s + "'"; }
        std::string operator()(DType t) const { return std::string(torchName(t)); }
        std::string operator()(const Device &d) const
        {
            return d.index < 0 ? "device(type='" + d.type + "')"
                               : "device(type='" + d.type + "', index=" + std::to_string(d.index) + ")";
        }
        std::string operator()(const ArgList &l) const
        {
            std::string s;
            for (size_t i = 0; i < l.items.size(); ++i) {
                if (i)
                    s += ", ";
                s += l.items[i].toString(nodeName);
            }
            switch (l.kind) {
            case ArgList::Kind::Tuple: return "(" + s + (l.items.size() == 1 ? ",)" : ")");
            case ArgList::Kind::Slice: return "slice(" + s + ")";
            case ArgList::Kind::Dict: {
                std::string d;
                for (size_t i = 0; i + 1 < l.items.size(); i += 2)
                    d += (i ? ", " : "") + l.items[i].toString(nodeName) + ": " + l.items[i + 1].toString(nodeName);
                return "{" + d + "}";
            }
            case ArgList::Kind::List: break;
            }
            return "[" + s + "]";
        }
    };
    return std::visit(Printer{nodeName}, value);
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
