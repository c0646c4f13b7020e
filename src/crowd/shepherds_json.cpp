// SPDX-License-Identifier: Apache-2.0
// shepherds.json: saves shepherd groups and wandering paths and members, so positions can be
// edited by hand, and reads them back against a walk network with errors that name the place.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <numbers>
#include <optional>

#include "cityforge/core/format.hpp"
#include "cityforge/core/json_parse.hpp"
#include "cityforge/core/text_file.hpp"
#include "cityforge/crowd/shepherd.hpp"

namespace cityforge::crowd {
namespace {

using nlohmann::json;
using ojson = nlohmann::ordered_json;

// The shortest decimal that reads back as `f`, as a double (so the JSON holds "1.35", not
// "1.35000002384185791").
double short_float(float f) {
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, f);
  return std::strtod(std::string(buf, res.ptr).c_str(), nullptr);
}

std::string describe(const json* j) {
  if (j == nullptr) return "nothing";
  std::string s = j->dump();
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return std::string(j->type_name()) + " " + s;
}

std::string at(const std::string& where, const char* key) {
  return where.empty() ? std::string(key) : where + "." + key;
}
std::string at(const std::string& where, std::size_t i) {
  return where + "[" + std::to_string(i) + "]";
}

// Reads values; the first failure is kept.
class Reader {
 public:
  explicit Reader(std::string name) : m_name(std::move(name)) {}
  std::optional<Error> error;

  bool fail(const std::string& where, const std::string& expected, const json* found) {
    if (!error) {
      error = Error::invalid_input(m_name + ": " + where,
                                   "expected " + expected + ", found " + describe(found));
    }
    return false;
  }
  bool keys(const json& obj, const std::string& where, std::initializer_list<const char*> allowed,
            const char* what) {
    if (!obj.is_object()) return fail(where, what, &obj);
    for (const auto& item : obj.items()) {
      if (std::none_of(allowed.begin(), allowed.end(),
                       [&](const char* k) { return item.key() == k; })) {
        std::string list;
        for (const char* k : allowed)
          list += std::string(list.empty() ? "" : ", ") + k;
        return fail(at(where, item.key().c_str()), "one of the keys " + list, &item.value());
      }
    }
    return true;
  }
  const json* member(const json& obj, const char* key, const std::string& where, bool required) {
    const auto it = obj.find(key);
    if (it != obj.end()) return &*it;
    if (required) fail(at(where, key), std::string("field \"") + key + "\"", nullptr);
    return nullptr;
  }
  bool number(const json& v, const std::string& where, double lo, double hi, double& out,
              bool lo_open = false, bool hi_open = false) {
    const bool ok = v.is_number() && std::isfinite(v.get<double>()) &&
                    (lo_open ? v.get<double>() > lo : v.get<double>() >= lo) &&
                    (hi_open ? v.get<double>() < hi : v.get<double>() <= hi);
    if (!ok) {
      return fail(where,
                  std::string("a number in ") + (lo_open ? "(" : "[") + format_g9(lo) + ", " +
                      format_g9(hi) + (hi_open ? ")" : "]"),
                  &v);
    }
    out = v.get<double>();
    return true;
  }
  bool integer(const json& v, const std::string& where, std::int64_t lo, std::int64_t hi,
               std::int64_t& out) {
    const bool ok = v.is_number_integer() &&
                    !(v.is_number_unsigned() && v.get<std::uint64_t>() > 0x7fffffffffffffffULL) &&
                    v.get<std::int64_t>() >= lo && v.get<std::int64_t>() <= hi;
    if (!ok) {
      return fail(where, "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]",
                  &v);
    }
    out = v.get<std::int64_t>();
    return true;
  }
  bool array(const json& v, const std::string& where, const char* what) {
    return v.is_array() || fail(where, what, &v);
  }

 private:
  std::string m_name;
};

const char* lane_kind(const traffic::Network& net, LaneId lane) {
  if (net.is(lane, roads::kVehicle)) return "a vehicle lane";
  if (net.is(lane, roads::kSidewalk | roads::kCrosswalk))
    return "a pedestrian lane that is not walked (too short, or its band runs over a carriageway)";
  return "not a pedestrian lane";
}

// A lane id that is walkable (and, for paths, not a crosswalk).
bool read_lane(Reader& r, const WalkNetwork& walk, const json& v, const std::string& where,
               bool sidewalk_only, LaneId& out) {
  const char* what =
      sidewalk_only ? "a sidewalk lane id (no crosswalks)" : "a sidewalk or crosswalk lane id";
  std::int64_t id = 0;
  if (!r.integer(v, where, 0, kNoLane - 1, id)) return false;
  const auto lane = static_cast<LaneId>(id);
  if (lane >= walk.net->lane_count()) {
    return r.fail(where,
                  std::string(what) + " (the network has " +
                      std::to_string(walk.net->lane_count()) + " lanes)",
                  &v);
  }
  if (!walk.walkable(lane)) {
    return r.fail(
        where,
        std::string(what) + "; lane " + std::to_string(lane) + " is " + lane_kind(*walk.net, lane),
        &v);
  }
  if (!walk.centre_clear(lane)) {
    return r.fail(where,
                  std::string(what) + "; lane " + std::to_string(lane) +
                      " is a sidewalk whose centre line cuts a building or a carriageway (only "
                      "its clear side is walked)",
                  &v);
  }
  if (sidewalk_only && walk.crosswalk(lane)) {
    return r.fail(where,
                  std::string(what) + "; lane " + std::to_string(lane) +
                      " is a crosswalk (positions must not depend on signals)",
                  &v);
  }
  out = lane;
  return true;
}

bool read_dir(Reader& r, const json& obj, const std::string& where, std::int8_t& out) {
  const json* v = r.member(obj, "dir", where, false);
  if (v == nullptr) return true;
  if (!v->is_number_integer() || (v->get<std::int64_t>() != 1 && v->get<std::int64_t>() != -1)) {
    return r.fail(at(where, "dir"), "1 or -1", v);
  }
  out = static_cast<std::int8_t>(v->get<std::int64_t>());
  return true;
}

bool read_variant(Reader& r, const json& obj, const std::string& where, std::uint16_t& out) {
  const json* v = r.member(obj, "variant", where, false);
  std::int64_t x = 0;
  if (v != nullptr && !r.integer(*v, at(where, "variant"), 0, 65535, x)) return false;
  out = static_cast<std::uint16_t>(x);
  return true;
}

bool read_member(Reader& r, const WalkNetwork& walk, const json& j, const std::string& w,
                 ShepherdMember& m) {
  if (!r.keys(j, w, {"lane", "s_m", "dir", "lateral_m", "heading_rad", "variant", "x", "y"},
              "a member object {\"lane\", \"s_m\", ...} or {\"x\", \"y\", ...}")) {
    return false;
  }
  const bool by_lane = j.contains("lane");
  if (by_lane && (j.contains("x") || j.contains("y"))) {
    return r.fail(at(w, j.contains("x") ? "x" : "y"),
                  "either \"lane\" + \"s_m\" or \"x\" + \"y\" (hand-placed), not both", &j);
  }
  double v = 0;
  if (by_lane) {
    if (!read_lane(r, walk, j["lane"], at(w, "lane"), false, m.at.lane)) return false;
    const json* s = r.member(j, "s_m", w, true);
    // 1 mm of slack: the file may have been placed on the lane graph in memory, whose lengths
    // differ from lanes.json's (coordinates rounded to 9 digits) in the last bits.
    const double len = walk.net->length_m[m.at.lane];
    if (s == nullptr || !r.number(*s, at(w, "s_m"), 0, len + 1e-3, v)) return false;
    m.at.s_m = static_cast<float>(std::min(v, len));
    if (!read_dir(r, j, w, m.at.dir)) return false;
    if (const json* l = r.member(j, "lateral_m", w, false)) {
      const double lim = lateral_limit(walk, m.at.lane) + 1e-3;
      if (!r.number(*l, at(w, "lateral_m"), -lim, lim, v)) return false;
      m.lateral_m = static_cast<float>(v);
    }
    m.heading_rad = static_cast<float>(walk_pose(walk, m.at, 0).heading_rad);
  } else {
    const json* x = r.member(j, "x", w, false);
    const json* y = r.member(j, "y", w, false);
    if (x == nullptr && y == nullptr) {
      return r.fail(at(w, "lane"), "field \"lane\" (or \"x\" and \"y\" for a hand-placed member)",
                    nullptr);
    }
    if (x == nullptr || y == nullptr) r.member(j, x == nullptr ? "x" : "y", w, true);
    Vec2 p;
    if (r.error || !r.number(*x, at(w, "x"), -1e7, 1e7, p.x) ||
        !r.number(*y, at(w, "y"), -1e7, 1e7, p.y)) {
      return false;
    }
    if (!snap_to_walk(walk, p, false, &m.at, &m.lateral_m)) {
      return r.fail(w, "a network with sidewalks to snap (x, y) to", &j);
    }
    m.heading_rad = static_cast<float>(walk_pose(walk, m.at, 0).heading_rad);
  }
  if (const json* h = r.member(j, "heading_rad", w, false)) {
    if (!r.number(*h, at(w, "heading_rad"), -2 * std::numbers::pi, 2 * std::numbers::pi, v))
      return false;
    m.heading_rad = static_cast<float>(v);
  }
  return read_variant(r, j, w, m.variant);
}

bool read_group(Reader& r, const WalkNetwork& walk, const json& j, const std::string& w,
                ShepherdGroup& g) {
  if (!r.keys(j, w, {"name", "behaviour", "count", "density", "polygon", "variant_mix", "members"},
              "a group object")) {
    return false;
  }
  const json* name = r.member(j, "name", w, true);
  if (name == nullptr) return false;
  if (!name->is_string()) return r.fail(at(w, "name"), "a string", name);
  g.spec.name = name->get<std::string>();
  if (const json* b = r.member(j, "behaviour", w, false)) {
    if (!b->is_string() ||
        !shepherd_behaviour_from_string(b->get<std::string>(), &g.spec.behaviour)) {
      return r.fail(at(w, "behaviour"), "\"idle\" or \"look_around\"", b);
    }
  }
  std::int64_t count = -1;
  if (const json* c = r.member(j, "count", w, false)) {
    if (!r.integer(*c, at(w, "count"), 0, 1000000, count)) return false;
  }
  if (const json* d = r.member(j, "density", w, false)) {
    if (!r.number(*d, at(w, "density"), 0, 100, g.spec.density_per_m2)) return false;
  }
  const json* poly = r.member(j, "polygon", w, true);
  if (poly == nullptr) return false;
  if (!poly->is_array() || poly->size() < 3) {
    return r.fail(at(w, "polygon"), "an array of >= 3 points [x, y]", poly);
  }
  for (std::size_t i = 0; i < poly->size(); ++i) {
    const json& p = (*poly)[i];
    Vec2 v;
    if (!p.is_array() || p.size() != 2) return r.fail(at(at(w, "polygon"), i), "[x, y]", &p);
    if (!r.number(p[0], at(at(at(w, "polygon"), i), std::size_t{0}), -1e7, 1e7, v.x) ||
        !r.number(p[1], at(at(at(w, "polygon"), i), std::size_t{1}), -1e7, 1e7, v.y)) {
      return false;
    }
    g.spec.polygon.push_back(v);
  }
  if (const json* mix = r.member(j, "variant_mix", w, false)) {
    if (!r.array(*mix, at(w, "variant_mix"), "an array of weights >= 0")) return false;
    for (std::size_t i = 0; i < mix->size(); ++i) {
      double v = 0;
      if (!r.number((*mix)[i], at(at(w, "variant_mix"), i), 0, 1e9, v)) return false;
      g.spec.variant_mix.push_back(v);
    }
  }
  const json* members = r.member(j, "members", w, true);
  if (members == nullptr || !r.array(*members, at(w, "members"), "an array of members")) {
    return false;
  }
  g.members.resize(members->size());
  for (std::size_t i = 0; i < members->size(); ++i) {
    if (!read_member(r, walk, (*members)[i], at(at(w, "members"), i), g.members[i])) return false;
  }
  g.spec.count =
      count >= 0 ? static_cast<std::uint32_t>(count) : static_cast<std::uint32_t>(g.members.size());
  return true;
}

bool read_path(Reader& r, const WalkNetwork& walk, const json& j, const std::string& w,
               WanderingPath& out) {
  if (!r.keys(j, w, {"steps", "length_m"}, "a path object {\"steps\": [[lane, dir], ...]}")) {
    return false;
  }
  const json* steps = r.member(j, "steps", w, true);
  if (steps == nullptr) return false;
  if (!steps->is_array() || steps->empty()) {
    return r.fail(at(w, "steps"), "a non-empty array of steps [lane, dir]", steps);
  }
  std::vector<WalkStep> list(steps->size());
  for (std::size_t i = 0; i < steps->size(); ++i) {
    const json& s = (*steps)[i];
    const std::string sw = at(at(w, "steps"), i);
    if (!s.is_array() || s.size() != 2) return r.fail(sw, "a step [lane, dir]", &s);
    if (!read_lane(r, walk, s[0], at(sw, std::size_t{0}), true, list[i].lane)) return false;
    if (!s[1].is_number_integer() ||
        (s[1].get<std::int64_t>() != 1 && s[1].get<std::int64_t>() != -1)) {
      return r.fail(at(sw, std::size_t{1}), "1 or -1", &s[1]);
    }
    list[i].dir = static_cast<std::int8_t>(s[1].get<std::int64_t>());
  }
  // Closed and continuous: each step (and the first, after the last) is an exit of the one
  // before.
  for (std::size_t i = 0; i < list.size(); ++i) {
    const WalkStep prev = list[(i + list.size() - 1) % list.size()];
    const auto [b, e] = walk.exits_after(prev.lane, prev.dir);
    if (std::find(b, e, list[i]) == e) {
      return r.fail(at(at(w, "steps"), i),
                    "a step that starts where the previous one (lane " + std::to_string(prev.lane) +
                        ", dir " + std::to_string(prev.dir) +
                        ") ends: the path must be a closed chain",
                    &(*steps)[i]);
    }
  }
  out = make_path(walk, std::move(list));
  if (const json* l = r.member(j, "length_m", w, false)) {
    double v = 0;
    if (!r.number(*l, at(w, "length_m"), out.length_m() - 0.01, out.length_m() + 0.01, v)) {
      return false;  // The lanes changed since the file was written.
    }
  }
  return true;
}

bool read_walker(Reader& r, const std::vector<WanderingPath>& paths, const json& j,
                 const std::string& w, WanderingMember& m) {
  if (!r.keys(j, w, {"path", "phase_m", "speed_mps", "lateral_m", "variant"},
              "a member object {\"path\", \"phase_m\", \"speed_mps\", ...}")) {
    return false;
  }
  const json* p = r.member(j, "path", w, true);
  std::int64_t idx = 0;
  if (p == nullptr ||
      !r.integer(*p, at(w, "path"), 0, static_cast<std::int64_t>(paths.size()) - 1, idx)) {
    return false;
  }
  m.path = static_cast<std::uint32_t>(idx);
  double v = 0;
  const json* ph = r.member(j, "phase_m", w, true);
  // The phase is taken modulo the length; 1 cm of slack as for length_m.
  if (ph == nullptr ||
      !r.number(*ph, at(w, "phase_m"), 0, paths[m.path].length_m() + 0.01, m.phase_m)) {
    return false;
  }
  const json* sp = r.member(j, "speed_mps", w, true);
  if (sp == nullptr || !r.number(*sp, at(w, "speed_mps"), 0, 10, v, true)) return false;
  m.speed_mps = static_cast<float>(v);
  if (const json* l = r.member(j, "lateral_m", w, false)) {
    if (!r.number(*l, at(w, "lateral_m"), -10, 10, v)) return false;
    m.lateral_m = static_cast<float>(v);
  }
  return read_variant(r, j, w, m.variant);
}

bool read_document(Reader& r, const WalkNetwork& walk, const json& doc, ShepherdsFile& out) {
  if (!r.keys(doc, "/", {"format", "groups", "wandering"}, "an object")) return false;
  if (const json* f = r.member(doc, "format", "", false)) {
    if (*f != "cityforge shepherds 1") return r.fail("format", "\"cityforge shepherds 1\"", f);
  }
  if (const json* g = r.member(doc, "groups", "", false)) {
    if (!r.array(*g, "groups", "an array of groups")) return false;
    out.groups.resize(g->size());
    for (std::size_t i = 0; i < g->size(); ++i) {
      if (!read_group(r, walk, (*g)[i], at("groups", i), out.groups[i])) return false;
    }
  }
  const json* wd = r.member(doc, "wandering", "", false);
  if (wd == nullptr) return true;
  if (!r.keys(*wd, "wandering", {"paths", "members"}, "an object {\"paths\", \"members\"}")) {
    return false;
  }
  if (const json* p = r.member(*wd, "paths", "wandering", false)) {
    if (!r.array(*p, "wandering.paths", "an array of paths")) return false;
    out.paths.resize(p->size());
    for (std::size_t i = 0; i < p->size(); ++i) {
      if (!read_path(r, walk, (*p)[i], at("wandering.paths", i), out.paths[i])) return false;
    }
  }
  if (const json* m = r.member(*wd, "members", "wandering", false)) {
    if (!r.array(*m, "wandering.members", "an array of members")) return false;
    out.walkers.resize(m->size());
    for (std::size_t i = 0; i < m->size(); ++i) {
      if (!read_walker(r, out.paths, (*m)[i], at("wandering.members", i), out.walkers[i])) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

std::string shepherds_json(const ShepherdsFile& file) {
  // One member / step list per line, so a designer can edit positions in a text editor.
  std::string s = "{\n  \"format\": \"cityforge shepherds 1\",\n  \"groups\": [";
  for (std::size_t i = 0; i < file.groups.size(); ++i) {
    const ShepherdGroup& g = file.groups[i];
    ojson head;
    head["name"] = g.spec.name;
    head["behaviour"] = to_string(g.spec.behaviour);
    head["count"] = g.spec.count;
    head["density"] = g.spec.density_per_m2;
    ojson poly = ojson::array();
    for (Vec2 p : g.spec.polygon)
      poly.push_back({p.x, p.y});
    head["polygon"] = poly;
    if (!g.spec.variant_mix.empty()) head["variant_mix"] = g.spec.variant_mix;
    std::string h = head.dump();
    h.pop_back();  // The closing brace: members follow.
    s += (i ? ",\n    " : "\n    ") + h + ", \"members\": [";
    for (std::size_t k = 0; k < g.members.size(); ++k) {
      const ShepherdMember& m = g.members[k];
      ojson o;
      o["lane"] = m.at.lane;
      o["s_m"] = short_float(m.at.s_m);
      o["dir"] = static_cast<int>(m.at.dir);
      o["lateral_m"] = short_float(m.lateral_m);
      o["heading_rad"] = short_float(m.heading_rad);
      o["variant"] = m.variant;
      s += (k ? ",\n      " : "\n      ") + o.dump();
    }
    s += g.members.empty() ? "]}" : "\n    ]}";
  }
  s += file.groups.empty() ? "],\n" : "\n  ],\n";
  s += "  \"wandering\": {\n    \"paths\": [";
  for (std::size_t i = 0; i < file.paths.size(); ++i) {
    const WanderingPath& p = file.paths[i];
    ojson steps = ojson::array();
    for (const WalkStep& st : p.steps)
      steps.push_back({st.lane, static_cast<int>(st.dir)});
    ojson o;
    o["length_m"] = std::stod(format_g9(p.length_m()));
    o["steps"] = steps;
    s += (i ? ",\n      " : "\n      ") + o.dump();
  }
  s += file.paths.empty() ? "],\n" : "\n    ],\n";
  s += "    \"members\": [";
  for (std::size_t i = 0; i < file.walkers.size(); ++i) {
    const WanderingMember& m = file.walkers[i];
    ojson o;
    o["path"] = m.path;
    o["phase_m"] = m.phase_m;
    o["speed_mps"] = short_float(m.speed_mps);
    o["lateral_m"] = short_float(m.lateral_m);
    o["variant"] = m.variant;
    s += (i ? ",\n      " : "\n      ") + o.dump();
  }
  s += file.walkers.empty() ? "]\n  }\n}\n" : "\n    ]\n  }\n}\n";
  return s;
}

Result<ShepherdsFile> parse_shepherds_json(std::string_view text, const std::string& name,
                                           const WalkNetwork& walk) {
  Result<json> parsed = parse_json(text, name, kWrittenFileLimits);
  if (!parsed) return parsed.error();
  const json& doc = *parsed;
  Reader r(name);
  ShepherdsFile out;
  if (!read_document(r, walk, doc, out)) return *r.error;
  return out;
}

Result<ShepherdsFile> load_shepherds_json(const std::string& path, const WalkNetwork& walk) {
  Result<std::string> text = read_file_text(path, kWrittenFileLimits.max_bytes);
  if (!text) return text.error();
  return parse_shepherds_json(*text, path, walk);
}

}  // namespace cityforge::crowd
