// SPDX-License-Identifier: Apache-2.0
// Scenario and vehicle files (docs/scenarios.md) read strictly: each mistake is an error naming
// the file, the JSON pointer and what was expected; defaults are filled; the checks against a
// city (places inside it, the start on a vehicle lane, the seed) on a hand-made city extent;
// SHA-256 against the FIPS 180-4 examples.
#include "cityforge/server/scenario.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace cityforge::server {
namespace {

using json = nlohmann::ordered_json;

/// A valid scenario; tests change one thing at a time.
json base() {
  return json::parse(R"({
    "format": "cityforge-scenario", "version": 1, "name": "unit-test",
    "seed": 7, "duration_s": 120,
    "start": {"x": 10, "y": 0.5, "heading_deg": 0},
    "vehicle": "hatchback",
    "hazards": [
      {"id": "kid", "kind": "pedestrian_steps_out", "trigger": {"distance_m": 20},
       "at": [50, -3], "heading_deg": 90}
    ]
  })");
}

/// The error of parsing `j` as "t.json" ("" when it parses).
std::string error_of(const json& j) {
  const Result<Scenario> r = parse_scenario(j.dump(), "t.json");
  return r ? std::string() : r.error().to_string();
}

TEST(ScenarioParse, FillsDefaults) {
  const Result<Scenario> r = parse_scenario(base().dump(), "t.json");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->name, "unit-test");
  EXPECT_EQ(r->seed, 7U);
  EXPECT_DOUBLE_EQ(r->time_of_day_h, 12.0);
  EXPECT_EQ(r->weather, traffic::WeatherKind::clear);
  EXPECT_EQ(r->vehicles, 2000U);
  EXPECT_DOUBLE_EQ(r->thresholds.reaction_brake, 0.1);
  EXPECT_DOUBLE_EQ(r->thresholds.near_miss_ttc_s, 1.5);
  ASSERT_EQ(r->hazards.size(), 1U);
  // pedestrian_steps_out: 1.5 m/s over 4 m unless the file says.
  EXPECT_DOUBLE_EQ(r->hazards[0].speed_mps, 1.5);
  EXPECT_DOUBLE_EQ(r->hazards[0].travel_m, 4.0);
  EXPECT_EQ(r->hazards[0].trigger.kind, HazardTrigger::Kind::distance);
  const json out = json::parse(scenario_json(*r));
  EXPECT_EQ(out["thresholds"]["harsh_brake_mps2"], 4.0);
  EXPECT_EQ(out["weather"]["changes"], json::array());
  EXPECT_EQ(out["hazards"][0]["delay_s"], 0.0);
  EXPECT_EQ(out["traffic"]["pedestrians"], 2000);
}

TEST(ScenarioParse, UnknownKeysAnywhere) {
  json j = base();
  j["colour"] = "red";
  EXPECT_EQ(error_of(j).rfind("t.json: /colour: unknown key 'colour'", 0), 0U) << error_of(j);
  j = base();
  j["hazards"][0]["sped_mps"] = 2;
  EXPECT_NE(error_of(j).find("t.json: /hazards/0/sped_mps: unknown key"), std::string::npos);
  j = base();
  j["thresholds"] = {{"reaction_brak", 0.2}};
  EXPECT_NE(error_of(j).find("/thresholds/reaction_brak: unknown key"), std::string::npos);
}

TEST(ScenarioParse, WrongTypesAndRanges) {
  json j = base();
  j["seed"] = "7";
  EXPECT_EQ(error_of(j),
            "t.json: /seed: expected an integer in [0, 18446744073709551615], got "
            "string \"7\"");
  j = base();
  j["time_of_day_h"] = 24;
  EXPECT_EQ(error_of(j), "t.json: /time_of_day_h: expected a number in [0, 24), got 24");
  j = base();
  j["duration_s"] = 0;
  EXPECT_EQ(error_of(j), "t.json: /duration_s: expected a number in (0, 86400], got 0");
  j = base();
  j["weather"] = {{"kind", "snow"}};
  EXPECT_NE(error_of(j).find("/weather/kind: expected \"clear\", \"cloudy\", \"rain\", \"storm\" "
                             "or \"fog\", got string \"snow\""),
            std::string::npos)
      << error_of(j);
  j = base();
  j["thresholds"] = {{"reaction_brake", 1.5}};
  EXPECT_EQ(error_of(j),
            "t.json: /thresholds/reaction_brake: expected a number in [0, 1], got 1.5");
  j = base();
  j["hazards"][0]["at"] = {50};
  EXPECT_NE(error_of(j).find("/hazards/0/at: expected an [x, y] pair"), std::string::npos);
  j = base();
  j["name"] = "Bad Name";
  EXPECT_NE(error_of(j).find("/name: expected a name matching [a-z0-9_-]+"), std::string::npos);
  j = base();
  j["vehicle"] = "Hatch Back";
  EXPECT_NE(error_of(j).find("/vehicle: expected a name matching"), std::string::npos);
  j = base();
  j["format"] = "cityforge-vehicle";
  EXPECT_NE(error_of(j).find("/format: expected \"cityforge-scenario\""), std::string::npos);
  j = base();
  j.erase("start");
  EXPECT_EQ(error_of(j), "t.json: /: missing required key 'start'");
}

TEST(ScenarioParse, HazardRules) {
  json j = base();
  j["hazards"].push_back(j["hazards"][0]);
  EXPECT_NE(error_of(j).find("/hazards/1/id: expected an id no other hazard has"),
            std::string::npos);
  j = base();
  j["hazards"][0]["trigger"] = {{"time_s", 3}, {"distance_m", 4}};
  EXPECT_NE(error_of(j).find("/hazards/0/trigger: expected exactly one of"), std::string::npos);
  j = base();
  j["hazards"][0]["trigger"] = {{"time_s", 500}};  // Beyond duration_s.
  EXPECT_NE(error_of(j).find("/hazards/0/trigger/time_s: expected a number in [0, 120]"),
            std::string::npos);
  j = base();
  j["hazards"][0].erase("at");
  EXPECT_NE(error_of(j).find("/hazards/0: missing required key 'at'"), std::string::npos);
  j = base();
  j["hazards"][0]["visibility_m"] = 30;
  EXPECT_NE(error_of(j).find("/hazards/0/visibility_m: expected visibility_m only for sudden_fog"),
            std::string::npos);
  j = base();
  j["hazards"] = json::parse(R"([{"id": "f", "kind": "sudden_fog", "trigger": {"distance_m": 5},
                                  "visibility_m": 30}])");
  EXPECT_NE(error_of(j).find("/hazards/0/trigger/distance_m: expected time_s or position"),
            std::string::npos);
  j["hazards"][0]["trigger"] = {{"position", {1, 2}}};
  EXPECT_EQ(error_of(j), "");
  j["hazards"][0]["at"] = {1, 2};
  EXPECT_NE(error_of(j).find("/hazards/0/at: expected no 'at' for sudden_fog"), std::string::npos);
  j = base();
  j["weather"] = json::parse(R"({"kind": "rain", "changes": [{"at_s": 60, "kind": "storm"},
                                                              {"at_s": 30, "kind": "fog"}]})");
  EXPECT_NE(error_of(j).find("/weather/changes/1/at_s: expected a time >= the previous change's"),
            std::string::npos);
}

/// A shipped vehicle's text, with one value replaced at a JSON pointer.
std::string vehicle_with(const std::string& pointer, const json& value) {
  const std::vector<std::pair<std::string, std::string>> shipped = builtin_vehicle_sources();
  EXPECT_FALSE(shipped.empty());
  json v = json::parse(shipped.empty() ? "{}" : shipped.front().second);
  if (!pointer.empty()) v[json::json_pointer(pointer)] = value;
  return v.dump();
}

TEST(VehicleFile, ShippedVehiclesAreValid) {
  const std::vector<std::string> names = shipped_vehicle_names();
  for (const char* n : {"hatchback", "pickup_4x4", "sports_rwd"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  for (const auto& [path, text] : builtin_vehicle_sources()) {
    const std::string stem = path.substr(9, path.size() - 9 - 5);  // vehicles/<stem>.json
    const Result<std::string> r = check_vehicle(text, path, stem);
    EXPECT_TRUE(r.ok()) << r.error().to_string();
  }
}

TEST(VehicleFile, EveryRuleNamesItsPointer) {
  const auto err = [](const std::string& pointer, const json& value) {
    const Result<std::string> r = check_vehicle(vehicle_with(pointer, value), "car.json");
    return r ? std::string() : r.error().to_string();
  };
  EXPECT_EQ(err("/body/mass_kg", -1200),
            "car.json: /body/mass_kg: expected a number > 0, got -1200");
  EXPECT_EQ(err("/tyres/friction", 0), "car.json: /tyres/friction: expected a number > 0, got 0");
  EXPECT_NE(err("/body/cg_to_front_axle_m", 9).find("expected a number < wheelbase_m"),
            std::string::npos);
  EXPECT_NE(
      err("/brakes/front_share", 1.5).find("/brakes/front_share: expected a number in [0, 1]"),
      std::string::npos);
  EXPECT_NE(err("/gearbox/ratios", json::array({3.0, 3.5}))
                .find("/gearbox/ratios/1: expected a "
                      "ratio < the previous gear's"),
            std::string::npos);
  EXPECT_NE(err("/engine/torque_curve", json::parse("[[1000, 100], [900, 120]]"))
                .find("/engine/torque_curve/1/0: expected an rpm > the previous point's"),
            std::string::npos);
  EXPECT_NE(err("/engine/torque_curve", json::parse("[[1000, 100]]"))
                .find("/engine/torque_curve: expected an array of >= 2"),
            std::string::npos);
  EXPECT_NE(err("/engine/torque_curve/0/1", -5).find("expected a number >= 0, got -5"),
            std::string::npos);
  EXPECT_NE(err("/gearbox/downshift_rpm", 1e6).find("/gearbox/downshift_rpm: expected a number <"),
            std::string::npos);
  EXPECT_NE(err("/gearbox/upshift_rpm", 1e6).find("/gearbox/"), std::string::npos);
  EXPECT_NE(err("/engine/idle_rpm", 1e6).find("/engine/idle_rpm: expected a number < redline_rpm"),
            std::string::npos);
  EXPECT_NE(err("/drivetrain", "4wd").find("/drivetrain: expected \"rwd\", \"fwd\" or \"awd\""),
            std::string::npos);
  EXPECT_NE(err("/body/wings", 2).find("/body/wings: unknown key"), std::string::npos);
  json v = json::parse(vehicle_with("", nullptr));
  v["steering"].erase("max_angle_deg");
  const Result<std::string> missing = check_vehicle(v.dump(), "car.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().to_string(),
            "car.json: /steering: missing required key 'max_angle_deg'");
  // A shipped file's name must be its file name.
  const Result<std::string> renamed = check_vehicle(vehicle_with("/name", "other"), "x.json", "x");
  ASSERT_FALSE(renamed.ok());
  EXPECT_NE(renamed.error().message.find("expected \"x\""), std::string::npos);
}

/// A city of one vehicle lane along y = 0 from x = 0 to 100, a sidewalk at y = -4, inside a
/// square boundary (0..100) x (-20..20).
CityExtent small_city(bool boundary) {
  CityExtent c;
  roads::Lane lane;
  lane.id = 0;
  lane.tags = roads::kVehicle;
  lane.points = {{0, 0, 0}, {100, 0, 0}};
  lane.length_m = 100;
  c.lanes.lanes.push_back(lane);
  lane.id = 1;
  lane.tags = roads::kSidewalk;
  lane.points = {{0, -4, 0}, {100, -4, 0}};
  c.lanes.lanes.push_back(lane);
  if (boundary) {
    c.outline = {{0, -20}, {100, -20}, {50, 20}};  // A triangle: (95, 15) is outside it.
    c.from_boundary = true;
  } else {
    c.outline = {{0, -4}, {100, -4}, {100, 0}, {0, 0}};
  }
  c.seed = 3;
  return c;
}

std::string city_error(json j, bool boundary = true) {
  Result<Scenario> s = parse_scenario(j.dump(), "t.json");
  EXPECT_TRUE(s.ok()) << s.error().to_string();
  if (!s) return "parse";
  const Status st = check_scenario_city(*s, small_city(boundary), "t.json");
  return st ? std::string() : st.error().to_string();
}

TEST(ScenarioCity, PlacesInsideTheCity) {
  json j = base();
  j["hazards"][0]["at"] = {50, -3};
  EXPECT_EQ(city_error(j), "");
  j["hazards"][0]["at"] = {95, 15};
  EXPECT_EQ(city_error(j),
            "t.json: /hazards/0/at: expected a point inside the city (its "
            "boundary in layout.geojson), got [95, 15]");
  // Without a boundary, the lanes' bounding box.
  j["hazards"][0]["at"] = {50, 3};
  EXPECT_NE(city_error(j, false).find("(the lanes' bounding box x [0, 100], y [-4, 0]), got "
                                      "[50, 3]"),
            std::string::npos);
  j = base();
  j["route"] = json::parse("[[50, 0], [200, 0]]");
  EXPECT_NE(city_error(j).find("/route/1: expected a point inside the city"), std::string::npos);
  j = base();
  j["hazards"][0]["trigger"] = {{"position", {-50, 0}}, {"radius_m", 5}};
  EXPECT_NE(city_error(j).find("/hazards/0/trigger/position: expected a point inside"),
            std::string::npos);
}

TEST(ScenarioCity, StartOnAVehicleLane) {
  json j = base();
  j["start"] = {{"x", 30}, {"y", 2.9}, {"heading_deg", 0}};
  Result<Scenario> s = parse_scenario(j.dump(), "t.json");
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(check_scenario_city(*s, small_city(true), "t.json").ok());
  EXPECT_EQ(s->start.lane, 0U);
  EXPECT_NEAR(s->start.s_m, 30.0, 1e-9);
  // 3.5 m off: too far (the sidewalk at 0.5 m does not count).
  j["start"] = {{"x", 30}, {"y", -3.5}, {"heading_deg", 0}};
  EXPECT_EQ(city_error(j),
            "t.json: /start: expected a pose within 3 m of a vehicle lane of "
            "lanes.json, got [30, -3.5] (the nearest, lane 0, is 3.5 m away)");
  // A lane id and arc length: the pose is filled in.
  j["start"] = {{"lane", 0}, {"s_m", 25}};
  s = parse_scenario(j.dump(), "t.json");
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(check_scenario_city(*s, small_city(true), "t.json").ok());
  EXPECT_NEAR(s->start.x, 25.0, 1e-9);
  EXPECT_NEAR(s->start.y, 0.0, 1e-9);
  EXPECT_NEAR(s->start.heading_deg, 0.0, 1e-9);
  j["start"] = {{"lane", 1}, {"s_m", 5}};
  EXPECT_NE(
      city_error(j).find("/start/lane: expected the id of a vehicle lane of lanes.json (0..2),"
                         " got 1 (not a vehicle lane)"),
      std::string::npos);
  j["start"] = {{"lane", 0}, {"s_m", 150}};
  EXPECT_NE(city_error(j).find("/start/s_m: expected a number in [0, 100] (lane 0's length), got "
                               "150"),
            std::string::npos);
}

TEST(ScenarioCity, SeedMustBeTheFoldersSeed) {
  json j = base();
  j["city"] = {{"config", "x.json"}, {"seed", 3}};
  EXPECT_EQ(city_error(j), "");
  j["city"]["seed"] = 4;
  EXPECT_EQ(city_error(j),
            "t.json: /city/seed: expected the seed the city folder was made with "
            "(stats.json: 3), got 4");
}

TEST(Sha256, FipsExamples) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

}  // namespace
}  // namespace cityforge::server
