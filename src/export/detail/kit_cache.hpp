// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>

#include "cityforge/buildings/kit.hpp"
#include "cityforge/buildings/style.hpp"
#include "cityforge/dressing/dressing.hpp"

/// Private to the export module: kit meshes built once and shared by every tile that
/// instances them (the tile writer builds hundreds of glbs from the same few hundred kits).
namespace cityforge::exporter::detail {

struct KitCache {
  std::map<std::uint32_t, buildings::ModuleMesh> modules;  ///< By global module number.
  std::map<std::uint32_t, dressing::PropMesh> props;       ///< By prop number.
  /// rooftops::rooftop_tile_mesh of each WFC rooftop tile name used.
  std::map<std::string, std::array<Mesh, buildings::kMaterialCount>> rooftop_tiles;
};

/// A copy of the cached kit at `key`, or `make()` when there is no cache or no entry for it.
template <class Map, class Make>
typename Map::mapped_type cached_or(const Map* cache, const typename Map::key_type& key,
                                    Make make) {
  if (cache != nullptr) {
    const auto it = cache->find(key);
    if (it != cache->end()) return it->second;
  }
  return make();
}

/// The kit mesh city.glb instances for a module: built at its style's height when the module
/// has none of its own.
buildings::ModuleMesh module_kit_mesh(const buildings::StyleLibrary& library, std::uint32_t module);

}  // namespace cityforge::exporter::detail
