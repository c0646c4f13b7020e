// SPDX-License-Identifier: Apache-2.0
// Facades: every floor of every ring edge gets its corner pieces and the best-fitting grammar
// of the floor's level (seeds/000, 27:59-29:14).

#include <cmath>
#include <vector>

#include "buildings/detail/gen_internal.hpp"

namespace cityforge::buildings::detail {

double mesh_height(const Style& style, const ModuleDef& m) {
  if (m.height_m > 0.0) {
    return m.height_m;
  }
  return style.typical.height_m > 0.0 ? style.typical.height_m : 3.2;
}

double facade_yaw(Vec2 dir) { return std::atan2(-dir.y, -dir.x); }

void place_facades(BuildingWork& work, const PartyWalls* walls) {
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

  // 2. Per volume, ring and edge: where other buildings' walls lying against it begin and end
  // (the same for every floor of the volume, so windows stay in columns).
  std::vector<std::vector<std::vector<std::vector<double>>>> breaks(volumes.size());
  for (std::size_t v = 0; walls != nullptr && v < volumes.size(); ++v) {
    const Polygon& fp = volumes[v].footprint;
    breaks[v].resize(fp.holes.size() + 1);
    for (std::size_t r = 0; r <= fp.holes.size(); ++r) {
      const Ring& ring = r == 0 ? fp.outer : fp.holes[r - 1];
      const RingCorners& rc = corners[v][r];
      breaks[v][r].resize(ring.size());
      for (std::size_t e = 0; e < ring.size(); ++e) {
        const Vec2 a = ring[e];
        const Vec2 b = ring[(e + 1) % ring.size()];
        breaks[v][r][e] =
            party_wall_breaks(*walls, static_cast<std::uint32_t>(v), a, b,
                              work.base_z_m + volumes[v].z0_m, work.base_z_m + volumes[v].z1_m,
                              rc.start_m[e], distance(a, b) - rc.end_m[e], style.min_wall_m);
      }
    }
  }

  // 3. Per floor, ring and edge: corner pieces at both ends, the grammar in between (in each
  // piece between party wall ends).
  std::vector<double> ends;
  std::vector<GrammarFit> fits;
  std::vector<std::size_t> chosen;
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
          // The pieces between party wall ends, each fitted alone while every one fits; else
          // the whole edge as one.
          ends.assign(1, s);
          if (walls != nullptr) {
            const std::vector<double>& cut = breaks[floor.volume][r][e];
            ends.insert(ends.end(), cut.begin(), cut.end());
          }
          ends.push_back(f.length_m - t);
          fits.assign(ends.size() - 1, GrammarFit{});
          chosen.assign(ends.size() - 1, 0);
          bool all = true;
          for (std::size_t k = 0; k + 1 < ends.size(); ++k) {
            // One piece: the edge's usable length exactly as without party walls.
            const double piece = ends.size() == 2 ? usable : ends[k + 1] - ends[k];
            chosen[k] = choose_grammar(level.grammars, widths, piece, &fits[k]);
            all = all && fits[k].fits;
          }
          if (!all && ends.size() > 2) {
            ends = {s, f.length_m - t};
            fits.resize(1);
            chosen.resize(1);
            chosen[0] = choose_grammar(level.grammars, widths, usable, &fits[0]);
          }
          f.grammar = static_cast<std::int32_t>(chosen[0]);
          f.fits = fits[0].fits;
          if (!fits[0].fits) {
            ++work.fallbacks;
          }
          for (std::size_t k = 0; k < fits.size(); ++k) {
            for (const FittedModule& m : fits[k].modules) {
              if (m.width_m <= 0.0) {
                continue;
              }
              work.placed.push_back(Placed{m.module, facade_index, ends[k] + m.offset_m,
                                           ends[k] + m.offset_m + m.width_m, false});
            }
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
