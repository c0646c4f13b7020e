// SPDX-License-Identifier: Apache-2.0
// The road geometry on the built-in default city: no two road or junction surfaces overlap,
// and module fitting holds on every section.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>

#include "city_once.hpp"
#include "cityforge/pipeline/city_pipeline.hpp"
#include "cityforge/pipeline/default_city.hpp"
#include "cityforge/roads/roads.hpp"
#include "roads/overlap_checks.hpp"

namespace cityforge::pipeline {
namespace {

TEST(RoadsDefaultCity, SurfacesDoNotOverlapAndModulesFit) {
  CityResult whole;
  std::optional<roads::Output> geo;
  ASSERT_NO_FATAL_FAILURE(default_city_geometry(whole, geo));
  const CityResult* city = &whole;
  const roads::Config config;
  EXPECT_EQ(roads::test::describe(roads::test::overlaps(*geo)), "");

  const auto modules = roads::fit_modules(*city->layout, *geo, *city->terrain, config);
  std::vector<double> sum(geo->sections.size(), 0.0);
  std::vector<int> scaled(geo->sections.size(), 0);
  std::map<std::pair<int, int>, int> by_class_size;
  int fill = 0;
  for (const roads::ModuleInstance& m : modules) {
    if (m.in_intersection) {
      ++fill;
      continue;
    }
    ++by_class_size[{m.road_class, m.size}];
    sum[m.owner] += config.module_lengths_m[m.size] * m.scale;
    if (m.scale != 1.0) ++scaled[m.owner];
  }
  for (std::size_t i = 0; i < geo->sections.size(); ++i) {
    EXPECT_NEAR(sum[i], polyline_length(geo->sections[i].centre), 0.01) << "section " << i;
    EXPECT_LE(scaled[i], 1) << "section " << i;
  }

  // Figures for the report.
  std::map<std::string, int> controls;
  for (const roads::Intersection& x : geo->intersections)
    ++controls[roads::to_string(x.control)];
  std::printf("junctions with surface %u, trims shrunk %u, grown %u, surfaces clipped %u\n",
              geo->geometry_stats.junctions, geo->geometry_stats.trims_shrunk,
              geo->geometry_stats.trims_grown, geo->geometry_stats.surfaces_clipped);
  for (const auto& [name, n] : controls)
    std::printf("control %s: %d\n", name.c_str(), n);
  for (const auto& [key, n] : by_class_size) {
    std::printf("modules class %d size %.0f m: %d\n", key.first,
                config.module_lengths_m[key.second], n);
  }
  std::printf("junction fill modules: %d\n", fill);
}

}  // namespace
}  // namespace cityforge::pipeline
