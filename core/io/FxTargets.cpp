#include "FxTargets.h"

#include <array>
#include <functional>
#include <cctype>
#include <utility>

namespace fusebox::fx {
namespace {

struct OperatorName {
    std::string_view python; // operator.<python>
    std::string_view symbol; // infix spelling
    bool unary;
    std::string_view aten;
};

constexpr std::array<OperatorName, 19> kOperators = {{
    {"add", "+", false, "aten::add"},
    {"sub", "-", false, "aten::sub"},
    {"mul", "*", false, "aten::mul"},
    {"truediv", "/", false, "aten::div"},
    {"floordiv", "//", false, "aten::floor_divide"},
    {"mod", "%", false, "aten::remainder"},
    {"pow", "**", false, "aten::pow"},
    {"matmul", "@", false, "aten::matmul"},
    {"neg", "-", true, "aten::neg"},
    {"pos", "+", true, "aten::positive"},
    {"invert", "~", true, "aten::bitwise_not"},
    {"and_", "&", false, "aten::bitwise_and"},
    {"or_", "|", false, "aten::bitwise_or"},
    {"xor", "^", false, "aten::bitwise_xor"},
    {"eq", "", false, "aten::eq"},
    {"ne", "", false, "aten::ne"},
    {"lt", "", false, "aten::lt"},
    {"gt", "", false, "aten::gt"},
    {"le", "", false, "aten::le"},
}};

/// Python namespaces whose functions are ATen ops of the same name, and the
/// prefix ATen gives them (torch.special.erfcx -> aten::special_erfcx).
constexpr std::array<std::pair<std::string_view, std::string_view>, 10> kAtenNamespaces = {{
    {"torch.nn.functional.", ""},
    {"torch.functional.", ""}, // torch.split as torch 1.x FX prints it
    {"F.", ""},
    {"torch._C._nn.", ""},
    {"torch._C._VariableFunctions.", ""},
    {"torch.special.", "special_"},
    {"torch.linalg.", "linalg_"},
    {"torch.fft.", "fft_"},
    {"torch.Tensor.", ""},
    {"torch.", ""},
}};

/// The base type of a schema type: "int[2]?" -> "int[]", "Tensor(a)" -> "Tensor".
std::string baseType(std::string type, bool &optional, bool &isList)
{
    optional = !type.empty() && type.back() == '?';
    if (optional)
        type.pop_back();
    if (auto paren = type.find('('); paren != std::string::npos) // alias annotations
        type.erase(paren, type.find(')', paren) - paren + 1);
    isList = !type.empty() && type.back() == ']';
    if (isList)
        type.erase(type.rfind('['));
    return type;
}

bool fits(const Arg &arg, const std::string &schemaType, const std::function<std::string(NodeId)> &nodeType)
{
    bool optional = false, isList = false;
    const std::string base = baseType(schemaType, optional, isList);
    const bool tensor = base == "Tensor";
    const bool number = base == "int" || base == "SymInt" || base == "float" || base == "Scalar"
                        || base == "bool" || base == "number" || base == "complex";
    struct Visitor {
        const std::string &base;
        bool optional, isList, tensor, number;
        const std::function<std::string(NodeId)> &nodeType;
        const std::string &schemaType;
        bool operator()(NoneArg) const { return optional; }
        bool operator()(NodeId id) const
        {
            std::string t = nodeType ? nodeType(id) : std::string();
            if (t.empty())
                return true; // nothing known about the value: any parameter may take it
            if (isList)
                return t != "Tensor" || tensor;
            if (tensor)
                return t == "Tensor";
            return t != "Tensor"; // a symbolic scalar
        }
        bool operator()(bool) const { return !isList && !tensor && (base == "bool" || base == "Scalar" || base == "number"); }
        bool operator()(int64_t) const
        {
            if (tensor)
                return false;
            return number || base == "ScalarType" || base == "Layout" || base == "MemoryFormat" || base == "Device"
                   || (isList && (base == "int" || base == "SymInt")) || base.empty();
        }
        bool operator()(double) const
        {
            return !tensor && !isList && (base == "float" || base == "Scalar" || base == "number" || base == "complex");
        }
        bool operator()(const std::string &) const { return base == "str" || base == "Dimname" || base == "c10::string_view"; }
        bool operator()(DType) const { return base == "ScalarType"; }
        bool operator()(const Device &) const { return base == "Device"; }
        bool operator()(const ArgList &list) const
        {
            if (!isList || list.kind == ArgList::Kind::Slice)
                return false;
            for (const Arg &item : list.items)
                if (!fits(item, base, nodeType) && !(item.isNone() && schemaType.find("?[") != std::string::npos))
                    return false;
            return true;
        }
    };
    return std::visit(Visitor{base, optional, isList, tensor, number, nodeType, schemaType}, arg.value);
}

/// Tuples passed to list parameters become lists, as TorchScript has them.
void listify(Arg &arg, const std::string &schemaType)
{
    bool optional = false, isList = false;
    baseType(schemaType, optional, isList);
    if (auto *list = std::get_if<ArgList>(&arg.value); list && isList && list->kind == ArgList::Kind::Tuple)
        list->kind = ArgList::Kind::List;
}

/// normalizeCall plus default filling; nullopt (with message) when it does not fit.
std::optional<CallArgs> fitOne(const OpSchema &schema, const CallArgs &call,
                               const std::function<std::string(NodeId)> &nodeType, std::string &message)
{
    // TorchScript's form: every schema argument positionally.
    if (call.kwargs.empty() && call.args.size() == schema.arguments.size() && !schema.arguments.empty()) {
        bool ok = true;
        for (size_t i = 0; i < call.args.size() && ok; ++i)
            ok = fits(call.args[i], schema.arguments[i].type, nodeType);
        if (ok)
            return call;
    }
    auto normalized = normalizeCall(schema, call);
    if (!normalized) {
        message = normalized.error().message;
        return std::nullopt;
    }
    CallArgs out = std::move(*normalized);
    size_t positional = 0;
    while (positional < schema.arguments.size() && !schema.arguments[positional].kwargOnly)
        ++positional;
    // Trailing defaulted positional parameters, filled as TorchScript has them.
    std::vector<Arg> filled = out.args;
    bool complete = true;
    for (size_t i = filled.size(); i < positional && complete; ++i) {
        const auto &param = schema.arguments[i];
        auto value = param.defaultValue ? parseSchemaDefault(*param.defaultValue) : std::nullopt;
        if (value)
            filled.push_back(*value);
        else
            complete = false;
    }
    if (complete)
        out.args = std::move(filled);
    for (size_t i = 0; i < out.args.size(); ++i) {
        listify(out.args[i], schema.arguments[i].type);
        if (!fits(out.args[i], schema.arguments[i].type, nodeType)) {
            message = schema.qualifiedName() + ": argument '" + schema.arguments[i].name + "' of type "
                      + schema.arguments[i].type + " does not take " + out.args[i].toString();
            return std::nullopt;
        }
    }
    for (NamedArg &kw : out.kwargs)
        if (int index = schema.argumentIndex(kw.name); index >= 0)
            listify(kw.value, schema.arguments[size_t(index)].type);
    return out;
}

} // namespace

CanonicalTarget canonicalFunction(std::string_view dotted)
{
    CanonicalTarget out;
    out.op = std::string(dotted);
    if (dotted.starts_with("torch.ops.")) {
        std::string_view rest = dotted.substr(10);
        std::vector<std::string_view> parts;
        for (size_t begin = 0;;) {
            size_t dot = rest.find('.', begin);
            parts.push_back(rest.substr(begin, dot == std::string_view::npos ? std::string_view::npos : dot - begin));
            if (dot == std::string_view::npos)
                break;
            begin = dot + 1;
        }
        if (parts.size() < 2 || parts.size() > 3)
            return out;
        for (std::string_view p : parts)
            if (!isIdentifier(p))
                return out;
        out.op = std::string(parts[0]) + "::" + std::string(parts[1]);
        if (parts.size() == 3)
            out.overload = parts[2] == "default" ? std::string() : std::string(parts[2]);
        out.mapped = true;
        return out;
    }
    for (std::string_view prefix : {"operator.", "_operator."}) {
        if (!dotted.starts_with(prefix))
            continue;
        std::string_view name = dotted.substr(prefix.size());
        if (name == "getitem") {
            out.op = "getitem";
            out.mapped = true;
            return out;
        }
        for (const OperatorName &o : kOperators)
            if (o.python == name) {
                out.op = std::string(o.aten);
                out.mapped = true;
            }
        return out;
    }
    for (const auto &[prefix, atenPrefix] : kAtenNamespaces) {
        if (!dotted.starts_with(prefix))
            continue;
        std::string_view name = dotted.substr(prefix.size());
        if (!isIdentifier(name))
            return out; // torch._dynamo.x.y and friends: not an op
        out.op = "aten::" + std::string(atenPrefix) + std::string(name);
        out.mapped = true;
        return out;
    }
    return out;
}

CanonicalTarget canonicalMethod(std::string_view method)
{
    CanonicalTarget out;
    if (method == "__getitem__") {
        out.op = "getitem";
    } else {
        out.op = "aten::" + std::string(method);
    }
    out.mapped = isIdentifier(method);
    if (!out.mapped)
        out.op = "Tensor." + std::string(method);
    return out;
}

std::string operatorForInfix(std::string_view symbol, bool unary)
{
    for (const OperatorName &o : kOperators)
        if (!o.symbol.empty() && o.symbol == symbol && o.unary == unary)
            return "operator." + std::string(o.python);
    return {};
}

std::string infixForOperator(std::string_view spelling, bool unary)
{
    if (!spelling.starts_with("operator."))
        return {};
    spelling.remove_prefix(9);
    for (const OperatorName &o : kOperators)
        if (o.python == spelling && o.unary == unary)
            return std::string(o.symbol);
    return {};
}

bool takesVarargsList(std::string_view method)
{
    for (std::string_view m : {"view", "reshape", "permute", "repeat", "expand", "flip", "tile", "new_zeros",
                               "new_ones", "new_empty"})
        if (method == m)
            return true;
    return false;
}

std::string torchOpsSpelling(std::string_view op, std::string_view overload)
{
    auto colon = op.find("::");
    if (colon == std::string_view::npos || !isIdentifier(op.substr(0, colon)) || !isIdentifier(op.substr(colon + 2)))
        return {};
    return "torch.ops." + std::string(op.substr(0, colon)) + "." + std::string(op.substr(colon + 2)) + "."
           + (overload.empty() ? std::string("default") : std::string(overload));
}

SchemaFit fitSchema(const OpSchemaRegistry &schemas, const std::string &op, const std::optional<std::string> &overload,
                    const CallArgs &call, const std::function<std::string(NodeId)> &nodeType)
{
    SchemaFit result;
    result.call = call;
    std::vector<const OpSchema *> candidates;
    if (overload) {
        if (const OpSchema *s = schemas.find(op, *overload))
            candidates.push_back(s);
        result.overload = *overload;
    } else {
        candidates = schemas.overloads(op);
    }
    for (const OpSchema *schema : candidates) {
        std::string message;
        if (auto fitted = fitOne(*schema, call, nodeType, message)) {
            result.overload = schema->overload;
            result.call = std::move(*fitted);
            result.fitted = true;
            return result;
        }
        if (result.message.empty())
            result.message = message;
    }
    return result;
}

bool isIdentifier(std::string_view s)
{
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])))
        return false;
    for (char c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
            return false;
    return true;
}

} // namespace fusebox::fx
