// SPDX-License-Identifier: Apache-2.0
// New York style parcels (seeds/000, 15:12): low lots are cut perpendicular to their street
// into narrow parcels of random frontage width; the buildings' rear lines alternate in depth
// (see run.cpp) so the back yards stagger.
#include <algorithm>
#include <cmath>

#include "lots/detail.hpp"

namespace cityforge::lots::detail {

std::vector<Polygon> narrow_parcels(const Polygon& lot, const StreetSide& side,
                                    const Config& config, Rng& rng) {
  // 1. The street direction and the lot's extent along it.
  const auto front = side.frontage(lot.outer);
  const std::size_t e = main_edge(lot.outer, front);
  const Vec2 u = normalize(lot.outer[(e + 1) % lot.outer.size()] - lot.outer[e]);
  double s0 = INFINITY, s1 = -INFINITY;
  for (Vec2 p : lot.outer) {
    s0 = std::min(s0, dot(p, u));
    s1 = std::max(s1, dot(p, u));
  }
  // 2. Random widths; the last parcel takes the rest, never less than the minimum width.
  std::vector<double> cuts;
  double s = s0;
  while (s1 - s > config.narrow_max_width_m) {
    double w = rng.uniform(config.narrow_min_width_m, config.narrow_max_width_m);
    if (s1 - s - w < config.narrow_min_width_m) {
      if ((s1 - s) / 2 < config.narrow_min_width_m) break;
      w = (s1 - s) / 2;
    }
    s += w;
    cuts.push_back(s);
  }
  if (cuts.empty()) return {};
  // 3. Cut strips off the lot one after the other.
  std::vector<Polygon> parcels;
  Polygon rest = lot;
  const Vec2 v = perp(u);
  for (double c : cuts) {
    const Vec2 at = u * c + v * dot(lot.outer[0], v);
    std::vector<Polygon> strip = cut_half(rest, at, v, true);  // left of +v is -u: before c
    std::vector<Polygon> after = cut_half(rest, at, v, false);
    for (Polygon& p : strip)
      parcels.push_back(std::move(p));
    if (after.size() != 1) {
      for (std::size_t i = 1; i < after.size(); ++i)
        parcels.push_back(std::move(after[i]));
      if (after.empty()) return parcels;
    }
    rest = std::move(after.front());
  }
  parcels.push_back(std::move(rest));
  for (Polygon& p : parcels)
    p.outer = remove_degenerate(std::move(p.outer));
  std::erase_if(parcels, [](const Polygon& p) { return p.outer.size() < 3; });
  return parcels;
}

}  // namespace cityforge::lots::detail
