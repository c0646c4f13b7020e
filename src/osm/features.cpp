// SPDX-License-Identifier: Apache-2.0
// Land use, water, street furniture, trees, barriers and paths of an imported place: the set
// dressing's mapped input (seeds/004). Areas are classified by their tags into a GroundKind and
// clipped to the imported area; tagged nodes become catalogue props; barrier ways become
// polylines; paths come from the network build.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <numbers>
#include <string>
#include <string_view>

#include "cityforge/osm/osm.hpp"

namespace cityforge::osm {
namespace {

using dressing::BarrierKind;
using dressing::GroundKind;

struct Rule {
  std::string_view key;
  std::string_view value;
  GroundKind kind;
};

// First match wins: water first (a reservoir in a park is water), then the natural cover, then
// leisure and land use, then paved places.
constexpr Rule kAreaRules[] = {
    {"natural", "water", GroundKind::water},
    {"waterway", "riverbank", GroundKind::water},
    {"waterway", "dock", GroundKind::water},
    {"landuse", "reservoir", GroundKind::water},
    {"landuse", "basin", GroundKind::water},
    {"leisure", "swimming_pool", GroundKind::water},
    {"natural", "wood", GroundKind::forest},
    {"natural", "scrub", GroundKind::scrub},
    {"natural", "heath", GroundKind::scrub},
    {"natural", "grassland", GroundKind::grass},
    {"natural", "sand", GroundKind::sand},
    {"natural", "beach", GroundKind::sand},
    {"natural", "bare_rock", GroundKind::bare},
    {"natural", "scree", GroundKind::bare},
    {"natural", "shingle", GroundKind::bare},
    {"leisure", "park", GroundKind::park},
    {"leisure", "garden", GroundKind::grass},
    {"leisure", "pitch", GroundKind::grass},
    {"leisure", "playground", GroundKind::grass},
    {"leisure", "common", GroundKind::grass},
    {"leisure", "dog_park", GroundKind::grass},
    {"landuse", "forest", GroundKind::forest},
    {"landuse", "grass", GroundKind::grass},
    {"landuse", "meadow", GroundKind::grass},
    {"landuse", "village_green", GroundKind::grass},
    {"landuse", "recreation_ground", GroundKind::grass},
    {"landuse", "flowerbed", GroundKind::grass},
    {"landuse", "farmland", GroundKind::farmland},
    {"landuse", "orchard", GroundKind::farmland},
    {"landuse", "vineyard", GroundKind::farmland},
    {"landuse", "allotments", GroundKind::farmland},
    {"landuse", "plant_nursery", GroundKind::farmland},
    {"landuse", "quarry", GroundKind::bare},
    {"landuse", "construction", GroundKind::bare},
    {"landuse", "brownfield", GroundKind::bare},
    {"landuse", "cemetery", GroundKind::cemetery},
    {"amenity", "grave_yard", GroundKind::cemetery},
    {"amenity", "parking", GroundKind::pavement},
    {"place", "square", GroundKind::pavement},
    {"highway", "pedestrian", GroundKind::pavement},
    {"area:highway", "pedestrian", GroundKind::pavement},
    {"amenity", "marketplace", GroundKind::pavement},
};

struct PropRule {
  std::string_view key;
  std::string_view value;
  std::string_view prop;
  bool face_road;
};

constexpr PropRule kPropRules[] = {
    {"natural", "tree", "park_tree", false},    {"amenity", "bench", "bench", true},
    {"amenity", "waste_basket", "bin", true},   {"amenity", "bicycle_parking", "bike_rack", true},
    {"amenity", "fountain", "fountain", false}, {"highway", "street_lamp", "street_light", true},
    {"highway", "bus_stop", "bus_stop", true},  {"emergency", "fire_hydrant", "hydrant", true},
    {"barrier", "bollard", "bollard", false},   {"public_transport", "platform", "bus_stop", true},
};

struct BarrierRule {
  std::string_view value;
  BarrierKind kind;
};

constexpr BarrierRule kBarrierRules[] = {
    {"wall", BarrierKind::wall},           {"city_wall", BarrierKind::wall},
    {"retaining_wall", BarrierKind::wall}, {"fence", BarrierKind::fence},
    {"hedge", BarrierKind::hedge},         {"guard_rail", BarrierKind::guard_rail},
    {"kerb", BarrierKind::kerb},           {"jersey_barrier", BarrierKind::guard_rail},
};

bool ground_kind(const Tags& tags, GroundKind* kind) {
  // Buildings (a parking garage, a covered market) are the buildings' business.
  if (!tag(tags, "building").empty() && tag(tags, "building") != "no") return false;
  for (const Rule& r : kAreaRules) {
    if (tag(tags, r.key) == r.value) {
      // A pedestrian highway is an area only as a closed way tagged area=yes or a multipolygon.
      *kind = r.kind;
      return true;
    }
  }
  return false;
}

bool barrier_kind(const Tags& tags, BarrierKind* kind) {
  const std::string_view v = tag(tags, "barrier");
  for (const BarrierRule& r : kBarrierRules) {
    if (v == r.value) {
      *kind = r.kind;
      return true;
    }
  }
  return false;
}

// A positive number at the start of `text` ("2", "1.5 m", "2.5m"); 0 when there is none.
double leading_number(std::string_view text) {
  while (!text.empty() && text.front() == ' ')
    text.remove_prefix(1);
  double v = 0.0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr == text.data() || !std::isfinite(v) || v <= 0.0) return 0.0;
  return v;
}

Polygon box_polygon(const Aabb2& area) {
  Polygon p;
  p.outer = {area.min, {area.max.x, area.min.y}, area.max, {area.min.x, area.max.y}};
  return p;
}

bool inside_box(const Aabb2& area, Vec2 p) {
  return p.x >= area.min.x && p.x <= area.max.x && p.y >= area.min.y && p.y <= area.max.y;
}

// OSM `direction` (compass degrees clockwise from north, or N, NE, ...) as an engine yaw (radians
// counter-clockwise from +x = east); false when absent or unreadable.
bool direction_yaw(const Tags& tags, double* yaw) {
  const std::string_view text = tag(tags, "direction");
  if (text.empty()) return false;
  static constexpr std::array<std::pair<std::string_view, double>, 16> kCardinal{{
      {"N", 0.0},
      {"NNE", 22.5},
      {"NE", 45.0},
      {"ENE", 67.5},
      {"E", 90.0},
      {"ESE", 112.5},
      {"SE", 135.0},
      {"SSE", 157.5},
      {"S", 180.0},
      {"SSW", 202.5},
      {"SW", 225.0},
      {"WSW", 247.5},
      {"W", 270.0},
      {"WNW", 292.5},
      {"NW", 315.0},
      {"NNW", 337.5},
  }};
  double deg = -1.0;
  for (const auto& [name, value] : kCardinal) {
    if (text == name) deg = value;
  }
  if (deg < 0.0) {
    double v = 0.0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v)) return false;
    deg = v;
  }
  *yaw = (90.0 - deg) * std::numbers::pi / 180.0;
  *yaw = std::remainder(*yaw, 2.0 * std::numbers::pi);
  return true;
}

// Warnings: one line per kind of skip with a count and the first example.
struct Skips {
  std::map<std::string, std::pair<std::size_t, std::int64_t>> by_reason;
  void add(const std::string& reason, std::int64_t id) {
    auto [it, added] = by_reason.try_emplace(reason, 0, id);
    ++it->second.first;
  }
  void write(std::vector<std::string>& out) const {
    for (const auto& [reason, entry] : by_reason) {
      out.push_back(std::to_string(entry.first) + " " + reason + " (e.g. osm id " +
                    std::to_string(entry.second) + ")");
    }
  }
};

bool finite_polyline(const Polyline& line) {
  return std::all_of(line.begin(), line.end(),
                     [](Vec2 p) { return std::isfinite(p.x) && std::isfinite(p.y); });
}

void add_barrier(const Polyline& line, BarrierKind kind, double height, std::int64_t id,
                 const Polygon& clip, dressing::Mapped& mapped) {
  for (Polyline& piece : clip_polyline(line, clip)) {
    piece = polyline_dedupe(piece, 1e-6);
    if (piece.size() < 2 || polyline_length(piece) < 0.2) continue;
    dressing::Barrier b;
    b.kind = kind;
    b.points = std::move(piece);
    b.height_m = height;
    b.osm_id = id;
    mapped.barriers.push_back(std::move(b));
  }
}

}  // namespace

FeatureBuild build_features(const Extract& extract, const Aabb2& area,
                            const std::vector<PathWay>& paths) {
  FeatureBuild out;
  dressing::Mapped& mapped = out.mapped;
  const Polygon clip = box_polygon(area);
  Skips skips;

  // 1. Areas: classified, clipped to the imported area (holes kept). Barrier areas (a closed
  //    hedge around a garden) also give their outline as a barrier.
  for (const Area& a : extract.areas) {
    BarrierKind bk{};
    if (barrier_kind(a.tags, &bk)) {
      const double h = leading_number(tag(a.tags, "height"));
      for (const Polygon& poly : a.polygons) {
        if (poly.outer.size() < 3) continue;
        Polyline ring(poly.outer.begin(), poly.outer.end());
        ring.push_back(poly.outer.front());
        if (!finite_polyline(ring)) continue;
        add_barrier(ring, bk, h, a.osm_id, clip, mapped);
      }
    }
    GroundKind kind{};
    if (!ground_kind(a.tags, &kind)) continue;
    bool used = false;
    for (const Polygon& poly : a.polygons) {
      if (poly.outer.size() < 3) {
        skips.add("degenerate area rings skipped", a.osm_id);
        continue;
      }
      for (Polygon& piece : polygon_intersection(poly, clip)) {
        if (polygon_area(piece) < 1.0) continue;
        dressing::GroundArea g;
        g.kind = kind;
        g.area = std::move(piece);
        g.osm_id = a.osm_id;
        mapped.areas.push_back(std::move(g));
        used = true;
      }
    }
    if (!used) continue;
    if (kind == GroundKind::water) {
      ++out.census.water_areas;
    } else {
      ++out.census.ground_areas;
    }
  }

  // 2. Tagged nodes: street furniture and trees inside the area.
  for (const Node& n : extract.nodes) {
    const PropRule* rule = nullptr;
    for (const PropRule& r : kPropRules) {
      if (tag(n.tags, r.key) == r.value) {
        rule = &r;
        break;
      }
    }
    if (rule == nullptr) continue;
    // A platform is a bus stop only where buses stop; a bus_stop node with a platform too is one.
    if (rule->key == "public_transport" && tag(n.tags, "bus") != "yes") continue;
    if (!std::isfinite(n.pos.x) || !std::isfinite(n.pos.y) || !inside_box(area, n.pos)) continue;
    const std::int32_t prop = dressing::find_prop(rule->prop);
    if (prop < 0) {
      skips.add("nodes whose prop is not in the kit skipped", n.id);
      continue;
    }
    dressing::MappedProp p;
    p.prop = static_cast<std::uint32_t>(prop);
    p.position = n.pos;
    p.face_road = rule->face_road;
    p.osm_id = n.id;
    double yaw = 0.0;
    if (direction_yaw(n.tags, &yaw)) {
      p.yaw_rad = yaw;
      p.face_road = false;
    }
    mapped.props.push_back(p);
    if (rule->prop == "park_tree") {
      ++out.census.trees_mapped;
    } else {
      ++out.census.props_mapped;
    }
  }

  // 3. Barrier ways, clipped to the area.
  for (const Way& w : extract.ways) {
    BarrierKind kind{};
    if (!barrier_kind(w.tags, &kind)) continue;
    if (w.points.size() < 2 || !finite_polyline(w.points)) {
      skips.add("barrier ways with fewer than 2 usable points skipped", w.id);
      continue;
    }
    const std::size_t before = mapped.barriers.size();
    add_barrier(w.points, kind, leading_number(tag(w.tags, "height")), w.id, clip, mapped);
    if (mapped.barriers.size() > before) ++out.census.barrier_ways;
  }

  // 4. Paths from the network build; tunnels are underground and not drawn.
  const std::vector<HighwaySpec>& table = highway_table();
  for (const PathWay& pw : paths) {
    if (pw.tunnel || pw.points.size() < 2 || !finite_polyline(pw.points)) continue;
    dressing::MappedPath mp;
    mp.points = pw.points;
    mp.width_m = std::isfinite(pw.width_m) && pw.width_m > 0.0 ? pw.width_m : 2.0;
    if (pw.highway >= 0 && static_cast<std::size_t>(pw.highway) < table.size()) {
      mp.steps = table[static_cast<std::size_t>(pw.highway)].name == "steps";
      mp.cycleway = table[static_cast<std::size_t>(pw.highway)].name == "cycleway";
    }
    mp.osm_id = pw.osm_way;
    mapped.paths.push_back(std::move(mp));
  }

  // 5. A fixed order whatever the extract's: by osm id, then input order (stable).
  std::stable_sort(mapped.areas.begin(), mapped.areas.end(),
                   [](const auto& a, const auto& b) { return a.osm_id < b.osm_id; });
  std::stable_sort(mapped.props.begin(), mapped.props.end(),
                   [](const auto& a, const auto& b) { return a.osm_id < b.osm_id; });
  std::stable_sort(mapped.barriers.begin(), mapped.barriers.end(),
                   [](const auto& a, const auto& b) { return a.osm_id < b.osm_id; });
  mapped.procedural_furniture = false;
  skips.write(out.warnings);
  return out;
}

}  // namespace cityforge::osm
