// SPDX-License-Identifier: Apache-2.0
// How the tileset's work is shared between ranks (tiles_ranks.cpp).
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <vector>

#include "export/detail/tiles_tree.hpp"

namespace cityforge::exporter::detail {
namespace {

/// A full quadtree of `depth` levels over 2^depth x 2^depth chunks, every chunk weight 1 except
/// the heavy corner (x < 2, y < 2), weight 50.
std::vector<Tile> full_tree(int depth, std::map<ChunkKey, double>& weights) {
  const std::int32_t side = 1 << depth;
  for (std::int32_t y = 0; y < side; ++y) {
    for (std::int32_t x = 0; x < side; ++x)
      weights[{y, x}] = x < 2 && y < 2 ? 50.0 : 1.0;
  }
  std::vector<Tile> tiles(1);
  tiles[0].side = side;
  for (std::size_t i = 0; i < tiles.size(); ++i) {
    if (tiles[i].side == 1) {
      tiles[i].leaf = true;
      continue;
    }
    const std::int32_t half = tiles[i].side / 2;
    for (int q = 0; q < 4; ++q) {
      Tile c;
      c.level = tiles[i].level + 1;
      c.cx0 = tiles[i].cx0 + (q & 1) * half;
      c.cy0 = tiles[i].cy0 + (q >> 1) * half;
      c.side = half;
      tiles[i].children.push_back(tiles.size());
      tiles.push_back(c);
    }
  }
  return tiles;
}

TEST(TilesRanks, OneRankBuildsEverything) {
  std::map<ChunkKey, double> weights;
  const std::vector<Tile> tiles = full_tree(3, weights);
  for (const int o : assign_tiles(tiles, weights, 1))
    EXPECT_EQ(o, 0);
}

TEST(TilesRanks, WholeSubtreesGoToEveryRankAndRankZeroTakesTheTop) {
  std::map<ChunkKey, double> weights;
  const std::vector<Tile> tiles = full_tree(4, weights);
  for (const int ranks : {2, 3, 4, 7}) {
    const std::vector<int> owner = assign_tiles(tiles, weights, ranks);
    ASSERT_EQ(owner.size(), tiles.size());
    std::set<int> used;
    std::vector<double> load(static_cast<std::size_t>(ranks), 0.0);
    for (std::size_t i = 0; i < tiles.size(); ++i) {
      EXPECT_GE(owner[i], -1);
      EXPECT_LT(owner[i], ranks);
      used.insert(owner[i]);
      // A built tile's children are built by the same rank; only the top is left to rank 0.
      for (const std::size_t c : tiles[i].children) {
        if (owner[i] >= 0) {
          EXPECT_EQ(owner[c], owner[i]) << "ranks " << ranks;
        }
      }
      if (owner[i] < 0) {
        EXPECT_FALSE(tiles[i].leaf);
      }
      if (tiles[i].leaf && owner[i] >= 0) {
        for (const auto& [k, w] : weights) {
          if (contains(tiles[i], k)) load[static_cast<std::size_t>(owner[i])] += w;
        }
      }
    }
    EXPECT_EQ(owner[0], -1) << "the root is built last, from the stand-ins";
    for (int r = 0; r < ranks; ++r)
      EXPECT_TRUE(used.count(r)) << "rank " << r << " of " << ranks << " got no work";
    // Balanced by weight (heaviest unit first to the least loaded rank): no rank holds more
    // than the mean plus the heaviest unit (the heavy corner in a 4x4 unit: 4 x 50 + 12).
    double total = 0.0;
    for (const double l : load)
      total += l;
    for (const double l : load)
      EXPECT_LE(l, total / ranks + 212.0) << "ranks " << ranks;
  }
}

TEST(TilesRanks, TheSplitDoesNotDependOnAnythingButTheTreeAndTheCount) {
  std::map<ChunkKey, double> weights;
  const std::vector<Tile> tiles = full_tree(3, weights);
  EXPECT_EQ(assign_tiles(tiles, weights, 3), assign_tiles(tiles, weights, 3));
}

}  // namespace
}  // namespace cityforge::exporter::detail
