// SPDX-License-Identifier: Apache-2.0
// The island generator end to end (seeds/003): grid, a first WFC pass that collapses outward
// from where units stand and favours what extends navigability, then passes that keep the
// navigable component reachable from the start and solve everything else again as water or
// air, so unreachable snippets disappear; then deformation, mesh, lift, hierarchical smoothing
// and colours.
#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "cityforge/islands/island.hpp"

namespace cityforge::islands {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Weight factors of the passes (docs/islands.md "Generation").
constexpr double kFirstPassNavigable = 2.0;  // Flat floors and paths: extend where units walk.
// Ground rising through an upper layer, by layer (the last for all above).
constexpr std::array<double, 4> kRiseFactor{1.0, 8.0, 4.0, 1.0};
constexpr double kFirstPassStairs = 80.0;     // Stairs reach new levels (the talk's high points).
constexpr double kLaterPassNavigable = 1e-3;  // Reset cells: only where the kept land forces it.
constexpr double kLaterPassLand = 0.05;       // Reset cells: cliffs and rock, sparingly.
// High points of the first pass's candidates lie this far from the start, in metres.
constexpr double kHighPointMinM = 3.0;
constexpr double kHighPointMaxM = 6.5;
// The beach candidate's flight down to the sand lies this far out, on layer 0.
constexpr std::uint32_t kBeachCandidate = 5;
constexpr double kBeachMinM = 5.0;
constexpr double kBeachMaxM = 9.0;
constexpr std::uint64_t kHighPointRngId = 0x4869676850ULL;
// Later passes allow land only this many rings of cells around the kept columns.
constexpr std::uint32_t kLandRings = 2;
// Order bias per metre from the start: the collapse moves outward from the navigable start.
constexpr double kOutwardBiasPerMetre = 0.6;

bool is_land(const TileInfo& t) {
  return t.kind != TileKind::water && t.kind != TileKind::air && t.kind != TileKind::empty;
}

Status check_config(const IslandConfig& config) {
  const std::string where = "island config";
  if (!config.grid.subdivide) {
    return Error::invalid_input(where, "grid.subdivide must be on: island tiles are quads");
  }
  if (config.grid.layers < 2 || config.grid.layers > 16) {
    return Error::invalid_input(
        where, "grid.layers must be 2..16, got " + std::to_string(config.grid.layers));
  }
  if (config.first_pass_candidates < 1 || config.first_pass_candidates > 8) {
    return Error::invalid_input(where, "first_pass_candidates must be 1..8");
  }
  if (config.max_passes < 1 || config.max_passes > 16) {
    return Error::invalid_input(where, "max_passes must be 1..16");
  }
  if (!(config.rise_m >= 0.0 && config.rise_m <= config.grid.layer_m)) {
    return Error::invalid_input(where, "rise_m must be 0..layer_m");
  }
  if (!(config.hard_vertex_max_move_m >= 0.0)) {
    return Error::invalid_input(where, "hard_vertex_max_move_m must be >= 0");
  }
  return Ok{};
}

/// Nodes reachable from `start` (by node id) in `nav`; flags per node.
std::vector<std::uint8_t> reachable(const NavGraph& nav, std::uint32_t start) {
  std::vector<std::vector<std::uint32_t>> adj(nav.nodes.size());
  for (const NavEdge& e : nav.edges) {
    adj[e.a].push_back(e.b);
    adj[e.b].push_back(e.a);
  }
  std::vector<std::uint8_t> seen(nav.nodes.size(), 0);
  if (start >= nav.nodes.size()) return seen;
  std::vector<std::uint32_t> stack{start};
  seen[start] = 1;
  while (!stack.empty()) {
    const std::uint32_t n = stack.back();
    stack.pop_back();
    for (std::uint32_t m : adj[n]) {
      if (seen[m] == 0) {
        seen[m] = 1;
        stack.push_back(m);
      }
    }
  }
  return seen;
}

std::uint32_t start_node_of(const NavGraph& nav, std::uint32_t cell, std::uint32_t layer) {
  for (std::uint32_t i = 0; i < nav.nodes.size(); ++i) {
    if (nav.nodes[i].plane_cell == cell && nav.nodes[i].layer == layer) return i;
  }
  return kNoCell;
}

/// How far units get from the start: reachable nodes, plus 25 per level beyond the first and 5
/// per flight of stairs among them.
double navigability_score(const LayeredGrid& g, const TileSet& tiles,
                          const std::vector<wfc::TileId>& solved, std::uint32_t start_cell,
                          std::uint32_t start_layer) {
  const NavGraph nav = navigation_graph(g, tiles, solved);
  const std::vector<std::uint8_t> seen =
      reachable(nav, start_node_of(nav, start_cell, start_layer));
  double score = 0.0;
  std::uint32_t levels = 0;
  for (std::uint32_t i = 0; i < nav.nodes.size(); ++i) {
    if (seen[i] == 0) continue;
    score += nav.nodes[i].stairs ? 6.0 : 1.0;
    levels |= 1U << std::min<std::uint32_t>(nav.nodes[i].layer, 31);
  }
  return score + 25.0 * (std::popcount(levels) - 1);
}

bool is_high_ground(const TileInfo& t) {
  return t.kind == TileKind::ground && !t.ground_level &&
         std::find(t.corners.begin(), t.corners.end(), kCornerSolid) != t.corners.end();
}

/// First-pass weights per layer (SolveOptions::weight_sets, class = layer): ground rising
/// through a layer weighs kRiseFactor[layer] more, so land climbs in terraces that shrink
/// upwards instead of one flat level with crumbs on it.
std::vector<std::vector<double>> first_pass_weight_sets(const TileSet& tiles,
                                                        std::uint32_t layers) {
  std::vector<std::vector<double>> sets(layers);
  for (std::uint32_t layer = 0; layer < layers; ++layer) {
    const double rise = kRiseFactor[std::min<std::size_t>(layer, kRiseFactor.size() - 1)];
    for (wfc::TileId t = 0; t < tiles.info.size(); ++t) {
      const TileInfo& info = tiles.info[t];
      double w = tiles.model.tiles[t].weight;
      if (info.kind == TileKind::stairs) {
        w *= kFirstPassStairs;
      } else if (info.navigable) {
        w *= kFirstPassNavigable;
      } else if (is_high_ground(info)) {
        w *= rise;
      }
      sets[layer].push_back(w);
    }
  }
  return sets;
}

/// The model with the later passes' weights. The first pass solves the same model with its
/// per-layer weight sets, which replace these weights in every cell.
Result<wfc::CompiledModel> later_pass_model(const TileSet& tiles) {
  wfc::Model m = tiles.model;
  for (wfc::TileId t = 0; t < m.tiles.size(); ++t) {
    const TileInfo& info = tiles.info[t];
    if (info.navigable) {
      m.tiles[t].weight *= kLaterPassNavigable;
    } else if (is_land(info) && info.kind != TileKind::house) {
      m.tiles[t].weight *= kLaterPassLand;
    }
  }
  return wfc::compile_model(m);
}

}  // namespace

Result<Island> generate_island(const IslandConfig& config, Seed seed, const TileSet& tiles) {
  if (Status st = check_config(config); !st) return st.error();
  Island island;
  IslandStats& stats = island.stats;
  const std::string where = "island (seed " + std::to_string(seed) + ")";

  // 1. Grid.
  Clock::time_point t0 = Clock::now();
  Result<LayeredGrid> grid = build_grid(config.grid, seed);
  if (!grid) return grid.error();
  island.grid = std::move(*grid);
  LayeredGrid& g = island.grid;
  const wfc::Grid wgrid = to_wfc_grid(g);
  const auto n_plane = static_cast<std::uint32_t>(g.plane.cells.size());
  stats.plane_cells = n_plane;
  stats.cells = g.cell_count();
  stats.variants = static_cast<std::uint32_t>(tiles.model.tiles.size());
  stats.constraints = static_cast<std::uint32_t>(tiles.model.constraints.size());
  stats.times.grid_ms = ms_since(t0);

  // 2. The model, compiled once for every pass.
  t0 = Clock::now();
  Result<wfc::CompiledModel> model = later_pass_model(tiles);
  if (!model) return model.error();
  stats.times.tiles_ms = ms_since(t0);

  // 3. First pass: a floor pre-placed at the cell nearest the centre on layer 1 (units start
  // there), the collapse biased outward from it.
  t0 = Clock::now();
  std::uint32_t start_cell = 0;
  double best = std::numeric_limits<double>::infinity();
  for (std::uint32_t c = 0; c < n_plane; ++c) {
    const Vec2 p = cell_centroid(g.plane, g.plane.cells[c]);
    const double d = p.x * p.x + p.y * p.y;
    if (d < best) {
      best = d;
      start_cell = c;
    }
  }
  wfc::TileId start_tile = wfc::kNoTile;
  double start_weight = 0.0;
  for (wfc::TileId t = 0; t < tiles.info.size(); ++t) {
    const TileInfo& info = tiles.info[t];
    if (info.kind == TileKind::ground && info.navigable && !info.ground_level &&
        tiles.model.tiles[t].weight > start_weight) {
      start_tile = t;
      start_weight = tiles.model.tiles[t].weight;
    }
  }
  if (start_tile == wfc::kNoTile) {
    return Error::invalid_input(where, "the tile set has no flat upper ground tile to start on");
  }
  const std::uint32_t start_layer = 1;
  const wfc::CellId start_id = g.cell_id(start_cell, start_layer);
  const Vec2 start_p = cell_centroid(g.plane, g.plane.cells[start_cell]);
  std::vector<double> from_start(n_plane);  // Metres from the start cell's centre.
  for (std::uint32_t c = 0; c < n_plane; ++c) {
    const Vec2 d = cell_centroid(g.plane, g.plane.cells[c]) - start_p;
    from_start[c] = std::hypot(d.x, d.y);
  }

  wfc::SolveOptions opt;
  opt.seed = seed;
  opt.backtrack_budget = 512;
  opt.max_restarts = 8;
  const wfc::TileId empty = tiles.model.empty;
  opt.allow = [empty](wfc::CellId, wfc::TileId t) { return t != empty; };
  opt.weight_sets = first_pass_weight_sets(tiles, g.layers);
  opt.weight_class.resize(g.cell_count());
  for (std::uint32_t layer = 0; layer < g.layers; ++layer) {
    for (std::uint32_t c = 0; c < n_plane; ++c) {
      opt.weight_class[g.cell_id(c, layer)] = static_cast<std::uint8_t>(layer);
    }
  }
  opt.order_bias.resize(g.cell_count());
  for (std::uint32_t layer = 0; layer < g.layers; ++layer) {
    for (std::uint32_t c = 0; c < n_plane; ++c) {
      opt.order_bias[g.cell_id(c, layer)] = kOutwardBiasPerMetre * from_start[c];
    }
  }
  // Candidates: the plain first pass, then ones with a high point pre-placed a few metres
  // away (layer 2 or 3) for the solver to climb to. The candidate whose reachable part is
  // largest, counting new levels and stairs extra, is kept (seeds/003, 32:22: "it always tries
  // to extend the navigability").
  std::vector<std::uint32_t> ring;
  std::vector<std::uint32_t> shore;  // Farther out, where a beach may be.
  for (std::uint32_t c = 0; c < n_plane; ++c) {
    const double r = from_start[c];
    if (r >= kHighPointMinM && r <= kHighPointMaxM) ring.push_back(c);
    if (r >= kBeachMinM && r <= kBeachMaxM) shore.push_back(c);
  }
  std::vector<wfc::TileId> stair_tiles;
  std::vector<wfc::TileId> beach_stairs;
  for (wfc::TileId t = 0; t < tiles.info.size(); ++t) {
    if (tiles.info[t].kind != TileKind::stairs) continue;
    (tiles.info[t].ground_level ? beach_stairs : stair_tiles).push_back(t);
  }
  std::vector<wfc::TileId> solved;
  double best_score = -1.0;
  Error first_error = Error::invalid_input(where, "no first pass ran");
  for (std::uint32_t attempt = 0; attempt < config.first_pass_candidates; ++attempt) {
    std::vector<wfc::Fixed> fixed{{start_id, start_tile}};
    if (attempt > 0) {
      // Odd candidates: a flight of stairs up from the start's level, turned at random (but
      // candidate kBeachCandidate: a flight down to a beach farther out); even ones: a floor one or
      // two levels up.
      if (ring.empty() || g.layers <= start_layer + 1) break;
      Rng rng{seed, Stage::islands, kHighPointRngId, attempt};
      const std::uint32_t c = ring[rng.below(static_cast<std::uint32_t>(ring.size()))];
      if (attempt == kBeachCandidate && !beach_stairs.empty() && !shore.empty()) {
        // A flight down to the sand: beaches are only kept where units can walk onto them.
        const std::uint32_t b = shore[rng.below(static_cast<std::uint32_t>(shore.size()))];
        const wfc::TileId t =
            beach_stairs[rng.below(static_cast<std::uint32_t>(beach_stairs.size()))];
        fixed.push_back({g.cell_id(b, 0), t});
      } else if (attempt % 2 == 1 && !stair_tiles.empty()) {
        const wfc::TileId t =
            stair_tiles[rng.below(static_cast<std::uint32_t>(stair_tiles.size()))];
        fixed.push_back({g.cell_id(c, start_layer), t});
      } else {
        const std::uint32_t up = std::min<std::uint32_t>(attempt % 4 == 0 ? 3 : 2, g.layers - 1);
        fixed.push_back({g.cell_id(c, up), start_tile});
      }
    }
    opt.object_id = attempt;
    Result<wfc::Solution> sol = wfc::solve(*model, wgrid, fixed, opt);
    if (!sol) {
      if (attempt == 0) first_error = sol.error();
      continue;
    }
    stats.backtracks += sol->stats.backtracks;
    stats.contradictions += sol->stats.contradictions;
    const double score = navigability_score(g, tiles, sol->tiles, start_cell, start_layer);
    if (score > best_score) {
      best_score = score;
      solved = std::move(sol->tiles);
    }
  }
  if (solved.empty()) {
    return Error::invalid_input(where, "first pass: " + first_error.message);
  }
  stats.passes = 1;
  stats.times.solve_ms = ms_since(t0);

  // 4. Later passes: keep the columns of the navigable cells reachable from the start (and
  // the houses beside them), reset the rest and solve it again as water or air. Repeats while
  // unreachable navigable cells remain; the last pass forbids navigable tiles in reset cells.
  t0 = Clock::now();
  for (std::uint32_t pass = 1; pass <= config.max_passes; ++pass) {
    const NavGraph nav = navigation_graph(g, tiles, solved);
    const std::uint32_t start_node = start_node_of(nav, start_cell, start_layer);
    const std::vector<std::uint8_t> keep_node = reachable(nav, start_node);
    std::uint32_t unreachable = 0;
    for (std::uint8_t k : keep_node)
      unreachable += k == 0 ? 1U : 0U;
    if (unreachable == 0 && pass > 1) break;
    stats.removed_snippets += unreachable;

    std::vector<std::uint8_t> keep_column(n_plane, 0);
    for (std::uint32_t i = 0; i < nav.nodes.size(); ++i) {
      if (keep_node[i] != 0) keep_column[nav.nodes[i].plane_cell] = 1;
    }
    // Houses standing beside kept floors stay with them.
    std::vector<std::uint8_t> house_column(n_plane, 0);
    for (std::uint32_t c = 0; c < n_plane; ++c) {
      if (keep_column[c] != 0) continue;
      for (std::uint32_t layer = 0; layer < g.layers && house_column[c] == 0; ++layer) {
        if (tiles.info[solved[g.cell_id(c, layer)]].kind != TileKind::house) continue;
        const Cell& cell = g.plane.cells[c];
        for (std::uint32_t k = 0; k < cell.count; ++k) {
          const std::uint32_t o = side_neighbour(g.plane, c, k).cell;
          if (o != kNoCell && keep_column[o] != 0) house_column[c] = 1;
        }
      }
    }
    std::vector<wfc::Fixed> fixed;
    for (std::uint32_t layer = 0; layer < g.layers; ++layer) {
      for (std::uint32_t c = 0; c < n_plane; ++c) {
        if (keep_column[c] != 0 || house_column[c] != 0) {
          const wfc::CellId id = g.cell_id(c, layer);
          fixed.push_back({id, solved[id]});
        }
      }
    }
    const bool last = pass == config.max_passes;
    wfc::SolveOptions later = opt;
    later.object_id = pass;
    later.order_bias.clear();
    later.weight_sets.clear();
    later.weight_class.clear();
    // Per 3D cell: 0 kept; 1 reset near kept land (within kLandRings rings of cells around a
    // kept column: the ground there may have to step down); 2 reset farther out: open water or
    // air only, so no rock pillars or islets grow far from where units walk. If that leaves no
    // solution, the pass runs again with land allowed in every reset cell.
    std::vector<std::uint8_t> near(n_plane, 0);
    for (std::uint32_t c = 0; c < n_plane; ++c) {
      near[c] = keep_column[c] != 0 || house_column[c] != 0 ? 1 : 0;
    }
    for (std::uint32_t r = 0; r < kLandRings; ++r) {
      std::vector<std::uint8_t> vertex(g.plane.vertices.size(), 0);
      for (std::uint32_t c = 0; c < n_plane; ++c) {
        if (near[c] == 0) continue;
        const Cell& cell = g.plane.cells[c];
        for (std::uint32_t k = 0; k < cell.count; ++k)
          vertex[cell.vertices[k]] = 1;
      }
      for (std::uint32_t c = 0; c < n_plane; ++c) {
        const Cell& cell = g.plane.cells[c];
        for (std::uint32_t k = 0; k < cell.count; ++k) {
          if (vertex[cell.vertices[k]] != 0) near[c] = 1;
        }
      }
    }
    std::vector<std::uint8_t> reset(g.cell_count(), 0);
    for (std::uint32_t c = 0; c < n_plane; ++c) {
      if (keep_column[c] != 0 || house_column[c] != 0) continue;
      for (std::uint32_t layer = 0; layer < g.layers; ++layer) {
        reset[g.cell_id(c, layer)] = near[c] != 0 ? 1 : 2;
      }
    }
    const auto allow_with = [&](bool rings) {
      return [empty, last, rings, &tiles, &reset](wfc::CellId c, wfc::TileId t) {
        if (t == empty) return false;
        const TileInfo& info = tiles.info[t];
        if (rings && reset[c] == 2) {
          return info.kind == TileKind::water || info.kind == TileKind::air;
        }
        return reset[c] == 0 || !last || !info.navigable;
      };
    };
    later.allow = allow_with(true);
    Result<wfc::Solution> again = wfc::solve(*model, wgrid, fixed, later);
    if (!again) {
      later.allow = allow_with(false);
      again = wfc::solve(*model, wgrid, fixed, later);
    }
    ++stats.passes;
    if (!again) {
      return Error::invalid_input(
          where, "pass " + std::to_string(pass + 1) + ": " + again.error().message);
    }
    stats.backtracks += again->stats.backtracks;
    stats.contradictions += again->stats.contradictions;
    solved = std::move(again->tiles);
  }
  stats.times.solve_ms += ms_since(t0);

  // 5. Deformation of the plane, navigation on the final tiles.
  t0 = Clock::now();
  deform_grid(g, tiles, solved, config.deform_iterations);
  stats.times.deform_ms = ms_since(t0);
  t0 = Clock::now();
  island.nav = navigation_graph(g, tiles, solved);
  stats.times.navigation_ms = ms_since(t0);

  // 6. Mesh, lift, smoothing, colours.
  t0 = Clock::now();
  island.mesh = build_mesh(g, tiles, solved);
  stats.times.mesh_ms = ms_since(t0);
  t0 = Clock::now();
  lift_land(island.mesh, config.rise_m);
  stats.times.deform_ms += ms_since(t0);
  t0 = Clock::now();
  const auto [reverts, hard_move] =
      smooth_mesh(island.mesh, config.smooth_iterations, config.hard_vertex_max_move_m);
  stats.smoothing_reverts = reverts;
  stats.max_hard_vertex_move_m = hard_move;
  stats.times.smooth_ms = ms_since(t0);
  t0 = Clock::now();
  colour_island(island.mesh, seed);
  stats.times.colour_ms = ms_since(t0);

  // 7. Node heights from the final walkable surface of their cell.
  t0 = Clock::now();
  {
    std::vector<double> z_sum(g.cell_count(), 0.0);
    std::vector<std::uint32_t> z_count(g.cell_count(), 0);
    for (std::size_t t = 0; t < island.mesh.triangles.size(); ++t) {
      if (island.mesh.walkable[t] == 0) continue;
      for (std::uint32_t v : island.mesh.triangles[t]) {
        z_sum[island.mesh.cell[t]] += island.mesh.positions[v].z;
        ++z_count[island.mesh.cell[t]];
      }
    }
    for (NavNode& n : island.nav.nodes) {
      const wfc::CellId id = g.cell_id(n.plane_cell, n.layer);
      if (z_count[id] > 0) n.position.z = z_sum[id] / z_count[id];
    }
  }
  stats.times.navigation_ms += ms_since(t0);

  // 8. Counts.
  for (const NavNode& n : island.nav.nodes) {
    ++stats.navigable;
    if (n.stairs) ++stats.stairs;
  }
  for (std::uint32_t c = 0; c < n_plane; ++c) {
    bool land = false;
    for (std::uint32_t layer = 0; layer < g.layers; ++layer) {
      const TileInfo& t = tiles.info[solved[g.cell_id(c, layer)]];
      land = land || is_land(t);
      if (t.kind == TileKind::house) ++stats.houses;
    }
    if (land) ++stats.land_cells;
  }
  stats.triangles = static_cast<std::uint32_t>(island.mesh.triangles.size());
  stats.vertices = static_cast<std::uint32_t>(island.mesh.positions.size());
  island.tiles = std::move(solved);
  return island;
}

}  // namespace cityforge::islands
