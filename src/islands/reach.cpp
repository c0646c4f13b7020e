// SPDX-License-Identifier: Apache-2.0
// Reachability while solving (seeds/003, 31:22-32:41: "it grows ... from the edges of the
// navigability and it always tries to extend the navigability"): a walkable tile may only be
// kept where units can still walk to it from the start, so the first pass leaves no snippet
// of walkable land for a later pass to delete.
#include "reach.hpp"

#include <algorithm>

namespace cityforge::islands {

std::uint32_t nav_side_height(const TileInfo& t, std::uint32_t layer, std::uint32_t slot) {
  const std::uint32_t base = 2U * layer;
  if (t.kind != TileKind::stairs) return base;
  if (slot == t.stair_high_slot) return base + 2U;
  if (slot == (t.stair_high_slot + 2U) % 4U) return base;
  return base + 1U;
}

ReachCheck::ReachCheck(const LayeredGrid& grid, const TileSet& tiles, wfc::CellId start)
    : m_tiles(&tiles),
      m_plane(static_cast<std::uint32_t>(grid.plane.cells.size())),
      m_layers(grid.layers),
      m_start(start) {
  m_side.resize(std::size_t{m_plane} * 4);
  m_sides.resize(m_plane);
  for (std::uint32_t c = 0; c < m_plane; ++c) {
    m_sides[c] = static_cast<std::uint8_t>(grid.plane.cells[c].count);
    for (std::uint32_t k = 0; k < grid.plane.cells[c].count; ++k)
      m_side[std::size_t{c} * 4 + k] = side_neighbour(grid.plane, c, k);
  }
  const std::size_t words = (tiles.info.size() + 63) / 64;
  m_nav.assign(words, 0);
  m_stairs.assign(words, 0);
  for (std::size_t t = 0; t < tiles.info.size(); ++t) {
    const std::uint64_t bit = std::uint64_t{1} << (t & 63U);
    if (tiles.info[t].navigable) m_nav[t >> 6U] |= bit;
    if (tiles.info[t].kind == TileKind::stairs) m_stairs[t >> 6U] |= bit;
  }
  m_stamp.assign(grid.cell_count(), 0);
}

std::vector<wfc::TileId> ReachCheck::watched() const {
  std::vector<wfc::TileId> out;
  for (std::size_t t = 0; t < m_tiles->info.size(); ++t) {
    if (m_tiles->info[t].navigable) out.push_back(static_cast<wfc::TileId>(t));
  }
  return out;
}

namespace {

// The heights an undecided cell's ground may meet any side at: its floor, and half way up and
// its ceiling when it may still become stairs.
std::uint32_t undecided_heights(std::uint32_t layer, bool may_be_stairs) {
  return (1U << (2U * layer)) | (may_be_stairs ? 6U << (2U * layer) : 0U);
}

}  // namespace

std::uint32_t ReachCheck::heights(const wfc::SearchView& view, wfc::CellId cell, wfc::TileId tile,
                                  std::uint32_t slot) const {
  const std::uint32_t layer = cell / m_plane;
  if (tile != wfc::kNoTile) return 1U << nav_side_height(m_tiles->info[tile], layer, slot);
  return undecided_heights(layer, view.may_hold_any(cell, m_stairs.data()));
}

bool ReachCheck::operator()(const wfc::SearchView& view, std::span<const wfc::CellId>) {
  ++m_runs;
  const auto n = static_cast<wfc::CellId>(m_stamp.size());
  const auto navigable = [&](wfc::TileId t) { return m_tiles->info[t].navigable; };
  // The decided walkable cells, all of which the search must reach.
  std::uint32_t decided = 0;
  for (wfc::CellId c = 0; c < n; ++c) {
    const wfc::TileId t = view.tile(c);
    if (t != wfc::kNoTile && navigable(t)) ++decided;
  }
  const wfc::TileId start_tile = view.tile(m_start);
  if (start_tile == wfc::kNoTile || !navigable(start_tile)) return decided == 0;
  if (++m_run == 0) {
    std::fill(m_stamp.begin(), m_stamp.end(), 0);
    m_run = 1;
  }
  m_queue.clear();
  m_queue.push_back(m_start);
  m_stamp[m_start] = m_run;
  std::uint32_t reached = 1;
  for (std::size_t qi = 0; qi < m_queue.size() && reached < decided; ++qi) {
    const wfc::CellId u = m_queue[qi];
    const wfc::TileId tu = view.tile(u);
    const std::uint32_t c = u % m_plane, layer = u / m_plane;
    // An undecided cell's heights are the same on every side: found once.
    const std::uint32_t hu_any = tu == wfc::kNoTile ? heights(view, u, tu, 0) : 0U;
    for (std::uint32_t k = 0; k < m_sides[c]; ++k) {
      const SideNeighbour a = m_side[std::size_t{c} * 4 + k];
      if (a.cell == kNoCell) continue;
      const std::uint32_t hu = tu == wfc::kNoTile ? hu_any : heights(view, u, tu, k);
      const std::uint32_t lo = layer > 0 ? layer - 1 : 0;
      const std::uint32_t hi = std::min(layer + 1, m_layers - 1);
      for (std::uint32_t l2 = lo; l2 <= hi; ++l2) {
        const wfc::CellId w = a.cell + m_plane * l2;
        if (m_stamp[w] == m_run) continue;
        const wfc::TileId tw = view.tile(w);
        std::uint32_t hw = 0;
        if (tw != wfc::kNoTile) {
          if (!navigable(tw)) continue;
          hw = heights(view, w, tw, a.slot);
        } else {  // Whether it may be walkable, and stairs, in one look at its options.
          const std::uint32_t may = view.may_hold_each(w, m_nav.data(), m_stairs.data());
          if ((may & 1U) == 0) continue;
          hw = undecided_heights(l2, (may & 2U) != 0);
        }
        if ((hu & hw) == 0) continue;
        m_stamp[w] = m_run;
        if (tw != wfc::kNoTile) ++reached;
        m_queue.push_back(w);
      }
    }
  }
  return reached >= decided;
}

}  // namespace cityforge::islands
