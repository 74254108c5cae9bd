#pragma once

#include "core/ir/OpFamily.h"

#include <QColor>
#include <QString>

#include <vector>

namespace fusebox {

/// The colours of an op family: a light fill that keeps dark text readable,
/// and a saturated accent for borders, stripes and legend swatches.
struct FamilyStyle {
    QColor fill;
    QColor accent;
};

/// Colours for node boxes and the legend, one per OpFamily.
class OpPalette final {
public:
    static FamilyStyle style(OpFamily family);
    /// "Linear / conv", "Activation", ...: what the legend writes.
    static QString label(OpFamily family);
    /// Every family, in legend order.
    static std::vector<OpFamily> families();
};

} // namespace fusebox
