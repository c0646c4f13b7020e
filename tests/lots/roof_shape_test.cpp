// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <string>

#include "cityforge/lots/lots.hpp"

namespace cityforge::lots {
namespace {

TEST(LotsRoofShape, NamesRoundTrip) {
  for (std::size_t i = 0; i < kRoofShapeCount; ++i) {
    const auto s = static_cast<RoofShape>(i);
    RoofShape back = RoofShape::dome;
    ASSERT_TRUE(roof_shape_from_string(to_string(s), &back)) << to_string(s);
    EXPECT_EQ(back, s);
  }
  EXPECT_STREQ(to_string(RoofShape::flat), "flat");
  EXPECT_STREQ(to_string(RoofShape::pyramidal), "pyramidal");
}

TEST(LotsRoofShape, OsmValuesAndAliases) {
  const std::pair<const char*, RoofShape> cases[] = {
      {"gabled", RoofShape::gabled},      {"pitched", RoofShape::gabled},
      {"Gabled ", RoofShape::gabled},     {"hipped", RoofShape::hipped},
      {"half-hipped", RoofShape::hipped}, {"side_hipped", RoofShape::hipped},
      {"mansard", RoofShape::hipped},     {"pyramidal", RoofShape::pyramidal},
      {"skillion", RoofShape::skillion},  {"lean_to", RoofShape::skillion},
      {"dome", RoofShape::dome},          {"onion", RoofShape::dome},
      {"FLAT", RoofShape::flat},
  };
  for (const auto& [name, want] : cases) {
    RoofShape got = RoofShape::flat;
    ASSERT_TRUE(roof_shape_from_string(name, &got)) << name;
    EXPECT_EQ(got, want) << name;
  }
  RoofShape untouched = RoofShape::dome;
  EXPECT_FALSE(roof_shape_from_string("", &untouched));
  EXPECT_FALSE(roof_shape_from_string("round-ish", &untouched));
  EXPECT_FALSE(roof_shape_from_string("gabledx", &untouched));
  EXPECT_EQ(untouched, RoofShape::dome);
  EXPECT_TRUE(roof_shape_from_string("hipped", nullptr));
}

TEST(LotsRoofShape, ImportedFootprintReplacesTheShape) {
  BuildingDNA dna;
  dna.size_x_m = 50.0;
  dna.size_y_m = 50.0;
  ImportedVolume a;
  a.footprint.outer = {{0, 0}, {10, 0}, {10, 10}, {0, 10}};
  a.height_m = 10.0;
  dna.imported.push_back(a);
  Polygon one = footprint_polygon(dna);
  EXPECT_NEAR(polygon_area(one), 100.0, 1e-9);
  // Two touching parts: the outline of their union.
  ImportedVolume b = a;
  b.footprint.outer = {{10, 0}, {20, 0}, {20, 5}, {10, 5}};
  dna.imported.push_back(b);
  Polygon both = footprint_polygon(dna);
  EXPECT_NEAR(polygon_area(both), 150.0, 1e-6);
  EXPECT_TRUE(both.holes.empty());
}

}  // namespace
}  // namespace cityforge::lots
