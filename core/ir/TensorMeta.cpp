#include "TensorMeta.h"

namespace fusebox {

std::string toString(const Dim &dim)
{
    if (const auto *size = std::get_if<int64_t>(&dim))
        return std::to_string(*size);
    return std::get<std::string>(dim);
}

bool TensorMeta::hasStaticShape() const
{
    if (!shape)
        return false;
    for (const Dim &d : *shape)
        if (!std::holds_alternative<int64_t>(d))
            return false;
    return true;
}

std::optional<int64_t> TensorMeta::numel() const
{
    if (!hasStaticShape())
        return std::nullopt;
    int64_t n = 1;
    for (const Dim &d : *shape)
        n *= std::get<int64_t>(d);
    return n;
}

std::string TensorMeta::shapeString() const
{
    if (!shape)
        return {};
    std::string s = "[";
    for (size_t i = 0; i < shape->size(); ++i) {
        if (i)
            s += ", ";
        s += fusebox::toString((*shape)[i]);
    }
    return s + "]";
}

std::string TensorMeta::toString() const
{
    std::string s(shortName(dtype));
    if (dtype == DType::Unknown && !shape)
        return "?";
    return s + shapeString();
}

} // namespace fusebox
