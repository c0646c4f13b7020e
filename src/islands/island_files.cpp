// SPDX-License-Identifier: Apache-2.0
// `cityforge island [--seed N] [--size R] [--grid mixed|square|triangle] [--layers L] -o DIR`:
// one island level after seeds/003 (docs/islands.md): the built-in tile set, the generator, and
// its files written all or none.
#include "cityforge/islands/island_files.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cityforge/core/atomic_file.hpp"
#include "cityforge/core/format.hpp"
#include "cityforge/core/json_parse.hpp"
#include "cityforge/core/text_file.hpp"
#include "cityforge/islands/io.hpp"
#include "cityforge/islands/kit.hpp"

namespace cityforge::islands {
namespace {

constexpr std::uint32_t kMinSize = 2;
constexpr std::uint32_t kMaxSize = 24;
constexpr std::uint32_t kMinLayers = 2;
constexpr std::uint32_t kMaxLayers = 12;

/// A non-negative decimal integer (the whole string, at most 20 digits, no overflow).
bool parse_u64(const std::string& s, std::uint64_t& out) {
  if (s.empty() || s.size() > 20) return false;
  out = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return false;
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (out > (UINT64_MAX - d) / 10) return false;
    out = out * 10 + d;
  }
  return true;
}

}  // namespace

Result<IslandEdit> parse_edit(const std::string& e) {
  const std::size_t colon = e.find(':');
  std::uint64_t cell = 0;
  std::string kind = colon == std::string::npos ? std::string() : e.substr(colon + 1);
  std::uint64_t colour = 0;
  bool ok = colon != std::string::npos && parse_u64(e.substr(0, colon), cell) && cell <= UINT32_MAX;
  if (ok && kind.rfind("paint:", 0) == 0) {
    ok = parse_u64(kind.substr(6), colour) && colour < kPaintColours;
    kind = "paint";
  } else {
    ok = ok && (kind == "raise" || kind == "lower");
  }
  if (!ok) {
    return Error::invalid_input("--edit",
                                "expected CELL:raise, CELL:lower or CELL:paint:COLOUR (CELL a "
                                "plane cell of island_tiles.json, COLOUR 0.." +
                                    std::to_string(kPaintColours - 1) + "), got '" + e + "'");
  }
  const EditKind k = kind == "raise"   ? EditKind::raise
                     : kind == "lower" ? EditKind::lower
                                       : EditKind::paint;
  return IslandEdit{static_cast<std::uint32_t>(cell), k, static_cast<std::uint8_t>(colour)};
}

std::string to_string(const IslandEdit& edit) {
  const std::string cell = std::to_string(edit.plane_cell);
  switch (edit.kind) {
    case EditKind::raise:
      return cell + ":raise";
    case EditKind::lower:
      return cell + ":lower";
    case EditKind::paint:
      break;
  }
  return cell + ":paint:" + std::to_string(edit.colour);
}

namespace {

Result<std::uint32_t> parse_in_range(const std::string& option, const std::string& text,
                                     std::uint32_t lo, std::uint32_t hi, const char* what) {
  std::uint64_t v = 0;
  if (!parse_u64(text, v) || v < lo || v > hi) {
    return Error::invalid_input(option, std::string("expected ") + what + ", a whole number in " +
                                            std::to_string(lo) + ".." + std::to_string(hi) +
                                            ", got '" + text + "'");
  }
  return static_cast<std::uint32_t>(v);
}

double ms_since(std::chrono::steady_clock::time_point t) {
  return 1000.0 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

Result<IslandConfig> island_config(const IslandRequest& opt) {
  IslandConfig config;
  if (opt.grid == "mixed") {
    config.grid.kind = GridKind::mixed;
  } else if (opt.grid == "square") {
    config.grid.kind = GridKind::square;
  } else if (opt.grid == "triangle") {
    config.grid.kind = GridKind::triangle;
  } else {
    return Error::invalid_input("--grid",
                                "expected mixed, square or triangle, got '" + opt.grid + "'");
  }
  Result<std::uint32_t> size =
      parse_in_range("--size", opt.size, kMinSize, kMaxSize, "the island's radius in cells");
  if (!size) return size.error();
  config.grid.radius = *size;
  Result<std::uint32_t> layers =
      parse_in_range("--layers", opt.layers, kMinLayers, kMaxLayers, "the number of layers");
  if (!layers) return layers.error();
  config.grid.layers = *layers;
  config.trace = opt.trace;
  return config;
}

Result<TileSet> read_kit_file(const std::string& path) {
  Result<std::string> text = read_file_text(path, std::uint64_t{256} << 20);
  if (!text) {
    return Error::invalid_input("--kit",
                                "cannot read the tile kit '" + path + "': " + text.error().message);
  }
  Result<std::vector<KitTile>> kit = read_kit_glb(
      std::span(reinterpret_cast<const std::uint8_t*>(text->data()), text->size()), path);
  if (!kit) return kit.error();
  return tile_set_from_kit(*kit, path);
}

Result<IslandFilesReport> make_island_files(
    const IslandRequest& opt, const std::function<void(const std::string&)>& progress_fn) {
  const auto progress = [&](const char* what) {
    if (progress_fn) progress_fn(what);
  };
  const auto t_start = std::chrono::steady_clock::now();
  // 1. Options, all checked before any work.
  IslandFilesReport report;
  if (!opt.write_kit.empty()) {
    Result<std::vector<std::uint8_t>> glb = write_kit_glb(builtin_kit());
    if (!glb) return glb.error();
    if (Status s = write_file_atomic(opt.write_kit, glb->data(), glb->size()); !s) {
      return s.error();
    }
    append_printf(report.summary, "wrote the built-in tile kit to %s (%zu bytes)\n",
                  opt.write_kit.c_str(), glb->size());
    if (opt.out.empty()) return report;
  }
  if (opt.out.empty()) {
    return Error::invalid_input("-o", "expected an output folder, e.g. -o island");
  }
  std::uint64_t seed = 0;
  if (!parse_u64(opt.seed, seed)) {
    return Error::invalid_input(
        "--seed", "expected a whole number in 0..18446744073709551615, got '" + opt.seed + "'");
  }
  Result<IslandConfig> config = island_config(opt);
  if (!config) return config.error();
  std::vector<IslandEdit> edits;
  for (const std::string& e : opt.edits) {
    Result<IslandEdit> edit = parse_edit(e);
    if (!edit) return edit.error();
    edits.push_back(*edit);
  }

  // 2. The tile set and the island.
  progress("tile set");
  auto t = std::chrono::steady_clock::now();
  Result<TileSet> tiles = opt.kit.empty() ? build_tile_set() : read_kit_file(opt.kit);
  if (!tiles) return tiles.error();
  IslandRunInfo run;
  run.kit = opt.kit.empty() ? "built-in" : opt.kit;
  run.seed = seed;
  run.config = *config;
  run.tile_set_ms = ms_since(t);
  progress("island");
  t = std::chrono::steady_clock::now();
  Result<Island> isl = generate_island(*config, seed, *tiles);
  progress("");
  if (!isl) return isl.error();
  run.generate_ms = ms_since(t);
  std::string edit_lines;
  for (std::size_t i = 0; i < edits.size(); ++i) {
    Result<EditReport> r = edit_island(*isl, *config, seed, *tiles, edits[i], i + 1);
    if (!r) return Error::invalid_input("--edit " + opt.edits[i], r.error().message);
    append_printf(edit_lines,
                  "  edit %s: %zu cells changed, %u ring%s solved again (%zu cells), solve %.1f "
                  "ms, whole edit %.1f ms\n",
                  opt.edits[i].c_str(), r->changed.size(), r->rings, r->rings == 1 ? "" : "s",
                  r->region.size(), r->solve_ms, r->total_ms);
  }
  run.edits = opt.edits;

  // 3. The files, all or none.
  if (Status s = write_island(opt.out, *isl, *tiles, run); !s) return s.error();

  // 4. Summary.
  const IslandStats& s = isl->stats;
  const PhaseTimes& p = s.times;
  append_printf(
      report.summary,
      "island seed %llu (%s grid, radius %u, %u layers): %u cells (%u land), %u navigable, "
      "%u stairs, %u houses, %u triangles, %u solve passes\n"
      "  ms: tile set %.1f | grid %.1f, tiles %.1f, solve %.1f, navigation %.1f, mesh %.1f, "
      "deform %.1f, smooth %.1f, light %.1f, colour %.1f | generate %.1f, total %.1f\n",
      static_cast<unsigned long long>(seed), grid_kind_name(config->grid.kind), config->grid.radius,
      config->grid.layers, s.cells, s.land_cells, s.navigable, s.stairs, s.houses, s.triangles,
      s.passes, run.tile_set_ms, p.grid_ms, p.tiles_ms, p.solve_ms, p.navigation_ms, p.mesh_ms,
      p.deform_ms, p.smooth_ms, p.light_ms, p.colour_ms, run.generate_ms, ms_since(t_start));
  report.summary += edit_lines;
  append_printf(
      report.summary,
      "wrote %s/: island.glb, island_nav.json, island_tiles.json, island_light.png, stats.json\n",
      opt.out.c_str());
  return report;
}

Result<IslandSession> IslandSession::open(const std::string& dir) {
  const std::string file = (std::filesystem::path(dir) / "stats.json").string();
  Result<std::string> text = read_file_text(file, std::uint64_t{1} << 20);
  if (!text) return Error::invalid_input(file, "cannot read it: not an island folder?");
  Result<nlohmann::json> parsed = parse_json(*text, file);
  if (!parsed) return parsed.error();
  const nlohmann::json& j = *parsed;
  IslandSession s;
  // What `cityforge island` wrote: whole numbers stay text here, island_config checks ranges.
  const auto member = [&](const nlohmann::json& o, const char* key, const char* pointer,
                          std::string& out) -> Status {
    const auto it = o.is_object() ? o.find(key) : o.end();
    if (it == o.end() || !it->is_number_unsigned()) {
      return Error::invalid_input(file + ": " + pointer,
                                  "expected the whole number `cityforge island` wrote there");
    }
    out = std::to_string(it->get<std::uint64_t>());
    return Ok{};
  };
  if (Status st = member(j, "seed", "/seed", s.m_request.seed); !st) return st.error();
  const nlohmann::json empty_object = nlohmann::json::object();
  const auto grid = j.is_object() ? j.find("grid") : j.end();
  const nlohmann::json& g = grid != j.end() ? *grid : empty_object;
  if (Status st = member(g, "radius", "/grid/radius", s.m_request.size); !st) return st.error();
  if (Status st = member(g, "layers", "/grid/layers", s.m_request.layers); !st) return st.error();
  const auto kind = g.is_object() ? g.find("kind") : g.end();
  if (kind == g.end() || !kind->is_string()) {
    return Error::invalid_input(file + ": /grid/kind", "expected mixed, square or triangle");
  }
  s.m_request.grid = kind->get<std::string>();
  if (const auto kit = j.find("kit"); kit != j.end()) {
    if (!kit->is_string()) return Error::invalid_input(file + ": /kit", "expected a text");
    if (kit->get<std::string>() != "built-in") s.m_request.kit = kit->get<std::string>();
  }
  if (const auto edits = j.find("edits"); edits != j.end()) {
    if (!edits->is_array()) return Error::invalid_input(file + ": /edits", "expected an array");
    for (std::size_t i = 0; i < edits->size(); ++i) {
      if (!(*edits)[i].is_string()) {
        return Error::invalid_input(file + ": /edits/" + std::to_string(i),
                                    "expected an edit such as \"12:raise\"");
      }
      s.m_request.edits.push_back((*edits)[i].get<std::string>());
    }
  }
  s.m_request.out = dir;
  parse_u64(s.m_request.seed, s.m_seed);  // Written from a uint64 above.
  Result<IslandConfig> config = island_config(s.m_request);
  if (!config) return config.error();
  s.m_config = *config;
  Result<TileSet> tiles =
      s.m_request.kit.empty() ? build_tile_set() : read_kit_file(s.m_request.kit);
  if (!tiles) return tiles.error();
  s.m_tiles = std::move(*tiles);
  Result<Island> island = generate_island(s.m_config, s.m_seed, s.m_tiles);
  if (!island) return island.error();
  s.m_island = std::move(*island);
  for (std::size_t i = 0; i < s.m_request.edits.size(); ++i) {
    Result<IslandEdit> e = parse_edit(s.m_request.edits[i]);
    if (!e) return e.error();
    Result<EditReport> r = edit_island(s.m_island, s.m_config, s.m_seed, s.m_tiles, *e, i + 1);
    if (!r) {
      return Error::invalid_input(file, "edit " + s.m_request.edits[i] + ": " + r.error().message);
    }
  }
  return s;
}

Result<EditReport> IslandSession::edit(const IslandEdit& edit) {
  Island next = m_island;
  Result<EditReport> r =
      edit_island(next, m_config, m_seed, m_tiles, edit, m_request.edits.size() + 1);
  if (!r) return r.error();
  IslandRunInfo run;
  run.seed = m_seed;
  run.config = m_config;
  run.kit = m_request.kit.empty() ? "built-in" : m_request.kit;
  run.edits = m_request.edits;
  run.edits.push_back(to_string(edit));
  if (Status s = write_island(m_request.out, next, m_tiles, run); !s) return s.error();
  m_island = std::move(next);
  m_request.edits = std::move(run.edits);
  return r;
}

}  // namespace cityforge::islands
