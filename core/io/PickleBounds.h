#pragma once
// A pickle's sizes checked before a reader that trusts them runs it.
//
// libtorch 1.13's unpickler sizes its buffers from the pickle: a string's
// length field and a memo index (LONG_BINPUT) are allocated as they are read.
// A damaged 4 KB TorchScript archive whose debug table asked for memo slot
// 170,489,896 made it reserve 5.4 GB before failing (found by
// fuzz/torchscript_fuzz.cpp). The TorchScript importer runs this check on every
// pickle of an archive first.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace fusebox {

/// What is wrong with a pickle's sizes, and the byte of the opcode.
struct PickleSizeError {
    /// "BINUNICODE at byte 74 wants 1897930782 bytes, 82 remain"
    std::string message;
    size_t at = 0;
};

/// Walks the opcodes of `pickle` (protocols 0-5) up to STOP and checks what a
/// reader would allocate from them: every counted argument (strings, bytes,
/// long integers) fits in the bytes that remain, every line-terminated one
/// ends, and every memo index written (PUT, BINPUT, LONG_BINPUT) is at most the
/// number of opcodes before it, which a pickler numbering its memo from 0 never
/// exceeds. Nothing else is checked: the walk stops at an opcode that no
/// protocol defines, where any unpickler stops too. Returns the first problem.
std::optional<PickleSizeError> checkPickleSizes(std::string_view pickle);

} // namespace fusebox
