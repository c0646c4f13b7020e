// SPDX-License-Identifier: Apache-2.0
// Pillar instances under a deck or ramp centre line every pillar_spacing_m. A pillar that would
// stand on a road (carriageway plus sidewalk, 1 m margin) or on a spot its rule forbids (too
// short, or on another deck) slides along the line by up to 40 % of the spacing to the nearest
// free spot, or is left out.
#include <cmath>

#include "cityforge/core/polyline.hpp"
#include "freeway/detail.hpp"

namespace cityforge::freeway::detail {

std::vector<Pillar> place_pillars(std::uint32_t freeway, const StationLine& line,
                                  const PillarRule& rule, const layout::Output& city,
                                  const terrain::Heightfield& ground, const Config& config) {
  auto on_road = [&](Vec2 p) {
    for (const layout::RoadEdge& e : city.network.edges) {
      if (polyline_distance(e.points, p) < e.width_m / 2.0 + e.sidewalk_width_m + 1.0) return true;
    }
    return false;
  };
  auto on_deck = [&](Vec2 p) {
    return rule.keep_off != nullptr &&
           polyline_distance(rule.keep_off->line.xy, p) < rule.keep_off->half_width_m;
  };
  std::vector<Pillar> out;
  const double spacing = config.pillar_spacing_m;
  const double len = line.length_m;
  const int count = std::max(1, static_cast<int>(std::floor(len / spacing)));
  const double first = (len - (count - 1) * spacing) / 2.0;
  const double max_shift = 0.4 * spacing;
  for (int i = 0; i < count; ++i) {
    const double s0 = first + i * spacing;
    // Try 0, +2, -2, +4, -4 ... metres.
    for (int step = 0; step * 2.0 <= 2.0 * max_shift; ++step) {
      const double shift = (step % 2 == 1 ? 1.0 : -1.0) * 2.0 * ((step + 1) / 2);
      const double s = s0 + shift;
      if (s < 0.0 || s > len || std::fabs(shift) > max_shift) continue;
      const Vec3 top = point_at(line, s);
      const Vec2 xy{top.x, top.y};
      const double base_z = ground.sample(xy);
      if (top.z - rule.thickness_m - base_z < rule.min_height_m || on_deck(xy) || on_road(xy))
        continue;
      const Vec2 t = tangent_at(line, s);
      Pillar p;
      p.freeway = freeway;
      p.base = {top.x, top.y, base_z};
      p.height_m = top.z - rule.thickness_m - p.base.z;
      p.yaw_rad = std::atan2(t.y, t.x);
      out.push_back(p);
      break;
    }
  }
  return out;
}

}  // namespace cityforge::freeway::detail
