// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cityforge/core/result.hpp"
#include "cityforge/roads/meshes.hpp"
#include "cityforge/roads/roads.hpp"
#include "cityforge/terrain/heightfield.hpp"
#include "export/city_meshes.hpp"
#include "export/detail/tinygltf.hpp"

/// Private to the export module: the pieces of city.glb that the tile writer shares
/// (gltf_writer.cpp).
namespace cityforge::exporter::detail {

/// (cy, cx) of a chunk, sorted like the chunks of chunk_city_meshes.
using ChunkKey = std::pair<std::int32_t, std::int32_t>;

/// The section modules of each chunk, per road brick, in module order.
using BrickInstances =
    std::map<ChunkKey, std::array<std::vector<const roads::ModuleInstance*>, roads::kBrickCount>>;

/// The material city.glb writes for a part (name, base colour, roughness).
tinygltf::Material part_material(Part part);

/// The linear RGB base colour of a part's material.
std::array<double, 3> part_colour(Part part);

/// Adds under the root (node 0) one node "chunk_<cx>_<cy>" per key in key order, with a mesh of
/// one primitive per part of its ChunkMeshes (none for a null chunk: instances only); errors
/// name `where` + the primitive. Returns the node of each key.
Result<std::map<ChunkKey, int>> add_chunk_nodes(tinygltf::Model& model,
                                                const std::map<ChunkKey, const ChunkMeshes*>& keys,
                                                const std::array<int, kPartCount>& material_of,
                                                const std::string& where);

/// Groups the section modules (junction fill stays baked) by the chunk of their start point.
Result<BrickInstances> group_road_instances(const roads::Output& roads, double chunk_m);

/// Adds the road brick meshes that occur in `instances` and, under each chunk node of
/// `chunk_node`, one EXT_mesh_gpu_instancing node per brick (as city.glb does).
Status add_road_bricks(tinygltf::Model& model, const BrickInstances& instances,
                       const std::map<ChunkKey, int>& chunk_node,
                       const terrain::Heightfield& ground,
                       const std::array<roads::Brick, roads::kBrickCount>& bricks,
                       const std::array<int, kPartCount>& material_of);

}  // namespace cityforge::exporter::detail
