// SPDX-License-Identifier: Apache-2.0
// Party walls: where another building's wall lies against a facade edge, the facade is fitted
// piece by piece between the ends of that wall, so the piece the other building hides holds
// whole modules occlusion can take (seeds/000, 29:22-30:30, removes only modules whose every
// sample is hidden: a module straddling the end of a neighbour's wall stays, half hidden).

#include <algorithm>
#include <cmath>

#include "buildings/detail/gen_internal.hpp"

namespace cityforge::buildings::detail {
std::vector<double> party_wall_breaks(const PartyWalls& walls, std::uint32_t volume, Vec2 a, Vec2 b,
                                      double z0, double z1, double from, double to, double min_m) {
  std::vector<double> cuts;
  if (walls.solids == nullptr || to - from < 2.0 * min_m) {
    return cuts;
  }
  const double length_m = distance(a, b);
  if (length_m <= 0.0) {
    return cuts;
  }
  const Vec2 dir = (b - a) / length_m;
  const Vec2 normal{dir.y, -dir.x};
  const double push = walls.push_m;
  Aabb2 reach;
  reach.add(a);
  reach.add(b);
  reach.min = reach.min - Vec2{push, push};
  reach.max = reach.max + Vec2{push, push};
  for (const LotSolid& s : *walls.solids) {
    const bool own = s.building == walls.self && (!walls.imported || s.volume == volume);
    if (own || s.z1 + s.parapet_m <= z0 || s.z0 >= z1 || !s.bounds.overlaps(reach)) {
      continue;
    }
    const Polygon& poly = *s.footprint;
    for (std::size_t r = 0; r <= poly.holes.size(); ++r) {
      const Ring& ring = r == 0 ? poly.outer : poly.holes[r - 1];
      for (std::size_t i = 0; i < ring.size(); ++i) {
        const Vec2 c = ring[i];
        const Vec2 d = ring[(i + 1) % ring.size()];
        const Vec2 e = d - c;
        const double len = length(e);
        // Against this wall: running the other way (its solid on our outside), parallel, and
        // within the push of our wall's line.
        if (len <= 0.0 || dot(e, dir) >= 0.0 || std::fabs(cross(dir, e)) >= kAgainstSin * len ||
            std::fabs(dot(c - a, normal)) > push || std::fabs(dot(d - a, normal)) > push) {
          continue;
        }
        const double tc = dot(c - a, dir);
        const double td = dot(d - a, dir);
        if (std::max(tc, td) <= from || std::min(tc, td) >= to) {
          continue;  // Beside the edge, not against it.
        }
        for (double t : {tc, td}) {
          if (t > from && t < to) {
            cuts.push_back(t);
          }
        }
      }
    }
  }
  if (cuts.empty()) {
    return cuts;
  }
  std::sort(cuts.begin(), cuts.end());
  // Keep the cuts that leave every piece at least min_m long, in order along the edge.
  std::vector<double> kept;
  double last = from;
  for (double t : cuts) {
    if (t - last >= min_m && to - t >= min_m) {
      kept.push_back(t);
      last = t;
    }
  }
  return kept;
}

}  // namespace cityforge::buildings::detail
