// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "cityforge/buildings/buildings.hpp"
#include "cityforge/buildings/style.hpp"
#include "cityforge/core/mesh.hpp"
#include "cityforge/core/ranks.hpp"
#include "cityforge/core/result.hpp"
#include "cityforge/core/rng.hpp"
#include "cityforge/wfc/wfc.hpp"

/// WFC rooftops (seeds/000, 43:01-44:07): for each flat roof, a 3D grid of cells derived from
/// the roof polygon, the stair bulkhead pre-placed over the building's core, a solve with the
/// rooftop model learned from the example layouts in data/wfc/, and a post-solve pass of
/// neighbour rules (props on walls, colour variation). Meshes come from the built-in kit.
/// The module sits on buildings (the roofs) and wfc (the generic solver).
namespace cityforge::rooftops {

struct RooftopConfig {
  bool enabled = true;
  double cell_m = 3.0;        ///< Horizontal cell size. [Limit: 1.5 .. 10]
  double level_m = 3.0;       ///< Vertical cell size.  [Limit: 1.5 .. 10]
  std::uint32_t levels = 2;   ///< Cell layers above the roof. [Limit: 1 .. 4]
  double min_area_m2 = 40.0;  ///< Roofs smaller than this get no rooftop.
  double inset_m = 0.6;       ///< Cells keep this far inside the roof edge (parapet).
  std::uint32_t backtrack_budget = 64;
  std::uint32_t max_restarts = 3;
  /// Keep each roof's solved tiles in Rooftop::tiles (tests, tools).
  bool keep_cells = false;
};

/// One placed tile (or post-solve prop): what the exporter instances.
struct RooftopInstance {
  std::uint32_t tile = 0;           ///< Base tile index in the rooftop model (kit mesh).
  std::array<float, 3> position{};  ///< Engine metres: centre of the cell's floor.
  float yaw_rad = 0.0f;             ///< Roof grid angle + quarter turns of the variant.
  bool reflected = false;           ///< Mirrored x -> -x in the tile frame before the yaw.
  buildings::BuildingId building = 0;
  std::uint16_t colour = 0;  ///< Colour variant (post-solve), 0 .. kRooftopColours-1.
  bool prop = false;         ///< Added by the post-solve neighbour rules.
};
inline constexpr std::uint16_t kRooftopColours = 4;

/// The rooftop of one building tier.
struct Rooftop {
  buildings::BuildingId building = 0;
  std::uint32_t volume = 0;        ///< Index of the tier in Building::volumes.
  std::array<double, 2> origin{};  ///< Engine xy of cell (0,0)'s corner.
  double angle_rad = 0.0;          ///< Grid x axis direction (the roof's longest edge).
  double z_m = 0.0;                ///< Roof top height (engine metres).
  std::uint32_t size_x = 0, size_y = 0, size_z = 0;
  std::uint32_t cells = 0;  ///< Cells inside the roof (grid cells solved).
  /// Cell where the stair bulkhead was pre-placed, as an index into the size_x x size_y x
  /// size_z box (x + size_x * (y + size_y * level)); kBoundary if none.
  wfc::CellId bulkhead = wfc::kBoundary;
  bool solved = false;  ///< false: no solution; the roof stays bare.
  std::uint32_t first_instance = 0;
  std::uint32_t instance_count = 0;
  /// With RooftopConfig::keep_cells: the solved variant (wfc::Model::tiles index) of every cell
  /// of the box, indexed like `bulkhead`; wfc::kNoTile for cells off the roof (their sides are
  /// boundary, i.e. Empty). Empty otherwise.
  std::vector<wfc::TileId> tiles;
};

struct RooftopStats {
  std::size_t roofs_considered = 0;
  std::size_t rooftops = 0;  ///< Roofs solved.
  std::size_t failed = 0;    ///< Roofs with no solution in budget.
  std::size_t cells = 0;
  std::size_t instances = 0;  ///< Solved tiles that are not Empty / air.
  std::size_t props = 0;      ///< Added by neighbour rules.
  std::size_t base_tiles = 0;
  std::size_t variants = 0;
  std::size_t constraints = 0;
  std::uint64_t backtracks = 0;
  std::uint64_t contradictions = 0;
};

struct RooftopOutput {
  std::vector<Rooftop> rooftops;           ///< By building, then tier.
  std::vector<RooftopInstance> instances;  ///< Grouped by rooftop, in rooftop order.
  /// Names indexed by RooftopInstance::tile: the model's base tiles, then the wall props the
  /// neighbour rules add (prop_wall_ac, prop_wall_pipe, prop_wall_sign, prop_wall_light); the
  /// kit has a mesh for each (rooftop_tile_mesh).
  std::vector<std::string> tile_names;
  RooftopStats stats;
  /// Cell sizes the rooftops were built with (RooftopConfig::cell_m, level_m): the exporter
  /// builds the kit meshes at this size.
  double cell_m = 3.0;
  double level_m = 3.0;
};

/// The built-in rooftop model: data/wfc/rooftop.json (tiles) with its example layouts, embedded
/// with the other built-in models in the wfc library (wfc::builtin_model_sources(), so
/// `cityforge wfc --model builtin:rooftop` finds it by name too), parsed and learned.
Result<wfc::Model> builtin_rooftop_model();

/// Builds rooftops on the top of every flat tier not covered by a tier above. Each roof is an
/// independent job (Rng object id = building id * 8 + tier); byte-identical at any thread
/// count. Roofs whose solve fails stay bare and are counted. With several `ranks` (collective:
/// every rank calls it with the same buildings) the roofs are shared out by area (share_jobs)
/// and every rank gets the whole, identical output.
Result<RooftopOutput> build_rooftops(const buildings::Output& buildings, const wfc::Model& model,
                                     const RooftopConfig& config, Seed seed,
                                     const Ranks& ranks = single_rank());

/// Kit mesh of one rooftop base tile (by name) in the tile frame: x and y in [-cell/2, cell/2],
/// z from 0 up to level_m (tiles may reach the cell's full height), parts by
/// buildings::Material (colour variants are applied by the exporter). Unknown names
/// and Empty / air tiles give empty parts. Deterministic.
std::array<Mesh, buildings::kMaterialCount> rooftop_tile_mesh(const std::string& name,
                                                              double cell_m, double level_m);

}  // namespace cityforge::rooftops
