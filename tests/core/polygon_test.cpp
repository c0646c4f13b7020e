// SPDX-License-Identifier: Apache-2.0
#include "cityforge/core/polygon.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <set>
#include <utility>

#include "cityforge/core/polygon_bands.hpp"
#include "cityforge/core/rng.hpp"

namespace cityforge {
namespace {

Ring square(double x0, double y0, double size) {
  return {{x0, y0}, {x0 + size, y0}, {x0 + size, y0 + size}, {x0, y0 + size}};
}

TEST(Polygon, AreaPerimeterCentroidWithHole) {
  Polygon poly{square(0, 0, 100), {square(40, 40, 20)}};
  EXPECT_DOUBLE_EQ(ring_signed_area(poly.outer), 10000.0);
  EXPECT_DOUBLE_EQ(polygon_area(poly), 9600.0);
  // Hole given CW or CCW: the area is the same.
  Ring cw = square(40, 40, 20);
  std::reverse(cw.begin(), cw.end());
  EXPECT_DOUBLE_EQ(ring_signed_area(cw), -400.0);
  EXPECT_DOUBLE_EQ(polygon_area(Polygon{square(0, 0, 100), {cw}}), 9600.0);
  EXPECT_DOUBLE_EQ(polygon_perimeter(poly), 480.0);
  const Vec2 c = ring_centroid({{0, 0}, {4, 0}, {4, 2}, {0, 2}});
  EXPECT_DOUBLE_EQ(c.x, 2.0);
  EXPECT_DOUBLE_EQ(c.y, 1.0);
  const Aabb2 box = ring_bounds(poly.outer);
  EXPECT_EQ(box.min, (Vec2{0, 0}));
  EXPECT_EQ(box.max, (Vec2{100, 100}));
}

TEST(Polygon, Containment) {
  Polygon poly{square(0, 0, 100), {square(40, 40, 20)}};
  EXPECT_TRUE(polygon_contains(poly, {10, 10}));
  EXPECT_FALSE(polygon_contains(poly, {50, 50}));
  EXPECT_FALSE(polygon_contains(poly, {150, 50}));
  EXPECT_TRUE(ring_contains(poly.outer, {50, 50}));
}

/// A ring of n points at random radii around (cx, cy): star-shaped, or with `scramble` in
/// random order (a self-crossing ring, whose parity the bands must reproduce as well).
Ring wobbly(Rng& rng, std::size_t n, double cx, double cy, double r0, double r1, bool scramble) {
  Ring ring;
  for (std::size_t i = 0; i < n; ++i) {
    const double a = 2.0 * std::numbers::pi * static_cast<double>(i) / static_cast<double>(n);
    const double r = rng.uniform(r0, r1);
    // Snapped to a 0.25 m grid so that many points share a y (band and vertex edge cases).
    ring.push_back({std::round(4.0 * (cx + r * std::cos(a))) / 4.0,
                    std::round(4.0 * (cy + r * std::sin(a))) / 4.0});
  }
  if (scramble) {
    for (std::size_t i = n - 1; i > 0; --i) {
      std::swap(ring[i], ring[rng.next_u32() % (i + 1)]);
    }
  }
  return ring;
}

/// A comb: long vertical teeth (edges spanning every band, so the bands are thinned out).
Ring comb(std::size_t teeth) {
  Ring ring{{0, 0}};
  for (std::size_t t = 0; t < teeth; ++t) {
    const double x = 2.0 * static_cast<double>(t);
    ring.push_back({x + 1.0, 0.0});
    ring.push_back({x + 1.0, 100.0});
    ring.push_back({x + 2.0, 100.0});
    ring.push_back({x + 2.0, 0.0});
  }
  ring.push_back({2.0 * static_cast<double>(teeth) + 1.0, -5.0});
  ring.push_back({0.0, -5.0});
  return ring;
}

TEST(PolygonBands, ContainsIsPolygonContainsBitForBitAndEdgeQueriesMissNothing) {
  Rng rng{7, Stage::layout, 1, 2};
  std::vector<Polygon> polys;
  polys.push_back({wobbly(rng, 300, 0, 0, 60, 100, false),
                   {wobbly(rng, 40, 10, 5, 10, 20, false), wobbly(rng, 8, -30, -20, 3, 6, false)}});
  polys.push_back({wobbly(rng, 120, 500, -200, 20, 80, true), {}});
  polys.push_back({comb(200), {}});
  polys.push_back({square(0, 0, 100), {square(40, 40, 20)}});  // Few edges: scanned whole.
  std::size_t inside = 0;
  std::size_t points = 0;
  for (const Polygon& poly : polys) {
    const PolygonBands bands{poly};
    const Aabb2 box = ring_bounds(poly.outer);
    std::vector<Vec2> probes;
    for (int k = 0; k < 4000; ++k) {
      probes.push_back(
          {rng.uniform(box.min.x - 5, box.max.x + 5), rng.uniform(box.min.y - 5, box.max.y + 5)});
    }
    auto add_ring = [&](const Ring& ring) {
      for (std::size_t i = 0; i < ring.size(); ++i) {
        const Vec2 a = ring[i];
        const Vec2 b = ring[(i + 1) % ring.size()];
        probes.push_back(a);
        probes.push_back((a + b) * 0.5);
        probes.push_back({rng.uniform(box.min.x, box.max.x), a.y});  // On a vertex's line.
      }
    };
    add_ring(poly.outer);
    for (const Ring& h : poly.holes)
      add_ring(h);
    probes.push_back({box.min.x + 1, box.min.y});
    probes.push_back({box.min.x + 1, box.max.y});
    probes.push_back({std::nan(""), 0.0});
    for (const Vec2 p : probes) {
      const bool want = polygon_contains(poly, p);
      ASSERT_EQ(bands.contains(p), want) << "at " << p.x << ", " << p.y;
      inside += want ? 1 : 0;
      ++points;
    }

    // Edge queries: every edge whose bounds meet the box, each once.
    for (int k = 0; k < 300; ++k) {
      const Vec2 c{rng.uniform(box.min.x - 10, box.max.x + 10),
                   rng.uniform(box.min.y - 10, box.max.y + 10)};
      const double hw = rng.uniform(0.0, 15.0);
      const double hh = rng.uniform(0.0, 15.0);
      const Aabb2 q{{c.x - hw, c.y - hh}, {c.x + hw, c.y + hh}};
      std::set<std::pair<std::size_t, std::size_t>> want;
      for (std::size_t r = 0; r <= poly.holes.size(); ++r) {
        const Ring& ring = r == 0 ? poly.outer : poly.holes[r - 1];
        for (std::size_t i = 0; i < ring.size(); ++i) {
          Aabb2 e;
          e.add(ring[i]);
          e.add(ring[(i + 1) % ring.size()]);
          if (e.overlaps(q)) want.insert({r, i});
        }
      }
      std::set<std::pair<std::size_t, std::size_t>> got;
      const bool stopped = bands.any_edge(q, [&](std::size_t r, std::size_t i) {
        EXPECT_TRUE(got.insert({r, i}).second) << "edge " << r << "/" << i << " visited twice";
        return false;
      });
      EXPECT_FALSE(stopped);
      for (const auto& e : want) {
        ASSERT_TRUE(got.count(e) == 1) << "edge " << e.first << "/" << e.second << " missed";
      }
      if (!want.empty()) {
        std::size_t calls = 0;
        EXPECT_TRUE(bands.any_edge(q, [&](std::size_t, std::size_t) { return ++calls == 1; }));
        EXPECT_EQ(calls, 1U);
      }
    }
  }
  // The probes are not all on one side.
  EXPECT_GT(inside, points / 10);
  EXPECT_LT(inside, points * 9 / 10);
}

TEST(Polygon, CanonicalOrientsAndDedupes) {
  Ring outer = square(0, 0, 10);
  std::reverse(outer.begin(), outer.end());
  outer.push_back(outer.front());             // Closing duplicate.
  outer.insert(outer.begin() + 1, outer[1]);  // Consecutive duplicate.
  Polygon poly = polygon_canonical(Polygon{outer, {square(2, 2, 2), {{5, 5}, {5, 5}}}});
  EXPECT_EQ(poly.outer.size(), 4U);
  EXPECT_GT(ring_signed_area(poly.outer), 0.0);
  ASSERT_EQ(poly.holes.size(), 1U);
  EXPECT_LT(ring_signed_area(poly.holes[0]), 0.0);
}

TEST(RingSelfIntersections, SimpleRingHasNone) {
  EXPECT_TRUE(ring_self_intersections(square(0, 0, 10)).empty());
  // Repeated points are skipped, not defects.
  EXPECT_TRUE(ring_self_intersections({{0, 0}, {10, 0}, {10, 0}, {10, 10}, {0, 10}}).empty());
}

TEST(RingSelfIntersections, BowTie) {
  const auto defects = ring_self_intersections({{0, 0}, {1, 1}, {1, 0}, {0, 1}});
  ASSERT_EQ(defects.size(), 1U);
  EXPECT_EQ(defects[0].edge_a, 0U);
  EXPECT_EQ(defects[0].edge_b, 2U);
  EXPECT_DOUBLE_EQ(defects[0].at.x, 0.5);
  EXPECT_DOUBLE_EQ(defects[0].at.y, 0.5);
}

TEST(RingSelfIntersections, ZeroAreaRing) {
  // All points on one line: edge 1 folds back onto edge 0 at (2, 0).
  const auto defects = ring_self_intersections({{0, 0}, {2, 0}, {1, 0}});
  ASSERT_EQ(defects.size(), 1U);
  EXPECT_EQ(defects[0].edge_a, 0U);
  EXPECT_EQ(defects[0].edge_b, 1U);
  EXPECT_EQ(defects[0].at, (Vec2{2, 0}));
  // Longer collinear ring: the lowest pair is the fold back at (0, 0) between the last edge
  // and edge 0 (edges 1 and 3, 1 and 4 overlap too, but later in the order).
  const auto folded = ring_self_intersections({{0, 0}, {1, 0}, {2, 0}, {3, 0}, {1.5, 0}});
  ASSERT_EQ(folded.size(), 1U);
  EXPECT_EQ(folded[0].edge_a, 0U);
  EXPECT_EQ(folded[0].edge_b, 4U);
  EXPECT_EQ(folded[0].at, (Vec2{0, 0}));
}

TEST(RingSelfIntersections, TooFewPointsAndTouchingVertex) {
  ASSERT_EQ(ring_self_intersections({{0, 0}, {1, 0}, {0, 0}}).size(), 1U);
  // A figure eight pinched at (1, 1): edges 1 and 4 meet there (and 1 and 5 do too, later).
  const auto d = ring_self_intersections({{0, 0}, {1, 0}, {1, 1}, {2, 1}, {2, 2}, {1, 1}, {0, 1}});
  ASSERT_EQ(d.size(), 1U);
  EXPECT_EQ(d[0].edge_a, 1U);
  EXPECT_EQ(d[0].edge_b, 4U);
  EXPECT_EQ(d[0].at, (Vec2{1, 1}));
}

}  // namespace
}  // namespace cityforge
