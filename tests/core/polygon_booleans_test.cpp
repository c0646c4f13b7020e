// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "cityforge/core/polygon.hpp"

namespace cityforge {
namespace {

Ring square(double x0, double y0, double size) {
  return {{x0, y0}, {x0 + size, y0}, {x0 + size, y0 + size}, {x0, y0 + size}};
}

void expect_canonical(const Polygon& p) {
  EXPECT_GT(ring_signed_area(p.outer), 0.0);
  EXPECT_NE(p.outer.front(), p.outer.back());
  for (const Ring& h : p.holes) {
    EXPECT_LT(ring_signed_area(h), 0.0);
    EXPECT_NE(h.front(), h.back());
  }
}

TEST(PolygonIsValid, SquareValidBowTieNot) {
  EXPECT_TRUE(polygon_is_valid(Polygon{square(0, 0, 10), {}}));
  std::string reason;
  EXPECT_FALSE(polygon_is_valid(Polygon{{{0, 0}, {1, 1}, {1, 0}, {0, 1}}, {}}, &reason));
  EXPECT_NE(reason.find("Self-intersection"), std::string::npos) << reason;
  EXPECT_NE(reason.find("(0.5, 0.5)"), std::string::npos) << reason;
  // A hole outside the shell.
  EXPECT_FALSE(polygon_is_valid(Polygon{square(0, 0, 10), {square(20, 20, 1)}}, &reason));
  EXPECT_FALSE(polygon_is_valid(Polygon{{{0, 0}, {1, 0}}, {}}, &reason));
}

TEST(PolygonBooleans, SquareMinusCrossOfRoadsGivesFourBlocks) {
  const Polygon block{square(0, 0, 100), {}};
  std::vector<Polygon> roads = polyline_buffer({{-10, 50}, {110, 50}}, 5.0);
  const std::vector<Polygon> vertical = polyline_buffer({{50, -10}, {50, 110}}, 5.0);
  roads.insert(roads.end(), vertical.begin(), vertical.end());
  ASSERT_EQ(roads.size(), 2U);
  const std::vector<Polygon> pieces = polygon_difference(block, roads);
  ASSERT_EQ(pieces.size(), 4U);
  for (const Polygon& p : pieces) {
    EXPECT_NEAR(polygon_area(p), 45.0 * 45.0, 1e-6);
    expect_canonical(p);
  }
  // Sorted by (min x, min y).
  EXPECT_NEAR(ring_bounds(pieces[0].outer).min.y, 0.0, 1e-9);
  EXPECT_NEAR(ring_bounds(pieces[1].outer).min.y, 55.0, 1e-9);
  EXPECT_NEAR(ring_bounds(pieces[2].outer).min.x, 55.0, 1e-9);
  EXPECT_NEAR(ring_bounds(pieces[3].outer).min.x, 55.0, 1e-9);
  EXPECT_NEAR(ring_bounds(pieces[3].outer).min.y, 55.0, 1e-9);
}

TEST(PolygonBooleans, IntersectionsOfManyAgainstOneAreEachIntersection) {
  // One large polygon with holes (a block with its buildings cut out) against small ones:
  // overlapping, inside a hole, outside, and an invalid bow tie.
  Polygon block{square(0, 0, 100), {}};
  for (int k = 0; k < 4; ++k) {
    Ring hole = square(10.0 + 20.0 * k, 40, 8);
    std::reverse(hole.begin(), hole.end());
    block.holes.push_back(hole);
  }
  const std::vector<Polygon> small{Polygon{square(5, 35, 20), {}}, Polygon{square(31, 41, 5), {}},
                                   Polygon{square(200, 0, 5), {}},
                                   Polygon{{{0, 0}, {10, 10}, {10, 0}, {0, 10}}, {}},
                                   Polygon{square(95, 95, 10), {}}};
  const auto many = polygon_intersections(small, block);
  ASSERT_EQ(many.size(), small.size());
  for (std::size_t i = 0; i < small.size(); ++i) {
    const auto one = polygon_intersection(small[i], block);
    ASSERT_EQ(many[i].size(), one.size()) << i;
    for (std::size_t k = 0; k < one.size(); ++k) {
      EXPECT_EQ(many[i][k].outer, one[k].outer) << i;
      EXPECT_EQ(many[i][k].holes, one[k].holes) << i;
    }
  }
  EXPECT_NEAR(polygon_area(many[0][0]), 400.0 - 64.0 + 0.0, 1e-9);  // One hole inside it.
  EXPECT_TRUE(many[1].empty());                                     // Inside a hole.
  EXPECT_TRUE(many[2].empty());                                     // Outside.
  EXPECT_NEAR(polygon_area(many[4][0]), 25.0, 1e-9);
  EXPECT_TRUE(polygon_intersections({}, block).empty());
}

TEST(PolygonBooleans, UnionIntersectionOffset) {
  const Polygon a{square(0, 0, 10), {}};
  const Polygon b{square(5, 5, 10), {}};
  const auto u = polygon_union({a, b});
  ASSERT_EQ(u.size(), 1U);
  EXPECT_NEAR(polygon_area(u[0]), 175.0, 1e-9);
  expect_canonical(u[0]);
  const auto apart = polygon_union({a, Polygon{square(20, 0, 5), {}}});
  ASSERT_EQ(apart.size(), 2U);
  EXPECT_LT(ring_bounds(apart[0].outer).min.x, ring_bounds(apart[1].outer).min.x);
  const auto i = polygon_intersection(a, b);
  ASSERT_EQ(i.size(), 1U);
  EXPECT_NEAR(polygon_area(i[0]), 25.0, 1e-9);
  EXPECT_TRUE(polygon_intersection(a, Polygon{square(50, 50, 1), {}}).empty());

  const Polygon big{square(0, 0, 100), {}};
  const auto inset = polygon_offset(big, -5.0);
  ASSERT_EQ(inset.size(), 1U);
  EXPECT_NEAR(polygon_area(inset[0]), 90.0 * 90.0, 1e-6);
  const auto grown = polygon_offset(big, 5.0);
  ASSERT_EQ(grown.size(), 1U);
  EXPECT_NEAR(polygon_area(grown[0]), 110.0 * 110.0, 1e-6);  // Mitred: square corners.
  EXPECT_TRUE(polygon_offset(big, -60.0).empty());
  // A dumbbell inset splits in two.
  const Polygon dumbbell{{{0, 0},
                          {40, 0},
                          {40, 18},
                          {60, 18},
                          {60, 0},
                          {100, 0},
                          {100, 40},
                          {60, 40},
                          {60, 22},
                          {40, 22},
                          {40, 40},
                          {0, 40}},
                         {}};
  EXPECT_EQ(polygon_offset(dumbbell, -3.0).size(), 2U);
}

TEST(PolygonBooleans, DifferenceLeavesHole) {
  const auto d =
      polygon_difference(Polygon{square(0, 0, 100), {}}, {Polygon{square(40, 40, 20), {}}});
  ASSERT_EQ(d.size(), 1U);
  ASSERT_EQ(d[0].holes.size(), 1U);
  EXPECT_NEAR(polygon_area(d[0]), 9600.0, 1e-9);
  expect_canonical(d[0]);
}

TEST(PolygonBooleans, InvalidInputDoesNotCrash) {
  const Polygon bow{{{0, 0}, {10, 10}, {10, 0}, {0, 10}}, {}};
  const auto u = polygon_union({bow});
  EXPECT_EQ(u.size(), 2U);  // Made valid: two triangles.
  EXPECT_TRUE(polygon_union({}).empty());
  EXPECT_TRUE(polygon_difference(Polygon{}, {bow}).empty());
  const Polygon nan{{{0, 0}, {NAN, 0}, {1, 1}}, {}};
  EXPECT_TRUE(polygon_intersection(nan, bow).empty());
  EXPECT_TRUE(polyline_buffer({{0, 0}}, 1.0).empty());
  EXPECT_TRUE(triangulate(nan).indices.empty());
}

TEST(PolylineBuffer, FlatCapsMitredJoin) {
  const auto b = polyline_buffer({{0, 0}, {100, 0}, {100, 100}}, 5.0);
  ASSERT_EQ(b.size(), 1U);
  // Flat ends and a mitred corner: exactly 2 * half width * length.
  EXPECT_NEAR(polygon_area(b[0]), 2000.0, 1e-6);
  expect_canonical(b[0]);
}

TEST(ClipPolyline, PiecesInOrderAroundHole) {
  const Polygon poly{square(0, 0, 100), {square(40, 40, 20)}};
  const auto parts = clip_polyline({{-10, 50}, {30, 50}, {110, 50}}, poly);
  ASSERT_EQ(parts.size(), 2U);
  ASSERT_EQ(parts[0].size(), 3U);  // Keeps the interior vertex at (30, 50).
  EXPECT_NEAR(parts[0].front().x, 0.0, 1e-12);
  EXPECT_NEAR(parts[0].back().x, 40.0, 1e-12);
  EXPECT_NEAR(parts[1].front().x, 60.0, 1e-12);
  EXPECT_NEAR(parts[1].back().x, 100.0, 1e-12);
  EXPECT_TRUE(clip_polyline({{200, 0}, {300, 0}}, poly).empty());
  const auto inside = clip_polyline({{10, 10}, {20, 20}}, poly);
  ASSERT_EQ(inside.size(), 1U);
  EXPECT_EQ(inside[0].size(), 2U);
}

void expect_good_triangulation(const Polygon& poly, const Triangulation& t) {
  ASSERT_FALSE(t.indices.empty());
  ASSERT_EQ(t.indices.size() % 3, 0U);
  double sum = 0.0;
  for (std::size_t k = 0; k < t.indices.size(); k += 3) {
    const Ring tri{t.points[t.indices[k]], t.points[t.indices[k + 1]], t.points[t.indices[k + 2]]};
    const double area = ring_signed_area(tri);
    EXPECT_GT(area, 0.0);
    EXPECT_TRUE(polygon_contains(poly, (tri[0] + tri[1] + tri[2]) / 3.0));
    sum += area;
  }
  EXPECT_NEAR(sum, polygon_area(poly), 1e-6 * polygon_area(poly));
}

TEST(Triangulate, PolygonWithHole) {
  Ring hole = square(40, 40, 20);
  std::reverse(hole.begin(), hole.end());
  const Polygon poly{square(0, 0, 100), {hole}};
  const Triangulation t = triangulate(poly);
  expect_good_triangulation(poly, t);
  EXPECT_EQ(t.points.size(), 8U);
  EXPECT_EQ(t.indices.size(), 8U * 3U);  // n + 2h - 2 = 8 triangles.
}

TEST(Triangulate, ConcaveAndClockwiseInput) {
  Ring l{{0, 0}, {0, 20}, {10, 20}, {10, 10}, {20, 10}, {20, 0}};  // Clockwise L.
  const Polygon poly{l, {}};
  expect_good_triangulation(poly, triangulate(poly));
}

TEST(PolygonBooleans, ThreadSafeAndDeterministic) {
  const Polygon block{square(0, 0, 100), {}};
  const std::vector<Polygon> roads = polyline_buffer({{-10, 30}, {50, 70}, {110, 20}}, 4.0);
  const auto expected = polygon_difference(block, roads);
  std::vector<std::size_t> same(4, 0);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < same.size(); ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < 50; ++k) {
        const auto r = polygon_difference(block, roads);
        bool eq = r.size() == expected.size();
        for (std::size_t i = 0; eq && i < r.size(); ++i) {
          eq = r[i].outer == expected[i].outer && r[i].holes == expected[i].holes;
        }
        same[t] += eq ? 1 : 0;
      }
    });
  }
  for (std::thread& th : threads) {
    th.join();
  }
  for (const std::size_t s : same) {
    EXPECT_EQ(s, 50U);
  }
}

}  // namespace
}  // namespace cityforge
