// SPDX-License-Identifier: Apache-2.0
// The strict reader of scenario files (docs/scenarios.md) and their normalised form served at
// /scenario.json: every key known, every value of the right type and in range, hazards with the
// keys their kind uses and nothing else, defaults filled. Checks that need the city folder or
// other files are in scenario_city.cpp.
#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "cityforge/core/format.hpp"
#include "cityforge/core/json_parse.hpp"
#include "cityforge/server/scenario.hpp"
#include "server/scenario_detail.hpp"

namespace cityforge::server {
namespace {

using ojson = nlohmann::ordered_json;
using detail::Checker;

constexpr double kMaxDurationS = 86400;
constexpr std::uint64_t kMaxAgents = 1000000;

const std::vector<const char*> kHazardKinds = {"pedestrian_steps_out", "red_light_runner",
                                               "pull_out", "door_opens", "sudden_fog"};
const std::vector<const char*> kWeatherKinds = {"clear", "cloudy", "rain", "storm", "fog"};

/// Speed and travel of a hazard's actor when the file does not say (docs/scenarios.md).
std::pair<double, double> hazard_defaults(HazardKind k) {
  switch (k) {
    case HazardKind::pedestrian_steps_out:
      return {1.5, 4.0};
    case HazardKind::red_light_runner:
      return {14.0, 80.0};
    case HazardKind::pull_out:
      return {3.0, 12.0};
    case HazardKind::door_opens:
    case HazardKind::sudden_fog:
      return {0.0, 0.0};
  }
  return {0.0, 0.0};
}

void read_start(Checker& c, const ojson& j, Scenario& s) {
  if (c.failed()) return;
  if (j.is_object() && j.contains("lane")) {
    if (!c.all_keys(j, "/start", {"lane", "s_m"})) return;
    s.start.by_lane = true;
    s.start.lane = static_cast<traffic::LaneId>(
        c.count(j["lane"], "/start/lane", std::numeric_limits<std::int32_t>::max()));
    s.start.s_m = c.non_negative(j["s_m"], "/start/s_m");
    return;
  }
  if (!c.all_keys(j, "/start", {"x", "y", "heading_deg"})) {
    return;
  }
  s.start.x = c.finite(j["x"], "/start/x");
  s.start.y = c.finite(j["y"], "/start/y");
  s.start.heading_deg = c.in_range(j["heading_deg"], "/start/heading_deg", -360, 360);
}

void read_weather(Checker& c, const ojson& j, Scenario& s) {
  if (!c.keys(j, "/weather", {"kind", "fog", "changes"}, {"kind"})) return;
  s.weather =
      static_cast<traffic::WeatherKind>(c.one_of(j["kind"], "/weather/kind", kWeatherKinds));
  if (j.contains("fog")) s.fog = c.boolean(j["fog"], "/weather/fog");
  if (!j.contains("changes") || c.failed()) return;
  const ojson& changes = j["changes"];
  if (!changes.is_array()) {
    c.fail("/weather/changes", "expected an array, got " + Checker::describe(changes));
    return;
  }
  for (std::size_t i = 0; i < changes.size() && !c.failed(); ++i) {
    const std::string p = "/weather/changes/" + std::to_string(i);
    const ojson& ch = changes[i];
    if (!c.keys(ch, p, {"at_s", "kind", "fog"}, {"at_s", "kind"})) return;
    WeatherChange w;
    w.at_s = c.in_range(ch["at_s"], p + "/at_s", 0, s.duration_s);
    w.kind = static_cast<traffic::WeatherKind>(c.one_of(ch["kind"], p + "/kind", kWeatherKinds));
    if (ch.contains("fog")) w.fog = c.boolean(ch["fog"], p + "/fog");
    if (!c.failed() && !s.weather_changes.empty() && w.at_s < s.weather_changes.back().at_s) {
      c.fail(p + "/at_s", "expected a time >= the previous change's (" +
                              format_g9(s.weather_changes.back().at_s) + "), got " +
                              format_g9(w.at_s));
    }
    s.weather_changes.push_back(w);
  }
}

void read_thresholds(Checker& c, const ojson& j, Thresholds& t) {
  if (!c.keys(j, "/thresholds",
              {"reaction_brake", "reaction_steer_rad", "harsh_brake_mps2", "harsh_accel_mps2",
               "eyes_off_road_deg", "near_miss_ttc_s", "speeding_tolerance_frac"},
              {})) {
    return;
  }
  const auto read = [&](const char* key, double& out) {
    if (j.contains(key)) out = c.non_negative(j[key], std::string("/thresholds/") + key);
  };
  if (j.contains("reaction_brake")) {
    t.reaction_brake = c.in_range(j["reaction_brake"], "/thresholds/reaction_brake", 0, 1);
  }
  read("reaction_steer_rad", t.reaction_steer_rad);
  read("harsh_brake_mps2", t.harsh_brake_mps2);
  read("harsh_accel_mps2", t.harsh_accel_mps2);
  read("eyes_off_road_deg", t.eyes_off_road_deg);
  read("near_miss_ttc_s", t.near_miss_ttc_s);
  read("speeding_tolerance_frac", t.speeding_tolerance_frac);
}

void read_trigger(Checker& c, const ojson& j, const std::string& p, Hazard& h, double duration_s) {
  if (!c.keys(j, p, {"time_s", "distance_m", "position", "radius_m"}, {})) return;
  const int given = static_cast<int>(j.contains("time_s")) +
                    static_cast<int>(j.contains("distance_m")) +
                    static_cast<int>(j.contains("position"));
  if (given != 1) {
    c.fail(p,
           "expected exactly one of time_s, distance_m or position, got " + Checker::describe(j));
    return;
  }
  if (j.contains("radius_m") && !j.contains("position")) {
    c.fail(p + "/radius_m", "expected radius_m only with a position trigger");
    return;
  }
  HazardTrigger& t = h.trigger;
  if (j.contains("time_s")) {
    t.kind = HazardTrigger::Kind::time;
    t.time_s = c.in_range(j["time_s"], p + "/time_s", 0, duration_s);
  } else if (j.contains("distance_m")) {
    t.kind = HazardTrigger::Kind::distance;
    t.distance_m =
        c.number(j["distance_m"], p + "/distance_m", "a number in (0, 1000]", 0, 1000, true, false);
    if (!c.failed() && h.kind == HazardKind::sudden_fog) {
      c.fail(p + "/distance_m",
             "expected time_s or position for sudden_fog (it has no 'at' to be near)");
    }
  } else {
    t.kind = HazardTrigger::Kind::position;
    t.position = c.point(j["position"], p + "/position");
    t.radius_m = 10;
    if (j.contains("radius_m")) {
      t.radius_m =
          c.number(j["radius_m"], p + "/radius_m", "a number in (0, 1000]", 0, 1000, true, false);
    }
  }
}

void read_hazard(Checker& c, const ojson& j, const std::string& p, Scenario& s,
                 std::set<std::string>& ids) {
  // 1. The kind decides which keys the hazard may have.
  if (!c.keys(j, p,
              {"id", "kind", "trigger", "at", "heading_deg", "speed_mps", "travel_m", "delay_s",
               "visibility_m"},
              {"id", "kind", "trigger"})) {
    return;
  }
  Hazard h;
  h.id = c.name(j["id"], p + "/id", "[A-Za-z0-9_-]+");
  if (!c.failed() && !ids.insert(h.id).second) {
    c.fail(p + "/id", "expected an id no other hazard has, got \"" + h.id + "\" again");
  }
  h.kind = static_cast<HazardKind>(c.one_of(j["kind"], p + "/kind", kHazardKinds));
  if (c.failed()) return;
  const bool fog = h.kind == HazardKind::sudden_fog;
  for (const char* key : {"at", "heading_deg", "speed_mps", "travel_m"}) {
    if (fog && j.contains(key)) {
      c.fail(p + "/" + key, std::string("expected no '") + key + "' for sudden_fog");
      return;
    }
  }
  if (!fog && j.contains("visibility_m")) {
    c.fail(p + "/visibility_m",
           "expected visibility_m only for sudden_fog, not " + std::string(to_string(h.kind)));
    return;
  }
  for (const char* key : fog ? std::vector<const char*>{"visibility_m"}
                             : std::vector<const char*>{"at", "heading_deg"}) {
    if (!j.contains(key)) {
      c.fail(p, std::string("missing required key '") + key + "' (for " + to_string(h.kind) + ")");
      return;
    }
  }
  // 2. Values.
  read_trigger(c, j["trigger"], p + "/trigger", h, s.duration_s);
  const auto [speed, travel] = hazard_defaults(h.kind);
  h.speed_mps = speed;
  h.travel_m = travel;
  if (fog) {
    h.visibility_m = c.number(j["visibility_m"], p + "/visibility_m", "a number in (0, 10000]", 0,
                              10000, true, false);
  } else {
    h.at = c.point(j["at"], p + "/at");
    h.heading_deg = c.in_range(j["heading_deg"], p + "/heading_deg", -360, 360);
    if (j.contains("speed_mps")) h.speed_mps = c.in_range(j["speed_mps"], p + "/speed_mps", 0, 70);
    if (j.contains("travel_m")) h.travel_m = c.in_range(j["travel_m"], p + "/travel_m", 0, 2000);
  }
  if (j.contains("delay_s")) h.delay_s = c.in_range(j["delay_s"], p + "/delay_s", 0, 3600);
  s.hazards.push_back(h);
}

ojson point_json(Vec2 p) { return ojson::array({p.x, p.y}); }

}  // namespace

const char* to_string(HazardKind kind) { return kHazardKinds[static_cast<std::size_t>(kind)]; }

Result<Scenario> parse_scenario(std::string_view text, const std::string& source) {
  Result<ojson> parsed = parse_json<ojson>(text, source);
  if (!parsed) return parsed.error();
  const ojson& j = *parsed;
  Checker c(source);
  Scenario s;
  // 1. The header and the plain values.
  if (!c.keys(j, "",
              {"format", "version", "name", "description", "city", "seed", "duration_s", "start",
               "route", "time_of_day_h", "weather", "traffic", "vehicle", "thresholds", "hazards"},
              {"format", "version", "name", "seed", "duration_s", "start", "vehicle"})) {
    return c.error();
  }
  c.literal(j["format"], "/format", "cityforge-scenario");
  c.version(j["version"], "/version", 1);
  s.name = c.name(j["name"], "/name", "[a-z0-9_-]+");
  if (j.contains("description")) s.description = c.string(j["description"], "/description");
  if (j.contains("city") && c.keys(j["city"], "/city", {"config", "seed"}, {})) {
    const ojson& city = j["city"];
    if (city.contains("config")) s.city_config = c.string(city["config"], "/city/config");
    if (city.contains("seed")) {
      s.city_seed = c.count(city["seed"], "/city/seed", std::numeric_limits<std::uint64_t>::max());
    }
  }
  s.seed = c.count(j["seed"], "/seed", std::numeric_limits<std::uint64_t>::max());
  s.duration_s = c.number(j["duration_s"], "/duration_s", "a number in (0, 86400]", 0,
                          kMaxDurationS, true, false);
  read_start(c, j["start"], s);
  if (j.contains("route") && !c.failed()) {
    const ojson& route = j["route"];
    if (!route.is_array()) {
      c.fail("/route", "expected an array of [x, y] points, got " + Checker::describe(route));
    } else {
      for (std::size_t i = 0; i < route.size() && !c.failed(); ++i)
        s.route.push_back(c.point(route[i], "/route/" + std::to_string(i)));
    }
  }
  if (j.contains("time_of_day_h")) {
    s.time_of_day_h =
        c.number(j["time_of_day_h"], "/time_of_day_h", "a number in [0, 24)", 0, 24, false, true);
  }
  if (j.contains("weather")) read_weather(c, j["weather"], s);
  if (j.contains("traffic") && c.keys(j["traffic"], "/traffic", {"vehicles", "pedestrians"}, {})) {
    const ojson& t = j["traffic"];
    if (t.contains("vehicles")) {
      s.vehicles =
          static_cast<std::uint32_t>(c.count(t["vehicles"], "/traffic/vehicles", kMaxAgents));
    }
    if (t.contains("pedestrians")) {
      s.pedestrians =
          static_cast<std::uint32_t>(c.count(t["pedestrians"], "/traffic/pedestrians", kMaxAgents));
    }
  }
  // 2. The car: a shipped name or a path to a vehicle file (resolved by load_scenario).
  s.vehicle = c.string(j["vehicle"], "/vehicle");
  const bool path = s.vehicle.size() > 5 && s.vehicle.ends_with(".json");
  if (!c.failed() && !path) c.name(j["vehicle"], "/vehicle", "[a-z0-9_]+");
  if (j.contains("thresholds")) read_thresholds(c, j["thresholds"], s.thresholds);
  // 3. Hazards.
  if (j.contains("hazards") && !c.failed()) {
    const ojson& hazards = j["hazards"];
    std::set<std::string> ids;
    if (!hazards.is_array()) {
      c.fail("/hazards", "expected an array of hazards, got " + Checker::describe(hazards));
    } else {
      for (std::size_t i = 0; i < hazards.size() && !c.failed(); ++i)
        read_hazard(c, hazards[i], "/hazards/" + std::to_string(i), s, ids);
    }
  }
  if (c.failed()) return c.error();
  return s;
}

std::string scenario_json(const Scenario& s) {
  ojson j;
  j["format"] = "cityforge-scenario";
  j["version"] = 1;
  j["name"] = s.name;
  j["description"] = s.description;
  if (s.city_config || s.city_seed) {
    ojson city = ojson::object();
    if (s.city_config) city["config"] = *s.city_config;
    if (s.city_seed) city["seed"] = *s.city_seed;
    j["city"] = city;
  } else {
    j["city"] = nullptr;
  }
  j["seed"] = s.seed;
  j["duration_s"] = s.duration_s;
  j["start"] = {{"x", s.start.x},
                {"y", s.start.y},
                {"heading_deg", s.start.heading_deg},
                {"lane", s.start.lane == traffic::kNoLane ? ojson(nullptr) : ojson(s.start.lane)},
                {"s_m", s.start.s_m}};
  j["route"] = ojson::array();
  for (const Vec2 p : s.route)
    j["route"].push_back(point_json(p));
  j["time_of_day_h"] = s.time_of_day_h;
  ojson changes = ojson::array();
  for (const WeatherChange& w : s.weather_changes)
    changes.push_back({{"at_s", w.at_s}, {"kind", traffic::to_string(w.kind)}, {"fog", w.fog}});
  j["weather"] = {{"kind", traffic::to_string(s.weather)}, {"fog", s.fog}, {"changes", changes}};
  j["traffic"] = {{"vehicles", s.vehicles}, {"pedestrians", s.pedestrians}};
  j["vehicle"] = s.vehicle;
  const Thresholds& t = s.thresholds;
  j["thresholds"] = {{"reaction_brake", t.reaction_brake},
                     {"reaction_steer_rad", t.reaction_steer_rad},
                     {"harsh_brake_mps2", t.harsh_brake_mps2},
                     {"harsh_accel_mps2", t.harsh_accel_mps2},
                     {"eyes_off_road_deg", t.eyes_off_road_deg},
                     {"near_miss_ttc_s", t.near_miss_ttc_s},
                     {"speeding_tolerance_frac", t.speeding_tolerance_frac}};
  j["hazards"] = ojson::array();
  for (const Hazard& h : s.hazards) {
    ojson hj;
    hj["id"] = h.id;
    hj["kind"] = to_string(h.kind);
    switch (h.trigger.kind) {
      case HazardTrigger::Kind::time:
        hj["trigger"] = {{"time_s", h.trigger.time_s}};
        break;
      case HazardTrigger::Kind::distance:
        hj["trigger"] = {{"distance_m", h.trigger.distance_m}};
        break;
      case HazardTrigger::Kind::position:
        hj["trigger"] = {{"position", point_json(h.trigger.position)},
                         {"radius_m", h.trigger.radius_m}};
        break;
    }
    if (h.at) {
      hj["at"] = point_json(*h.at);
      hj["heading_deg"] = h.heading_deg;
      hj["speed_mps"] = h.speed_mps;
      hj["travel_m"] = h.travel_m;
    }
    hj["delay_s"] = h.delay_s;
    if (h.kind == HazardKind::sudden_fog) hj["visibility_m"] = h.visibility_m;
    j["hazards"].push_back(hj);
  }
  Result<ojson> spec = parse_json<ojson>(s.vehicle_spec, s.vehicle_source);
  j["vehicle_spec"] = spec ? *spec : ojson(nullptr);
  j["file"] = s.file_name;
  j["file_hash"] = s.file_hash;
  return j.dump();
}

}  // namespace cityforge::server
