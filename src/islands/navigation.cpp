// SPDX-License-Identifier: Apache-2.0
// The navigation graph of a solved island (seeds/003: the generator's first concern is where
// units can walk): nodes on navigable tiles, edges between floors on one level across a shared
// side, and up and down flights of stairs.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "cityforge/islands/island.hpp"

namespace cityforge::islands {

namespace {

struct Across {
  std::uint32_t cell = kNoCell;  ///< Plane cell across the side, kNoCell at the outline.
  std::uint32_t slot = 0;        ///< Its slot facing back.
};

Across across(const PlanarGrid& plane, std::uint32_t c, std::uint32_t k) {
  const Edge& e = plane.edges[plane.cells[c].edges[k]];
  const int self = e.cells[0] == c && e.slots[0] == k ? 0 : 1;
  return {e.cells[1 - self], e.slots[1 - self]};
}

Vec2 centroid(const PlanarGrid& plane, std::uint32_t c) {
  const Cell& cell = plane.cells[c];
  Vec2 sum{0, 0};
  for (std::uint32_t k = 0; k < cell.count; ++k) {
    sum = sum + plane.vertices[cell.vertices[k]];
  }
  return sum * (1.0 / cell.count);
}

bool is_floor(const TileInfo& t) { return t.navigable && t.kind != TileKind::stairs; }

}  // namespace

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
      const Vec2 p = centroid(plane, c);
      node_of[id] = static_cast<std::uint32_t>(g.nodes.size());
      g.nodes.push_back(
          {c, layer, {p.x, p.y, grid.layer_m * (layer + (stairs ? 0.5 : 0.0))}, stairs});
    }
  }
  // 2. Edges. A floor joins the floors beside it on its level (they share two floor corners,
  // so the ground is continuous). Stairs join what is at their low side on their level and
  // what is at their high side one level up (a floor, or stairs going on up).
  const auto info_at = [&](std::uint32_t c, std::uint32_t layer) -> const TileInfo& {
    return tiles.info[solved[grid.cell_id(c, layer)]];
  };
  const auto link = [&](std::uint32_t a, std::uint32_t b, bool stairs) {
    if (a == kNoCell || b == kNoCell || a == b) return;
    g.edges.push_back({std::min(a, b), std::max(a, b), stairs});
  };
  for (const NavNode& node : g.nodes) {
    const std::uint32_t self = node_of[grid.cell_id(node.plane_cell, node.layer)];
    const TileInfo& t = info_at(node.plane_cell, node.layer);
    const Cell& cell = plane.cells[node.plane_cell];
    for (std::uint32_t k = 0; k < cell.count; ++k) {
      const Across a = across(plane, node.plane_cell, k);
      if (a.cell == kNoCell) continue;
      if (!node.stairs) {
        const TileInfo& o = info_at(a.cell, node.layer);
        if (is_floor(o)) link(self, node_of[grid.cell_id(a.cell, node.layer)], false);
        continue;
      }
      const std::uint32_t high = t.stair_high_slot;
      const std::uint32_t low = (high + 2U) % 4U;
      if (k == low) {
        const TileInfo& o = info_at(a.cell, node.layer);
        if (is_floor(o)) link(self, node_of[grid.cell_id(a.cell, node.layer)], true);
      } else if (k == high && node.layer + 1 < grid.layers) {
        const TileInfo& o = info_at(a.cell, node.layer + 1);
        const bool floor_above = is_floor(o);
        const bool stairs_on =
            o.kind == TileKind::stairs && (o.stair_high_slot + 2U) % 4U == a.slot;
        if (floor_above || stairs_on) {
          link(self, node_of[grid.cell_id(a.cell, node.layer + 1)], true);
        }
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
