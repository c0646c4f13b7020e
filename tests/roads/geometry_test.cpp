// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

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
