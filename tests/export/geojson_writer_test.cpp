// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "cityforge/export/export.hpp"
#include "export/fixture.hpp"

namespace cityforge::exporter {
namespace {

using fixture::small_city;

/// A geo-referenced origin in local metres (an invented city placed on Earth).
Origin georef(double lon, double lat) {
  Origin o;
  o.georeferenced = true;
  o.lon_deg = lon;
  o.lat_deg = lat;
  return o;
}

TEST(LayoutGeojson, ParsesWithOneFeaturePerRoadBlockAndZone) {
  auto text = layout_geojson(small_city(), Origin{});
  ASSERT_TRUE(text.ok()) << text.error().to_string();
  const auto doc = nlohmann::json::parse(*text);
  EXPECT_EQ(doc["type"], "FeatureCollection");
  EXPECT_EQ(doc["cityforge"]["units"], "m");
  EXPECT_EQ(doc["cityforge"]["origin"]["georeferenced"], false);
  EXPECT_TRUE(doc["cityforge"]["crs"].is_string());
  const auto& features = doc["features"];
  ASSERT_EQ(features.size(), 4U + 4U + 1U);
  std::map<std::string, int> layers;
  for (const auto& f : features) {
    EXPECT_EQ(f["type"], "Feature");
    layers[f["properties"]["layer"].get<std::string>()]++;
    const auto& g = f["geometry"];
    if (g["type"] == "Polygon") {
      for (const auto& ring : g["coordinates"]) {
        ASSERT_GE(ring.size(), 4U);
        EXPECT_EQ(ring.front(), ring.back());  // closed rings
      }
    } else {
      EXPECT_EQ(g["type"], "LineString");
    }
  }
  EXPECT_EQ(layers, (std::map<std::string, int>{{"road", 4}, {"block", 4}, {"zone", 1}}));

  const auto& artery = features[0]["properties"];
  EXPECT_EQ(artery["class"], "artery");
  EXPECT_EQ(artery["width_m"], 22.0);
  EXPECT_EQ(artery["lanes_per_direction"], 3);
  EXPECT_EQ(artery["from"], 0);
  EXPECT_EQ(artery["to"], 1);
  EXPECT_EQ(artery["artery_index"], 0);
  EXPECT_EQ(features[0]["geometry"]["coordinates"].size(), 3U);
  EXPECT_EQ(features[5]["properties"]["frontage"], nlohmann::json::array({1, 2}));
  EXPECT_EQ(features[7]["geometry"]["coordinates"].size(), 2U);  // courtyard hole
  EXPECT_EQ(features[8]["properties"]["name"], "Old \"Town\"");
  EXPECT_EQ(features[8]["properties"]["zone"], "downtown");
}

TEST(LayoutGeojson, PrintsNumbersWithNineDigitsAndIsDeterministic) {
  auto city = small_city();
  city.network.edges[0].traffic_density = 1.0 / 3.0;
  auto a = layout_geojson(city, georef(8.5417, 47.3769));
  auto b = layout_geojson(city, georef(8.5417, 47.3769));
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_NE(a->find("\"traffic_density\":0.333333333,"), std::string::npos);
  EXPECT_NE(a->find("\"width_m\":22,"), std::string::npos);
  EXPECT_NE(a->find("\"lon_deg\":8.5417,"), std::string::npos);
  // Fixed key order: type first, then the metadata, then the features.
  EXPECT_EQ(a->rfind("{\"type\":\"FeatureCollection\",\"cityforge\":{\"units\":\"m\"", 0), 0U);
}

TEST(LayoutGeojson, RejectsNonFiniteNumbers) {
  auto city = small_city();
  city.network.edges[2].points[1].x = std::numeric_limits<double>::quiet_NaN();
  auto text = layout_geojson(city, Origin{});
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().code, ErrorCode::invalid_input);
  EXPECT_EQ(text.error().where, "network.edges[2].points[1]");

  city = small_city();
  city.zones[0].max_height_m = std::numeric_limits<double>::infinity();
  text = layout_geojson(city, Origin{});
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().where, "zones[0].max_height_m");

  EXPECT_FALSE(layout_geojson(small_city(), georef(std::nan(""), 0.0)).ok());
}

}  // namespace
}  // namespace cityforge::exporter
