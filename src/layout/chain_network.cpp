// SPDX-License-Identifier: Apache-2.0
// From the planar graph of straight segments to the road network of the source ("splines made
// of two points" grouped into sections between junctions): chains of degree-2 nodes whose two
// edges carry the same tag become one polyline edge with the class attributes.
#include <algorithm>
#include <cmath>

#include "layout/detail.hpp"

namespace cityforge::layout::detail {
namespace {

// Base traffic demand per class, scaled by the local density: arteries carry the most.
constexpr double kTrafficBase[kRoadClassCount] = {0.9, 0.6, 0.3};
// Pedestrian demand per class, scaled by density: shops line arteries and main roads.
constexpr double kPedestrianBase[kRoadClassCount] = {0.8, 0.9, 0.6};

}  // namespace

RoadNetwork chain_network(const PlanarGraph& g, const Config& config, const Field& density,
                          std::vector<EdgeId>& graph_to_road) {
  // 1. Road incidence per node (boundary edges are not roads).
  const std::size_t n = g.nodes.size();
  std::vector<std::vector<std::uint32_t>> inc(n);
  for (std::uint32_t e = 0; e < g.edges.size(); ++e) {
    if (g.edges[e].tag == kTagBoundary) continue;
    inc[g.edges[e].a].push_back(e);
    inc[g.edges[e].b].push_back(e);
  }
  auto is_junction = [&](std::uint32_t v) {
    return inc[v].size() != 2 || g.edges[inc[v][0]].tag != g.edges[inc[v][1]].tag;
  };
  graph_to_road.assign(g.edges.size(), kNoEdge);
  RoadNetwork net;
  std::vector<std::int64_t> node_id(n, -1);
  auto net_node = [&](std::uint32_t v) {
    if (node_id[v] < 0) {
      node_id[v] = static_cast<std::int64_t>(net.nodes.size());
      net.nodes.push_back(RoadNode{static_cast<NodeId>(net.nodes.size()), g.nodes[v], {}});
    }
    return static_cast<NodeId>(node_id[v]);
  };
  // 2. Walk from each junction along each unvisited edge until the next junction. Then walk
  //    pure cycles (no junction on them) from their lowest node.
  auto walk = [&](std::uint32_t start, std::uint32_t first_edge) {
    RoadEdge edge;
    edge.id = static_cast<EdgeId>(net.edges.size());
    edge.from = net_node(start);
    edge.points.push_back(g.nodes[start]);
    std::uint32_t v = start;
    std::uint32_t e = first_edge;
    const std::uint32_t tag = g.edges[e].tag;
    for (;;) {
      graph_to_road[e] = edge.id;
      v = g.edges[e].a == v ? g.edges[e].b : g.edges[e].a;
      edge.points.push_back(g.nodes[v]);
      if (v == start || is_junction(v)) break;
      e = inc[v][0] == e ? inc[v][1] : inc[v][0];
      if (graph_to_road[e] != kNoEdge) break;
    }
    edge.to = net_node(v);
    edge.road_class = tag_class(tag);
    edge.artery_index = tag_artery(tag);
    const RoadClassSpec& spec = config.classes[static_cast<std::size_t>(edge.road_class)];
    edge.width_m = spec.width_m;
    edge.lanes_per_direction = spec.lanes_per_direction;
    edge.sidewalk_width_m = spec.sidewalk_width_m;
    edge.speed_limit_kmh = spec.speed_limit_kmh;
    edge.length_m = polyline_length(edge.points);
    const double dens = density.sample(polyline_point_at(edge.points, edge.length_m / 2));
    const auto c = static_cast<std::size_t>(edge.road_class);
    edge.traffic_density = std::clamp(kTrafficBase[c] * (0.5 + 0.5 * dens), 0.0, 1.0);
    edge.pedestrian_density = std::clamp(kPedestrianBase[c] * dens, 0.0, 1.0);
    net.edges.push_back(std::move(edge));
  };
  for (std::uint32_t v = 0; v < n; ++v) {
    if (inc[v].empty() || !is_junction(v)) continue;
    for (std::uint32_t e : inc[v]) {
      if (graph_to_road[e] == kNoEdge) walk(v, e);
    }
  }
  for (std::uint32_t v = 0; v < n; ++v) {
    for (std::uint32_t e : inc[v]) {
      if (graph_to_road[e] == kNoEdge) walk(v, e);
    }
  }
  // 3. Incident edges per node, counter-clockwise by leaving angle (ties by edge id).
  for (const RoadEdge& e : net.edges) {
    net.nodes[e.from].edges.push_back(e.id);
    if (e.to != e.from) net.nodes[e.to].edges.push_back(e.id);
  }
  for (RoadNode& node : net.nodes) {
    auto leaving = [&](EdgeId id) {
      const RoadEdge& e = net.edges[id];
      const Vec2 d = e.from == node.id ? e.points[1] - e.points[0]
                                       : e.points[e.points.size() - 2] - e.points.back();
      return std::atan2(d.y, d.x);
    };
    std::sort(node.edges.begin(), node.edges.end(), [&](EdgeId a, EdgeId b) {
      const double aa = leaving(a);
      const double ab = leaving(b);
      return aa != ab ? aa < ab : a < b;
    });
  }
  return net;
}

}  // namespace cityforge::layout::detail
