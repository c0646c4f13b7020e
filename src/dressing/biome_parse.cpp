// SPDX-License-Identifier: Apache-2.0
// Strict reader of biome files (data/biomes/*.json): every key known, every number finite and in
// range, every prop id in the catalogue, every part's footprint disc inside the biome's box and
// clear of the other parts. Errors name the file and the JSON pointer. Guide:
// docs/dressing-biomes.md. Based on: the packing scatterer (seeds/000, minutes 19-21).
#include <cmath>
#include <nlohmann/json.hpp>
#include <numbers>
#include <string>

#include "cityforge/core/format.hpp"
#include "cityforge/core/json_parse.hpp"
#include "cityforge/core/json_reader.hpp"
#include "cityforge/dressing/dressing.hpp"

namespace cityforge::dressing {
namespace {

using nlohmann::json;
using Reader = cityforge::detail::JsonReader;

constexpr const char* kZoneKindNames[] = {"plaza", "parking", "freeway_underside", "rooftop"};
static_assert(std::size(kZoneKindNames) == kZoneKindCount);

std::string fmt(double v) { return format_g9(v); }

/// "bench, bin, bollard, ... (37 props)": a few valid ids for a message.
std::string some_prop_ids() {
  const auto& cat = prop_catalog();
  std::string list;
  std::size_t shown = 0;
  for (const PropDef& p : cat) {
    if (p.category != Category::biome && p.category != Category::furniture &&
        p.category != Category::vegetation) {
      continue;
    }
    if (shown == 12) break;
    list += std::string(list.empty() ? "" : ", ") + p.id;
    ++shown;
  }
  return list + ", ... (" + std::to_string(cat.size()) + " props; see docs/dressing-biomes.md)";
}

void read_part(Reader& r, const json& j, const std::string& p, BiomePart& part) {
  if (!r.object(j, p, {"prop", "x", "y", "yaw_deg"}, {"prop"})) return;
  std::string id;
  if (!r.string_at(j["prop"], p + "/prop", id)) return;
  const std::int32_t idx = find_prop(id);
  if (idx < 0) {
    r.fail(p + "/prop", "unknown prop id \"" + id + "\"; expected one of: " + some_prop_ids());
    return;
  }
  part.prop = static_cast<std::uint32_t>(idx);
  r.number(j, "x", p, part.offset.x, -1e4, 1e4);
  r.number(j, "y", p, part.offset.y, -1e4, 1e4);
  double yaw_deg = 0.0;
  r.number(j, "yaw_deg", p, yaw_deg, -360.0, 360.0);
  part.yaw_rad = yaw_deg * std::numbers::pi / 180.0;
}

}  // namespace

Result<Biome> parse_biome(std::string_view json_text, std::string_view file) {
  Reader r{std::string(file)};
  Result<json> parsed = parse_json(json_text, std::string(file));
  if (!parsed) return parsed.error();
  json& doc = *parsed;
  Biome b;
  b.file = std::string(file);
  // 1. Top level, scalars.
  if (!r.object(doc, "",
                {"name", "description", "zone", "size_m", "spacing_m", "weight", "fill", "parts"},
                {"name", "zone", "size_m", "parts"})) {
    return r.error();
  }
  if (r.string_at(doc["name"], "/name", b.name) && b.name.empty()) {
    r.fail("/name", "expected a non-empty biome name");
  }
  if (doc.contains("description")) {
    std::string unused;
    r.string_at(doc["description"], "/description", unused);
  }
  std::string zone;
  if (r.string_at(doc["zone"], "/zone", zone)) {
    bool found = false;
    std::string list;
    for (std::size_t k = 0; k < kZoneKindCount; ++k) {
      list += std::string(list.empty() ? "" : ", ") + kZoneKindNames[k];
      if (zone == kZoneKindNames[k]) {
        b.zone = static_cast<ZoneKind>(k);
        found = true;
      }
    }
    if (!found) r.fail("/zone", "unknown zone kind \"" + zone + "\"; expected one of: " + list);
  }
  const json& size = doc["size_m"];
  if (r.array_at(size, "/size_m", true)) {
    if (size.size() != 2) {
      r.fail("/size_m", "expected [x, y] in metres, got " + cityforge::detail::describe_json(size));
    } else {
      r.number_at(size[0], "/size_m/0", b.size_x_m, 0.0, 1000.0, true);
      r.number_at(size[1], "/size_m/1", b.size_y_m, 0.0, 1000.0, true);
    }
  }
  r.number(doc, "spacing_m", "", b.spacing_m, 0.0, 100.0);
  r.number(doc, "weight", "", b.weight, 0.0, 1e6, true);
  r.number(doc, "fill", "", b.fill, 0.0, 1.0, true);
  // 2. Parts: each disc inside the box, no two discs overlapping.
  const json& parts = doc["parts"];
  if (r.array_at(parts, "/parts", true)) {
    const auto& cat = prop_catalog();
    for (std::size_t i = 0; i < parts.size() && !r.failed(); ++i) {
      const std::string p = "/parts/" + std::to_string(i);
      BiomePart part;
      read_part(r, parts[i], p, part);
      if (r.failed()) break;
      const PropDef& def = cat[part.prop];
      const double rad = def.radius_m;
      const double hx = 0.5 * b.size_x_m;
      const double hy = 0.5 * b.size_y_m;
      const double eps = 1e-9;
      if (part.offset.x - rad < -hx - eps || part.offset.x + rad > hx + eps ||
          part.offset.y - rad < -hy - eps || part.offset.y + rad > hy + eps) {
        r.fail(p, "part '" + def.id + "' at (" + fmt(part.offset.x) + ", " + fmt(part.offset.y) +
                      ") with footprint radius " + fmt(rad) + " m leaves the biome box " +
                      fmt(b.size_x_m) + " x " + fmt(b.size_y_m) + " m (centred on the origin)");
        break;
      }
      for (std::size_t k = 0; k < b.parts.size(); ++k) {
        const BiomePart& o = b.parts[k];
        const double ro = cat[o.prop].radius_m;
        if (rad <= 0.0 || ro <= 0.0) continue;  // Surfaces are never tested.
        const double d = std::hypot(part.offset.x - o.offset.x, part.offset.y - o.offset.y);
        if (d < rad + ro - 1e-9) {
          r.fail(p, "overlapping biome parts: '" + def.id + "' (radius " + fmt(rad) + " m) is " +
                        fmt(d) + " m from part /parts/" + std::to_string(k) + " '" +
                        cat[o.prop].id + "' (radius " + fmt(ro) + " m); need at least " +
                        fmt(rad + ro) + " m");
          break;
        }
      }
      b.parts.push_back(part);
    }
  }
  if (r.failed()) return r.error();
  return b;
}

}  // namespace cityforge::dressing
