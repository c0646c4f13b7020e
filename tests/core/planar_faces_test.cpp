// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <vector>

#include "cityforge/core/planar_graph.hpp"
#include "planar_graph_checks.hpp"

namespace cityforge {
namespace {

using test::grid_lines;

double ring_area(const PlanarGraph& g, const Face& f) {
  double twice = 0.0;
  for (std::size_t i = 0; i < f.nodes.size(); ++i) {
    twice += cross(g.nodes[f.nodes[i]], g.nodes[f.nodes[(i + 1) % f.nodes.size()]]);
  }
  return 0.5 * twice;
}

TEST(ExtractFaces, GridFaces) {
  for (const double from : {0.0, -50.0}) {
    const PlanarGraph g = build_planar_graph(grid_lines(10, 100.0, from, 900.0 - from), 0.0);
    const std::vector<Face> faces = extract_faces(g);
    ASSERT_EQ(faces.size(), 81U) << from;
    double total = 0.0;
    for (const Face& f : faces) {
      EXPECT_NEAR(f.signed_area, 10000.0, 1e-6);
      EXPECT_NEAR(ring_area(g, f), f.signed_area, 1e-6);
      ASSERT_EQ(f.nodes.size(), 4U);
      ASSERT_EQ(f.edges.size(), 4U);
      for (std::size_t i = 0; i < f.edges.size(); ++i) {
        const auto& e = g.edges[f.edges[i]];
        const std::uint32_t u = f.nodes[i];
        const std::uint32_t v = f.nodes[(i + 1) % f.nodes.size()];
        EXPECT_TRUE((e.a == u && e.b == v) || (e.a == v && e.b == u));
      }
      total += f.signed_area;
    }
    EXPECT_NEAR(total, 810000.0, 1e-6);
  }
}

TEST(ExtractFaces, DanglingEdgeInsideFaceAndTwoComponents) {
  PlanarGraph g;
  // Square 0..10 with a spur from (0,0) to (3,3), plus a separate triangle far away.
  g.nodes = {{0, 0}, {10, 0}, {10, 10}, {0, 10}, {3, 3}, {20, 0}, {30, 0}, {20, 10}};
  g.edges = {{0, 1, 0}, {1, 2, 0}, {2, 3, 0}, {0, 3, 0},
             {0, 4, 0}, {5, 6, 0}, {6, 7, 0}, {5, 7, 0}};
  const std::vector<Face> faces = extract_faces(g);
  ASSERT_EQ(faces.size(), 2U);
  EXPECT_NEAR(faces[0].signed_area, 100.0, 1e-12);
  EXPECT_EQ(faces[0].nodes.size(), 6U);  // The spur is walked on both sides.
  EXPECT_NEAR(faces[1].signed_area, 50.0, 1e-12);
  // A tree has no bounded face.
  PlanarGraph tree;
  tree.nodes = {{0, 0}, {1, 0}, {2, 1}};
  tree.edges = {{0, 1, 0}, {1, 2, 0}};
  EXPECT_TRUE(extract_faces(tree).empty());
}

TEST(PruneDangling, RemovesShortSpursOnly) {
  PlanarGraph g;
  g.nodes = {{0, 0},   {10, 0},  {10, 10}, {0, 10},  // Square.
             {-2, 0},                                // Short spur off (0, 0).
             {10, 12}, {10, 14}, {10, 16},           // Chain of three 2 m edges off (10, 10).
             {60, 0},                                // Long spur off (10, 0).
             {0, 12}};                               // Short spur with a kept tag.
  g.edges = {{0, 1, 0}, {1, 2, 0}, {2, 3, 0}, {0, 3, 0}, {0, 4, 0},
             {2, 5, 0}, {5, 6, 0}, {6, 7, 0}, {1, 8, 0}, {3, 9, 7}};
  PlanarGraph copy = g;
  EXPECT_EQ(prune_dangling(g, 10.0, {7}), 4U);
  EXPECT_EQ(g.edges.size(), 6U);
  EXPECT_EQ(g.nodes.size(), 6U);
  for (const auto& e : g.edges) {
    EXPECT_LT(e.a, g.nodes.size());
    EXPECT_LT(e.b, g.nodes.size());
  }
  EXPECT_EQ(extract_faces(g).size(), 1U);
  // Without the kept tag the last spur goes too.
  EXPECT_EQ(prune_dangling(copy, 10.0), 5U);
  EXPECT_EQ(copy.edges.size(), 5U);
}

TEST(PruneDangling, RepeatsUntilStable) {
  // A fork of two short twigs on a short stalk off a square: all of it goes.
  PlanarGraph g;
  g.nodes = {{0, 0}, {10, 0}, {10, 10}, {0, 10}, {-3, 0}, {-5, 1}, {-5, -1}};
  g.edges = {{0, 1, 0}, {1, 2, 0}, {2, 3, 0}, {0, 3, 0}, {0, 4, 0}, {4, 5, 0}, {4, 6, 0}};
  EXPECT_EQ(prune_dangling(g, 4.0), 3U);
  EXPECT_EQ(g.edges.size(), 4U);
}

}  // namespace
}  // namespace cityforge
