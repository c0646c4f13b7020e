// SPDX-License-Identifier: Apache-2.0
// Blocks are the faces of the road network minus road and sidewalk width: each face of the
// planar graph (roads + city limit) loses the buffers of the roads around and inside it, is
// kept inside the boundary and off water, and slivers below the minimum area are dropped.
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>

#include "layout/detail.hpp"

namespace cityforge::layout::detail {
namespace {

// Removes the there-and-back excursions along dangling edges (node sequences a, b, a), so the
// face's ring is simple. The dangling roads are still cut out by their buffers.
std::vector<std::uint32_t> remove_spikes(std::vector<std::uint32_t> cycle) {
  bool changed = true;
  while (changed && cycle.size() >= 3) {
    changed = false;
    for (std::size_t i = 0; i < cycle.size() && cycle.size() >= 3; ++i) {
      const std::size_t prev = (i + cycle.size() - 1) % cycle.size();
      const std::size_t next = (i + 1) % cycle.size();
      if (cycle[prev] == cycle[next]) {
        // Drop the tip and one copy of its base.
        const std::size_t hi = std::max(i, next);
        const std::size_t lo = std::min(i, next);
        cycle.erase(cycle.begin() + static_cast<std::ptrdiff_t>(hi));
        cycle.erase(cycle.begin() + static_cast<std::ptrdiff_t>(lo));
        changed = true;
        break;
      }
    }
  }
  return cycle;
}

// A road's flat-ended buffer stops exactly at a dead end; where the dead end meets the city
// limit at a slant that leaves a sliver of block around the road's tip. Dead ends are
// extended by `by_m` so the reserve runs past them.
Polyline with_dead_ends_extended(const RoadNetwork& net, const RoadEdge& e, double by_m) {
  Polyline line = e.points;
  if (net.nodes[e.from].edges.size() == 1) {
    line.front() = line.front() + normalize(line[0] - line[1]) * by_m;
  }
  if (net.nodes[e.to].edges.size() == 1) {
    const std::size_t n = line.size();
    line.back() = line.back() + normalize(line[n - 1] - line[n - 2]) * by_m;
  }
  return line;
}

// The junction area around a node: the convex hull of the ends of its road reserves. Flat
// ended reserves meeting at an angle leave a wedge open on the outside of the turn; the hull
// closes it without reaching past the reserves themselves.
Polygon junction_patch(const RoadNetwork& net, const RoadNode& node) {
  std::vector<Vec2> corners{node.pos};
  for (EdgeId id : node.edges) {
    const RoadEdge& e = net.edges[id];
    const Vec2 dir = e.from == node.id ? e.points[1] - e.points[0]
                                       : e.points[e.points.size() - 2] - e.points.back();
    const Vec2 side = perp(normalize(dir)) * (e.width_m / 2 + e.sidewalk_width_m);
    corners.push_back(node.pos + side);
    corners.push_back(node.pos - side);
  }
  return Polygon{convex_hull(std::move(corners)), {}};
}

}  // namespace

std::vector<Block> build_blocks(const PlanarGraph& g, const std::vector<EdgeId>& graph_to_road,
                                const RoadNetwork& net, const Inputs& in, const Config& config,
                                const Field& height, const Field& density) {
  const std::vector<Face> faces = extract_faces(g);
  std::vector<Polygon> patches(net.nodes.size());
  for (const RoadNode& node : net.nodes) {
    if (node.edges.size() >= 2) patches[node.id] = junction_patch(net, node);
  }
  std::vector<std::vector<Block>> per_face(faces.size());
  tbb::parallel_for(std::size_t{0}, faces.size(), [&](std::size_t f) {
    const Face& face = faces[f];
    // 1. The face's ring, without spikes, and the roads around and inside it.
    const std::vector<std::uint32_t> cycle = remove_spikes(face.nodes);
    if (cycle.size() < 3) return;
    Polygon poly;
    for (std::uint32_t v : cycle)
      poly.outer.push_back(g.nodes[v]);
    poly = polygon_canonical(std::move(poly));
    if (polygon_area(poly) < config.min_block_area_m2) return;
    std::vector<EdgeId> frontage;
    bool touches_boundary = false;
    for (std::uint32_t e : face.edges) {
      if (graph_to_road[e] == kNoEdge) {
        touches_boundary = true;
      } else {
        frontage.push_back(graph_to_road[e]);
      }
    }
    std::sort(frontage.begin(), frontage.end());
    frontage.erase(std::unique(frontage.begin(), frontage.end()), frontage.end());
    // 2. Cut away road + sidewalk width and water.
    std::vector<Polygon> cut = in.water;
    for (EdgeId id : frontage) {
      const RoadEdge& e = net.edges[id];
      const double reach = e.width_m / 2 + e.sidewalk_width_m;
      for (Polygon& b : polyline_buffer(with_dead_ends_extended(net, e, reach + 1.0), reach)) {
        cut.push_back(std::move(b));
      }
    }
    std::vector<NodeId> junctions;
    for (EdgeId id : frontage) {
      junctions.push_back(net.edges[id].from);
      junctions.push_back(net.edges[id].to);
    }
    std::sort(junctions.begin(), junctions.end());
    junctions.erase(std::unique(junctions.begin(), junctions.end()), junctions.end());
    for (NodeId v : junctions) {
      if (patches[v].outer.size() >= 3) cut.push_back(patches[v]);
    }
    std::vector<Polygon> pieces = polygon_difference(poly, cut);
    // 3. Faces on the city limit may have been nudged outside it by node snapping.
    if (touches_boundary) {
      std::vector<Polygon> inside;
      for (const Polygon& p : pieces) {
        for (Polygon& q : polygon_intersection(p, in.boundary))
          inside.push_back(std::move(q));
      }
      pieces = std::move(inside);
    }
    for (Polygon& p : pieces) {
      p.outer = ring_remove_degenerate(std::move(p.outer));
      for (Ring& h : p.holes)
        h = ring_remove_degenerate(std::move(h));
      std::erase_if(p.holes, [](const Ring& h) { return h.size() < 3; });
      if (p.outer.size() < 3 || polygon_area(p) < config.min_block_area_m2) continue;
      Block b;
      b.area = std::move(p);
      b.frontage = frontage;
      const Vec2 c = ring_centroid(b.area.outer);
      for (std::size_t z = 0; z < in.zones.size(); ++z) {
        if (polygon_contains(in.zones[z].area, c)) {
          b.zone = in.zones[z].kind;
          b.zone_index = static_cast<std::int32_t>(z);
        }
      }
      b.target_height_m = height.sample(c);
      b.density = density.sample(c);
      per_face[f].push_back(std::move(b));
    }
  });
  // 4. Flatten in face order: ids do not depend on the thread count.
  std::vector<Block> blocks;
  for (auto& list : per_face) {
    for (Block& b : list) {
      b.id = static_cast<BlockId>(blocks.size());
      blocks.push_back(std::move(b));
    }
  }
  return blocks;
}

}  // namespace cityforge::layout::detail
