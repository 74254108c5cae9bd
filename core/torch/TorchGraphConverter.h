#pragma once

// The walk from a frozen, inlined TorchScript graph to a fusebox::Graph. Only
// forward declarations of libtorch types here (see TorchValueConversion.h).

#include "core/ir/Graph.h"

#include <string>
#include <vector>

namespace torch::jit {
struct Graph;
struct Module;
} // namespace torch::jit

namespace fusebox::torchimport {

/// Converts `source` (frozen and inlined; `self` as its first input) into
/// `target` by the folding rule of docs/torchscript-import.md: non-tensor
/// constants and list/tuple constructs are folded into the args of their
/// users, unpacks become getitem nodes, tensor constants become constant nodes
/// whose payloads go into target.weights(), control flow becomes opaque nodes.
/// `module` is the loaded (unfrozen) module, used to turn call stacks into
/// module paths; it may be null. Non-fatal findings are appended to
/// `warnings`, prefixed with displayName. Throws std::runtime_error (one line)
/// on a construct it cannot represent.
void convertGraph(torch::jit::Graph &source, const torch::jit::Module *module, const std::string &displayName,
                  Graph &target, std::vector<std::string> &warnings);

} // namespace fusebox::torchimport
