#pragma once
// torch.nn.functional functions whose Python signature is not the ATen op's:
// F.batch_norm takes (input, running_mean, running_var, weight, ...) while
// aten::batch_norm takes (input, weight, bias, running_mean, ...); F.dropout's
// `training` is aten's `train` and `inplace` picks aten::dropout_. Dynamo
// graphs call the Python functions, TorchScript records the ATen ops; reading
// one through the other keeps both imports of a model alike. Internal to the
// FX text reader.

#include "core/ir/ArgNormalizer.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fusebox::fx {

/// "batch_norm" for torch.nn.functional.batch_norm or F.batch_norm (the one
/// place the module's two spellings are stripped); empty for other targets.
std::string_view functionalName(std::string_view dotted);

/// A functional call rewritten to its ATen op.
struct FunctionalAdaptation {
    /// "aten::batch_norm", "aten::dropout_", "aten::max_pool2d_with_indices".
    std::string op;
    /// The arguments in the ATen op's positional order.
    CallArgs call;
};

/// The ATen call for a call of torch.nn.functional.<name> (`name` without the
/// module prefix) with `call`'s arguments bound to the Python signature;
/// nullopt when the function has no entry (its signature is the op's) or the
/// arguments do not bind (then the caller reports the schema mismatch).
std::optional<FunctionalAdaptation> adaptFunctional(std::string_view name, const CallArgs &call);

/// The inverse, for writing the call back in Python: the Python positional
/// arguments for a node of `op` whose ATen arguments are atenArgs; the flag
/// (inplace=True, return_indices=True) goes to `flags` when op carries its
/// suffix. nullopt when the function has no entry or the arguments do not
/// have the op's form.
std::optional<std::vector<Arg>> functionalArguments(std::string_view name, std::string_view op,
                                                    const std::vector<Arg> &atenArgs, std::vector<NamedArg> &flags);

/// A call of a Python-only functional with a known Python signature
/// (embedding_bag, normalize, cross_entropy, nll_loss, mse_loss) with every
/// parameter positional, in the signature's order, defaults filled: the one
/// form of a call that Dynamo writes positionally and Inductor by keyword.
/// nullopt for other functions, or when the arguments do not bind.
std::optional<CallArgs> pythonOnlyPositional(std::string_view name, const CallArgs &call);

/// True for torch.nn.functional functions (`name` without the module
/// prefix) that are Python compositions with no ATen op of their own, or none
/// with their signature (interpolate, normalize, cross_entropy, embedding_bag,
/// ...): read as torch-level nodes by their spelling, without a warning
/// (isTorchLevelCall).
bool isPythonOnlyFunctional(std::string_view name);

} // namespace fusebox::fx
