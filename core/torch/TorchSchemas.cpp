#include "TorchSchemas.h"

#include "FuseboxOps.h"

#include <torch/csrc/jit/runtime/operator.h>

#include <sstream>

namespace fusebox {
namespace {

/// The argument printed the way FunctionSchema prints it (operator<<).
std::string printed(const c10::Argument &arg)
{
    std::ostringstream os;
    os << arg;
    return os.str();
}

/// Converts one libtorch argument. The type text keeps alias annotations
/// ("Tensor(a!)") and real types ("ScalarType?") so that OpSchema::toString()
/// reproduces libtorch's signature; the default is the IValue as the schema
/// prints it ("1", "None", "[]", "\"mean\"").
SchemaArgument convertArgument(const c10::Argument &arg)
{
    SchemaArgument out;
    out.name = arg.name();
    out.kwargOnly = arg.kwarg_only();
    // Print the argument without name and default to get the exact type text.
    c10::Argument typeOnly("", arg.type(), arg.real_type(), arg.N(), c10::nullopt, false,
                           arg.alias_info() ? c10::optional<c10::AliasInfo>(*arg.alias_info()) : c10::nullopt);
    out.type = printed(typeOnly);
    if (arg.default_value()) {
        std::string full = printed(arg);
        size_t prefix = out.type.size() + (out.name.empty() ? 0 : out.name.size() + 1) + 1;
        out.defaultValue = prefix <= full.size() ? full.substr(prefix) : std::string();
    }
    return out;
}

OpSchema convertSchema(const c10::FunctionSchema &schema)
{
    OpSchema out;
    out.name = schema.name();
    out.overload = schema.overload_name();
    out.isMutable = schema.is_mutable();
    out.arguments.reserve(schema.arguments().size());
    for (const c10::Argument &arg : schema.arguments())
        out.arguments.push_back(convertArgument(arg));
    for (const c10::Argument &ret : schema.returns())
        out.returns.push_back(convertArgument(ret));
    return out;
}

OpSchemaRegistry buildRegistry()
{
    ensureFuseboxOpsRegistered();
    OpSchemaRegistry registry;
    for (const std::shared_ptr<torch::jit::Operator> &op : torch::jit::getAllOperators())
        registry.add(convertSchema(op->schema()));
    return registry;
}

} // namespace

const OpSchemaRegistry &torchSchemas()
{
    static const OpSchemaRegistry registry = buildRegistry();
    return registry;
}

} // namespace fusebox
