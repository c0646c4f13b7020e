// SPDX-License-Identifier: Apache-2.0
// Appends the freeway's lanes to the city's lane graph and applies the ramp links.
#include <algorithm>

#include "cityforge/freeway/freeway.hpp"

namespace cityforge::freeway {

roads::LaneGraph merged_lanes(const roads::LaneGraph& roads, const Output& freeway) {
  roads::LaneGraph g = roads;
  g.lanes.insert(g.lanes.end(), freeway.lanes.begin(), freeway.lanes.end());
  auto add = [](std::vector<roads::LaneId>& list, roads::LaneId id) {
    const auto it = std::lower_bound(list.begin(), list.end(), id);
    if (it == list.end() || *it != id) list.insert(it, id);
  };
  for (const LaneLink& link : freeway.links) {
    if (link.from < g.lanes.size()) add(g.lanes[link.from].successors, link.to);
    if (link.to < g.lanes.size()) add(g.lanes[link.to].predecessors, link.from);
  }
  return g;
}

}  // namespace cityforge::freeway
