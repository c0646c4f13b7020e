// SPDX-License-Identifier: Apache-2.0
#include "cityforge/core/polyline.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace cityforge {
namespace {

TEST(Polyline, LengthAndPointAt) {
  const Polyline line{{0, 0}, {3, 0}, {3, 4}};
  EXPECT_DOUBLE_EQ(polyline_length(line), 7.0);
  EXPECT_DOUBLE_EQ(polyline_length({{1, 1}}), 0.0);
  EXPECT_DOUBLE_EQ(polyline_length({}), 0.0);
  const Vec2 p = polyline_point_at(line, 5.0);
  EXPECT_DOUBLE_EQ(p.x, 3.0);
  EXPECT_DOUBLE_EQ(p.y, 2.0);
  EXPECT_EQ(polyline_point_at(line, -1.0), (Vec2{0, 0}));
  EXPECT_EQ(polyline_point_at(line, 100.0), (Vec2{3, 4}));
}

TEST(Polyline, TangentSkipsZeroLengthSegments) {
  const Polyline line{{0, 0}, {2, 0}, {2, 0}, {2, 5}};
  const Vec2 t0 = polyline_tangent_at(line, 1.0);
  EXPECT_DOUBLE_EQ(t0.x, 1.0);
  EXPECT_DOUBLE_EQ(t0.y, 0.0);
  const Vec2 t1 = polyline_tangent_at(line, 3.0);
  EXPECT_DOUBLE_EQ(t1.x, 0.0);
  EXPECT_DOUBLE_EQ(t1.y, 1.0);
}

TEST(Polyline, ResampleKeepsEndsAndSpacing) {
  const Polyline line{{0, 0}, {10, 0}, {10, 7}};
  const Polyline r = polyline_resample(line, 2.0);
  ASSERT_GE(r.size(), 2U);
  EXPECT_EQ(r.front(), line.front());
  EXPECT_EQ(r.back(), line.back());
  // 17 m at <= 2 m spacing needs 9 intervals.
  EXPECT_EQ(r.size(), 10U);
  for (std::size_t i = 0; i + 1 < r.size(); ++i) {
    EXPECT_LE(distance(r[i], r[i + 1]), 2.0 + 1e-12);
  }
  EXPECT_NEAR(polyline_length(polyline_resample({{0, 0}, {10, 0}}, 3.0)), 10.0, 1e-12);
}

TEST(Polyline, OffsetStraightAndMitred) {
  const Polyline line{{0, 0}, {10, 0}, {10, 10}};
  const Polyline left = polyline_offset(line, 1.0);
  ASSERT_EQ(left.size(), 3U);
  EXPECT_NEAR(left[0].x, 0.0, 1e-12);
  EXPECT_NEAR(left[0].y, 1.0, 1e-12);
  // The left side of a left turn is the inside corner: the mitre point is (9, 1).
  EXPECT_NEAR(left[1].x, 9.0, 1e-12);
  EXPECT_NEAR(left[1].y, 1.0, 1e-12);
  EXPECT_NEAR(left[2].x, 9.0, 1e-12);
  EXPECT_NEAR(left[2].y, 10.0, 1e-12);
  const Polyline right = polyline_offset(line, -1.0);
  EXPECT_NEAR(right[1].x, 11.0, 1e-12);
  EXPECT_NEAR(right[1].y, -1.0, 1e-12);
}

TEST(Polyline, OffsetMitreIsLimitedAtSharpTurns) {
  // A near reversal would put an unlimited mitre far away.
  const Polyline line{{0, 0}, {10, 0}, {0, 0.01}};
  const Polyline off = polyline_offset(line, 1.0);
  ASSERT_EQ(off.size(), 3U);
  EXPECT_LE(distance(off[1], line[1]), 4.0 + 1e-9);
}

TEST(Polyline, SimplifyDropsCollinearPoints) {
  const Polyline line{{0, 0}, {1, 0}, {2, 0}, {3, 0}, {3, 1}, {3, 2}};
  const Polyline s = polyline_simplify(line, 1e-9);
  ASSERT_EQ(s.size(), 3U);
  EXPECT_EQ(s[0], (Vec2{0, 0}));
  EXPECT_EQ(s[1], (Vec2{3, 0}));
  EXPECT_EQ(s[2], (Vec2{3, 2}));
  // A wiggle below the tolerance goes, one above it stays.
  const Polyline wiggle{{0, 0}, {5, 0.4}, {10, 0}};
  EXPECT_EQ(polyline_simplify(wiggle, 0.5).size(), 2U);
  EXPECT_EQ(polyline_simplify(wiggle, 0.3).size(), 3U);
}

TEST(Polyline, SmoothKeepsEnds) {
  const Polyline line{{0, 0}, {10, 0}, {10, 10}};
  const Polyline s = polyline_smooth(line, 2);
  EXPECT_EQ(s.front(), line.front());
  EXPECT_EQ(s.back(), line.back());
  EXPECT_GT(s.size(), line.size());
  // The corner is cut.
  EXPECT_GT(polyline_distance(s, {10, 0}), 1.0);
}

TEST(Polyline, DedupeAndDistance) {
  const Polyline line{{0, 0}, {0, 0}, {1, 0}, {1, 1e-12}, {2, 0}};
  EXPECT_EQ(polyline_dedupe(line).size(), 3U);
  EXPECT_DOUBLE_EQ(polyline_distance({{0, 0}, {10, 0}}, {5, 3}), 3.0);
  EXPECT_DOUBLE_EQ(polyline_distance({{0, 0}, {10, 0}}, {13, 4}), 5.0);
  EXPECT_TRUE(std::isinf(polyline_distance({}, {0, 0})));
}

TEST(SegmentIntersection, CrossTouchParallelCollinear) {
  Vec2 x;
  ASSERT_TRUE(segment_intersection({0, 0}, {2, 2}, {0, 2}, {2, 0}, &x));
  EXPECT_DOUBLE_EQ(x.x, 1.0);
  EXPECT_DOUBLE_EQ(x.y, 1.0);
  // T-junction: touching counts.
  ASSERT_TRUE(segment_intersection({0, 0}, {2, 0}, {1, 0}, {1, 5}, &x));
  EXPECT_EQ(x, (Vec2{1, 0}));
  EXPECT_FALSE(segment_intersection({0, 0}, {2, 0}, {0, 1}, {2, 1}, &x));
  EXPECT_FALSE(segment_intersection({0, 0}, {1, 0}, {2, 0}, {3, 0}, &x));
  // Collinear overlap: the overlap's point closest to a.
  ASSERT_TRUE(segment_intersection({0, 0}, {4, 0}, {5, 0}, {2, 0}, &x));
  EXPECT_EQ(x, (Vec2{2, 0}));
  ASSERT_TRUE(segment_intersection({1, 0}, {4, 0}, {0, 0}, {2, 0}, &x));
  EXPECT_EQ(x, (Vec2{1, 0}));
  EXPECT_FALSE(segment_intersection({0, 0}, {1, 1}, {1.1, 1.1}, {3, 0}, nullptr));
}

}  // namespace
}  // namespace cityforge
