// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cityforge/buildings/buildings.hpp"
#include "cityforge/core/mesh.hpp"
#include "cityforge/core/result.hpp"
#include "cityforge/export/export.hpp"
#include "cityforge/freeway/freeway.hpp"
#include "cityforge/layout/layout.hpp"
#include "cityforge/terrain/heightfield.hpp"

/// Private to the export module: the triangle meshes city.glb is made of, cut into chunks.
namespace cityforge::exporter::detail {

/// The surface kinds of city.glb; one glTF material each, in this order.
enum class Part : std::uint8_t {
  terrain,
  road_artery,
  road_main,
  road_local,
  sidewalk,
  block,
  volume,
  freeway,
  marking,
  roof,
  parapet,
  // Imported places: the set dressing's ground patches, one part per dressing::GroundKind in
  // its order ("ground_grass" ... "ground_cemetery"), then the path strips.
  ground_grass,
  ground_park,
  ground_forest,
  ground_scrub,
  ground_farmland,
  ground_sand,
  ground_bare,
  ground_water,
  ground_pavement,
  ground_cemetery,
  path
};
inline constexpr std::size_t kPartCount = 22;

/// Ground patches (of areas) stand this far above the block surfaces (roads.block_raise_m),
/// paths this far; water lies flat at its GroundPatch::z_m + block_raise_m + kWaterRaiseM.
inline constexpr double kGroundPatchRaiseM = 0.03;
inline constexpr double kPathRaiseM = 0.06;
inline constexpr double kWaterRaiseM = 0.02;

/// The part of a ground patch.
Part ground_part(const dressing::GroundPatch& patch);

/// Material name of a part ("terrain", "road_artery", ...).
const char* part_name(Part p);

/// The road ribbon part of a road class.
Part road_part(layout::RoadClass c);

/// Every triangle whose centroid lies in one chunk_m x chunk_m square, per part. Engine
/// coordinates (z up); positions are absolute (not relative to the chunk).
struct ChunkMeshes {
  std::int32_t cx = 0;  ///< floor(x / chunk_m)
  std::int32_t cy = 0;  ///< floor(y / chunk_m)
  std::array<Mesh, kPartCount> parts;
};

/// Builds the terrain, road ribbons (per class), sidewalk strips, block surfaces and block volumes
/// of a city and assigns each triangle to the chunk of its centroid. Within a chunk and part,
/// triangles keep the order terrain chunks, then edges, then blocks by index; chunks are sorted by
/// (cy, cx) and only non-empty chunks are returned. Degenerate triangles are dropped. Items are
/// meshed in parallel into their own slots and merged in index order: identical output at any
/// thread count. Fails when an input coordinate or setting is not finite (or out of range).
/// With `roads`, carriageways follow the trimmed sections (crowned, with skirts, per `rules`),
/// sidewalks stop at the junction mouths and junction surfaces are added in the part of their
/// widest leg; without, ribbons follow whole edges. With `freeway`, its deck, barriers and
/// pillars are added (part `freeway`) and block volumes keep out of the deck footprints.
/// With `buildings`, the block volumes are left out (the buildings replace them) and the
/// building roofs are added (parts `roof` and `parapet`).
/// With `patches` (the set dressing's Output::ground of an imported place), each patch is
/// triangulated and draped on the ground (triangles bisected down to two terrain cells, like the
/// block surfaces) kGroundPatchRaiseM above the block surfaces, paths kPathRaiseM, water flat;
/// none (or an empty list) leaves the meshes as they were.
Result<std::vector<ChunkMeshes>> build_city_meshes(
    const layout::Output& city, const terrain::Heightfield& ground, const Config& config,
    const roads::Output* roads = nullptr, const roads::Config& rules = {},
    const freeway::Output* freeway = nullptr, const buildings::Output* buildings = nullptr,
    const std::vector<dressing::GroundPatch>* patches = nullptr);

/// A road brick in its module frame (engine axes): a slab from x = 0 to length_m along +x,
/// width_m wide across y (centred on y = 0, +y left of travel), its curbs at z = raise_m plus the
/// class raise of the baked ribbons and its centre line crown_m higher; skirts hang skirt_m below
/// both curbs. Flat-shaded. city_glb turns it y-up like every mesh: +x along the road, +y up, +z
/// to the right of travel.
Mesh road_brick(layout::RoadClass c, double length_m, double width_m, double raise_m,
                const roads::Config& rules);

/// The class of a junction's widest leg (artery before main before local).
layout::RoadClass junction_class(const roads::Intersection& x, const layout::Output& city);

}  // namespace cityforge::exporter::detail
