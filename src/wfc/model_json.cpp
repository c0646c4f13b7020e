// SPDX-License-Identifier: Apache-2.0
// Strict reader of WFC model files (data/wfc/*.json): tiles with symmetry, weight, size and
// edge profiles, the Empty tile, explicit constraint lists and painted example layouts, turned
// into a finalized Model. Every error names the file and the JSON pointer. Format:
// docs/wfc.md.

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>

#include "cityforge/core/json_parse.hpp"
#include "cityforge/core/json_reader.hpp"
#include "cityforge/wfc/wfc.hpp"
#include "wfc/detail/learn.hpp"
#include "wfc/detail/symmetry.hpp"

namespace cityforge::wfc {
namespace {

using nlohmann::json;
using Reader = cityforge::JsonReader;

constexpr const char* kDirections[6] = {"+x", "-x", "+y", "-y", "+z", "-z"};

using detail::in_quotes;
std::string ptr(const std::string& base, std::size_t i) { return base + "/" + std::to_string(i); }

std::string direction_list(std::uint32_t dims) {
  std::string s;
  for (std::uint32_t d = 0; d < 2 * dims; ++d)
    s += std::string(s.empty() ? "" : ", ") + kDirections[d];
  return s;
}

/// Label of a direction name valid in a model of `dims` axes, or -1.
int direction(const std::string& name, std::uint32_t dims) {
  for (std::uint32_t d = 0; d < 2 * dims; ++d) {
    if (name == kDirections[d]) return static_cast<int>(d);
  }
  return -1;
}

std::string unknown_tile(const Model& model, const std::string& name) {
  std::string msg = "unknown tile " + in_quotes(name);
  const std::string base = name.substr(0, name.find_first_of("#@"));
  const auto b = std::find(model.base_names.begin(), model.base_names.end(), base);
  std::string list;
  std::size_t shown = 0;
  for (const TileVariant& v : model.tiles) {
    if (b != model.base_names.end() &&
        v.base != static_cast<std::uint32_t>(b - model.base_names.begin())) {
      continue;
    }
    if (shown++ == 10) {
      list += ", ...";
      break;
    }
    list += std::string(list.empty() ? "" : ", ") + v.name;
  }
  if (b != model.base_names.end())
    return msg + "; the variants of " + in_quotes(base) + " are: " + list;
  return msg + "; expected a variant name such as: " + list + " (" +
         std::to_string(model.tiles.size()) + " variants)";
}

void read_bool(Reader& r, const json& obj, const char* key, const std::string& p, bool& out) {
  if (r.failed() || !obj.contains(key)) return;
  if (!obj[key].is_boolean()) {
    r.fail(p + "/" + key, "expected true or false, got " + cityforge::describe_json(obj[key]));
    return;
  }
  out = obj[key].get<bool>();
}

void read_tile(Reader& r, const json& j, const std::string& p, std::uint32_t dims, TileDef& def) {
  if (!r.object(j, p, {"name", "symmetry", "weight", "size", "profiles"}, {"name"})) return;
  r.string_at(j["name"], p + "/name", def.name);
  if (j.contains("symmetry")) {
    std::string s;
    if (r.string_at(j["symmetry"], p + "/symmetry", s)) {
      static const std::map<std::string, Symmetry> kNames = {
          {"X", Symmetry::X}, {"I", Symmetry::I}, {"D", Symmetry::D}, {"\\", Symmetry::D},
          {"T", Symmetry::T}, {"L", Symmetry::L}, {"F", Symmetry::F}};
      const auto it = kNames.find(s);
      if (it == kNames.end()) {
        r.fail(p + "/symmetry", "unknown symmetry class " + in_quotes(s) +
                                    "; expected one of: X, I, D (or \\), T, L, F");
      } else {
        def.symmetry = it->second;
      }
    }
  }
  r.number(j, "weight", p, def.weight, 0.0, 1e9, true);
  if (j.contains("size") && r.array_at(j["size"], p + "/size", true)) {
    const json& s = j["size"];
    if (s.size() > dims) {
      r.fail(p + "/size", "expected at most " + std::to_string(dims) + " sizes for a " +
                              std::to_string(dims) + "D model, got " + std::to_string(s.size()));
    }
    for (std::size_t a = 0; a < s.size() && !r.failed(); ++a) {
      if (!s[a].is_number_integer() || s[a].get<std::int64_t>() < 1 ||
          s[a].get<std::int64_t>() > 8) {
        r.fail(ptr(p + "/size", a),
               "expected a cell count 1..8, got " + cityforge::describe_json(s[a]));
        return;
      }
      def.size[a] = static_cast<std::uint8_t>(s[a].get<std::int64_t>());
    }
  }
  if (j.contains("profiles")) {
    const json& pr = j["profiles"];
    if (!pr.is_object()) {
      r.fail(p + "/profiles",
             "expected an object of direction: profile, got " + cityforge::describe_json(pr));
      return;
    }
    def.profiles.assign(2 * dims, "");
    for (const auto& item : pr.items()) {
      const int d = direction(item.key(), dims);
      if (d < 0) {
        r.fail(p + "/profiles/" + item.key(), "unknown direction " + in_quotes(item.key()) +
                                                  "; expected one of: " + direction_list(dims));
        return;
      }
      r.string_at(item.value(), p + "/profiles/" + item.key(),
                  def.profiles[static_cast<std::size_t>(d)]);
    }
  }
}

/// Splits a painted row into tile names: single characters through the legend, or words.
bool row_cells(Reader& r, const Model& model, const json& j, const std::string& p,
               const std::map<std::string, std::string>* legend, std::vector<std::string>& out) {
  std::string row;
  if (!r.string_at(j, p, row)) return false;
  std::vector<std::string> names;
  if (legend != nullptr) {
    for (std::size_t k = 0; k < row.size(); ++k) {
      const auto it = legend->find(std::string(1, row[k]));
      if (it == legend->end()) {
        r.fail(p, "character " + in_quotes(std::string(1, row[k])) +
                      " at x = " + std::to_string(k) + " is not in the legend");
        return false;
      }
      names.push_back(it->second);
    }
  } else {
    std::size_t k = 0;
    while (k < row.size()) {
      while (k < row.size() && (row[k] == ' ' || row[k] == '\t'))
        ++k;
      const std::size_t start = k;
      while (k < row.size() && row[k] != ' ' && row[k] != '\t')
        ++k;
      if (k > start) names.push_back(row.substr(start, k - start));
    }
  }
  if (names.empty()) {
    r.fail(p, "expected a row of tile names, got an empty row");
    return false;
  }
  for (std::size_t x = 0; x < names.size(); ++x) {
    if (model.find(names[x]) == kNoTile) {
      r.fail(p, "x = " + std::to_string(x) + ": " + unknown_tile(model, names[x]));
      return false;
    }
  }
  out.insert(out.end(), names.begin(), names.end());
  return true;
}

/// Rows of one layer; sets the example's x and y size (checked against earlier layers).
void read_rows(Reader& r, const Model& model, const json& rows, const std::string& p,
               const std::map<std::string, std::string>* legend, Example& ex) {
  if (!r.array_at(rows, p, true)) return;
  for (std::size_t y = 0; y < rows.size() && !r.failed(); ++y) {
    const std::size_t before = ex.cells.size();
    if (!row_cells(r, model, rows[y], ptr(p, y), legend, ex.cells)) return;
    const auto width = static_cast<std::uint32_t>(ex.cells.size() - before);
    if (ex.size_x == 0) ex.size_x = width;
    if (width != ex.size_x) {
      r.fail(ptr(p, y), "expected " + std::to_string(ex.size_x) +
                            " cells like the first row, got " + std::to_string(width));
      return;
    }
  }
  const auto height = static_cast<std::uint32_t>(rows.size());
  if (ex.size_y == 0) ex.size_y = height;
  if (height != ex.size_y) {
    r.fail(p, "expected " + std::to_string(ex.size_y) + " rows like the first layer, got " +
                  std::to_string(height));
  }
}

void read_example(Reader& r, const Model& model, const json& j, const std::string& p,
                  std::uint32_t dims, Example& ex) {
  if (!r.object(j, p,
                {"rows", "layers", "size", "cells", "legend", "empty_border", "rotations",
                 "reflections"})) {
    return;
  }
  const int forms =
      (j.contains("rows") ? 1 : 0) + (j.contains("layers") ? 1 : 0) + (j.contains("cells") ? 1 : 0);
  if (forms != 1) {
    r.fail(p, "expected exactly one of 'rows', 'layers' or 'size' + 'cells'");
    return;
  }
  read_bool(r, j, "empty_border", p, ex.empty_border);
  read_bool(r, j, "rotations", p, ex.rotations);
  read_bool(r, j, "reflections", p, ex.reflections);
  std::map<std::string, std::string> legend;
  if (j.contains("legend")) {
    const json& lg = j["legend"];
    if (!lg.is_object()) {
      r.fail(p + "/legend",
             "expected an object of character: tile name, got " + cityforge::describe_json(lg));
      return;
    }
    for (const auto& item : lg.items()) {
      const std::string lp = p + "/legend/" + item.key();
      if (item.key().size() != 1) {
        r.fail(lp, "legend keys are single characters, got " + in_quotes(item.key()));
        return;
      }
      std::string name;
      if (!r.string_at(item.value(), lp, name)) return;
      if (model.find(name) == kNoTile) {
        r.fail(lp, unknown_tile(model, name));
        return;
      }
      legend[item.key()] = name;
    }
  }
  const auto* lg = j.contains("legend") ? &legend : nullptr;
  if (j.contains("rows")) {
    read_rows(r, model, j["rows"], p + "/rows", lg, ex);
    ex.size_z = 1;
  } else if (j.contains("layers")) {
    const json& layers = j["layers"];
    if (!r.array_at(layers, p + "/layers", true)) return;
    for (std::size_t z = 0; z < layers.size() && !r.failed(); ++z)
      read_rows(r, model, layers[z], ptr(p + "/layers", z), lg, ex);
    ex.size_z = static_cast<std::uint32_t>(layers.size());
  } else {
    if (!j.contains("size")) {
      r.fail(p, "'cells' needs 'size': [x, y, z]");
      return;
    }
    const json& s = j["size"];
    if (!r.array_at(s, p + "/size", true)) return;
    std::uint32_t size[3] = {1, 1, 1};
    if (s.size() > 3)
      r.fail(p + "/size", "expected [x, y, z], got " + std::to_string(s.size()) + " sizes");
    for (std::size_t a = 0; a < s.size() && !r.failed(); ++a) {
      if (!s[a].is_number_integer() || s[a].get<std::int64_t>() < 1 ||
          s[a].get<std::int64_t>() > 100000) {
        r.fail(ptr(p + "/size", a),
               "expected a cell count >= 1, got " + cityforge::describe_json(s[a]));
        return;
      }
      size[a] = static_cast<std::uint32_t>(s[a].get<std::int64_t>());
    }
    if (r.failed()) return;
    ex.size_x = size[0];
    ex.size_y = size[1];
    ex.size_z = size[2];
    const json& cells = j["cells"];
    if (!r.array_at(cells, p + "/cells", true)) return;
    const std::size_t n = static_cast<std::size_t>(size[0]) * size[1] * size[2];
    if (cells.size() != n) {
      r.fail(p + "/cells", "expected " + std::to_string(n) + " cells (size " +
                               std::to_string(size[0]) + "x" + std::to_string(size[1]) + "x" +
                               std::to_string(size[2]) + "), got " + std::to_string(cells.size()));
      return;
    }
    for (std::size_t k = 0; k < n && !r.failed(); ++k) {
      std::string name;
      if (!r.string_at(cells[k], ptr(p + "/cells", k), name)) return;
      if (model.find(name) == kNoTile) {
        r.fail(ptr(p + "/cells", k), unknown_tile(model, name));
        return;
      }
      ex.cells.push_back(name);
    }
  }
  if (r.failed()) return;
  if ((dims < 2 && ex.size_y != 1) || (dims < 3 && ex.size_z != 1)) {
    r.fail(p, "a " + std::to_string(dims) + "D model needs " +
                  (dims < 2 ? "a single row" : "a single layer") + ", got " +
                  std::to_string(ex.size_x) + "x" + std::to_string(ex.size_y) + "x" +
                  std::to_string(ex.size_z) + " cells");
  }
}

/// Where an expand_tiles error about `tile "name"` points: that tile's entry.
Error at_tile(const Reader& r, const Error& e, const std::vector<TileDef>& defs) {
  std::string path = "/tiles";
  for (std::size_t i = 0; i < defs.size(); ++i) {
    if (e.where == "tile " + in_quotes(defs[i].name)) path = ptr("/tiles", i);
  }
  const std::string prefix = e.where.rfind("tile ", 0) == 0 ? e.where + ": " : "";
  return Error{e.code, r.where(path), prefix + e.message};
}

}  // namespace

Result<Model> parse_model(std::string_view json_text, std::string_view where) {
  const std::string file(where);
  Reader r{file};
  Result<json> parsed = parse_json(json_text, file);
  if (!parsed) return parsed.error();
  json& doc = *parsed;
  // 1. Top level and tiles.
  if (!r.object(doc, "",
                {"name", "description", "dimensions", "empty", "tiles", "constraints", "examples"},
                {"name", "dimensions", "tiles"})) {
    return r.error();
  }
  std::string name;
  if (r.string_at(doc["name"], "/name", name) && name.empty()) {
    r.fail("/name", "expected a non-empty model name");
  }
  if (doc.contains("description")) {
    std::string unused;
    r.string_at(doc["description"], "/description", unused);
  }
  int dims_int = 0;
  if (!doc["dimensions"].is_number_integer()) {
    r.fail("/dimensions", "expected 1, 2 or 3, got " + cityforge::describe_json(doc["dimensions"]));
  }
  r.integer(doc, "dimensions", "", dims_int, 1, 3);
  std::string empty;
  r.string(doc, "empty", "", empty);
  const json& tiles = doc["tiles"];
  std::vector<TileDef> defs;
  if (r.array_at(tiles, "/tiles", true)) {
    defs.resize(tiles.size());
    for (std::size_t i = 0; i < tiles.size() && !r.failed(); ++i)
      read_tile(r, tiles[i], ptr("/tiles", i), static_cast<std::uint32_t>(dims_int), defs[i]);
  }
  if (r.failed()) return r.error();
  const auto dims = static_cast<std::uint32_t>(dims_int);
  for (std::size_t i = 0; i < defs.size(); ++i) {
    for (std::size_t k = 0; k < i; ++k) {
      if (defs[k].name == defs[i].name) {
        return Error::invalid_input(r.where(ptr("/tiles", i) + "/name"),
                                    "tile name " + in_quotes(defs[i].name) +
                                        " already used by /tiles/" + std::to_string(k));
      }
    }
  }
  auto expanded = expand_tiles(defs, dims, empty);
  if (!expanded) return at_tile(r, expanded.error(), defs);
  Model model = std::move(expanded.value());
  model.name = name;
  // 2. Explicit constraints, taken literally.
  std::vector<std::pair<Constraint, std::size_t>> explicit_list;
  if (doc.contains("constraints") && r.array_at(doc["constraints"], "/constraints", false)) {
    const json& cs = doc["constraints"];
    for (std::size_t i = 0; i < cs.size() && !r.failed(); ++i) {
      const std::string p = ptr("/constraints", i);
      if (!cs[i].is_array() || cs[i].size() != 3) {
        r.fail(p, "expected [key, direction, adjacent], got " + cityforge::describe_json(cs[i]));
        break;
      }
      std::string key, dir, adj;
      r.string_at(cs[i][0], p + "/0", key);
      r.string_at(cs[i][1], p + "/1", dir);
      r.string_at(cs[i][2], p + "/2", adj);
      if (r.failed()) break;
      const TileId a = model.find(key);
      const TileId b = model.find(adj);
      const int d = direction(dir, dims);
      if (a == kNoTile) r.fail(p + "/0", unknown_tile(model, key));
      if (d < 0) {
        r.fail(p + "/1", "unknown direction " + in_quotes(dir) +
                             "; expected one of: " + direction_list(dims));
      }
      if (b == kNoTile) r.fail(p + "/2", unknown_tile(model, adj));
      if (r.failed()) break;
      const Constraint c{a, static_cast<Label>(d), b};
      explicit_list.emplace_back(c, i);
      model.constraints.push_back(c);
    }
  }
  // 3. Examples.
  std::vector<Example> examples;
  if (doc.contains("examples") && r.array_at(doc["examples"], "/examples", false)) {
    const json& exs = doc["examples"];
    examples.resize(exs.size());
    for (std::size_t i = 0; i < exs.size() && !r.failed(); ++i)
      read_example(r, model, exs[i], ptr("/examples", i), dims, examples[i]);
  }
  if (r.failed()) return r.error();
  // 4. Learning: edge profiles, then examples.
  const bool profiles = std::any_of(defs.begin(), defs.end(), [](const TileDef& d) {
    return std::any_of(d.profiles.begin(), d.profiles.end(),
                       [](const std::string& s) { return !s.empty(); });
  });
  if (profiles) {
    if (auto s = learn_from_profiles(model, defs); !s) {
      return Error{s.error().code, r.where("/tiles"), s.error().message};
    }
  }
  if (!examples.empty()) {
    auto learned = detail::learn_examples(
        model, examples, [&](std::size_t i) { return r.where(ptr("/examples", i)); });
    if (!learned) return learned.error();
  }
  // 5. Explicit lists must hold both directions; the missing pair is named at its entry.
  std::vector<Constraint> all = model.constraints;
  const auto less = [](const Constraint& x, const Constraint& y) {
    return std::tie(x.key, x.label, x.adjacent) < std::tie(y.key, y.label, y.adjacent);
  };
  std::sort(all.begin(), all.end(), less);
  for (const auto& [c, i] : explicit_list) {
    const Label o = model.opposite[c.label];
    if (!std::binary_search(all.begin(), all.end(), Constraint{c.adjacent, o, c.key}, less)) {
      const auto& t = model.tiles;
      return Error::invalid_input(
          r.where(ptr("/constraints", i)),
          "constraint [" + t[c.key].name + ", " + kDirections[c.label] + ", " + t[c.adjacent].name +
              "] has no reverse [" + t[c.adjacent].name + ", " + kDirections[o] + ", " +
              t[c.key].name + "]; constraint lists must hold both directions");
    }
  }
  // 6. The checks every model passes.
  if (auto s = finalize_model(model, file); !s) return s.error();
  return model;
}

}  // namespace cityforge::wfc
