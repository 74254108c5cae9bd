#include "PatternColors.h"

#include <array>
#include <functional>

namespace fusebox {

QColor PatternColors::colorFor(const std::string &pattern)
{
    // Tableau-like colours that read on the light node fills.
    static const std::array<QColor, 10> palette = {
        QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e), QColor(0x2c, 0xa0, 0x2c), QColor(0xd6, 0x27, 0x28),
        QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b), QColor(0xe3, 0x77, 0xc2), QColor(0x17, 0xbe, 0xcf),
        QColor(0xbc, 0xbd, 0x22), QColor(0x7f, 0x7f, 0x7f)};
    // FNV-1a: std::hash is not stable across runs everywhere.
    uint32_t h = 2166136261u;
    for (unsigned char c : pattern)
        h = (h ^ c) * 16777619u;
    return palette[h % palette.size()];
}

} // namespace fusebox
