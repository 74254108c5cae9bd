#include "TorchValueConversion.h"

#include <ATen/ATen.h>
#include <ATen/core/ivalue.h>
#include <ATen/core/jit_type.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/ir/scope.h>
#include <torch/csrc/jit/api/module.h>

#include <regex>

#include <cctype>
#include <cstring>

namespace fusebox::torchimport {
namespace {

struct ScalarTypeEntry {
    c10::ScalarType scalar;
    DType dtype;
};

constexpr ScalarTypeEntry kScalarTypes[] = {
    {c10::ScalarType::Bool, DType::Bool},
    {c10::ScalarType::Byte, DType::UInt8},
    {c10::ScalarType::Char, DType::Int8},
    {c10::ScalarType::Short, DType::Int16},
    {c10::ScalarType::Int, DType::Int32},
    {c10::ScalarType::Long, DType::Int64},
    {c10::ScalarType::Half, DType::Float16},
    {c10::ScalarType::BFloat16, DType::BFloat16},
    {c10::ScalarType::Float, DType::Float32},
    {c10::ScalarType::Double, DType::Float64},
    {c10::ScalarType::ComplexHalf, DType::Complex32},
    {c10::ScalarType::ComplexFloat, DType::Complex64},
    {c10::ScalarType::ComplexDouble, DType::Complex128},
};

std::string deviceString(const c10::Device &device)
{
    std::string text = c10::DeviceTypeName(device.type(), /*lower_case=*/true);
    if (device.has_index())
        text += ":" + std::to_string(device.index());
    return text;
}

std::vector<Dim> toDims(c10::IntArrayRef sizes)
{
    return std::vector<Dim>(sizes.begin(), sizes.end());
}

} // namespace

DType toDType(c10::ScalarType type)
{
    for (const ScalarTypeEntry &e : kScalarTypes)
        if (e.scalar == type)
            return e.dtype;
    return DType::Unknown;
}

std::optional<c10::ScalarType> toScalarType(DType dtype)
{
    for (const ScalarTypeEntry &e : kScalarTypes)
        if (e.dtype == dtype)
            return e.scalar;
    return std::nullopt;
}

TensorMeta metaFromType(const c10::TensorType &type)
{
    TensorMeta meta;
    if (auto scalar = type.scalarType())
        meta.dtype = toDType(*scalar);
    const c10::VaryingShape<int64_t> varying = type.sizes(); // sizes() returns a copy
    const auto &sizes = varying.sizes();
    if (sizes) {
        std::vector<Dim> shape;
        shape.reserve(sizes->size());
        for (const c10::optional<int64_t> &d : *sizes)
            shape.push_back(d ? Dim(*d) : Dim(std::string("?")));
        meta.shape = std::move(shape);
    }
    if (auto strides = type.strides().concrete_sizes())
        meta.strides = std::move(*strides);
    if (auto device = type.device())
        meta.device = deviceString(*device);
    return meta;
}

TensorMeta metaFromTensor(const at::Tensor &tensor)
{
    TensorMeta meta;
    meta.dtype = toDType(tensor.scalar_type());
    meta.shape = toDims(tensor.sizes());
    if (tensor.layout() == c10::kStrided) {
        auto strides = tensor.strides();
        meta.strides = std::vector<int64_t>(strides.begin(), strides.end());
    }
    meta.device = deviceString(tensor.device());
    return meta;
}

Weight weightFromTensor(const at::Tensor &tensor)
{
    at::Tensor dense = tensor.is_sparse() ? tensor.to_dense() : tensor;
    at::Tensor contiguous = dense.to(c10::kCPU).contiguous();
    Weight weight;
    weight.meta = metaFromTensor(contiguous);
    const size_t bytes = contiguous.numel() * contiguous.element_size();
    // A damaged archive can give a tensor a storage too small for it
    // (libtorch 1.13 does not check): never read past it.
    const size_t needed = bytes ? (contiguous.storage_offset() * contiguous.element_size() + bytes) : 0;
    if (needed && (!contiguous.has_storage() || !contiguous.data_ptr() || contiguous.storage().nbytes() < needed))
        throw std::runtime_error("a tensor of " + std::to_string(bytes) + " bytes has a storage of "
                                 + std::to_string(contiguous.has_storage() ? contiguous.storage().nbytes() : 0)
                                 + " bytes");
    weight.data.resize(bytes);
    if (bytes)
        std::memcpy(weight.data.data(), contiguous.data_ptr(), bytes);
    return weight;
}

std::vector<c10::IValue> ivaluesFromWeights(const std::vector<Weight> &inputs)
{
    std::vector<c10::IValue> values;
    values.reserve(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i)
        values.emplace_back(tensorFromWeight(inputs[i], "input " + std::to_string(i)));
    return values;
}

at::Tensor tensorFromWeight(const Weight &weight, const std::string &what)
{
    auto scalar = toScalarType(weight.meta.dtype);
    if (!scalar)
        throw std::runtime_error(what + ": dtype " + std::string(shortName(weight.meta.dtype))
                                 + " has no libtorch type");
    if (!weight.meta.hasStaticShape())
        throw std::runtime_error(what + ": shape " + weight.meta.shapeString() + " is not static");
    std::vector<int64_t> sizes;
    for (const Dim &d : *weight.meta.shape)
        sizes.push_back(std::get<int64_t>(d));
    at::Tensor tensor = at::empty(sizes, at::TensorOptions().dtype(*scalar));
    const size_t bytes = tensor.numel() * tensor.element_size();
    if (bytes != weight.data.size())
        throw std::runtime_error(what + ": " + std::to_string(weight.data.size()) + " bytes for "
                                 + weight.meta.toString() + ", which needs " + std::to_string(bytes));
    if (bytes)
        std::memcpy(tensor.data_ptr(), weight.data.data(), bytes);
    return tensor;
}

std::optional<Arg> literalFromIValue(const c10::IValue &value)
{
    if (value.isNone())
        return Arg(NoneArg{});
    if (value.isBool())
        return Arg(value.toBool());
    if (value.isInt())
        return Arg(value.toInt());
    if (value.isDouble())
        return Arg(value.toDouble());
    if (value.isString())
        return Arg(value.toStringRef());
    if (value.isDevice()) {
        c10::Device d = value.toDevice();
        return Arg(Device{c10::DeviceTypeName(d.type(), true), d.has_index() ? d.index() : -1});
    }
    auto listOf = [](const auto &items, ArgList::Kind kind) -> std::optional<Arg> {
        std::vector<Arg> args;
        for (const c10::IValue &item : items) {
            std::optional<Arg> a = literalFromIValue(item);
            if (!a)
                return std::nullopt;
            args.push_back(std::move(*a));
        }
        return Arg::list(std::move(args), kind);
    };
    if (value.isIntList()) {
        std::vector<Arg> items;
        for (int64_t i : value.toIntVector())
            items.emplace_back(i);
        return Arg::list(std::move(items));
    }
    if (value.isDoubleList()) {
        std::vector<Arg> items;
        for (double d : value.toDoubleVector())
            items.emplace_back(d);
        return Arg::list(std::move(items));
    }
    if (value.isBoolList()) {
        std::vector<Arg> items;
        for (bool b : value.toBoolList())
            items.emplace_back(b);
        return Arg::list(std::move(items));
    }
    if (value.isTuple())
        return listOf(value.toTupleRef().elements(), ArgList::Kind::Tuple);
    if (value.isList())
        return listOf(value.toListRef(), ArgList::Kind::List);
    return std::nullopt;
}

std::string modulePathFromScope(const std::string &scope)
{
    static constexpr std::string_view kModulePrefix = "__module.";
    std::string bracketPath;
    std::string modulePath;
    size_t start = 0;
    while (start <= scope.size()) {
        size_t end = scope.find('/', start);
        if (end == std::string::npos)
            end = scope.size();
        std::string_view part(scope.data() + start, end - start);
        if (part.starts_with(kModulePrefix)) {
            // Each component repeats the full path; the last one is the deepest.
            modulePath = std::string(part.substr(kModulePrefix.size()));
        } else if (auto open = part.find('['); open != std::string_view::npos && part.ends_with("]")) {
            if (!bracketPath.empty())
                bracketPath += ".";
            bracketPath += std::string(part.substr(open + 1, part.size() - open - 2));
        }
        start = end + 1;
    }
    return modulePath.empty() ? bracketPath : modulePath;
}

namespace {

/// "__torch__.___torch_mangle_5.Linear" -> "__torch__.Linear": cloning a
/// module (freezing does) mangles its class names.
std::string demangledClassName(const std::string &name)
{
    static const std::regex kMangle("___torch_mangle_[0-9]+\\.");
    return std::regex_replace(name, kMangle, "");
}

std::string classNameOf(const torch::jit::Module &module)
{
    auto name = module.type()->name();
    return name ? demangledClassName(name->qualifiedName()) : std::string();
}

/// The submodule of `parent` called `instance` of class `className`, looked
/// for among parent's children and, for uncalled containers, grandchildren.
/// Returns the dotted path relative to parent, or "" when not found.
std::string findChild(const torch::jit::Module &parent, const std::string &instance, const std::string &className,
                      torch::jit::Module &found)
{
    if (parent.hasattr(instance) && parent.attr(instance).isModule()) {
        found = parent.attr(instance).toModule();
        return instance;
    }
    std::string fallback;
    torch::jit::Module fallbackModule;
    for (const auto &child : parent.named_children()) {
        if (!child.value.hasattr(instance) || !child.value.attr(instance).isModule())
            continue;
        torch::jit::Module candidate = child.value.attr(instance).toModule();
        if (classNameOf(candidate) == className) {
            found = candidate;
            return child.name + "." + instance;
        }
        if (fallback.empty()) {
            fallback = child.name + "." + instance;
            fallbackModule = candidate;
        }
    }
    if (!fallback.empty())
        found = fallbackModule;
    return fallback;
}

} // namespace

std::string ModulePathResolver::resolve(const std::vector<std::pair<std::string, std::string>> &chain)
{
    std::string key;
    for (const auto &[instance, className] : chain)
        key += instance + "\n" + className + "\n";
    if (auto it = m_cache.find(key); it != m_cache.end())
        return it->second;

    std::string path;
    std::optional<torch::jit::Module> current;
    if (m_root)
        current = *m_root;
    for (const auto &[instance, className] : chain) {
        std::string segment = instance;
        if (current) {
            torch::jit::Module next;
            std::string found = findChild(*current, instance, demangledClassName(className), next);
            if (found.empty()) {
                current.reset();
            } else {
                segment = found;
                current = next;
            }
        }
        path += (path.empty() ? "" : ".") + segment;
    }
    m_cache.emplace(std::move(key), path);
    return path;
}

Provenance provenanceOf(torch::jit::Node &node, ModulePathResolver &modules)
{
    Provenance p;
    p.originalSpelling = node.kind().toQualString();
    if (torch::jit::ScopePtr scope = node.scope(); scope && !scope->isBlank())
        p.scope = modulePathFromScope(scope->namesFromRoot());
    if (p.scope.empty()) {
        // Archives do not keep trace scopes; inlining records which module
        // instance each call went through.
        if (auto callstack = node.callstack()) {
            std::vector<std::pair<std::string, std::string>> chain;
            for (const auto &entry : (*callstack)->vec()) {
                const auto &instance = std::get<2>(entry);
                if (!instance || instance->instance_name().empty())
                    continue;
                auto type = instance->class_type();
                chain.emplace_back(instance->instance_name(), type && type->name() ? type->name()->qualifiedName() : "");
            }
            p.scope = modules.resolve(chain);
        }
    }
    // A loaded archive's ranges point into its serialized code (code/...py);
    // its debug info maps them back to the user's source.
    torch::jit::SourceRange range = node.sourceRange();
    if (auto original = range.findSourceRangeThatGenerated())
        range = *original;
    if (auto flc = range.file_line_col()) {
        p.source.file = std::get<0>(*flc);
        p.source.line = static_cast<int>(std::get<1>(*flc));
        p.source.column = static_cast<int>(std::get<2>(*flc));
    }
    return p;
}

std::string describeLocation(const SourceLocation &location)
{
    if (!location.isKnown())
        return "an unknown location";
    return location.file + ":" + std::to_string(location.line);
}

std::string sanitizeIdentifier(std::string_view text)
{
    std::string out(text);
    for (char &c : out)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
            c = '_';
    if (out.empty() || std::isdigit(static_cast<unsigned char>(out.front())))
        out.insert(out.begin(), '_');
    return out;
}

std::string oneLineMessage(const std::exception &e)
{
    std::string_view text = e.what();
    if (const auto *c10error = dynamic_cast<const c10::Error *>(&e))
        text = c10error->what_without_backtrace();
    std::string message(text.substr(0, text.find('\n')));
    while (!message.empty() && (message.back() == ' ' || message.back() == '\r'))
        message.pop_back();
    // caffe2's CAFFE_ENFORCE prefixes "[enforce fail at file.cc:165] . ".
    if (message.starts_with("[enforce fail at ")) {
        auto end = message.find("] ");
        auto start = end == std::string::npos ? end : message.find_first_not_of(". ", end + 2);
        if (start != std::string::npos)
            message.erase(0, start);
    }
    return message;
}

} // namespace fusebox::torchimport
