#pragma once

#include <cstdint>
#include <functional>
#include <limits>

namespace fusebox {

/// A stable handle to a node of one Graph. Ids are never reused within a graph,
/// so a view or an edit log may keep one after the node is erased and ask the
/// graph whether it still contains it.
struct NodeId {
    static constexpr uint32_t kInvalid = std::numeric_limits<uint32_t>::max();
    uint32_t value = kInvalid;

    constexpr bool isValid() const { return value != kInvalid; }
    friend constexpr bool operator==(NodeId a, NodeId b) { return a.value == b.value; }
    friend constexpr auto operator<=>(NodeId a, NodeId b) { return a.value <=> b.value; }
};

} // namespace fusebox

template<>
struct std::hash<fusebox::NodeId> {
    size_t operator()(fusebox::NodeId id) const noexcept { return std::hash<uint32_t>()(id.value); }
};
