// SPDX-License-Identifier: Apache-2.0
// The config field tables against the docs and the stage cache. ConfigKeys.* take a tiny city
// through a CityPipeline once, then change every key documented in docs/city-config.md (read
// from its tables, so a newly documented key is covered without touching this file) and check
// that exactly the stages that read it and those downstream of them run again; cached outputs
// equal a fresh run's. A few seconds in all.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cityforge/core/rng.hpp"
#include "cityforge/pipeline/city_config.hpp"
#include "cityforge/pipeline/city_pipeline.hpp"
#include "pipeline/detail/config_schema.hpp"

namespace cityforge::pipeline {
namespace {

using nlohmann::json;

const std::string kDocs = std::string(CITYFORGE_SOURCE_DIR) + "/docs/city-config.md";
constexpr std::string_view kBegin = "<!-- config-table: ";
constexpr std::string_view kEnd = "<!-- end config-table -->";

// 240 x 180 m with every kind of structured value, so each documented key has something to
// change (two zones, water, a freeway, a tag volume, a shepherd group, wandering walkers), and
// small blocks, one biome, no WFC rooftops and a coarse audio grid and tiling, so a run takes a
// few tens of milliseconds.
const char* kTiny = R"({
  "name": "tiny", "description": "cache keys", "seed": 5,
  "boundary": [[0, 0], [240, 0], [240, 180], [0, 180]],
  "arteries": [{"name": "a", "points": [[5, 90], [235, 96]]}],
  "zones": [
    {"name": "core", "kind": "commercial", "polygon": [[0, 0], [120, 0], [120, 180], [0, 180]],
     "height_m": [10, 30], "density": 0.7},
    {"name": "homes", "kind": "residential",
     "polygon": [[120, 0], [240, 0], [240, 180], [120, 180]], "height_m": [6, 12]}
  ],
  "water": [[[200, 150], [220, 150], [220, 170], [200, 170]]],
  "freeways": [{"name": "sky", "points": [[0, 40, 12], [240, 46, 12]]}],
  "layout": {"block_short_m": 50, "block_long_m": 80},
  "dressing": {"biomes": ["biomes/plaza_fountain.json"], "audio_grid_m": 50,
               "ground_tile_m": 10, "tile_m": 5},
  "rooftops": {"enabled": false},
  "buildings": {"tag_volumes": [{"tag": "fire_escape",
                                 "polygon": [[0, 0], [100, 0], [100, 80], [0, 80]]}]},
  "crowd": {"shepherds": [{"name": "g", "polygon": [[60, 100], [110, 100], [110, 160],
                                                     [60, 160]], "count": 5}],
            "wandering": {"paths": 1, "members": 3}}
})";

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string marker(const std::string& object) { return object.empty() ? "top" : object; }

/// The generated tables of the docs: marker name -> (offset, length) of the table text.
std::map<std::string, std::pair<std::size_t, std::size_t>> doc_tables(const std::string& text) {
  std::map<std::string, std::pair<std::size_t, std::size_t>> out;
  for (std::size_t at = text.find(kBegin); at != std::string::npos;
       at = text.find(kBegin, at + 1)) {
    const std::size_t name_end = text.find(" -->\n", at);
    const std::size_t body = name_end + 5;
    const std::size_t end = text.find(kEnd, body);
    if (name_end == std::string::npos || end == std::string::npos) break;
    out[text.substr(at + kBegin.size(), name_end - at - kBegin.size())] = {body, end - body};
  }
  return out;
}

std::vector<std::string> split(const std::string& s, const std::string& sep) {
  std::vector<std::string> out;
  std::size_t from = 0;
  for (std::size_t at = s.find(sep); at != std::string::npos; at = s.find(sep, from)) {
    out.push_back(s.substr(from, at - from));
    from = at + sep.size();
  }
  out.push_back(s.substr(from));
  return out;
}

TEST(ConfigSchema, EveryMemberOfEveryConfigStructIsDeclared) {
  EXPECT_EQ(detail::undeclared_members(), std::vector<std::string>{})
      << "declare the new members in src/pipeline/config_fields.cpp (hidden() when they have "
         "no JSON key: they are still part of the stage's cache key)";
}

// CITYFORGE_UPDATE_DOCS=1 writes the generated tables into docs/city-config.md instead.
TEST(ConfigDocs, TablesMatchTheFieldTables) {
  std::string text = read_text(kDocs);
  ASSERT_FALSE(text.empty()) << kDocs;
  std::vector<std::string> objects;
  for (const ConfigKeyDoc& d : config_key_docs()) {
    if (objects.empty() || objects.back() != d.object) objects.push_back(d.object);
  }
  const bool update = std::getenv("CITYFORGE_UPDATE_DOCS") != nullptr;
  bool changed = false;
  std::set<std::string> known;
  for (const std::string& object : objects) {
    known.insert(marker(object));
    const auto tables = doc_tables(text);
    const auto it = tables.find(marker(object));
    if (it == tables.end()) {
      ADD_FAILURE() << "docs/city-config.md has no table for '" << marker(object) << "': add "
                    << kBegin << marker(object) << " -->\n"
                    << kEnd;
      continue;
    }
    const std::string want = config_docs_table(object);
    if (text.substr(it->second.first, it->second.second) == want) continue;
    if (update) {
      text.replace(it->second.first, it->second.second, want);
      changed = true;
    } else {
      ADD_FAILURE() << "the '" << marker(object) << "' table of docs/city-config.md differs from "
                    << "the field tables; run with CITYFORGE_UPDATE_DOCS=1, or expected:\n"
                    << want;
    }
  }
  for (const auto& [name, span] : doc_tables(text))
    EXPECT_TRUE(known.count(name)) << "docs/city-config.md has a table for unknown '" << name;
  if (changed) std::ofstream(kDocs) << text;
}

// ---- Every documented key re-runs exactly the stages that read it -------------------------

struct DocKey {
  std::string pointer;  ///< JSON pointer in the city document
  std::string type;
  std::string default_value;
  std::set<std::string> read_by;
};

std::string trim(std::string s) {
  while (!s.empty() && s.front() == ' ')
    s.erase(s.begin());
  while (!s.empty() && s.back() == ' ')
    s.pop_back();
  return s;
}

/// Every key of the tables of docs/city-config.md ({artery,main,local} expanded).
std::vector<DocKey> documented_keys() {
  const std::string text = read_text(kDocs);
  std::vector<DocKey> out;
  for (const auto& [name, span] : doc_tables(text)) {
    const std::string object = name == "top" ? "" : "/" + name;
    for (const std::string& line : split(text.substr(span.first, span.second), "\n")) {
      if (line.rfind("| `", 0) != 0) continue;
      const std::vector<std::string> cells = split(line.substr(2, line.size() - 4), " | ");
      if (cells.size() < 5) continue;
      std::string key = cells[0].substr(1, cells[0].size() - 2);
      for (const std::string from : {".", "[]"}) {
        for (auto at = key.find(from); at != std::string::npos; at = key.find(from))
          key.replace(at, from.size(), from == "." ? "/" : "/0");
      }
      std::set<std::string> stages;
      if (cells[3] != "—") {
        for (const std::string& s : split(cells[3], ", "))
          stages.insert(trim(s));
      }
      const std::string per_class = "{artery,main,local}";
      if (const auto at = key.find(per_class); at != std::string::npos) {
        const std::vector<std::string> defaults = split(cells[2], ", ");
        const char* classes[] = {"artery", "main", "local"};
        for (std::size_t c = 0; c < 3; ++c) {
          std::string k = key;
          k.replace(at, per_class.size(), classes[c]);
          out.push_back({object + "/" + k, cells[1], defaults.at(c), stages});
        }
      } else {
        out.push_back({object + "/" + key, cells[1], cells[2], stages});
      }
    }
  }
  return out;
}

/// A valid value other than `current` for a key of `type`; none when the type is structured.
std::optional<json> other_value(const std::string& type, const json& current) {
  double lo = 0;
  double hi = 0;
  if (std::sscanf(type.c_str(), "number in [%lf, %lf]", &lo, &hi) == 2) {
    const double c = current.get<double>();
    double v = c != 0.0 ? c * 1.1 : lo + 0.01 * (hi - lo);
    if (v > hi) v = c - 0.1 * (c - lo);
    return v;
  }
  if (std::sscanf(type.c_str(), "integer in [%lf, %lf]", &lo, &hi) == 2) {
    const auto c = current.get<std::int64_t>();
    return c + 1 <= hi ? c + 1 : c - 1;
  }
  if (type == "integer >= 0") return current.get<std::int64_t>() + 1;
  if (type == "true or false") return !current.get<bool>();
  if (type == "string") return (current.is_string() ? current.get<std::string>() : "") + "2";
  if (!type.empty() && type.front() == '"') {  // "a", "b" or "c"
    for (std::size_t at = type.find('"'); at != std::string::npos;
         at = type.find('"', type.find('"', at + 1) + 1)) {
      const std::string name = type.substr(at + 1, type.find('"', at + 1) - at - 1);
      if (name != current) return name;
    }
  }
  return std::nullopt;
}

json parse_default(const std::string& text) {
  const json j = json::parse(text, nullptr, false);
  return j.is_discarded() ? json() : j;
}

/// Hand-written changes for the structured values (type `[...]`, `{...}`), by pointer.
const std::map<std::string, json>& structured_values() {
  static const std::map<std::string, json> values = {
      {"/boundary", json::parse("[[0, 0], [242, 0], [242, 180], [0, 180]]")},
      {"/arteries", json::parse(R"([{"name": "a", "points": [[5, 90], [235, 100]]}])")},
      {"/water", json::parse("[[[200, 150], [222, 150], [222, 170], [200, 170]]]")},
      {"/freeways", json::parse(R"([{"name": "sky", "points": [[0, 40, 13], [240, 46, 13]]}])")},
      {"/lots/footprint_mix", json::parse(R"({"rectangle": 1, "l_shape": 1})")},
      {"/buildings/tag_volumes",
       json::parse(R"([{"tag": "fire_escape", "polygon": [[0, 0], [100, 0], [100, 80],
                       [0, 80]], "z_m": [0, 20]}])")},
      {"/dressing/light_spacing_m", json::parse("[30, 32, 38]")},
      {"/dressing/biomes", json::parse(R"(["biomes/plaza_kiosk.json"])")},
      {"/buildings/styles", json::parse(R"(["styles/art_deco.json", "styles/brick_walkup.json",
                       "styles/glass_tower.json"])")},
      {"/crowd/shepherds/0/polygon", json::parse("[[60, 100], [111, 100], [111, 160], [60, 160]]")},
      {"/crowd/shepherds/0/variant_mix", json::parse("[1, 2]")},
  };
  return values;
}

/// What the command line does after parsing: the texts of the style and biome files named
/// (here the built-in ones of the same names).
void read_files(CityConfig& c) {
  const auto pick = [](const std::vector<std::string>& files,
                       const std::vector<std::pair<std::string, std::string>>& builtin,
                       std::vector<std::pair<std::string, std::string>>& sources) {
    if (files.empty()) return;
    sources.clear();
    for (const std::string& f : files) {
      for (const auto& source : builtin) {
        if (source.first == f) sources.push_back(source);
      }
    }
    ASSERT_EQ(sources.size(), files.size()) << "not a built-in file";
  };
  pick(c.buildings.style_files, buildings::builtin_style_sources(), c.buildings.style_sources);
  pick(c.dressing.biome_files, dressing::builtin_biome_sources(), c.dressing.biome_sources);
}

Result<CityConfig> parse(const json& doc) {
  Result<CityConfig> c = parse_city_config(doc.dump(), "tiny.json");
  if (c) read_files(*c);
  return c;
}

/// `base` with another valid value at the key.
std::optional<json> changed(const json& base, const DocKey& key) {
  json doc = base;
  const json::json_pointer p(key.pointer);
  if (key.pointer == "/zones") {
    doc[p][0]["density"] = 0.6;
  } else if (key.pointer == "/crowd/shepherds") {
    json group = base[p][0];
    group["name"] = "h";
    doc[p].push_back(group);
  } else if (auto it = structured_values().find(key.pointer); it != structured_values().end()) {
    doc[p] = it->second;
  } else {
    const json current = base.contains(p) ? base[p] : parse_default(key.default_value);
    const std::optional<json> v = other_value(key.type, current);
    if (!v) return std::nullopt;
    doc[p] = *v;
  }
  return doc;
}

/// The stages downstream of `stages` (them included), by the graph.
std::set<std::string> with_downstream(std::set<std::string> stages) {
  const auto graph = CityPipeline::stage_inputs();
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [name, inputs] : graph) {
      if (stages.count(name)) continue;
      for (const std::string& in : inputs) {
        if (stages.count(in)) {
          stages.insert(name);
          grew = true;
          break;
        }
      }
    }
  }
  return stages;
}

TEST(ConfigKeys, EveryDocumentedKeyRerunsExactlyTheStagesThatReadIt) {
  const json base = json::parse(kTiny);
  Result<CityConfig> cfg = parse(base);
  ASSERT_TRUE(cfg.ok()) << cfg.error().to_string();
  CityPipeline pipe(1024);  // keeps the first run's outputs whatever runs after
  ASSERT_TRUE(pipe.run(*cfg).ok());
  const std::vector<std::string> stages = CityPipeline::stage_names();
  const std::vector<DocKey> keys = documented_keys();
  ASSERT_GT(keys.size(), 100U) << "the docs tables were not found in " << kDocs;
  for (const DocKey& key : keys) {
    SCOPED_TRACE(key.pointer);
    const std::optional<json> doc = changed(base, key);
    ASSERT_TRUE(doc) << "no way to change " << key.pointer << " (type " << key.type
                     << "): add one to structured_values()";
    Result<CityConfig> other = parse(*doc);
    ASSERT_TRUE(other.ok()) << other.error().to_string();
    std::map<std::string, std::size_t> before;
    for (const std::string& s : stages)
      before[s] = pipe.executions(s);
    Result<CityResult> r = pipe.run(*other);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    std::set<std::string> ran;
    for (const std::string& s : stages) {
      if (pipe.executions(s) != before[s]) ran.insert(s);
    }
    EXPECT_EQ(ran, with_downstream(key.read_by));
  }
}

// ---- Cached outputs equal a fresh run's ---------------------------------------------------

/// A hash per stage output of what the keys below change (the markings painted by `rules`).
std::map<std::string, std::uint64_t> fingerprints(const CityResult& c, const roads::Config& rules) {
  std::map<std::string, std::uint64_t> f;
  const auto floats = [](const auto& v, std::uint64_t h) {
    return hash_bytes(v.data(), v.size() * sizeof(v[0]), h);
  };
  f["terrain"] = floats(c.terrain->heights, 0);
  std::uint64_t h = 0;
  for (const layout::RoadEdge& e : c.layout->network.edges)
    h = floats(e.points, h);
  f["layout"] = h;
  h = hash_bytes(&c.roads->block_raise_m, sizeof(double), 0);
  for (const roads::Section& s : c.roads->sections) {
    h = hash_bytes(&s.trim_start_m, sizeof(double), h);
    h = hash_bytes(&s.trim_end_m, sizeof(double), h);
  }
  for (const roads::Decal& d : roads::build_markings(*c.layout, *c.roads, *c.terrain, rules))
    h = hash_bytes(&d.position, sizeof(d.position), h);
  f["roads"] = hash_combine(h, c.roads->lanes.lanes.size());
  f["freeway"] = hash_combine(c.freeway->footprints.size(), c.freeway->first_lane_id);
  h = 0;
  for (const lots::Lot& l : c.lots->lots)
    h = floats(l.area.outer, h);
  f["lots"] = h;
  h = 0;
  for (const buildings::Instance& i : c.buildings->instances)
    h = floats(i.position, h);
  f["buildings"] = h;
  h = 0;
  for (const rooftops::RooftopInstance& i : c.rooftops->instances)
    h = floats(i.position, h);
  f["rooftops"] = h;
  h = 0;
  for (const dressing::Item& i : c.dressing->items)
    h = floats(i.position, hash_combine(h, i.prop));
  f["dressing"] = h;
  return f;
}

TEST(ConfigKeys, CachedStageOutputsEqualAFreshRun) {
  json base = json::parse(kTiny);
  base["rooftops"]["enabled"] = true;
  Result<CityConfig> cfg = parse(base);
  ASSERT_TRUE(cfg.ok()) << cfg.error().to_string();
  CityPipeline cached(64);
  Result<CityResult> first = cached.run(*cfg);
  ASSERT_TRUE(first.ok()) << first.error().to_string();
  const std::map<std::string, std::uint64_t> was = fingerprints(*first, cfg->roads);
  const std::pair<const char*, json> keys[] = {
      {"/roads/block_raise_m", 0.3}, {"/layout/classes/local/corner_radius_m", 8},
      {"/dressing/tile_m", 2},       {"/lots/height_jitter", 0.4},
      {"/rooftops/levels", 3},
  };
  for (const auto& [pointer, value] : keys) {
    SCOPED_TRACE(pointer);
    json doc = base;
    doc[json::json_pointer(pointer)] = value;
    Result<CityConfig> other = parse(doc);
    ASSERT_TRUE(other.ok()) << other.error().to_string();
    Result<CityResult> a = cached.run(*other);
    CityPipeline fresh;
    Result<CityResult> b = fresh.run(*other);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_TRUE(std::any_of(a->stages.begin(), a->stages.end(),
                            [](const StageStats& s) { return s.cached; }));
    EXPECT_EQ(fingerprints(*a, other->roads), fingerprints(*b, other->roads));
    EXPECT_NE(fingerprints(*a, other->roads), was) << "the change reached no stage output";
  }
}

// layout.classes.<class>.corner_radius_m is parsed into the roads stage's rules and rounds
// the junction corners there (it used to be parsed and never read).
TEST(ConfigKeys, CornerRadiusReachesTheJunctionTrims) {
  json doc = json::parse(kTiny);
  Result<CityConfig> a = parse(doc);
  doc["layout"]["classes"]["local"]["corner_radius_m"] = 2;
  Result<CityConfig> b = parse(doc);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->roads.corner_radius_m[2], 5.0) << "the documented default";
  EXPECT_EQ(b->roads.corner_radius_m[2], 2.0);
  CityPipeline pipe;
  Result<CityResult> ra = pipe.run(*a);
  Result<CityResult> rb = pipe.run(*b);
  ASSERT_TRUE(ra.ok() && rb.ok());
  EXPECT_EQ(pipe.executions("layout"), 1U);
  EXPECT_NE(fingerprints(*ra, a->roads).at("roads"), fingerprints(*rb, b->roads).at("roads"));
}

TEST(ConfigKeys, RemovedAndMovedKeysNameWhereTheyWent) {
  const std::pair<const char*, const char*> cases[] = {
      {R"("export": {"road_raise_m": 0.1})", "/roads/road_raise_m"},
      {R"("export": {"block_raise_m": 0.1})", "/roads/block_raise_m"},
      {R"("roads": {"lane_width_m": 3.5})", "never read"},
  };
  for (const auto& [object, says] : cases) {
    std::string text = kTiny;
    text.insert(text.rfind('}'), std::string(", ") + object);
    Result<CityConfig> r = parse_city_config(text, "tiny.json");
    ASSERT_FALSE(r.ok()) << object;
    EXPECT_NE(r.error().message.find(says), std::string::npos) << r.error().to_string();
  }
}

}  // namespace
}  // namespace cityforge::pipeline
