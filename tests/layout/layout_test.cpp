// SPDX-License-Identifier: Apache-2.0
#include "cityforge/layout/layout.hpp"

#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "layout_checks.hpp"
#include "layout_fixture.hpp"

namespace cityforge::layout {
namespace {

using test::small_city;

terrain::Heightfield flat_ground(const Inputs& in) {
  return *terrain::run(ring_bounds(in.boundary.outer), terrain::Config{0.0}, 1);
}

TEST(LayoutRun, NetworkIsPlanarAndConnectedWithAllClasses) {
  const Inputs in = small_city();
  const Output out = *run(in, flat_ground(in), Config{}, 3);
  EXPECT_EQ(test::first_crossing(out.network), "");
  EXPECT_TRUE(test::is_connected(out.network));
  std::set<RoadClass> classes;
  for (const RoadEdge& e : out.network.edges)
    classes.insert(e.road_class);
  EXPECT_EQ(classes.size(), 3U);
  EXPECT_GT(out.blocks.size(), 10U);
}

TEST(LayoutRun, BlocksAreSimplePolygonsInsideTheBoundary) {
  const Inputs in = small_city();
  const Output out = *run(in, flat_ground(in), Config{}, 3);
  ASSERT_FALSE(out.blocks.empty());
  for (const Block& b : out.blocks) {
    SCOPED_TRACE("block " + std::to_string(b.id));
    EXPECT_TRUE(b.area.holes.empty());
    EXPECT_TRUE(ring_self_intersections(b.area.outer).empty());
    EXPECT_GT(polygon_area(b.area), Config{}.min_block_area_m2 - 1e-6);
    double outside = 0;
    for (const Polygon& p : polygon_difference(b.area, {in.boundary}))
      outside += polygon_area(p);
    EXPECT_LT(outside, 0.5);
  }
}

TEST(LayoutRun, BlocksKeepClearOfRoadsAndSidewalks) {
  const Inputs in = small_city();
  const Output out = *run(in, flat_ground(in), Config{}, 5);
  for (const Block& b : out.blocks) {
    for (Vec2 p : b.area.outer) {
      for (const RoadEdge& e : out.network.edges) {
        // 5 cm tolerance for buffer discretisation.
        ASSERT_GE(polyline_distance(e.points, p), e.width_m / 2 + e.sidewalk_width_m - 0.05)
            << "block " << b.id << " reaches into road " << e.id;
      }
    }
  }
}

TEST(LayoutRun, ArteriesFollowTheirCurvesWithinTheCorridor) {
  const Inputs in = small_city();
  terrain::Config hills;
  hills.amplitude_m = 30;
  hills.scale_m = 400;
  const terrain::Heightfield ground = *terrain::run(ring_bounds(in.boundary.outer), hills, 4);
  Config cfg;
  cfg.corridor_m = 60;
  const Output out = *run(in, ground, cfg, 4);
  ASSERT_EQ(out.routed_arteries.size(), 2U);
  Ring limit = in.boundary.outer;
  limit.push_back(limit.front());
  for (std::size_t a = 0; a < 2; ++a) {
    const Polyline& path = out.routed_arteries[a];
    for (std::size_t i = 0; i < path.size(); ++i) {
      const bool on_limit = polyline_distance(limit, path[i]) < 1e-6;
      // Only the ends may leave the corridor, and only to reach the city limit.
      if (on_limit && (i == 0 || i + 1 == path.size())) continue;
      EXPECT_LE(polyline_distance(in.arteries[a].points, path[i]),
                cfg.corridor_m + cfg.cost_cell_m);
    }
    // The artist's end points are kept (the ends near the limit are carried on to it).
    auto has = [&](Vec2 p) { return std::find(path.begin(), path.end(), p) != path.end(); };
    EXPECT_TRUE(has(in.arteries[a].points.front()));
    EXPECT_TRUE(has(in.arteries[a].points.back()));
  }
  EXPECT_LT(polyline_distance(limit, out.routed_arteries[0].front()), 1e-6)
      << "west end reaches the limit";
  EXPECT_LT(polyline_distance(limit, out.routed_arteries[1].front()), 1e-6)
      << "south end reaches the limit";
}

TEST(LayoutRun, LeastCostRoutingAvoidsASteepHill) {
  Inputs in;
  in.boundary.outer = {{0, 0}, {2000, 0}, {2000, 1000}, {0, 1000}};
  in.arteries.push_back({"straight", {{20, 500}, {1980, 500}}});
  Zone z;
  z.area.outer = in.boundary.outer;
  in.zones = {z};
  // A 120 m Gaussian hill (radius ~150 m) right on the straight line.
  terrain::Heightfield hill = flat_ground(in);
  const Vec2 top{1000, 500};
  for (std::uint32_t j = 0; j < hill.ny; ++j) {
    for (std::uint32_t i = 0; i < hill.nx; ++i) {
      const Vec2 p = hill.origin + Vec2{i * hill.cell_m, j * hill.cell_m};
      const double d2 = std::pow(distance(p, top), 2);
      hill.heights[std::size_t{j} * hill.nx + i] =
          static_cast<float>(120.0 * std::exp(-d2 / (2 * 150.0 * 150.0)));
    }
  }
  Config cfg;
  cfg.corridor_m = 400;
  const Output flat = *run(in, flat_ground(in), cfg, 1);
  const Output hilly = *run(in, hill, cfg, 1);
  double flat_dev = 0;
  for (Vec2 p : flat.routed_arteries[0])
    flat_dev = std::max(flat_dev, std::fabs(p.y - 500));
  double max_h = 0;
  for (Vec2 p : polyline_resample(hilly.routed_arteries[0], 5))
    max_h = std::max(max_h, hill.sample(p));
  EXPECT_LT(flat_dev, 15.0) << "on flat ground the artery stays on its curve";
  EXPECT_LT(max_h, 40.0) << "the artery climbs the hill instead of going round it";
}

TEST(LayoutValidate, RejectsBadGeometry) {
  Inputs in = small_city();
  in.boundary.outer = {{0, 0}, {100, 0}, {200, 0}};
  EXPECT_NE(validate(in, Config{}).error().message.find("zero area"), std::string::npos);
  in = small_city();
  in.boundary.outer = {{0, 0}, {1000, 1000}, {1000, 0}, {0, 1000}};
  const Status bow = validate(in, Config{});
  ASSERT_FALSE(bow.ok());
  EXPECT_NE(bow.error().message.find("self-intersecting"), std::string::npos);
  in = small_city();
  in.arteries[1].points.push_back({5000, 5000});
  const Status outside = validate(in, Config{});
  ASSERT_FALSE(outside.ok());
  EXPECT_EQ(outside.error().where, "arteries[1].points[3]");
  in = small_city();
  in.boundary.outer.clear();
  EXPECT_EQ(validate(in, Config{}).error().where, "boundary");
  in = small_city();
  in.zones.clear();
  EXPECT_EQ(validate(in, Config{}).error().where, "zones");
  Config neg;
  neg.classes[1].width_m = -3;
  EXPECT_EQ(validate(small_city(), neg).error().where, "layout.classes.main.width_m");
}

TEST(LayoutRun, CollinearBoundaryPointsAndWaterHoles) {
  Inputs in = small_city();
  // Collinear points along the south edge are legal and change nothing essential.
  in.boundary.outer = {{0, 0}, {400, 0}, {800, 0}, {1200, 0}, {1250, 700}, {1100, 1100}, {0, 1000}};
  in.water.push_back(Polygon{{{150, 150}, {350, 150}, {350, 320}, {150, 320}}, {}});
  const Output out = *run(in, flat_ground(in), Config{}, 9);
  EXPECT_EQ(test::first_crossing(out.network), "");
  for (const Block& b : out.blocks) {
    for (const Polygon& p : polygon_intersection(b.area, in.water[0])) {
      EXPECT_LT(polygon_area(p), 1.0) << "block " << b.id << " covers water";
    }
  }
  for (const RoadEdge& e : out.network.edges) {
    if (e.road_class == RoadClass::artery) continue;
    for (Vec2 p : polyline_resample(e.points, 5)) {
      EXPECT_FALSE(
          polygon_contains(Polygon{{{165, 165}, {335, 165}, {335, 305}, {165, 305}}, {}}, p))
          << "road " << e.id << " runs on water";
    }
  }
}

TEST(LayoutRun, ZoningShapesTheSkyline) {
  const Inputs in = small_city();
  const Output out = *run(in, flat_ground(in), Config{}, 2);
  const double core = out.height_field.sample({600, 550});
  const double edge = out.height_field.sample({100, 900});
  EXPECT_GT(core, 80.0);
  EXPECT_LT(edge, 20.0);
  for (const RoadEdge& e : out.network.edges) {
    EXPECT_GE(e.traffic_density, 0.0);
    EXPECT_LE(e.traffic_density, 1.0);
  }
}

}  // namespace
}  // namespace cityforge::layout

namespace cityforge::layout {
namespace {

TEST(LayoutRun, ArteriesRouteAroundWater) {
  Inputs in;
  in.boundary.outer = {{0, 0}, {2000, 0}, {2000, 1000}, {0, 1000}};
  in.arteries.push_back({"across the lake", {{20, 500}, {1980, 500}}});
  in.water.push_back(Polygon{{{800, 380}, {1200, 380}, {1200, 620}, {800, 620}}, {}});
  Zone z;
  z.area.outer = in.boundary.outer;
  in.zones = {z};
  Config cfg;
  cfg.corridor_m = 300;
  const terrain::Heightfield flat =
      *terrain::run(ring_bounds(in.boundary.outer), terrain::Config{0.0}, 1);
  const Output out = *run(in, flat, cfg, 1);
  double detour = 0;
  for (Vec2 p : polyline_resample(out.routed_arteries[0], 2.0)) {
    ASSERT_FALSE(polygon_contains(in.water[0], p))
        << "artery crosses the lake at " << p.x << ", " << p.y;
    detour = std::max(detour, std::fabs(p.y - 500));
  }
  EXPECT_GT(detour, 120.0) << "the artery must go round the 240 m wide lake";
  // With the corridor too narrow to pass the lake, the error names the artery.
  cfg.corridor_m = 60;
  const Result<Output> blocked = run(in, flat, cfg, 1);
  ASSERT_FALSE(blocked.ok());
  EXPECT_EQ(blocked.error().where, "arteries[0]");
}

}  // namespace
}  // namespace cityforge::layout
