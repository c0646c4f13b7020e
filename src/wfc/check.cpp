// SPDX-License-Identifier: Apache-2.0
// An independent check of a solved grid: every side against the model's constraint list (and
// the boundary against Empty), sharing no code with the solver so it can catch the solver's
// mistakes.

#include <algorithm>
#include <tuple>

#include "cityforge/wfc/wfc.hpp"

namespace cityforge::wfc {

std::vector<Violation> check_solution(const Model& model, const Grid& grid,
                                      const std::vector<TileId>& tiles) {
  // Own sorted copy: the check must not trust that the model was finalized.
  std::vector<Constraint> allowed = model.constraints;
  const auto less = [](const Constraint& a, const Constraint& b) {
    return std::tie(a.key, a.label, a.adjacent) < std::tie(b.key, b.label, b.adjacent);
  };
  std::sort(allowed.begin(), allowed.end(), less);
  const auto ok = [&](TileId a, Label d, TileId b) {
    return std::binary_search(allowed.begin(), allowed.end(), Constraint{a, d, b}, less);
  };
  const auto tile_at = [&](CellId c) { return c < tiles.size() ? tiles[c] : kNoTile; };
  std::vector<Violation> out;
  for (CellId c = 0; c < grid.cell_count; ++c) {
    if (c + 1 >= grid.offsets.size()) break;
    const TileId t = tile_at(c);
    for (std::uint32_t s = grid.offsets[c]; s < grid.offsets[c + 1] && s < grid.sides.size(); ++s) {
      const Side& side = grid.sides[s];
      bool good = false;
      if (t == kNoTile || t >= model.tiles.size()) {
        good = false;  // unsolved or out-of-range cell: every side of it is a violation
      } else if (side.cell == kBoundary) {
        good = model.empty == kNoTile || ok(t, side.label, model.empty);
      } else {
        const TileId u = tile_at(side.cell);
        good = u != kNoTile && u < model.tiles.size() && ok(t, side.label, u);
      }
      if (!good) out.push_back({c, side.label, side.cell});
    }
  }
  return out;
}

}  // namespace cityforge::wfc
