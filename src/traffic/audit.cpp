// SPDX-License-Identifier: Apache-2.0
// Invariant checks over the current vehicle state, rebuilt from the components (not from the
// simulation's own queues): overlaps on a lane (own entries, lane-change ghosts and obstacles),
// conflicting connectors occupied at once, positions off their lane.
#include <algorithm>
#include <cmath>

#include "cityforge/traffic/traffic.hpp"
#include "traffic/detail/conflict_points.hpp"

namespace cityforge::traffic {
namespace {
constexpr float kZoneM = 1.5f;  // Half length of a conflict zone along each connector.
}  // namespace

Audit audit(const Simulation& sim) {
  const Network& net = sim.network();
  Audit a;
  struct Item {
    LaneId lane;
    float front, rear;
    std::uint32_t entity;
  };
  std::vector<Item> items;
  std::vector<std::uint8_t> occupied(net.lane_count(), 0);
  for (const VehicleView& v : sim.vehicles()) {
    const bool finite = std::isfinite(v.s_m) && std::isfinite(v.speed_mps);
    if (!finite || v.lane >= net.lane_count() || v.speed_mps < 0 || v.s_m < -1e-3f ||
        v.s_m > net.length_m[v.lane] + 1e-3f) {
      ++a.bad_positions;
      continue;
    }
    items.push_back(Item{v.lane, v.s_m, v.s_m - v.length_m, v.entity.index});
    occupied[v.lane] = 1;
    // A held ghost slot (a request made this tick is not a reservation yet).
    if (v.change_target != kNoLane && v.change_progress > 0 && v.change_target < net.lane_count()) {
      const float s = v.s_m * net.length_m[v.change_target] / net.length_m[v.lane];
      items.push_back(Item{v.change_target, s, s - v.length_m, v.entity.index});
    }
  }
  // Obstacles (an external vehicle driving on the lanes) must not overlap vehicles either.
  for (const ObstacleView& o : sim.obstacles()) {
    if (o.lane < net.lane_count()) {
      items.push_back(Item{o.lane, o.s_m, o.s_m - o.length_m, 0xffffffffU - o.id});
    }
  }
  std::sort(items.begin(), items.end(), [](const Item& x, const Item& y) {
    if (x.lane != y.lane) return x.lane < y.lane;
    if (x.front != y.front) return x.front > y.front;
    return x.entity < y.entity;
  });
  for (std::size_t k = 1; k < items.size(); ++k) {
    if (items[k].lane != items[k - 1].lane) continue;
    const float gap = items[k - 1].rear - items[k].front;
    a.min_gap_m = std::min(a.min_gap_m, gap);
    if (gap < -1e-3f) ++a.overlaps;
  }
  // Conflicting movements: two vehicles inside the same conflict zone (1.5 m either side of
  // the crossing of their connectors' centre lines) at once.
  const auto in_zone = [&](LaneId c, LaneId other) {
    const float x = detail::conflict_point(net, c, other);
    auto it = std::lower_bound(items.begin(), items.end(), c,
                               [](const Item& i, LaneId l) { return i.lane < l; });
    for (; it != items.end() && it->lane == c; ++it) {
      if (it->rear <= x + kZoneM && it->front >= x - kZoneM) return true;
    }
    return false;
  };
  for (std::uint32_t j = 0; j < net.intersection_count(); ++j) {
    for (std::uint32_t k = net.connector_begin[j]; k < net.connector_begin[j + 1]; ++k) {
      const LaneId c = net.connectors[k];
      if (occupied[c] == 0U) continue;
      for (std::uint32_t q = net.conflict_begin[c]; q < net.conflict_begin[c + 1]; ++q) {
        const LaneId c2 = net.conflicts[q];
        if (c2 > c && occupied[c2] != 0U && in_zone(c, c2) && in_zone(c2, c)) ++a.conflicts;
      }
    }
  }
  return a;
}

}  // namespace cityforge::traffic
