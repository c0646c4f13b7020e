// SPDX-License-Identifier: Apache-2.0
// Planar graph over 50 seeds of random segments (slow: label city).
#include <gtest/gtest.h>

#include <vector>

#include "cityforge/core/planar_graph.hpp"
#include "cityforge/core/rng.hpp"
#include "planar_graph_checks.hpp"

namespace cityforge {
namespace {

using test::expect_sorted;
using test::total_length;

TEST(BuildPlanarGraph, RandomSegmentsHaveNoCrossings) {
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    Rng rng{seed, Stage::test, 1};
    std::vector<TaggedSegment> segs;
    double input_length = 0.0;
    for (std::uint32_t i = 0; i < 120; ++i) {
      const Vec2 a{rng.uniform(0, 1000), rng.uniform(0, 1000)};
      const Vec2 b = a + Vec2{rng.uniform(-300, 300), rng.uniform(-300, 300)};
      segs.push_back({a, b, i});
      input_length += distance(a, b);
    }
    // Some exact T-junctions and shared end points as well.
    for (std::uint32_t i = 0; i < 20; ++i) {
      const TaggedSegment s = segs[i];  // a copy: push_back below may reallocate
      segs.push_back({lerp(s.a, s.b, 0.5), s.b + Vec2{50, 70}, 1000 + i});
      input_length += distance(lerp(s.a, s.b, 0.5), s.b + Vec2{50, 70});
    }
    for (const double snap : {0.0, 0.5}) {
      const PlanarGraph g = build_planar_graph(segs, snap);
      std::uint32_t ea = 0;
      std::uint32_t eb = 0;
      EXPECT_FALSE(planar_graph_has_crossings(g, &ea, &eb))
          << "seed " << seed << " snap " << snap << " edges " << ea << " " << eb;
      expect_sorted(g);
      if (snap == 0.0) {
        EXPECT_NEAR(total_length(g), input_length, 1e-6 * input_length) << seed;
      }
      const PlanarGraph again = build_planar_graph(segs, snap);
      EXPECT_EQ(again.nodes, g.nodes);
      ASSERT_EQ(again.edges.size(), g.edges.size());
      for (std::size_t i = 0; i < g.edges.size(); ++i) {
        EXPECT_EQ(again.edges[i].a, g.edges[i].a);
        EXPECT_EQ(again.edges[i].b, g.edges[i].b);
        EXPECT_EQ(again.edges[i].tag, g.edges[i].tag);
      }
    }
  }
}

}  // namespace
}  // namespace cityforge
