// SPDX-License-Identifier: Apache-2.0
// Goals navigation: a goal point drawn on the sidewalks (by length), reached by the shortest
// way over the walk network (A* over lane ends, straight-line bound). Used to compare with
// DetourCrowd, whose agents walk to random navmesh points.
#include <algorithm>
#include <cmath>
#include <queue>

#include "crowd/detail/state.hpp"

namespace cityforge::crowd {

namespace {

struct Scratch {
  std::vector<float> cost;
  std::vector<std::uint32_t> from;  // Previous node.
  std::vector<WalkStep> via;        // Step taken into the node.
  std::vector<std::uint32_t> seen;  // Generation per node.
  std::uint32_t gen = 0;
};

Vec2 end_point(const traffic::Network& net, LaneId lane, int end) {
  const Vec3 p =
      end == 1 ? net.points[net.point_begin[lane + 1] - 1] : net.points[net.point_begin[lane]];
  return {p.x, p.y};
}

// Route from the end of the agent's lane (walking dir) to `goal`; false when unreachable.
bool route(const Crowd::Impl& m, const Agent& a, const WalkPoint& goal,
           std::vector<WalkStep>& out) {
  thread_local Scratch s;
  const WalkNetwork& w = m.walk;
  const std::size_t nodes = 2 * w.lanes.size();
  if (s.cost.size() != nodes) {
    s.cost.assign(nodes, 0);
    s.from.assign(nodes, 0);
    s.via.assign(nodes, {});
    s.seen.assign(nodes, 0);
    s.gen = 0;
  }
  s.gen += 1;
  const Vec2 g = frame_at(m.frames, goal.lane, goal.s_m, 0).p;
  using Item = std::pair<float, std::uint32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> open;
  const std::uint32_t start = 2 * w.index[a.lane] + (a.dir > 0 ? 1U : 0U);
  s.cost[start] = 0;
  s.seen[start] = s.gen;
  s.from[start] = start;
  open.push({0, start});
  const std::uint32_t kLimit = 200000;
  std::uint32_t pops = 0;
  while (!open.empty() && pops++ < kLimit) {
    const auto [f, node] = open.top();
    open.pop();
    const LaneId lane = w.lanes[node / 2];
    const Vec2 here = end_point(m.net, lane, static_cast<int>(node % 2));
    if (f > s.cost[node] + static_cast<float>(distance(here, g)) + 1e-3f) continue;  // Stale.
    const auto [b, e] = w.exits_after(lane, node % 2 == 1 ? 1 : -1);
    for (const WalkStep* x = b; x != e; ++x) {
      if (x->lane == goal.lane) {
        // Reached: rebuild the steps.
        out.clear();
        out.push_back(*x);
        for (std::uint32_t k = node; k != start; k = s.from[k])
          out.push_back(s.via[k]);
        std::reverse(out.begin(), out.end());
        return true;
      }
      const std::uint32_t next = 2 * w.index[x->lane] + (x->dir > 0 ? 1U : 0U);
      const float c = s.cost[node] + m.net.length_m[x->lane];
      if (s.seen[next] == s.gen && s.cost[next] <= c) continue;
      s.seen[next] = s.gen;
      s.cost[next] = c;
      s.from[next] = node;
      s.via[next] = *x;
      const Vec2 there = end_point(m.net, x->lane, x->dir > 0 ? 1 : 0);
      open.push({c + static_cast<float>(distance(there, g)), next});
    }
  }
  return false;
}

}  // namespace

void plan_goal(Crowd::Impl& m, std::uint32_t id) {
  Agent& a = m.agents[id];
  std::vector<WalkStep>& r = m.routes[id];
  r.clear();
  // Goal lanes: the spawn lanes (sidewalks by length x (0.15 + pedestrian density)).
  for (int attempt = 0; attempt < 4; ++attempt) {
    Rng rng(m.seed, Stage::crowd, id, (std::uint64_t{m.goals_drawn[id]++} << 4U) | 5U);
    WalkPoint goal;
    const auto k = static_cast<std::size_t>(
        std::upper_bound(m.goal_cumulative.begin(), m.goal_cumulative.end(),
                         rng.uniform01() * m.goal_cumulative.back()) -
        m.goal_cumulative.begin());
    goal.lane = m.goal_lanes[std::min(k, m.goal_lanes.size() - 1)];
    goal.s_m = static_cast<float>(rng.uniform(0.0, m.net.length_m[goal.lane]));
    if (goal.lane == kNoLane) continue;
    if (goal.lane == a.lane) {
      const bool ahead = a.dir > 0 ? goal.s_m >= a.s0 : goal.s_m <= a.s0;
      if (!ahead) continue;
      goal.dir = a.dir;
      m.goals[id] = goal;
      return;
    }
    if (route(m, a, goal, r)) {
      goal.dir = r.back().dir;
      m.goals[id] = goal;
      return;
    }
  }
  m.goals[id] = WalkPoint{};  // Nothing reachable drawn: roam until the next lane end.
}

}  // namespace cityforge::crowd
