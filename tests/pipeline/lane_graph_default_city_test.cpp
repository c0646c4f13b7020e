// SPDX-License-Identifier: Apache-2.0
// The lane graph on the built-in default city, on the geometry of build_geometry: the same
// acceptance checks as the hand-made junctions (tests/roads/lane_checks.hpp).
#include <gtest/gtest.h>

#include <chrono>
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
}

}  // namespace
}  // namespace cityforge::pipeline
