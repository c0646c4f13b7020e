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
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "beside.hpp"
#include "cityforge/islands/island.hpp"
#include "paths.hpp"
#include "reach.hpp"

namespace cityforge::islands {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Weight factors of the passes (docs/islands.md "Generation").
// Ground rising through an upper layer, by layer (the last for all above).
constexpr std::array<double, 4> kRiseFactor{1.0, 8.0, 4.0, 1.0};
// Distance bands from the start, as fractions of the hexagon's radius, and how much more open
// sea and air weigh in each.
inline constexpr std::uint32_t kBands = 3;
// Flat land and solid rock weigh as much less there: the coast closes rather than the land
// running on to the grid's rim (a flat floor weighs 100x a straight shore).
constexpr std::array<double, kBands - 1> kBandEdge{0.45, 0.7};
constexpr std::array<double, kBands> kOpenFactor{1.0, 30.0, 300.0};
// Notches (land on three corners, none on the fourth, above the ground layer) weigh this much
// less again, besides the distance band's factor.
constexpr double kNotchFactor = 10.0;
constexpr double kFirstPassStairs = 80.0;
// Houses, which stand only on square cells of a mixed grid, a little likelier than their
// weight: the later passes used to put most houses into reset cells beside the kept land, and
// those are now mostly triangle cells, where no house may stand.
constexpr double kFirstPassHouses = 1.5;      // Stairs reach new levels (the talk's high points).
constexpr double kLaterPassNavigable = 1e-3;  // Reset cells: only where the kept land forces it.
constexpr double kLaterPassLand = 0.05;       // Reset cells: cliffs and rock, sparingly.
// Units start on a flat floor pre-placed on this layer.
constexpr std::uint32_t kStartLayer = 1;
// The first attempt's goal, a flight down to the sand, lies this far out, on layer 0.
constexpr double kBeachMinM = 5.0;
constexpr double kBeachMaxM = 9.0;
constexpr std::uint64_t kBeachGoalRngId = 0x4869676850ULL;
// The first attempts that have such a goal, each on another seeded cell.
constexpr std::uint32_t kGoalAttempts = 2;
// Decisions undone before an attempt begins again on a new stream, and how many times: the
// attempt with the beach goal (and an edit), and the plain ones.
constexpr std::uint32_t kBacktrackBudget = 64;
constexpr std::uint32_t kGoalRestarts = 12;
constexpr std::uint32_t kPlainRestarts = 40;
// A first pass is kept when at least 1/kMinWalkableShare of the plane's cells are walkable.
constexpr std::uint32_t kMinWalkableShare = 16;
// An edit solves again at most this many rings of cells around the edited one.
constexpr std::uint32_t kEditRings = 3;
// In the cells an edit solves again, the tile that was there weighs this many times more.
constexpr double kEditKeepFactor = 1e5;
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

/// Land on three corners and none on the fourth, above the ground layer (docs/islands.md).
bool is_notch(const TileInfo& t) {
  return is_land(t) && !t.ground_level &&
         std::count(t.corners.begin(), t.corners.end(), kCornerEmpty) == 1;
}

bool is_high_ground(const TileInfo& t) {
  return t.kind == TileKind::ground && !t.ground_level &&
         std::find(t.corners.begin(), t.corners.end(), kCornerSolid) != t.corners.end();
}

/// The talk's rule on a mixed grid (seeds/003, 9:34: "only allow flat planes on the square
/// tiles"): a cell from a square of the base pattern holds only flat tiles (every corner in the
/// same state: sea, air, floor, path, house, solid rock; no slope, cliff, shore, landing or
/// stairs), a cell from a triangle every tile but a house. On a grid of one family (the square
/// and triangle kinds) every cell may hold every tile.
struct Families {
  bool on = false;
  std::uint32_t n_plane = 1;
  std::vector<std::uint8_t> square;       // Per plane cell.
  std::vector<std::uint8_t> on_square;    // Per tile: may stand in a square cell.
  std::vector<std::uint8_t> on_triangle;  // Per tile: may stand in a triangle cell.

  Families(const LayeredGrid& g, const TileSet& tiles)
      : on(mixed_families(g.plane)),
        n_plane(static_cast<std::uint32_t>(std::max<std::size_t>(g.plane.cells.size(), 1))) {
    for (const Cell& cell : g.plane.cells)
      square.push_back(square_family(cell) ? 1 : 0);
    for (const TileInfo& info : tiles.info) {
      const bool flat = std::all_of(info.corners.begin(), info.corners.end(),
                                    [&](std::uint8_t x) { return x == info.corners[0]; });
      on_square.push_back(flat && info.kind != TileKind::stairs ? 1 : 0);
      on_triangle.push_back(info.kind != TileKind::house ? 1 : 0);
    }
  }
  bool square_cell(std::uint32_t plane_cell) const { return on && square[plane_cell] != 0; }
  bool allows(wfc::CellId c, wfc::TileId t) const {
    if (!on) return true;
    return square[c % n_plane] != 0 ? on_square[t] != 0 : on_triangle[t] != 0;
  }
};

/// Adds to `mark` (per plane cell) the whole field of every marked square cell: the square
/// cells joined to it by sides, which on a mixed grid can only stand at one height together.
void grow_fields(const PlanarGrid& plane, const Families& families,
                 std::vector<std::uint8_t>& mark) {
  std::vector<std::uint32_t> stack;
  for (std::uint32_t c = 0; c < plane.cells.size(); ++c)
    if (mark[c] != 0 && families.square_cell(c)) stack.push_back(c);
  while (!stack.empty()) {
    const std::uint32_t c = stack.back();
    stack.pop_back();
    for (std::uint32_t k = 0; k < plane.cells[c].count; ++k) {
      const std::uint32_t o = side_neighbour(plane, c, k).cell;
      if (o == kNoCell || mark[o] != 0 || !families.square_cell(o)) continue;
      mark[o] = 1;
      stack.push_back(o);
    }
  }
}

/// First-pass weights per layer and distance band (SolveOptions::weight_sets, class = layer *
/// kBands + band): ground rising through a layer weighs kRiseFactor[layer] more, so land climbs
/// in terraces that shrink upwards instead of one flat level with crumbs on it; open sea and
/// air weigh kOpenFactor[band] more the farther the band lies from the start, so the land
/// stays an island with sea around it rather than a plateau filling the grid to its rim.
std::vector<std::vector<double>> first_pass_weight_sets(const TileSet& tiles,
                                                        std::uint32_t layers) {
  std::vector<std::vector<double>> sets(std::size_t{layers} * kBands);
  for (std::uint32_t layer = 0; layer < layers; ++layer) {
    const double rise = kRiseFactor[std::min<std::size_t>(layer, kRiseFactor.size() - 1)];
    for (std::uint32_t band = 0; band < kBands; ++band) {
      std::vector<double>& set = sets[std::size_t{layer} * kBands + band];
      for (wfc::TileId t = 0; t < tiles.info.size(); ++t) {
        const TileInfo& info = tiles.info[t];
        double w = tiles.model.tiles[t].weight;
        if (info.kind == TileKind::stairs) {
          w *= kFirstPassStairs;
        } else if (info.kind == TileKind::house) {
          w *= kFirstPassHouses;
        } else if (is_high_ground(info)) {
          w *= rise;
        } else if (info.kind == TileKind::water || info.kind == TileKind::air) {
          w *= kOpenFactor[band];
        } else if (is_land(info) &&
                   std::all_of(info.corners.begin(), info.corners.end(),
                               [&](std::uint8_t x) { return x == info.corners[0]; })) {
          w /= kOpenFactor[band];
        } else if (is_notch(info)) {
          // A notch: ground on three corners, none on the fourth. Cheap next to flat land
          // penalised far out, and cells of triangles around one vertex would all take it,
          // leaving a pit in a plateau; it stays for bays where the coast needs one.
          w /= kOpenFactor[band] * kNotchFactor;
        }
        set.push_back(w);
      }
    }
  }
  return sets;
}

/// Marks every plane cell that shares a corner with a marked one, `rings` times over.
void grow_rings(const PlanarGrid& plane, std::vector<std::uint8_t>& mark, std::uint32_t rings) {
  for (std::uint32_t r = 0; r < rings; ++r) {
    std::vector<std::uint8_t> vertex(plane.vertices.size(), 0);
    for (std::size_t c = 0; c < plane.cells.size(); ++c) {
      if (mark[c] == 0) continue;
      const Cell& cell = plane.cells[c];
      for (std::uint32_t k = 0; k < cell.count; ++k)
        vertex[cell.vertices[k]] = 1;
    }
    for (std::size_t c = 0; c < plane.cells.size(); ++c) {
      const Cell& cell = plane.cells[c];
      for (std::uint32_t k = 0; k < cell.count; ++k) {
        if (vertex[cell.vertices[k]] != 0) mark[c] = 1;
      }
    }
  }
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
      if (is_notch(info)) m.tiles[t].weight /= kNotchFactor;  // No pits in a plateau.
    }
  }
  return wfc::compile_model(m);
}

/// The first pass's start and options (docs/islands.md "Generation"), shared by the generator
/// and by edits, which solve their region with the same weights.
struct FirstPass {
  std::uint32_t start_cell = 0;
  wfc::CellId start_id = 0;
  wfc::TileId start_tile = wfc::kNoTile;
  std::vector<double> from_start;  ///< Per plane cell: metres from the start cell's centre.
  std::shared_ptr<const Families> families;  ///< The tile rule of the grid's cell families.
  wfc::SolveOptions opt;                     ///< Without the reach check (hook_reach adds it).
};

Result<FirstPass> first_pass(const LayeredGrid& g, const IslandConfig& config, Seed seed,
                             const TileSet& tiles, const std::string& where) {
  const auto n_plane = static_cast<std::uint32_t>(g.plane.cells.size());
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
  const wfc::TileId start_tile = flat_floor(tiles, false);
  if (start_tile == wfc::kNoTile) {
    return Error::invalid_input(where, "the tile set has no flat upper ground tile to start on");
  }
  const wfc::CellId start_id = g.cell_id(start_cell, kStartLayer);
  const Vec2 start_p = cell_centroid(g.plane, g.plane.cells[start_cell]);
  std::vector<double> from_start(n_plane);  // Metres from the start cell's centre.
  for (std::uint32_t c = 0; c < n_plane; ++c) {
    const Vec2 d = cell_centroid(g.plane, g.plane.cells[c]) - start_p;
    from_start[c] = std::hypot(d.x, d.y);
  }

  wfc::SolveOptions opt;
  opt.seed = seed;
  // Short attempts and many restarts: a collapse that walled walkable land in is better begun
  // again than undone step by step.
  opt.backtrack_budget = kBacktrackBudget;
  const wfc::TileId empty = tiles.model.empty;
  auto families = std::make_shared<const Families>(g, tiles);
  opt.allow = [empty, families](wfc::CellId c, wfc::TileId t) {
    return t != empty && families->allows(c, t);
  };
  opt.weight_sets = first_pass_weight_sets(tiles, g.layers);
  opt.weight_class.resize(g.cell_count());
  const double hex_m = config.grid.radius * config.grid.cell_m;
  for (std::uint32_t layer = 0; layer < g.layers; ++layer) {
    for (std::uint32_t c = 0; c < n_plane; ++c) {
      std::uint32_t band = 0;
      while (band + 1 < kBands && from_start[c] > kBandEdge[band] * hex_m)
        ++band;
      opt.weight_class[g.cell_id(c, layer)] = static_cast<std::uint8_t>(layer * kBands + band);
    }
  }
  opt.order_bias.resize(g.cell_count());
  for (std::uint32_t layer = 0; layer < g.layers; ++layer) {
    for (std::uint32_t c = 0; c < n_plane; ++c) {
      opt.order_bias[g.cell_id(c, layer)] = kOutwardBiasPerMetre * from_start[c];
    }
  }
  return FirstPass{.start_cell = start_cell,
                   .start_id = start_id,
                   .start_tile = start_tile,
                   .from_start = std::move(from_start),
                   .families = std::move(families),
                   .opt = std::move(opt)};
}

/// Steps 5-8 of the generator on solved tiles: deformation of the plane (island.grid must be
/// the undeformed grid), navigation, mesh, lift, smoothing, colours, node heights, counts.
void finish_island(Island& island, const IslandConfig& config, Seed seed, const TileSet& tiles,
                   std::vector<wfc::TileId> solved) {
  IslandStats& stats = island.stats;
  LayeredGrid& g = island.grid;
  const auto n_plane = static_cast<std::uint32_t>(g.plane.cells.size());
  stats.navigable = stats.stairs = stats.houses = stats.land_cells = 0;
  Clock::time_point t0;
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
  bake_light(island.mesh, island.light);
  stats.times.light_ms = ms_since(t0);
  t0 = Clock::now();
  // The contrast map beside the colours (it reads only the triangles and their edges).
  ContrastMap contrast;
  run_beside([&] { contrast = contrast_map(island.mesh, seed); },
             [&] { colour_island(island.mesh, seed, island.paint, n_plane); });
  island.mesh.contrast.resize(contrast.patch.size());
  for (std::size_t t = 0; t < contrast.patch.size(); ++t)
    island.mesh.contrast[t] = contrast.colour[contrast.patch[t]];
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
}

/// Every walkable tile stays reachable from the start while the solver works (reach.hpp).
void hook_reach(wfc::SolveOptions& opt, ReachCheck& reach) {
  opt.watch = reach.watched();
  opt.check = [&reach](const wfc::SearchView& v, std::span<const wfc::CellId> changed) {
    return reach(v, changed);
  };
}

// A solve's steps without the propagations (IslandConfig::trace).
void keep_trace(Island& island, std::string label, const std::vector<wfc::Fixed>& fixed,
                std::vector<wfc::TraceStep> steps) {
  SolveTrace t;
  t.label = std::move(label);
  t.fixed = fixed;
  for (const wfc::TraceStep& s : steps)
    if (s.kind != wfc::TraceStep::Kind::propagate) t.steps.push_back(s);
  island.trace.push_back(std::move(t));
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
  // there), the collapse biased outward from it, every walkable tile kept reachable.
  t0 = Clock::now();
  Result<FirstPass> first = first_pass(g, config, seed, tiles, where);
  if (!first) return first.error();
  const std::uint32_t start_cell = first->start_cell;
  const std::uint32_t start_layer = kStartLayer;
  const wfc::CellId start_id = first->start_id;
  const wfc::TileId start_tile = first->start_tile;
  const std::vector<double>& from_start = first->from_start;
  const wfc::TileId empty = tiles.model.empty;
  wfc::SolveOptions& opt = first->opt;
  ReachCheck reach(g, tiles, start_id);
  hook_reach(opt, reach);
  // Attempts, in order, until one solves with enough walkable land: the first with a goal, a flight
  // of stairs down to a beach on a shore cell 5 to 9 m out (sand is only worth having where units
  // can walk onto it), the others plain, each on its own random stream. The reach check keeps every
  // walkable tile reachable from the start while the collapse grows outward, so the solver itself
  // climbs and builds stairs (seeds/003, 32:22-32:41) and a goal it keeps is one units reach.
  const Families& families = *first->families;
  std::vector<std::uint32_t> shore;  // Stairs stand in triangle cells only (mixed grid).
  for (std::uint32_t c = 0; c < n_plane; ++c) {
    if (from_start[c] >= kBeachMinM && from_start[c] <= kBeachMaxM && !families.square_cell(c)) {
      shore.push_back(c);
    }
  }
  std::vector<wfc::TileId> beach_stairs;
  for (wfc::TileId t = 0; t < tiles.info.size(); ++t) {
    if (tiles.info[t].kind == TileKind::stairs && tiles.info[t].ground_level) {
      beach_stairs.push_back(t);
    }
  }
  // The goals the constraints leave possible beside the start (on a mixed grid the flat square
  // fields rule many out: a flight's foot and top must both meet them).
  std::vector<wfc::Fixed> goals;
  for (const std::uint32_t c : shore) {
    for (const wfc::TileId t : beach_stairs)
      goals.push_back({g.cell_id(c, 0), t});
  }
  if (!goals.empty()) {
    Result<std::vector<std::uint8_t>> ok =
        wfc::placeable(*model, wgrid, {{start_id, start_tile}}, opt, goals);
    if (!ok) return Error::invalid_input(where, "first pass: " + ok.error().message);
    std::size_t kept = 0;
    for (std::size_t i = 0; i < goals.size(); ++i)
      if ((*ok)[i] != 0) goals[kept++] = goals[i];
    goals.resize(kept);
  }
  std::vector<wfc::TileId> solved;
  std::uint32_t best_walkable = 0;
  Error first_error = Error::invalid_input(where, "no first pass ran");
  std::vector<std::size_t> attempt_trace(config.first_pass_candidates, 0);  // Into island.trace.
  for (std::uint32_t attempt = 0; attempt < config.first_pass_candidates; ++attempt) {
    std::vector<wfc::Fixed> fixed{{start_id, start_tile}};
    const bool goal = attempt < kGoalAttempts && !goals.empty();
    if (goal) {
      Rng rng{seed, Stage::islands, kBeachGoalRngId, attempt};
      fixed.push_back(goals[rng.below(static_cast<std::uint32_t>(goals.size()))]);
    }
    opt.object_id = attempt;
    // A goal the solver cannot reach soon is given up for a plain pass.
    opt.max_restarts = goal ? kGoalRestarts : kPlainRestarts;
    opt.trace = config.trace;
    Result<wfc::Solution> sol = wfc::solve(*model, wgrid, fixed, opt);
    if (!sol) {
      first_error = sol.error();  // The last attempt's, when none solves.
      continue;
    }
    if (config.trace) {
      attempt_trace[attempt] = island.trace.size();
      keep_trace(
          island,
          "first pass, attempt " + std::to_string(attempt) + (goal ? ", with a beach goal" : ""),
          fixed, std::move(sol->trace));
    }
    stats.backtracks += sol->stats.backtracks;
    stats.contradictions += sol->stats.contradictions;
    // A start walled in on a crumb of land is a solution, not an island: the next attempt
    // is tried, and the largest crumb kept only when none does better.
    std::uint32_t walkable = 0;
    for (const wfc::TileId t : sol->tiles)
      walkable += tiles.info[t].navigable ? 1U : 0U;
    if (walkable > best_walkable) {
      best_walkable = walkable;
      stats.first_pass_attempt = attempt;
      solved = std::move(sol->tiles);
    }
    if (walkable * kMinWalkableShare >= n_plane) break;
  }
  if (solved.empty()) {
    return Error::invalid_input(where, "first pass: " + first_error.message);
  }
  if (config.trace) island.trace[attempt_trace[stats.first_pass_attempt]].kept = true;
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
    grow_rings(g.plane, near, kLandRings);
    std::vector<std::uint8_t> reset(g.cell_count(), 0);
    for (std::uint32_t c = 0; c < n_plane; ++c) {
      if (keep_column[c] != 0 || house_column[c] != 0) continue;
      for (std::uint32_t layer = 0; layer < g.layers; ++layer) {
        reset[g.cell_id(c, layer)] = near[c] != 0 ? 1 : 2;
      }
    }
    const auto allow_with = [&](bool rings) {
      return [empty, last, rings, &tiles, &reset, &families](wfc::CellId c, wfc::TileId t) {
        if (t == empty || !families.allows(c, t)) return false;
        const TileInfo& info = tiles.info[t];
        if (rings && reset[c] == 2) {
          return info.kind == TileKind::water || info.kind == TileKind::air;
        }
        return reset[c] == 0 || !last || !info.navigable;
      };
    };
    later.allow = allow_with(true);
    Result<wfc::Solution> again = wfc::solve(*model, wgrid, fixed, later);
    bool everywhere = false;
    if (!again) {
      later.allow = allow_with(false);
      again = wfc::solve(*model, wgrid, fixed, later);
      everywhere = true;
    }
    if (config.trace && again) {
      keep_trace(island,
                 "pass " + std::to_string(pass + 1) + (everywhere ? ", land allowed anywhere" : ""),
                 fixed, std::move(again->trace));
      island.trace.back().kept = true;
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

  // 4b. Paths that lead somewhere, checked against the model; kept only when every side
  // still fits.
  {
    std::vector<wfc::TileId> laid = solved;
    const std::uint32_t paths = lay_paths(g, tiles, laid, start_id);
    if (paths != kNoCell && paths != 0 && wfc::check_solution(tiles.model, wgrid, laid).empty()) {
      solved = std::move(laid);
      stats.paths = paths;
    }
  }

  // 5.-8. Deformation, navigation, mesh, smoothing, colours, counts.
  finish_island(island, config, seed, tiles, std::move(solved));
  return island;
}

Result<EditReport> edit_island(Island& island, const IslandConfig& config, Seed seed,
                               const TileSet& tiles, const IslandEdit& edit, std::uint64_t serial) {
  const Clock::time_point t_start = Clock::now();
  if (Status st = check_config(config); !st) return st.error();
  const std::string where = "island edit (cell " + std::to_string(edit.plane_cell) + ")";
  if (edit.kind == EditKind::paint) {  // Colours only: nothing is solved or built again.
    const auto cells = static_cast<std::uint32_t>(island.grid.plane.cells.size());
    if (edit.plane_cell >= cells) {
      return Error::invalid_input(where,
                                  "expected a cell of the grid, 0.." + std::to_string(cells - 1));
    }
    if (edit.colour >= kPaintColours) {
      return Error::invalid_input(where, "expected a colour 0.." +
                                             std::to_string(kPaintColours - 1) + ", got " +
                                             std::to_string(edit.colour));
    }
    const auto before = island.mesh.corner_colour;
    island.paint.resize(cells, 0);
    island.paint[edit.plane_cell] = static_cast<std::uint8_t>(edit.colour + 1U);
    colour_island(island.mesh, seed, island.paint, cells);
    EditReport report;
    for (std::size_t t = 0; t < before.size(); ++t)
      if (before[t] != island.mesh.corner_colour[t]) ++report.recoloured;
    report.total_ms = ms_since(t_start);
    return report;
  }
  // 1. The undeformed grid and the first pass's start and weights, as the generator had them.
  Result<LayeredGrid> grid = build_grid(config.grid, seed);
  if (!grid) return grid.error();
  LayeredGrid g = std::move(*grid);
  const auto n_plane = static_cast<std::uint32_t>(g.plane.cells.size());
  if (island.tiles.size() != g.cell_count()) {
    return Error::invalid_input(where, "the island was not made with this config and seed");
  }
  if (edit.plane_cell >= n_plane) {
    return Error::invalid_input(where,
                                "expected a cell of the grid, 0.." + std::to_string(n_plane - 1));
  }
  Result<FirstPass> first = first_pass(g, config, seed, tiles, where);
  if (!first) return first.error();
  if (edit.plane_cell == first->start_cell) {
    return Error::invalid_input(where, "units start on this cell; it cannot be edited");
  }
  Result<wfc::CompiledModel> model = later_pass_model(tiles);
  if (!model) return model.error();
  const wfc::Grid wgrid = to_wfc_grid(g);
  // On a mixed grid a square cell is flat with its whole field (the square cells joined to it
  // by sides: they can only stand at one height), so the field rises or sinks as one.
  const Families& families = *first->families;
  std::vector<std::uint32_t> edited;
  {
    std::vector<std::uint8_t> in(n_plane, 0);
    in[edit.plane_cell] = 1;
    grow_fields(g.plane, families, in);
    for (std::uint32_t c = 0; c < n_plane; ++c)
      if (in[c] != 0) edited.push_back(c);
  }
  if (std::binary_search(edited.begin(), edited.end(), first->start_cell)) {
    return Error::invalid_input(where,
                                "this field holds the cell units start on; it cannot be edited");
  }

  // 2. The edited column's new top: a flat floor one layer up or down (flat sand on layer 0),
  // or open sea when the last layer of land goes.
  const std::vector<wfc::TileId>& old = island.tiles;
  int top = -1;
  for (std::uint32_t layer = 0; layer < g.layers; ++layer) {
    if (is_land(tiles.info[old[g.cell_id(edit.plane_cell, layer)]])) top = static_cast<int>(layer);
  }
  const wfc::TileId sand = flat_floor(tiles, true);
  wfc::TileId water = wfc::kNoTile;
  for (wfc::TileId t = 0; t < tiles.info.size() && water == wfc::kNoTile; ++t) {
    if (tiles.info[t].kind == TileKind::water) water = t;
  }
  const int target = edit.kind == EditKind::raise ? top + 1 : top - 1;
  if (edit.kind == EditKind::raise && target >= static_cast<int>(g.layers)) {
    return Error::invalid_input(where, "the land is already at the top layer");
  }
  if (edit.kind == EditKind::lower && top < 0) {
    return Error::invalid_input(where, "there is no land here to lower");
  }
  // The start keeps its tile (a floor, or the path laid across it).
  std::vector<wfc::Fixed> fixed{{first->start_id, old[first->start_id]}};
  // A triangle cell of a mixed grid holds slopes, cliffs and stairs, not the squares' flat
  // floors (seeds/003 9:34): its new top is any land tile on the target layer with none above
  // (the solver picks which), not a fixed floor, which it could never hold.
  std::vector<std::uint8_t> free_top(n_plane, 0);
  for (const std::uint32_t c : edited) {
    if (families.on && target >= 0 && !square_family(g.plane.cells[c])) {
      free_top[c] = 1;
      continue;
    }
    if (target > 0) {
      fixed.push_back({g.cell_id(c, static_cast<std::uint32_t>(target)), first->start_tile});
    } else if (target == 0 && sand != wfc::kNoTile) {
      fixed.push_back({g.cell_id(c, 0), sand});
    } else if (target < 0 && water != wfc::kNoTile) {
      fixed.push_back({g.cell_id(c, 0), water});
    }
  }

  // 3. The region: one ring of cells around the edit, then two, then three.
  const Clock::time_point t_solve = Clock::now();
  ReachCheck reach(g, tiles, first->start_id);
  wfc::SolveOptions opt = first->opt;
  hook_reach(opt, reach);
  opt.max_restarts = kGoalRestarts;
  // What was there is kept where it still fits: an edit changes as little as it can.
  opt.keep = old;
  opt.keep_factor = kEditKeepFactor;
  EditReport report;
  report.edited = edited;
  std::vector<std::uint8_t> reset(g.cell_count(), 0);
  Result<wfc::Solution> sol = Error::invalid_input(where, "no ring was tried");
  for (std::uint32_t rings = 1; rings <= kEditRings; ++rings) {
    std::vector<std::uint8_t> column(n_plane, 0);
    for (const std::uint32_t c : edited)
      column[c] = 1;
    grow_rings(g.plane, column, rings);
    // A field the rings reach is solved again whole (its cells can only move together), with
    // one more ring around it for the slopes at its edge.
    if (families.on) {
      const std::vector<std::uint8_t> ringed = column;
      grow_fields(g.plane, families, column);
      if (column != ringed) grow_rings(g.plane, column, 1);
    }
    for (std::uint32_t layer = 0; layer < g.layers; ++layer) {
      for (std::uint32_t c = 0; c < n_plane; ++c)
        reset[g.cell_id(c, layer)] = column[c];
    }
    const wfc::TileId empty = tiles.model.empty;
    opt.allow = [&reset, &old, &families, &free_top, &tiles, empty, n_plane, target](
                    wfc::CellId c, wfc::TileId t) {
      if (reset[c] == 0) return t == old[c];
      if (t == empty || !families.allows(c, t)) return false;
      if (free_top[c % n_plane] == 0) return true;
      const auto layer = static_cast<int>(c / n_plane);
      return layer == target ? is_land(tiles.info[t]) : layer < target || !is_land(tiles.info[t]);
    };
    opt.object_id = hash_combine(hash_combine(hash_string("islands.edit"), serial), rings);
    sol = wfc::solve(*model, wgrid, fixed, opt);
    if (sol) {
      report.rings = rings;
      break;
    }
  }
  report.solve_ms = ms_since(t_solve);
  if (!sol) {
    return Error::invalid_input(where, "no tiles within " + std::to_string(kEditRings) +
                                           " rings of cells around the edit fit it and keep "
                                           "every walkable tile reachable");
  }
  for (wfc::CellId c = 0; c < g.cell_count(); ++c) {
    if (reset[c] != 0) report.region.push_back(c);
    if (sol->tiles[c] != old[c]) report.changed.push_back(c);
  }

  // 4. The rest of the generator on the new tiles.
  island.grid = std::move(g);
  finish_island(island, config, seed, tiles, std::move(sol->tiles));
  report.total_ms = ms_since(t_start);
  return report;
}

}  // namespace cityforge::islands
