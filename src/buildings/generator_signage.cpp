// SPDX-License-Identifier: Apache-2.0
// Signage and brands (seeds/000, 31:23-31:33 and 33:23-33:54): one brand per facade by a
// modulo of the lot and building ids (or a "brand:<name>" tag volume), and brand signs on
// ground-floor shop fronts and windows near an entrance.

#include <algorithm>
#include <string_view>

#include "buildings/detail/gen_internal.hpp"

namespace cityforge::buildings::detail {

void place_signage(BuildingWork& work, const std::vector<TagVolume>& tags, std::uint32_t lot,
                   std::uint32_t first_module) {
  const Style& style = *work.style;
  if (style.brands.empty() || work.entrances.empty()) {
    return;
  }
  constexpr std::string_view kBrandPrefix = "brand:";
  for (const Facade& f : work.facades) {
    if (work.floors[f.floor].index != 0) {
      continue;
    }
    // 1. The facade's brand: the modulo rule, unless a brand volume holds its midpoint.
    auto brand =
        static_cast<std::uint32_t>((std::uint64_t{lot} * 31U + work.local) % style.brands.size());
    const Vec2 mid = f.a + f.dir * (0.5 * f.length_m);
    const double zmid = work.base_z_m + 0.5 * (f.z0_m + f.z1_m);
    for (const TagVolume& tv : tags) {
      const std::string_view tag = tv.tag;
      if (tag.substr(0, kBrandPrefix.size()) != kBrandPrefix || zmid < tv.z0_m || zmid > tv.z1_m ||
          !polygon_contains(tv.area, mid)) {
        continue;
      }
      const std::string_view name = tag.substr(kBrandPrefix.size());
      for (std::size_t b = 0; b < style.brands.size(); ++b) {
        if (style.brands[b].name == name) {
          brand = static_cast<std::uint32_t>(b);
        }
      }
    }
    const std::uint32_t sign = style.brands[brand].sign_module;
    if (sign >= style.modules.size()) {
      continue;
    }
    const ModuleDef& sdef = style.modules[sign];
    // 2. One sign per shop front or window close to an entrance.
    for (std::uint32_t k = f.first; k < f.first + f.count; ++k) {
      const Placed& p = work.placed[k];
      const std::uint32_t host_tags = style.modules[p.module].tags;
      if (p.removed || p.corner || (host_tags & (kTagStorefront | kTagWindow)) == 0U) {
        continue;
      }
      const Vec2 centre = f.a + f.dir * (0.5 * (p.t0 + p.t1));
      bool near = false;
      for (const Entrance& e : work.entrances) {
        near = near ||
               distance(centre, Vec2{e.position[0], e.position[1]}) <= style.signage_distance_m;
      }
      if (!near) {
        continue;
      }
      const double host_w = p.t1 - p.t0;
      const double sx = std::min(1.0, host_w / sdef.width_m);
      const Vec2 pivot = centre + f.dir * (0.5 * sdef.width_m * sx);
      Instance in;
      in.module = first_module + sign;
      in.position = {static_cast<float>(pivot.x), static_cast<float>(pivot.y),
                     static_cast<float>(f.z0_m)};
      in.yaw_rad = static_cast<float>(facade_yaw(f.dir));
      in.scale_x = static_cast<float>(sx);
      in.scale_z = sdef.height_m > 0.0
                       ? 1.0F
                       : static_cast<float>((f.z1_m - f.z0_m) / mesh_height(style, sdef));
      in.floor = 0;
      in.brand = static_cast<std::uint16_t>(brand);
      in.tags = sdef.tags;
      work.props.push_back(in);
    }
  }
}

}  // namespace cityforge::buildings::detail
