#include "PickleBounds.h"

#include <charconv>
#include <cstdint>

namespace fusebox {
namespace {

/// How an opcode's argument is laid out (Python's pickletools names them).
enum class Arg {
    None,
    Fixed1, Fixed2, Fixed4, Fixed8,
    Line,      ///< up to a '\n'
    TwoLines,  ///< GLOBAL, INST: module and name
    Counted1, Counted4, Counted8, ///< a little-endian length, then that many bytes
    Unknown,
};

struct OpInfo {
    Arg arg;
    const char *name;
    bool memoPut = false;
};

OpInfo opInfo(uint8_t op)
{
    switch (op) {
    case '(': case '.': case '0': case '1': case '2': case 'N': case 'R': case 'a': case 'b':
    case 'd': case '}': case 'e': case 'l': case ']': case 'o': case 's': case 't': case ')':
    case 'u': case 'Q': case 0x81: case 0x85: case 0x86: case 0x87: case 0x88: case 0x89:
    case 0x8f: case 0x90: case 0x91: case 0x92: case 0x93: case 0x94: case 0x97: case 0x98:
        return {Arg::None, "opcode"};
    case 'K': return {Arg::Fixed1, "BININT1"};
    case 'h': return {Arg::Fixed1, "BINGET"};
    case 'q': return {Arg::Fixed1, "BINPUT", true};
    case 0x80: return {Arg::Fixed1, "PROTO"};
    case 0x82: return {Arg::Fixed1, "EXT1"};
    case 'M': return {Arg::Fixed2, "BININT2"};
    case 0x83: return {Arg::Fixed2, "EXT2"};
    case 'J': return {Arg::Fixed4, "BININT"};
    case 'j': return {Arg::Fixed4, "LONG_BINGET"};
    case 'r': return {Arg::Fixed4, "LONG_BINPUT", true};
    case 0x84: return {Arg::Fixed4, "EXT4"};
    case 'G': return {Arg::Fixed8, "BINFLOAT"};
    case 0x95: return {Arg::Fixed8, "FRAME"};
    case 'I': return {Arg::Line, "INT"};
    case 'L': return {Arg::Line, "LONG"};
    case 'F': return {Arg::Line, "FLOAT"};
    case 'S': return {Arg::Line, "STRING"};
    case 'V': return {Arg::Line, "UNICODE"};
    case 'P': return {Arg::Line, "PERSID"};
    case 'g': return {Arg::Line, "GET"};
    case 'p': return {Arg::Line, "PUT", true};
    case 'c': return {Arg::TwoLines, "GLOBAL"};
    case 'i': return {Arg::TwoLines, "INST"};
    case 'U': return {Arg::Counted1, "SHORT_BINSTRING"};
    case 'C': return {Arg::Counted1, "SHORT_BINBYTES"};
    case 0x8c: return {Arg::Counted1, "SHORT_BINUNICODE"};
    case 0x8a: return {Arg::Counted1, "LONG1"};
    case 'T': return {Arg::Counted4, "BINSTRING"};
    case 'B': return {Arg::Counted4, "BINBYTES"};
    case 'X': return {Arg::Counted4, "BINUNICODE"};
    case 0x8b: return {Arg::Counted4, "LONG4"};
    case 0x8d: return {Arg::Counted8, "BINUNICODE8"};
    case 0x8e: return {Arg::Counted8, "BINBYTES8"};
    case 0x96: return {Arg::Counted8, "BYTEARRAY8"};
    default: return {Arg::Unknown, ""};
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
        case Arg::Unknown: return std::nullopt;
        case Arg::None:
            break;
        case Arg::Fixed1: case Arg::Fixed2: case Arg::Fixed4: case Arg::Fixed8: {
            const size_t width = info.arg == Arg::Fixed1 ? 1 : info.arg == Arg::Fixed2 ? 2 : info.arg == Arg::Fixed4 ? 4 : 8;
            if (width > left)
                return fail("is cut off (" + std::to_string(width) + " argument bytes, " + std::to_string(left) + " remain)");
            argument = pickle.substr(pos, width);
            pos += width;
            break;
        }
        case Arg::Line: case Arg::TwoLines: {
            for (int line = info.arg == Arg::Line ? 1 : 2; line > 0; --line) {
                const size_t end = pickle.find('\n', pos);
                if (end == std::string_view::npos)
                    return fail("argument has no end of line");
                if (line == 1 && info.arg == Arg::Line)
                    argument = pickle.substr(pos, end - pos);
                pos = end + 1;
            }
            break;
        }
        case Arg::Counted1: case Arg::Counted4: case Arg::Counted8: {
            const size_t width = info.arg == Arg::Counted1 ? 1 : info.arg == Arg::Counted4 ? 4 : 8;
            if (width > left)
                return fail("is cut off (" + std::to_string(width) + " length bytes, " + std::to_string(left) + " remain)");
            const uint64_t count = littleEndian(pickle.substr(pos, width));
            pos += width;
            if (count > pickle.size() - pos)
                return fail("wants " + std::to_string(count) + " bytes, " + std::to_string(pickle.size() - pos) + " remain");
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
