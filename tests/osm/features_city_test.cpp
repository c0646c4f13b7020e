// SPDX-License-Identifier: Apache-2.0
// Trees, furniture and ground from the Munich sample extract (slow: label city).
#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include "cityforge/osm/osm.hpp"

namespace cityforge::osm {
namespace {

// A real old town (Munich, Altstadt): its trees, lamps and benches, parks and water come through.
TEST(Features, RealExtractGivesTreesFurnitureAndGround) {
  Result<Extract> e = read_file(std::string(CITYFORGE_TEST_DATA "/osm/munich_altstadt.osm.pbf"));
  ASSERT_TRUE(e.ok()) << e.error().to_string();
  Result<Projection> proj = Projection::around(e->lon0, e->lat0);
  ASSERT_TRUE(proj.ok()) << proj.error().to_string();
  const Vec2 lo = proj->to_local(e->bounds.min_lon, e->bounds.min_lat);
  const Vec2 hi = proj->to_local(e->bounds.max_lon, e->bounds.max_lat);
  const Aabb2 area{lo, hi};
  const FeatureBuild b = build_features(*e, area, {});
  EXPECT_GT(b.census.trees_mapped, 100U);
  EXPECT_GT(b.census.props_mapped, 50U);
  EXPECT_GT(b.census.ground_areas, 5U);
  EXPECT_GT(b.census.barrier_ways, 0U);
  for (const dressing::GroundArea& g : b.mapped.areas) {
    const Aabb2 box = ring_bounds(g.area.outer);
    EXPECT_GE(box.min.x, lo.x - 1e-6);
    EXPECT_LE(box.max.y, hi.y + 1e-6);
  }
  std::cout << "munich: " << b.census.ground_areas << " ground areas, " << b.census.water_areas
            << " water, " << b.census.props_mapped << " props, " << b.census.trees_mapped
            << " trees, " << b.census.barrier_ways << " barrier ways, " << b.mapped.barriers.size()
            << " barrier pieces\n";
}

}  // namespace
}  // namespace cityforge::osm
