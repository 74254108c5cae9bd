#include "PickleBounds.h"

#include <charconv>
#include <cstdint>

namespace fusebox {
namespace {

/// How an opcode's argument is laid out (Python's pickletools names them).
enum class OpArg {
    None,
    Fixed1,
    Fixed2,
    Fixed4,
    Fixed8,
    Line,     ///< up to a '\n'
    TwoLines, ///< GLOBAL, INST: module and name
    Counted1,
    Counted4,
    Counted8, ///< a little-endian length, then that many bytes
    Unknown,
};

struct OpInfo {
    OpArg arg;
    const char *name;
    bool memoPut = false;
};

OpInfo opInfo(uint8_t op)
{
    switch (op) {
    case '(':
    case '.':
    case '0':
    case '1':
    case '2':
    case 'N':
    case 'R':
    case 'a':
    case 'b':
    case 'd':
    case '}':
    case 'e':
    case 'l':
    case ']':
    case 'o':
    case 's':
    case 't':
    case ')':
    case 'u':
    case 'Q':
    case 0x81:
    case 0x85:
    case 0x86:
    case 0x87:
    case 0x88:
    case 0x89:
    case 0x8f:
    case 0x90:
    case 0x91:
    case 0x92:
    case 0x93:
    case 0x94:
    case 0x97:
    case 0x98: return {OpArg::None, "opcode"};
    case 'K': return {OpArg::Fixed1, "BININT1"};
    case 'h': return {OpArg::Fixed1, "BINGET"};
    case 'q': return {OpArg::Fixed1, "BINPUT", true};
    case 0x80: return {OpArg::Fixed1, "PROTO"};
    case 0x82: return {OpArg::Fixed1, "EXT1"};
    case 'M': return {OpArg::Fixed2, "BININT2"};
    case 0x83: return {OpArg::Fixed2, "EXT2"};
    case 'J': return {OpArg::Fixed4, "BININT"};
    case 'j': return {OpArg::Fixed4, "LONG_BINGET"};
    case 'r': return {OpArg::Fixed4, "LONG_BINPUT", true};
    case 0x84: return {OpArg::Fixed4, "EXT4"};
    case 'G': return {OpArg::Fixed8, "BINFLOAT"};
    case 0x95: return {OpArg::Fixed8, "FRAME"};
    case 'I': return {OpArg::Line, "INT"};
    case 'L': return {OpArg::Line, "LONG"};
    case 'F': return {OpArg::Line, "FLOAT"};
    case 'S': return {OpArg::Line, "STRING"};
    case 'V': return {OpArg::Line, "UNICODE"};
    case 'P': return {OpArg::Line, "PERSID"};
    case 'g': return {OpArg::Line, "GET"};
    case 'p': return {OpArg::Line, "PUT", true};
    case 'c': return {OpArg::TwoLines, "GLOBAL"};
    case 'i': return {OpArg::TwoLines, "INST"};
    case 'U': return {OpArg::Counted1, "SHORT_BINSTRING"};
    case 'C': return {OpArg::Counted1, "SHORT_BINBYTES"};
    case 0x8c: return {OpArg::Counted1, "SHORT_BINUNICODE"};
    case 0x8a: return {OpArg::Counted1, "LONG1"};
    case 'T': return {OpArg::Counted4, "BINSTRING"};
    case 'B': return {OpArg::Counted4, "BINBYTES"};
    case 'X': return {OpArg::Counted4, "BINUNICODE"};
    case 0x8b: return {OpArg::Counted4, "LONG4"};
    case 0x8d: return {OpArg::Counted8, "BINUNICODE8"};
    case 0x8e: return {OpArg::Counted8, "BINBYTES8"};
    case 0x96: return {OpArg::Counted8, "BYTEARRAY8"};
    default: return {OpArg::Unknown, ""};
    }
}

uint64_t littleEndian(std::string_view bytes)
{
    uint64_t value = 0;
    for (size_t i = bytes.size(); i-- > 0;)
        value = (value << 8) | static_cast<unsigned char>(bytes[i]);
    return value;
}

} // namespace

std::optional<PickleSizeError> checkPickleSizes(std::string_view pickle)
{
    size_t pos = 0;
    uint64_t opcodes = 0;
    while (pos < pickle.size()) {
        const size_t at = pos;
        const uint8_t op = static_cast<unsigned char>(pickle[pos++]);
        const OpInfo info = opInfo(op);
        const std::string name = info.name;
        const size_t left = pickle.size() - pos;
        auto fail = [&](const std::string &what) {
            return PickleSizeError{name + " at byte " + std::to_string(at) + " " + what, at};
        };
        std::string_view argument;
        switch (info.arg) {
        case OpArg::Unknown: return std::nullopt;
        case OpArg::None: break;
        case OpArg::Fixed1:
        case OpArg::Fixed2:
        case OpArg::Fixed4:
        case OpArg::Fixed8: {
            const size_t width = info.arg == OpArg::Fixed1   ? 1
                                 : info.arg == OpArg::Fixed2 ? 2
                                 : info.arg == OpArg::Fixed4 ? 4
                                                             : 8;
            if (width > left)
                return fail("is cut off (" + std::to_string(width) + " argument bytes, " + std::to_string(left)
                            + " remain)");
            argument = pickle.substr(pos, width);
            pos += width;
            break;
        }
        case OpArg::Line:
        case OpArg::TwoLines: {
            for (int line = info.arg == OpArg::Line ? 1 : 2; line > 0; --line) {
                const size_t end = pickle.find('\n', pos);
                if (end == std::string_view::npos)
                    return fail("argument has no end of line");
                if (line == 1 && info.arg == OpArg::Line)
                    argument = pickle.substr(pos, end - pos);
                pos = end + 1;
            }
            break;
        }
        case OpArg::Counted1:
        case OpArg::Counted4:
        case OpArg::Counted8: {
            const size_t width = info.arg == OpArg::Counted1 ? 1 : info.arg == OpArg::Counted4 ? 4 : 8;
            if (width > left)
                return fail("is cut off (" + std::to_string(width) + " length bytes, " + std::to_string(left)
                            + " remain)");
            const uint64_t count = littleEndian(pickle.substr(pos, width));
            pos += width;
            if (count > pickle.size() - pos)
                return fail("wants " + std::to_string(count) + " bytes, " + std::to_string(pickle.size() - pos)
                            + " remain");
            pos += count;
            break;
        }
        }
        if (op == '.')
            return std::nullopt;
        if (info.memoPut) {
            uint64_t index = 0;
            if (op == 'p') {
                // PUT's index is decimal text; one that does not parse is the reader's to refuse.
                if (std::from_chars(argument.data(), argument.data() + argument.size(), index).ec != std::errc())
                    index = 0;
            } else {
                index = littleEndian(argument);
            }
            if (index > opcodes)
                return fail("writes memo slot " + std::to_string(index) + ", past the " + std::to_string(opcodes)
                            + " opcodes before it");
        }
        ++opcodes;
    }
    return PickleSizeError{"it ends at byte " + std::to_string(pickle.size()) + " without STOP", pickle.size()};
}

} // namespace fusebox
