// SPDX-License-Identifier: Apache-2.0
// Facades: every floor of every ring edge gets its corner pieces and the best-fitting grammar
// of the floor's level (seeds/000, 27:59-29:14).

#include <cmath>

#include "buildings/detail/gen_internal.hpp"

namespace cityforge::buildings::detail {

double mesh_height(const Style& style, const ModuleDef& m) {
  if (m.height_m > 0.0) {
    return m.height_m;
  }
  return style.typical.height_m > 0.0 ? style.typical.height_m : 3.2;
}

double facade_yaw(Vec2 dir) { return std::atan2(-dir.y, -dir.x); }

void place_facades(BuildingWork& work) {
  const Style& style = *work.style;
  const std::vector<Volume>& volumes = work.building.volumes;
  work.floors = slice_floors(volumes, style);
  std::vector<double> widths;
  widths.reserve(style.modules.size());
  for (const ModuleDef& m : style.modules) {
    widths.push_back(m.width_m);
  }

  // 1. Corners per ring of every volume.
  std::vector<std::vector<RingCorners>> corners(volumes.size());
  for (std::size_t v = 0; v < volumes.size(); ++v) {
    corners[v].push_back(ring_corners(volumes[v].footprint.outer, style));
    for (const Ring& h : volumes[v].footprint.holes) {
      corners[v].push_back(ring_corners(h, style));
    }
  }

  // 2. Per floor, ring and edge: corner pieces at both ends, the grammar in between.
  for (std::size_t fi = 0; fi < work.floors.size(); ++fi) {
    const Floor& floor = work.floors[fi];
    const Level& level = level_of(style, floor.level);
    const Polygon& fp = volumes[floor.volume].footprint;
    for (std::size_t r = 0; r <= fp.holes.size(); ++r) {
      const Ring& ring = r == 0 ? fp.outer : fp.holes[r - 1];
      const RingCorners& rc = corners[floor.volume][r];
      const std::size_t n = ring.size();
      for (std::size_t e = 0; e < n; ++e) {
        const Vec2 a = ring[e];
        const Vec2 b = ring[(e + 1) % n];
        Facade f;
        f.volume = floor.volume;
        f.floor = static_cast<std::uint32_t>(fi);
        f.ring = static_cast<std::uint32_t>(r);
        f.edge = static_cast<std::uint32_t>(e);
        f.a = a;
        f.length_m = distance(a, b);
        f.dir = normalize(b - a);
        f.normal = {f.dir.y, -f.dir.x};
        f.z0_m = floor.z0_m;
        f.z1_m = floor.z1_m;
        f.first = static_cast<std::uint32_t>(work.placed.size());
        const auto facade_index = static_cast<std::uint32_t>(work.facades.size());
        const double s = rc.start_m[e];
        const double t = rc.end_m[e];
        if (s > 0.0) {
          work.placed.push_back(
              Placed{static_cast<std::uint32_t>(rc.module[e]), facade_index, 0.0, s, true});
        }
        const double usable = f.length_m - s - t;
        if (usable > 1e-6 && !level.grammars.empty()) {
          GrammarFit fit;
          f.grammar =
              static_cast<std::int32_t>(choose_grammar(level.grammars, widths, usable, &fit));
          f.fits = fit.fits;
          if (!fit.fits) {
            ++work.fallbacks;
          }
          for (const FittedModule& m : fit.modules) {
            if (m.width_m <= 0.0) {
              continue;
            }
            work.placed.push_back(
                Placed{m.module, facade_index, s + m.offset_m, s + m.offset_m + m.width_m, false});
          }
        }
        if (t > 0.0) {
          work.placed.push_back(Placed{static_cast<std::uint32_t>(rc.module[(e + 1) % n]),
                                       facade_index, f.length_m - t, f.length_m, true});
        }
        f.count = static_cast<std::uint32_t>(work.placed.size()) - f.first;
        work.facades.push_back(f);
      }
    }
  }
}

}  // namespace cityforge::buildings::detail
