// SPDX-License-Identifier: Apache-2.0
// Mapped buildings of the Manhattan sample: census, heights, styles, roofs through the building
// generator, determinism (slow: label city).
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <string>
#include <string_view>

#include "cityforge/buildings/buildings.hpp"
#include "cityforge/osm/osm.hpp"
#include "osm/fixture.hpp"

namespace cityforge::osm {
namespace {

using testing::styles;

TEST(OsmBuildings, ManhattanSampleMatchesItsCensus) {
  auto ex = read_file(std::string(CITYFORGE_TEST_DATA "/osm/manhattan_west_village.osm.pbf"));
  if (!ex.ok()) GTEST_SKIP() << "reader not available: " << ex.error().to_string();
  Aabb2 all;
  for (const Area& a : ex->areas) {
    for (const Polygon& p : a.polygons) {
      for (const Vec2& v : p.outer)
        all.add(v);
    }
  }
  ASSERT_FALSE(all.empty());
  const auto lib = styles();
  auto r = build_buildings(*ex, all, layout::Output{}, lib, BuildingConfig{}, Seed{1});
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  const BuildingCensus& c = r->census;
  std::size_t mapped = 0;
  for (const Area& a : ex->areas) {
    const std::string_view b = tag(a.tags, "building");
    mapped += !b.empty() && b != "no" ? 1U : 0U;
  }
  EXPECT_EQ(c.building_areas, mapped);
  EXPECT_GT(c.buildings, 100U);
  EXPECT_EQ(c.buildings, c.building_areas - c.skipped_invalid - c.skipped_tiny);
  EXPECT_EQ(c.buildings, r->lots.lots.size());
  EXPECT_GT(c.heights_tagged, c.heights_drawn);  // Heights on most buildings (SOURCES.md).
  auto gen = buildings::run(r->lots, lib, {}, flat_ground(all, 20.0), buildings::Config{}, Seed{1});
  ASSERT_TRUE(gen.ok()) << gen.error().to_string();
  EXPECT_EQ(gen->buildings.size(), c.buildings);
  // The same bytes on one thread.
  {
    tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
    auto again =
        buildings::run(r->lots, lib, {}, flat_ground(all, 20.0), buildings::Config{}, Seed{1});
    ASSERT_TRUE(again.ok());
    ASSERT_EQ(again->instances.size(), gen->instances.size());
    ASSERT_EQ(again->roofs.size(), gen->roofs.size());
    for (std::size_t i = 0; i < gen->roofs.size(); ++i) {
      for (std::size_t m = 0; m < buildings::kMaterialCount; ++m) {
        ASSERT_EQ(again->roofs[i][m].positions, gen->roofs[i][m].positions) << i;
        ASSERT_EQ(again->roofs[i][m].indices, gen->roofs[i][m].indices) << i;
      }
    }
    for (std::size_t i = 0; i < gen->instances.size(); ++i) {
      ASSERT_EQ(again->instances[i].position, gen->instances[i].position) << i;
      ASSERT_EQ(again->instances[i].module, gen->instances[i].module) << i;
    }
  }
  // Pitched roofs from the tags are drawn (the sample maps a few).
  std::size_t pitched = 0;
  for (std::size_t s = 1; s < lots::kRoofShapeCount; ++s)
    pitched += c.roofs_by_shape[s];
  EXPECT_GT(pitched, 0U);
  for (std::size_t i = 0; i < gen->buildings.size(); ++i) {
    EXPECT_GT(gen->buildings[i].height_m, 0.0);
    std::size_t tris = 0;
    for (const Mesh& m : gen->roofs[i])
      tris += m.triangle_count();
    EXPECT_GT(tris, 0U) << "building " << i;
  }
}

}  // namespace
}  // namespace cityforge::osm
