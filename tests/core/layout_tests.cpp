#include "core/layout/DotLayout.h"

#include <catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <thread>

using namespace fusebox;

namespace {

const PlacedNode &placed(const LayoutResult &r, uint64_t key)
{
    auto it = std::find_if(r.nodes.begin(), r.nodes.end(), [key](const PlacedNode &n) { return n.key == key; });
    REQUIRE(it != r.nodes.end());
    return *it;
}

bool overlaps(const PlacedNode &a, const PlacedNode &b)
{
    return std::abs(a.x - b.x) < (a.width + b.width) / 2 - 0.5 && std::abs(a.y - b.y) < (a.height + b.height) / 2 - 0.5;
}

// Distance from p to the border of box n (0 when on it, negative when inside).
double distanceToBox(Point p, const PlacedNode &n)
{
    double dx = std::abs(p.x - n.x) - n.width / 2;
    double dy = std::abs(p.y - n.y) - n.height / 2;
    if (dx <= 0 && dy <= 0)
        return std::max(dx, dy);
    return std::hypot(std::max(dx, 0.0), std::max(dy, 0.0));
}

void checkGeometry(const LayoutInput &in, const LayoutResult &r)
{
    REQUIRE(r.nodes.size() == in.nodes.size());
    REQUIRE(r.edges.size() == in.edges.size());
    for (size_t i = 0; i < in.nodes.size(); ++i) {
        CHECK(r.nodes[i].key == in.nodes[i].key);
        CHECK(r.nodes[i].width == Approx(in.nodes[i].width).margin(1.0));
        CHECK(r.nodes[i].height == Approx(in.nodes[i].height).margin(1.0));
        // Inside the drawing.
        CHECK(r.nodes[i].x - r.nodes[i].width / 2 >= -1.0);
        CHECK(r.nodes[i].y - r.nodes[i].height / 2 >= -1.0);
        CHECK(r.nodes[i].x + r.nodes[i].width / 2 <= r.width + 1.0);
        CHECK(r.nodes[i].y + r.nodes[i].height / 2 <= r.height + 1.0);
    }
    for (size_t i = 0; i < r.nodes.size(); ++i)
        for (size_t j = i + 1; j < r.nodes.size(); ++j)
            if (overlaps(r.nodes[i], r.nodes[j]))
                FAIL("boxes " << r.nodes[i].key << " and " << r.nodes[j].key << " overlap");
    for (size_t i = 0; i < in.edges.size(); ++i) {
        const RoutedEdge &e = r.edges[i];
        CHECK(e.from == in.edges[i].from);
        CHECK(e.to == in.edges[i].to);
        REQUIRE(e.spline.size() >= 4);
        CHECK((e.spline.size() - 1) % 3 == 0);
        const PlacedNode &from = placed(r, e.from);
        const PlacedNode &to = placed(r, e.to);
        // Edges run downwards: the source's centre is above the target's.
        CHECK(from.y < to.y);
        CHECK(distanceToBox(e.spline.front(), from) < 3.0);
        Point end = e.arrowEnd.value_or(e.spline.back());
        CHECK(distanceToBox(end, to) < 3.0);
        CHECK(e.arrowEnd.has_value());
    }
}

} // namespace

TEST_CASE("layoutWithDot of an empty input is empty", "[layout]")
{
    auto r = layoutWithDot({});
    REQUIRE(r.hasValue());
    CHECK(r->nodes.empty());
    CHECK(r->edges.empty());
    CHECK(r->width == 0);
    CHECK(r->height == 0);
}

TEST_CASE("layoutWithDot places a chain top to bottom", "[layout]")
{
    LayoutInput in;
    for (uint64_t k = 10; k < 14; ++k)
        in.nodes.push_back({k, 120, 40});
    in.edges = {{10, 11}, {11, 12}, {12, 13}};
    auto r = layoutWithDot(in);
    REQUIRE(r.hasValue());
    checkGeometry(in, *r);
    CHECK(placed(*r, 10).y < placed(*r, 11).y);
    CHECK(placed(*r, 12).y < placed(*r, 13).y);
    // Height covers four ranks of 40 pt plus separation.
    CHECK(r->height >= 4 * 40);
    CHECK(r->width == Approx(120).margin(2));
}

TEST_CASE("layoutWithDot: inputs above outputs, a diamond with parallel edges", "[layout]")
{
    LayoutInput in;
    in.nodes = {{1, 80, 30}, {2, 200, 50}, {3, 60, 30}, {4, 100, 36}};
    in.edges = {{1, 2}, {1, 3}, {2, 4}, {3, 4}, {3, 4}};
    auto r = layoutWithDot(in);
    REQUIRE(r.hasValue());
    checkGeometry(in, *r);
    CHECK(placed(*r, 1).y < placed(*r, 4).y);
    // 2 and 3 share a rank and sit side by side.
    CHECK(placed(*r, 2).y == Approx(placed(*r, 3).y).margin(1));
    CHECK(std::abs(placed(*r, 2).x - placed(*r, 3).x) >= (200 + 60) / 2.0);
}

TEST_CASE("layoutWithDot handles disconnected nodes and huge keys", "[layout]")
{
    LayoutInput in;
    in.nodes = {{~0ull, 50, 20}, {(1ull << 32) | 7, 50, 20}, {0, 50, 20}};
    in.edges = {{0, (1ull << 32) | 7}};
    auto r = layoutWithDot(in);
    REQUIRE(r.hasValue());
    checkGeometry(in, *r);
}

TEST_CASE("layoutWithDot rejects bad input with a message", "[layout]")
{
    LayoutInput unknown;
    unknown.nodes = {{1, 10, 10}};
    unknown.edges = {{1, 2}};
    auto r = layoutWithDot(unknown);
    REQUIRE_FALSE(r.hasValue());
    CHECK(r.error().message.find("unknown node key 2") != std::string::npos);

    LayoutInput duplicate;
    duplicate.nodes = {{5, 10, 10}, {5, 20, 20}};
    auto d = layoutWithDot(duplicate);
    REQUIRE_FALSE(d.hasValue());
    CHECK(d.error().message.find("duplicate node key 5") != std::string::npos);

    LayoutInput badSize;
    badSize.nodes = {{5, NAN, 10}};
    CHECK_FALSE(layoutWithDot(badSize).hasValue());
}

TEST_CASE("layoutWithDot lays out a 300-node DAG", "[layout]")
{
    std::mt19937 rng(42);
    LayoutInput in;
    const uint64_t n = 300;
    std::uniform_real_distribution<double> width(60, 220);
    for (uint64_t k = 0; k < n; ++k)
        in.nodes.push_back({k, width(rng), 36});
    // Mostly a chain with skip connections and fan-out, as model graphs are.
    for (uint64_t k = 1; k < n; ++k) {
        in.edges.push_back({k - 1, k});
        if (k >= 3 && k % 3 == 0)
            in.edges.push_back({k - 3, k});
        if (k % 7 == 0)
            in.edges.push_back({std::uniform_int_distribution<uint64_t>(0, k - 1)(rng), k});
    }
    auto r = layoutWithDot(in);
    REQUIRE(r.hasValue());
    checkGeometry(in, *r);
    CHECK(placed(*r, 0).y < placed(*r, n - 1).y);
}

TEST_CASE("layoutWithDot is safe to call from several threads", "[layout]")
{
    LayoutInput in;
    for (uint64_t k = 0; k < 30; ++k) {
        in.nodes.push_back({k, 90, 30});
        if (k)
            in.edges.push_back({k / 2, k});
    }
    std::vector<LayoutResult> results(4);
    // char, not bool: std::vector<bool> packs the four flags into one word,
    // which four threads writing at once would race on.
    std::vector<char> ok(4, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            auto r = layoutWithDot(in);
            ok[t] = r.hasValue();
            if (r)
                results[t] = std::move(r.value());
        });
    for (auto &t : threads)
        t.join();
    for (int t = 0; t < 4; ++t) {
        REQUIRE(ok[t]);
        // dot is deterministic: every thread gets the same drawing.
        CHECK(results[t].width == Approx(results[0].width));
        CHECK(results[t].nodes[29].x == Approx(results[0].nodes[29].x));
    }
}

TEST_CASE("estimatedLayoutSize counts boxes and the ranks long edges cross", "[layout]")
{
    LayoutInput chain;
    for (uint64_t k = 0; k < 10; ++k) {
        chain.nodes.push_back({k, 10, 10});
        if (k)
            chain.edges.push_back({k - 1, k});
    }
    CHECK(estimatedLayoutSize(chain) == Approx(10));
    // A skip edge from rank 0 to rank 9 crosses 8 ranks: 8 virtual nodes.
    chain.edges.push_back({0, 9});
    CHECK(estimatedLayoutSize(chain) == Approx(18));
    // Unknown keys are ignored rather than fatal.
    chain.edges.push_back({0, 99});
    CHECK(estimatedLayoutSize(chain) == Approx(18));
    CHECK(estimatedLayoutSize({}) == 0);
}
