#pragma once
// The one conversion the views make from the core's UTF-8 strings to Qt's.

#include <QString>

#include <string>
#include <string_view>

namespace fusebox {

/// A UTF-8 string of the core as a QString.
inline QString qs(const std::string &s)
{
    return QString::fromStdString(s);
}
inline QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}
inline QString qs(const char *s)
{
    return QString::fromUtf8(s);
}

} // namespace fusebox
