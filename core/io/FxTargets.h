#pragma once
// Maps the call targets FX dumps spell ("torch.ops.aten.add.Tensor",
// "torch.nn.functional.relu", "x.view(...)", "a + b") to canonical ATen ops,
// and normalises their arguments against op schemas. Shared by the FX text
// reader and writer (and usable by other importers that see FX targets).

#include "core/ir/ArgNormalizer.h"
#include "core/ir/DType.h"
#include "core/ir/OpSchema.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace fusebox::fx {

/// A call target after canonicalisation.
struct CanonicalTarget {
    /// Canonical op ("aten::split", "getitem"), or the dotted target itself when
    /// no rule maps it ("math.sqrt"): then `mapped` is false.
    std::string op;
    /// The overload the spelling names ("Tensor"; "" for `.default`, as
    /// OpSchema writes the default overload); nullopt when it names none
    /// ("torch.split"): the reader then picks one from the schemas.
    std::optional<std::string> overload;
    bool mapped = false;
};

/// Canonicalises a function target written as a dotted name:
/// torch.ops.<ns>.<op>[.<overload>] -> <ns>::<op> (overload; "default" -> "");
/// torch.X, torch.nn.functional.X, F.X, torch._C._nn.X, torch.special.X ... -> aten::X;
/// operator.getitem -> getitem; operator.add/sub/mul/truediv/floordiv/mod/pow/
/// matmul/neg -> aten::add/sub/mul/div/floor_divide/remainder/pow/matmul/neg.
CanonicalTarget canonicalFunction(std::string_view dotted);

/// True for torch-level calls that are no ATen op but a normal part of
/// Dynamo graphs: context and runtime calls kept as nodes in order
/// (torch._C._set_grad_enabled, torch.amp.autocast_mode._enter_autocast,
/// torch._C._functorch._vmap_increment_nesting, torch.cuda.streams.Stream),
/// symbolic-shape helpers (torch.sym_sum, torch._check_is_size), tensor
/// indexing (operator.getitem), Python-only functionals (F.interpolate).
bool isTorchLevelCall(std::string_view spelling);

/// True for the op namespaces PyTorch itself registers (aten, prims,
/// _c10d_functional, quantized, ...); false for custom ones (vllm, apex).
bool isPyTorchNamespace(std::string_view ns);

/// Canonicalises a Tensor method name ("view" -> aten::view).
CanonicalTarget canonicalMethod(std::string_view method);

/// "operator.add" for an infix operator ("+"), "operator.neg" for unary "-";
/// empty when FX has no such operator.
std::string operatorForInfix(std::string_view symbol, bool unary);
/// The infix symbol of an operator.* spelling ("operator.add" -> "+"), or empty.
std::string infixForOperator(std::string_view spelling, bool unary);

/// True for Tensor methods that Python lets callers write varargs
/// (x.view(2, 8), x.permute(0, 2, 1)) while the schema takes one int list.
bool takesVarargsList(std::string_view method);

/// "torch.ops.aten.split.Tensor" for (aten::split, Tensor); ".default" for an
/// empty overload. Empty when op is not "<ns>::<name>".
std::string torchOpsSpelling(std::string_view op, std::string_view overload);
/// spelling == torchOpsSpelling(op, overload), without building it.
bool isTorchOpsSpelling(std::string_view spelling, std::string_view op, std::string_view overload);

/// True for a Python identifier (ASCII): a name FX text can print bare.
bool isIdentifier(std::string_view s);

/// The dtype of a Tensor conversion method: x.long() is x.to(torch.int64),
/// as TorchScript records it. nullopt for other methods.
std::optional<DType> conversionMethodDType(std::string_view method);

/// True for Python's keywords ("with", "None", ...): never a name.
bool isPythonKeyword(std::string_view s);

/// True for a name the reader treats as a keyword, module or builtin
/// ("slice", "torch", "None", ...): the writer never assigns to one.
bool isReservedName(std::string_view s);

/// The result of fitting a call to an op's schemas.
struct SchemaFit {
    std::string overload;
    CallArgs call;
    /// True when a schema accepted the call (args are then in schema form).
    bool fitted = false;
    /// Why no overload fitted (normalizeCall's message of the first overload).
    std::string message;
};

/// Picks the overload of `op` that accepts the call (the explicit overload when
/// given, else the first overload whose normalizeCall succeeds and whose
/// parameter types fit the argument kinds) and returns the call in schema
/// form: positional parameters up to the last one given, gaps and trailing
/// defaulted positional parameters filled with their defaults (as a
/// TorchScript import has them), tuples passed to list parameters made lists,
/// keyword-only parameters kept as keywords when given. A call already in
/// TorchScript's all-positional form (one arg per schema argument) is kept.
/// `nodeType(i)` gives the type of node i's value for overload choice ("Tensor", "SymInt").
/// The call is taken by value and handed back in SchemaFit::call as given
/// when no overload fits (a reader moves its arguments in and out).
SchemaFit fitSchema(const OpSchemaRegistry &schemas, const std::string &op, const std::optional<std::string> &overload,
                    CallArgs call, const std::function<std::string(NodeId)> &nodeType);

} // namespace fusebox::fx
