// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numbers>

#include "cityforge/roads/roads.hpp"
#include "geometry_checks.hpp"
#include "hand_networks.hpp"
#include "overlap_checks.hpp"

namespace cityforge::roads {
namespace {

using layout::RoadClass;
using test::check_geometry;
using test::flat_ground;

Output geometry(const layout::Output& city, const Config& config = Config{}) {
  Result<Output> r = build_geometry(city, flat_ground(), config);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string());
  return r.ok() ? *r : Output{};
}

TEST(RoadsGeometry, TJunctionHasASurfaceAndNoOverlaps) {
  const layout::Output city = test::star({0, 90, 180}, {RoadClass::main, RoadClass::local});
  const Output out = geometry(city);
  check_geometry(city, out);
  const Intersection& x = out.intersections[0];
  EXPECT_GT(polygon_area(x.surface), 100.0);
  // A main road passing a local street keeps priority: the local leg stops.
  EXPECT_EQ(x.control, Control::stop);  // main, local, main.
  // The local leg needs room for the two curb returns of radius 5 m.
  EXPECT_GE(x.legs[1].trim_m, 7.0 + 5.0 - 1e-6);
}

TEST(RoadsGeometry, FourAndFiveWayJunctions) {
  for (const auto& angles :
       std::vector<std::vector<double>>{{0, 90, 180, 270}, {10, 80, 150, 230, 300}}) {
    const layout::Output city = test::star(angles, {RoadClass::local});
    const Output out = geometry(city);
    check_geometry(city, out);
    EXPECT_EQ(out.intersections[0].control, Control::stop);
    EXPECT_EQ(out.geometry_stats.junctions, 1U);
  }
  const layout::Output mixed =
      test::star({0, 72, 144, 216, 288}, {RoadClass::artery, RoadClass::local, RoadClass::main});
  check_geometry(mixed, geometry(mixed));
}

TEST(RoadsGeometry, AcuteTwentyDegreeJunction) {
  const layout::Output city =
      test::star({0, 20, 180}, {RoadClass::artery, RoadClass::main, RoadClass::local}, 150);
  const Output out = geometry(city);
  check_geometry(city, out);
  // A 20 degree wedge between a 22 m and a 14 m road needs a long trim.
  EXPECT_GT(out.intersections[0].legs[0].trim_m, 40.0);
  EXPECT_EQ(out.intersections[0].control, Control::signal);
}

TEST(RoadsGeometry, AcuteJunctionOnShortEdgesShrinksTrims) {
  const layout::Output city = test::star({0, 20, 180}, {RoadClass::artery}, 30);
  const Output out = geometry(city);
  check_geometry(city, out);
  EXPECT_GT(out.geometry_stats.trims_shrunk, 0U);
}

TEST(RoadsGeometry, RoundaboutLikeRing) {
  for (double radius : {25.0, 40.0}) {
    const layout::Output city = test::ring(8, radius);
    const Output out = geometry(city);
    check_geometry(city, out);
    EXPECT_EQ(out.intersections[0].control, Control::stop);  // four local spokes
    EXPECT_GE(out.geometry_stats.junctions, 9U);
  }
}

TEST(RoadsGeometry, BendsOfEqualRoadsMeetWithoutSurfaceOrOverlap) {
  for (double angle : {90.0, 135.0, 170.0, 200.0, 30.0}) {
    const layout::Output city = test::star({0, angle}, {RoadClass::main});
    const Output out = geometry(city);
    check_geometry(city, out);
    EXPECT_TRUE(out.intersections[0].surface.outer.empty());
    EXPECT_EQ(out.intersections[0].control, Control::none);
    for (const Leg& leg : out.intersections[0].legs)
      EXPECT_EQ(leg.trim_m, 0.0);
  }
}

/// Heading (radians) of the chord from a to b.
double heading(Vec2 a, Vec2 b) { return std::atan2(b.y - a.y, b.x - a.x); }

TEST(RoadsGeometry, CornersAndBendsAreRoundedAndLanesFollowThem) {
  // A 90 degree corner inside one edge, and a bend of two equal edges without a junction.
  test::NetBuilder b;
  const auto n0 = b.node({0, 0});
  const auto n1 = b.node({200, 100});
  const auto n2 = b.node({260, 180});
  b.edge(n0, n1, RoadClass::main, {{200, 0}});
  b.edge(n1, n2, RoadClass::main);
  const layout::Output city = b.finish();
  const Output out = geometry(city);
  check_geometry(city, out);
  const Section& s0 = out.sections[0];
  const Section& s1 = out.sections[1];
  ASSERT_EQ(s0.corners.size(), 3U);
  EXPECT_GT(s0.corner_radius_m, 0.5 * city.network.edges[0].width_m);
  // The inner corner: the centre line passes r (sqrt 2 - 1) from it, on an arc of radius r.
  const double r = s0.corner_radius_m;
  EXPECT_NEAR(polyline_distance(s0.centre, {200, 0}), r * (std::sqrt(2.0) - 1.0), 0.003);
  EXPECT_GT(s0.centre.size(), 20U);
  for (const Vec2 p : s0.centre) {
    if (p.x > 200.0 - r + 1e-6 && p.y < r - 1e-6) {
      EXPECT_NEAR(distance(p, {200.0 - r, r}), r, 1e-6);
    }
  }
  // The bend: both sections round it and end at one point with one heading (within one
  // sampling step of the arc), off the sharp corner.
  ASSERT_TRUE(s0.joins[1].present);
  ASSERT_TRUE(s1.joins[0].present);
  EXPECT_FALSE(s0.joins[0].present);
  EXPECT_LT(distance(s0.centre.back(), s1.centre.front()), 1e-9);
  EXPECT_GT(distance(s0.centre.back(), {200, 100}), 0.2);
  const double h0 = heading(s0.centre[s0.centre.size() - 2], s0.centre.back());
  const double h1 = heading(s1.centre[0], s1.centre[1]);
  EXPECT_LT(std::abs(std::remainder(h1 - h0, 2.0 * std::numbers::pi)), 0.05);
  // The lanes follow the rounded lines: no lane turns back on itself, and the lanes across the
  // bend meet end to start.
  const auto g = build_lane_graph(city, out, flat_ground(), Config{});
  ASSERT_TRUE(g.ok()) << g.error().to_string();
  std::size_t joined = 0;
  for (const Lane& l : g->lanes) {
    for (std::size_t i = 2; l.section >= 0 && i < l.points.size(); ++i) {
      const Vec2 a{l.points[i - 1].x - l.points[i - 2].x, l.points[i - 1].y - l.points[i - 2].y};
      const Vec2 c{l.points[i].x - l.points[i - 1].x, l.points[i].y - l.points[i - 1].y};
      EXPECT_GT(dot(a, c), 0.0) << "lane " << l.id << " turns back at point " << i - 1;
    }
    if ((l.tags & kVehicle) == 0U || l.section < 0) continue;
    for (const LaneId next : l.successors) {
      const Lane& m = g->lanes[next];
      if (m.section < 0 || m.section == l.section) continue;
      EXPECT_LT(distance(Vec2{l.points.back().x, l.points.back().y},
                         Vec2{m.points.front().x, m.points.front().y}),
                1e-6);
      ++joined;
    }
  }
  EXPECT_EQ(joined, 2U * city.network.edges[0].lanes_per_direction);
}

TEST(RoadsGeometry, WidthChangeGetsATaper) {
  const layout::Output city = test::star({0, 180}, {RoadClass::artery, RoadClass::local});
  const Output out = geometry(city);
  check_geometry(city, out);
  EXPECT_FALSE(out.intersections[0].surface.outer.empty());
}

TEST(RoadsGeometry, CurvedLegsDoNotOverlap) {
  test::NetBuilder b;
  const auto c = b.node({0, 0});
  const auto n1 = b.node({100, 60});
  const auto n2 = b.node({-80, 70});
  const auto n3 = b.node({0, -100});
  b.edge(c, n1, RoadClass::artery, {{15, 2}, {30, 10}, {60, 30}});
  b.edge(c, n2, RoadClass::main, {{8, 12}, {0, 40}});
  b.edge(c, n3, RoadClass::local, {{-3, -20}});
  const layout::Output city = b.finish();
  check_geometry(city, geometry(city));
}

TEST(RoadsGeometry, DeterministicBytes) {
  const layout::Output city = test::ring(6, 30);
  const Output a = geometry(city);
  const Output b = geometry(city);
  ASSERT_EQ(a.intersections.size(), b.intersections.size());
  for (std::size_t i = 0; i < a.intersections.size(); ++i) {
    const Ring& ra = a.intersections[i].surface.outer;
    const Ring& rb = b.intersections[i].surface.outer;
    ASSERT_EQ(ra.size(), rb.size());
    if (ra.empty()) continue;  // memcmp on a null pointer is undefined even for 0 bytes
    EXPECT_EQ(std::memcmp(ra.data(), rb.data(), ra.size() * sizeof(Vec2)), 0);
  }
}

TEST(RoadsGeometry, RejectsEdgeWithOnePoint) {
  layout::Output city = test::star({0, 90, 180}, {RoadClass::local});
  city.network.edges[1].points.resize(1);
  Result<Output> r = build_geometry(city, flat_ground(), Config{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().to_string().find("edge 1"), std::string::npos);
}

}  // namespace
}  // namespace cityforge::roads
