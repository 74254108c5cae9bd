#pragma once

#include <QColor>

#include <string>

namespace fusebox {

/// A distinct, stable colour per pattern name, for its matches on the graph
/// and in the tables (a fixed palette indexed by a hash of the name).
class PatternColors final {
public:
    static QColor colorFor(const std::string &pattern);
};

} // namespace fusebox
