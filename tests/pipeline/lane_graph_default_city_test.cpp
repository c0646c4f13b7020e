// SPDX-License-Identifier: Apache-2.0
// The lane graph on the built-in default city, on the geometry of build_geometry: the same
// acceptance checks as the hand-made junctions (tests/roads/lane_checks.hpp).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>

#include "city_once.hpp"
#include "cityforge/pipeline/city_pipeline.hpp"
#include "cityforge/pipeline/default_city.hpp"
#include "cityforge/roads/roads.hpp"
#include "roads/lane_checks.hpp"

namespace cityforge::pipeline {
namespace {

TEST(LaneGraphDefaultCity, MeetsAcceptanceChecks) {
  CityResult whole;
  std::optional<roads::Output> geo;
  ASSERT_NO_FATAL_FAILURE(default_city_geometry(whole, geo));
  const CityResult* city = &whole;
  const roads::Config config;
  const auto t0 = std::chrono::steady_clock::now();
  Result<roads::LaneGraph> g = roads::build_lane_graph(*city->layout, *geo, *city->terrain, config);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(g.ok()) << g.error().to_string();
  roads::test::check_graph(*city->layout, *geo, *g, "default city", true);
  const roads::test::Counts c = roads::test::count(*g);
  std::printf(
      "default city lane graph: %zu lanes, %zu vehicle, %zu connectors, %zu sidewalk, "
      "%zu crosswalk, %zu yield, %zu signals, SCC share %.4f, %.0f ms\n",
      g->lanes.size(), c.vehicle, c.connectors, c.sidewalks, c.crosswalks, c.yields,
      g->signals.size(), roads::test::largest_scc_share(*g), ms);
  // Corners are rounded (core/fillet.hpp): no section lane (driving or sidewalk) bends sharply
  // at any point; its arcs are sampled 1.5 degrees apart at most with this city's radii (a
  // sharp mitred corner turns by the corner's whole angle at one point).
  double worst = 0.0;
  std::uint32_t worst_lane = 0;
  for (const roads::Lane& l : g->lanes) {
    if (l.section < 0) continue;
    for (std::size_t i = 2; i < l.points.size(); ++i) {
      const Vec2 a{l.points[i - 1].x - l.points[i - 2].x, l.points[i - 1].y - l.points[i - 2].y};
      const Vec2 b{l.points[i].x - l.points[i - 1].x, l.points[i].y - l.points[i - 1].y};
      const double turn = std::abs(std::atan2(cross(a, b), dot(a, b))) * 180.0 / 3.14159265358979;
      if (turn > worst) {
        worst = turn;
        worst_lane = l.id;
      }
    }
  }
  std::printf("sharpest turn at one point of a section lane: %.2f degrees (lane %u)\n", worst,
              worst_lane);
  EXPECT_LT(worst, 3.0) << "lane " << worst_lane;
}

}  // namespace
}  // namespace cityforge::pipeline
