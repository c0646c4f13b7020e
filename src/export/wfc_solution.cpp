// SPDX-License-Identifier: Apache-2.0
// `cityforge wfc --model MODEL --size X,Y,Z --seed N -o out.json|out.glb`: one solve of a WFC
// model on a square grid, for iterating on a tile set as an artist (seeds/000, 39:15-44:07:
// "you have to be able to step through it"), with --trace writing every step.
#include "cityforge/export/wfc_solution.hpp"

#include <array>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cityforge/core/format.hpp"
#include "cityforge/export/export.hpp"
#include "cityforge/rooftops/rooftops.hpp"
#include "cityforge/wfc/wfc.hpp"

namespace cityforge::exporter {
namespace {

constexpr std::uint64_t kMaxCells = 16U << 20U;

Result<std::string> read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Error::io(path, "cannot open the model file for reading");
  std::ostringstream ss;
  ss << f.rdbuf();
  if (f.bad()) return Error::io(path, "read failed");
  return ss.str();
}

/// Parses a non-negative decimal integer (the whole string); false otherwise.
bool parse_u64(const std::string& s, std::uint64_t& out) {
  if (s.empty() || s.size() > 12) return false;
  out = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return false;
    out = out * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return true;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::string cur;
  for (const char c : s) {
    if (c == sep) {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  parts.push_back(cur);
  return parts;
}

const char* kind_name(wfc::TraceStep::Kind k) {
  switch (k) {
    case wfc::TraceStep::Kind::observe:
      return "observe";
    case wfc::TraceStep::Kind::propagate:
      return "propagate";
    case wfc::TraceStep::Kind::backtrack:
      return "backtrack";
    case wfc::TraceStep::Kind::contradiction:
      return "contradiction";
    case wfc::TraceStep::Kind::restart:
      return "restart";
    case wfc::TraceStep::Kind::block:
      return "block";
  }
  return "?";
}

/// A JSON string literal (tile names come from user files).
std::string quoted(const std::string& s) { return nlohmann::json(s).dump(); }

/// "--fix x,y,z=tile" -> a fixed cell; the message names the option and what was wrong.
Result<wfc::Fixed> parse_fixed(const std::string& text, const wfc::Model& model,
                               const std::array<std::uint32_t, 3>& size) {
  const std::string where = "--fix " + text;
  const auto eq = text.find('=');
  if (eq == std::string::npos) {
    return Error::invalid_input(where, "expected x,y,z=TILE (a cell and a tile name)");
  }
  const std::vector<std::string> xyz = split(text.substr(0, eq), ',');
  if (xyz.empty() || xyz.size() > 3) {
    return Error::invalid_input(where, "expected 1 to 3 cell coordinates before '='");
  }
  std::array<std::uint64_t, 3> c{0, 0, 0};
  for (std::size_t k = 0; k < xyz.size(); ++k) {
    if (!parse_u64(xyz[k], c[k])) {
      return Error::invalid_input(
          where, "expected a non-negative integer coordinate, got '" + xyz[k] + "'");
    }
    if (c[k] >= size[k]) {
      return Error::invalid_input(where, std::string("cell coordinate ") + "xyz"[k] + " = " +
                                             xyz[k] + " is outside the grid (size " +
                                             std::to_string(size[k]) + ")");
    }
  }
  const std::string name = text.substr(eq + 1);
  const wfc::TileId tile = model.find(name);
  if (tile == wfc::kNoTile) {
    std::string names;
    for (std::size_t i = 0; i < model.tiles.size() && i < 24; ++i)
      names += (i ? ", " : "") + model.tiles[i].name;
    if (model.tiles.size() > 24) names += ", ...";
    return Error::invalid_input(
        where, "unknown tile '" + name + "' in model '" + model.name + "'; its tiles: " + names);
  }
  wfc::Fixed f;
  f.cell = static_cast<wfc::CellId>(c[0] + size[0] * (c[1] + size[1] * c[2]));
  f.tile = tile;
  return f;
}

/// out.json: the grid's tile names (x fastest, then y, then z), counts per base tile, stats.
std::string solution_json(const WfcRunOptions& opt, const wfc::Model& model,
                          const std::array<std::uint32_t, 3>& size,
                          const std::vector<wfc::Fixed>& fixed, const wfc::Solution& sol) {
  nlohmann::ordered_json j;
  j["model"] = model.name;
  j["size"] = {size[0], size[1], size[2]};
  j["dimensions"] = model.label_count / 2;
  j["seed"] = opt.seed;
  nlohmann::ordered_json fx = nlohmann::ordered_json::array();
  for (const wfc::Fixed& f : fixed)
    fx.push_back({{"cell", f.cell}, {"tile", model.tiles[f.tile].name}});
  j["fixed"] = fx;
  std::map<std::string, std::size_t> counts;
  nlohmann::ordered_json tiles = nlohmann::ordered_json::array();
  std::size_t filled = 0;
  for (const wfc::TileId t : sol.tiles) {
    if (t >= model.tiles.size()) {
      tiles.push_back(nullptr);
      continue;
    }
    tiles.push_back(model.tiles[t].name);
    ++counts[model.base_names[model.tiles[t].base]];
    if (t != model.empty) ++filled;
  }
  const wfc::SolveStats& s = sol.stats;
  j["stats"] = {{"cells", sol.tiles.size()},
                {"non_empty", filled},
                {"base_tiles", model.base_names.size()},
                {"variants", model.tiles.size()},
                {"constraints", model.constraints.size()},
                {"observations", s.observations},
                {"propagations", s.propagations},
                {"backtracks", s.backtracks},
                {"contradictions", s.contradictions},
                {"restarts", s.restarts},
                {"blocks", s.blocks},
                {"block_repairs", s.block_repairs},
                {"violations", 0}};
  nlohmann::ordered_json by_base = nlohmann::ordered_json::object();
  for (const auto& [name, n] : counts)
    by_base[name] = n;
  j["counts"] = by_base;
  j["tiles"] = tiles;
  return j.dump(1) + "\n";
}

/// trace.json: one line per step, cells with their x, y, z, tiles by name.
std::string trace_json(const wfc::Model& model, const std::array<std::uint32_t, 3>& size,
                       const std::vector<wfc::TraceStep>& trace) {
  std::string out = "{\"model\": " + quoted(model.name) + ", \"size\": [" +
                    std::to_string(size[0]) + ", " + std::to_string(size[1]) + ", " +
                    std::to_string(size[2]) + "],\n \"steps\": [";
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const wfc::TraceStep& st = trace[i];
    out += i == 0 ? "\n  " : ",\n  ";
    out += "{\"kind\": \"";
    out += kind_name(st.kind);
    out += "\", \"cell\": " + std::to_string(st.cell);
    if (st.cell < std::uint64_t{size[0]} * size[1] * size[2]) {
      out += ", \"x\": " + std::to_string(st.cell % size[0]) +
             ", \"y\": " + std::to_string(st.cell / size[0] % size[1]) +
             ", \"z\": " + std::to_string(st.cell / (size[0] * size[1]));
    }
    out += ", \"tile\": ";
    out += st.tile < model.tiles.size() ? quoted(model.tiles[st.tile].name) : "null";
    out += ", \"remaining\": " + std::to_string(st.remaining) + "}";
  }
  out += "\n ]}\n";
  return out;
}

}  // namespace

Result<std::array<std::uint32_t, 3>> parse_wfc_size(const std::string& text) {
  const std::vector<std::string> parts = split(text, ',');
  if (text.empty() || parts.size() > 3) {
    return Error::invalid_input("--size",
                                "expected X,Y,Z (1 to 3 cell counts), got '" + text + "'");
  }
  std::array<std::uint32_t, 3> size{1, 1, 1};
  std::uint64_t cells = 1;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    std::uint64_t v = 0;
    if (!parse_u64(parts[k], v)) {
      return Error::invalid_input("--size", "expected X,Y,Z as whole numbers, got '" + text + "'");
    }
    if (v == 0) {
      return Error::invalid_input("--size", std::string("a grid needs at least one cell per "
                                                        "axis, got ") +
                                                "xyz"[k] + " = 0 in '" + text + "'");
    }
    cells *= v;
    if (cells > kMaxCells) {
      return Error::invalid_input("--size", "at most " + std::to_string(kMaxCells) +
                                                " cells (use blocks for more), got '" + text + "'");
    }
    size[k] = static_cast<std::uint32_t>(v);
  }
  return size;
}

Result<wfc::Model> load_wfc_model(const std::string& spec) {
  std::string name = spec;
  const bool builtin_prefix = spec.rfind("builtin:", 0) == 0;
  if (builtin_prefix) name = spec.substr(8);
  const bool is_path =
      !builtin_prefix && (spec.find('/') != std::string::npos || spec.ends_with(".json"));
  if (is_path) {
    Result<std::string> text = read_text(spec);
    if (!text) return text.error();
    return wfc::parse_model(*text, spec);
  }
  if (name.ends_with(".json")) name.resize(name.size() - 5);
  // The rooftop model as the city uses it (tiles and the example layouts it learns from).
  if (name == "rooftop") return rooftops::builtin_rooftop_model();
  std::string names;
  for (const auto& [file, text] : wfc::builtin_model_sources()) {
    if (file == "wfc/" + name + ".json") return wfc::parse_model(text, file);
    std::string base = file.substr(file.rfind('/') + 1);
    names += (names.empty() ? "" : ", ") + base.substr(0, base.size() - 5);
  }
  return Error::invalid_input("--model", "no built-in model '" + name +
                                             "' (built-in: " + (names.empty() ? "none" : names) +
                                             "); give a path to a model .json otherwise");
}

Result<WfcRunReport> run_wfc(const WfcRunOptions& opt) {
  const auto t_start = std::chrono::steady_clock::now();
  // 1. Arguments that need no model: the output kind and the grid size.
  const bool to_glb = opt.out.ends_with(".glb");
  if (!to_glb && !opt.out.ends_with(".json")) {
    return Error::invalid_input("-o", "expected a .json or .glb path, got '" + opt.out + "'");
  }
  if (!(opt.cell_m >= 0.1 && opt.cell_m <= 100.0)) {
    return Error::invalid_input(
        "--cell", "expected a cell size in [0.1, 100] m, got " + format_g9(opt.cell_m));
  }
  Result<std::array<std::uint32_t, 3>> size = parse_wfc_size(opt.size);
  if (!size) return size.error();
  // 2. The model, and a grid with as many labels as it has.
  Result<wfc::Model> model = load_wfc_model(opt.model);
  if (!model) return model.error();
  const std::uint32_t dims = model->label_count / 2;
  if (dims < 1 || dims > 3 || model->label_count % 2 != 0) {
    return Error::invalid_input(opt.model,
                                "expected a square-grid model (2, 4 or 6 labels), "
                                "got " +
                                    std::to_string(model->label_count) + " labels");
  }
  const std::array<const char*, 3> axis_names{"X", "Y", "Z"};
  for (std::uint32_t k = dims; k < 3; ++k) {
    if ((*size)[k] != 1) {
      return Error::invalid_input("--size", "model '" + model->name + "' is " +
                                                std::to_string(dims) + "D, so " + axis_names[k] +
                                                " must be 1; got '" + opt.size + "'");
    }
  }
  const wfc::Grid grid = wfc::square_grid((*size)[0], (*size)[1], (*size)[2], dims);
  // 3. Pre-placed tiles.
  std::vector<wfc::Fixed> fixed;
  for (const std::string& f : opt.fixed) {
    Result<wfc::Fixed> one = parse_fixed(f, *model, *size);
    if (!one) return one.error();
    fixed.push_back(*one);
  }
  // 4. Solve, then check the solution independently of the solver.
  wfc::SolveOptions so;
  so.seed = opt.seed;
  so.backtrack_budget = opt.backtracks;
  so.max_restarts = opt.restarts;
  so.block_size = opt.block;
  so.trace = !opt.trace.empty();
  Result<wfc::Solution> sol = wfc::solve(*model, grid, fixed, so);
  if (!sol) return sol.error();
  const std::vector<wfc::Violation> bad = wfc::check_solution(*model, grid, sol->tiles);
  if (!bad.empty()) {
    return Error::internal("wfc", "the solver returned a grid that violates " +
                                      std::to_string(bad.size()) + " adjacencies (first: cell " +
                                      std::to_string(bad.front().cell) + ", label " +
                                      std::to_string(bad.front().label) + "); please report it");
  }
  // 5. Everything in memory first, then written through temporary names.
  std::vector<std::uint8_t> bytes;
  if (to_glb) {
    Result<std::vector<std::uint8_t>> glb =
        wfc_grid_glb(*model, grid, sol->tiles, opt.cell_m, opt.cell_m);
    if (!glb) return glb.error();
    bytes = std::move(*glb);
  } else {
    const std::string text = solution_json(opt, *model, *size, fixed, *sol);
    bytes.assign(text.begin(), text.end());
  }
  std::string trace;
  if (!opt.trace.empty()) trace = trace_json(*model, *size, sol->trace);
  if (Status s = write_file_atomic(opt.out, bytes.data(), bytes.size()); !s) {
    return s.error();
  }
  if (!opt.trace.empty()) {
    if (Status s = write_file_atomic(opt.trace, trace); !s) return s.error();
  }
  WfcRunReport report;
  {  // The summary.
    const double ms =
        1000.0 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    const wfc::SolveStats& s = sol->stats;
    append_printf(
        report.summary,
        "%s: model %s (%uD: %zu base tiles, %zu variants, %zu constraints) on %ux%ux%u, seed "
        "%llu: %zu cells solved, %llu observations, %llu backtracks, %u restarts, %u blocks "
        "(%u repaired), 0 violations; %.0f ms\n",
        opt.out.c_str(), model->name.c_str(), dims, model->base_names.size(), model->tiles.size(),
        model->constraints.size(), (*size)[0], (*size)[1], (*size)[2],
        static_cast<unsigned long long>(opt.seed), sol->tiles.size(),
        static_cast<unsigned long long>(s.observations),
        static_cast<unsigned long long>(s.backtracks), s.restarts, s.blocks, s.block_repairs, ms);
    if (!opt.trace.empty()) {
      append_printf(report.summary, "%s: %zu steps\n", opt.trace.c_str(), sol->trace.size());
    }
  }
  return report;
}

}  // namespace cityforge::exporter
