// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cityforge/core/result.hpp"
#include "cityforge/rooftops/rooftops.hpp"
#include "cityforge/wfc/wfc.hpp"
#include "export/detail/gltf_instances.hpp"
#include "export/detail/kit_cache.hpp"
#include "export/detail/tinygltf.hpp"

/// Private to the export module: WFC rooftops in city.glb and solved grids in their own glb.
namespace cityforge::exporter::detail {

/// Rooftop regions are this many export chunks a side: a 100 m chunk holds ~70 of the ~130
/// (tile, colour) kits with a median of 3 instances each, so per-chunk nodes would triple the
/// city's instancing nodes (and a viewer's draw calls) for a few per cent of its instances.
inline constexpr double kRooftopRegionChunks = 4.0;

/// Adds, under node `root`, a node "rooftops", under it one node per region_m x region_m
/// region that holds rooftop tiles ("rooftops.region_<rx>_<ry>", by (ry, rx)), and under that
/// the instances of each (tile, mirrored, colour) kit mesh that occurs (written by `writer`,
/// with _BUILDING in ext mode). Colour variants are materials: one per (kit material, colour)
/// used. Tiles whose kit mesh is empty (Empty, air) are left out. Fails on a non-finite
/// instance or a tile index outside tile_names. With `subset` (instance indices, ascending),
/// only those instances (a tile's); tile meshes come from `kits` when it holds them.
Status add_rooftop_nodes(tinygltf::Model& model, int root, const rooftops::RooftopOutput& rooftops,
                         double region_m, InstanceWriter& writer,
                         const std::vector<std::uint32_t>* subset = nullptr,
                         const KitCache* kits = nullptr);

}  // namespace cityforge::exporter::detail
