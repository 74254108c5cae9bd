#pragma once
// A zip archive written byte by byte, for tests whose archives must be exact
// (or must lie): the fuzz-findings tests of core/io and of the TorchScript
// importer, and the archives fuzz/pt2_archive_fuzz.cpp builds from its inputs.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace fusebox::testing {

/// The CRC-32 of zip headers (the IEEE polynomial, reflected).
inline uint32_t crc32(const std::string &bytes)
{
    uint32_t crc = 0xffffffffu;
    for (unsigned char c : bytes) {
        crc ^= c;
        for (int bit = 0; bit < 8; ++bit)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

inline void put16(std::string &out, uint32_t v)
{
    out += char(v & 0xff), out += char((v >> 8) & 0xff);
}
inline void put32(std::string &out, uint32_t v)
{
    put16(out, v & 0xffff), put16(out, v >> 16);
}

/// A zip of stored entries, with correct CRCs; `claimed` replaces each
/// entry's uncompressed size when nonzero, so that the headers lie.
inline std::string storedZip(const std::vector<std::pair<std::string, std::string>> &entries, uint32_t claimed = 0)
{
    std::string out, directory;
    for (const auto &[name, bytes] : entries) {
        const uint32_t offset = uint32_t(out.size()), crc = crc32(bytes), size = uint32_t(bytes.size());
        const uint32_t usize = claimed ? claimed : size;
        put32(out, 0x04034b50), put16(out, 20), put16(out, 0), put16(out, 0), put16(out, 0), put16(out, 0);
        put32(out, crc), put32(out, size), put32(out, usize), put16(out, uint32_t(name.size())), put16(out, 0);
        out += name + bytes;
        put32(directory, 0x02014b50), put16(directory, 20), put16(directory, 20), put16(directory, 0);
        put16(directory, 0), put16(directory, 0), put16(directory, 0), put32(directory, crc), put32(directory, size);
        put32(directory, usize), put16(directory, uint32_t(name.size())), put16(directory, 0), put16(directory, 0);
        put16(directory, 0), put16(directory, 0), put32(directory, 0), put32(directory, offset);
        directory += name;
    }
    const uint32_t at = uint32_t(out.size());
    out += directory;
    put32(out, 0x06054b50), put16(out, 0), put16(out, 0), put16(out, uint32_t(entries.size()));
    put16(out, uint32_t(entries.size())), put32(out, uint32_t(directory.size())), put32(out, at), put16(out, 0);
    return out;
}

} // namespace fusebox::testing
