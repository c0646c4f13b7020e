// SPDX-License-Identifier: Apache-2.0
// The walking topology of the sidewalk and crosswalk lanes. The roads stage lists, for a
// pedestrian lane, the pedestrian lanes touching its end as successors and those touching its
// start as predecessors (docs/lanes.md); which end of the other lane touches is found here by
// distance, so a pedestrian knows whether it walks the next lane forward or backward.
#include "cityforge/crowd/walk_network.hpp"

#include <algorithm>

namespace cityforge::crowd {

namespace {

Vec3 lane_end(const traffic::Network& net, LaneId lane, bool end) {
  return end ? net.points[net.point_begin[lane + 1] - 1] : net.points[net.point_begin[lane]];
}

double dist2(const Vec3& a, const Vec3& b) {
  const double dx = a.x - b.x;
  const double dy = a.y - b.y;
  return dx * dx + dy * dy;
}

}  // namespace

WalkNetwork build_walk_network(const traffic::Network& net, double join_m) {
  WalkNetwork w;
  w.net = &net;
  const std::uint32_t n = net.lane_count();
  w.index.assign(n, WalkNetwork::kNone);
  for (LaneId l = 0; l < n; ++l) {
    if (net.is(l, roads::kSidewalk | roads::kCrosswalk) && !net.is(l, roads::kVehicle) &&
        net.point_begin[l + 1] - net.point_begin[l] >= 2 && net.length_m[l] > 0.01f) {
      w.index[l] = static_cast<std::uint32_t>(w.lanes.size());
      w.lanes.push_back(l);
    }
  }
  const double join2 = join_m * join_m;
  w.exit_begin.assign(2 * w.lanes.size() + 1, 0);
  std::vector<WalkStep> list;
  for (std::size_t i = 0; i < w.lanes.size(); ++i) {
    const LaneId lane = w.lanes[i];
    for (int e = 0; e < 2; ++e) {
      const Vec3 p = lane_end(net, lane, e == 1);
      list.clear();
      // Candidates: the roads stage's links at this end; any walkable lane end within join_m.
      const auto& begin = e == 1 ? net.succ_begin : net.pred_begin;
      const auto& links = e == 1 ? net.succ : net.pred;
      for (std::uint32_t k = begin[lane]; k < begin[lane + 1]; ++k) {
        const LaneId o = links[k];
        if (o == lane || !w.walkable(o)) continue;
        const double d0 = dist2(p, lane_end(net, o, false));
        const double d1 = dist2(p, lane_end(net, o, true));
        if (std::min(d0, d1) > std::max(join2, 1.0)) continue;  // Linked but apart: not a way on.
        list.push_back({o, static_cast<std::int8_t>(d0 <= d1 ? 1 : -1)});
      }
      std::sort(list.begin(), list.end(),
                [](const WalkStep& a, const WalkStep& b) { return a.lane < b.lane; });
      w.exits.insert(w.exits.end(), list.begin(), list.end());
      w.exit_begin[2 * i + e + 1] = static_cast<std::uint32_t>(w.exits.size());
    }
  }
  return w;
}

}  // namespace cityforge::crowd
