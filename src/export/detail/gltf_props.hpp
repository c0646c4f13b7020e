// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "cityforge/core/result.hpp"
#include "cityforge/dressing/dressing.hpp"
#include "export/detail/gltf_instances.hpp"
#include "export/detail/kit_cache.hpp"
#include "export/detail/tinygltf.hpp"

/// Private to the export module: set dressing props in city.glb.
namespace cityforge::exporter::detail {

/// Adds, under node `root`, one node per prop category that occurs ("props_<category>", in
/// category order), under it one node per chunk_m chunk ("props_<category>.chunk_<cx>_<cy>",
/// by (cy, cx)), and under that the instances of each prop (kit mesh per prop, one material per
/// prop material, written by `writer`); lights carry _STATE (1: on at night) and every prop
/// _VARIANT in ext mode. Fails on a non-finite item. With `subset` (item indices, ascending),
/// only those items (a tile's); kit meshes come from `kits` when it holds them.
Status add_prop_nodes(tinygltf::Model& model, int root, const dressing::Output& dressing,
                      double chunk_m, InstanceWriter& writer,
                      const std::vector<std::uint32_t>* subset = nullptr,
                      const KitCache* kits = nullptr);

}  // namespace cityforge::exporter::detail
