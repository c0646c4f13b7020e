// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "cityforge/islands/grid.hpp"
#include "cityforge/islands/island.hpp"
#include "cityforge/wfc/wfc.hpp"

/// Reachability while solving (seeds/003, 31:22-32:41): the walkable tiles of an island must
/// all be reachable from where units start, and the solver keeps them so as it goes.
namespace cityforge::islands {

/// The height, in half layers, at which a navigable tile's walkable ground meets its side
/// `slot`: a floor's sides lie on its floor (2L); stairs' low side on their floor (2L), their
/// high side on their ceiling (2L + 2), their lateral sides half way up (2L + 1). Two
/// navigable side-neighbours are joined when these agree.
std::uint32_t nav_side_height(const TileInfo& t, std::uint32_t layer, std::uint32_t slot);

/// wfc::SolveOptions::check for an island: false when some decided navigable cell can no
/// longer be reached from the start cell through cells that are, or may still become,
/// navigable and joined (decided pairs by nav_side_height, undecided ones by the heights they
/// could still have). Watch the tiles of watched(). The start cell must be pre-placed.
class ReachCheck {
 public:
  ReachCheck(const LayeredGrid& grid, const TileSet& tiles, wfc::CellId start);
  std::vector<wfc::TileId> watched() const;
  bool operator()(const wfc::SearchView& view, std::span<const wfc::CellId> changed);
  std::uint64_t runs() const { return m_runs; }

 private:
  // Bit h: the cell's ground may meet that side at half-layer height h.
  std::uint32_t heights(const wfc::SearchView& view, wfc::CellId cell, wfc::TileId tile,
                        std::uint32_t slot) const;

  const TileSet* m_tiles = nullptr;
  std::uint32_t m_plane = 0, m_layers = 0;
  wfc::CellId m_start = 0;
  std::vector<SideNeighbour> m_side;    ///< Per plane cell, 4 slots (kNoCell: none).
  std::vector<std::uint8_t> m_sides;    ///< Per plane cell: its side count.
  std::vector<std::uint64_t> m_nav;     ///< Navigable tiles, as a wfc tile bitset.
  std::vector<std::uint64_t> m_stairs;  ///< Stairs tiles.
  std::vector<std::uint32_t> m_stamp;   ///< Per 3D cell: the run that reached it.
  std::uint32_t m_run = 0;
  std::vector<wfc::CellId> m_queue;
  std::uint64_t m_runs = 0;
};

}  // namespace cityforge::islands
