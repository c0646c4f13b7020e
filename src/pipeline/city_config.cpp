// SPDX-License-Identifier: Apache-2.0
// Strict reader of the city JSON: every key is known, every number finite and in range, and
// every error names the source, the JSON pointer of the offending value and what was expected.
#include "cityforge/pipeline/city_config.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <set>

#include "cityforge/core/format.hpp"
#include "cityforge/core/json_reader.hpp"

namespace cityforge::pipeline {
namespace {

using nlohmann::json;

std::string fmt(double v) { return format_g9(v); }

std::string describe(const json& j) { return cityforge::detail::describe_json(j); }

using Reader = cityforge::detail::JsonReader;

// [[x, y], ...] in metres. Non-finite or absurd values are caught here and by validate.
std::vector<Vec2> read_points(Reader& r, const json& j, const std::string& path) {
  std::vector<Vec2> out;
  if (r.failed()) return out;
  if (!j.is_array()) {
    r.fail(path, "expected an array of [x, y] points, got " + describe(j));
    return out;
  }
  for (std::size_t i = 0; i < j.size(); ++i) {
    const json& p = j[i];
    const std::string pp = path + "/" + std::to_string(i);
    if (!p.is_array() || p.size() != 2 || !p[0].is_number() || !p[1].is_number()) {
      r.fail(pp, "expected a point [x, y] of two numbers, got " + describe(p));
      return out;
    }
    const Vec2 v{p[0].get<double>(), p[1].get<double>()};
    if (!std::isfinite(v.x) || !std::isfinite(v.y) || std::fabs(v.x) > 1e7 ||
        std::fabs(v.y) > 1e7) {
      r.fail(pp, "coordinate (" + fmt(v.x) + ", " + fmt(v.y) +
                     ") is not finite or beyond +-1e7 m; coordinates are metres in a local frame");
      return out;
    }
    out.push_back(v);
  }
  return out;
}

void read_class(Reader& r, const json& j, const std::string& path, layout::RoadClassSpec& c) {
  if (!r.object(j, path,
                {"width_m", "lanes_per_direction", "sidewalk_width_m", "speed_limit_kmh",
                 "corner_radius_m"})) {
    return;
  }
  r.number(j, "width_m", path, c.width_m, 0.5, 200);
  r.integer(j, "lanes_per_direction", path, c.lanes_per_direction, 1, 6);
  r.number(j, "sidewalk_width_m", path, c.sidewalk_width_m, 0, 50);
  r.number(j, "speed_limit_kmh", path, c.speed_limit_kmh, 1, 300);
  r.number(j, "corner_radius_m", path, c.corner_radius_m, 0, 100);
}

void read_layout(Reader& r, const json& j, layout::Config& c) {
  const std::string path = "/layout";
  if (!r.object(j, path,
                {"classes", "block_short_m", "block_long_m", "block_size_tolerance",
                 "main_road_every", "corridor_m", "artery_to_limit_m", "cost_cell_m",
                 "slope_weight", "curve_weight", "merge_distance_m", "min_dangling_m",
                 "min_block_area_m2", "zoning_cell_m", "default_height_m", "default_density"})) {
    return;
  }
  if (j.contains("classes")) {
    const json& cl = j["classes"];
    if (r.object(cl, path + "/classes", {"artery", "main", "local"})) {
      for (std::size_t i = 0; i < layout::kRoadClassCount; ++i) {
        const char* name = layout::to_string(static_cast<layout::RoadClass>(i));
        if (cl.contains(name)) read_class(r, cl[name], path + "/classes/" + name, c.classes[i]);
      }
    }
  }
  r.number(j, "block_short_m", path, c.block_short_m, 10.01, 2000);
  r.number(j, "block_long_m", path, c.block_long_m, 10.01, 5000);
  r.number(j, "block_size_tolerance", path, c.block_size_tolerance, 0, 0.9);
  r.integer(j, "main_road_every", path, c.main_road_every, 1, 100);
  r.number(j, "corridor_m", path, c.corridor_m, 1, 5000);
  r.number(j, "artery_to_limit_m", path, c.artery_to_limit_m, 0, 5000);
  r.number(j, "cost_cell_m", path, c.cost_cell_m, 2, 200);
  r.number(j, "slope_weight", path, c.slope_weight, 0, 1e6);
  r.number(j, "curve_weight", path, c.curve_weight, 0, 1e6);
  r.number(j, "merge_distance_m", path, c.merge_distance_m, 0, 100);
  r.number(j, "min_dangling_m", path, c.min_dangling_m, 0, 1000);
  r.number(j, "min_block_area_m2", path, c.min_block_area_m2, 1, 1e8);
  r.number(j, "zoning_cell_m", path, c.zoning_cell_m, 1, 1000);
  r.number(j, "default_height_m", path, c.default_height_m, 0, 1000);
  r.number(j, "default_density", path, c.default_density, 0, 1);
}

void read_terrain(Reader& r, const json& j, terrain::Config& c) {
  const std::string path = "/terrain";
  if (!r.object(j, path,
                {"amplitude_m", "scale_m", "octaves", "persistence", "cell_m", "margin_m"})) {
    return;
  }
  r.number(j, "amplitude_m", path, c.amplitude_m, 0, 2000);
  r.number(j, "scale_m", path, c.scale_m, 1, 1e6);
  r.integer(j, "octaves", path, c.octaves, 1, 12);
  r.number(j, "persistence", path, c.persistence, 0.01, 0.99);
  r.number(j, "cell_m", path, c.cell_m, 1, 1000);
  r.number(j, "margin_m", path, c.margin_m, 0, 10000);
}

void read_roads(Reader& r, const json& j, roads::Config& c) {
  const std::string path = "/roads";
  if (!r.object(j, path,
                {"min_module_scale", "max_module_scale", "crown_m", "skirt_m", "curb_height_m",
                 "min_trim_m", "crosswalk_width_m", "stop_line_gap_m", "lane_width_m", "yellow_s",
                 "all_red_s", "min_green_s", "pedestrian_walk_s"})) {
    return;
  }
  r.number(j, "min_module_scale", path, c.min_module_scale, 0.1, 1.0);
  r.number(j, "max_module_scale", path, c.max_module_scale, 1.0, 3.0);
  r.number(j, "crown_m", path, c.crown_m, 0, 1);
  r.number(j, "skirt_m", path, c.skirt_m, 0, 5);
  r.number(j, "curb_height_m", path, c.curb_height_m, 0, 1);
  r.number(j, "min_trim_m", path, c.min_trim_m, 0, 100);
  r.number(j, "crosswalk_width_m", path, c.crosswalk_width_m, 0.5, 20);
  r.number(j, "stop_line_gap_m", path, c.stop_line_gap_m, 0, 20);
  r.number(j, "lane_width_m", path, c.lane_width_m, 2, 6);
  r.number(j, "yellow_s", path, c.yellow_s, 1, 10);
  r.number(j, "all_red_s", path, c.all_red_s, 0, 10);
  r.number(j, "min_green_s", path, c.min_green_s, 3, 120);
  r.number(j, "pedestrian_walk_s", path, c.pedestrian_walk_s, 1, 60);
}

void read_export(Reader& r, const json& j, ExportSettings& c) {
  const std::string path = "/export";
  if (!r.object(j, path,
                {"chunk_m", "volume_setback_m", "block_raise_m", "road_raise_m", "road_modules",
                 "instances"}))
    return;
  r.number(j, "chunk_m", path, c.chunk_m, 10, 5000);
  r.number(j, "volume_setback_m", path, c.volume_setback_m, 0, 50);
  r.number(j, "block_raise_m", path, c.block_raise_m, 0, 5);
  r.number(j, "road_raise_m", path, c.road_raise_m, 0, 5);
  if (j.contains("road_modules") && !r.failed()) {
    const json& m = j["road_modules"];
    if (m == "baked") {
      c.road_modules = RoadModules::baked;
    } else if (m == "instanced") {
      c.road_modules = RoadModules::instanced;
    } else {
      r.fail(path + "/road_modules", "expected \"baked\" or \"instanced\", got " + describe(m));
    }
  }
  if (j.contains("instances") && !r.failed()) {
    const json& m = j["instances"];
    if (!m.is_string() || !instance_mode_from_string(m.get<std::string>(), &c.instances)) {
      r.fail(path + "/instances", "expected \"ext\", \"nodes\" or \"bake\", got " + describe(m));
    }
  }
}

// The `lots` object: subdivision rules and the footprint mix {"rectangle": share, ...}.
void read_lots(Reader& r, const json& j, lots::Config& c) {
  const std::string path = "/lots";
  if (!r.object(j, path,
                {"min_lot_area_m2", "max_lot_depth_m", "base_lot_area_m2", "area_per_height_m",
                 "area_jitter", "narrow_height_m", "narrow_share", "narrow_min_width_m",
                 "narrow_max_width_m", "max_aspect", "min_compactness", "frontage_tolerance_m",
                 "building_gap_m", "lot_gap_m", "height_jitter", "footprint_mix"}))
    return;
  r.number(j, "min_lot_area_m2", path, c.min_lot_area_m2, 1, 1e6);
  r.number(j, "max_lot_depth_m", path, c.max_lot_depth_m, 5, 1000);
  r.number(j, "base_lot_area_m2", path, c.base_lot_area_m2, 10, 1e6);
  r.number(j, "area_per_height_m", path, c.area_per_height_m, 0, 1e5);
  r.number(j, "area_jitter", path, c.area_jitter, 0, 0.9);
  r.number(j, "narrow_height_m", path, c.narrow_height_m, 0, 1000);
  r.number(j, "narrow_share", path, c.narrow_share, 0, 1);
  r.number(j, "narrow_min_width_m", path, c.narrow_min_width_m, 1, 200);
  r.number(j, "narrow_max_width_m", path, c.narrow_max_width_m, 1, 200);
  r.number(j, "max_aspect", path, c.max_aspect, 1.01, 100);
  r.number(j, "min_compactness", path, c.min_compactness, 0.001, 0.99);
  r.number(j, "frontage_tolerance_m", path, c.frontage_tolerance_m, 0, 10);
  r.number(j, "building_gap_m", path, c.building_gap_m, 0, 50);
  r.number(j, "lot_gap_m", path, c.lot_gap_m, 0, 100);
  r.number(j, "height_jitter", path, c.height_jitter, 0, 0.9);
  if (!r.failed() && c.narrow_max_width_m < c.narrow_min_width_m) {
    r.fail(path + "/narrow_max_width_m", "expected >= narrow_min_width_m (" +
                                             fmt(c.narrow_min_width_m) + "), got " +
                                             fmt(c.narrow_max_width_m));
  }
  if (r.failed() || !j.contains("footprint_mix")) return;
  const json& m = j["footprint_mix"];
  const std::string mp = path + "/footprint_mix";
  if (!m.is_object()) {
    r.fail(mp, "expected an object {shape name: share}, got " + describe(m));
    return;
  }
  // Shapes not named get share 0: the table says the whole mix.
  std::array<double, lots::kFootprintShapeCount> mix{};
  double total = 0.0;
  for (const auto& item : m.items()) {
    lots::FootprintShape shape{};
    if (!lots::footprint_shape_from_string(item.key(), &shape)) {
      std::string names;
      for (std::size_t i = 0; i < lots::kFootprintShapeCount; ++i)
        names += std::string(i ? ", " : "") + lots::to_string(static_cast<lots::FootprintShape>(i));
      r.fail(mp + "/" + item.key(),
             "unknown footprint shape '" + item.key() + "'; expected one of: " + names);
      return;
    }
    r.number(m, item.key().c_str(), mp, mix[static_cast<std::size_t>(shape)], 0, 1e6);
    total += mix[static_cast<std::size_t>(shape)];
  }
  if (!r.failed() && total <= 0.0) {
    r.fail(mp, "expected at least one shape with a positive share");
    return;
  }
  c.footprint_mix = mix;
}

// The `buildings` object: style files and tag volumes.
void read_buildings(Reader& r, const json& j, BuildingSettings& c) {
  const std::string path = "/buildings";
  if (!r.object(j, path, {"styles", "tag_volumes"})) return;
  if (j.contains("styles")) {
    const json& s = j["styles"];
    if (!s.is_array() || s.empty()) {
      r.fail(path + "/styles",
             "expected a non-empty array of style file paths, got " + describe(s));
      return;
    }
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (!s[i].is_string() || s[i].get<std::string>().empty()) {
        r.fail(path + "/styles/" + std::to_string(i),
               "expected a style file path (string), got " + describe(s[i]));
        return;
      }
      c.style_files.push_back(s[i].get<std::string>());
    }
  }
  if (!j.contains("tag_volumes")) return;
  const json& t = j["tag_volumes"];
  if (!t.is_array()) {
    r.fail(path + "/tag_volumes", "expected an array of tag volumes, got " + describe(t));
    return;
  }
  for (std::size_t i = 0; i < t.size() && !r.failed(); ++i) {
    const std::string tp = path + "/tag_volumes/" + std::to_string(i);
    if (!r.object(t[i], tp, {"tag", "polygon", "z_m"})) return;
    buildings::TagVolume v;
    r.string(t[i], "tag", tp, v.tag);
    if (!r.failed() && v.tag != "fire_escape" &&
        !(v.tag.rfind("brand:", 0) == 0 && v.tag.size() > 6)) {
      r.fail(tp + "/tag", "expected \"fire_escape\" or \"brand:<name>\", got \"" + v.tag + "\"");
      return;
    }
    if (!t[i].contains("polygon")) {
      r.fail(tp, "missing key 'polygon'");
      return;
    }
    v.area.outer = read_points(r, t[i]["polygon"], tp + "/polygon");
    if (!r.failed() && (v.area.outer.size() < 3 || !polygon_is_valid(v.area))) {
      r.fail(tp + "/polygon", "expected a simple polygon of >= 3 points");
      return;
    }
    if (t[i].contains("z_m")) {
      const json& z = t[i]["z_m"];
      if (!z.is_array() || z.size() != 2 || !z[0].is_number() || !z[1].is_number() ||
          !(z[0].get<double>() <= z[1].get<double>())) {
        r.fail(tp + "/z_m",
               "expected [lo, hi] in metres above the building base, got " + describe(z));
        return;
      }
      v.z0_m = z[0].get<double>();
      v.z1_m = z[1].get<double>();
    }
    c.tag_volumes.push_back(std::move(v));
  }
}

// The `dressing` object: biome files and spacing rules.
void read_dressing(Reader& r, const json& j, DressingSettings& c) {
  const std::string path = "/dressing";
  if (!r.object(j, path,
                {"biomes", "tile_m", "ground_tile_m", "light_spacing_m", "tree_spacing_m",
                 "park_tree_spacing_m", "hydrant_spacing_m", "bin_spacing_m", "bench_spacing_m",
                 "bus_stop_spacing_m", "parking_spot_m", "audio_grid_m", "audio_radius_m"}))
    return;
  dressing::Config& d = c.rules;
  r.number(j, "tile_m", path, d.tile_m, 0.2, 20);
  r.number(j, "ground_tile_m", path, d.ground_tile_m, 0.5, 50);
  r.number(j, "tree_spacing_m", path, d.tree_spacing_m, 2, 500);
  r.number(j, "park_tree_spacing_m", path, d.park_tree_spacing_m, 1, 500);
  r.number(j, "hydrant_spacing_m", path, d.hydrant_spacing_m, 5, 5000);
  r.number(j, "bin_spacing_m", path, d.bin_spacing_m, 5, 5000);
  r.number(j, "bench_spacing_m", path, d.bench_spacing_m, 5, 5000);
  r.number(j, "bus_stop_spacing_m", path, d.bus_stop_spacing_m, 50, 50000);
  r.number(j, "parking_spot_m", path, d.parking_spot_m, 2, 30);
  r.number(j, "audio_grid_m", path, d.audio_grid_m, 1, 100);
  r.number(j, "audio_radius_m", path, d.audio_radius_m, 1, 1000);
  if (!r.failed() && j.contains("light_spacing_m")) {
    const json& a = j["light_spacing_m"];
    const std::string p = path + "/light_spacing_m";
    if (!a.is_array() || a.size() != 3) {
      r.fail(p, "expected [artery, main, local] spacings in metres, got " + describe(a));
      return;
    }
    for (std::size_t i = 0; i < 3; ++i)
      r.number_at(a[i], p + "/" + std::to_string(i), d.light_spacing_m[i], 5, 1000);
  }
  if (!r.failed() && j.contains("biomes")) {
    const json& b = j["biomes"];
    if (!b.is_array()) {
      r.fail(path + "/biomes", "expected an array of biome file paths, got " + describe(b));
      return;
    }
    for (std::size_t i = 0; i < b.size(); ++i) {
      std::string file;
      if (!r.string_at(b[i], path + "/biomes/" + std::to_string(i), file)) return;
      c.biome_files.push_back(file);
    }
  }
}

// The `rooftops` object: WFC rooftops on flat roofs (limits as in rooftops::RooftopConfig).
void read_rooftops(Reader& r, const json& j, rooftops::RooftopConfig& c) {
  const std::string path = "/rooftops";
  if (!r.object(j, path,
                {"enabled", "cell_m", "level_m", "levels", "min_area_m2", "inset_m",
                 "backtrack_budget", "max_restarts"})) {
    return;
  }
  if (j.contains("enabled")) {
    if (!j["enabled"].is_boolean()) {
      r.fail(path + "/enabled", "expected true or false, got " + describe(j["enabled"]));
      return;
    }
    c.enabled = j["enabled"].get<bool>();
  }
  r.number(j, "cell_m", path, c.cell_m, 1.5, 10);
  r.number(j, "level_m", path, c.level_m, 1.5, 10);
  int levels = static_cast<int>(c.levels);
  r.integer(j, "levels", path, levels, 1, 4);
  c.levels = static_cast<std::uint32_t>(levels);
  r.number(j, "min_area_m2", path, c.min_area_m2, 0, 1e6);
  r.number(j, "inset_m", path, c.inset_m, 0, 10);
  r.count(j, "backtrack_budget", path, c.backtrack_budget, 100000);
  r.count(j, "max_restarts", path, c.max_restarts, 100);
}

void read_zones(Reader& r, const json& j, std::vector<layout::Zone>& zones) {
  if (!j.is_array()) {
    r.fail("/zones", "expected an array of zones, got " + describe(j));
    return;
  }
  for (std::size_t i = 0; i < j.size() && !r.failed(); ++i) {
    const std::string path = "/zones/" + std::to_string(i);
    const json& z = j[i];
    if (!r.object(z, path, {"name", "kind", "polygon", "height_m", "density"})) return;
    layout::Zone zone;
    r.string(z, "name", path, zone.name);
    std::string kind;
    if (!z.contains("kind")) {
      r.fail(path, "missing key 'kind' (downtown, commercial, residential, industrial or park)");
      return;
    }
    r.string(z, "kind", path, kind);
    bool found = false;
    for (std::size_t k = 0; k < layout::kZoneKindCount; ++k) {
      if (kind == layout::to_string(static_cast<layout::ZoneKind>(k))) {
        zone.kind = static_cast<layout::ZoneKind>(k);
        found = true;
      }
    }
    if (!found && !r.failed()) {
      r.fail(path + "/kind",
             "unknown zone kind '" + kind +
                 "'; expected downtown, commercial, residential, industrial or park");
      return;
    }
    if (!z.contains("polygon")) {
      r.fail(path, "missing key 'polygon'");
      return;
    }
    zone.area.outer = read_points(r, z["polygon"], path + "/polygon");
    if (z.contains("height_m")) {
      const json& h = z["height_m"];
      if (!h.is_array() || h.size() != 2 || !h[0].is_number() || !h[1].is_number()) {
        r.fail(path + "/height_m", "expected [min, max] in metres, got " + describe(h));
        return;
      }
      zone.min_height_m = h[0].get<double>();
      zone.max_height_m = h[1].get<double>();
    }
    r.number(z, "density", path, zone.density, 0, 1);
    zones.push_back(std::move(zone));
  }
}

// nlohmann reports a byte offset; users want line and column.
// The `freeways` array: {name, points [[x, y, height above ground], ...], lanes_per_direction,
// design_speed_kmh}; points inside the boundary (1 m tolerance).
void read_freeways(Reader& r, const json& j, const Polygon& boundary,
                   std::vector<freeway::FreewayCurve>& out) {
  if (!j.is_array()) {
    r.fail("/freeways", "expected an array of freeways, got " + describe(j));
    return;
  }
  Ring limit = boundary.outer;
  if (!limit.empty()) limit.push_back(limit.front());
  for (std::size_t i = 0; !r.failed() && i < j.size(); ++i) {
    const std::string path = "/freeways/" + std::to_string(i);
    if (!r.object(j[i], path, {"name", "points", "lanes_per_direction", "design_speed_kmh"})) {
      return;
    }
    freeway::FreewayCurve f;
    r.string(j[i], "name", path, f.name);
    r.integer(j[i], "lanes_per_direction", path, f.lanes_per_direction, 1, 6);
    r.number(j[i], "design_speed_kmh", path, f.design_speed_kmh, 20, 200);
    if (!j[i].contains("points")) {
      r.fail(path, "missing key 'points': a freeway needs [[x, y, height_above_ground], ...]");
      return;
    }
    const json& pts = j[i]["points"];
    if (!pts.is_array() || pts.size() < 2) {
      r.fail(path + "/points",
             "expected an array of >= 2 points [x, y, height_above_ground], got " + describe(pts));
      return;
    }
    for (std::size_t k = 0; !r.failed() && k < pts.size(); ++k) {
      const json& p = pts[k];
      const std::string pp = path + "/points/" + std::to_string(k);
      if (!p.is_array() || p.size() != 3 || !p[0].is_number() || !p[1].is_number() ||
          !p[2].is_number()) {
        r.fail(pp,
               "expected a point [x, y, height_above_ground] of three numbers, got " + describe(p));
        return;
      }
      const Vec3 v{p[0].get<double>(), p[1].get<double>(), p[2].get<double>()};
      if (!std::isfinite(v.x) || !std::isfinite(v.y) || std::fabs(v.x) > 1e7 ||
          std::fabs(v.y) > 1e7) {
        r.fail(pp,
               "coordinate (" + fmt(v.x) + ", " + fmt(v.y) + ") is not finite or beyond +-1e7 m");
        return;
      }
      if (!std::isfinite(v.z) || v.z < 0 || v.z > 200) {
        r.fail(pp, "expected a height above ground in [0, 200] m, got " + fmt(v.z));
        return;
      }
      const Vec2 xy{v.x, v.y};
      if (!ring_contains(boundary.outer, xy) && polyline_distance(limit, xy) > 1.0) {
        r.fail(pp, "point (" + fmt(v.x) + ", " + fmt(v.y) +
                       ") is outside the boundary; freeways must stay inside the city");
        return;
      }
      f.points.push_back(v);
    }
    out.push_back(std::move(f));
  }
}

// The `crowd` object: static shepherd groups and the wandering shepherd.
void read_crowd(Reader& r, const json& j, CrowdSettings& c) {
  const std::string path = "/crowd";
  if (!r.object(j, path, {"shepherds", "wandering"})) return;
  c.present = true;
  if (j.contains("shepherds")) {
    const json& s = j["shepherds"];
    if (!s.is_array()) {
      r.fail(path + "/shepherds", "expected an array of shepherd groups, got " + describe(s));
      return;
    }
    std::set<std::string> names;
    for (std::size_t i = 0; i < s.size() && !r.failed(); ++i) {
      const std::string sp = path + "/shepherds/" + std::to_string(i);
      if (!r.object(s[i], sp, {"name", "polygon", "count", "density", "behaviour", "variant_mix"},
                    {"name", "polygon", "count"})) {
        return;
      }
      ShepherdSetting g;
      r.string(s[i], "name", sp, g.name);
      if (!r.failed() && (g.name.empty() || !names.insert(g.name).second)) {
        r.fail(sp + "/name",
               "expected a unique, non-empty group name (it keys the group's "
               "random positions), got \"" +
                   g.name + "\"");
        return;
      }
      Polygon poly{read_points(r, s[i]["polygon"], sp + "/polygon"), {}};
      if (!r.failed() && (poly.outer.size() < 3 || !polygon_is_valid(poly))) {
        r.fail(sp + "/polygon", "expected a simple polygon of >= 3 points [x, y]");
        return;
      }
      g.polygon = std::move(poly.outer);
      r.count(s[i], "count", sp, g.count, 1000000);
      r.number(s[i], "density", sp, g.density, 0, 10);
      r.string(s[i], "behaviour", sp, g.behaviour);
      if (!r.failed() && g.behaviour != "idle" && g.behaviour != "look_around") {
        r.fail(sp + "/behaviour",
               "expected \"idle\" or \"look_around\", got \"" + g.behaviour + "\"");
        return;
      }
      if (!r.failed() && s[i].contains("variant_mix")) {
        const json& m = s[i]["variant_mix"];
        const std::string mp = sp + "/variant_mix";
        if (!m.is_array() || m.empty() || m.size() > 256) {
          r.fail(mp, "expected an array of 1 to 256 weights (one per variant), got " + describe(m));
          return;
        }
        double total = 0;
        for (std::size_t k = 0; k < m.size(); ++k) {
          double w = 0;
          r.number_at(m[k], mp + "/" + std::to_string(k), w, 0, 1e6);
          g.variant_mix.push_back(w);
          total += w;
        }
        if (!r.failed() && total <= 0) {
          r.fail(mp, "expected at least one positive weight");
          return;
        }
      }
      c.shepherds.push_back(std::move(g));
    }
  }
  if (!r.failed() && j.contains("wandering")) {
    const json& w = j["wandering"];
    const std::string wp = path + "/wandering";
    if (!r.object(w, wp, {"paths", "members", "min_length_m"})) return;
    r.count(w, "paths", wp, c.wandering.paths, 10000);
    r.count(w, "members", wp, c.wandering.members, 1000000);
    r.number(w, "min_length_m", wp, c.wandering.min_length_m, 0, 1e5);
    if (!r.failed() && c.wandering.members > 0 && c.wandering.paths == 0) {
      r.fail(wp + "/paths",
             "expected >= 1 path for " + std::to_string(c.wandering.members) + " members, got 0");
    }
  }
}

std::string line_col(std::string_view text, std::size_t byte) {
  std::size_t line = 1;
  std::size_t col = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return std::to_string(line) + ":" + std::to_string(col);
}

json to_json(const layout::RoadClassSpec& c) {
  return {{"width_m", c.width_m},
          {"lanes_per_direction", c.lanes_per_direction},
          {"sidewalk_width_m", c.sidewalk_width_m},
          {"speed_limit_kmh", c.speed_limit_kmh},
          {"corner_radius_m", c.corner_radius_m}};
}

json points_json(const std::vector<Vec2>& pts) {
  json a = json::array();
  for (Vec2 p : pts)
    a.push_back({p.x, p.y});
  return a;
}

}  // namespace

const char* to_string(RoadModules m) { return m == RoadModules::instanced ? "instanced" : "baked"; }

const char* to_string(InstanceMode m) {
  switch (m) {
    case InstanceMode::nodes:
      return "nodes";
    case InstanceMode::bake:
      return "bake";
    case InstanceMode::ext:
      break;
  }
  return "ext";
}

bool instance_mode_from_string(std::string_view name, InstanceMode* out) {
  for (const InstanceMode m : {InstanceMode::ext, InstanceMode::nodes, InstanceMode::bake}) {
    if (name == to_string(m)) {
      *out = m;
      return true;
    }
  }
  return false;
}

Result<CityConfig> parse_city_config(std::string_view text, const std::string& source) {
  // 1. Syntax.
  json doc;
  try {
    doc = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    const auto pos = what.find("syntax error");
    return Error::invalid_input(
        source + ":" + line_col(text, e.byte > 0 ? e.byte - 1 : 0),
        "malformed JSON: " + (pos == std::string::npos ? what : what.substr(pos)));
  } catch (const json::exception& e) {
    // Numbers beyond double range ("1e999") are reported without a position.
    std::string what = e.what();
    const auto pos = what.find("] ");
    return Error::invalid_input(
        source, "malformed JSON: " + (pos == std::string::npos ? what : what.substr(pos + 2)));
  }
  // 2. Structure, types and ranges.
  Reader r(source);
  CityConfig c;
  if (!r.object(doc, "",
                {"name", "description", "seed", "boundary", "arteries", "zones", "water", "terrain",
                 "layout", "roads", "export", "freeways", "lots", "buildings", "rooftops",
                 "dressing", "crowd"})) {
    return r.error();
  }
  r.string(doc, "name", "", c.name);
  if (doc.contains("seed")) {
    if (!doc["seed"].is_number_unsigned()) {
      r.fail("/seed", "expected a non-negative integer, got " + describe(doc["seed"]));
    } else {
      c.seed = doc["seed"].get<std::uint64_t>();
    }
  }
  if (!doc.contains("boundary")) {
    r.fail("/boundary", "missing key 'boundary': the city needs a boundary polygon [[x, y], ...]");
  } else {
    c.inputs.boundary.outer = read_points(r, doc["boundary"], "/boundary");
  }
  if (doc.contains("arteries")) {
    const json& a = doc["arteries"];
    if (!a.is_array()) r.fail("/arteries", "expected an array of arteries, got " + describe(a));
    for (std::size_t i = 0; !r.failed() && i < a.size(); ++i) {
      const std::string path = "/arteries/" + std::to_string(i);
      if (!r.object(a[i], path, {"name", "points"})) break;
      layout::ArteryCurve curve;
      r.string(a[i], "name", path, curve.name);
      if (!a[i].contains("points"))
        r.fail(path, "missing key 'points'");
      else
        curve.points = read_points(r, a[i]["points"], path + "/points");
      c.inputs.arteries.push_back(std::move(curve));
    }
  }
  if (!r.failed()) {
    if (!doc.contains("zones")) {
      r.fail("/zones", "missing key 'zones': at least one zoning region is expected");
    } else {
      read_zones(r, doc["zones"], c.inputs.zones);
    }
  }
  if (!r.failed() && doc.contains("water")) {
    const json& w = doc["water"];
    if (!w.is_array()) r.fail("/water", "expected an array of polygons, got " + describe(w));
    for (std::size_t i = 0; !r.failed() && i < w.size(); ++i) {
      c.inputs.water.push_back(Polygon{read_points(r, w[i], "/water/" + std::to_string(i)), {}});
    }
  }
  if (!r.failed() && doc.contains("terrain")) read_terrain(r, doc["terrain"], c.terrain);
  if (!r.failed() && doc.contains("layout")) read_layout(r, doc["layout"], c.layout);
  if (!r.failed() && doc.contains("roads")) read_roads(r, doc["roads"], c.roads);
  if (!r.failed() && doc.contains("export")) read_export(r, doc["export"], c.exports);
  if (!r.failed() && doc.contains("freeways"))
    read_freeways(r, doc["freeways"], c.inputs.boundary, c.freeways);
  if (!r.failed() && doc.contains("lots")) read_lots(r, doc["lots"], c.lots);
  if (!r.failed() && doc.contains("buildings")) read_buildings(r, doc["buildings"], c.buildings);
  if (!r.failed() && doc.contains("rooftops")) read_rooftops(r, doc["rooftops"], c.rooftops);
  if (!r.failed() && doc.contains("dressing")) read_dressing(r, doc["dressing"], c.dressing);
  if (!r.failed() && doc.contains("crowd")) read_crowd(r, doc["crowd"], c.crowd);
  if (r.failed()) return r.error();
  if (c.buildings.style_files.empty())
    c.buildings.style_sources = buildings::builtin_style_sources();
  if (c.dressing.biome_files.empty()) c.dressing.biome_sources = dressing::builtin_biome_sources();
  // Markings are draped on the carriageway as the exporter draws it: one road height for both.
  c.roads.road_raise_m = c.exports.road_raise_m;
  c.roads.block_raise_m = c.exports.block_raise_m;
  // Props stand on the sidewalks and blocks the exporter draws.
  c.dressing.rules.surface_raise_m = c.exports.block_raise_m;
  // 3. Semantics (simple polygons, arteries inside, zones): the layout's own validation, with
  //    its element names turned into JSON pointers of this file.
  if (Status s = layout::validate(c.inputs, c.layout); !s) {
    std::string where = s.error().where;
    for (char& ch : where) {
      if (ch == '.' || ch == '[') ch = '/';
    }
    std::erase(where, ']');
    return Error::invalid_input(source + ": /" + where, s.error().message);
  }
  return c;
}

std::string config_slice(const CityConfig& c, std::string_view slice) {
  json j;
  if (slice == "terrain") {
    const terrain::Config& t = c.terrain;
    j = {{"amplitude_m", t.amplitude_m}, {"scale_m", t.scale_m}, {"octaves", t.octaves},
         {"persistence", t.persistence}, {"cell_m", t.cell_m},   {"margin_m", t.margin_m}};
  } else if (slice == "boundary_box") {
    const Aabb2 b = ring_bounds(c.inputs.boundary.outer);
    j = {b.min.x, b.min.y, b.max.x, b.max.y};
  } else if (slice == "layout") {
    const layout::Config& l = c.layout;
    json classes;
    for (std::size_t i = 0; i < layout::kRoadClassCount; ++i) {
      classes[layout::to_string(static_cast<layout::RoadClass>(i))] = to_json(l.classes[i]);
    }
    j = {{"classes", classes},
         {"block_short_m", l.block_short_m},
         {"block_long_m", l.block_long_m},
         {"block_size_tolerance", l.block_size_tolerance},
         {"main_road_every", l.main_road_every},
         {"corridor_m", l.corridor_m},
         {"artery_to_limit_m", l.artery_to_limit_m},
         {"cost_cell_m", l.cost_cell_m},
         {"slope_weight", l.slope_weight},
         {"curve_weight", l.curve_weight},
         {"merge_distance_m", l.merge_distance_m},
         {"min_dangling_m", l.min_dangling_m},
         {"min_block_area_m2", l.min_block_area_m2},
         {"zoning_cell_m", l.zoning_cell_m},
         {"default_height_m", l.default_height_m},
         {"default_density", l.default_density}};
  } else if (slice == "inputs") {
    j["boundary"] = points_json(c.inputs.boundary.outer);
    j["arteries"] = json::array();
    for (const auto& a : c.inputs.arteries)
      j["arteries"].push_back({{"name", a.name}, {"points", points_json(a.points)}});
    j["zones"] = json::array();
    for (const auto& z : c.inputs.zones) {
      j["zones"].push_back({{"name", z.name},
                            {"kind", layout::to_string(z.kind)},
                            {"polygon", points_json(z.area.outer)},
                            {"height_m", {z.min_height_m, z.max_height_m}},
                            {"density", z.density}});
    }
    j["water"] = json::array();
    for (const auto& w : c.inputs.water)
      j["water"].push_back(points_json(w.outer));
  } else if (slice == "zoning") {
    j["boundary"] = points_json(c.inputs.boundary.outer);
    j["zones"] = json::array();
    for (const auto& z : c.inputs.zones) {
      j["zones"].push_back({{"kind", layout::to_string(z.kind)},
                            {"polygon", points_json(z.area.outer)},
                            {"height_m", {z.min_height_m, z.max_height_m}},
                            {"density", z.density}});
    }
    j["zoning_cell_m"] = c.layout.zoning_cell_m;
    j["default_height_m"] = c.layout.default_height_m;
    j["default_density"] = c.layout.default_density;
  } else if (slice == "roads") {
    const roads::Config& r = c.roads;
    j = {
        {"module_lengths_m", {r.module_lengths_m[0], r.module_lengths_m[1], r.module_lengths_m[2]}},
        {"min_module_scale", r.min_module_scale},
        {"max_module_scale", r.max_module_scale},
        {"crown_m", r.crown_m},
        {"skirt_m", r.skirt_m},
        {"curb_height_m", r.curb_height_m},
        {"min_trim_m", r.min_trim_m},
        {"crosswalk_width_m", r.crosswalk_width_m},
        {"stop_line_gap_m", r.stop_line_gap_m},
        {"lane_width_m", r.lane_width_m},
        {"yellow_s", r.yellow_s},
        {"all_red_s", r.all_red_s},
        {"min_green_s", r.min_green_s},
        {"pedestrian_walk_s", r.pedestrian_walk_s}};
  } else if (slice == "freeways") {
    j = json::array();
    for (const auto& f : c.freeways) {
      json pts = json::array();
      for (Vec3 p : f.points)
        pts.push_back({p.x, p.y, p.z});
      j.push_back({{"name", f.name},
                   {"points", pts},
                   {"lanes_per_direction", f.lanes_per_direction},
                   {"design_speed_kmh", f.design_speed_kmh}});
    }
  } else if (slice == "lots") {
    const lots::Config& l = c.lots;
    json mix = json::object();
    for (std::size_t i = 0; i < lots::kFootprintShapeCount; ++i)
      mix[lots::to_string(static_cast<lots::FootprintShape>(i))] = l.footprint_mix[i];
    j = {{"min_lot_area_m2", l.min_lot_area_m2},
         {"max_lot_depth_m", l.max_lot_depth_m},
         {"base_lot_area_m2", l.base_lot_area_m2},
         {"area_per_height_m", l.area_per_height_m},
         {"area_jitter", l.area_jitter},
         {"narrow_height_m", l.narrow_height_m},
         {"narrow_share", l.narrow_share},
         {"narrow_min_width_m", l.narrow_min_width_m},
         {"narrow_max_width_m", l.narrow_max_width_m},
         {"max_aspect", l.max_aspect},
         {"min_compactness", l.min_compactness},
         {"frontage_tolerance_m", l.frontage_tolerance_m},
         {"building_gap_m", l.building_gap_m},
         {"lot_gap_m", l.lot_gap_m},
         {"height_jitter", l.height_jitter},
         {"footprint_mix", mix}};
  } else if (slice == "styles") {
    // The texts themselves: editing a style re-runs lots and buildings, nothing before.
    j = json::array();
    for (const auto& [file, text] : c.buildings.style_sources)
      j.push_back({{"file", file}, {"hash", std::to_string(hash_string(text))}});
  } else if (slice == "buildings") {
    j["tag_volumes"] = json::array();
    for (const auto& v : c.buildings.tag_volumes) {
      j["tag_volumes"].push_back(
          {{"tag", v.tag}, {"polygon", points_json(v.area.outer)}, {"z_m", {v.z0_m, v.z1_m}}});
    }
    const buildings::Config& g = c.buildings.generator;
    j["occlusion_push_m"] = g.occlusion_push_m;
    j["entrance_depth_m"] = g.entrance_depth_m;
  } else if (slice == "rooftops") {
    const rooftops::RooftopConfig& rt = c.rooftops;
    j = {{"enabled", rt.enabled},
         {"cell_m", rt.cell_m},
         {"level_m", rt.level_m},
         {"levels", rt.levels},
         {"min_area_m2", rt.min_area_m2},
         {"inset_m", rt.inset_m},
         {"backtrack_budget", rt.backtrack_budget},
         {"max_restarts", rt.max_restarts}};
  } else if (slice == "dressing") {
    const dressing::Config& d = c.dressing.rules;
    j = {{"tile_m", d.tile_m},
         {"tile_variants", d.tile_variants},
         {"ground_tile_m", d.ground_tile_m},
         {"light_spacing_m", {d.light_spacing_m[0], d.light_spacing_m[1], d.light_spacing_m[2]}},
         {"light_curb_offset_m", d.light_curb_offset_m},
         {"tree_spacing_m", d.tree_spacing_m},
         {"park_tree_spacing_m", d.park_tree_spacing_m},
         {"hydrant_spacing_m", d.hydrant_spacing_m},
         {"bin_spacing_m", d.bin_spacing_m},
         {"bench_spacing_m", d.bench_spacing_m},
         {"bus_stop_spacing_m", d.bus_stop_spacing_m},
         {"parking_spot_m", d.parking_spot_m},
         {"audio_grid_m", d.audio_grid_m},
         {"audio_radius_m", d.audio_radius_m},
         {"audio_rays", d.audio_rays}};
    j["biomes"] = json::array();
    for (const auto& [file, text] : c.dressing.biome_sources)
      j["biomes"].push_back({{"file", file}, {"hash", std::to_string(hash_string(text))}});
  } else if (slice == "export") {
    const ExportSettings& e = c.exports;
    j = {{"chunk_m", e.chunk_m},
         {"volume_setback_m", e.volume_setback_m},
         {"block_raise_m", e.block_raise_m},
         {"road_raise_m", e.road_raise_m},
         {"road_modules", to_string(e.road_modules)},
         {"instances", to_string(e.instances)}};
  }
  return j.dump();
}

}  // namespace cityforge::pipeline
