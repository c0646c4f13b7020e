// SPDX-License-Identifier: Apache-2.0
// Test helper: road surfaces that overlap at junctions on the same level (issue 9's "no two road
// surfaces overlap at junctions on the same layer"), shared by the OSM network tests and the
// import tests.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "cityforge/core/polygon.hpp"
#include "cityforge/layout/layout.hpp"
#include "cityforge/roads/roads.hpp"

namespace cityforge::osm::testing {

struct SampleFigures {
  std::size_t junction_pairs = 0;  // Same-level pairs whose boxes overlap.
  double worst_m2 = 0.0;
  std::string worst;
  std::size_t over = 0;  // Pairs over the bound.
};

// Levels of a surface as bits (layer + 5); tunnels are not drawn (0).
inline std::uint32_t bits_of(const layout::RoadEdge& e) {
  if (e.tunnel) return 0;
  return 1U << static_cast<std::uint32_t>(std::clamp(static_cast<int>(e.layer), -5, 5) + 5);
}

inline SampleFigures junction_overlaps(const layout::Output& city, const roads::Output& out,
                                       double bound_m2) {
  struct Item {
    std::string name;
    const Polygon* poly;
    Aabb2 box;
    std::uint32_t levels;
    std::int64_t node;  // Junction node, or -1.
    std::uint32_t from, to;
  };
  const auto& net = city.network;
  std::vector<Item> items;
  for (std::size_t i = 0; i < out.sections.size(); ++i) {
    const Polygon& p = out.sections[i].surface;
    const layout::RoadEdge& e = net.edges[out.sections[i].edge];
    if (p.outer.size() < 3 || bits_of(e) == 0) continue;
    items.push_back({"section " + std::to_string(i) + " (way " + std::to_string(e.osm_way) + ")",
                     &p, ring_bounds(p.outer), bits_of(e), -1, e.from, e.to});
  }
  for (std::size_t i = 0; i < out.intersections.size(); ++i) {
    const Polygon& p = out.intersections[i].surface;
    std::uint32_t levels = 0;
    for (const roads::Leg& leg : out.intersections[i].legs)
      levels |= bits_of(net.edges[leg.edge]);
    if (p.outer.size() < 3 || levels == 0) continue;
    items.push_back(
        {"junction " + std::to_string(i) + " (node " + std::to_string(net.nodes[i].osm_node) + ")",
         &p, ring_bounds(p.outer), levels, static_cast<std::int64_t>(i), 0, 0});
  }
  std::sort(items.begin(), items.end(),
            [](const Item& x, const Item& y) { return x.box.min.x < y.box.min.x; });
  SampleFigures f;
  for (std::size_t i = 0; i < items.size(); ++i) {
    for (std::size_t j = i + 1; j < items.size() && items[j].box.min.x <= items[i].box.max.x; ++j) {
      const Item& a = items[i];
      const Item& b = items[j];
      if (a.node < 0 && b.node < 0) continue;  // Junction pairs and junction x section.
      if ((a.levels & b.levels) == 0U || !a.box.overlaps(b.box)) continue;
      // A section against the junctions at its own ends is not compared (they share a mouth).
      const Item& jn = a.node >= 0 ? a : b;
      const Item& other = a.node >= 0 ? b : a;
      if (other.node < 0 && (other.from == jn.node || other.to == jn.node)) continue;
      ++f.junction_pairs;
      double area = 0.0;
      for (const Polygon& p : polygon_intersection(*a.poly, *b.poly))
        area += polygon_area(p);
      if (area > f.worst_m2) {
        f.worst_m2 = area;
        f.worst = a.name + " x " + b.name;
      }
      if (area >= bound_m2) ++f.over;
    }
  }
  return f;
}

}  // namespace cityforge::osm::testing
