// SPDX-License-Identifier: Apache-2.0
// Independent checks of layout invariants (brute force, no shared code with the layout).
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "cityforge/core/rng.hpp"
#include "cityforge/layout/layout.hpp"

namespace cityforge::layout::test {

/// "" when no two road segments cross or touch other than at a shared network node; else a
/// description of the first offending pair.
inline std::string first_crossing(const RoadNetwork& net) {
  struct Seg {
    Vec2 a, b;
    EdgeId e;
    std::size_t i;
  };
  std::vector<Seg> segs;
  for (const RoadEdge& e : net.edges) {
    for (std::size_t i = 0; i + 1 < e.points.size(); ++i)
      segs.push_back({e.points[i], e.points[i + 1], e.id, i});
  }
  auto orient = [](Vec2 a, Vec2 b, Vec2 c) { return cross(b - a, c - a); };
  for (std::size_t s = 0; s < segs.size(); ++s) {
    for (std::size_t t = s + 1; t < segs.size(); ++t) {
      const Seg& p = segs[s];
      const Seg& q = segs[t];
      if (std::max(p.a.x, p.b.x) < std::min(q.a.x, q.b.x) - 1e-9 ||
          std::max(q.a.x, q.b.x) < std::min(p.a.x, p.b.x) - 1e-9 ||
          std::max(p.a.y, p.b.y) < std::min(q.a.y, q.b.y) - 1e-9 ||
          std::max(q.a.y, q.b.y) < std::min(p.a.y, p.b.y) - 1e-9) {
        continue;
      }
      // Sharing an end point is allowed (consecutive segments of an edge, or a node).
      const bool share = p.a == q.a || p.a == q.b || p.b == q.a || p.b == q.b;
      const double d1 = orient(p.a, p.b, q.a), d2 = orient(p.a, p.b, q.b);
      const double d3 = orient(q.a, q.b, p.a), d4 = orient(q.a, q.b, p.b);
      const bool proper =
          ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0));
      if (proper && !share) {
        return "edge " + std::to_string(p.e) + " segment " + std::to_string(p.i) +
               " crosses edge " + std::to_string(q.e) + " segment " + std::to_string(q.i);
      }
      if (!share) {
        // Touching (an end point on the other segment's interior) is a T without a node.
        auto on = [&](Vec2 x, Vec2 a, Vec2 b) { return segment_distance(a, b, x) < 1e-6; };
        if (on(q.a, p.a, p.b) || on(q.b, p.a, p.b) || on(p.a, q.a, q.b) || on(p.b, q.a, q.b)) {
          return "edge " + std::to_string(p.e) + " touches edge " + std::to_string(q.e) +
                 " without a node";
        }
      }
    }
  }
  return "";
}

/// Every node reachable from node 0 over road edges.
inline bool is_connected(const RoadNetwork& net) {
  if (net.nodes.empty()) return false;
  std::vector<bool> seen(net.nodes.size(), false);
  std::vector<NodeId> stack{0};
  seen[0] = true;
  while (!stack.empty()) {
    const NodeId v = stack.back();
    stack.pop_back();
    for (EdgeId e : net.nodes[v].edges) {
      const NodeId w = net.edges[e].from == v ? net.edges[e].to : net.edges[e].from;
      if (!seen[w]) {
        seen[w] = true;
        stack.push_back(w);
      }
    }
  }
  for (bool s : seen) {
    if (!s) return false;
  }
  return true;
}

/// A hash of every number in the layout output, in order.
inline std::uint64_t hash_output(const Output& out) {
  std::uint64_t h = 0;
  auto add = [&](double v) { h = hash_bytes(&v, sizeof v, h); };
  for (const RoadEdge& e : out.network.edges) {
    add(e.from);
    add(e.to);
    add(static_cast<double>(e.road_class));
    add(e.traffic_density);
    for (Vec2 p : e.points) {
      add(p.x);
      add(p.y);
    }
  }
  for (const Block& b : out.blocks) {
    add(b.target_height_m);
    for (Vec2 p : b.area.outer) {
      add(p.x);
      add(p.y);
    }
  }
  for (float v : out.height_field.values)
    add(v);
  return h;
}

}  // namespace cityforge::layout::test
