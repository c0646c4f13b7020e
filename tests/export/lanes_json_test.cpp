// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "cityforge/export/export.hpp"
#include "fixture.hpp"

namespace cityforge::exporter {
namespace {

roads::Output small_roads() {
  roads::Output r;
  roads::Lane a;
  a.id = 0;
  a.tags = roads::kVehicle;
  a.points = {{0, 0, 1}, {50, 0, 1.5}};
  a.width_m = 3.5;
  a.length_m = 50;
  a.speed_limit_mps = 13.9;
  a.section = 0;
  a.successors = {1};
  a.left_neighbour = 1;
  roads::Lane b = a;
  b.left_neighbour = roads::kNoLane;
  b.id = 1;
  b.tags = roads::kVehicle | roads::kIntersection | roads::kYield;
  b.turn = roads::Turn::left;
  b.section = -1;
  b.intersection = 0;
  b.successors = {};
  b.predecessors = {0};
  r.lanes.lanes = {a, b};
  roads::Intersection x;
  x.node = 0;
  x.control = roads::Control::signal;
  x.legs.push_back({0, true, 12.5, {1, 0}});
  r.intersections = {x};
  roads::SignalPlan plan;
  plan.intersection = 0;
  plan.phases.push_back({30, 3, 1.5, {1}, {}});
  r.lanes.signals = {plan};
  return r;
}

TEST(LanesJson, ParsesWithLanesIntersectionsAndSignals) {
  const auto city = fixture::small_city();
  const Result<std::string> text = lanes_json(small_roads(), city);
  ASSERT_TRUE(text.ok()) << text.error().to_string();
  const auto j = nlohmann::json::parse(*text);
  EXPECT_EQ(j["format"], "cityforge-lanes");
  ASSERT_EQ(j["lanes"].size(), 2U);
  EXPECT_EQ(j["lanes"][1]["tags"], nlohmann::json({"vehicle", "intersection", "yield"}));
  EXPECT_EQ(j["lanes"][1]["turn"], "left");
  EXPECT_EQ(j["lanes"][0]["successors"], nlohmann::json({1}));
  EXPECT_EQ(j["lanes"][0]["left_neighbour"], 1);
  EXPECT_TRUE(j["lanes"][0]["right_neighbour"].is_null());
  EXPECT_DOUBLE_EQ(j["lanes"][0]["points"][1][2].get<double>(), 1.5);
  EXPECT_EQ(j["intersections"][0]["control"], "signal");
  EXPECT_DOUBLE_EQ(j["intersections"][0]["legs"][0]["trim_m"].get<double>(), 12.5);
  EXPECT_DOUBLE_EQ(j["signals"][0]["cycle_s"].get<double>(), 34.5);
  EXPECT_EQ(*text, *lanes_json(small_roads(), city)) << "not deterministic";
}

TEST(LanesJson, RejectsNonFiniteNamingTheLane) {
  roads::Output r = small_roads();
  r.lanes.lanes[1].points[0].y = std::numeric_limits<double>::quiet_NaN();
  const Result<std::string> text = lanes_json(r, fixture::small_city());
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().where, "lanes[1].points[0]");
}

TEST(LanesJson, WrittenToASinkIsTheSameFileInParts) {
  roads::Output r = small_roads();
  const roads::Lane a = r.lanes.lanes[0];
  for (std::uint32_t i = 2; i < 20000; ++i) {  // Some megabytes.
    roads::Lane l = a;
    l.id = i;
    l.successors = {};
    r.lanes.lanes.push_back(l);
  }
  const auto city = fixture::small_city();
  const Result<std::string> whole = lanes_json(r, city);
  ASSERT_TRUE(whole.ok()) << whole.error().to_string();
  fixture::CollectedText got;
  const ByteSink sink = got.sink();
  const std::string& streamed = got.text;
  const std::size_t& parts = got.parts;
  ASSERT_TRUE(lanes_json(sink, r, city).ok());
  EXPECT_EQ(streamed, *whole);
  EXPECT_GE(parts, 2U);
  // A bad number or a failing sink stops it with that error.
  r.lanes.lanes[1].points[0].y = std::numeric_limits<double>::quiet_NaN();
  const Status bad = lanes_json(sink, r, city);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().where, "lanes[1].points[0]");
  const ByteSink full = [](const void*, std::size_t) -> Status {
    return Error::io("lanes.json", "no space left on device");
  };
  const Status failed = lanes_json(full, small_roads(), city);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.error().to_string().find("no space left"), std::string::npos);
}

TEST(RoadModulesPly, HeaderAndBinaryRecords) {
  std::vector<roads::ModuleInstance> mods(2);
  mods[0].position = {1, 2, 3};
  mods[0].yaw_rad = 0.5;
  mods[0].size = 0;
  mods[1].position = {4, 5, 6};
  mods[1].scale = 1.25;
  mods[1].size = 2;
  mods[1].road_class = 1;
  mods[1].owner = 7;
  const double lengths[3] = {20, 10, 5};
  const auto ply =
      collect_bytes([&](const ByteSink& sink) { return road_modules_ply(mods, lengths, sink); });
  ASSERT_TRUE(ply.ok());
  const std::string text(ply->begin(), ply->end());
  const auto end = text.find("end_header\n");
  ASSERT_NE(end, std::string::npos);
  EXPECT_NE(text.find("element vertex 2"), std::string::npos);
  const std::size_t record = 6 * 4 + 1 + 1 + 4 + 1;
  ASSERT_EQ(ply->size(), end + 11 + 2 * record);
  float x = 0;
  float len = 0;
  std::memcpy(&x, ply->data() + end + 11 + record, 4);
  std::memcpy(&len, ply->data() + end + 11 + record + 5 * 4, 4);
  EXPECT_EQ(x, 4.0f);
  EXPECT_EQ(len, 5.0f);
  mods[0].scale = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(collect_bytes([&](const ByteSink& sink) {
                 return road_modules_ply(mods, lengths, sink);
               }).ok());
}

}  // namespace
}  // namespace cityforge::exporter
