// SPDX-License-Identifier: Apache-2.0
// Strict reader of the city JSON: every key is known, every number finite and in range, and
// every error names the source, the JSON pointer of the offending value and what was expected.
// The keys, their ranges and meanings are the field tables of config_fields.cpp, which also
// give the config slices (cache keys) and the docs tables written here.
#include "cityforge/pipeline/city_config.hpp"

#include <algorithm>
#include <map>

#include "cityforge/core/format.hpp"
#include "cityforge/core/json_parse.hpp"
#include "pipeline/detail/config_schema.hpp"

namespace cityforge::pipeline {
namespace {

using detail::json;
using detail::Kind;

// ---- Docs ---------------------------------------------------------------------------------

std::string range(const char* open, double lo, double hi) {
  return std::string(open) + format_g9(lo) + ", " + format_g9(hi) + "]";
}

std::string type_of(const detail::Field& f) {
  switch (f.kind) {
    case Kind::number:
      return "number in " + range("[", f.lo, f.hi);
    case Kind::integer:
    case Kind::count:
    case Kind::uinteger:
      return "integer in " + range("[", f.lo, f.hi);
    case Kind::boolean:
      return "true or false";
    case Kind::text:
    case Kind::free:
      return "string";
    case Kind::choice: {
      std::string s;
      for (std::size_t i = 0; i < f.names.size(); ++i) {
        s += std::string(i == 0                    ? ""
                         : i + 1 == f.names.size() ? " or "
                                                   : ", ") +
             "\"" + f.names[i] + "\"";
      }
      return s;
    }
    default:
      return f.type != nullptr ? f.type : "";
  }
}

std::string shown(const json& v) {
  if (v.is_number()) return format_g9(v.get<double>());
  if (v.is_array()) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i)
      s += (i ? ", " : "") + shown(v[i]);
    return s + "]";
  }
  return v.dump();
}

std::string default_of(const detail::Slot& s) {
  const detail::Field& f = *s.field;
  if (f.kind == Kind::free) return "";
  if (f.kind == Kind::custom && f.default_text != nullptr) return f.default_text;
  if (f.kind == Kind::choice) return shown(detail::choice_text(f, s.value));
  return shown(f.text(s.value));
}

// "/layout/classes/{class}/width_m" -> ("layout", "classes.{artery,main,local}.width_m").
std::pair<std::string, std::string> object_and_key(const std::string& pattern) {
  std::string rest = pattern.substr(1);
  std::string object;
  if (const auto slash = rest.find('/'); slash != std::string::npos) {
    object = rest.substr(0, slash);
    rest = rest.substr(slash + 1);
  }
  std::replace(rest.begin(), rest.end(), '/', '.');
  if (const auto at = rest.find("{class}"); at != std::string::npos)
    rest.replace(at, 7, "{artery,main,local}");
  return {object, rest};
}

}  // namespace

const char* to_string(RoadModules m) {
  return detail::kRoadModuleNames[static_cast<std::size_t>(m)];
}

const char* to_string(TileCompression c) {
  return detail::kTileCompressionNames[static_cast<std::size_t>(c)];
}

const char* to_string(InstanceMode m) {
  return detail::kInstanceModeNames[static_cast<std::size_t>(m)];
}

std::uint32_t texture_pixels(TextureSize t) {
  return t == TextureSize::none ? 0U : 32U << static_cast<unsigned>(t);
}

bool instance_mode_from_string(std::string_view name, InstanceMode* out) {
  for (std::size_t i = 0; i < detail::kInstanceModeNames.size(); ++i) {
    if (name == detail::kInstanceModeNames[i]) {
      *out = static_cast<InstanceMode>(i);
      return true;
    }
  }
  return false;
}

Result<CityConfig> parse_city_config(std::string_view text, const std::string& source) {
  // 1. Syntax.
  Result<json> parsed = parse_json(text, source);
  if (!parsed) return parsed.error();
  const json& doc = *parsed;
  // 2. Structure, types and ranges: the field tables.
  detail::Reader r(source);
  CityConfig c;
  detail::read_document(r, doc, c);
  if (r.failed()) return r.error();
  c.crowd.present = doc.contains("crowd");
  if (c.buildings.style_files.empty())
    c.buildings.style_sources = buildings::builtin_style_sources();
  if (c.dressing.biome_files.empty()) c.dressing.biome_sources = dressing::builtin_biome_sources();
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
  using detail::config_text;
  if (slice == "inputs") return config_text(c.inputs);
  if (slice == "terrain") return config_text(c.terrain);
  if (slice == "layout") return config_text(c.layout);
  if (slice == "roads") return config_text(c.roads);
  if (slice == "freeways") return config_text(c.freeways);
  if (slice == "styles") return config_text(c.buildings.style_sources);
  if (slice == "lots") return config_text(c.lots);
  if (slice == "buildings") {
    return config_text(c.buildings.tag_volumes) + config_text(c.buildings.generator);
  }
  if (slice == "rooftops") return config_text(c.rooftops);
  if (slice == "dressing") return config_text(c.dressing);
  if (slice == "export") return config_text(c.exports);
  if (slice == "crowd") return config_text(c.crowd);
  return "";
}

std::vector<ConfigKeyDoc> config_key_docs() {
  CityConfig defaults;
  std::vector<ConfigKeyDoc> rows;
  std::map<std::string, std::size_t> row_of;  // pattern -> row (the classes of one key)
  for (const detail::Slot& s : detail::slots(defaults)) {
    const detail::Field& f = *s.field;
    if (f.kind == Kind::check || f.kind == Kind::moved) continue;
    if (auto it = row_of.find(s.pattern); it != row_of.end()) {
      rows[it->second].default_value += ", " + default_of(s);
      continue;
    }
    auto [object, key] = object_and_key(s.pattern);
    const std::string stages = s.stages != nullptr && *s.stages != '\0' ? s.stages : "—";
    row_of[s.pattern] = rows.size();
    rows.push_back({object, key, type_of(f), default_of(s), stages, f.doc});
    for (const detail::SubDoc& sub : f.sub)
      rows.push_back({object, key + sub.key, sub.type, sub.default_text, stages, sub.doc});
  }
  // Object by object, in the order the objects first appear.
  std::vector<std::string> order;
  for (const ConfigKeyDoc& d : rows) {
    if (std::find(order.begin(), order.end(), d.object) == order.end()) order.push_back(d.object);
  }
  std::stable_sort(rows.begin(), rows.end(), [&](const ConfigKeyDoc& a, const ConfigKeyDoc& b) {
    return std::find(order.begin(), order.end(), a.object) <
           std::find(order.begin(), order.end(), b.object);
  });
  return rows;
}

std::string config_docs_table(std::string_view object) {
  std::string out = "| key | type | default | read by | meaning |\n|---|---|---|---|---|\n";
  for (const ConfigKeyDoc& d : config_key_docs()) {
    if (d.object != object) continue;
    out += "| `" + d.key + "` | " + d.type + " | " + d.default_value + " | " + d.read_by + " | " +
           d.meaning + " |\n";
  }
  return out;
}

}  // namespace cityforge::pipeline
