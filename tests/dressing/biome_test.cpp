// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "cityforge/dressing/dressing.hpp"

namespace cityforge::dressing {
namespace {

const char* kGood = R"({"name": "t", "zone": "plaza", "size_m": [6, 4], "spacing_m": 0.5,
  "weight": 2, "parts": [{"prop": "bench", "x": -1.5, "y": 0, "yaw_deg": 90},
                         {"prop": "bin", "x": 2, "y": 1}]})";

/// Parses text expected to fail; returns the error text.
std::string error_of(const std::string& text) {
  auto r = parse_biome(text, "biomes/t.json");
  EXPECT_FALSE(r.ok()) << text;
  return r ? std::string() : r.error().to_string();
}

TEST(BiomeParse, ReadsEveryField) {
  auto r = parse_biome(kGood, "biomes/t.json");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->name, "t");
  EXPECT_EQ(r->file, "biomes/t.json");
  EXPECT_EQ(r->zone, ZoneKind::plaza);
  EXPECT_DOUBLE_EQ(r->size_x_m, 6.0);
  EXPECT_DOUBLE_EQ(r->size_y_m, 4.0);
  EXPECT_DOUBLE_EQ(r->spacing_m, 0.5);
  EXPECT_DOUBLE_EQ(r->weight, 2.0);
  ASSERT_EQ(r->parts.size(), 2U);
  EXPECT_EQ(r->parts[0].prop, static_cast<std::uint32_t>(find_prop("bench")));
  EXPECT_DOUBLE_EQ(r->parts[0].offset.x, -1.5);
  EXPECT_NEAR(r->parts[0].yaw_rad, std::acos(-1.0) / 2, 1e-12);
  EXPECT_EQ(r->parts[1].prop, static_cast<std::uint32_t>(find_prop("bin")));
}

TEST(BiomeParse, UnknownKeyNamesFileAndPointer) {
  const std::string e = error_of(
      R"({"name": "t", "zone": "plaza", "size_m": [6, 4], "parts": [{"prop": "bin", "z": 1}]})");
  EXPECT_NE(e.find("biomes/t.json: /parts/0/z"), std::string::npos) << e;
  const std::string top =
      error_of(R"({"name": "t", "zone": "plaza", "size_m": [6, 4], "colour": 1, "parts": []})");
  EXPECT_NE(top.find("biomes/t.json: /colour"), std::string::npos) << top;
}

TEST(BiomeParse, UnknownPropListsValidIds) {
  const std::string e = error_of(
      R"({"name": "t", "zone": "plaza", "size_m": [6, 4], "parts": [{"prop": "bin"},
          {"prop": "trampoline"}]})");
  EXPECT_NE(e.find("biomes/t.json: /parts/1/prop"), std::string::npos) << e;
  EXPECT_NE(e.find("trampoline"), std::string::npos) << e;
  EXPECT_NE(e.find("bench"), std::string::npos) << e;
}

TEST(BiomeParse, OverlappingPartsAreRejected) {
  // Bench radius + bin radius > 1 m.
  const std::string e = error_of(
      R"({"name": "t", "zone": "plaza", "size_m": [6, 4], "parts": [{"prop": "bench", "x": 0},
          {"prop": "bin", "x": 1.0}]})");
  EXPECT_NE(e.find("biomes/t.json: /parts/1"), std::string::npos) << e;
  EXPECT_NE(e.find("overlapping biome parts"), std::string::npos) << e;
}

TEST(BiomeParse, PartOutsideBoxIsRejected) {
  const std::string e = error_of(
      R"({"name": "t", "zone": "rooftop", "size_m": [6, 4], "parts": [{"prop": "bin", "x": 0},
          {"prop": "hvac_unit", "x": 2.5, "y": 0}]})");
  EXPECT_NE(e.find("biomes/t.json: /parts/1"), std::string::npos) << e;
  EXPECT_NE(e.find("leaves the biome box"), std::string::npos) << e;
}

TEST(BiomeParse, RejectsBadValues) {
  EXPECT_NE(
      error_of(R"({"name": "t", "zone": "lawn", "size_m": [6, 4], "parts": [{"prop": "bin"}]})")
          .find("/zone"),
      std::string::npos);
  EXPECT_NE(
      error_of(R"({"name": "t", "zone": "plaza", "size_m": [0, 4], "parts": [{"prop": "bin"}]})")
          .find("/size_m/0"),
      std::string::npos);
  EXPECT_NE(error_of(R"({"name": "t", "zone": "plaza", "size_m": [6, 4], "weight": 0,
                         "parts": [{"prop": "bin"}]})")
                .find("/weight"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"name": "t", "zone": "plaza", "size_m": [6, 4], "spacing_m": -1,
                         "parts": [{"prop": "bin"}]})")
                .find("/spacing_m"),
            std::string::npos);
  EXPECT_NE(
      error_of(R"({"name": "t", "zone": "plaza", "size_m": [6, 4], "parts": []})").find("/parts"),
      std::string::npos);
  EXPECT_NE(error_of(R"({"name": "t", "zone": "plaza", "size_m": [6, 4], "parts": [{"prop": "bin",
                         "x": 1e400}]})")
                .find("biomes/t.json"),
            std::string::npos);
  EXPECT_NE(error_of("{\"name\": ").find("malformed JSON"), std::string::npos);
}

TEST(BiomeParse, EveryBuiltinBiomeParses) {
  const auto sources = builtin_biome_sources();
  ASSERT_GE(sources.size(), 8U);
  std::array<int, kZoneKindCount> per_kind{};
  for (const auto& [file, text] : sources) {
    auto r = parse_biome(text, file);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    EXPECT_EQ(file, "biomes/" + r->name + ".json");
    ++per_kind[static_cast<std::size_t>(r->zone)];
  }
  for (std::size_t k = 0; k < kZoneKindCount; ++k)
    EXPECT_GE(per_kind[k], 1) << to_string(static_cast<ZoneKind>(k));
}

}  // namespace
}  // namespace cityforge::dressing
