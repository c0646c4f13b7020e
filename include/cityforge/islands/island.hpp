// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cityforge/core/result.hpp"
#include "cityforge/core/rng.hpp"
#include "cityforge/core/vec.hpp"
#include "cityforge/islands/grid.hpp"
#include "cityforge/wfc/wfc.hpp"

/// The island generator after seeds/003 (docs/islands.md): a built-in tile set whose edge
/// profiles are hashed from the tiles' shapes, two WFC passes over the layered irregular grid
/// (extend navigability, then keep what is reachable and solve the rest again as water or air),
/// deformation, hierarchical smoothing and procedural colours.
///
/// Cells are always quads here (the grid is subdivided), so a tile variant is a base tile
/// turned by 0..3 quarter turns; tile data below is already in the cell's slot frame.
namespace cityforge::islands {

// ---- Tiles --------------------------------------------------------------------------------

/// Surface materials, also the colour classes of the look.
enum class Material : std::uint8_t {
  none,
  grass,
  sand,
  rock,
  water,
  path,
  wall,
  roof,
  wood,
  leaves
};

/// What a tile variant is.
enum class TileKind : std::uint8_t {
  empty,   ///< The WFC Empty option: outside the grid only, never placed in a cell.
  water,   ///< Open sea (layer 0, no ground at any corner).
  air,     ///< Nothing (layers >= 1, no ground at any corner).
  ground,  ///< Terrain shaped by its corner states: flat tops, cliffs, beaches, solid rock.
  stairs,  ///< Steps up a one-layer cliff: corners of its high side solid, of its low side floor.
  path,    ///< Flat top with a path leaving through the sides in `exits`.
  house,   ///< A house on a flat top, joined to the houses across the sides in `exits`.
};

/// Column state of a cell corner (one per grid vertex and layer, as in marching squares): with
/// H the ground height at that vertex in layers (the surface at z = H * layer_m), a cell of
/// layer L sees kCornerEmpty when H < L (no ground in the layer; in layer 0: sea), kCornerFloor
/// when H == L (the surface lies on the layer's floor, w = 0) and kCornerSolid when H > L
/// (solid through the layer). Neighbours across a side share two corners and agree on their
/// states; the tile's top face shows ground where a corner is solid, the bottom face where it
/// is floor or solid, so vertically stacked tiles match by equal face profiles.
inline constexpr std::uint8_t kCornerEmpty = 0;
inline constexpr std::uint8_t kCornerFloor = 1;
inline constexpr std::uint8_t kCornerSolid = 2;

/// One tile variant (index = wfc::TileId in TileSet::model).
struct TileInfo {
  std::string name;  ///< Base name plus "#rN" for N quarter turns (as the wfc module names).
  std::uint32_t base = 0;
  TileKind kind = TileKind::ground;
  std::uint8_t rotation = 0;  ///< Quarter turns: slot k reads the base tile's side (k-r) mod 4.
  bool ground_level = false;  ///< Layer-0 variant (beaches, sea bed below); else layers >= 1.
  std::array<std::uint8_t, 4> corners{};  ///< Column state at corner k (slot frame).
  /// Sides (bit k = slot k) with a path exit (path, stairs: low and high side) or, for
  /// houses, joined to the house across it.
  std::uint8_t exits = 0;
  std::uint8_t stair_high_slot = 0;  ///< Stairs: the slot of the high side (low = +2 mod 4).
  /// Units stand on it: a flat top (all corners kCornerFloor) that is ground or path, or stairs.
  bool navigable = false;
  /// Edge profiles: hashes of the tile shape's rounded vertices on each face, per side slot
  /// (the face seen from inside the cell, u from corner k to corner k+1), the same face
  /// mirrored (u -> 1-u: what the neighbour must show), and the top and bottom faces.
  std::array<std::uint64_t, 4> side_profile{};
  std::array<std::uint64_t, 4> side_profile_mirrored{};
  std::uint64_t up_profile = 0;
  std::uint64_t down_profile = 0;
};

/// A tile's shape in the unit frame of its cell (slot frame, rotation applied): u runs from
/// corner 0 to corner 1, v from corner 0 to corner 3, w up (0 the layer's floor, 1 its ceiling;
/// beaches dip below 0, roofs may reach above 1). The mesh builder maps (u, v) bilinearly onto
/// the cell's corners.
struct UnitMesh {
  std::vector<Vec3> vertices;  ///< (u, v, w).
  struct Triangle {
    std::array<std::uint16_t, 3> v{};  ///< Counter-clockwise seen from outside the solid.
    Material material = Material::none;
  };
  std::vector<Triangle> triangles;
  /// Creases that smoothing must respect (cliff rims and feet, house walls and eaves).
  std::vector<std::array<std::uint16_t, 2>> hard_edges;
};

struct TileSet {
  /// The WFC model on to_wfc_grid's labels: variants, weights, Empty, and every constraint
  /// whose profiles match (side k of a next to side j of b when a.side_profile[k] ==
  /// b.side_profile_mirrored[j]; up / down when a.up_profile == b.down_profile). Finalized.
  wfc::Model model;
  std::vector<TileInfo> info;       ///< Per variant, aligned with model.tiles.
  std::vector<UnitMesh> meshes;     ///< Per variant.
  std::uint32_t base_count = 0;     ///< Base tiles (before turning).
  std::uint32_t profile_count = 0;  ///< Distinct side profiles.
};

/// The built-in tile set (deterministic; build once and share).
Result<TileSet> build_tile_set();

// ---- Generation ---------------------------------------------------------------------------

struct IslandConfig {
  GridConfig grid{.kind = GridKind::mixed,
                  .radius = 6,
                  .cell_m = 2.0,
                  .layers = 5,
                  .layer_m = 1.0,
                  .relax_iterations = 24,
                  .subdivide = true};
  /// First-pass attempts, in order until one solves: the first with a flight of stairs down
  /// to a beach as its goal, the others plain, each on a new random stream. [1..8]
  std::uint32_t first_pass_candidates = 3;
  std::uint32_t max_passes = 4;  ///< Reset-and-resolve rounds after the first pass.
  std::uint32_t deform_iterations = 8;
  double rise_m = 0.25;  ///< How much walkable land bulges up at most.
  std::uint32_t smooth_iterations = 6;
  /// Hard-edge vertices (corners of cliffs and houses) move at most this far in smoothing.
  double hard_vertex_max_move_m = 0.12;
  /// Keep every solve's steps (Island::trace, written as island_trace.json). Changes nothing
  /// else: the island is the same with and without.
  bool trace = false;
};

/// A node of the navigation graph: a navigable cell where units stand.
struct NavNode {
  std::uint32_t plane_cell = 0;
  std::uint32_t layer = 0;
  Vec3 position;  ///< Centre of its walkable surface in the final mesh.
  bool stairs = false;
};
struct NavEdge {
  std::uint32_t a = 0, b = 0;  ///< Node ids, a < b.
  bool stairs = false;         ///< Changes level by a flight of stairs.
};
struct NavGraph {
  std::vector<NavNode> nodes;
  std::vector<NavEdge> edges;
};

/// Welded island mesh, before and after deformation and smoothing.
enum class EdgeRank : std::uint8_t { plain = 0, tile = 1, material = 2, hard = 3 };
struct IslandMesh {
  std::vector<Vec3> positions;                          ///< Metres, z up.
  std::vector<std::array<std::uint32_t, 3>> triangles;  ///< Counter-clockwise from outside.
  std::vector<Material> material;                       ///< Per triangle.
  std::vector<std::uint32_t> cell;                      ///< Per triangle: its 3D cell id.
  std::vector<std::uint8_t> walkable;  ///< Per triangle: on a navigable tile's floor (1).
  struct MeshEdge {
    std::uint32_t a = 0, b = 0;  ///< a < b.
    EdgeRank rank = EdgeRank::plain;
  };
  std::vector<MeshEdge> edges;  ///< Every edge of the triangles once, sorted by (a, b).
  /// Per vertex: 0 none, 1 on a game-tile border, 2 on a material border (contrast lines).
  std::vector<std::uint8_t> line;
  /// Per vertex: the share of the sky it sees, 0..1 (sky_light; empty: all open).
  std::vector<float> sky;
  /// Per triangle corner, linear RGB 0..1 (filled by colour_island).
  std::vector<std::array<std::array<float, 3>, 3>> corner_colour;
  /// Per triangle: its patch's colour in the contrast map (contrast_map), 0..1; empty: none.
  std::vector<std::array<float, 3>> contrast;
};

struct PhaseTimes {
  double grid_ms = 0, tiles_ms = 0, solve_ms = 0, navigation_ms = 0, mesh_ms = 0, deform_ms = 0,
         smooth_ms = 0, light_ms = 0, colour_ms = 0;
};

struct IslandStats {
  std::uint32_t plane_cells = 0, cells = 0, variants = 0, constraints = 0;
  std::uint32_t passes = 0;              ///< Solve passes run (first pass included).
  std::uint32_t removed_snippets = 0;    ///< Navigable cells reset by the later passes.
  std::uint32_t first_pass_attempt = 0;  ///< The first-pass attempt kept (0: with the goal).
  std::uint32_t paths = 0;  ///< Path tiles laid on the ways to stairs, houses and beach.
  std::uint32_t navigable = 0, stairs = 0, houses = 0, land_cells = 0;
  std::uint64_t backtracks = 0, contradictions = 0;
  std::uint32_t triangles = 0, vertices = 0;
  std::uint32_t smoothing_reverts = 0;  ///< Moves undone because a triangle would flip.
  double max_hard_vertex_move_m = 0;
  PhaseTimes times;
};

/// One solve of the generator as IslandConfig::trace keeps it: its observations, backtracks,
/// contradictions and restarts in order (propagation steps are left out: they are most of a
/// trace and follow from the model and these).
struct SolveTrace {
  std::string label;  ///< "first pass, attempt 0, with a beach goal", "pass 2", ...
  bool kept = false;  ///< Its tiles went on (the kept first-pass attempt, every later pass).
  std::vector<wfc::Fixed> fixed;  ///< Cells decided before it began (the start, kept columns).
  std::vector<wfc::TraceStep> steps;
};

/// Baked light volume (seeds/003, 39:09-41:16: "baked into a big nice light volume ... so then
/// I can light particles, grass, foliage, units super cheaply": one lookup per object). A
/// regular grid of voxels over the island's land, from its lowest point to above its highest;
/// per voxel the sky light (with one bounce off the ground) that a surface facing each of the
/// six axes would receive there (an ambient cube), and the signed distance to the land's
/// surface. light_volume() bakes it from the finished mesh.
struct LightVolume {
  Vec3 origin;         ///< Centre of voxel (0, 0, 0), metres, engine frame (z up).
  double step_xy = 0;  ///< Voxel size along x and y (metres).
  double step_z = 0;   ///< Voxel size along z (metres).
  std::uint32_t nx = 0, ny = 0, nz = 0;
  /// Per voxel (index (iz * ny + iy) * nx + ix): the share of an open up-facing surface's light
  /// received by a surface facing +x, -x, +y, -y, +z, -z (0..1; in the open 0.5 + bounce for
  /// the four sides, 1 for +z, the bounce alone for -z). Voxels under the ground hold the
  /// values of the first voxel above it, so sampling across the surface stays smooth.
  std::vector<std::array<float, 6>> cube;
  /// Per voxel: metres to the land's surface, negative under it (voxel precision).
  std::vector<float> distance;

  std::size_t voxels() const { return std::size_t{nx} * ny * nz; }
  std::size_t index(std::uint32_t ix, std::uint32_t iy, std::uint32_t iz) const {
    return (std::size_t{iz} * ny + iy) * nx + ix;
  }
  /// The ambient cube at a point, trilinear between the voxel centres around it that are
  /// above the ground (weights renormalised; all under it: plain trilinear), clamped to the
  /// volume.
  std::array<float, 6> cube_at(const Vec3& p) const;
  /// The light a surface with unit normal n receives at p: the cube's six values weighted by
  /// the squares of n's components (the usual ambient-cube evaluation).
  float light_at(const Vec3& p, const Vec3& n) const;
};

struct Island {
  LayeredGrid grid;                ///< After deformation of the plane.
  std::vector<wfc::TileId> tiles;  ///< Per 3D cell (LayeredGrid::cell_id).
  NavGraph nav;
  IslandMesh mesh;
  IslandStats stats;
  /// Per plane cell: the colour painted on it + 1 (0 or absent: none; EditKind::paint).
  std::vector<std::uint8_t> paint;
  /// The generator's solves in order, with IslandConfig::trace (edits are not traced).
  std::vector<SolveTrace> trace;
  /// Baked from the finished mesh (light_volume), with mesh.sky.
  LightVolume light;
};

/// Colours a cell can be painted (EditKind::paint), as in Townscaper's palette.
inline constexpr std::uint32_t kPaintColours = 8;

/// The whole generator: grid, tiles, two-pass solve, navigation, mesh, deformation, smoothing,
/// colours. Same config and seed give byte-identical islands. Errors: config out of limits, or
/// no solution within the solver's budget (named with the seed).
Result<Island> generate_island(const IslandConfig& config, Seed seed, const TileSet& tiles);

// ---- Editing ------------------------------------------------------------------------------

/// One edit of a made island, as in the talk's interactive demo (seeds/003, 2:15: click, and
/// the algorithms build around you): the land of a plane cell raised or lowered by one layer,
/// or the cell painted with a colour of the palette (a house's walls in that column, else its
/// grass: a field of another crop).
enum class EditKind : std::uint8_t { raise, lower, paint };
struct IslandEdit {
  std::uint32_t plane_cell = 0;
  EditKind kind = EditKind::raise;
  std::uint8_t colour = 0;  ///< paint: 0..kPaintColours - 1.
};
/// "CELL:raise", "CELL:lower" or "CELL:paint:COLOUR" (what parse_edit reads).
std::string to_string(const IslandEdit& edit);

struct EditReport {
  /// The plane cells raised or lowered, ascending: the edited cell, or on a mixed grid, when it
  /// is a square cell, its whole field (square cells only hold flat tiles).
  std::vector<std::uint32_t> edited;
  std::uint32_t rings = 0;           ///< Rings of cells around the edit solved again (1..3).
  std::vector<wfc::CellId> region;   ///< The 3D cells solved again, ascending.
  std::vector<wfc::CellId> changed;  ///< Those whose tile changed, ascending.
  double solve_ms = 0;               ///< The local solve (with its rings tried).
  std::uint32_t recoloured = 0;      ///< paint: triangles whose colour changed.
  double total_ms = 0;               ///< The whole edit, mesh and colours included.
};

/// Re-solves `island`, made by generate_island with `config`, `seed` and `tiles`, around one
/// edit: the edited column's new top floor is pre-placed (on layer 0 flat sand; lowering the
/// last layer of land leaves open sea) and the cells sharing a corner with it, every layer,
/// are solved again with the generator's first-pass weights while every other cell keeps its
/// tile; if that region has no solution, two rings, then three (block-wise repair, the talk's
/// 41:00). Every walkable tile stays reachable from the start (the reach check), so an edit
/// that would cut land off is repaired around, or refused. Then the deformation, navigation,
/// mesh, smoothing and colours are made again for the whole island. `serial` keys the random
/// stream: the same edits in the same order give the same island. Errors (invalid_input, the
/// island unchanged): a cell outside the grid, the start cell, raising land already at the top
/// layer, lowering where there is none, no solution within three rings. A paint edit solves
/// nothing: it records the colour (Island::paint, kept through later edits) and colours the
/// island again (errors: a colour outside the palette).
Result<EditReport> edit_island(Island& island, const IslandConfig& config, Seed seed,
                               const TileSet& tiles, const IslandEdit& edit, std::uint64_t serial);

// ---- Phases (exposed for tests and tools) ------------------------------------------------

/// The navigation graph of solved tiles: nodes on navigable cells, edges between navigable
/// neighbours on the same level across a side, and between stairs and the floors at their low
/// and high sides. Positions are the cell centres at floor height (before meshing).
NavGraph navigation_graph(const LayeredGrid& grid, const TileSet& tiles,
                          const std::vector<wfc::TileId>& solved);

/// Tile meshes mapped into their cells and welded; edge ranks and border lines set.
IslandMesh build_mesh(const LayeredGrid& grid, const TileSet& tiles,
                      const std::vector<wfc::TileId>& solved);

/// Cells ease towards the shapes their tiles want (land cells towards regular shapes, cells
/// around air and water open up), keeping every cell convex. Moves plane vertices only.
void deform_grid(LayeredGrid& grid, const TileSet& tiles, const std::vector<wfc::TileId>& solved,
                 std::uint32_t iterations);
/// Walkable land rises by up to rise_m towards the middle of each level, tethered at its
/// rims, so flat levels get a gentle curve and cliffs grow. Never makes a walkable face face
/// down.
void lift_land(IslandMesh& mesh, double rise_m);
/// Hierarchical smoothing (hard > material > tile > plain): a vertex moves towards the mean of
/// its neighbours along edges of rank >= its own highest rank; vertices with more than two hard
/// edges barely move; hard-edge vertices move at most max_hard_move_m in all; a move that would
/// flip a triangle is undone. Returns (moves undone, largest hard-vertex move).
std::pair<std::uint32_t, double> smooth_mesh(IslandMesh& mesh, std::uint32_t iterations,
                                             double max_hard_move_m);
/// Baked sky light (seeds/003, 38:57-40:26): per vertex, the share of the sky it sees, from a
/// height field of the mesh's up-facing triangles (0.25 m raster): along 8 directions out to
/// 3 m, the highest elevation h seen (rises under 0.15 m, a floor's own lift, ignored), and
/// 1 - sin^2 h (the cosine-weighted sky above that horizon), averaged; a steep face counts only
/// the directions in front of it. 1 on an open plateau, about 0.6-0.8 at the foot of a cliff,
/// less in a cove.
std::vector<float> sky_light(const IslandMesh& mesh);
/// The light volume of a finished mesh (LightVolume): voxels of kLightVoxelXyM x kLightVoxelXyM
/// x kLightVoxelZM over the land's bounding box grown by one voxel, from one voxel under its
/// lowest point to two over its highest. From the same height field as sky_light: per voxel
/// and each of 8 directions, the highest elevation h of the surface within 3 m; +z gets the
/// mean of cos^2 h (as sky_light), a side axis the cosine-weighted sky above those horizons in
/// the directions it faces (0.5 in the open), and every axis a bounce of kGroundAlbedo x the
/// +z value from the ground below it. Distances from a Euclidean distance transform of the
/// voxels under the height field, never more than the height over the ground.
LightVolume light_volume(const IslandMesh& mesh);
/// Both of the above from one height field: mesh.sky and the volume.
void bake_light(IslandMesh& mesh, LightVolume& volume);
inline constexpr double kLightVoxelXyM = 0.5;
inline constexpr double kLightVoxelZM = 0.5;
inline constexpr double kGroundAlbedo = 0.3;
/// The talk's contrast map (seeds/003, 37:45-38:57): the mesh cut into patches along every edge
/// that is not plain (ContrastMap::patch), a seeded random colour per patch, then `iterations`
/// sweeps over the pairs of touching patches, each moving the two colours apart or together by
/// kRate of the gap between their distance and the contrast their shared edges want (the
/// strongest rank: kContrastMaterial, kContrastHard, kContrastTile). An edge detection over the
/// result (the viewer's outlines) draws lines at any zoom: strong ones between materials, faint
/// ones between game tiles. Deterministic for (mesh, seed).
struct ContrastMap {
  std::vector<std::uint32_t> patch;          ///< Per triangle.
  std::vector<std::array<float, 3>> colour;  ///< Per patch, 0..1.
  std::uint32_t pairs = 0;                   ///< Touching patch pairs.
};
inline constexpr double kContrastMaterial = 0.8;
inline constexpr double kContrastHard = 0.5;
inline constexpr double kContrastTile = 0.25;
inline constexpr std::uint32_t kContrastIterations = 100;
ContrastMap contrast_map(const IslandMesh& mesh, Seed seed,
                         std::uint32_t iterations = kContrastIterations);

/// Procedural colours: per material, varied per game tile by a seeded hash, darker along
/// game-tile borders and more along material borders (IslandMesh::line), and where the vertex
/// sees less sky (IslandMesh::sky, baked light). `paint` (per plane
/// cell of `plane_cells`, colour + 1, see Island::paint) recolours a painted column's walls, or
/// its grass where it has no walls.
void colour_island(IslandMesh& mesh, Seed seed, std::span<const std::uint8_t> paint = {},
                   std::uint32_t plane_cells = 0);

}  // namespace cityforge::islands
