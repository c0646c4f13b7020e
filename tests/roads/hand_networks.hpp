// SPDX-License-Identifier: Apache-2.0
// Hand-made road networks for the road tests: nodes at given points, straight edges of a
// class, widths from layout's default classes, incident edges counter-clockwise.
#pragma once

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "cityforge/layout/layout.hpp"
#include "cityforge/terrain/heightfield.hpp"

namespace cityforge::roads::test {

struct NetBuilder {
  layout::Output city;

  layout::NodeId node(Vec2 p) {
    layout::RoadNode n;
    n.id = static_cast<layout::NodeId>(city.network.nodes.size());
    n.pos = p;
    city.network.nodes.push_back(n);
    return n.id;
  }
  /// An edge from a to b through optional interior points.
  layout::EdgeId edge(layout::NodeId a, layout::NodeId b, layout::RoadClass c,
                      std::vector<Vec2> via = {}) {
    const layout::RoadClassSpec spec = layout::Config{}.classes[static_cast<std::size_t>(c)];
    layout::RoadEdge e;
    e.id = static_cast<layout::EdgeId>(city.network.edges.size());
    e.from = a;
    e.to = b;
    e.road_class = c;
    e.points.push_back(city.network.nodes[a].pos);
    for (Vec2 v : via)
      e.points.push_back(v);
    e.points.push_back(city.network.nodes[b].pos);
    e.width_m = spec.width_m;
    e.lanes_per_direction = spec.lanes_per_direction;
    e.sidewalk_width_m = spec.sidewalk_width_m;
    e.speed_limit_kmh = spec.speed_limit_kmh;
    e.length_m = polyline_length(e.points);
    city.network.edges.push_back(e);
    city.network.nodes[a].edges.push_back(e.id);
    city.network.nodes[b].edges.push_back(e.id);
    return e.id;
  }
  /// Sorts every node's edges counter-clockwise by leaving angle, as the layout does.
  layout::Output finish() {
    for (layout::RoadNode& n : city.network.nodes) {
      auto angle = [&](layout::EdgeId id) {
        const layout::RoadEdge& e = city.network.edges[id];
        const Vec2 d = e.from == n.id ? e.points[1] - e.points[0]
                                      : e.points[e.points.size() - 2] - e.points.back();
        return std::atan2(d.y, d.x);
      };
      std::sort(n.edges.begin(), n.edges.end(),
                [&](layout::EdgeId x, layout::EdgeId y) { return angle(x) < angle(y); });
    }
    return city;
  }
};

/// A star: a centre node with spokes of the given classes at the given angles (degrees).
inline layout::Output star(const std::vector<double>& angles_deg,
                           const std::vector<layout::RoadClass>& classes, double length_m = 120) {
  NetBuilder b;
  const layout::NodeId c = b.node({0, 0});
  for (std::size_t i = 0; i < angles_deg.size(); ++i) {
    const double a = angles_deg[i] * std::numbers::pi / 180.0;
    const layout::NodeId n = b.node({length_m * std::cos(a), length_m * std::sin(a)});
    b.edge(c, n, classes[i % classes.size()]);
  }
  return b.finish();
}

/// A roundabout-like ring: `count` short ring edges round a centre (radius_m), a spoke from
/// each ring node outward, and spokes from the centre to every other ring node.
inline layout::Output ring(int count, double radius_m) {
  NetBuilder b;
  const layout::NodeId centre = b.node({0, 0});
  std::vector<layout::NodeId> ring_nodes;
  for (int i = 0; i < count; ++i) {
    const double a = 2 * std::numbers::pi * i / count;
    ring_nodes.push_back(b.node({radius_m * std::cos(a), radius_m * std::sin(a)}));
  }
  for (int i = 0; i < count; ++i) {
    b.edge(ring_nodes[i], ring_nodes[(i + 1) % count], layout::RoadClass::local);
    const double a = 2 * std::numbers::pi * i / count;
    const layout::NodeId out =
        b.node({(radius_m + 100) * std::cos(a), (radius_m + 100) * std::sin(a)});
    b.edge(ring_nodes[i], out, i % 2 == 0 ? layout::RoadClass::main : layout::RoadClass::local);
    if (i % 2 == 0) b.edge(centre, ring_nodes[i], layout::RoadClass::local);
  }
  return b.finish();
}

inline terrain::Heightfield flat_ground() {
  terrain::Heightfield g;
  g.origin = {-1000, -1000};
  g.cell_m = 1000;
  g.nx = 3;
  g.ny = 3;
  g.heights.assign(9, 0.0F);
  return g;
}

}  // namespace cityforge::roads::test
