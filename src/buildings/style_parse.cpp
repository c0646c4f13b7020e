// SPDX-License-Identifier: Apache-2.0
// Strict reader of building definition files (BDF): every key is known, every number finite and
// in range, every module key resolved; errors name the file, the JSON pointer and, for grammars,
// the column. Authoring guide: docs/styles.md.
// Based on: the building generator talk (seeds/000, 26:39-29:14).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cityforge/buildings/style.hpp"
#include "cityforge/core/format.hpp"
#include "cityforge/core/json_parse.hpp"
#include "cityforge/core/json_reader.hpp"
#include "cityforge/lots/lots.hpp"

namespace cityforge::buildings {
namespace {

using nlohmann::json;

constexpr const char* kZoneNames[] = {"downtown", "commercial", "residential", "industrial",
                                      "park"};

std::string fmt(double v) { return format_g9(v); }

std::string describe(const json& j) { return cityforge::detail::describe_json(j); }

template <std::size_t N>
std::string join(const char* const (&names)[N]) {
  std::string s;
  for (const char* n : names)
    s += std::string(s.empty() ? "" : ", ") + n;
  return s;
}

template <std::size_t N>
int index_of(const char* const (&names)[N], const std::string& s) {
  for (std::size_t i = 0; i < N; ++i) {
    if (s == names[i]) return static_cast<int>(i);
  }
  return -1;
}

bool valid_key(const std::string& k) {
  if (k.size() == 1 && std::isalpha(static_cast<unsigned char>(k[0])) != 0) return true;
  if (k.empty() || k.size() > 64) return false;
  return std::all_of(k.begin(), k.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

using Reader = cityforge::detail::JsonReader;

std::uint32_t parse_tag(Reader& r, const json& j, const std::string& p) {
  std::string s;
  if (!r.string_at(j, p, s)) return 0;
  for (std::size_t b = 0; b < kModuleTagCount; ++b) {
    if (s == tag_name(b)) return 1U << b;
  }
  std::string list;
  for (std::size_t b = 0; b < kModuleTagCount; ++b) {
    list += std::string(list.empty() ? "" : ", ") + tag_name(b);
  }
  r.fail(p, "unknown tag \"" + s + "\"; expected one of: " + list);
  return 0;
}

void read_mesh(Reader& r, const json& j, const std::string& p, ModuleDef& m) {
  if (!r.object(j, p,
                {"kind", "depth_m", "inset_m", "frame_m", "opening_w", "opening_h", "sill_h",
                 "mullions_x", "mullions_y", "projection_m"},
                {"kind"})) {
    return;
  }
  std::string kind;
  if (!r.string_at(j["kind"], p + "/kind", kind)) return;
  bool found = false;
  std::string list;
  for (std::size_t k = 0; k < kMeshKindCount; ++k) {
    const char* name = to_string(static_cast<MeshKind>(k));
    list += std::string(list.empty() ? "" : ", ") + name;
    if (kind == name) {
      m.mesh = static_cast<MeshKind>(k);
      found = true;
    }
  }
  if (!found) {
    r.fail(p + "/kind", "unknown mesh kind \"" + kind + "\"; expected one of: " + list);
    return;
  }
  MeshParams& q = m.params;
  r.number(j, "depth_m", p, q.depth_m, 0.0, 3.0);
  r.number(j, "inset_m", p, q.inset_m, 0.0, 2.0);
  r.number(j, "frame_m", p, q.frame_m, 0.0, 1.0);
  r.number(j, "opening_w", p, q.opening_w, 0.0, 0.999, true);
  r.number(j, "opening_h", p, q.opening_h, 0.0, 0.999, true);
  r.number(j, "sill_h", p, q.sill_h, 0.0, 0.99);
  r.count(j, "mullions_x", p, q.mullions_x, 32);
  r.count(j, "mullions_y", p, q.mullions_y, 32);
  r.number(j, "projection_m", p, q.projection_m, 0.0, 5.0);
  if (!r.failed() && q.sill_h + q.opening_h > 1.0 + 1e-9) {
    r.fail(p, "sill_h + opening_h must be <= 1 (shares of the module height), got " +
                  fmt(q.sill_h) + " + " + fmt(q.opening_h));
  }
}

void read_module(Reader& r, const json& j, const std::string& p, const std::string& style,
                 ModuleDef& m) {
  if (!r.object(j, p, {"id", "width_m", "height_m", "tags", "mesh"}, {"width_m", "mesh"})) return;
  m.id = style + "." + m.key;
  if (j.contains("id")) {
    if (!r.string_at(j["id"], p + "/id", m.id)) return;
    if (m.id.empty()) {
      r.fail(p + "/id", "expected a non-empty module id");
      return;
    }
  }
  r.number(j, "width_m", p, m.width_m, 0.0, 100.0, true);
  r.number(j, "height_m", p, m.height_m, 0.0, 100.0);
  if (j.contains("tags") && r.array_at(j["tags"], p + "/tags", false)) {
    for (std::size_t i = 0; i < j["tags"].size(); ++i) {
      m.tags |= parse_tag(r, j["tags"][i], p + "/tags/" + std::to_string(i));
    }
  }
  read_mesh(r, j["mesh"], p + "/mesh", m);
}

// A module key of the dictionary, by name; -1 (and an error) when unknown.
std::int32_t module_ref(Reader& r, const json& j, const std::string& p, const Style& s) {
  std::string key;
  if (!r.string_at(j, p, key)) return -1;
  for (std::size_t i = 0; i < s.modules.size(); ++i) {
    if (s.modules[i].key == key) return static_cast<std::int32_t>(i);
  }
  std::string list;
  for (const ModuleDef& m : s.modules)
    list += (list.empty() ? "" : ", ") + m.key;
  r.fail(p, "unknown module key \"" + key + "\"; the modules are: " + list);
  return -1;
}

void read_level(Reader& r, const json& j, const std::string& p,
                const std::vector<std::string>& keys, Level& level) {
  if (!r.object(j, p, {"height_m", "grammars"}, {"height_m", "grammars"})) return;
  r.number(j, "height_m", p, level.height_m, 0.0, 50.0, true);
  const json& g = j["grammars"];
  if (!r.array_at(g, p + "/grammars", true)) return;
  for (std::size_t i = 0; i < g.size(); ++i) {
    const std::string gp = p + "/grammars/" + std::to_string(i);
    std::string text;
    if (!r.string_at(g[i], gp, text)) return;
    Result<Grammar> parsed = parse_grammar(text, r.where(gp), keys);
    if (!parsed.ok()) {
      r.fail(parsed.error());
      return;
    }
    level.grammars.push_back(std::move(parsed.value()));
  }
}

// Every level needs a grammar short enough for the shortest wall the style accepts.
void check_min_wall(Reader& r, const Style& s) {
  std::vector<double> widths;
  for (const ModuleDef& m : s.modules)
    widths.push_back(m.width_m);
  const std::pair<const char*, const Level*> levels[] = {
      {"ground", &s.ground}, {"typical", &s.typical}, {"top", &s.top}};
  for (const auto& [name, level] : levels) {
    GrammarFit fit;
    const std::size_t g = choose_grammar(level->grammars, widths, s.min_wall_m, &fit);
    if (!fit.fits) {
      r.fail(std::string("/levels/") + name + "/grammars",
             "no grammar fits a wall of min_wall_m = " + fmt(s.min_wall_m) +
                 " m; the shortest, \"" + level->grammars[g].text + "\", needs " +
                 fmt(s.min_wall_m - fit.gap_m) + " m: add a shorter grammar or raise min_wall_m");
      return;
    }
  }
}

void read_palette(Reader& r, const json& j, Style& s) {
  std::vector<const char*> names;
  for (std::size_t i = 0; i < kMaterialCount; ++i) {
    names.push_back(to_string(static_cast<Material>(i)));
  }
  const std::string p = "/palette";
  if (!r.object(j, p, {"wall", "trim", "glass", "frame", "door", "roof", "metal", "sign"},
                {"wall", "trim", "glass", "frame", "door", "roof", "metal", "sign"})) {
    return;
  }
  for (std::size_t i = 0; i < kMaterialCount; ++i) {
    const std::string mp = p + "/" + names[i];
    std::string c;
    if (!r.string_at(j[names[i]], mp, c)) return;
    const bool hex =
        c.size() == 7 && c[0] == '#' && std::all_of(c.begin() + 1, c.end(), [](char ch) {
          return std::isxdigit(static_cast<unsigned char>(ch)) != 0;
        });
    if (!hex) {
      r.fail(mp, "expected a colour \"#rrggbb\", got \"" + c + "\"");
      return;
    }
    for (int k = 0; k < 3; ++k) {
      const int v = std::stoi(c.substr(1 + 2 * k, 2), nullptr, 16);
      s.palette[i][k] = static_cast<float>(v) / 255.0F;
    }
  }
}

/// "surfaces": {"<material>": "<surface>" | "none", ...}: optional, per material.
void read_surfaces(Reader& r, const json& j, Style& s) {
  const std::string p = "/surfaces";
  if (!r.object(j, p, {"wall", "trim", "glass", "frame", "door", "roof", "metal", "sign"})) {
    return;
  }
  for (std::size_t i = 0; i < kMaterialCount; ++i) {
    const char* material = to_string(static_cast<Material>(i));
    if (!j.contains(material)) continue;
    const std::string mp = p + "/" + material;
    std::string name;
    if (!r.string_at(j[material], mp, name)) return;
    materials::Surface surface{};
    if (name == "none") {
      s.surfaces[i] = std::nullopt;
    } else if (materials::surface_from_string(name, &surface)) {
      s.surfaces[i] = surface;
    } else {
      std::string names = "none";
      for (std::size_t k = 0; k < materials::kSurfaceCount; ++k)
        names += std::string(", ") + materials::to_string(static_cast<materials::Surface>(k));
      r.fail(mp, "unknown surface \"" + name + "\"; expected one of: " + names);
      return;
    }
  }
}

}  // namespace

Result<Style> parse_style(std::string_view json_text, std::string_view file) {
  Reader r{std::string(file)};
  Result<json> parsed = parse_json(json_text, std::string(file));
  if (!parsed) return parsed.error();
  json& doc = *parsed;
  Style s;
  s.file = std::string(file);
  // 1. Top level, scalars.
  if (!r.object(doc, "",
                {"name", "description", "zones", "height_m", "weight", "min_wall_m", "massing",
                 "shapes", "palette", "surfaces", "levels", "modules", "corners",
                 "collinear_tolerance_deg", "entrance", "fire_escape", "roof", "props"},
                {"name", "zones", "height_m", "min_wall_m", "palette", "levels", "modules",
                 "entrance"})) {
    return r.error();
  }
  if (r.string_at(doc["name"], "/name", s.name) && !valid_key(s.name)) {
    r.fail("/name", "expected a style name of [a-z0-9_]+, got \"" + s.name + "\"");
  }
  if (doc.contains("description")) {
    std::string unused;
    r.string_at(doc["description"], "/description", unused);
  }
  if (r.array_at(doc["zones"], "/zones", true)) {
    s.zone_mask = 0;
    for (std::size_t i = 0; i < doc["zones"].size(); ++i) {
      const std::string p = "/zones/" + std::to_string(i);
      std::string z;
      if (!r.string_at(doc["zones"][i], p, z)) break;
      const int k = index_of(kZoneNames, z);
      if (k < 0) {
        r.fail(p, "unknown zone \"" + z + "\"; expected one of: " + join(kZoneNames));
        break;
      }
      s.zone_mask |= 1U << static_cast<unsigned>(k);
    }
  }
  const json& h = doc["height_m"];
  if (!r.failed() && (!h.is_array() || h.size() != 2)) {
    r.fail("/height_m", "expected [min, max] in metres, got " + describe(h));
  } else if (!r.failed()) {
    r.number_at(h[0], "/height_m/0", s.min_height_m, 0.0, 2000.0);
    r.number_at(h[1], "/height_m/1", s.max_height_m, 0.0, 2000.0);
    if (!r.failed() && s.max_height_m < s.min_height_m) {
      r.fail("/height_m",
             "expected min <= max, got [" + fmt(s.min_height_m) + ", " + fmt(s.max_height_m) + "]");
    }
  }
  r.number(doc, "weight", "", s.weight, 0.0, 1e6);
  r.number(doc, "min_wall_m", "", s.min_wall_m, 0.0, 1000.0, true);
  r.number(doc, "collinear_tolerance_deg", "", s.collinear_tolerance_deg, 0.0, 90.0);
  if (doc.contains("massing") &&
      r.object(doc["massing"], "/massing", {"cubified", "staggered", "setback_m"})) {
    r.number(doc["massing"], "cubified", "/massing", s.cubified_share, 0.0, 1.0);
    r.number(doc["massing"], "staggered", "/massing", s.staggered_share, 0.0, 1.0);
    r.number(doc["massing"], "setback_m", "/massing", s.setback_m, 0.0, 100.0);
  }
  if (doc.contains("shapes") && r.array_at(doc["shapes"], "/shapes", false)) {
    for (std::size_t i = 0; i < doc["shapes"].size(); ++i) {
      const std::string p = "/shapes/" + std::to_string(i);
      std::string shape;
      if (!r.string_at(doc["shapes"][i], p, shape)) break;
      lots::FootprintShape known{};
      if (!lots::footprint_shape_from_string(shape, &known)) {
        std::string names;
        for (std::size_t k = 0; k < lots::kFootprintShapeCount; ++k)
          names +=
              std::string(k ? ", " : "") + lots::to_string(static_cast<lots::FootprintShape>(k));
        r.fail(p, "unknown footprint shape \"" + shape + "\"; expected one of: " + names);
        break;
      }
      if (std::find(s.shapes.begin(), s.shapes.end(), shape) == s.shapes.end()) {
        s.shapes.push_back(shape);
      }
    }
  }
  read_palette(r, doc["palette"], s);
  if (doc.contains("surfaces")) read_surfaces(r, doc["surfaces"], s);
  if (doc.contains("roof") &&
      r.object(doc["roof"], "/roof", {"parapet_height_m", "parapet_width_m"})) {
    r.number(doc["roof"], "parapet_height_m", "/roof", s.parapet_height_m, 0.0, 10.0);
    r.number(doc["roof"], "parapet_width_m", "/roof", s.parapet_width_m, 0.0, 5.0);
  }
  if (r.failed()) return r.error();

  // 2. The module dictionary (keys in sorted order: module indices are deterministic).
  const json& mods = doc["modules"];
  if (!mods.is_object() || mods.empty()) {
    r.fail("/modules", "expected an object of modules {key: {...}}, got " + describe(mods));
    return r.error();
  }
  std::vector<std::string> keys;
  for (const auto& item : mods.items()) {
    const std::string p = "/modules/" + item.key();
    if (!valid_key(item.key())) {
      r.fail(p, "module key \"" + item.key() +
                    "\" must be one letter A-Z / a-z or a name of [a-z0-9_]+ (used as {name})");
      return r.error();
    }
    ModuleDef m;
    m.key = item.key();
    read_module(r, item.value(), p, s.name, m);
    if (r.failed()) return r.error();
    keys.push_back(m.key);
    s.modules.push_back(std::move(m));
  }
  for (std::size_t a = 0; a < s.modules.size(); ++a) {
    for (std::size_t b = 0; b < a; ++b) {
      if (s.modules[a].id == s.modules[b].id) {
        r.fail(
            "/modules/" + s.modules[a].key + "/id",
            "module id \"" + s.modules[a].id + "\" is also used by /modules/" + s.modules[b].key);
        return r.error();
      }
    }
  }

  // 3. Levels and their grammars.
  const json& lv = doc["levels"];
  if (r.object(lv, "/levels", {"ground", "typical", "top"}, {"ground", "typical", "top"})) {
    read_level(r, lv["ground"], "/levels/ground", keys, s.ground);
    read_level(r, lv["typical"], "/levels/typical", keys, s.typical);
    read_level(r, lv["top"], "/levels/top", keys, s.top);
  }
  if (r.failed()) return r.error();

  // 4. Corners, entrance, fire escape, props.
  if (doc.contains("corners") &&
      r.object(doc["corners"], "/corners", {"convex", "concave", "split", "cap"})) {
    const json& c = doc["corners"];
    const std::pair<const char*, std::int32_t*> slots[] = {{"convex", &s.corner_convex},
                                                           {"concave", &s.corner_concave},
                                                           {"split", &s.corner_split},
                                                           {"cap", &s.corner_cap}};
    for (const auto& [name, slot] : slots) {
      if (c.contains(name)) *slot = module_ref(r, c[name], std::string("/corners/") + name, s);
    }
  }
  s.entrance = module_ref(r, doc["entrance"], "/entrance", s);
  if (!r.failed() && (s.modules[static_cast<std::size_t>(s.entrance)].tags & kTagEntrance) == 0) {
    r.fail("/entrance", "module \"" + s.modules[static_cast<std::size_t>(s.entrance)].key +
                            "\" must carry the \"entrance\" tag (add it to /modules/" +
                            s.modules[static_cast<std::size_t>(s.entrance)].key + "/tags)");
  }
  if (doc.contains("fire_escape")) {
    s.fire_escape = module_ref(r, doc["fire_escape"], "/fire_escape", s);
  }
  if (doc.contains("props") && r.object(doc["props"], "/props", {"brands", "signage_distance_m"})) {
    const json& pr = doc["props"];
    r.number(pr, "signage_distance_m", "/props", s.signage_distance_m, 0.0, 1000.0);
    if (pr.contains("brands") && r.array_at(pr["brands"], "/props/brands", false)) {
      for (std::size_t i = 0; i < pr["brands"].size() && !r.failed(); ++i) {
        const std::string p = "/props/brands/" + std::to_string(i);
        const json& b = pr["brands"][i];
        if (!r.object(b, p, {"name", "sign"}, {"name", "sign"})) break;
        Brand brand;
        r.string_at(b["name"], p + "/name", brand.name);
        const std::int32_t m = module_ref(r, b["sign"], p + "/sign", s);
        if (r.failed()) break;
        brand.sign_module = static_cast<std::uint32_t>(m);
        s.brands.push_back(std::move(brand));
      }
    }
  }
  if (r.failed()) return r.error();

  // 5. The shortest wall must take some grammar of every level.
  check_min_wall(r, s);
  if (r.failed()) return r.error();
  return s;
}

}  // namespace cityforge::buildings
