#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace fusebox {

/// A point in layout space: points (1/72 inch), x to the right, y growing down.
struct Point {
    double x = 0;
    double y = 0;
    friend bool operator==(const Point &, const Point &) = default;
};

/// A box to place. The key is the caller's (a NodeId, a scope group, ...);
/// keys must be unique within one LayoutInput.
struct LayoutNode {
    uint64_t key = 0;
    /// Size of the box in points; the layout never resizes it.
    double width = 0;
    double height = 0;
    friend bool operator==(const LayoutNode &, const LayoutNode &) = default;
};

/// A directed edge between two keys of the same LayoutInput.
struct LayoutEdge {
    uint64_t from = 0;
    uint64_t to = 0;
    friend bool operator==(const LayoutEdge &, const LayoutEdge &) = default;
};

/// What to lay out: boxes and edges, ranked top to bottom (sources at the top).
/// Boxes are ordered left to right within a rank in the order given where the
/// layout has a free choice.
struct LayoutInput {
    std::vector<LayoutNode> nodes;
    std::vector<LayoutEdge> edges;
    /// Minimum horizontal gap between boxes of a rank, in points.
    double nodeSeparation = 22;
    /// Minimum vertical gap between ranks, in points.
    double rankSeparation = 30;
    friend bool operator==(const LayoutInput &, const LayoutInput &) = default;
};

/// A placed box: centre (x, y) and size, in points, y growing down.
struct PlacedNode {
    uint64_t key = 0;
    double x = 0;
    double y = 0;
    double width = 0;
    double height = 0;
};

/// A routed edge: a piecewise cubic Bezier curve. spline holds 3n+1 control
/// points (p0, then c1 c2 p for each segment), in points, y growing down.
/// The curve stops at the base of the arrow head; arrowEnd is the arrow's tip
/// (on the target box's border) when the router drew one.
struct RoutedEdge {
    uint64_t from = 0;
    uint64_t to = 0;
    std::vector<Point> spline;
    std::optional<Point> arrowEnd;
};

/// A finished layout. nodes are in the order of LayoutInput::nodes, edges in the
/// order of LayoutInput::edges. The drawing spans [0, width] x [0, height].
struct LayoutResult {
    std::vector<PlacedNode> nodes;
    std::vector<RoutedEdge> edges;
    double width = 0;
    double height = 0;
};

} // namespace fusebox
