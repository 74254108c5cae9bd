#pragma once

#include "TensorMeta.h"

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace fusebox {

/// The payload of a constant tensor: contiguous row-major bytes of meta's
/// dtype and shape.
struct Weight {
    TensorMeta meta;
    std::vector<std::byte> data;
};

/// Payloads of a graph's constant nodes, keyed by the node's weightKey.
/// Payloads are shared (copying a store does not copy the bytes).
class WeightStore {
public:
    /// Stores (or replaces) the payload under key.
    void put(std::string key, Weight weight);
    /// The payload under key, or nullptr.
    std::shared_ptr<const Weight> get(const std::string &key) const;
    bool contains(const std::string &key) const { return m_weights.count(key) != 0; }
    size_t size() const { return m_weights.size(); }
    /// Total payload bytes.
    size_t byteSize() const;
    /// Keys in sorted order.
    std::vector<std::string> keys() const;

private:
    std::map<std::string, std::shared_ptr<const Weight>> m_weights;
};

} // namespace fusebox
