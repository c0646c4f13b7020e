// SPDX-License-Identifier: Apache-2.0
#include "cityforge/core/fillet.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

namespace cityforge {
namespace {

TEST(Fillet, CornersMergeStraightRuns) {
  const Polyline line{{0, 0}, {5, 0}, {5, 0}, {10, 0.0005}, {20, 0}, {20, 10}};
  const Polyline c = polyline_corners(line);
  ASSERT_EQ(c.size(), 3U);
  EXPECT_EQ(c[1], (Vec2{20, 0}));
}

TEST(Fillet, RightAngleArcIsTangentToBothLines) {
  const CornerFillet f = corner_fillet({-50, 0}, {0, 0}, {0, 50}, 10.0);
  ASSERT_TRUE(f.ok);
  EXPECT_NEAR(f.a.x, -10.0, 1e-12);
  EXPECT_NEAR(f.b.y, 10.0, 1e-12);
  EXPECT_NEAR(f.curvature, 0.1, 1e-12);  // Left turn.
  EXPECT_NEAR(2.0 * f.half_length, 10.0 * std::numbers::pi / 2.0, 1e-12);
  const Vec2 end = fillet_point(f, 2.0 * f.half_length);
  EXPECT_NEAR(end.x, f.b.x, 1e-9);
  EXPECT_NEAR(end.y, f.b.y, 1e-9);
  // The middle lies on the bisector, r (sqrt 2 - 1) from the corner.
  EXPECT_NEAR(length(f.m), 10.0 * (std::sqrt(2.0) - 1.0), 1e-9);
  EXPECT_NEAR(f.m.x, -f.m.y, 1e-9);
}

TEST(Fillet, ShortLinesShrinkTheRadius) {
  // The tangent length is capped at half the shorter line (2 m): radius 2 for 90 degrees.
  const CornerFillet f = corner_fillet({-4, 0}, {0, 0}, {0, 50}, 10.0);
  ASSERT_TRUE(f.ok);
  EXPECT_NEAR(std::abs(1.0 / f.curvature), 2.0, 1e-12);
  EXPECT_FALSE(corner_fillet({-4, 0}, {0, 0}, {4, 0}, 10.0).ok);  // Straight: stays sharp.
  EXPECT_FALSE(corner_fillet({-4, 0}, {0, 0}, {0, 4}, 0.0).ok);   // No radius.
}

TEST(Fillet, RoundedLineSamplesTheArcsWithinTheChordError) {
  const Polyline corners{{-50, 0}, {0, 0}, {0, 50}};
  const double r = 12.0;
  const Polyline line = round_corners(corners, r);
  EXPECT_EQ(line.front(), corners.front());
  EXPECT_EQ(line.back(), corners.back());
  const CornerFillet f = corner_fillet(corners[0], corners[1], corners[2], r);
  ASSERT_TRUE(f.ok);
  const Vec2 centre{-r, r};
  std::size_t on_arc = 0;
  for (std::size_t i = 1; i + 1 < line.size(); ++i) {
    // Every inner point is on the arc; the chords at offset r from it (radius 2r on the
    // outside) depart from the offset arc by at most the chord error.
    EXPECT_NEAR(distance(line[i], centre), r, 1e-9);
    if (i + 2 == line.size()) break;  // The last chord is the straight line.
    const double chord = distance(line[i], line[i + 1]);
    const double outer = 2.0 * r;
    const double half_angle = std::asin(0.5 * chord / r);
    EXPECT_LE(outer * (1.0 - std::cos(half_angle)), kFilletChordErrorM + 1e-12);
    ++on_arc;
  }
  EXPECT_GT(on_arc, 10U);
}

TEST(Fillet, JoinedEndsMeetOnTheBisectorWithOneHeading) {
  // Two lines meeting at a bend without a junction: each takes half of one rounding.
  const Polyline a{{-40, 0}, {0, 0}};
  const Polyline b{{0, 0}, {30, 30}};
  CornerJoin at_a{true, {0, 0}, b[1], 8.0};
  CornerJoin at_b{true, {0, 0}, a[0], 8.0};
  const Polyline ra = round_corners(a, 8.0, {}, at_a);
  const Polyline rb = round_corners(b, 8.0, at_b, {});
  EXPECT_NEAR(distance(ra.back(), rb.front()), 0.0, 1e-9);
  const Vec2 ta = normalize(ra[ra.size() - 1] - ra[ra.size() - 2]);
  const Vec2 tb = normalize(rb[1] - rb[0]);
  // The last and first chords turn by one sampling step of the arc (2.2 degrees at radius 8
  // with offsets up to 8 m) about the common tangent.
  EXPECT_GT(dot(ta, tb), std::cos(2.5 * std::numbers::pi / 180.0));
  // The meeting point lies on the bisector of the 45 degree corner.
  const double angle = std::atan2(ra.back().y, ra.back().x) * 180.0 / std::numbers::pi;
  EXPECT_NEAR(angle, 90.0 + 22.5, 1e-6);
}

TEST(Fillet, DensifyKeepsEveryPoint) {
  const Polyline line{{0, 0}, {12, 0}, {12, 1}};
  const Polyline d = polyline_densify(line, 5.0);
  ASSERT_EQ(d.size(), 5U);  // 12 m in 3 pieces of 4 m, then the 1 m segment.
  EXPECT_EQ(d[3], (Vec2{12, 0}));
  EXPECT_NEAR(d[1].x, 4.0, 1e-12);
}

}  // namespace
}  // namespace cityforge
