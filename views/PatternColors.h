#pragma once

#include <QColor>

#include <string>

namespace fusebox {

/// A distinct, stable colour per pattern name, for its matches on the graph
/// and in the tables: the built-in rules take the palette's colours in
/// catalog order (no two of them share one: a hash into ten colours made
/// batch_tanh, batch_aten_sigmoid and batch_aten_mul all grey), patterns
/// from files and the editor the next ones in the order first shown.
/// Thread-safe.
class PatternColors final {
public:
    static QColor colorFor(const std::string &pattern);
    /// How many patterns get a colour no other has (then the palette repeats).
    static int distinctColours();
};

} // namespace fusebox
