// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include "cityforge/pipeline/city_config.hpp"

namespace cityforge::pipeline {
namespace {

std::string city_with(const std::string& freeways) {
  return R"({
  "boundary": [[0, 0], [900, 0], [900, 800], [0, 800]],
  "arteries": [{"points": [[10, 400], [890, 420]]}],
  "zones": [{"kind": "residential", "polygon": [[0, 0], [900, 0], [900, 800], [0, 800]]}],
  "freeways": )" +
         freeways + "\n}";
}

TEST(FreewayConfig, ParsesFreewaysAndSlice) {
  const Result<CityConfig> c = parse_city_config(
      city_with(R"([{"name": "ring", "points": [[0, 100, 12], [450, 150, 14], [900.5, 200, 12]],
                     "lanes_per_direction": 2, "design_speed_kmh": 80}])"),
      "city.json");
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  ASSERT_EQ(c->freeways.size(), 1U);
  EXPECT_EQ(c->freeways[0].name, "ring");
  EXPECT_EQ(c->freeways[0].lanes_per_direction, 2);
  EXPECT_EQ(c->freeways[0].design_speed_kmh, 80);
  ASSERT_EQ(c->freeways[0].points.size(), 3U);
  EXPECT_EQ(c->freeways[0].points[1].z, 14);
  const std::string slice = config_slice(*c, "freeways");
  EXPECT_NE(slice.find("\"ring\""), std::string::npos) << slice;
  EXPECT_NE(slice.find("design_speed_kmh"), std::string::npos) << slice;
}

TEST(FreewayConfig, RejectsBadFreewaysNamingThePlace) {
  struct Case {
    const char* json;
    const char* where;
    const char* says;
  };
  const Case cases[] = {
      {R"({"a": 1})", "city.json: /freeways", "array"},
      {R"([{"points": [[0, 1, 2], [5, 5, 5]], "lanes": 2}])", "city.json: /freeways/0/lanes",
       "unknown key"},
      {R"([{"points": [[0, 100, 12], [950, 100, 12]]}])", "city.json: /freeways/0/points/1",
       "outside the boundary"},
      {R"([{"points": [[0, 100, 12], [100, 100]]}])", "city.json: /freeways/0/points/1",
       "three numbers"},
      {R"([{"points": [[0, 100, -1], [100, 100, 3]]}])", "city.json: /freeways/0/points/0",
       "height above ground"},
      {R"([{"points": [[0, 100, 1]]}])", "city.json: /freeways/0/points", ">= 2 points"},
      {R"([{"points": [[0, 100, 1], [1, 2, 3]], "lanes_per_direction": 9}])",
       "city.json: /freeways/0/lanes_per_direction", "integer in"},
      {R"([{"points": [[0, 100, 1], [1, 2, 3]], "design_speed_kmh": "fast"}])",
       "city.json: /freeways/0/design_speed_kmh", "number"},
      {R"([{"name": "x"}])", "city.json: /freeways/0", "missing key 'points'"},
  };
  for (const Case& k : cases) {
    const Result<CityConfig> c = parse_city_config(city_with(k.json), "city.json");
    ASSERT_FALSE(c.ok()) << k.json;
    EXPECT_EQ(c.error().where, k.where) << k.json;
    EXPECT_NE(c.error().message.find(k.says), std::string::npos) << c.error().message;
  }
}

}  // namespace
}  // namespace cityforge::pipeline
