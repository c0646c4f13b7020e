// SPDX-License-Identifier: Apache-2.0
// Overlap resolution on hand-placed items (street dressing over a whole city is in
// street_city_test.cpp).
#include <gtest/gtest.h>

#include <vector>

#include "cityforge/dressing/dressing.hpp"
#include "dressing/detail.hpp"

namespace cityforge::dressing {
namespace {

std::uint32_t prop(const char* id) { return static_cast<std::uint32_t>(find_prop(id)); }

TEST(ResolveOverlaps, HigherPriorityWinsAndSurfacesStay) {
  Item bench;
  bench.prop = prop("bench");
  Item light;
  light.prop = prop("street_light");
  light.position = {0.5f, 0.0f, 0.0f};
  Item tile;
  tile.prop = prop("sidewalk_tile");
  Item tree;
  tree.prop = prop("street_tree");
  tree.position = {10.0f, 0.0f, 0.0f};
  std::vector<Item> items{bench, tile, light, tree};
  EXPECT_EQ(detail::resolve_overlaps(items), 1U);
  ASSERT_EQ(items.size(), 3U);
  EXPECT_EQ(items[0].prop, tile.prop);
  EXPECT_EQ(items[1].prop, light.prop);
  EXPECT_EQ(items[2].prop, tree.prop);
}

}  // namespace
}  // namespace cityforge::dressing
