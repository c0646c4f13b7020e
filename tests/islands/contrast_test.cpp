// SPDX-License-Identifier: Apache-2.0
// The contrast map (contrast_map, seeds/003 37:45-38:57): patches end at every edge that is not
// plain, and after the sweeps touching patches stand about as far apart as their shared edges
// want: far across material borders, less across hard edges, a little across game-tile borders.
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>
#include <vector>

#include "cityforge/islands/island.hpp"

namespace cityforge::islands {
namespace {

double distance(const std::array<float, 3>& a, const std::array<float, 3>& b) {
  return std::hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

TEST(IslandContrast, TouchingPatchesStandAsFarApartAsTheirEdgesWant) {
  Result<TileSet> tiles = build_tile_set();
  ASSERT_TRUE(tiles.ok()) << tiles.error().to_string();
  Result<Island> island = generate_island(IslandConfig{}, 6, *tiles);
  ASSERT_TRUE(island.ok()) << island.error().to_string();
  const IslandMesh& m = island->mesh;
  const auto t0 = std::chrono::steady_clock::now();
  const ContrastMap map = contrast_map(m, 6);
  const double ms =
      1000.0 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(map.patch.size(), m.triangles.size());
  ASSERT_EQ(m.contrast.size(), m.triangles.size()) << "the generator keeps the map per triangle";
  for (std::size_t t = 0; t < m.triangles.size(); ++t)
    ASSERT_EQ(m.contrast[t], map.colour[map.patch[t]]) << "the same map, triangle " << t;
  // Mean distance between the colours on the two sides of each kind of edge.
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> edge_tris;
  std::array<double, 4> sum{};
  std::array<int, 4> count{};
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::uint32_t>> by_edge;
  for (std::uint32_t t = 0; t < m.triangles.size(); ++t) {
    for (std::size_t k = 0; k < 3; ++k) {
      const std::uint32_t a = m.triangles[t][k], b = m.triangles[t][(k + 1) % 3];
      by_edge[{std::min(a, b), std::max(a, b)}].push_back(t);
    }
  }
  for (const IslandMesh::MeshEdge& e : m.edges) {
    const auto it = by_edge.find({e.a, e.b});
    if (it == by_edge.end() || it->second.size() != 2) continue;
    const std::uint32_t t = it->second[0], u = it->second[1];
    const auto r = static_cast<std::size_t>(e.rank);
    if (e.rank == EdgeRank::plain) {
      EXPECT_EQ(map.patch[t], map.patch[u]) << "a plain edge lies inside one patch";
    }
    sum[r] += distance(m.contrast[t], m.contrast[u]);
    ++count[r];
  }
  const auto mean = [&](EdgeRank r) {
    const auto i = static_cast<std::size_t>(r);
    return count[i] > 0 ? sum[i] / count[i] : 0.0;
  };
  std::printf(
      "%zu triangles, %zu patches, %u touching pairs, %.1f ms; mean contrast across "
      "plain %.3f (%d), tile %.3f (%d), material %.3f (%d), hard %.3f (%d) edges\n",
      m.triangles.size(), map.colour.size(), map.pairs, ms, mean(EdgeRank::plain), count[0],
      mean(EdgeRank::tile), count[1], mean(EdgeRank::material), count[2], mean(EdgeRank::hard),
      count[3]);
  EXPECT_EQ(mean(EdgeRank::plain), 0.0);
  EXPECT_GT(mean(EdgeRank::material), mean(EdgeRank::hard));
  EXPECT_GT(mean(EdgeRank::hard), mean(EdgeRank::tile));
  EXPECT_GT(mean(EdgeRank::tile), 0.1);
  EXPECT_GT(mean(EdgeRank::material), 0.6);
  // Deterministic, and another seed starts from other colours.
  EXPECT_EQ(contrast_map(m, 6).colour, map.colour);
  EXPECT_NE(contrast_map(m, 7).colour, map.colour);
}

}  // namespace
}  // namespace cityforge::islands
