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
  const std::string kind = colon == std::string::npos ? std::string() : e.substr(colon + 1);
  if (colon == std::string::npos || !parse_u64(e.substr(0, colon), cell) || cell > UINT32_MAX ||
      (kind != "raise" && kind != "lower")) {
    return Error::invalid_input("--edit",
                                "expected CELL:raise or CELL:lower (CELL a plane cell "
                                "of island_tiles.json), got '" +
                                    e + "'");
  }
  return IslandEdit{static_cast<std::uint32_t>(cell),
                    kind == "raise" ? EditKind::raise : EditKind::lower};
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
  return config;
}

Result<TileSet> read_kit_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::invalid_input("--kit", "cannot read the tile kit '" + path + "'");
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                        std::istreambuf_iterator<char>());
  if (in.bad()) return Error::io(path, "read failed");
  Result<std::vector<KitTile>> kit = read_kit_glb(bytes, path);
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
      "deform %.1f, smooth %.1f, colour %.1f | generate %.1f, total %.1f\n",
      static_cast<unsigned long long>(seed), grid_kind_name(config->grid.kind), config->grid.radius,
      config->grid.layers, s.cells, s.land_cells, s.navigable, s.stairs, s.houses, s.triangles,
      s.passes, run.tile_set_ms, p.grid_ms, p.tiles_ms, p.solve_ms, p.navigation_ms, p.mesh_ms,
      p.deform_ms, p.smooth_ms, p.colour_ms, run.generate_ms, ms_since(t_start));
  report.summary += edit_lines;
  append_printf(report.summary,
                "wrote %s/: island.glb, island_nav.json, island_tiles.json, stats.json\n",
                opt.out.c_str());
  return report;
}

Result<IslandSession> IslandSession::open(const std::string& dir) {
  const std::string file = (std::filesystem::path(dir) / "stats.json").string();
  std::ifstream in(file);
  if (!in) return Error::invalid_input(file, "cannot read it: not an island folder?");
  IslandSession s;
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    s.m_request.seed = std::to_string(j.at("seed").get<std::uint64_t>());
    const nlohmann::json& g = j.at("grid");
    s.m_request.grid = g.at("kind").get<std::string>();
    s.m_request.size = std::to_string(g.at("radius").get<std::uint32_t>());
    s.m_request.layers = std::to_string(g.at("layers").get<std::uint32_t>());
    const std::string kit = j.value("kit", std::string("built-in"));
    if (kit != "built-in") s.m_request.kit = kit;
    if (j.contains("edits")) s.m_request.edits = j.at("edits").get<std::vector<std::string>>();
  } catch (const nlohmann::json::exception& e) {
    return Error::invalid_input(file, std::string("not an island's stats.json: ") + e.what());
  }
  s.m_request.out = dir;
  if (!parse_u64(s.m_request.seed, s.m_seed)) return Error::invalid_input(file, "bad seed");
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
  run.edits.push_back(std::to_string(edit.plane_cell) +
                      (edit.kind == EditKind::raise ? ":raise" : ":lower"));
  if (Status s = write_island(m_request.out, next, m_tiles, run); !s) return s.error();
  m_island = std::move(next);
  m_request.edits = std::move(run.edits);
  return r;
}

}  // namespace cityforge::islands
