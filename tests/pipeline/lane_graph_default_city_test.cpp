// SPDX-License-Identifier: Apache-2.0
// The lane graph on the built-in default city, on the geometry of build_geometry: the same
// acceptance checks as the hand-made junctions (tests/roads/lane_checks.hpp).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "cityforge/pipeline/city_pipeline.hpp"
#include "cityforge/pipeline/default_city.hpp"
#include "cityforge/roads/roads.hpp"
#include "roads/lane_checks.hpp"

namespace cityforge::pipeline {
namespace {

TEST(LaneGraphDefaultCity, MeetsAcceptanceChecks) {
  Result<CityConfig> cfg = parse_city_config(default_city_json(), "<built-in>");
  ASSERT_TRUE(cfg.ok()) << cfg.error().to_string();
  CityPipeline pipe;
  Result<CityResult> city = pipe.run(*cfg);
  ASSERT_TRUE(city.ok()) << city.error().to_string();
  const roads::Config config;
  Result<roads::Output> geo = roads::build_geometry(*city->layout, *city->terrain, config);
  ASSERT_TRUE(geo.ok()) << geo.error().to_string();
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
