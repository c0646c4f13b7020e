// SPDX-License-Identifier: Apache-2.0
// The navigation graph of a solved island (seeds/003: the generator's first concern is where
// units can walk): nodes on navigable tiles, edges between floors on one level across a shared
// side, and up and down flights of stairs.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "cityforge/islands/island.hpp"
#include "reach.hpp"

namespace cityforge::islands {

NavGraph navigation_graph(const LayeredGrid& grid, const TileSet& tiles,
                          const std::vector<wfc::TileId>& solved) {
  const PlanarGrid& plane = grid.plane;
  const auto n_plane = static_cast<std::uint32_t>(plane.cells.size());
  NavGraph g;
  std::vector<std::uint32_t> node_of(grid.cell_count(), kNoCell);
  // 1. Nodes, in 3D cell order.
  for (std::uint32_t layer = 0; layer < grid.layers; ++layer) {
    for (std::uint32_t c = 0; c < n_plane; ++c) {
      const wfc::CellId id = grid.cell_id(c, layer);
      const TileInfo& t = tiles.info[solved[id]];
      if (!t.navigable) continue;
      const bool stairs = t.kind == TileKind::stairs;
      const Vec2 p = cell_centroid(plane, plane.cells[c]);
      node_of[id] = static_cast<std::uint32_t>(g.nodes.size());
      g.nodes.push_back(
          {c, layer, {p.x, p.y, grid.layer_m * (layer + (stairs ? 0.5 : 0.0))}, stairs});
    }
  }
  // 2. Edges. Two navigable tiles that share a side are joined when their ground meets at one
  // height there (in half layers): a floor's sides lie on its floor (2L); stairs' low side on
  // their floor (2L), their high side on their ceiling (2L + 2), their lateral sides half way
  // up (2L + 1, so only a wide flight of stairs walks sideways). So floors join floors on
  // their level, stairs join the floor at their foot and the floor one layer up at their top,
  // and flights join flights that meet foot to foot or top to top.
  const auto info_at = [&](std::uint32_t c, std::uint32_t layer) -> const TileInfo& {
    return tiles.info[solved[grid.cell_id(c, layer)]];
  };
  for (const NavNode& node : g.nodes) {
    const std::uint32_t self = node_of[grid.cell_id(node.plane_cell, node.layer)];
    const TileInfo& t = info_at(node.plane_cell, node.layer);
    const Cell& cell = plane.cells[node.plane_cell];
    for (std::uint32_t k = 0; k < cell.count; ++k) {
      const SideNeighbour a = side_neighbour(plane, node.plane_cell, k);
      if (a.cell == kNoCell) continue;
      const std::uint32_t h = nav_side_height(t, node.layer, k);
      const std::uint32_t lo = node.layer > 0 ? node.layer - 1 : 0;
      const std::uint32_t hi = std::min(node.layer + 1, grid.layers - 1);
      for (std::uint32_t layer = lo; layer <= hi; ++layer) {
        const std::uint32_t other = node_of[grid.cell_id(a.cell, layer)];
        if (other == kNoCell || other <= self) continue;  // Each pair once, from its first node.
        const TileInfo& o = info_at(a.cell, layer);
        if (nav_side_height(o, layer, a.slot) != h) continue;
        g.edges.push_back({self, other, node.stairs || o.kind == TileKind::stairs});
      }
    }
  }
  std::sort(g.edges.begin(), g.edges.end(),
            [](const NavEdge& x, const NavEdge& y) { return x.a != y.a ? x.a < y.a : x.b < y.b; });
  g.edges.erase(
      std::unique(g.edges.begin(), g.edges.end(),
                  [](const NavEdge& x, const NavEdge& y) { return x.a == y.a && x.b == y.b; }),
      g.edges.end());
  return g;
}

}  // namespace cityforge::islands
