// SPDX-License-Identifier: Apache-2.0
// Meshes of the built-in prop kit.
#include <algorithm>
#include <array>
#include <cstdint>

#include "cityforge/dressing/dressing.hpp"
#include "dressing/detail/prop_geometry.hpp"

namespace cityforge::dressing {

PropMesh build_prop_mesh(std::uint32_t prop) {
  using detail::add_box;
  using detail::add_slab;
  PropMesh out;
  const auto& catalog = prop_catalog();
  if (prop >= catalog.size()) {
    return out;
  }
  const PropDef& def = catalog[prop];
  const auto mat = [&](PropMaterial m) -> Mesh& { return out.parts[static_cast<std::size_t>(m)]; };
  if (def.id == "sidewalk_tile" || def.id == "ground_tile") {
    const Vec2 ring[4] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    add_slab(mat(def.id == "ground_tile" ? PropMaterial::foliage : PropMaterial::paving), ring, 4,
             0.0, 0.02, false);
  } else if (def.id == "sidewalk_corner_out") {
    const Vec2 ring[3] = {{0, 0}, {1, -0.5}, {1, 0.5}};
    add_slab(mat(PropMaterial::paving), ring, 3, 0.0, 0.02, false);
  } else if (def.id == "sidewalk_corner_in") {
    const Vec2 ring[3] = {{0, 0}, {1, 0}, {0, 1}};
    add_slab(mat(PropMaterial::paving), ring, 3, 0.0, 0.02, false);
  } else {
    const double hx = 0.5 * std::min(def.length_m, 2.0 * def.radius_m + 0.2);
    const double hy = 0.5 * std::min(def.width_m, 2.0 * def.radius_m + 0.2);
    add_box(mat(PropMaterial::concrete), {-hx, -hy, 0.0}, {hx, hy, def.height_m});
  }
  return out;
}

}  // namespace cityforge::dressing
