// SPDX-License-Identifier: Apache-2.0
// Lot filtering (seeds/000, 15:19): lots unsuitable for building "by their shapes or their
// topology" are flagged with the first failing test, cheapest first.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "lots/detail.hpp"

namespace cityforge::lots::detail {

LotStatus classify(const Polygon& area, double min_wall_m, const Config& config) {
  const double a = polygon_area(area);
  if (a < config.min_lot_area_m2) return LotStatus::too_small;
  const double perimeter = polygon_perimeter(area);
  if (perimeter <= 0.0 ||
      4.0 * std::numbers::pi * a / (perimeter * perimeter) < config.min_compactness) {
    return LotStatus::sliver;
  }
  const OrientedBox box = oriented_box(area.outer);
  if (box.aspect() > config.max_aspect) return LotStatus::bad_aspect;
  if (box.short_m < min_wall_m) return LotStatus::too_narrow;
  return LotStatus::buildable;
}

std::vector<std::uint32_t> eligible_styles(const std::vector<StyleRule>& styles,
                                           layout::ZoneKind zone, double height_m) {
  const std::uint32_t bit = 1U << static_cast<std::uint32_t>(zone);
  std::vector<std::uint32_t> in_zone;
  std::vector<std::uint32_t> in_band;
  for (std::uint32_t i = 0; i < styles.size(); ++i) {
    if ((styles[i].zone_mask & bit) == 0) continue;
    in_zone.push_back(i);
    if (height_m >= styles[i].min_height_m && height_m < styles[i].max_height_m)
      in_band.push_back(i);
  }
  if (!in_band.empty() || in_zone.empty()) return in_band;
  // No band holds this height: the zone's styles whose band is nearest (ties keep them all).
  auto gap = [&](std::uint32_t i) {
    const StyleRule& s = styles[i];
    return height_m < s.min_height_m ? s.min_height_m - height_m : height_m - s.max_height_m;
  };
  double best = INFINITY;
  for (std::uint32_t i : in_zone)
    best = std::min(best, gap(i));
  for (std::uint32_t i : in_zone) {
    if (gap(i) <= best + 1e-9) in_band.push_back(i);
  }
  return in_band;
}

}  // namespace cityforge::lots::detail
