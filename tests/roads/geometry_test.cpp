// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "cityforge/roads/roads.hpp"
#include "hand_networks.hpp"
#include "overlap_checks.hpp"

namespace cityforge::roads {
namespace {

using layout::RoadClass;
using test::flat_ground;

Output geometry(const layout::Output& city, const Config& config = Config{}) {
  Result<Output> r = build_geometry(city, flat_ground(), config);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string());
  return r.ok() ? *r : Output{};
}

// Shared invariants: no overlaps, one intersection per node and one section per edge, legs
// counter-clockwise, every mouth on its junction surface.
void check_geometry(const layout::Output& city, const Output& out, const Config& config = {}) {
  EXPECT_EQ(test::describe(test::overlaps(out)), "");
  ASSERT_EQ(out.intersections.size(), city.network.nodes.size());
  ASSERT_EQ(out.sections.size(), city.network.edges.size());
  for (std::size_t n = 0; n < out.intersections.size(); ++n) {
    const Intersection& x = out.intersections[n];
    SCOPED_TRACE("node " + std::to_string(n));
    EXPECT_EQ(x.node, n);
    ASSERT_EQ(x.legs.size(), city.network.nodes[n].edges.size());
    double prev = -10;
    for (const Leg& leg : x.legs) {
      EXPECT_NEAR(length(leg.direction), 1.0, 1e-9);
      const double a = std::atan2(leg.direction.y, leg.direction.x);
      EXPECT_GE(a, prev) << "legs counter-clockwise by leaving angle";
      prev = a;
      const Section& s = out.sections[leg.edge];
      EXPECT_DOUBLE_EQ(leg.trim_m, leg.at_edge_start ? s.trim_start_m : s.trim_end_m);
      if (x.legs.size() >= 3) {
        EXPECT_GE(leg.trim_m, config.min_trim_m - 1e-9);
      }
      if (x.legs.size() == 1) {
        EXPECT_EQ(leg.trim_m, 0.0);
      }
      if (!x.surface.outer.empty()) {
        // The mouth's centre lies on the junction surface's boundary (within 1 cm).
        const Vec2 m = leg.at_edge_start ? s.centre.front() : s.centre.back();
        Polyline boundary = x.surface.outer;
        boundary.push_back(boundary.front());
        EXPECT_LT(polyline_distance(boundary, m), 0.01);
      }
    }
  }
  for (const Section& s : out.sections) {
    const double len = polyline_length(city.network.edges[s.edge].points);
    EXPECT_LE(s.trim_start_m + s.trim_end_m, config.max_trim_share * len + 1e-6);
    EXPECT_NEAR(polyline_length(s.centre), len - s.trim_start_m - s.trim_end_m, 1e-6);
    EXPECT_GT(polygon_area(s.surface), 0.0);
  }
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

TEST(RoadsGeometry, LayoutCityHasNoOverlaps) {
  layout::Inputs in;
  in.boundary.outer = {{0, 0}, {1200, 0}, {1250, 700}, {1100, 1100}, {0, 1000}};
  in.arteries.push_back({"east-west", {{10, 480}, {600, 560}, {1230, 520}}});
  in.arteries.push_back({"north-south", {{620, 10}, {560, 500}, {640, 1040}}});
  layout::Zone res;
  res.area.outer = in.boundary.outer;
  in.zones = {res};
  const terrain::Heightfield ground =
      *terrain::run(ring_bounds(in.boundary.outer), terrain::Config{}, 4);
  const layout::Output city = *layout::run(in, ground, layout::Config{}, 4);
  Result<Output> r = build_geometry(city, ground, Config{});
  ASSERT_TRUE(r.ok());
  check_geometry(city, *r);
  EXPECT_GT(r->geometry_stats.junctions, 20U);
}

}  // namespace
}  // namespace cityforge::roads

namespace cityforge::roads {
namespace {

// Sidewalks fill the ring between blocks and curbs: they never overlap a road surface or a
// block, and they reach the junction corners (the curb returns).
TEST(RoadsSidewalks, BetweenBlocksAndCurbsWithoutOverlaps) {
  layout::Inputs in;
  in.boundary.outer = {{0, 0}, {900, 0}, {900, 700}, {0, 700}};
  in.arteries.push_back({"a", {{10, 350}, {890, 380}}});
  layout::Zone z;
  z.area.outer = in.boundary.outer;
  in.zones = {z};
  const terrain::Heightfield flat =
      *terrain::run(ring_bounds(in.boundary.outer), terrain::Config{0.0}, 1);
  const layout::Output city = *layout::run(in, flat, layout::Config{}, 3);
  const Output out = *run(city, flat, Config{}, 3);
  ASSERT_GT(out.sidewalks.size(), city.blocks.size() / 2);
  double walk_area = 0.0;
  for (const Polygon& w : out.sidewalks) {
    walk_area += polygon_area(w);
    const Aabb2 wb = ring_bounds(w.outer);
    auto overlap = [&](const Polygon& p) {
      if (p.outer.size() < 3 || !wb.overlaps(ring_bounds(p.outer))) return 0.0;
      double a = 0.0;
      for (const Polygon& q : polygon_intersection(w, p))
        a += polygon_area(q);
      return a;
    };
    for (const Section& s : out.sections)
      ASSERT_LT(overlap(s.surface), 0.01);
    for (const Intersection& x : out.intersections)
      ASSERT_LT(overlap(x.surface), 0.01);
    for (const layout::Block& b : city.blocks)
      ASSERT_LT(overlap(b.area), 0.01);
  }
  // Roughly the sidewalk width times the block perimeters.
  double expected = 0.0;
  for (const layout::Block& b : city.blocks)
    expected += polygon_perimeter(b.area) * 3.0;
  EXPECT_GT(walk_area, 0.8 * expected);
}

}  // namespace
}  // namespace cityforge::roads
