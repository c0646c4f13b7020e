// SPDX-License-Identifier: Apache-2.0
// Driving-study scenarios (docs/scenarios.md): a scenario file says where the driver starts,
// the weather, the clock, the traffic, the car (a vehicle file) and the hazards that happen on
// the way. `cityforge serve DIR --live --scenario FILE` reads one with load_scenario, checks it
// against the city folder before anything starts, and serves it normalised at /scenario.json.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cityforge/core/result.hpp"
#include "cityforge/core/vec.hpp"
#include "cityforge/traffic/network.hpp"
#include "cityforge/traffic/traffic.hpp"

namespace cityforge::server {

// -- Vehicle files (data/vehicles/<name>.json) ---------------------------------------------------

/// The shipped vehicle files, embedded at build time from data/vehicles/*.json, as
/// ("vehicles/<name>.json", text) pairs sorted by name.
std::vector<std::pair<std::string, std::string>> builtin_vehicle_sources();
/// The shipped vehicles' names ("hatchback", ...), sorted.
std::vector<std::string> shipped_vehicle_names();

/// Checks a vehicle file (format "cityforge-vehicle", version 1): every key of the format
/// present, no unknown key, every number finite and > 0 except brakes.front_share in [0, 1],
/// cg_to_front_axle_m < wheelbase_m, a torque curve of >= 2 points with rpm strictly ascending
/// and torque >= 0, gear ratios positive and strictly descending, downshift_rpm < upshift_rpm
/// <= redline_rpm, idle_rpm < redline_rpm. With a non-empty `stem`, "name" must equal it.
/// Errors (invalid_input) are "<source>: <JSON pointer>: expected ..., got ...". Returns the
/// document compacted (keys in file order), for /scenario.json's "vehicle_spec".
Result<std::string> check_vehicle(std::string_view text, const std::string& source,
                                  const std::string& stem = "");

// -- Scenario files ------------------------------------------------------------------------------

enum class HazardKind : std::uint8_t {
  pedestrian_steps_out,  ///< A pedestrian walks into the road.
  red_light_runner,      ///< A vehicle drives through a junction at speed.
  pull_out,              ///< A parked vehicle pulls out of its spot.
  door_opens,            ///< A parked car's door swings into the lane (1.0 m x 0.2 m).
  sudden_fog,            ///< Visibility drops to visibility_m.
};
/// "pedestrian_steps_out", ... (the names scenario files use).
const char* to_string(HazardKind kind);

/// When a hazard starts (then waits delay_s).
struct HazardTrigger {
  enum class Kind : std::uint8_t {
    time,      ///< time_s of drive time since the start.
    distance,  ///< The car's front axle within distance_m of the hazard's `at`.
    position,  ///< The car's front axle within radius_m of `position`.
  };
  Kind kind = Kind::time;
  double time_s = 0;
  double distance_m = 0;
  Vec2 position;
  double radius_m = 0;
};

struct Hazard {
  std::string id;  ///< Unique within the scenario.
  HazardKind kind = HazardKind::pedestrian_steps_out;
  HazardTrigger trigger;
  std::optional<Vec2> at;   ///< Where the actor starts (none for sudden_fog), metres.
  double heading_deg = 0;   ///< Direction it moves, counter-clockwise from +x.
  double speed_mps = 0;     ///< Its speed once moving.
  double travel_m = 0;      ///< How far it moves, then stops.
  double delay_s = 0;       ///< After the trigger.
  double visibility_m = 0;  ///< sudden_fog only (> 0 there).
};

struct WeatherChange {
  double at_s = 0;  ///< Drive time since the start.
  traffic::WeatherKind kind = traffic::WeatherKind::clear;
  bool fog = false;
};

/// The driver's start: a pose, snapped to the nearest vehicle lane (within 3 m), or a lane and
/// an arc length on it, whose pose is filled in. Both forms end with every field set.
struct ScenarioStart {
  bool by_lane = false;  ///< Given as {"lane", "s_m"} (else {"x", "y", "heading_deg"}).
  double x = 0, y = 0, heading_deg = 0;
  traffic::LaneId lane = traffic::kNoLane;
  double s_m = 0;
};

/// Thresholds of the driving metrics (docs/scenarios.md): defaults when absent.
struct Thresholds {
  double reaction_brake = 0.1;        ///< Brake pedal 0..1 that counts as a reaction.
  double reaction_steer_rad = 0.035;  ///< Road-wheel angle change from the hazard's onset.
  double harsh_brake_mps2 = 4.0;
  double harsh_accel_mps2 = 3.0;
  double eyes_off_road_deg = 30;
  double near_miss_ttc_s = 1.5;
  double speeding_tolerance_frac = 0.05;
};

/// A scenario file, checked and with its defaults filled.
struct Scenario {
  std::string file;       ///< The path as given.
  std::string file_name;  ///< Its last component ("night-rain-downtown.json").
  std::string file_hash;  ///< SHA-256 of the file's bytes: 64 lower-case hex digits.
  std::string name;       ///< [a-z0-9_-]+
  std::string description;
  std::optional<std::string> city_config;  ///< "city": how the folder was made (informational).
  std::optional<std::uint64_t> city_seed;
  std::uint64_t seed = 1;  ///< The live traffic's and crowd's seed.
  double duration_s = 0;
  ScenarioStart start;
  std::vector<Vec2> route;
  double time_of_day_h = 12;  ///< [0, 24)
  traffic::WeatherKind weather = traffic::WeatherKind::clear;
  bool fog = false;
  std::vector<WeatherChange> weather_changes;  ///< at_s ascending.
  std::uint32_t vehicles = 2000;               ///< Moving vehicles of the live traffic.
  std::uint32_t pedestrians = 2000;
  std::string vehicle;         ///< As written: a shipped name or a path ending .json.
  std::string vehicle_source;  ///< "vehicles/<name>.json" (shipped) or the path it was read from.
  std::string vehicle_spec;    ///< The vehicle file, checked and compacted (JSON text).
  Thresholds thresholds;
  std::vector<Hazard> hazards;
};

/// Parses and checks a scenario's text on its own: every key known, values of the right types
/// and in range (docs/scenarios.md). `source` names the file in errors, which read
/// "<source>: <JSON pointer>: expected ..., got ...". The vehicle is not resolved, the city not
/// consulted, file / file_name / file_hash left empty.
Result<Scenario> parse_scenario(std::string_view text, const std::string& source);

/// What of a city folder a scenario is checked against (check_scenario_city).
struct CityExtent {
  /// The city's outline: layout.geojson's "boundary" feature when it has one, else the
  /// bounding box of every lane of lanes.json (counter-clockwise).
  std::vector<Vec2> outline;
  bool from_boundary = false;
  roads::LaneGraph lanes;             ///< lanes.json's lanes (vehicle lanes are snapped to).
  std::optional<std::uint64_t> seed;  ///< stats.json's "seed", when present.
};
/// Reads lanes.json, layout.geojson and stats.json of a `generate` folder (errors name them).
Result<CityExtent> read_city_extent(const std::string& city_dir);

/// Checks `scenario` against a city: hazards' `at` and trigger positions and route points
/// inside the outline, the start within 3 m of a vehicle lane (or a vehicle lane id with
/// 0 <= s_m <= its length; the missing half of the start is filled in), city.seed equal to
/// stats.json's seed when both are given. Errors name `source` and the JSON pointer.
Status check_scenario_city(Scenario& scenario, const CityExtent& city, const std::string& source);

/// Reads the scenario file at `path`, parses it, resolves and checks its vehicle (a shipped
/// name, or a path relative to the scenario file's folder) and checks it against the city
/// folder `city_dir`. The one call `serve --scenario` makes before anything starts.
Result<Scenario> load_scenario(const std::string& path, const std::string& city_dir);

/// GET /scenario.json: the scenario with its defaults filled, plus "vehicle_spec" (the vehicle
/// file's JSON), "file" (the file name) and "file_hash". Compact JSON text.
std::string scenario_json(const Scenario& scenario);

/// SHA-256 (FIPS 180-4) of bytes, as 64 lower-case hex digits.
std::string sha256_hex(std::string_view bytes);

}  // namespace cityforge::server
