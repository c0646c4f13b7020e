// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "cityforge/core/result.hpp"
#include "cityforge/export/export.hpp"
#include "export/city_meshes.hpp"
#include "export/detail/gltf_city.hpp"
#include "export/detail/gltf_textures.hpp"
#include "export/detail/kit_cache.hpp"
#include "export/detail/tiles_hlod.hpp"
#include "export/detail/tinygltf.hpp"

/// Private to the export module: the content of one tile (tiles_content.cpp).
namespace cityforge::exporter::detail {

/// An axis-aligned box in the engine frame (x east, y north, z up).
struct Box3 {
  std::array<double, 3> lo{1e300, 1e300, 1e300};
  std::array<double, 3> hi{-1e300, -1e300, -1e300};
  bool empty() const { return lo[0] > hi[0]; }
  void add(const std::array<double, 3>& p);
  void add(const Box3& b);
};

/// What the whole city's tiles share: computed once before the tiles are written.
struct CityTiling {
  ChunkList chunks;       ///< Without roofs (chunk_city_meshes without buildings).
  BrickInstances bricks;  ///< Instanced road bricks by chunk (empty when baked).
  std::array<roads::Brick, roads::kBrickCount> brick_meshes;  ///< When instanced.
  bool instanced_roads = false;
  /// Per building: the chunk of its footprint's centre, where all of it (roof, facade
  /// modules, rooftop tiles) is written.
  std::vector<ChunkKey> building_chunk;
};

/// One leaf's share of the city.
struct LeafItems {
  std::vector<const ChunkMeshes*> chunks;  ///< In (cy, cx) order.
  std::vector<ChunkKey> brick_chunks;      ///< Keys of CityTiling::bricks in this leaf.
  std::vector<std::uint32_t> buildings;    ///< Ascending ids.
  std::vector<std::uint32_t> props;        ///< Dressing item indices, ascending.
  std::vector<std::uint32_t> rooftops;     ///< Rooftop instance indices, ascending.
};

/// A glb with its content's bounds (engine frame).
struct TileFile {
  std::vector<std::uint8_t> bytes;
  Box3 bounds;
};

/// The full-detail content of a leaf: a small city.glb (root "city", chunk nodes with the
/// parts, road bricks, facade modules, props, rooftops) whose buildings' roofs sit in a node
/// "buildings" with _FEATURE_ID_0 + EXT_mesh_features, facade modules carry _FEATURE_ID_0 +
/// EXT_instance_features, both pointing into an EXT_structural_metadata table of the leaf's
/// buildings. Instances are always EXT_mesh_gpu_instancing. Props and rooftop tiles are grouped
/// per group_m square (the leaf's side: one instancing node per kit and leaf, not per chunk).
/// With `meshopt`, the buffers are compressed with EXT_meshopt_compression where it pays
/// (compress_meshopt); bounds are those of the uncompressed content. With `textures`, the
/// materials with a surface take its textures as image files shared by every tile
/// (apply_textures with `texture_uri`, the textures folder relative to the tile).
Result<TileFile> leaf_tile(const CityGlbInputs& in, const CityTiling& tiling,
                           const LeafItems& items, const KitCache& kits, double group_m,
                           const std::string& name, bool meshopt,
                           const TextureSet* textures = nullptr,
                           const std::string& texture_uri = {});

/// The HLOD content of a parent: root "hlod" with "hlod.ground" and "hlod.buildings" (feature
/// ids of `buildings` are building ids; they become rows of the tile's property table).
/// `meshopt` as for leaf_tile.
Result<TileFile> parent_tile(const CityGlbInputs& in, const HlodMesh& ground,
                             const HlodMesh& buildings, const std::string& name, bool meshopt);

/// The ground parts of a leaf's chunks merged with their colours (markings left out).
HlodMesh leaf_ground(const std::vector<const ChunkMeshes*>& chunks);

/// The LOD1 shells of a leaf's buildings, feature = building id.
HlodMesh leaf_shells(const CityGlbInputs& in, const std::vector<std::uint32_t>& buildings);

}  // namespace cityforge::exporter::detail
