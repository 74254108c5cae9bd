#pragma once
// The rewrite contract's expensive checks (MLIR's MLIR_ENABLE_EXPENSIVE_PATTERN_API_CHECKS):
// a pattern that reports success() must have changed the graph. A success
// that changed nothing would be counted as a rewrite and, in a driver's
// loop, found and "applied" again every round.

namespace fusebox {

/// Turns the checks on or off for the whole process. On by default in debug
/// builds (without NDEBUG); the test binaries turn them on (tests/catch_main.cpp,
/// tests/views/main.cpp). A violation prints the pattern and the node and
/// aborts: it is a bug in the pattern, not in the input.
void setRewriteContractChecks(bool on);
bool rewriteContractChecks();

} // namespace fusebox
