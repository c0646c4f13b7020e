// SPDX-License-Identifier: Apache-2.0
// Street lights (seeds/004): both sides of every section at the class spacing, on the curb side
// of the sidewalk, arm over the road; none in junctions, on crosswalks or in entrance boxes.
#include <tbb/parallel_for.h>

#include <cmath>

#include "cityforge/core/polyline.hpp"
#include "dressing/detail.hpp"
#include "dressing/detail/exclusions.hpp"

namespace cityforge::dressing::detail {

void street_lights(const Inputs& in, const Config& config, Seed /*seed*/, std::vector<Item>& out) {
  const std::int32_t prop = find_prop("street_light");
  if (prop < 0) return;
  const double radius = prop_catalog()[static_cast<std::size_t>(prop)].radius_m;
  const Areas areas(in, config);
  const auto& edges = in.city.network.edges;
  const auto& sections = in.roads.sections;
  std::vector<std::vector<Item>> slots(sections.size());
  // Every section is its own job; lights stand at exact stations (no jitter), so the spacing
  // along a side is the class spacing times the number of stations skipped.
  tbb::parallel_for(std::size_t{0}, sections.size(), [&](std::size_t i) {
    const roads::Section& sec = sections[i];
    const layout::RoadEdge& edge = edges[sec.edge];
    if (!edge.lit || edge.sidewalk_width_m <= 0.0 || sec.centre.size() < 2) return;
    const double length = polyline_length(sec.centre);
    const double spacing = config.light_spacing_m[static_cast<int>(edge.road_class)];
    const double offset = std::min(config.light_curb_offset_m, edge.sidewalk_width_m * 0.5);
    for (int side : {1, -1}) {
      for (double s : light_stations(length, spacing)) {
        const CurbFrame f = curb_frame(sec.centre, side, edge.width_m * 0.5, s, offset);
        if (areas.hits(f.p, radius, kAreaForbidden) || !areas.inside(f.p, kAreaSidewalk)) continue;
        Item item;
        item.prop = static_cast<std::uint32_t>(prop);
        item.position = {static_cast<float>(f.p.x), static_cast<float>(f.p.y),
                         static_cast<float>(sidewalk_z(in, f.p))};
        item.yaw_rad = static_cast<float>(std::atan2(f.to_road.y, f.to_road.x));
        item.owner = static_cast<std::uint32_t>(sec.edge);
        item.state = 1;
        slots[i].push_back(item);
      }
    }
  });
  for (const auto& slot : slots)
    out.insert(out.end(), slot.begin(), slot.end());
}

}  // namespace cityforge::dressing::detail
