// SPDX-License-Identifier: Apache-2.0
// The structured values of the city JSON (polygons, arteries, zones, freeways, footprint mix,
// style and biome files, tag volumes, shepherds): their strict readers, every error naming the
// JSON pointer of the offending value, and their canonical text for the cache keys.
#include <cmath>
#include <set>

#include "cityforge/core/format.hpp"
#include "cityforge/core/rng.hpp"
#include "pipeline/detail/config_schema.hpp"

namespace cityforge::pipeline::detail {
namespace {

std::string fmt(double v) { return format_g9(v); }

std::string describe(const json& j) { return cityforge::describe_json(j); }

// obj[key], or null when absent.
const json* value_of(const json& obj, const std::string& key) {
  return obj.contains(key) ? &obj[key] : nullptr;
}

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

json points_json(const std::vector<Vec2>& pts) {
  json a = json::array();
  for (Vec2 p : pts)
    a.push_back({p.x, p.y});
  return a;
}

json polygon_json(const Polygon& p) {
  json holes = json::array();
  for (const Ring& h : p.holes)
    holes.push_back(points_json(h));
  return {{"outer", points_json(p.outer)}, {"holes", holes}};
}

void read_zone(Reader& r, const json& z, const std::string& path, layout::Zone& zone) {
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
    r.fail(path + "/kind", "unknown zone kind '" + kind +
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
}

// One freeway: {name, points [[x, y, height above ground], ...], lanes_per_direction,
// design_speed_kmh}; points inside the boundary (1 m tolerance).
void read_freeway(Reader& r, const json& j, const std::string& path, const Polygon& boundary,
                  const Ring& limit, freeway::FreewayCurve& f) {
  if (!r.object(j, path, {"name", "points", "lanes_per_direction", "design_speed_kmh"})) return;
  r.string(j, "name", path, f.name);
  r.integer(j, "lanes_per_direction", path, f.lanes_per_direction, 1, 6);
  r.number(j, "design_speed_kmh", path, f.design_speed_kmh, 20, 200);
  if (!j.contains("points")) {
    r.fail(path, "missing key 'points': a freeway needs [[x, y, height_above_ground], ...]");
    return;
  }
  const json& pts = j["points"];
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
      r.fail(pp, "coordinate (" + fmt(v.x) + ", " + fmt(v.y) + ") is not finite or beyond +-1e7 m");
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
}

void read_shepherd(Reader& r, const json& j, const std::string& sp, std::set<std::string>& names,
                   ShepherdSetting& g) {
  if (!r.object(j, sp, {"name", "polygon", "count", "density", "behaviour", "variant_mix"},
                {"name", "polygon", "count"})) {
    return;
  }
  r.string(j, "name", sp, g.name);
  if (!r.failed() && (g.name.empty() || !names.insert(g.name).second)) {
    r.fail(sp + "/name",
           "expected a unique, non-empty group name (it keys the group's random positions), "
           "got \"" +
               g.name + "\"");
    return;
  }
  Polygon poly{read_points(r, j["polygon"], sp + "/polygon"), {}};
  if (!r.failed() && (poly.outer.size() < 3 || !polygon_is_valid(poly))) {
    r.fail(sp + "/polygon", "expected a simple polygon of >= 3 points [x, y]");
    return;
  }
  g.polygon = std::move(poly.outer);
  r.count(j, "count", sp, g.count, 1000000);
  r.number(j, "density", sp, g.density, 0, 10);
  r.string(j, "behaviour", sp, g.behaviour);
  if (!r.failed() && g.behaviour != "idle" && g.behaviour != "look_around") {
    r.fail(sp + "/behaviour", "expected \"idle\" or \"look_around\", got \"" + g.behaviour + "\"");
    return;
  }
  if (r.failed() || !j.contains("variant_mix")) return;
  const json& m = j["variant_mix"];
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
  if (!r.failed() && total <= 0) r.fail(mp, "expected at least one positive weight");
}

}  // namespace

void read_seed(const Field&, Reader& r, const json& obj, const std::string& key,
               const std::string& path, void* value, const CityConfig&) {
  const json* v = value_of(obj, key);
  if (v == nullptr) return;
  if (!v->is_number_unsigned()) {
    r.fail(path + "/" + key, "expected a non-negative integer, got " + describe(*v));
    return;
  }
  *static_cast<Seed*>(value) = v->get<std::uint64_t>();
}

void read_boundary(const Field&, Reader& r, const json& obj, const std::string& key,
                   const std::string& path, void* value, const CityConfig&) {
  const json* v = value_of(obj, key);
  if (v == nullptr) {
    r.fail(path + "/" + key,
           "missing key 'boundary': the city needs a boundary polygon [[x, y], ...]");
    return;
  }
  static_cast<Polygon*>(value)->outer = read_points(r, *v, path + "/" + key);
}

void read_arteries(const Field&, Reader& r, const json& obj, const std::string& key,
                   const std::string& path, void* value, const CityConfig&) {
  const json* a = value_of(obj, key);
  if (a == nullptr) return;
  const std::string ap = path + "/" + key;
  if (!a->is_array()) r.fail(ap, "expected an array of arteries, got " + describe(*a));
  auto& out = *static_cast<std::vector<layout::ArteryCurve>*>(value);
  for (std::size_t i = 0; !r.failed() && i < a->size(); ++i) {
    const json& item = (*a)[i];
    const std::string p = ap + "/" + std::to_string(i);
    if (!r.object(item, p, {"name", "points"})) break;
    layout::ArteryCurve curve;
    r.string(item, "name", p, curve.name);
    if (!item.contains("points")) {
      r.fail(p, "missing key 'points'");
    } else {
      curve.points = read_points(r, item["points"], p + "/points");
    }
    out.push_back(std::move(curve));
  }
}

void read_zones(const Field&, Reader& r, const json& obj, const std::string& key,
                const std::string& path, void* value, const CityConfig&) {
  const json* j = value_of(obj, key);
  const std::string zp = path + "/" + key;
  if (j == nullptr) {
    r.fail(zp, "missing key 'zones': at least one zoning region is expected");
    return;
  }
  if (!j->is_array()) {
    r.fail(zp, "expected an array of zones, got " + describe(*j));
    return;
  }
  auto& zones = *static_cast<std::vector<layout::Zone>*>(value);
  for (std::size_t i = 0; i < j->size() && !r.failed(); ++i) {
    const std::string p = zp + "/" + std::to_string(i);
    if (!r.object((*j)[i], p, {"name", "kind", "polygon", "height_m", "density"})) return;
    layout::Zone zone;
    read_zone(r, (*j)[i], p, zone);
    if (!r.failed()) zones.push_back(std::move(zone));
  }
}

void read_water(const Field&, Reader& r, const json& obj, const std::string& key,
                const std::string& path, void* value, const CityConfig&) {
  const json* w = value_of(obj, key);
  if (w == nullptr) return;
  const std::string wp = path + "/" + key;
  if (!w->is_array()) r.fail(wp, "expected an array of polygons, got " + describe(*w));
  auto& out = *static_cast<std::vector<Polygon>*>(value);
  for (std::size_t i = 0; !r.failed() && i < w->size(); ++i)
    out.push_back(Polygon{read_points(r, (*w)[i], wp + "/" + std::to_string(i)), {}});
}

void read_freeways(const Field&, Reader& r, const json& obj, const std::string& key,
                   const std::string& path, void* value, const CityConfig& all) {
  const json* j = value_of(obj, key);
  if (j == nullptr) return;
  const std::string fp = path + "/" + key;
  if (!j->is_array()) {
    r.fail(fp, "expected an array of freeways, got " + describe(*j));
    return;
  }
  const Polygon& boundary = all.inputs.boundary;
  Ring limit = boundary.outer;
  if (!limit.empty()) limit.push_back(limit.front());
  auto& out = *static_cast<std::vector<freeway::FreewayCurve>*>(value);
  for (std::size_t i = 0; !r.failed() && i < j->size(); ++i) {
    freeway::FreewayCurve f;
    read_freeway(r, (*j)[i], fp + "/" + std::to_string(i), boundary, limit, f);
    if (!r.failed()) out.push_back(std::move(f));
  }
}

// {"rectangle": share, ...}: shapes not named get share 0, so the table says the whole mix.
void read_footprint_mix(const Field&, Reader& r, const json& obj, const std::string& key,
                        const std::string& path, void* value, const CityConfig&) {
  const json* m = value_of(obj, key);
  if (r.failed() || m == nullptr) return;
  const std::string mp = path + "/" + key;
  if (!m->is_object()) {
    r.fail(mp, "expected an object {shape name: share}, got " + describe(*m));
    return;
  }
  std::array<double, lots::kFootprintShapeCount> mix{};
  double total = 0.0;
  for (const auto& item : m->items()) {
    lots::FootprintShape shape{};
    if (!lots::footprint_shape_from_string(item.key(), &shape)) {
      std::string names;
      for (std::size_t i = 0; i < lots::kFootprintShapeCount; ++i)
        names += std::string(i ? ", " : "") + lots::to_string(static_cast<lots::FootprintShape>(i));
      r.fail(mp + "/" + item.key(),
             "unknown footprint shape '" + item.key() + "'; expected one of: " + names);
      return;
    }
    r.number(*m, item.key().c_str(), mp, mix[static_cast<std::size_t>(shape)], 0, 1e6);
    total += mix[static_cast<std::size_t>(shape)];
  }
  if (!r.failed() && total <= 0.0) {
    r.fail(mp, "expected at least one shape with a positive share");
    return;
  }
  *static_cast<std::array<double, lots::kFootprintShapeCount>*>(value) = mix;
}

void read_styles(const Field&, Reader& r, const json& obj, const std::string& key,
                 const std::string& path, void* value, const CityConfig&) {
  const json* s = value_of(obj, key);
  if (s == nullptr) return;
  const std::string sp = path + "/" + key;
  if (!s->is_array() || s->empty()) {
    r.fail(sp, "expected a non-empty array of style file paths, got " + describe(*s));
    return;
  }
  auto& files = *static_cast<std::vector<std::string>*>(value);
  for (std::size_t i = 0; i < s->size(); ++i) {
    const json& f = (*s)[i];
    if (!f.is_string() || f.get<std::string>().empty()) {
      r.fail(sp + "/" + std::to_string(i),
             "expected a style file path (string), got " + describe(f));
      return;
    }
    files.push_back(f.get<std::string>());
  }
}

// [{"tag", "polygon": [[x, y], ...], "z_m": [lo, hi]}] (seeds/000, 31:49).
void read_tag_volumes(const Field&, Reader& r, const json& obj, const std::string& key,
                      const std::string& path, void* value, const CityConfig&) {
  const json* t = value_of(obj, key);
  if (r.failed() || t == nullptr) return;
  const std::string vp = path + "/" + key;
  if (!t->is_array()) {
    r.fail(vp, "expected an array of tag volumes, got " + describe(*t));
    return;
  }
  auto& out = *static_cast<std::vector<buildings::TagVolume>*>(value);
  for (std::size_t i = 0; i < t->size() && !r.failed(); ++i) {
    const json& item = (*t)[i];
    const std::string tp = vp + "/" + std::to_string(i);
    if (!r.object(item, tp, {"tag", "polygon", "z_m"})) return;
    buildings::TagVolume v;
    r.string(item, "tag", tp, v.tag);
    if (!r.failed() && v.tag != "fire_escape" &&
        !(v.tag.rfind("brand:", 0) == 0 && v.tag.size() > 6)) {
      r.fail(tp + "/tag", "expected \"fire_escape\" or \"brand:<name>\", got \"" + v.tag + "\"");
      return;
    }
    if (!item.contains("polygon")) {
      r.fail(tp, "missing key 'polygon'");
      return;
    }
    v.area.outer = read_points(r, item["polygon"], tp + "/polygon");
    if (!r.failed() && (v.area.outer.size() < 3 || !polygon_is_valid(v.area))) {
      r.fail(tp + "/polygon", "expected a simple polygon of >= 3 points");
      return;
    }
    if (item.contains("z_m")) {
      const json& z = item["z_m"];
      if (!z.is_array() || z.size() != 2 || !z[0].is_number() || !z[1].is_number() ||
          !(z[0].get<double>() <= z[1].get<double>())) {
        r.fail(tp + "/z_m",
               "expected [lo, hi] in metres above the building base, got " + describe(z));
        return;
      }
      v.z0_m = z[0].get<double>();
      v.z1_m = z[1].get<double>();
    }
    out.push_back(std::move(v));
  }
}

void read_biomes(const Field&, Reader& r, const json& obj, const std::string& key,
                 const std::string& path, void* value, const CityConfig&) {
  const json* b = value_of(obj, key);
  if (r.failed() || b == nullptr) return;
  const std::string bp = path + "/" + key;
  if (!b->is_array()) {
    r.fail(bp, "expected an array of biome file paths, got " + describe(*b));
    return;
  }
  auto& files = *static_cast<std::vector<std::string>*>(value);
  for (std::size_t i = 0; i < b->size(); ++i) {
    std::string file;
    if (!r.string_at((*b)[i], bp + "/" + std::to_string(i), file)) return;
    files.push_back(file);
  }
}

void read_light_spacing(const Field&, Reader& r, const json& obj, const std::string& key,
                        const std::string& path, void* value, const CityConfig&) {
  const json* a = value_of(obj, key);
  if (r.failed() || a == nullptr) return;
  const std::string p = path + "/" + key;
  if (!a->is_array() || a->size() != 3) {
    r.fail(p, "expected [artery, main, local] spacings in metres, got " + describe(*a));
    return;
  }
  auto* spacing = static_cast<double*>(value);
  for (std::size_t i = 0; i < 3; ++i)
    r.number_at((*a)[i], p + "/" + std::to_string(i), spacing[i], 5, 1000);
}

void read_shepherds(const Field&, Reader& r, const json& obj, const std::string& key,
                    const std::string& path, void* value, const CityConfig&) {
  const json* s = value_of(obj, key);
  if (s == nullptr) return;
  const std::string sp = path + "/" + key;
  if (!s->is_array()) {
    r.fail(sp, "expected an array of shepherd groups, got " + describe(*s));
    return;
  }
  auto& out = *static_cast<std::vector<ShepherdSetting>*>(value);
  std::set<std::string> names;
  for (std::size_t i = 0; i < s->size() && !r.failed(); ++i) {
    ShepherdSetting g;
    read_shepherd(r, (*s)[i], sp + "/" + std::to_string(i), names, g);
    if (!r.failed()) out.push_back(std::move(g));
  }
}

void check_narrow_widths(Reader& r, const std::string& path, const void* lots_config) {
  const auto& c = *static_cast<const lots::Config*>(lots_config);
  if (!r.failed() && c.narrow_max_width_m < c.narrow_min_width_m) {
    r.fail(path + "/narrow_max_width_m", "expected >= narrow_min_width_m (" +
                                             fmt(c.narrow_min_width_m) + "), got " +
                                             fmt(c.narrow_max_width_m));
  }
}

void check_wandering(Reader& r, const std::string& path, const void* wandering) {
  const auto& w = *static_cast<const WanderingSetting*>(wandering);
  if (!r.failed() && w.members > 0 && w.paths == 0) {
    r.fail(path + "/paths",
           "expected >= 1 path for " + std::to_string(w.members) + " members, got 0");
  }
}

json polygon_text(const void* value) { return polygon_json(*static_cast<const Polygon*>(value)); }

json arteries_text(const void* value) {
  json j = json::array();
  for (const auto& a : *static_cast<const std::vector<layout::ArteryCurve>*>(value))
    j.push_back({{"name", a.name}, {"points", points_json(a.points)}});
  return j;
}

json zones_text(const void* value) {
  json j = json::array();
  for (const auto& z : *static_cast<const std::vector<layout::Zone>*>(value)) {
    j.push_back({{"name", z.name},
                 {"kind", layout::to_string(z.kind)},
                 {"polygon", polygon_json(z.area)},
                 {"height_m", {z.min_height_m, z.max_height_m}},
                 {"density", z.density}});
  }
  return j;
}

json water_text(const void* value) {
  json j = json::array();
  for (const Polygon& w : *static_cast<const std::vector<Polygon>*>(value))
    j.push_back(polygon_json(w));
  return j;
}

json freeways_text(const void* value) {
  json j = json::array();
  for (const auto& f : *static_cast<const std::vector<freeway::FreewayCurve>*>(value)) {
    json pts = json::array();
    for (Vec3 p : f.points)
      pts.push_back({p.x, p.y, p.z});
    j.push_back({{"name", f.name},
                 {"points", pts},
                 {"lanes_per_direction", f.lanes_per_direction},
                 {"design_speed_kmh", f.design_speed_kmh}});
  }
  return j;
}

json footprint_mix_text(const void* value) {
  const auto& mix = *static_cast<const std::array<double, lots::kFootprintShapeCount>*>(value);
  json j = json::object();
  for (std::size_t i = 0; i < lots::kFootprintShapeCount; ++i)
    j[lots::to_string(static_cast<lots::FootprintShape>(i))] = mix[i];
  return j;
}

// The texts themselves are hashed: editing a style re-runs what reads it, nothing before.
json sources_text(const void* value) {
  json j = json::array();
  for (const auto& [file, text] :
       *static_cast<const std::vector<std::pair<std::string, std::string>>*>(value)) {
    j.push_back({{"file", file}, {"hash", std::to_string(hash_string(text))}});
  }
  return j;
}

json tag_volumes_text(const void* value) {
  json j = json::array();
  for (const auto& v : *static_cast<const std::vector<buildings::TagVolume>*>(value))
    j.push_back({{"tag", v.tag}, {"polygon", polygon_json(v.area)}, {"z_m", {v.z0_m, v.z1_m}}});
  return j;
}

json shepherds_text(const void* value) {
  json j = json::array();
  for (const auto& g : *static_cast<const std::vector<ShepherdSetting>*>(value)) {
    j.push_back({{"name", g.name},
                 {"polygon", points_json(g.polygon)},
                 {"count", g.count},
                 {"density", g.density},
                 {"behaviour", g.behaviour},
                 {"variant_mix", g.variant_mix}});
  }
  return j;
}

}  // namespace cityforge::pipeline::detail
