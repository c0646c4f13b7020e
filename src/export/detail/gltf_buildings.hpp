// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "cityforge/buildings/buildings.hpp"
#include "cityforge/buildings/style.hpp"
#include "cityforge/core/result.hpp"
#include "export/detail/gltf_instances.hpp"
#include "export/detail/kit_cache.hpp"
#include "export/detail/tinygltf.hpp"

/// Private to the export module: building modules as EXT_mesh_gpu_instancing nodes.
namespace cityforge::exporter::detail {

/// (cy, cx) of a chunk, sorted like the chunk nodes.
using BuildingChunkKey = std::pair<std::int32_t, std::int32_t>;
/// Per chunk, per global module number: the instance indices placed in it, in instance order.
using BuildingGroups =
    std::map<BuildingChunkKey, std::map<std::uint32_t, std::vector<std::uint32_t>>>;

/// Groups the instances by the chunk of their position. Fails on a non-finite instance, and
/// when `out` does not hold its instances (buildings::Config::keep_instances false).
Result<BuildingGroups> group_building_instances(const buildings::Output& out, double chunk_m);

/// Adds one material per (style, kit material) used and, under each chunk node, the instances
/// of every module used (its kit mesh, one primitive per material) through `writer`; `groups`
/// index `instances`: in ext
/// mode one node per module "<chunk name>.<module id>" with the per-instance attributes
/// _BUILDING (float), _FLOOR and _ROOM (unsigned shorts, 65535 = no room), so a viewer can light
/// rooms per floor. With `feature_of` (per building id: its row in the tile's property table),
/// also _FEATURE_ID_0 (float) for EXT_instance_features. Kit meshes come from `kits` when it
/// holds them.
Status add_building_nodes(tinygltf::Model& model, const BuildingGroups& groups,
                          const std::map<BuildingChunkKey, int>& chunk_node,
                          const std::vector<buildings::Instance>& instances,
                          const buildings::StyleLibrary& library, InstanceWriter& writer,
                          const std::vector<std::uint32_t>* feature_of = nullptr,
                          const KitCache* kits = nullptr);

/// glTF base colour (linear) of a style's palette entry (given as sRGB 0..1).
std::array<double, 4> linear_colour(const std::array<float, 3>& srgb);

}  // namespace cityforge::exporter::detail
