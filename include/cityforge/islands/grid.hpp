// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "cityforge/core/result.hpp"
#include "cityforge/core/rng.hpp"
#include "cityforge/core/vec.hpp"
#include "cityforge/wfc/wfc.hpp"

/// The irregular grid of the island generator (seeds/003, 6:18-9:40, docs/islands.md "Grid"):
/// a convex hexagon filled with a mostly square pattern of vertices, the rest filled with
/// triangles, optionally subdivided into quads and relaxed, then stacked into layers of 3D
/// cells that the WFC engine solves.
namespace cityforge::islands {

/// Which base pattern fills the hexagon (seeds/003 compares all three).
enum class GridKind : std::uint8_t {
  mixed,     ///< Squares in the middle, triangles where no square fits.
  square,    ///< Squares only; the outline is the staircase of squares inside the hexagon.
  triangle,  ///< Triangles only (a hex-like grid); does not depend on the seed.
};

struct GridConfig {
  GridKind kind = GridKind::mixed;
  std::uint32_t radius = 5;  ///< Hexagon circumradius in cells. [Limit: 1..64; mixed >= 2]
  double cell_m = 2.0;       ///< Edge length of a base cell in metres. [Limit: > 0]
  std::uint32_t layers = 4;  ///< Layers of 3D cells. [Limit: 1..256]
  double layer_m = 1.0;      ///< Height of one layer in metres. [Limit: > 0]
  std::uint32_t relax_iterations = 32;  ///< Smoothing passes; 0 keeps the raw shape. [<= 10000]
  bool subdivide = true;  ///< Split every cell into quads (triangle -> 3, quad -> 4) first.
  /// Mixed grid: the squares are grouped into seeded fields of about this many squares, and
  /// the squares where two fields meet are cut into two triangles, so the flat square fields
  /// have triangles between them where the land can step (seeds/003, 9:34). 0: no fields, the
  /// squares stay whole and the triangles only fill the rim. [Limit: <= 4096]
  std::uint32_t field_squares = 10;
};

inline constexpr std::uint32_t kNoCell = 0xFFFFFFFFU;  ///< "No cell": the far side of the boundary.

/// A cell of the planar grid: 3 or 4 corners counter-clockwise. Side k runs from corner k to
/// corner k+1 (mod count) and is edge `edges[k]`. Unused slots hold kNoCell.
struct Cell {
  std::uint8_t count = 0;
  /// The family: how many corners the base cell it comes from has (4: a square, 3: a
  /// triangle). Subdivision keeps it, so a quad knows whether it lies in a square or a
  /// triangle of the base pattern (seeds/003, 9:34: flat tiles only on the squares).
  std::uint8_t base = 0;
  std::array<std::uint32_t, 4> vertices{kNoCell, kNoCell, kNoCell, kNoCell};
  std::array<std::uint32_t, 4> edges{kNoCell, kNoCell, kNoCell, kNoCell};
};

/// An undirected edge: v0 -> v1 is its direction as side slots[0] of cells[0]; cells[1] sees it
/// as v1 -> v0 at its side slots[1]. Boundary edges have cells[1] == kNoCell.
struct Edge {
  std::uint32_t v0 = 0;
  std::uint32_t v1 = 0;
  std::array<std::uint32_t, 2> cells{kNoCell, kNoCell};
  std::array<std::uint8_t, 2> slots{0, 0};
};

/// A 2D planar grid. Plain data; ids are indices.
struct PlanarGrid {
  GridKind kind = GridKind::mixed;
  double cell_m = 2.0;  ///< Base cell size it was built with (after subdivision cells are half).
  std::vector<Vec2> vertices;  ///< Metres, centred on the hexagon's centre.
  std::vector<Cell> cells;
  std::vector<Edge> edges;  ///< In order of first use scanning cells, then sides.
  /// The outline as one closed loop of vertex ids, counter-clockwise (the grid on its left),
  /// starting at the smallest boundary vertex id.
  std::vector<std::uint32_t> boundary;
};

/// Cells stacked vertically: 3D cell id = plane cell + plane.cells.size() * layer; layer 0 is
/// the bottom, spanning heights [layer * layer_m, (layer + 1) * layer_m].
struct LayeredGrid {
  PlanarGrid plane;
  std::uint32_t layers = 1;
  double layer_m = 1.0;

  std::uint32_t cell_count() const {
    return static_cast<std::uint32_t>(plane.cells.size()) * layers;
  }
  wfc::CellId cell_id(std::uint32_t plane_cell, std::uint32_t layer) const {
    return plane_cell + static_cast<std::uint32_t>(plane.cells.size()) * layer;
  }
  /// Vertex `v` of the plane at level `level` (0..layers: the floor of that layer).
  Vec3 corner(std::uint32_t v, std::uint32_t level) const {
    return {plane.vertices[v].x, plane.vertices[v].y, layer_m * level};
  }
};

/// The cell across side `slot` of `cell`, and its slot facing back; cell == kNoCell at the
/// outline.
struct SideNeighbour {
  std::uint32_t cell = kNoCell;
  std::uint32_t slot = 0;
};
SideNeighbour side_neighbour(const PlanarGrid& grid, std::uint32_t cell, std::uint32_t slot);

/// The base pattern of `config.kind` (no subdivision or relaxation), with edges and boundary.
/// Draws come from Rng{seed, Stage::islands, 0}: the mixed and square kinds turn and shift
/// their square lattice by it. Errors: config out of its limits.
Result<PlanarGrid> base_grid(const GridConfig& config, Seed seed);

/// Fills `edges` and `boundary` from `vertices` and `cells`, and each cell's `edges`.
/// Errors: a side used twice in one direction or by more than two cells, or an outline that is
/// not one closed loop.
Status build_topology(PlanarGrid& grid, std::string_view where);

/// Splits every cell into quads: a triangle into 3, a quad into 4, through its edge midpoints
/// and its centroid. Old vertices keep their ids; midpoints follow (in edge order), then
/// centroids (in cell order). Cell c's quad k starts at its corner k. Topology is rebuilt.
PlanarGrid subdivide(const PlanarGrid& grid);

/// Smooths the grid towards regular cells: each pass moves every vertex half way to the mean
/// of where its cells' best-fit regular polygons (same centroid, averaged corner offset) put
/// it. Hexagon corners stay fixed and other hexagon-outline vertices slide along their side
/// (mixed, triangle); the square kind's staircase outline stays fixed. A move that would make
/// a cell non-convex is undone, so convex input stays convex with positive area.
void relax(PlanarGrid& grid, std::uint32_t iterations);

/// What one cell wants in relax_towards: how hard it pulls its corners (weight > 0), and the
/// circumradius of its regular polygon (size; 0 keeps the best fit's own size).
struct CellTarget {
  double weight = 1.0;
  double size = 0.0;
};
/// relax() with a target per cell (targets.size() == grid.cells.size(), or empty for all
/// default): each vertex moves half way to the weighted mean of where its cells' regular
/// polygons put it. Same outline rules and convexity guard as relax(); relax() is this with
/// default targets. The islands' deformation uses it (land firm, open water larger and weak).
void relax_towards(PlanarGrid& grid, const std::vector<CellTarget>& targets,
                   std::uint32_t iterations);

/// base_grid, then subdivide (config.subdivide) and relax, stacked into config.layers layers.
/// Same config and seed give byte-identical grids at any thread count (the build is serial).
Result<LayeredGrid> build_grid(const GridConfig& config, Seed seed);

/// True when `cell` turns left by more than `eps` (a cross product, m^2) at every corner.
bool cell_convex(const PlanarGrid& grid, const Cell& cell, double eps);
/// True when `cell` comes from a square of the base pattern (Cell::base == 4).
inline bool square_family(const Cell& cell) { return cell.base == 4; }
/// True when the grid holds cells of both families (a mixed grid): the islands then keep
/// square cells flat and triangle cells free of houses.
bool mixed_families(const PlanarGrid& grid);

/// The mean of a cell's corners.
Vec2 cell_centroid(const PlanarGrid& grid, const Cell& cell);

/// True when every cell has 3 or 4 corners and turns strictly left at each (convex, area > 0).
bool cells_convex(const PlanarGrid& grid);

/// Direction labels of the layered grid as a WFC cell graph. Side slots are 0..3 (triangles use
/// 0..2). A horizontal side from slot k of a cell to slot j of its neighbour has label 4*k + j,
/// so opposite(4*k + j) = 4*j + k; a boundary side at slot k has label 4*k + k. Up is 16, down
/// is 17 (opposites). A model for this grid states its profiles per side slot; a tile turned by
/// r quarter turns in a quad reads its side (k - r) mod 4 at slot k.
inline constexpr wfc::Label kUpLabel = 16;
inline constexpr wfc::Label kDownLabel = 17;
inline constexpr std::uint32_t kGridLabelCount = 18;
constexpr wfc::Label side_label(std::uint32_t slot, std::uint32_t neighbour_slot) {
  return static_cast<wfc::Label>(4U * slot + neighbour_slot);
}

/// The layered grid as a wfc::Grid (kGridLabelCount labels): cell ids as LayeredGrid::cell_id;
/// each cell lists its horizontal sides in slot order, then up, then down. Sides off the
/// outline, above the top layer and below the bottom one are boundary sides.
wfc::Grid to_wfc_grid(const LayeredGrid& grid);
/// The opposite of every label of to_wfc_grid (kGridLabelCount entries), for models on it.
std::vector<wfc::Label> grid_opposite_labels();

}  // namespace cityforge::islands
