// SPDX-License-Identifier: Apache-2.0
// Checks of a planar graph shared by the planar graph tests (unit and city).
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "cityforge/core/planar_graph.hpp"

namespace cityforge::test {

/// n horizontal and n vertical lines `spacing` apart, from `from` to `to` along their length.
inline std::vector<TaggedSegment> grid_lines(int n, double spacing, double from, double to) {
  std::vector<TaggedSegment> segs;
  for (int i = 0; i < n; ++i) {
    const double c = i * spacing;
    segs.push_back({{from, c}, {to, c}, 1});
    segs.push_back({{c, from}, {c, to}, 2});
  }
  return segs;
}

/// Sum of the edges' lengths.
inline double total_length(const PlanarGraph& g) {
  double sum = 0.0;
  for (const auto& e : g.edges) {
    sum += distance(g.nodes[e.a], g.nodes[e.b]);
  }
  return sum;
}

/// Nodes sorted by (x, y); edges sorted by (a, b), each with a < b.
inline void expect_sorted(const PlanarGraph& g) {
  for (std::size_t i = 1; i < g.nodes.size(); ++i) {
    const Vec2 p = g.nodes[i - 1];
    const Vec2 q = g.nodes[i];
    EXPECT_TRUE(p.x < q.x || (p.x == q.x && p.y < q.y)) << i;
  }
  for (std::size_t i = 0; i < g.edges.size(); ++i) {
    EXPECT_LT(g.edges[i].a, g.edges[i].b);
    if (i > 0) {
      const auto& p = g.edges[i - 1];
      const auto& q = g.edges[i];
      EXPECT_TRUE(p.a < q.a || (p.a == q.a && p.b < q.b)) << i;
    }
  }
}

}  // namespace cityforge::test
