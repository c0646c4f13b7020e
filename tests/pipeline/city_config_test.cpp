// SPDX-License-Identifier: Apache-2.0
#include "cityforge/pipeline/city_config.hpp"

#include <gtest/gtest.h>

#include "cityforge/pipeline/default_city.hpp"

namespace cityforge::pipeline {
namespace {

const char* kValid = R"({
  "boundary": [[0, 0], [900, 0], [900, 800], [0, 800]],
  "arteries": [{"points": [[10, 400], [890, 420]]}],
  "zones": [{"kind": "residential", "polygon": [[0, 0], [900, 0], [900, 800], [0, 800]]}]
})";

Error parse_error(const std::string& text) {
  Result<CityConfig> r = parse_city_config(text, "city.json");
  EXPECT_FALSE(r.ok());
  return r.ok() ? Error{} : r.error();
}

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

TEST(CityConfig, ParsesValidAndDefault) {
  EXPECT_TRUE(parse_city_config(kValid, "city.json").ok());
  Result<CityConfig> d = parse_city_config(default_city_json(), "default");
  ASSERT_TRUE(d.ok()) << d.error().to_string();
  EXPECT_EQ(d->inputs.arteries.size(), 3U);
  EXPECT_GE(d->inputs.zones.size(), 4U);
}

TEST(CityConfig, MalformedJsonNamesLineAndColumn) {
  const Error e = parse_error("{\n  \"boundary\": [[0, 0],\n  ]]\n}");
  EXPECT_EQ(e.where.rfind("city.json:3:", 0), 0U) << e.where;
  EXPECT_NE(e.message.find("malformed JSON"), std::string::npos);
}

TEST(CityConfig, UnknownKeyIsNamed) {
  const Error e = parse_error(replaced(kValid, "\"arteries\"", "\"arterys\""));
  EXPECT_EQ(e.where, "city.json: /arterys");
  EXPECT_NE(e.message.find("unknown key 'arterys'"), std::string::npos);
  const Error nested = parse_error(replaced(kValid, "\"kind\"", "\"knd\": 1, \"kind\""));
  EXPECT_EQ(nested.where, "city.json: /zones/0/knd");
}

TEST(CityConfig, MissingBoundary) {
  const Error e = parse_error(R"({"zones": []})");
  EXPECT_EQ(e.where, "city.json: /boundary");
}

TEST(CityConfig, SelfIntersectingBoundary) {
  const Error e =
      parse_error(replaced(kValid, "[[0, 0], [900, 0], [900, 800], [0, 800]],\n  \"arteries\"",
                           "[[0, 0], [900, 800], [900, 0], [0, 800]],\n  \"arteries\""));
  EXPECT_EQ(e.where, "city.json: /boundary");
  EXPECT_NE(e.message.find("self-intersecting"), std::string::npos);
}

TEST(CityConfig, ArteryOutsideBoundary) {
  const Error e = parse_error(replaced(kValid, "[890, 420]", "[1890, 420]"));
  EXPECT_EQ(e.where, "city.json: /arteries/0/points/1");
  EXPECT_NE(e.message.find("1890"), std::string::npos);
}

TEST(CityConfig, NanAndHugeCoordinates) {
  const Error nan = parse_error(replaced(kValid, "[890, 420]", "[NaN, 420]"));
  EXPECT_NE(nan.message.find("malformed JSON"), std::string::npos);
  const Error huge = parse_error(replaced(kValid, "[890, 420]", "[1e12, 420]"));
  EXPECT_EQ(huge.where, "city.json: /arteries/0/points/1");
  EXPECT_NE(huge.message.find("1e+12"), std::string::npos);
  const Error inf = parse_error(replaced(kValid, "[890, 420]", "[1e999, 420]"));
  EXPECT_FALSE(inf.where.empty());
}

TEST(CityConfig, NegativeWidth) {
  const Error e = parse_error(
      replaced(kValid, "\"zones\"",
               "\"layout\": {\"classes\": {\"main\": {\"width_m\": -4}}},\n  \"zones\""));
  EXPECT_EQ(e.where, "city.json: /layout/classes/main/width_m");
  EXPECT_NE(e.message.find("-4"), std::string::npos);
}

TEST(CityConfig, EmptyZoning) {
  const Error e = parse_error(replaced(
      kValid, R"([{"kind": "residential", "polygon": [[0, 0], [900, 0], [900, 800], [0, 800]]}])",
      "[]"));
  EXPECT_EQ(e.where, "city.json: /zones");
  const Error empty_poly = parse_error(replaced(
      kValid, R"("polygon": [[0, 0], [900, 0], [900, 800], [0, 800]])", R"("polygon": [])"));
  EXPECT_EQ(empty_poly.where, "city.json: /zones/0/polygon");
}

TEST(CityConfig, WrongTypesAndRanges) {
  EXPECT_EQ(parse_error(replaced(kValid, "\"zones\"", "\"seed\": -1, \"zones\"")).where,
            "city.json: /seed");
  EXPECT_EQ(
      parse_error(replaced(kValid, "\"zones\"", "\"terrain\": {\"octaves\": \"four\"}, \"zones\""))
          .where,
      "city.json: /terrain/octaves");
  EXPECT_EQ(parse_error(replaced(kValid, "residential", "suburb")).where,
            "city.json: /zones/0/kind");
}

TEST(CityConfig, SliceChangesOnlyWithItsKeys) {
  CityConfig a = *parse_city_config(kValid, "a");
  CityConfig b = a;
  b.layout.block_long_m += 10;
  EXPECT_EQ(config_slice(a, "terrain"), config_slice(b, "terrain"));
  EXPECT_NE(config_slice(a, "layout"), config_slice(b, "layout"));
}

}  // namespace
}  // namespace cityforge::pipeline

namespace cityforge::pipeline {
namespace {

TEST(CityConfig, RoadRulesAreReadAndChecked) {
  const std::string base = R"({
  "boundary": [[0, 0], [900, 0], [900, 800], [0, 800]],
  "zones": [{"kind": "residential", "polygon": [[0, 0], [900, 0], [900, 800], [0, 800]]}],
  "roads": ROADS
})";
  auto with = [&](const std::string& roads) {
    std::string t = base;
    t.replace(t.find("ROADS"), 5, roads);
    return parse_city_config(t, "city.json");
  };
  const Result<CityConfig> ok = with(R"({"min_green_s": 20, "crown_m": 0.1})");
  ASSERT_TRUE(ok.ok()) << ok.error().to_string();
  EXPECT_EQ(ok->roads.min_green_s, 20.0);
  EXPECT_EQ(ok->roads.crown_m, 0.1);
  EXPECT_EQ(with(R"({"min_gren_s": 20})").error().where, "city.json: /roads/min_gren_s");
  EXPECT_EQ(with(R"({"yellow_s": -1})").error().where, "city.json: /roads/yellow_s");
}

}  // namespace
}  // namespace cityforge::pipeline
