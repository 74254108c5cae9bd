#include "WeightStore.h"

namespace fusebox {

void WeightStore::put(std::string key, Weight weight)
{
    m_weights[std::move(key)] = std::make_shared<const Weight>(std::move(weight));
}

std::shared_ptr<const Weight> WeightStore::get(const std::string &key) const
{
    auto it = m_weights.find(key);
    return it == m_weights.end() ? nullptr : it->second;
}

size_t WeightStore::byteSize() const
{
    size_t total = 0;
    for (const auto &[key, weight] : m_weights)
        total += weight->data.size();
    return total;
}

std::vector<std::string> WeightStore::keys() const
{
    std::vector<std::string> keys;
    keys.reserve(m_weights.size());
    for (const auto &[key, weight] : m_weights)
        keys.push_back(key);
    return keys;
}

} // namespace fusebox
