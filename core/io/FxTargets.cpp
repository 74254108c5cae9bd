#include "FxTargets.h"

#include "FxFunctionalSignatures.h"

#include <algorithm>
#include <array>
#include <functional>
#include <cctype>
#include <unordered_set>
#include <utility>

namespace fusebox::fx {
namespace {

struct OperatorName {
    std::string_view python; // operator.<python>
    std::string_view symbol; // infix spelling
    bool unary;
    std::string_view aten;
};

constexpr std::array<OperatorName, 22> kOperators = {{
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
    {"lshift", "<<", false, "aten::__lshift__"},
    {"rshift", ">>", false, "aten::__rshift__"},
    {"eq", "==", false, "aten::eq"},
    {"ne", "!=", false, "aten::ne"},
    {"lt", "<", false, "aten::lt"},
    {"gt", ">", false, "aten::gt"},
    {"le", "<=", false, "aten::le"},
    {"ge", ">=", false, "aten::ge"},
}};

/// Python namespaces whose functions are ATen ops of the same name, and the
/// prefix ATen gives them (torch.special.erfcx -> aten::special_erfcx).
constexpr std::array<std::pair<std::string_view, std::string_view>, 13> kAtenNamespaces = {{
    {"torch.nn.functional.", ""},
    {"torch._C._linalg.", ""}, // torch._C._linalg.linalg_norm
    {"torch._C._special.", ""},
    {"torch._C._fft.", ""},
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

/// Whether arg can be passed to a parameter of schemaType. wrappedNumbers:
/// a Python number may be passed to a Tensor parameter, as PT2 graphs do
/// (`torch.ops.aten.mul.Tensor(x, 0.5)`: PyTorch wraps it in a 0-d tensor).
bool fits(const Arg &arg, const std::string &schemaType, const std::function<std::string(NodeId)> &nodeType,
          bool wrappedNumbers = false, bool strictLists = false)
{
    bool optional = false, isList = false;
    const std::string base = baseType(schemaType, optional, isList);
    const bool tensor = base == "Tensor";
    const bool number = base == "int" || base == "SymInt" || base == "float" || base == "Scalar" || base == "bool"
                        || base == "number" || base == "complex";
    struct Visitor {
        const std::string &base;
        bool optional, isList, tensor, number;
        const std::function<std::string(NodeId)> &nodeType;
        const std::string &schemaType;
        bool operator()(NoneArg) const { return optional; }
        bool operator()(EllipsisArg) const { return false; }
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
        bool wrapped;
        bool strict; // no int for an unsized int[] (only int[N] broadcasts one)
        bool operator()(bool) const
        {
            return !isList && ((tensor && wrapped) || base == "bool" || base == "Scalar" || base == "number");
        }
        bool operator()(int64_t) const
        {
            if (tensor)
                return wrapped && !isList;
            if (strict && isList && schemaType.find("[]") != std::string::npos)
                return false;
            return number || base == "ScalarType" || base == "Layout" || base == "MemoryFormat" || base == "Device"
                   || (isList && (base == "int" || base == "SymInt")) || base.empty();
        }
        bool operator()(double) const
        {
            return !isList
                   && ((tensor && wrapped) || base == "float" || base == "Scalar" || base == "number"
                       || base == "complex");
        }
        bool operator()(const std::string &) const
        {
            return base == "str" || base == "Dimname" || base == "c10::string_view";
        }
        bool operator()(DType) const { return base == "ScalarType"; }
        bool operator()(const Device &) const { return base == "Device"; }
        bool operator()(const ArgList &list) const
        {
            if (!isList || list.kind == ArgList::Kind::Slice || list.kind == ArgList::Kind::Dict)
                return false;
            for (const Arg &item : list.items)
                if (!fits(item, base, nodeType) && !(item.isNone() && schemaType.find("?[") != std::string::npos))
                    return false;
            return true;
        }
    };
    return std::visit(Visitor{base, optional, isList, tensor, number, nodeType, schemaType, wrappedNumbers, strictLists},
                      arg.value);
}

/// Tuples passed to list parameters become lists, and an int passed to a
/// fixed-size list (`int[2] kernel_size`) that many copies of it, as
/// TorchScript records them (Python broadcasts F.max_pool2d(x, 3) to [3, 3]).
void listify(Arg &arg, const std::string &schemaType)
{
    bool optional = false, isList = false;
    baseType(schemaType, optional, isList);
    if (auto *list = std::get_if<ArgList>(&arg.value); list && isList && list->kind == ArgList::Kind::Tuple)
        list->kind = ArgList::Kind::List;
    const size_t open = schemaType.rfind('[');
    if (!isList || !arg.asInt() || open == std::string::npos)
        return;
    const std::string size = schemaType.substr(open + 1, schemaType.find(']', open) - open - 1);
    if (size.empty() || size.size() > 1 || size[0] < '1' || size[0] > '9')
        return;
    arg = Arg::list(std::vector<Arg>(size_t(size[0] - '0'), arg));
}

/// normalizeCall plus default filling; nullopt (with message) when it does not fit.
/// `call` is moved from when it fits as written (TorchScript's form); it is
/// left as it is otherwise.
std::optional<CallArgs> fitOne(const OpSchema &schema, CallArgs &call,
                               const std::function<std::string(NodeId)> &nodeType, bool wrappedNumbers,
                               bool strictLists, std::string &message)
{
    // TorchScript's form: every schema argument positionally.
    if (call.kwargs.empty() && call.args.size() == schema.arguments.size() && !schema.arguments.empty()) {
        bool ok = true;
        for (size_t i = 0; i < call.args.size() && ok; ++i)
            ok = fits(call.args[i], schema.arguments[i].type, nodeType, wrappedNumbers, strictLists);
        if (ok) {
            CallArgs out = std::move(call);
            for (size_t i = 0; i < out.args.size(); ++i)
                listify(out.args[i], schema.arguments[i].type);
            return out;
        }
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
        if (!fits(out.args[i], schema.arguments[i].type, nodeType, wrappedNumbers, strictLists)) {
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

namespace {

/// Prefixes of torch-level calls that are not ATen ops (isTorchLevelCall).
constexpr std::array<std::string_view, 26> kTorchLevelPrefixes = {
    "torch._C._set_grad_enabled",
    "torch._C._log_api_usage_once",
    "torch._C._functorch.",
    "torch._functorch.",
    "torch.amp.",
    "torch.autocast",
    "torch.cuda.",
    "torch._C._autograd.",
    "torch.autograd.",
    "torch._dynamo.",
    "torch._check",
    "torch.sym_",
    "torch._sym_",
    "torch._C._cuda_",
    "torch.fx.",
    "math.",
    "builtins.",
    "operator.getitem",
    "torch._assert",
    "torch.distributed.",
    "torch._C._distributed",
    "torch._utils.",
    "torch._C._nn._parse_to",
    "torch.Size",
    // torch.einsum(equation, *operands): Python varargs, kept as written.
    "torch.functional.einsum",
    "torch.einsum",
};

bool hasTorchLevelPrefix(std::string_view dotted)
{
    for (std::string_view p : kTorchLevelPrefixes)
        if (dotted.starts_with(p))
            return true;
    return false;
}

} // namespace

bool isTorchLevelCall(std::string_view spelling)
{
    if (hasTorchLevelPrefix(spelling))
        return true;
    const std::string_view functional = functionalName(spelling);
    return !functional.empty() && isPythonOnlyFunctional(functional);
}

bool isPyTorchNamespace(std::string_view ns)
{
    for (std::string_view n : {"aten",
                               "prims",
                               "_c10d_functional",
                               "c10d_functional",
                               "_c10d_functional_autograd",
                               "c10d",
                               "quantized",
                               "_quantized",
                               "quantized_decomposed",
                               "rngprims",
                               "inductor",
                               "higher_order",
                               "profiler",
                               "debugprims",
                               "mkldnn",
                               "mkl",
                               "onednn",
                               "_dtensor",
                               "prim",
                               "_inductor_test",
                               "fbgemm",
                               "torchvision",
                               "image",
                               "xnnpack",
                               "cudnn",
                               "_nested_tensor",
                               "_test",
                               "symm_mem",
                               "_quantized_decomposed",
                               "sparse"})
        if (ns == n)
            return true;
    return false;
}

CanonicalTarget canonicalFunction(std::string_view dotted)
{
    CanonicalTarget out;
    out.op = std::string(dotted);
    if (isTorchLevelCall(dotted) && !dotted.starts_with("operator."))
        return out; // kept by its spelling: no ATen op
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
        if (name == "getitem" || name == "setitem") {
            out.op = std::string(name);
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
    // Comparison dunders are the ATen comparisons (aten has no __eq__).
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kDunders = {{
        {"__eq__", "aten::eq"},
        {"__ne__", "aten::ne"},
        {"__lt__", "aten::lt"},
        {"__le__", "aten::le"},
        {"__gt__", "aten::gt"},
        {"__ge__", "aten::ge"},
    }};
    for (const auto &[dunder, op] : kDunders)
        if (method == dunder) {
            out.op = std::string(op);
            out.mapped = true;
            return out;
        }
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
    for (std::string_view m :
         {"view", "reshape", "permute", "repeat", "expand", "flip", "tile", "new_zeros", "new_ones", "new_empty"})
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

bool isTorchOpsSpelling(std::string_view spelling, std::string_view op, std::string_view overload)
{
    auto colon = op.find("::");
    if (colon == std::string_view::npos || !isIdentifier(op.substr(0, colon)) || !isIdentifier(op.substr(colon + 2)))
        return spelling.empty();
    auto take = [&](std::string_view part) {
        if (!spelling.starts_with(part))
            return false;
        spelling.remove_prefix(part.size());
        return true;
    };
    return take("torch.ops.") && take(op.substr(0, colon)) && take(".") && take(op.substr(colon + 2)) && take(".")
           && take(overload.empty() ? std::string_view("default") : overload) && spelling.empty();
}

SchemaFit fitSchema(const OpSchemaRegistry &schemas, const std::string &op, const std::optional<std::string> &overload,
                    CallArgs call, const std::function<std::string(NodeId)> &nodeType)
{
    SchemaFit result;
    std::vector<const OpSchema *> candidates;
    if (overload) {
        if (const OpSchema *s = schemas.find(op, *overload))
            candidates.push_back(s);
        result.overload = *overload;
    } else {
        candidates = schemas.overloads(op);
    }
    // First an overload that takes the arguments as written, then one that
    // takes an int for an unsized int[]: torch.movedim(x, 1, 0) is
    // movedim.int, as Python's argument parser chooses, not movedim.intlist.
    for (bool strictLists : {true, false})
        for (const OpSchema *schema : candidates) {
            std::string message;
            // Only a named overload takes wrapped numbers: without one, `x + 1`
            // must choose add.Scalar, as TorchScript's import does.
            if (auto fitted = fitOne(*schema, call, nodeType, overload.has_value(), strictLists, message)) {
                result.overload = schema->overload;
                result.call = std::move(*fitted);
                result.fitted = true;
                return result;
            }
            if (result.message.empty())
                result.message = message;
        }
    result.call = std::move(call);
    return result;
}

std::optional<DType> conversionMethodDType(std::string_view method)
{
    static constexpr std::array<std::pair<std::string_view, DType>, 10> kMethods = {{
        {"float", DType::Float32},
        {"double", DType::Float64},
        {"half", DType::Float16},
        {"bfloat16", DType::BFloat16},
        {"long", DType::Int64},
        {"int", DType::Int32},
        {"short", DType::Int16},
        {"char", DType::Int8},
        {"byte", DType::UInt8},
        {"bool", DType::Bool},
    }};
    for (const auto &[m, dtype] : kMethods)
        if (method == m)
            return dtype;
    return std::nullopt;
}

namespace {
/// True when s is one of `words`, none longer than kLongest: most names a
/// reader asks about are longer, and are answered by their length alone
/// (asked for every name bound, once a hash of the whole name each).
template<size_t N>
bool isOneOf(std::string_view s, const std::array<std::string_view, N> &words, size_t longest)
{
    if (s.size() > longest)
        return false;
    return std::find(words.begin(), words.end(), s) != words.end();
}
constexpr std::array<std::string_view, 35> kKeywords = {"False",  "None",     "True",  "and",    "as",       "assert",
                                                        "async",  "await",    "break", "class",  "continue", "def",
                                                        "del",    "elif",     "else",  "except", "finally",  "for",
                                                        "from",   "global",   "if",    "import", "in",       "is",
                                                        "lambda", "nonlocal", "not",   "or",     "pass",     "raise",
                                                        "return", "try",      "while", "with",   "yield"};
constexpr std::array<std::string_view, 14> kReserved = {"self",  "torch",    "F",      "operator",  "_operator",
                                                        "math",  "builtins", "pytree", "fx_pytree", "device",
                                                        "slice", "getattr",  "inf",    "nan"};
constexpr size_t kLongestReserved = 9; // "fx_pytree", "_operator"; the longest keyword is "continue"/"nonlocal"
} // namespace

bool isPythonKeyword(std::string_view s)
{
    return isOneOf(s, kKeywords, 8);
}

bool isReservedName(std::string_view s)
{
    return isPythonKeyword(s) || isOneOf(s, kReserved, kLongestReserved);
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
