// SPDX-License-Identifier: Apache-2.0
// A scenario checked against the city folder it is driven in (docs/scenarios.md, "Checked
// against the city"): its places inside the city, its start on a vehicle lane, its seed the
// folder's; and load_scenario, which reads the file, its vehicle and the folder in that order.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <numbers>

#include "cityforge/core/format.hpp"
#include "cityforge/core/json_parse.hpp"
#include "cityforge/core/polygon.hpp"
#include "cityforge/core/text_file.hpp"
#include "cityforge/server/scenario.hpp"

namespace cityforge::server {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr double kStartSnapM = 3.0;  ///< The start pose's farthest distance from a vehicle lane.
constexpr std::uint64_t kMaxScenarioBytes = std::uint64_t{4} << 20;
constexpr std::uint64_t kMaxVehicleBytes = std::uint64_t{1} << 20;

std::string point_text(Vec2 p) { return "[" + format_g9(p.x) + ", " + format_g9(p.y) + "]"; }

/// layout.geojson's "boundary" feature (a Polygon's outer ring), when it has one.
Result<std::vector<Vec2>> boundary_of(const fs::path& file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return std::vector<Vec2>{};
  Result<std::string> text = read_file_text(file.string(), kWrittenFileLimits.max_bytes);
  if (!text) return text.error();
  // Our own layouts have no boundary layer: skip parsing a big file for nothing.
  if (text->find("boundary") == std::string::npos) return std::vector<Vec2>{};
  Result<json> doc = parse_json(*text, file.string(), kWrittenFileLimits);
  if (!doc) return doc.error();
  if (!doc->is_object() || !doc->contains("features") || !(*doc)["features"].is_array()) {
    return std::vector<Vec2>{};
  }
  for (const json& f : (*doc)["features"]) {
    if (!f.is_object() || !f.contains("properties") || !f.contains("geometry")) continue;
    const json& props = f["properties"];
    const json& geom = f["geometry"];
    if (!props.is_object() || props.value("layer", json()) != "boundary") continue;
    if (!geom.is_object() || geom.value("type", json()) != "Polygon" ||
        !geom.contains("coordinates") || !geom["coordinates"].is_array() ||
        geom["coordinates"].empty()) {
      continue;
    }
    std::vector<Vec2> ring;
    for (const json& pt : geom["coordinates"][0]) {
      if (!pt.is_array() || pt.size() < 2 || !pt[0].is_number() || !pt[1].is_number()) {
        return Error::invalid_input(file.string(),
                                    "the boundary feature's ring holds a point that is not "
                                    "[x, y] numbers");
      }
      ring.push_back(Vec2{pt[0].get<double>(), pt[1].get<double>()});
    }
    if (ring.size() >= 3) return ring;
  }
  return std::vector<Vec2>{};
}

/// The point at arc length s_m of a lane (3D arc length, as lanes.json's length_m) and the
/// heading of its segment there.
std::pair<Vec2, double> lane_at(const roads::Lane& lane, double s_m) {
  double s = 0;
  for (std::size_t i = 1; i < lane.points.size(); ++i) {
    const Vec3 a = lane.points[i - 1];
    const Vec3 b = lane.points[i];
    const double len = length(b - a);
    const double heading = std::atan2(b.y - a.y, b.x - a.x);
    if (s + len >= s_m || i + 1 == lane.points.size()) {
      const double t = len > 0 ? std::clamp((s_m - s) / len, 0.0, 1.0) : 0.0;
      return {Vec2{a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t}, heading};
    }
    s += len;
  }
  const Vec3 p = lane.points.empty() ? Vec3{} : lane.points.front();
  return {Vec2{p.x, p.y}, 0.0};
}

struct Snap {
  traffic::LaneId lane = traffic::kNoLane;
  double s_m = 0;
  double distance_m = std::numeric_limits<double>::infinity();
};

/// The nearest vehicle lane to (x, y); among lanes within kStartSnapM, the one that runs most
/// along `heading_rad` (the right carriageway, not the opposite lane beside it).
Snap nearest_vehicle_lane(const roads::LaneGraph& g, Vec2 p, double heading_rad) {
  Snap nearest;
  Snap best;
  double best_cost = std::numeric_limits<double>::infinity();
  const double hx = std::cos(heading_rad);
  const double hy = std::sin(heading_rad);
  for (const roads::Lane& lane : g.lanes) {
    if ((lane.tags & roads::kVehicle) == 0U) continue;
    double s = 0;
    for (std::size_t i = 1; i < lane.points.size(); ++i) {
      const Vec3 a = lane.points[i - 1];
      const Vec3 b = lane.points[i];
      const double dx = b.x - a.x;
      const double dy = b.y - a.y;
      const double len2 = dx * dx + dy * dy;
      const double u =
          len2 > 0 ? std::clamp(((p.x - a.x) * dx + (p.y - a.y) * dy) / len2, 0.0, 1.0) : 0.0;
      const double d = std::hypot(a.x + dx * u - p.x, a.y + dy * u - p.y);
      const double seg = length(b - a);
      const Snap here{lane.id, s + u * seg, d};
      if (d < nearest.distance_m) nearest = here;
      const double along = len2 > 0 ? (dx * hx + dy * hy) / std::sqrt(len2) : 1.0;
      const double cost = d + 6.0 * (1.0 - along);
      if (d <= kStartSnapM && cost < best_cost) {
        best_cost = cost;
        best = here;
      }
      s += seg;
    }
  }
  return best.lane != traffic::kNoLane ? best : nearest;
}

}  // namespace

Result<CityExtent> read_city_extent(const std::string& city_dir) {
  const fs::path dir(city_dir);
  CityExtent city;
  // 1. The lanes (the start is snapped to them; their box is the fallback outline).
  Result<traffic::LanesFile> lanes = traffic::load_lanes_json((dir / "lanes.json").string());
  if (!lanes) return lanes.error();
  city.lanes = std::move(lanes->graph);
  // 2. The outline: the boundary, else the lanes' bounding box.
  Result<std::vector<Vec2>> boundary = boundary_of(dir / "layout.geojson");
  if (!boundary) return boundary.error();
  if (!boundary->empty()) {
    city.outline = std::move(*boundary);
    city.from_boundary = true;
  } else {
    Aabb2 box;
    for (const roads::Lane& lane : city.lanes.lanes) {
      for (const Vec3& p : lane.points)
        box.add({p.x, p.y});
    }
    if (box.empty()) return Error::invalid_input((dir / "lanes.json").string(), "no lane points");
    city.outline = {{box.min.x, box.min.y},
                    {box.max.x, box.min.y},
                    {box.max.x, box.max.y},
                    {box.min.x, box.max.y}};
  }
  // 3. The seed the folder was made with.
  std::error_code ec;
  const fs::path stats = dir / "stats.json";
  if (fs::is_regular_file(stats, ec)) {
    Result<std::string> text = read_file_text(stats.string(), kWrittenFileLimits.max_bytes);
    if (!text) return text.error();
    Result<json> doc = parse_json(*text, stats.string(), kWrittenFileLimits);
    if (!doc) return doc.error();
    if (doc->is_object() && doc->contains("seed") && (*doc)["seed"].is_number_unsigned()) {
      city.seed = (*doc)["seed"].get<std::uint64_t>();
    }
  }
  return city;
}

Status check_scenario_city(Scenario& s, const CityExtent& city, const std::string& source) {
  const auto fail = [&](const std::string& pointer, const std::string& message) {
    return Error::invalid_input(source + ": " + pointer, message);
  };
  // 1. Places inside the city.
  Aabb2 box;
  for (const Vec2 p : city.outline)
    box.add(p);
  const std::string outline = city.from_boundary
                                  ? std::string("its boundary in layout.geojson")
                                  : "the lanes' bounding box x [" + format_g9(box.min.x) + ", " +
                                        format_g9(box.max.x) + "], y [" + format_g9(box.min.y) +
                                        ", " + format_g9(box.max.y) + "]";
  const auto inside = [&](Vec2 p) {
    return city.from_boundary ? ring_contains(city.outline, p) : box.contains(p);
  };
  const auto outside = [&](const std::string& pointer, Vec2 p) {
    return fail(pointer,
                "expected a point inside the city (" + outline + "), got " + point_text(p));
  };
  for (std::size_t i = 0; i < s.hazards.size(); ++i) {
    const Hazard& h = s.hazards[i];
    const std::string p = "/hazards/" + std::to_string(i);
    if (h.at && !inside(*h.at)) return outside(p + "/at", *h.at);
    if (h.trigger.kind == HazardTrigger::Kind::position && !inside(h.trigger.position)) {
      return outside(p + "/trigger/position", h.trigger.position);
    }
  }
  for (std::size_t i = 0; i < s.route.size(); ++i) {
    if (!inside(s.route[i])) return outside("/route/" + std::to_string(i), s.route[i]);
  }
  // 2. The start on a vehicle lane.
  const std::vector<roads::Lane>& lanes = city.lanes.lanes;
  if (s.start.by_lane) {
    if (s.start.lane >= lanes.size() || (lanes[s.start.lane].tags & roads::kVehicle) == 0U) {
      return fail("/start/lane", "expected the id of a vehicle lane of lanes.json (0.." +
                                     std::to_string(lanes.size()) + "), got " +
                                     std::to_string(s.start.lane) +
                                     (s.start.lane < lanes.size() ? " (not a vehicle lane)" : ""));
    }
    const roads::Lane& lane = lanes[s.start.lane];
    if (s.start.s_m > lane.length_m) {
      return fail("/start/s_m", "expected a number in [0, " + format_g9(lane.length_m) +
                                    "] (lane " + std::to_string(s.start.lane) + "'s length), got " +
                                    format_g9(s.start.s_m));
    }
    const auto [p, heading] = lane_at(lane, s.start.s_m);
    s.start.x = p.x;
    s.start.y = p.y;
    s.start.heading_deg = heading * 180.0 / std::numbers::pi;
  } else {
    const Vec2 p{s.start.x, s.start.y};
    const Snap snap =
        nearest_vehicle_lane(city.lanes, p, s.start.heading_deg * std::numbers::pi / 180.0);
    if (snap.distance_m > kStartSnapM) {
      return fail("/start",
                  "expected a pose within " + format_g9(kStartSnapM) +
                      " m of a vehicle lane of lanes.json, got " + point_text(p) +
                      (snap.lane == traffic::kNoLane
                           ? std::string(" (the city has no vehicle lane)")
                           : " (the nearest, lane " + std::to_string(snap.lane) + ", is " +
                                 format_g9(std::round(snap.distance_m * 10) / 10) + " m away)"));
    }
    s.start.lane = snap.lane;
    s.start.s_m = snap.s_m;
  }
  // 3. The same city.
  if (s.city_seed && city.seed && *s.city_seed != *city.seed) {
    return fail("/city/seed", "expected the seed the city folder was made with (stats.json: " +
                                  std::to_string(*city.seed) + "), got " +
                                  std::to_string(*s.city_seed));
  }
  return Ok{};
}

Result<Scenario> load_scenario(const std::string& path, const std::string& city_dir) {
  // 1. The file itself (a missing one is the user's mistake: invalid input too).
  Result<std::string> text = read_file_text(path, kMaxScenarioBytes);
  if (!text) return Error::invalid_input(text.error().where, text.error().message);
  Result<Scenario> parsed = parse_scenario(*text, path);
  if (!parsed) return parsed.error();
  Scenario s = std::move(*parsed);
  s.file = path;
  s.file_name = fs::path(path).filename().string();
  s.file_hash = sha256_hex(*text);
  // 2. The car: a path relative to the scenario file, or a shipped vehicle.
  if (s.vehicle.ends_with(".json")) {
    fs::path file(s.vehicle);
    if (file.is_relative()) file = fs::path(path).parent_path() / file;
    s.vehicle_source = file.string();
    Result<std::string> vtext = read_file_text(s.vehicle_source, kMaxVehicleBytes);
    if (!vtext) {
      return Error::invalid_input(path + ": /vehicle", "expected a readable vehicle file, got \"" +
                                                           s.vehicle + "\" (" +
                                                           vtext.error().to_string() + ")");
    }
    Result<std::string> spec = check_vehicle(*vtext, s.vehicle_source);
    if (!spec) return spec.error();
    s.vehicle_spec = std::move(*spec);
  } else {
    const std::string key = "vehicles/" + s.vehicle + ".json";
    for (const auto& [name, vtext] : builtin_vehicle_sources()) {
      if (name != key) continue;
      s.vehicle_source = "data/" + key;
      Result<std::string> spec = check_vehicle(vtext, s.vehicle_source, s.vehicle);
      if (!spec) return spec.error();
      s.vehicle_spec = std::move(*spec);
    }
    if (s.vehicle_source.empty()) {
      std::string names;
      for (const std::string& n : shipped_vehicle_names())
        names += (names.empty() ? "" : ", ") + n;
      return Error::invalid_input(path + ": /vehicle",
                                  "expected a shipped vehicle (" +
                                      (names.empty() ? std::string("none built in") : names) +
                                      ") or a path ending .json, got \"" + s.vehicle + "\"");
    }
  }
  // 3. The city folder.
  Result<CityExtent> city = read_city_extent(city_dir);
  if (!city) return city.error();
  if (Status st = check_scenario_city(s, *city, path); !st) return st.error();
  return s;
}

}  // namespace cityforge::server
