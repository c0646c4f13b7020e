// SPDX-License-Identifier: Apache-2.0
#pragma once
// The tileset's quadtree (tiles.cpp) and how its work is shared between ranks (tiles_ranks.cpp).

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cityforge/core/result.hpp"
#include "export/detail/tiles_content.hpp"

namespace cityforge::exporter::detail {

/// One tile of the quadtree: a square of side chunks starting at chunk (cx0, cy0).
struct Tile {
  int level = 0;
  std::int32_t x = 0;  ///< Index at its level (east).
  std::int32_t y = 0;  ///< Index at its level (north).
  std::int32_t cx0 = 0;
  std::int32_t cy0 = 0;
  std::int32_t side = 1;  ///< In chunks.
  std::vector<std::size_t> children;
  bool leaf = false;
  detail::LeafItems items;  ///< Leaves only.
  // Filled while writing:
  Box3 box;
  double error_m = 0.0;  ///< geometricError.
  /// What its stand-in carries, for its parent: the simplification distances chained from the
  /// full detail (each simplification moved the surface of the one before) and the tallest
  /// thing left out below it (props, facade relief, rooftop tiles, dropped buildings).
  double chain_m = 0.0;
  double detail_m = 0.0;
  HlodMesh ground;  ///< Stand-in handed to the parent.
  HlodMesh shells;
  std::size_t bytes = 0;
  std::string uri;
};

inline bool contains(const Tile& t, const ChunkKey& k) {
  return k.second >= t.cx0 && k.second < t.cx0 + t.side && k.first >= t.cy0 &&
         k.first < t.cy0 + t.side;
}

/// Which rank builds each tile. The tree is cut at the shallowest level that gives at least
/// eight work units per rank (the tiles at that level and the leaves above it); each unit's
/// subtree goes whole to one rank, heaviest unit first to the least loaded rank (ties: the
/// lower rank). The tiles above the units are -1: rank 0 builds them last, from the units'
/// stand-ins. One rank: 0 for all. `weights`: estimated content bytes per chunk.
std::vector<int> assign_tiles(const std::vector<Tile>& tiles,
                              const std::map<ChunkKey, double>& weights, int ranks);

/// What rank 0 needs of the tiles rank `me` built: every tile's box, errors, size and uri for
/// tileset.json, and the stand-ins its subtrees' roots hand up.
std::string tile_reports(const std::vector<Tile>& tiles, const std::vector<int>& owner, int me);

/// Reads rank `from`'s tile_reports into `tiles`; an internal error on a malformed message or a
/// tile `from` was not given.
Status read_tile_reports(const std::string& bytes, std::vector<Tile>& tiles,
                         const std::vector<int>& owner, int from);

}  // namespace cityforge::exporter::detail
