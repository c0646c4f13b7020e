// SPDX-License-Identifier: Apache-2.0
// Internal steps of the layout stage, one algorithm per file.
#pragma once

#include <vector>

#include "cityforge/core/planar_graph.hpp"
#include "cityforge/layout/layout.hpp"

namespace cityforge::layout::detail {

/// Tags on planar graph edges: the class above bit 16, the artery index + 1 below it. Where two
/// edges coincide the planar graph keeps the lowest tag, so arteries win over grid roads and
/// roads win over the city limit.
inline constexpr std::uint32_t kTagBoundary = 0xffffffffU;
inline std::uint32_t road_tag(RoadClass c, std::int32_t artery_index) {
  return (static_cast<std::uint32_t>(c) << 16U) | static_cast<std::uint32_t>(artery_index + 1);
}
inline RoadClass tag_class(std::uint32_t tag) { return static_cast<RoadClass>(tag >> 16U); }
inline std::int32_t tag_artery(std::uint32_t tag) {
  return static_cast<std::int32_t>(tag & 0xffffU) - 1;
}

/// Routes one artery as a least-cost path over the terrain within `corridor_m` of its curve,
/// avoiding water and staying inside the boundary. The error names the artery.
Result<Polyline> route_artery(const ArteryCurve& curve, std::size_t index, const Inputs& in,
                              const terrain::Heightfield& ground, const Config& config);

/// Fits the best grid pattern (orientation, block size, offset) into one region and returns
/// its grid lines, clipped to the region; an end on an artery's corridor is extended (at most
/// `extend_m`) to meet the artery's centre line exactly. Lines running along the region's edge
/// (they would leave sliver blocks) are dropped. Lines carry their class (main every n-th
/// line, else local).
struct GridLine {
  Polyline points;
  RoadClass road_class = RoadClass::local;
};
std::vector<GridLine> fit_grid(Region& region, const std::vector<Polyline>& arteries,
                               double city_angle, double extend_m, const Config& config, Seed seed,
                               std::uint64_t region_id);

/// The city-wide grid orientation in [0, pi/2): the direction with the most boundary length.
double dominant_angle(const Ring& ring);

/// Builds the height and density fields from the zones.
void build_zoning_fields(const Inputs& in, const Config& config, Seed seed, Field& height,
                         Field& density);

/// Turns the planar graph (road edges + boundary edges) into the road network: chains of
/// degree-2 nodes with the same tag become one polyline edge; boundary edges are left out.
/// graph_to_road[e] is the road edge that graph edge e became (kNoEdge for boundary edges).
inline constexpr EdgeId kNoEdge = 0xffffffffU;
RoadNetwork chain_network(const PlanarGraph& g, const Config& config, const Field& density,
                          std::vector<EdgeId>& graph_to_road);

/// Blocks: faces of the graph minus road and sidewalk width, inside the boundary, off water.
std::vector<Block> build_blocks(const PlanarGraph& g, const std::vector<EdgeId>& graph_to_road,
                                const RoadNetwork& net, const Inputs& in, const Config& config,
                                const Field& height, const Field& density);

}  // namespace cityforge::layout::detail
