// SPDX-License-Identifier: Apache-2.0
// Mapped buildings (seeds/004): building=* areas (closed ways and multipolygons with holes) whose
// centroid lies in the imported area become one lot each, whose DNA carries the mapped footprint
// as imported volumes; building:part=* areas inside a building replace its outline (OSM Simple
// 3D Buildings: when a building has parts, the parts are drawn instead of the outline).
//
// Census rules (what the counts of the output are checked against):
//   buildings = building_areas - skipped_invalid - skipped_tiny
//   parts_used <= part_areas (parts outside every building are not drawn)
//   heights_tagged + heights_drawn = buildings
//   sum(roofs_by_shape) = the volumes of all buildings (one roof per volume)
//
// Heights. Tags read: height / building:height ("12", "12.5 m", "40'", "40 ft", "40'6\""),
// building:levels, building:min_level, min_height, roof:height, roof:levels (storeys of
// BuildingConfig::level_m, the ground storey BuildingConfig::ground_level_m). When neither a
// height nor levels are tagged on the building or its part, the levels are drawn from
// Rng(seed, Stage::lots, osm id) by building type and footprint area:
//
//   type (building=*)                                   levels drawn (uniform, inclusive)
//   house, detached, semidetached_house, bungalow,      1 - 2
//     cabin, farm, hut, garage, garages, shed, carport
//   terrace                                             2 - 3
//   residential, apartments, dormitory                  3 - 6
//   retail, supermarket, commercial                     1 - 3   (area > 2000 m2: 2 - 4)
//   office, hotel                                       4 - 10  (area > 1500 m2: 6 - 16)
//   industrial, warehouse, factory, manufacture,        1 - 2   (storeys of 5 m)
//     hangar, storage_tank, service
//   church, cathedral, chapel, mosque, temple,          3 - 5
//     synagogue
//   anything else (yes, ...)                            by area: < 150 m2: 1 - 2,
//                                                       < 600: 2 - 5, < 2000: 3 - 8, else 4 - 12
//
// Roofs: roof:shape (see lots::roof_shape_from_string; unknown values are drawn flat and
// counted in a warning). A pitched roof without roof:height / roof:levels gets 30 % of the
// footprint's width (a dome half of it, a skillion 15 %), at most 60 % of the volume's height.
// roof:direction (degrees from north or N, NNE, ...) is the direction the roof faces; a gabled
// roof's ridge runs across it. roof:orientation=across turns the ridge across the longest axis.
//
// Styles: by class (residential, commercial, industrial; "yes" is commercial from 25 m up),
// the zone kind the class maps to (downtown for commercial from 30 m up) and the height, among
// the styles allowed in that zone whose height band holds the building's height (else any
// style of the zone, else any style), drawn by weight from the same Rng.

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <numbers>
#include <optional>
#include <string>

#include "cityforge/osm/osm.hpp"

namespace cityforge::osm {
namespace {

using lots::RoofShape;

// ---- Tag values ---------------------------------------------------------------------------

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

// A leading decimal number ("12", "12.5", "12,5"); the rest is returned in `rest`.
std::optional<double> leading_number(std::string_view s, std::string_view* rest) {
  s = trim(s);
  std::string text(s);
  std::size_t i = 0;
  while (i < text.size() && ((text[i] >= '0' && text[i] <= '9') || text[i] == '.' ||
                             text[i] == ',' || (i == 0 && text[i] == '-'))) {
    if (text[i] == ',') text[i] = '.';
    ++i;
  }
  double v = 0.0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + i, v);
  if (ec != std::errc() || ptr == text.data() || !std::isfinite(v)) return std::nullopt;
  if (rest != nullptr) *rest = trim(s.substr(static_cast<std::size_t>(ptr - text.data())));
  return v;
}

}  // namespace

/// A length in metres from an OSM value: "12", "12 m", "12m", "40'", "40 ft", "40'6\"".
std::optional<double> parse_height_m(std::string_view value) {
  std::string_view rest;
  const std::optional<double> v = leading_number(value, &rest);
  if (!v) return std::nullopt;
  if (rest.empty() || rest == "m" || rest == "metre" || rest == "metres" || rest == "meter" ||
      rest == "meters") {
    return *v;
  }
  if (rest == "ft" || rest == "feet" || rest == "'") return *v * 0.3048;
  if (rest.front() == '\'') {  // 40'6"
    std::string_view inches_rest;
    const std::optional<double> inches = leading_number(rest.substr(1), &inches_rest);
    if (inches && (inches_rest == "\"" || inches_rest.empty())) {
      return *v * 0.3048 + *inches * 0.0254;
    }
  }
  if (rest == "cm") return *v / 100.0;
  return std::nullopt;
}

namespace {

std::optional<double> parse_count(std::string_view value) {
  std::string_view rest;
  const std::optional<double> v = leading_number(value, &rest);
  if (!v || !rest.empty() || *v < 0.0) return std::nullopt;
  return *v;
}

// roof:direction: degrees clockwise from north, or a compass point. Engine angle (x east, y
// north) of the direction, or NaN.
double parse_direction(std::string_view value) {
  value = trim(value);
  if (value.empty()) return std::numeric_limits<double>::quiet_NaN();
  static constexpr std::array<std::string_view, 16> kPoints{"N",  "NNE", "NE", "ENE", "E",  "ESE",
                                                            "SE", "SSE", "S",  "SSW", "SW", "WSW",
                                                            "W",  "WNW", "NW", "NNW"};
  double deg = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t i = 0; i < kPoints.size(); ++i) {
    if (value == kPoints[i]) deg = 22.5 * static_cast<double>(i);
  }
  if (std::isnan(deg)) {
    std::string_view rest;
    const std::optional<double> v = leading_number(value, &rest);
    if (!v || !rest.empty()) return std::numeric_limits<double>::quiet_NaN();
    deg = *v;
  }
  return std::numbers::pi / 2.0 - deg * std::numbers::pi / 180.0;
}

enum class Kind : std::uint8_t { residential, commercial, industrial };

struct TypeRule {
  std::string_view types;  // Space-separated building=* values.
  int lo = 1;
  int hi = 2;
  double big_area = 0.0;  // Footprints larger than this draw from [big_lo, big_hi].
  int big_lo = 0;
  int big_hi = 0;
  double storey_m = 0.0;  // 0: BuildingConfig::level_m.
  Kind kind = Kind::residential;
};

// The height table of the header comment.
constexpr std::array<TypeRule, 7> kTypeRules{{
    {"house detached semidetached_house bungalow cabin farm hut garage garages shed carport", 1, 2,
     0.0, 0, 0, 0.0, Kind::residential},
    {"terrace", 2, 3, 0.0, 0, 0, 0.0, Kind::residential},
    {"residential apartments dormitory", 3, 6, 0.0, 0, 0, 0.0, Kind::residential},
    {"retail supermarket commercial", 1, 3, 2000.0, 2, 4, 0.0, Kind::commercial},
    {"office hotel", 4, 10, 1500.0, 6, 16, 0.0, Kind::commercial},
    {"industrial warehouse factory manufacture hangar storage_tank service", 1, 2, 0.0, 0, 0, 5.0,
     Kind::industrial},
    {"church cathedral chapel mosque temple synagogue", 3, 5, 0.0, 0, 0, 0.0, Kind::commercial},
}};

const TypeRule* type_rule(std::string_view type) {
  for (const TypeRule& r : kTypeRules) {
    std::string_view list = r.types;
    while (!list.empty()) {
      const std::size_t sp = list.find(' ');
      const std::string_view word = list.substr(0, sp);
      if (word == type) return &r;
      if (sp == std::string_view::npos) break;
      list.remove_prefix(sp + 1);
    }
  }
  return nullptr;
}

// Smallest-area bounding box of a ring: centre, angle of its longer side, sizes (long, short).
struct Box {
  Vec2 centre;
  double angle = 0.0;
  double length = 0.0;
  double width = 0.0;
};

Box min_area_box(const Ring& ring) {
  const Ring hull = convex_hull(ring);
  Box best;
  double best_area = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < hull.size(); ++i) {
    const Vec2 d = hull[(i + 1) % hull.size()] - hull[i];
    if (length(d) < 1e-9) continue;
    const double a = std::atan2(d.y, d.x);
    const Aabb2 b = ring_bounds_rotated(hull, a);
    const Vec2 s = b.size();
    if (s.x * s.y < best_area - 1e-9) {
      best_area = s.x * s.y;
      const Vec2 c = b.center();
      best.centre = rotate(c, a);
      best.angle = s.x >= s.y ? a : a + std::numbers::pi / 2.0;
      best.length = std::max(s.x, s.y);
      best.width = std::min(s.x, s.y);
    }
  }
  return best;
}

// A point inside the polygon: its centroid when inside, else the centroid of its largest
// triangle.
Vec2 inner_point(const Polygon& p) {
  const Vec2 c = ring_centroid(p.outer);
  if (polygon_contains(p, c)) return c;
  const Triangulation t = triangulate(p);
  Vec2 best = c;
  double best_area = -1.0;
  for (std::size_t i = 0; i + 2 < t.indices.size(); i += 3) {
    const Vec2 a = t.points[t.indices[i]];
    const Vec2 b = t.points[t.indices[i + 1]];
    const Vec2 d = t.points[t.indices[i + 2]];
    const double area = 0.5 * std::abs(cross(b - a, d - a));
    if (area > best_area) {
      best_area = area;
      best = (a + b + d) / 3.0;
    }
  }
  return best;
}

// Canonical, valid pieces of a mapped polygon (GEOS make-valid through the union), tiny
// slivers (< 0.5 m2) dropped. Empty when nothing usable is left.
std::vector<Polygon> repaired(const Polygon& raw, bool* was_invalid) {
  Polygon p = polygon_canonical(raw);
  *was_invalid = false;
  if (p.outer.size() >= 3 && polygon_is_valid(p)) return {p};
  *was_invalid = true;
  std::vector<Polygon> out;
  for (Polygon& piece : polygon_union({p})) {
    if (polygon_area(piece) >= 0.5) out.push_back(std::move(piece));
  }
  return out;
}

std::string id_text(const Area& a) {
  return std::string(a.from_relation ? "relation " : "way ") + std::to_string(a.osm_id);
}

// A counted warning with up to three examples.
struct Tally {
  std::size_t count = 0;
  std::vector<std::string> examples;
  void add(std::string example) {
    ++count;
    if (examples.size() < 3) examples.push_back(std::move(example));
  }
  void report(std::vector<std::string>& out, const std::string& what) const {
    if (count == 0) return;
    std::string line = "buildings: " + std::to_string(count) + " " + what + " (e.g.";
    for (std::size_t i = 0; i < examples.size(); ++i)
      line += (i ? ", " : " ") + examples[i];
    out.push_back(line + ")");
  }
};

struct Source {
  const Area* area = nullptr;
  std::vector<Polygon> polygons;  // Repaired.
  double area_m2 = 0.0;
  Aabb2 bounds;
};

struct Heights {
  double height = 0.0;
  double min_height = 0.0;
  double roof_height = 0.0;
  RoofShape roof = RoofShape::flat;
  double direction = std::numeric_limits<double>::quiet_NaN();
  bool tagged = false;
};

}  // namespace

Result<BuildingBuild> build_buildings(const Extract& extract, const Aabb2& area,
                                      const layout::Output& layout,
                                      const buildings::StyleLibrary& styles,
                                      const BuildingConfig& config, Seed seed) {
  if (styles.styles.empty()) {
    return Error::invalid_input("build_buildings", "at least one building style expected, got 0");
  }
  if (!(config.level_m > 0.0) || !(config.ground_level_m > 0.0) || !(config.min_area_m2 >= 0.0)) {
    return Error::invalid_input("build_buildings",
                                "level_m > 0, ground_level_m > 0 and min_area_m2 >= 0 expected");
  }
  BuildingBuild out;
  BuildingCensus& census = out.census;
  Tally invalid;
  Tally tiny;
  Tally repairs;
  Tally bad_roof;
  Tally bad_height;

  // 1. Buildings and parts with their centroid in the area, repaired.
  std::vector<Source> buildings_in;
  std::vector<Source> parts_in;
  for (const Area& a : extract.areas) {
    const std::string_view b = tag(a.tags, "building");
    const std::string_view part = tag(a.tags, "building:part");
    const bool is_building = !b.empty() && b != "no";
    const bool is_part = !is_building && !part.empty() && part != "no";
    if ((!is_building && !is_part) || a.polygons.empty()) continue;
    // The centroid of the largest outer ring decides inside / outside.
    std::size_t largest = 0;
    for (std::size_t i = 1; i < a.polygons.size(); ++i) {
      if (std::abs(ring_signed_area(a.polygons[i].outer)) >
          std::abs(ring_signed_area(a.polygons[largest].outer))) {
        largest = i;
      }
    }
    if (!area.contains(ring_centroid(a.polygons[largest].outer))) continue;
    (is_building ? census.building_areas : census.part_areas) += 1;
    Source s;
    s.area = &a;
    bool any_invalid = false;
    for (const Polygon& p : a.polygons) {
      bool was_invalid = false;
      for (Polygon& piece : repaired(p, &was_invalid))
        s.polygons.push_back(std::move(piece));
      any_invalid = any_invalid || was_invalid;
    }
    if (s.polygons.empty()) {
      if (is_building) {
        ++census.skipped_invalid;
        invalid.add(id_text(a));
      }
      continue;
    }
    if (any_invalid) repairs.add(id_text(a));
    for (const Polygon& p : s.polygons) {
      s.area_m2 += polygon_area(p);
      for (const Vec2& v : p.outer)
        s.bounds.add(v);
    }
    if (is_building && s.area_m2 < config.min_area_m2) {
      ++census.skipped_tiny;
      tiny.add(id_text(a));
      continue;
    }
    (is_building ? buildings_in : parts_in).push_back(std::move(s));
  }

  // 2. Parts go to the smallest building containing their inner point (ties: first read).
  std::vector<std::vector<const Source*>> parts_of(buildings_in.size());
  for (const Source& part : parts_in) {
    const Vec2 p = inner_point(part.polygons.front());
    std::size_t best = buildings_in.size();
    for (std::size_t i = 0; i < buildings_in.size(); ++i) {
      const Source& b = buildings_in[i];
      if (!b.bounds.contains(p)) continue;
      bool inside = false;
      for (const Polygon& poly : b.polygons)
        inside = inside || polygon_contains(poly, p);
      if (inside && (best == buildings_in.size() || b.area_m2 < buildings_in[best].area_m2)) {
        best = i;
      }
    }
    if (best < buildings_in.size()) {
      parts_of[best].push_back(&part);
      ++census.parts_used;
    }
  }

  // Heights of one mapped object (the building or a part); `fallback` fills what it lacks.
  auto read_heights = [&](const Area& a, const Heights* fallback) {
    Heights h;
    const Tags& t = a.tags;
    std::optional<double> height = parse_height_m(tag(t, "height"));
    if (!height) height = parse_height_m(tag(t, "building:height"));
    if (!tag(t, "height").empty() && !height) bad_height.add(id_text(a));
    const std::optional<double> levels = parse_count(tag(t, "building:levels"));
    std::optional<double> min_height = parse_height_m(tag(t, "min_height"));
    if (!min_height) {
      if (const auto ml = parse_count(tag(t, "building:min_level"))) {
        min_height = *ml > 0.0 ? config.ground_level_m + (*ml - 1.0) * config.level_m : 0.0;
      }
    }
    std::optional<double> roof_height = parse_height_m(tag(t, "roof:height"));
    if (!roof_height) {
      if (const auto rl = parse_count(tag(t, "roof:levels"))) roof_height = *rl * config.level_m;
    }
    const std::string_view shape = tag(t, "roof:shape");
    if (!shape.empty()) {
      if (!lots::roof_shape_from_string(shape, &h.roof)) {
        bad_roof.add(id_text(a) + " roof:shape=" + std::string(shape));
        h.roof = RoofShape::flat;
      }
    } else if (fallback != nullptr) {
      h.roof = fallback->roof;
    }
    h.direction = parse_direction(tag(t, "roof:direction"));
    h.min_height = min_height.value_or(0.0);
    h.roof_height = roof_height.value_or(-1.0);
    if (height) {
      h.height = *height;
      h.tagged = true;
    } else if (levels) {
      const double walls =
          *levels <= 0.0 ? 0.0 : config.ground_level_m + (*levels - 1.0) * config.level_m;
      h.height = std::max(walls, 0.5) + std::max(0.0, roof_height.value_or(0.0));
      if (min_height && *min_height > 0.0 && !tag(t, "building:min_level").empty()) {
        h.height = std::max(h.height, *min_height + 0.5);
      }
      h.tagged = true;
    } else if (fallback != nullptr) {
      h.height = fallback->height;
      h.tagged = fallback->tagged;
    }
    return h;
  };

  // 3. One lot per building.
  struct Made {
    lots::Lot lot;
    std::int64_t key = 0;  // Way id, relation ids after all ways.
  };
  std::vector<Made> made;
  made.reserve(buildings_in.size());
  for (std::size_t bi = 0; bi < buildings_in.size(); ++bi) {
    const Source& src = buildings_in[bi];
    const Area& a = *src.area;
    const std::int64_t osm_id = a.from_relation ? -a.osm_id : a.osm_id;
    const std::uint64_t object =
        hash_combine(a.from_relation ? 2U : 1U, static_cast<std::uint64_t>(a.osm_id));
    Rng rng(seed, Stage::lots, object);
    const std::string_view type = tag(a.tags, "building");
    const TypeRule* rule = type_rule(type);
    Heights own = read_heights(a, nullptr);
    bool drawn = false;
    if (!own.tagged || !(own.height > own.min_height)) {
      // The seeded distribution of the table above.
      int lo = 1;
      int hi = 2;
      double storey = config.level_m;
      if (rule != nullptr) {
        lo = rule->lo;
        hi = rule->hi;
        if (rule->big_area > 0.0 && src.area_m2 > rule->big_area) {
          lo = rule->big_lo;
          hi = rule->big_hi;
        }
        if (rule->storey_m > 0.0) storey = rule->storey_m;
      } else {
        // Untyped ("yes"): by footprint area.
        constexpr std::array<std::array<double, 3>, 4> kByArea{
            {{150.0, 1, 2}, {600.0, 2, 5}, {2000.0, 3, 8}, {1e300, 4, 12}}};
        for (const auto& row : kByArea) {
          if (src.area_m2 < row[0]) {
            lo = static_cast<int>(row[1]);
            hi = static_cast<int>(row[2]);
            break;
          }
        }
      }
      const int levels = lo + static_cast<int>(rng.below(static_cast<std::uint32_t>(hi - lo + 1)));
      own.height = std::max(config.ground_level_m, storey) + (levels - 1) * storey +
                   std::max(0.0, own.roof_height);
      own.height = std::max(own.height, own.min_height + 2.0);
      own.tagged = false;
      drawn = true;
    }

    // Volumes: the parts (sorted by bottom, then id), or the outline's polygons.
    std::vector<std::pair<const Source*, Heights>> pieces;
    std::vector<const Source*> parts = parts_of[bi];
    for (const Source* p : parts) {
      pieces.emplace_back(p, read_heights(*p->area, &own));
    }
    std::stable_sort(pieces.begin(), pieces.end(), [](const auto& x, const auto& y) {
      if (x.second.min_height != y.second.min_height) {
        return x.second.min_height < y.second.min_height;
      }
      return x.first->area->osm_id < y.first->area->osm_id;
    });
    if (pieces.empty()) pieces.emplace_back(&src, own);
    lots::BuildingDNA dna;
    dna.osm_id = osm_id;
    double tallest = 0.0;
    for (const auto& [piece, h] : pieces) {
      for (const Polygon& poly : piece->polygons) {
        lots::ImportedVolume v;
        v.footprint = poly;
        v.min_height_m = std::max(0.0, h.min_height);
        v.height_m = std::max(h.height, v.min_height_m + 0.5);
        v.roof = h.roof;
        const Box box = min_area_box(poly.outer);
        double roof_h = h.roof_height;
        if (v.roof != RoofShape::flat && roof_h < 0.0) {
          const double share = v.roof == RoofShape::dome       ? 0.5
                               : v.roof == RoofShape::skillion ? 0.15
                                                               : 0.3;
          roof_h = share * box.width;
        }
        v.roof_height_m = v.roof == RoofShape::flat
                              ? 0.0
                              : std::clamp(roof_h, 0.0, 0.6 * (v.height_m - v.min_height_m));
        if (v.roof == RoofShape::gabled) {
          // The ridge runs across the direction the roof faces; roof:orientation=across turns
          // it across the longest axis.
          if (!std::isnan(h.direction)) {
            v.roof_direction_rad = h.direction + std::numbers::pi / 2.0;
          } else if (tag(piece->area->tags, "roof:orientation") == "across" ||
                     tag(a.tags, "roof:orientation") == "across") {
            v.roof_direction_rad = box.angle + std::numbers::pi / 2.0;
          } else {
            v.roof_direction_rad = std::numeric_limits<double>::quiet_NaN();
          }
        } else {
          v.roof_direction_rad = h.direction;
        }
        ++census.roofs_by_shape[static_cast<std::size_t>(v.roof)];
        tallest = std::max(tallest, v.height_m);
        dna.imported.push_back(std::move(v));
      }
    }
    bool part_tagged = false;
    for (const auto& piece : pieces)
      part_tagged = part_tagged || (piece.first != &src && piece.second.tagged);
    (drawn && !part_tagged ? census.heights_drawn : census.heights_tagged) += 1;

    // The outline (union of the volumes), its box and the lot.
    const Polygon outline = lots::footprint_polygon(dna);
    const Box box = min_area_box(outline.outer);
    dna.shape = lots::FootprintShape::rectangle;
    dna.size_x_m = std::max(0.1, box.length);
    dna.size_y_m = std::max(0.1, box.width);
    dna.centre = box.centre;
    dna.angle_rad = box.angle;
    dna.base_m = tallest;
    dna.shaft_m = 0.0;
    dna.crown_m = 0.0;

    // Style: class, zone and height band, drawn by weight.
    Kind kind =
        rule != nullptr ? rule->kind : (tallest >= 25.0 ? Kind::commercial : Kind::residential);
    layout::ZoneKind zone = layout::ZoneKind::residential;
    if (kind == Kind::commercial) {
      zone = tallest >= 30.0 ? layout::ZoneKind::downtown : layout::ZoneKind::commercial;
    } else if (kind == Kind::industrial) {
      zone = layout::ZoneKind::industrial;
    }
    std::vector<std::uint32_t> eligible;
    const std::uint32_t zone_bit = 1U << static_cast<std::uint32_t>(zone);
    for (int pass = 0; pass < 3 && eligible.empty(); ++pass) {
      for (std::uint32_t s = 0; s < styles.styles.size(); ++s) {
        const buildings::Style& st = styles.styles[s];
        const bool zone_ok = pass == 2 || (st.zone_mask & zone_bit) != 0U;
        const bool height_ok =
            pass >= 1 || (tallest >= st.min_height_m && tallest <= st.max_height_m);
        if (zone_ok && height_ok && st.weight > 0.0) eligible.push_back(s);
      }
    }
    if (eligible.empty()) eligible.push_back(0);
    double total = 0.0;
    for (std::uint32_t s : eligible)
      total += styles.styles[s].weight;
    double pick = rng.uniform01() * total;
    dna.style = eligible.back();
    for (std::uint32_t s : eligible) {
      pick -= styles.styles[s].weight;
      if (pick < 0.0) {
        dna.style = s;
        break;
      }
    }

    // The block holding the centroid (0 when none).
    const Vec2 centroid = inner_point(outline);
    layout::BlockId block = 0;
    const layout::Block* holder = nullptr;
    for (const layout::Block& blk : layout.blocks) {
      if (polygon_contains(blk.area, centroid)) {
        block = blk.id;
        holder = &blk;
        break;
      }
    }
    lots::Lot lot;
    lot.block = block;
    lot.area = outline;
    lot.status = lots::LotStatus::buildable;
    lot.zone = zone;
    lot.target_height_m = tallest;
    lot.density = holder != nullptr ? holder->density : 0.0;
    lots::Parcel parcel;
    parcel.area = outline;
    parcel.has_building = true;
    // Frontage: outline edges along the street side of the holding block.
    parcel.frontage.assign(outline.outer.size(), 0);
    if (holder != nullptr) {
      constexpr double kFrontM = 2.0;
      const Ring& br = holder->area.outer;
      for (std::size_t i = 0; i < outline.outer.size(); ++i) {
        const Vec2 m = (outline.outer[i] + outline.outer[(i + 1) % outline.outer.size()]) * 0.5;
        for (std::size_t k = 0; k < br.size(); ++k) {
          const Vec2 p = br[k];
          const Vec2 q = br[(k + 1) % br.size()];
          const Vec2 d = q - p;
          const double l2 = dot(d, d);
          const double t = l2 > 0.0 ? std::clamp(dot(m - p, d) / l2, 0.0, 1.0) : 0.0;
          if (distance(m, p + d * t) <= kFrontM) {
            parcel.frontage[i] = 1;
            break;
          }
        }
      }
    }
    parcel.dna = std::move(dna);
    lot.parcels.push_back(std::move(parcel));
    made.push_back(
        Made{std::move(lot), a.from_relation ? (std::int64_t{1} << 62) + a.osm_id : a.osm_id});
  }

  // 4. Lots by (block, osm id): the building generator looks for neighbours within a block.
  std::stable_sort(made.begin(), made.end(), [](const Made& x, const Made& y) {
    if (x.lot.block != y.lot.block) return x.lot.block < y.lot.block;
    return x.key < y.key;
  });
  lots::Output& lo = out.lots;
  for (Made& m : made) {
    m.lot.id = static_cast<lots::LotId>(lo.lots.size());
    lo.lots.push_back(std::move(m.lot));
  }
  census.buildings = lo.lots.size();
  lo.stats.lots = lo.lots.size();
  lo.stats.parcels = lo.lots.size();
  lo.stats.buildings = lo.lots.size();
  lo.stats.lots_by_status[static_cast<std::size_t>(lots::LotStatus::buildable)] = lo.lots.size();
  lo.stats.footprints_by_shape[static_cast<std::size_t>(lots::FootprintShape::rectangle)] =
      lo.lots.size();

  invalid.report(out.warnings, "building areas skipped: invalid footprint beyond repair");
  tiny.report(out.warnings, "building areas skipped: smaller than " +
                                std::to_string(static_cast<int>(config.min_area_m2)) + " m2");
  repairs.report(out.warnings, "invalid footprints repaired (GEOS make-valid)");
  bad_roof.report(out.warnings, "unknown roof:shape values drawn flat");
  bad_height.report(out.warnings, "unreadable height values ignored");
  return out;
}

}  // namespace cityforge::osm
