// SPDX-License-Identifier: Apache-2.0
// The road stage: geometry, modules, then the lane graph on the trimmed geometry.
#include "cityforge/roads/roads.hpp"

namespace cityforge::roads {

Result<Output> run(const layout::Output& city, const terrain::Heightfield& ground,
                   const Config& config, Seed /*seed*/) {
  // 1. Junctions and sections.
  Result<Output> geometry = build_geometry(city, ground, config);
  if (!geometry.ok()) return geometry.error();
  Output out = std::move(geometry).value();
  // 2. Road modules and sidewalk areas.
  out.modules = fit_modules(city, out, ground, config);
  out.sidewalks = build_sidewalks(city, out);
  // 3. Lanes, connectors, crosswalks and signals.
  Result<LaneGraph> lanes = build_lane_graph(city, out, ground, config);
  if (!lanes.ok()) return lanes.error();
  out.lanes = std::move(lanes).value();
  // The markings are painted where they are drawn (build_markings, SectionMarkings): a city's
  // hundreds of thousands of decals are not held with the road network.
  out.block_raise_m = config.block_raise_m;
  out.config = config;
  return out;
}

}  // namespace cityforge::roads
