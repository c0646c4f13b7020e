// SPDX-License-Identifier: Apache-2.0
// Walks the config field tables (config_fields.cpp): places every field in the document
// (nested tables and {class} expanded), reads a document by them, writes the canonical text of
// a struct for the cache keys, and checks that every member of a table's struct is declared.
#include "pipeline/detail/config_schema.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "cityforge/core/rng.hpp"

namespace cityforge::pipeline::detail {
namespace {

constexpr std::string_view kClass = "{class}";

std::string with_class(std::string s, std::size_t cls) {
  const auto at = s.find(kClass);
  if (at == std::string::npos) return s;
  return s.replace(at, kClass.size(), layout::to_string(static_cast<layout::RoadClass>(cls)));
}

bool per_class(std::string_view key) { return key.find(kClass) != std::string_view::npos; }

std::string join_key(const std::string& prefix, const char* key) {
  if (key[0] == '/') return key;
  if (key[0] == '\0') return prefix;
  return prefix + "/" + key;
}

void expand(const Table& t, void* s, const std::string& prefix, const std::string& pattern,
            const char* stages, std::vector<Slot>& out) {
  const char* own = t.stages != nullptr ? t.stages : stages;
  for (const Field& f : t.fields) {
    if (f.kind == Kind::hidden) continue;
    const char* st = f.stages != nullptr ? f.stages : own;
    if (f.kind == Kind::check) {
      out.push_back({&f, prefix + "/", pattern + "/", s, 0, st});
      continue;
    }
    const std::string pat = join_key(pattern, f.key);
    const std::size_t classes = per_class(f.key) ? layout::kRoadClassCount : 1;
    for (std::size_t cls = 0; cls < classes; ++cls) {
      const std::string pointer = with_class(join_key(prefix, f.key), cls);
      void* value = f.at != nullptr ? f.at(s, cls) : nullptr;
      if (f.kind == Kind::nested) {
        expand(f.table(), value, pointer, pat, st, out);
      } else {
        out.push_back({&f, pointer, pat, value, cls, st});
      }
    }
  }
}

std::string first_segment(const std::string& rel) { return rel.substr(0, rel.find('/')); }

// Reader::object with the keys known at run time (same messages).
bool known_keys(Reader& r, const json& j, const std::string& path,
                const std::vector<std::string>& allowed) {
  if (r.failed()) return false;
  if (!j.is_object()) {
    r.fail(path, "expected an object, got " + cityforge::describe_json(j));
    return false;
  }
  for (const auto& item : j.items()) {
    if (std::find(allowed.begin(), allowed.end(), item.key()) != allowed.end()) continue;
    std::string list;
    for (const std::string& k : allowed)
      list += (list.empty() ? "" : ", ") + k;
    r.fail(path + "/" + item.key(), "unknown key '" + item.key() + "'; expected one of: " + list);
    return false;
  }
  return true;
}

// Reads the object `j` at `path` holding the fields `in` (their pointers all lie under it).
void walk(Reader& r, const json& j, const std::string& path, const std::vector<Slot*>& in,
          const CityConfig& all) {
  const auto rel = [&](const Slot* s) { return s->pointer.substr(path.size() + 1); };
  // 1. Keys that moved elsewhere: a message that names the new place, not "unknown key".
  if (j.is_object()) {
    for (const Slot* s : in) {
      const std::string key = rel(s);
      if (s->field->kind == Kind::moved && key.find('/') == std::string::npos && j.contains(key)) {
        r.fail(s->pointer, s->field->moved);
        return;
      }
    }
  }
  // 2. Every key known.
  std::vector<std::string> allowed;
  for (const Slot* s : in) {
    if (s->field->kind == Kind::check || s->field->kind == Kind::moved) continue;
    const std::string seg = first_segment(rel(s));
    if (std::find(allowed.begin(), allowed.end(), seg) == allowed.end()) allowed.push_back(seg);
  }
  if (!known_keys(r, j, path, allowed)) return;
  // 3. The fields in table order; a sub-object at its first field.
  std::set<std::string> entered;
  for (std::size_t i = 0; i < in.size() && !r.failed(); ++i) {
    Slot* s = in[i];
    const Field& f = *s->field;
    if (f.kind == Kind::moved) continue;
    const std::string key = rel(s);
    const std::string seg = first_segment(key);
    if (key == seg) {
      if (f.kind == Kind::check) {
        f.check(r, path, s->value);
      } else if (f.kind != Kind::free) {  // free text: any value, not kept
        f.read(f, r, j, key, path, s->value, all);
      }
      continue;
    }
    if (!entered.insert(seg).second) continue;
    std::vector<Slot*> sub;
    for (std::size_t k = i; k < in.size(); ++k) {
      if (first_segment(rel(in[k])) == seg) sub.push_back(in[k]);
    }
    if (j.contains(seg)) walk(r, j[seg], path + "/" + seg, sub, all);
  }
}

void add_canonical(const Table& t, const void* cs, json& j) {
  void* s = const_cast<void*>(cs);  // the accessors only read here
  for (const Field& f : t.fields) {
    if (f.kind == Kind::check || f.kind == Kind::moved || f.kind == Kind::free) continue;
    const std::size_t classes = per_class(f.key) ? layout::kRoadClassCount : 1;
    for (std::size_t cls = 0; cls < classes; ++cls) {
      const std::string key = with_class(f.key, cls);
      const void* v = f.at(s, cls);
      if (f.kind == Kind::nested) {
        if (key.empty()) {
          add_canonical(f.table(), v, j);
        } else {
          j[key] = canonical(f.table(), v);
        }
      } else if (f.kind == Kind::choice) {
        j[key] = choice_text(f, v);
      } else {
        j[key] = f.text(v);
      }
    }
  }
}

void count_members(const Table& t, const void* s, std::map<std::string, std::string>& problems) {
  std::map<std::size_t, std::size_t> members;
  for (const Field& f : t.fields) {
    if (f.offset != nullptr) members[f.offset(s)] = f.weight;
    if (f.kind == Kind::nested) {
      count_members(f.table(), f.at(const_cast<void*>(s), 0), problems);
    }
  }
  std::size_t declared = 0;
  for (const auto& [offset, weight] : members)
    declared += weight;
  if (declared != t.arity) {
    problems[t.name] = std::string(t.name) + ": " + std::to_string(declared) + " of " +
                       std::to_string(t.arity) + " aggregate elements declared";
  }
}

}  // namespace

void read_number(const Field& f, Reader& r, const json& obj, const std::string& key,
                 const std::string& path, void* value, const CityConfig&) {
  r.number(obj, key.c_str(), path, *static_cast<double*>(value), f.lo, f.hi);
}

void read_integer(const Field& f, Reader& r, const json& obj, const std::string& key,
                  const std::string& path, void* value, const CityConfig&) {
  r.integer(obj, key.c_str(), path, *static_cast<int*>(value), static_cast<int>(f.lo),
            static_cast<int>(f.hi));
}

void read_count(const Field& f, Reader& r, const json& obj, const std::string& key,
                const std::string& path, void* value, const CityConfig&) {
  r.count(obj, key.c_str(), path, *static_cast<std::uint32_t*>(value),
          static_cast<std::uint32_t>(f.hi));
}

void read_uinteger(const Field& f, Reader& r, const json& obj, const std::string& key,
                   const std::string& path, void* value, const CityConfig&) {
  auto& out = *static_cast<std::uint32_t*>(value);
  int v = static_cast<int>(out);
  r.integer(obj, key.c_str(), path, v, static_cast<int>(f.lo), static_cast<int>(f.hi));
  out = static_cast<std::uint32_t>(v);
}

void read_boolean(const Field&, Reader& r, const json& obj, const std::string& key,
                  const std::string& path, void* value, const CityConfig&) {
  if (r.failed() || !obj.contains(key)) return;
  const json& v = obj[key];
  if (!v.is_boolean()) {
    r.fail(path + "/" + key, "expected true or false, got " + cityforge::describe_json(v));
    return;
  }
  *static_cast<bool*>(value) = v.get<bool>();
}

void read_text(const Field&, Reader& r, const json& obj, const std::string& key,
               const std::string& path, void* value, const CityConfig&) {
  r.string(obj, key.c_str(), path, *static_cast<std::string*>(value));
}

void read_choice(const Field& f, Reader& r, const json& obj, const std::string& key,
                 const std::string& path, void* value, const CityConfig&) {
  if (r.failed() || !obj.contains(key)) return;
  const json& v = obj[key];
  for (std::size_t i = 0; i < f.names.size(); ++i) {
    if (v.is_string() && v.get<std::string>() == f.names[i]) {
      *static_cast<std::uint8_t*>(value) = static_cast<std::uint8_t>(i);
      return;
    }
  }
  std::string names;
  for (std::size_t i = 0; i < f.names.size(); ++i) {
    names += std::string(i == 0                    ? ""
                         : i + 1 == f.names.size() ? " or "
                                                   : ", ") +
             "\"" + f.names[i] + "\"";
  }
  r.fail(path + "/" + key, "expected " + names + ", got " + cityforge::describe_json(v));
}

json choice_text(const Field& f, const void* value) {
  return f.names[*static_cast<const std::uint8_t*>(value)];
}

Field check(CheckFn fn) {
  Field f;
  f.kind = Kind::check;
  f.check = fn;
  return f;
}

Field read_by(Field f, const char* stages) {
  f.stages = stages;
  return f;
}

Field moved(const char* key, const char* message) {
  Field f;
  f.kind = Kind::moved;
  f.key = key;
  f.moved = message;
  return f;
}

Field free_text(const char* key, const char* doc) {
  Field f;
  f.kind = Kind::free;
  f.key = key;
  f.doc = doc;
  return f;
}

json canonical(const Table& table, const void* s) {
  json j = json::object();
  add_canonical(table, s, j);
  return j;
}

std::string config_text(Seed seed) { return "seed=" + std::to_string(seed) + ";"; }

std::string config_text(const Aabb2& box) {
  return json::array({box.min.x, box.min.y, box.max.x, box.max.y}).dump();
}

std::string config_text(const std::vector<freeway::FreewayCurve>& freeways) {
  return freeways_text(&freeways).dump();
}

std::string config_text(const std::vector<buildings::TagVolume>& volumes) {
  return tag_volumes_text(&volumes).dump();
}

std::string config_text(const std::vector<std::pair<std::string, std::string>>& sources) {
  return sources_text(&sources).dump();
}

std::vector<Slot> slots(CityConfig& config) {
  std::vector<Slot> out;
  expand(table_of<CityConfig>(), &config, "", "", "", out);
  return out;
}

void read_document(Reader& r, const json& doc, CityConfig& config) {
  std::vector<Slot> all = slots(config);
  std::vector<Slot*> in;
  in.reserve(all.size());
  for (Slot& s : all)
    in.push_back(&s);
  walk(r, doc, "", in, config);
}

std::vector<std::string> undeclared_members() {
  CityConfig config;
  std::map<std::string, std::string> problems;
  count_members(table_of<CityConfig>(), &config, problems);
  std::vector<std::string> out;
  for (auto& [name, problem] : problems)
    out.push_back(std::move(problem));
  return out;
}

}  // namespace cityforge::pipeline::detail
