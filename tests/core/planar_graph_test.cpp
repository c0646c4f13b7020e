// SPDX-License-Identifier: Apache-2.0
#include "cityforge/core/planar_graph.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "cityforge/core/rng.hpp"
#include "planar_graph_checks.hpp"

namespace cityforge {
namespace {

using test::expect_sorted;
using test::grid_lines;
using test::total_length;

TEST(BuildPlanarGraph, GridOfCrossingLines) {
  // Lines end exactly on the outer lines: the 100 crossings are all the nodes.
  const PlanarGraph g = build_planar_graph(grid_lines(10, 100.0, 0.0, 900.0), 0.0);
  EXPECT_EQ(g.nodes.size(), 100U);
  EXPECT_EQ(g.edges.size(), 180U);  // 20 lines of 9 pieces.
  EXPECT_FALSE(planar_graph_has_crossings(g));
  EXPECT_NEAR(total_length(g), 20 * 900.0, 1e-9);
  expect_sorted(g);
  for (const auto& e : g.edges) {
    EXPECT_EQ(e.tag, g.nodes[e.a].y == g.nodes[e.b].y ? 1U : 2U);
  }
}

TEST(BuildPlanarGraph, GridWithOvershootingLines) {
  // Lines overshoot by 50 m: 40 extra end nodes and 2 more pieces per line.
  const PlanarGraph g = build_planar_graph(grid_lines(10, 100.0, -50.0, 950.0), 0.5);
  EXPECT_EQ(g.nodes.size(), 140U);
  EXPECT_EQ(g.edges.size(), 220U);
  EXPECT_FALSE(planar_graph_has_crossings(g));
}

TEST(BuildPlanarGraph, SnapsNearMissesAndOverlaps) {
  const std::vector<TaggedSegment> segs{
      {{0, 0}, {10, 0}, 5},   {{10.2, 0.1}, {20, 0}, 3},  // Starts 0.22 m from the first one's end.
      {{5, 0.3}, {5, 10}, 4},                             // A T-junction that stops 0.3 m short.
      {{12, 0}, {18, 0}, 1},  // Overlaps the second segment: its tag (1) wins there.
      {{7, 7}, {7, 7}, 9},    // Zero length: dropped.
  };
  const PlanarGraph g = build_planar_graph(segs, 0.5);
  EXPECT_FALSE(planar_graph_has_crossings(g));
  // Nodes: (0,0) (5,0.3) (5,10) (10,0) (12,0) (18,0) (20,0).
  ASSERT_EQ(g.nodes.size(), 7U);
  EXPECT_EQ(g.nodes[1], (Vec2{5, 0.3}));
  EXPECT_EQ(g.nodes[3], (Vec2{10, 0}));  // Lowest-index member of the snapped pair.
  ASSERT_EQ(g.edges.size(), 6U);
  std::uint32_t tag_12_18 = 0;
  for (const auto& e : g.edges) {
    if (g.nodes[e.a] == (Vec2{12, 0}) && g.nodes[e.b] == (Vec2{18, 0})) {
      tag_12_18 = e.tag;
    }
  }
  EXPECT_EQ(tag_12_18, 1U);
}

TEST(BuildPlanarGraph, CityGridIsFast) {
  // A 4 x 5 km grid with 85 m blocks, jittered nodes, and each segment's end points perturbed
  // by up to 0.15 m so the builder must snap them back together.
  constexpr int kCols = 48;
  constexpr int kRows = 59;
  Rng rng{7, Stage::test, 2};
  std::vector<Vec2> node(kCols * kRows);
  for (Vec2& p : node) {
    const auto k = static_cast<int>(&p - node.data());
    p = {(k % kCols) * 85.0 + rng.uniform(-3, 3), (k / kCols) * 85.0 + rng.uniform(-3, 3)};
  }
  const auto jitter = [&](Vec2 p) {
    return p + Vec2{rng.uniform(-0.15, 0.15), rng.uniform(-0.15, 0.15)};
  };
  std::vector<TaggedSegment> segs;
  for (int r = 0; r < kRows; ++r) {
    for (int c = 0; c < kCols; ++c) {
      const Vec2 p = node[r * kCols + c];
      if (c + 1 < kCols) {
        segs.push_back({jitter(p), jitter(node[r * kCols + c + 1]), 1});
      }
      if (r + 1 < kRows) {
        segs.push_back({jitter(p), jitter(node[(r + 1) * kCols + c]), 2});
      }
    }
  }
  ASSERT_GT(segs.size(), 5000U);
  // Speed is measured by bench (BM_PlanarGraph), never asserted here.
  const PlanarGraph g = build_planar_graph(segs, 0.5);
  EXPECT_EQ(g.nodes.size(), static_cast<std::size_t>(kCols * kRows));
  EXPECT_EQ(g.edges.size(), segs.size());
  EXPECT_FALSE(planar_graph_has_crossings(g));
}

TEST(PlanarGraphHasCrossings, FindsFirstPair) {
  PlanarGraph g;
  g.nodes = {{0, 0}, {10, 0}, {5, -5}, {5, 5}, {20, 0}, {30, 0}};
  g.edges = {{4, 5, 0}, {0, 1, 0}, {2, 3, 0}};
  std::uint32_t ea = 9;
  std::uint32_t eb = 9;
  ASSERT_TRUE(planar_graph_has_crossings(g, &ea, &eb));
  EXPECT_EQ(ea, 1U);
  EXPECT_EQ(eb, 2U);
  // Edges sharing a node overlap when collinear in the same direction.
  PlanarGraph h;
  h.nodes = {{0, 0}, {10, 0}, {5, 0}, {0, 5}};
  h.edges = {{0, 1, 0}, {0, 2, 0}};
  EXPECT_TRUE(planar_graph_has_crossings(h));
  h.edges = {{0, 1, 0}, {0, 3, 0}};
  EXPECT_FALSE(planar_graph_has_crossings(h));
  // A node touching an edge's interior.
  h.edges = {{0, 1, 0}, {2, 3, 0}};
  EXPECT_TRUE(planar_graph_has_crossings(h));
}

TEST(PlanarGraph, IncidenceIsCounterClockwise) {
  PlanarGraph g;
  g.nodes = {{0, 0}, {1, 0}, {0, 1}, {-1, 0}, {0, -1}, {1, 1}};
  g.edges = {{0, 4, 0}, {0, 3, 0}, {0, 1, 0}, {0, 2, 0}, {0, 5, 0}};
  const auto inc = g.incidence();
  // Angles: east 0, north-east 45, north 90, west 180, south 270 degrees.
  EXPECT_EQ(inc[0], (std::vector<std::uint32_t>{2, 4, 3, 1, 0}));
  EXPECT_EQ(inc[5], (std::vector<std::uint32_t>{4}));
}

}  // namespace
}  // namespace cityforge
