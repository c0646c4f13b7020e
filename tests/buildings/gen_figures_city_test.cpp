// SPDX-License-Identifier: Apache-2.0
// Figures of the building generator on the built-in styles (printed, loosely checked).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "cityforge/buildings/buildings.hpp"

namespace cityforge::buildings {
namespace {

TEST(BuildingFigures, InstancesAndTimePerBuilding) {
  Result<StyleLibrary> lib = builtin_library();
  ASSERT_TRUE(lib.ok()) << lib.error().to_string();
  lots::Output lo;
  for (std::uint32_t i = 0; i < 200; ++i) {
    lots::Lot lot;
    lot.id = i;
    for (std::uint32_t k = 0; k < 2; ++k) {
      lots::Parcel p;
      lots::BuildingDNA& d = p.dna;
      d.shape = static_cast<lots::FootprintShape>((i * 7 + k) % lots::kFootprintShapeCount);
      d.size_x_m = 16.0 + (i % 5) * 4.0;
      d.size_y_m = 14.0 + (i % 3) * 5.0;
      d.centre = {i * 100.0 + k * d.size_x_m, 0.0};
      d.base_m = 4.0 + (i % 2) * 3.0;
      d.shaft_m = (i % 4) * 9.0;
      d.crown_m = (i % 3) * 3.0;
      d.massing = static_cast<lots::Massing>(i % 3);
      d.setback_steps = 1 + i % 3;
      d.setback_m = 2.0;
      d.style = static_cast<std::uint32_t>(i % lib->styles.size());
      p.area.outer = {{d.centre.x - d.size_x_m / 2, -d.size_y_m / 2},
                      {d.centre.x + d.size_x_m / 2, -d.size_y_m / 2},
                      {d.centre.x + d.size_x_m / 2, d.size_y_m / 2},
                      {d.centre.x - d.size_x_m / 2, d.size_y_m / 2}};
      p.frontage = {1, 0, 0, 0};
      lot.parcels.push_back(p);
    }
    lo.lots.push_back(lot);
  }
  const auto t0 = std::chrono::steady_clock::now();
  Result<Output> r = run(lo, *lib, {}, terrain::Heightfield{}, Config{}, 3);
  const auto t1 = std::chrono::steady_clock::now();
  ASSERT_TRUE(r.ok());
  const double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  const double nb = static_cast<double>(r->buildings.size());
  std::printf(
      "buildings %zu, instances/building %.1f, ms/building %.3f, occluded %.1f%%, "
      "fallbacks %zu, entrances %zu, rooms %zu, roof tris %zu\n",
      r->buildings.size(), static_cast<double>(r->instances.size()) / nb, ms / nb,
      100.0 * r->stats.occlusion_reduction(), r->stats.grammar_fallbacks, r->stats.entrances,
      r->stats.rooms, r->stats.roof_triangles);
  EXPECT_EQ(r->buildings.size(), 400U);
  EXPECT_GT(r->stats.modules_occluded, 0U);
  EXPECT_GE(r->stats.entrances, 400U);
}

}  // namespace
}  // namespace cityforge::buildings
