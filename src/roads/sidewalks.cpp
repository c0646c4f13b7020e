// SPDX-License-Identifier: Apache-2.0
// Sidewalk areas: the ring between each block and the curbs around it. The block is grown by
// the widest sidewalk of its frontage roads and the carriageways and junction surfaces are cut
// away, so corners follow the curb returns (convex corners) and meet the block corner (concave)
// without any special casing, and sidewalks never overlap a road surface.
#include <tbb/parallel_for.h>

#include <algorithm>

#include "cityforge/roads/roads.hpp"

namespace cityforge::roads {

std::vector<Polygon> build_sidewalks(const layout::Output& city, const Output& geometry) {
  const auto& blocks = city.blocks;
  std::vector<std::vector<Polygon>> per_block(blocks.size());
  tbb::parallel_for(std::size_t{0}, blocks.size(), [&](std::size_t b) {
    const layout::Block& block = blocks[b];
    // 1. Grow the block to the curbs of its widest-sidewalk road.
    double walk_m = 0.0;
    for (layout::EdgeId e : block.frontage) {
      walk_m = std::max(walk_m, city.network.edges[e].sidewalk_width_m);
    }
    if (walk_m <= 0.0) return;
    std::vector<Polygon> grown = polygon_offset(block.area, walk_m);
    // 2. Cut the road surfaces around it: frontage sections and the junctions at their ends.
    std::vector<Polygon> cut{block.area};
    std::vector<layout::NodeId> nodes;
    for (layout::EdgeId e : block.frontage) {
      if (e < geometry.sections.size() && geometry.sections[e].surface.outer.size() >= 3) {
        cut.push_back(geometry.sections[e].surface);
      }
      nodes.push_back(city.network.edges[e].from);
      nodes.push_back(city.network.edges[e].to);
    }
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    for (layout::NodeId n : nodes) {
      if (n < geometry.intersections.size() &&
          geometry.intersections[n].surface.outer.size() >= 3) {
        cut.push_back(geometry.intersections[n].surface);
      }
    }
    for (const Polygon& g : grown) {
      for (Polygon& piece : polygon_difference(g, cut)) {
        // Slivers left by rounding between surfaces are not sidewalks.
        if (polygon_area(piece) >= 1.0) per_block[b].push_back(std::move(piece));
      }
    }
  });
  std::vector<Polygon> out;
  for (auto& list : per_block) {
    for (Polygon& p : list)
      out.push_back(std::move(p));
  }
  return out;
}

}  // namespace cityforge::roads
