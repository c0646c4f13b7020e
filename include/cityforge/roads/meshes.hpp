// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cityforge/core/mesh.hpp"
#include "cityforge/core/polygon.hpp"
#include "cityforge/core/polyline.hpp"
#include "cityforge/core/result.hpp"
#include "cityforge/layout/layout.hpp"
#include "cityforge/roads/roads.hpp"
#include "cityforge/terrain/heightfield.hpp"

/// The road stage's surface meshes (seeds/000, minute 12: the road surfaces are unique
/// geometry): carriageways per class, skirts, sidewalks with their curbs, junction surfaces,
/// marking decals, the road bricks, block surfaces and placeholder block volumes. Every surface
/// drapes on the ground by one rule: ground + raise (+ crown), cut along the terrain mesh's
/// creases where the ground is drawn exactly (Heightfield::mesh_exact). Meshes are in engine
/// coordinates (z up), one per item, not chunked: the exporter cuts and writes them.
namespace cityforge::roads {

/// Longest draped segment along a road or curb (metres): long straight edges are split so what
/// hangs from them follows the terrain.
inline constexpr double kDrapeSpacingM = 10.0;

/// Extra raise of a road class's surface: config.class_raise_m[class] (0 for an unknown class).
/// Wider classes sit a little higher so their surfaces win where ribbons overlap.
double class_raise(const Config& config, layout::RoadClass c);

/// Height of a class's carriageway curbs above the ground (and of a junction surface whose
/// widest leg has that class): road_raise_m + class_raise(config, c). The one road draping rule:
/// road_surface_z, junction_surface_z, the carriageway and junction meshes and the road bricks
/// all use it. Metres.
double road_surface_raise(const Config& config, layout::RoadClass c);

/// The class of a junction's widest leg (artery before main before local); local without legs.
layout::RoadClass junction_class(const Intersection& x, const layout::Output& city);

/// A road surface mesh with the class whose material it takes.
struct ClassMesh {
  layout::RoadClass road_class = layout::RoadClass::local;
  Mesh mesh;
};

/// A road module brick (for export.road_modules = "instanced"): see road_brick.
struct Brick {
  Mesh mesh;              ///< Empty when length_m or width_m is not > 0.
  double length_m = 0.0;  ///< Config::module_lengths_m[size].
  double width_m = 0.0;   ///< The carriageway width of the first edge of the class.
};

/// Number of bricks: 3 classes x 3 module sizes; brick = class * 3 + size.
inline constexpr std::size_t kBrickCount = 9;

/// The surface meshes of a city, one mesh per item in item order.
struct SurfaceMeshes {
  /// One per layout edge: the crowned carriageway with skirts along the trimmed section (with a
  /// road stage output), else a flat ribbon along the whole edge. Empty for tunnels and edges of
  /// width 0.
  std::vector<ClassMesh> carriageways;
  /// With a road stage output: one per Output::sidewalks area (surface at block_raise_m, curbs
  /// down to road_raise_m - 0.05 m). Without: one per edge, the two sidewalk strips.
  std::vector<Mesh> sidewalks;
  /// One per intersection (with a road stage output): its surface at the raise of its widest
  /// leg's class; empty where the junction has no surface. None without.
  std::vector<ClassMesh> junctions;
  std::vector<Mesh> blocks;  ///< One per layout block: its area draped at block_raise_m.
  /// One per section (with a road stage output): its decals (build_markings) one after the
  /// other; empty for sections without. None without.
  std::vector<Mesh> markings;
  std::array<Brick, kBrickCount> bricks;  ///< Always built (cheap); used only when instanced.
};

/// The kinds of surface item, in the order SurfaceMeshes holds them.
enum class SurfaceKind : std::uint8_t { carriageway, sidewalk, junction, block, marking };
inline constexpr std::size_t kSurfaceKindCount = 5;

/// What the surface meshes are made of, for meshing them one item at a time where they are
/// drawn instead of holding the whole city's (they were the largest stage output the export
/// held: 138 of the 4x5 km example's 440 MB, on every rank). The same meshes, byte for byte,
/// as build_surface_meshes. All pointers must outlive its use.
struct SurfaceSource {
  const layout::Output* city = nullptr;
  const terrain::Heightfield* ground = nullptr;
  const Output* roads = nullptr;  ///< The road stage's output for `city`, or null (see below).
  const Config* config = nullptr;
  /// The markings, painted a section at a time (one marking item per section: its decals in
  /// one mesh); null: none drawn.
  const SectionMarkings* markings = nullptr;
};

/// Fails as build_surface_meshes does on bad inputs (invalid_input, naming the element).
Status check_surface_source(const SurfaceSource& source);

/// How many items of `kind` there are (SurfaceMeshes' vector sizes).
std::size_t surface_count(const SurfaceSource& source, SurfaceKind kind);

/// Item `i` of `kind`: the mesh build_surface_meshes puts at that slot (for markings, the
/// meshes of section i's decals, one after the other), with the road class
/// whose material it takes (the edge's or the junction's widest leg's; local for the other
/// kinds). Thread-safe; the inputs must have passed check_surface_source.
ClassMesh surface_mesh(const SurfaceSource& source, SurfaceKind kind, std::size_t i);

/// The road bricks (SurfaceMeshes::bricks).
std::array<Brick, kBrickCount> road_bricks(const SurfaceSource& source);

/// Meshes every road and block surface of `city` (see SurfaceMeshes). `roads` is the road
/// stage's output for `city`, or null; it counts only when it holds one section per edge
/// (carriageways then follow the trimmed sections, crowned by crown_m with skirts skirt_m deep,
/// and sidewalks, junctions and markings are added). Items are meshed in parallel into their own
/// slots: identical output at any thread count. Fails (invalid_input, naming the element) on a
/// ground grid that is not valid, non-finite edge points, widths, block areas or heights, or
/// non-finite raises.
Result<SurfaceMeshes> build_surface_meshes(const layout::Output& city,
                                           const terrain::Heightfield& ground, const Output* roads,
                                           const Config& config);

/// Placeholder massing for a city without buildings: per layout block, the block inset by
/// setback_m and extruded from the lowest ground under it to Block::target_height_m above that
/// (walls and a flat roof, no floor); nothing is built under the `keep_out` polygons (freeway
/// deck footprints; pieces under 20 m2 are dropped). Empty for parks and blocks without height.
/// Fails on a negative or non-finite setback and on the inputs build_surface_meshes rejects.
Result<std::vector<Mesh>> build_block_volumes(const layout::Output& city,
                                              const terrain::Heightfield& ground, double setback_m,
                                              const std::vector<Polygon>& keep_out = {});

/// A polygon triangulated and draped on the ground + raise_m: triangles are bisected on their
/// longest edge until no edge is longer than two terrain cells, so the surface follows the
/// ground instead of cutting through it across a large area. Normals from the terrain. Not cut
/// along the terrain's creases (see cut_along_terrain_edges).
Mesh draped_surface(const Polygon& area, const terrain::Heightfield& ground, double raise_m);

/// Cuts every up-facing triangle of `mesh` along the terrain mesh's edges (grid lines and cell
/// diagonals) where that changes its height by more than 2 cm, putting each new vertex at the
/// ground plus the (linearly interpolated) height the triangle had above the ground; vertical
/// faces pass through. Unchanged on ground that is not mesh_exact.
Mesh cut_along_terrain_edges(Mesh mesh, const terrain::Heightfield& ground);

/// Flat-shaded vertical walls of one ring from base_z to top_z, four vertices per face, each
/// facing to the right of its edge (outward for canonical rings: outer counter-clockwise,
/// holes clockwise). Zero-length edges are skipped.
void add_ring_walls(Mesh& mesh, const Ring& ring, double base_z, double top_z);

/// A road brick in its module frame (engine axes): a slab from x = 0 to length_m along +x,
/// width_m wide across y (centred on y = 0, +y left of travel), its curbs at
/// road_surface_raise(config, c) and its centre line crown_m higher; skirts hang skirt_m below both
/// curbs. Flat-shaded. Empty unless length_m and width_m are > 0.
Mesh road_brick(layout::RoadClass c, double length_m, double width_m, const Config& config);

/// A marking decal's outline (already draped on the road) as a flat fan, normals up. Empty
/// for outlines of fewer than 3 points.
Mesh decal_mesh(const Decal& decal);

/// Fails (invalid_input, `where`) unless every point of the polygon is finite. Errors name the
/// point: where + ".outer[3]", where + ".holes[0][2]".
Status check_finite(const Polygon& area, const std::string& where);

}  // namespace cityforge::roads
