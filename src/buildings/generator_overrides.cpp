// SPDX-License-Identifier: Apache-2.0
// Volume overrides (seeds/000, 31:49-32:14): facades whose midpoint lies inside a
// "fire_escape" tag volume get the style's fire escape on every floor above the ground floor.

#include <algorithm>

#include "buildings/detail/gen_internal.hpp"

namespace cityforge::buildings::detail {

void place_fire_escapes(BuildingWork& work, const std::vector<TagVolume>& tags,
                        std::uint32_t first_module) {
  const Style& style = *work.style;
  if (style.fire_escape < 0 ||
      static_cast<std::size_t>(style.fire_escape) >= style.modules.size()) {
    return;
  }
  const auto module = static_cast<std::uint32_t>(style.fire_escape);
  const ModuleDef& def = style.modules[module];
  for (const Facade& f : work.facades) {
    const std::uint32_t floor = work.floors[f.floor].index;
    if (floor == 0 || f.length_m <= 0.0) {
      continue;
    }
    // 1. Touched by a fire escape volume (2D midpoint, floor middle within its z range)?
    const Vec2 mid = f.a + f.dir * (0.5 * f.length_m);
    const double zmid = work.base_z_m + 0.5 * (f.z0_m + f.z1_m);
    const bool touched = std::any_of(tags.begin(), tags.end(), [&](const TagVolume& tv) {
      return tv.tag == "fire_escape" && zmid >= tv.z0_m && zmid <= tv.z1_m &&
             polygon_contains(tv.area, mid);
    });
    // 2. Not on a wall hidden by a neighbour.
    bool visible = false;
    for (std::uint32_t k = f.first; k < f.first + f.count; ++k) {
      visible = visible || !work.placed[k].removed;
    }
    if (!touched || !visible) {
      continue;
    }
    // 3. One per floor, centred on the edge.
    const double sx = std::min(1.0, f.length_m / def.width_m);
    const Vec2 pivot = mid + f.dir * (0.5 * def.width_m * sx);
    Instance in;
    in.module = first_module + module;
    in.position = {static_cast<float>(pivot.x), static_cast<float>(pivot.y),
                   static_cast<float>(f.z0_m)};
    in.yaw_rad = static_cast<float>(facade_yaw(f.dir));
    in.scale_x = static_cast<float>(sx);
    in.scale_z =
        def.height_m > 0.0 ? 1.0F : static_cast<float>((f.z1_m - f.z0_m) / mesh_height(style, def));
    in.floor = static_cast<std::uint16_t>(floor);
    in.tags = def.tags;
    work.props.push_back(in);
  }
}

}  // namespace cityforge::buildings::detail
