// SPDX-License-Identifier: Apache-2.0
// Paths that lead somewhere (issue 29; seeds/003 shows paths between the houses and down to the
// shore): after the solve, the walkable tiles on the shortest ways from the start to every
// flight of stairs, to the front of every group of houses and to the nearest walkable beach
// become path tiles with exactly the exits those ways use; every other path tile becomes plain
// floor, so no path is a stub that leads nowhere.
#include "paths.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "cityforge/islands/island.hpp"

namespace cityforge::islands {

wfc::TileId flat_floor(const TileSet& tiles, bool ground_level) {
  wfc::TileId best = wfc::kNoTile;
  for (wfc::TileId t = 0; t < tiles.info.size(); ++t) {
    const TileInfo& info = tiles.info[t];
    if (info.kind == TileKind::ground && info.navigable && info.ground_level == ground_level &&
        (best == wfc::kNoTile || tiles.model.tiles[t].weight > tiles.model.tiles[best].weight)) {
      best = t;
    }
  }
  return best;
}

std::uint32_t lay_paths(const LayeredGrid& g, const TileSet& tiles,
                        std::vector<wfc::TileId>& solved, wfc::CellId start) {
  const auto n_plane = static_cast<std::uint32_t>(g.plane.cells.size());
  // 1. The tiles to lay: a path for every (ground level, exits), a flat floor for none.
  std::map<std::pair<bool, std::uint8_t>, wfc::TileId> path_tile;
  for (wfc::TileId t = 0; t < tiles.info.size(); ++t) {
    const TileInfo& info = tiles.info[t];
    if (info.kind == TileKind::path) path_tile.emplace(std::pair{info.ground_level, info.exits}, t);
  }
  const std::array<wfc::TileId, 2> floor_tile = {flat_floor(tiles, false), flat_floor(tiles, true)};
  if (path_tile.empty() || floor_tile[0] == wfc::kNoTile || floor_tile[1] == wfc::kNoTile) {
    return 0;  // A kit without them.
  }

  // 2. The ways: a breadth-first tree over the navigation graph from the start.
  const NavGraph nav = navigation_graph(g, tiles, solved);
  std::vector<std::uint32_t> node_of(g.cell_count(), kNoCell);
  for (std::uint32_t i = 0; i < nav.nodes.size(); ++i)
    node_of[g.cell_id(nav.nodes[i].plane_cell, nav.nodes[i].layer)] = i;
  if (node_of[start] == kNoCell) return 0;
  std::vector<std::vector<std::uint32_t>> adj(nav.nodes.size());
  for (const NavEdge& e : nav.edges) {
    adj[e.a].push_back(e.b);
    adj[e.b].push_back(e.a);
  }
  std::vector<std::uint32_t> parent(nav.nodes.size(), kNoCell);
  std::vector<std::uint32_t> order{node_of[start]};
  parent[node_of[start]] = node_of[start];
  for (std::size_t i = 0; i < order.size(); ++i) {
    for (const std::uint32_t w : adj[order[i]]) {
      if (parent[w] == kNoCell) {
        parent[w] = order[i];
        order.push_back(w);
      }
    }
  }
  const auto id_of = [&](std::uint32_t node) {
    return g.cell_id(nav.nodes[node].plane_cell, nav.nodes[node].layer);
  };
  // 3. The goals: every flight of stairs, the floor in front of each group of touching houses
  // nearest the start, the walkable beach nearest the start.
  std::vector<std::uint32_t> goals;
  std::vector<std::uint8_t> house_done(g.cell_count(), 0);
  bool beach = false;
  for (const std::uint32_t u : order) {  // Nearest first.
    const NavNode& n = nav.nodes[u];
    if (n.stairs) goals.push_back(u);
    if (n.layer == 0 && !n.stairs && !beach) {
      goals.push_back(u);
      beach = true;
    }
    const Cell& cell = g.plane.cells[n.plane_cell];
    for (std::uint32_t k = 0; k < cell.count; ++k) {
      const SideNeighbour a = side_neighbour(g.plane, n.plane_cell, k);
      if (a.cell == kNoCell || n.stairs) continue;
      const wfc::CellId h = g.cell_id(a.cell, n.layer);
      if (tiles.info[solved[h]].kind != TileKind::house || house_done[h] != 0) continue;
      goals.push_back(u);
      // The whole group of joined houses is reached.
      std::vector<wfc::CellId> stack{h};
      house_done[h] = 1;
      while (!stack.empty()) {
        const wfc::CellId c = stack.back();
        stack.pop_back();
        const std::uint32_t pc = c % n_plane;
        for (std::uint32_t j = 0; j < g.plane.cells[pc].count; ++j) {
          const SideNeighbour b = side_neighbour(g.plane, pc, j);
          if (b.cell == kNoCell) continue;
          const wfc::CellId o = g.cell_id(b.cell, n.layer);
          if (house_done[o] == 0 && tiles.info[solved[o]].kind == TileKind::house) {
            house_done[o] = 1;
            stack.push_back(o);
          }
        }
      }
    }
  }
  // 4. Exits: both ends of every step on the way from the start to each goal, and the cells
  // every flight of stairs leads to (its low and high side need a path exit facing it).
  std::vector<std::uint8_t> exits(g.cell_count(), 0);
  std::vector<std::uint8_t> on_way(g.cell_count(), 0);
  const auto mark_side = [&](wfc::CellId from, std::uint32_t to_plane) {
    const std::uint32_t pc = from % n_plane;
    for (std::uint32_t k = 0; k < g.plane.cells[pc].count; ++k) {
      if (side_neighbour(g.plane, pc, k).cell == to_plane) exits[from] |= 1U << k;
    }
  };
  for (const std::uint32_t goal : goals) {
    if (parent[goal] == kNoCell) continue;
    for (std::uint32_t u = goal; parent[u] != u; u = parent[u]) {
      const std::uint32_t p = parent[u];
      on_way[id_of(u)] = on_way[id_of(p)] = 1;
      mark_side(id_of(u), nav.nodes[p].plane_cell);
      mark_side(id_of(p), nav.nodes[u].plane_cell);
    }
  }
  for (const NavNode& n : nav.nodes) {
    if (!n.stairs) continue;
    const TileInfo& t = tiles.info[solved[g.cell_id(n.plane_cell, n.layer)]];
    for (std::uint32_t k = 0; k < 4; ++k) {
      if ((t.exits & (1U << k)) == 0) continue;
      const SideNeighbour a = side_neighbour(g.plane, n.plane_cell, k);
      if (a.cell == kNoCell) continue;
      const std::uint32_t layer = k == t.stair_high_slot ? n.layer + 1 : n.layer;
      if (layer >= g.layers) continue;
      const wfc::CellId o = g.cell_id(a.cell, layer);
      exits[o] |= 1U << a.slot;
    }
  }
  // 5. Walkable flat tiles become the path with their exits, or plain floor.
  std::uint32_t paths = 0;
  for (wfc::CellId c = 0; c < g.cell_count(); ++c) {
    const TileInfo& t = tiles.info[solved[c]];
    if (!t.navigable || t.kind == TileKind::stairs) continue;
    if (exits[c] == 0) {
      solved[c] = floor_tile[t.ground_level ? 1 : 0];
      continue;
    }
    const auto it = path_tile.find({t.ground_level, exits[c]});
    if (it == path_tile.end()) return kNoCell;  // The kit lacks this path: caller reverts.
    solved[c] = it->second;
    ++paths;
  }
  return paths;
}

}  // namespace cityforge::islands
