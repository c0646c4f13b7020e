// SPDX-License-Identifier: Apache-2.0
// Blocks of a road network the layout stage did not build (imported places): the same planar
// faces and block rules as a generated city's, over the given road segments and the boundary.
#include <vector>

#include "cityforge/core/planar_graph.hpp"
#include "cityforge/layout/layout.hpp"
#include "layout/detail.hpp"

namespace cityforge::layout {

std::vector<Block> network_blocks(const std::vector<TaggedSegment>& road_segments,
                                  const RoadNetwork& net, const Inputs& in, const Config& config,
                                  const Field& height, const Field& density) {
  // 1. The roads and the city limit as one planar graph; the limit's edges carry no road.
  std::vector<TaggedSegment> segs = road_segments;
  const Ring& r = in.boundary.outer;
  for (std::size_t i = 0; i < r.size(); ++i)
    segs.push_back({r[i], r[(i + 1) % r.size()], detail::kTagBoundary});
  const PlanarGraph pg = build_planar_graph(segs, 1e-6);
  std::vector<EdgeId> graph_to_road(pg.edges.size(), detail::kNoEdge);
  for (std::size_t i = 0; i < pg.edges.size(); ++i) {
    if (pg.edges[i].tag != detail::kTagBoundary) graph_to_road[i] = pg.edges[i].tag;
  }
  // 2. Its faces, less the roads, become the blocks.
  return detail::build_blocks(pg, graph_to_road, net, in, config, height, density);
}

}  // namespace cityforge::layout
