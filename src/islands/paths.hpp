// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <vector>

#include "cityforge/islands/grid.hpp"
#include "cityforge/islands/island.hpp"

namespace cityforge::islands {

/// The kit's walkable flat ground tile of most weight, on ground level (flat sand) or above it
/// (the floor units start on); kNoTile when the kit has none.
wfc::TileId flat_floor(const TileSet& tiles, bool ground_level);

/// Lays the island's paths on solved tiles (paths.cpp): the walkable flat tiles on the
/// shortest ways from `start` to every flight of stairs, to the front of every group of houses
/// and to the nearest walkable beach become path tiles with the exits those ways use (and the
/// cells a flight of stairs leads to get an exit facing it); all other walkable flat tiles
/// become plain floor. Returns the path tiles laid; 0 when the kit has no path or floor tiles
/// (nothing changed), kNoCell when it lacks a path for some exits (the caller must check and
/// revert: `solved` is then partly changed).
std::uint32_t lay_paths(const LayeredGrid& grid, const TileSet& tiles,
                        std::vector<wfc::TileId>& solved, wfc::CellId start);

}  // namespace cityforge::islands
