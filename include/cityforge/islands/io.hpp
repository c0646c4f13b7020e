// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "cityforge/core/result.hpp"
#include "cityforge/core/rng.hpp"
#include "cityforge/islands/island.hpp"

/// The files of `cityforge island` (docs/islands.md "Outputs"): island.glb, island_nav.json,
/// island_tiles.json, island_light.png and stats.json. Every builder works in memory; write_island
/// writes them all or none. Byte identical for the same island (stats.json: except its timings).
namespace cityforge::islands {

/// What the files say about the run besides the island itself.
struct IslandRunInfo {
  Seed seed = 0;
  IslandConfig config;
  std::string kit = "built-in";    ///< The tile kit: "built-in" or its file (stats.json only).
  std::vector<std::string> edits;  ///< The edits applied, as given (stats.json only).
  double tile_set_ms = 0;          ///< build_tile_set wall time (stats.json only).
  double generate_ms = 0;          ///< generate_island wall time (stats.json only).
  double export_ms = 0;            ///< Building the files in memory (write_island measures it).
};

/// "mixed", "square" or "triangle".
const char* grid_kind_name(GridKind kind);
/// "empty", "water", "air", "ground", "stairs", "path" or "house".
const char* tile_kind_name(TileKind kind);
/// The plain linear RGB colour of a material (meshes colour_island did not paint, tile kits).
std::array<float, 3> material_colour(Material m);

/// island.glb (glTF 2.0 binary, y up, metres): scene "island" -> node 0 "island" with children
/// "land" (the island mesh) and "sea" (one water hexagon). Engine (x, y, z) z up becomes glTF
/// (x, z, -y).
///  - land: one primitive, material "island" (white base colour, roughness 0.9, not metallic):
///    POSITION (float32, min/max), NORMAL (area-weighted over the triangles at a vertex with the
///    same material whose faces turn less than 40 degrees from this one, so cliffs and house
///    walls stay sharp and the lifted land reads smooth), COLOR_0 (float32 RGB, linear,
///    IslandMesh::corner_colour, clamped to 0..1; a plain colour per material when the mesh
///    has none), _CONTRAST (the contrast map, IslandMesh::contrast, as normalised uint8 VEC4,
///    A 255; only when the mesh has one) and uint32 indices. Vertices are split per (position,
///    colour, normal, contrast) and numbered in order of first use (triangle order, corners in
///    order). Zero-area triangles are left out.
///  - sea: a regular hexagon, first corner on +x, circumradius 1.7 x the island's (farthest
///    plane vertex from the centre), at z = -0.15 * layer_m, normal up; material "sea"
///    (blue-green, alpha 0.85, alphaMode BLEND, roughness 0.2).
///  - images: image 0 "light_volume", island_light.png's bytes (image/png): the light volume,
///    named in asset.extras (light_volume_image, and its light_volume_origin, _step, _size,
///    _distance_scale and _ground_albedo, as island_tiles.json's "light_volume"). No material
///    uses it: it lights what moves over the island, not the island.
/// asset.generator is "cityforge"; asset.extras holds generator "cityforge island", seed (a
/// decimal string: 64 bits), grid (kind name), size (radius in cells), layers, cell_m, layer_m,
/// light_volume ("island_light.png") and the light_volume_* keys above.
/// Errors: a non-finite position or colour (named), an empty mesh, an empty light volume.
Result<std::vector<std::uint8_t>> island_glb(const Island& island, const IslandRunInfo& run);

/// island.glb and island_light.png together (the image is in both): the image is encoded on a
/// second thread while the land's arrays are made.
struct IslandGlbFiles {
  std::vector<std::uint8_t> glb;
  std::vector<std::uint8_t> light_png;
};
Result<IslandGlbFiles> island_glb_files(const Island& island, const IslandRunInfo& run);

/// island_nav.json: {"format", "units", "up", "nodes": [{id, cell, layer, position [x,y,z],
/// stairs}], "edges": [{a, b, stairs}]}, engine frame (z up, metres), numbers %.9g, in the
/// order of NavGraph. Errors: a non-finite position, an edge naming a missing node.
Result<std::string> island_nav_json(const Island& island);

/// island_tiles.json: the game-tile layout, enough for a game to rebuild the grid and place
/// its own tiles: "grid" {kind, radius, layers, layer_m, cell_m, "vertices" [[x, y]] (plane,
/// metres, after deformation), "cells" [[v0, v1, v2, v3]] (counter-clockwise)} and "tiles":
/// per 3D cell whose tile is neither water, air nor empty, in cell id order: {cell (plane
/// cell), layer, tile (variant name), kind, rotation (quarter turns), corners [4] (column
/// states), exits (bit k = slot k), navigable}. Errors: a tile id outside the set, a
/// non-finite vertex, a tile list that does not match the grid.
Result<std::string> island_tiles_json(const Island& island, const TileSet& tiles,
                                      const IslandRunInfo& run);

/// island_light.png, the light volume (Island::light, seeds/003 39:09-41:16: the talk stacks
/// its volume's horizontal slices in one image): RGBA, nx x nz pixels wide (slice iz at column
/// iz x nx) and 2 x ny high; rows 0..ny-1 hold the +x, +y, +z light in R, G, B (x 255, linear,
/// A 255), rows ny..2ny-1 the -x, -y, -z light and in A 128 + 32 x the signed distance to the
/// surface (metres, clamped to 0..255). island_tiles.json's "light_volume" gives its origin,
/// steps, size and this layout. Errors: an empty volume, a non-finite distance.
Result<std::vector<std::uint8_t>> island_light_png(const LightVolume& volume);

/// stats.json: seed, grid (kind, radius, layers, cell_m, layer_m), the counts of IslandStats,
/// times_ms per phase (and their sum), tile_set_ms, generate_ms, export_ms.
std::string island_stats_json(const Island& island, const IslandRunInfo& run);

/// island_trace.json, for an island made with IslandConfig::trace: "tiles" [{name, kind,
/// navigable}] by tile id, "plane_cells", "layers", and "solves" in order, each {label, kept,
/// "fixed" [[cell, tile]] (decided before it began), "steps" [[kind, cell, tile]]} with kind 0
/// observe, 2 backtrack, 3 contradiction, 4 restart, 5 block (wfc::TraceStep::Kind; cell a 3D cell
/// id, plane cell = id % plane_cells, layer = id / plane_cells; -1 for a contradiction the reach
/// check found, which names no cell; tile -1 when none).
std::string island_trace_json(const Island& island, const TileSet& tiles);

/// Builds the five files (six with a trace) in memory, creates `dir` (and its parents), writes
/// each under a temporary name and renames them into place when all were written (stats.json
/// last); on an error the temporaries are removed, so no file is half written. Without a
/// trace, an island_trace.json left in `dir` by an earlier run is removed (it would describe
/// another island). Errors: any builder's, a
/// folder that cannot be created (invalid_input: it is the user's -o), a failed write (io).
Status write_island(const std::string& dir, const Island& island, const TileSet& tiles,
                    const IslandRunInfo& run);

}  // namespace cityforge::islands
