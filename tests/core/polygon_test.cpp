// SPDX-License-Identifier: Apache-2.0
#include "cityforge/core/polygon.hpp"

#include <gtest/gtest.h>

#include <algorithm>

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
