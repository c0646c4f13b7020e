// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <vector>

#include "cityforge/islands/island.hpp"

namespace cityforge::islands::test {

/// Whether every navigable tile of `island` is a node of its navigation graph and the nodes
/// form one component (the tests' own search, not the generator's).
inline bool one_walkable_component(const Island& island, const TileSet& tiles) {
  std::size_t navigable = 0;
  for (const wfc::TileId t : island.tiles)
    navigable += tiles.info[t].navigable ? 1 : 0;
  if (navigable != island.nav.nodes.size() || navigable == 0) return false;
  std::vector<std::vector<std::uint32_t>> adj(navigable);
  for (const NavEdge& e : island.nav.edges) {
    adj[e.a].push_back(e.b);
    adj[e.b].push_back(e.a);
  }
  std::vector<std::uint8_t> seen(navigable, 0);
  std::vector<std::uint32_t> stack{0};
  seen[0] = 1;
  std::size_t reached = 1;
  while (!stack.empty()) {
    const std::uint32_t u = stack.back();
    stack.pop_back();
    for (const std::uint32_t w : adj[u]) {
      if (seen[w] == 0) {
        seen[w] = 1;
        ++reached;
        stack.push_back(w);
      }
    }
  }
  return reached == navigable;
}

}  // namespace cityforge::islands::test
