// SPDX-License-Identifier: Apache-2.0
// A* over lanes with travel-time costs (cost model in routing.hpp, RouteCosts).
// Based on: Hart, Nilsson & Raphael, A Formal Basis for the Heuristic Determination of Minimum
// Cost Paths, 1968.
#include "cityforge/traffic/routing.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <utility>

#include "cityforge/core/assert.hpp"

namespace cityforge::traffic {

namespace {

constexpr float kMinChangeLaneM = 30.0f;  // Shortest lane a route changes lanes on.

bool is_vehicle(const Network& net, LaneId lane) {
  return lane < net.lane_count() && net.is(lane, roads::kVehicle);
}

double lane_speed(const Network& net, LaneId lane, const RouteCosts& costs) {
  if (lane < costs.lane_speed_mps.size()) {
    // std::max(min, NaN) keeps min, so a NaN speed counts as jammed, not as free.
    return std::max(costs.min_speed_mps, static_cast<double>(costs.lane_speed_mps[lane]));
  }
  return std::max(costs.min_speed_mps, static_cast<double>(net.speed_limit_mps[lane]));
}

double travel_s(const Network& net, LaneId lane, const RouteCosts& costs) {
  return static_cast<double>(net.length_m[lane]) / lane_speed(net, lane, costs);
}

double follow_cost(const Network& net, LaneId to, const RouteCosts& costs) {
  const double extra = net.is(to, roads::kIntersection) ? costs.connector_extra_s : 0.0;
  return travel_s(net, to, costs) + extra;
}

double change_cost(const Network& net, LaneId from, LaneId to, const RouteCosts& costs) {
  return costs.lane_change_s + std::max(0.0, travel_s(net, to, costs) - travel_s(net, from, costs));
}

// Pops the smallest f first; on equal f the larger g (the entry nearer the goal), then the
// smaller lane id, so the expansion order is a total order.
bool open_after(double fa, double ga, LaneId la, double fb, double gb, LaneId lb) {
  if (fa != fb) {
    return fa > fb;
  }
  if (ga != gb) {
    return ga < gb;
  }
  return la > lb;
}

}  // namespace

namespace {

/// Dijkstra from `source` over the landmark costs (`base`), forward (successors, lane changes)
/// or backward (predecessors, lane changes reversed). dist[v] = cost from source to v (forward)
/// or from v to source (backward), excluding the first lane's own travel time.
void landmark_dijkstra(const Network& net, const RouteCosts& base, LaneId source, bool forward,
                       double* dist) {
  const std::uint32_t n = net.lane_count();
  std::fill(dist, dist + n, std::numeric_limits<double>::infinity());
  using Item = std::pair<double, LaneId>;
  std::vector<Item> heap;
  const auto push = [&](LaneId v, double d) {
    if (d >= dist[v]) return;
    dist[v] = d;
    heap.emplace_back(d, v);
    std::push_heap(heap.begin(), heap.end(), std::greater<>());
  };
  push(source, 0.0);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), std::greater<>());
    const auto [d, a] = heap.back();
    heap.pop_back();
    if (d > dist[a]) continue;
    if (forward) {
      for (std::uint32_t i = net.succ_begin[a]; i < net.succ_begin[a + 1]; ++i) {
        const LaneId s = net.succ[i];
        if (is_vehicle(net, s)) push(s, d + follow_cost(net, s, base));
      }
      if (net.length_m[a] < kMinChangeLaneM) continue;
      for (const LaneId b : {net.left[a], net.right[a]}) {
        if (is_vehicle(net, b)) push(b, d + change_cost(net, a, b, base));
      }
    } else {
      // Edges into a: from predecessors p (cost follow(a)), and lane changes from a's
      // neighbours b of >= kMinChangeLaneM (cost change(b, a)).
      for (std::uint32_t i = net.pred_begin[a]; i < net.pred_begin[a + 1]; ++i) {
        const LaneId p = net.pred[i];
        if (is_vehicle(net, p)) push(p, d + follow_cost(net, a, base));
      }
      for (const LaneId b : {net.left[a], net.right[a]}) {
        if (!is_vehicle(net, b) || net.length_m[b] < kMinChangeLaneM) continue;
        if (net.left[b] == a || net.right[b] == a) push(b, d + change_cost(net, b, a, base));
      }
    }
  }
}

}  // namespace

std::shared_ptr<const Landmarks> build_landmarks(const Network& net, std::uint32_t count,
                                                 double lane_change_s) {
  CF_ASSERT(lane_change_s >= 0.0, "bad landmark lane change cost");
  auto lm = std::make_shared<Landmarks>();
  lm->lane_change_s = lane_change_s;
  // Speeds at the limits (a floor below every limit), no connector extra.
  const RouteCosts base{{}, lane_change_s, 1e-9, 0.0};
  const std::uint32_t n = net.lane_count();
  LaneId first = kNoLane;
  for (LaneId l = 0; l < n && first == kNoLane; ++l) {
    if (is_vehicle(net, l)) first = l;
  }
  if (first == kNoLane || count == 0) return lm;
  // Farthest-point selection: each landmark is the lane farthest (in the sum of both
  // directions' times, reachable both ways) from the ones chosen so far; ties by lane id.
  std::vector<double> closest(n, std::numeric_limits<double>::infinity());
  std::vector<double> fwd(n);
  std::vector<double> bwd(n);
  landmark_dijkstra(net, base, first, true, fwd.data());
  landmark_dijkstra(net, base, first, false, bwd.data());
  LaneId next = first;
  for (LaneId v = 0; v < n; ++v) {
    const double d = fwd[v] + bwd[v];
    if (std::isfinite(d) && (next == first || d > fwd[next] + bwd[next])) next = v;
  }
  // Each landmark's tables, whole, then laid out by lane (Landmarks::times).
  std::vector<double> from;
  std::vector<double> to;
  for (std::uint32_t k = 0; k < count; ++k) {
    if (std::find(lm->lanes.begin(), lm->lanes.end(), next) != lm->lanes.end()) break;
    lm->lanes.push_back(next);
    from.resize(lm->lanes.size() * n);
    to.resize(lm->lanes.size() * n);
    double* f = from.data() + std::size_t{k} * n;
    double* t = to.data() + std::size_t{k} * n;
    landmark_dijkstra(net, base, next, true, f);
    landmark_dijkstra(net, base, next, false, t);
    double best = -1.0;
    for (LaneId v = 0; v < n; ++v) {
      const double d = f[v] + t[v];
      if (std::isfinite(d)) closest[v] = std::min(closest[v], d);
      if (std::isfinite(closest[v]) && closest[v] > best) {
        best = closest[v];
        next = v;
      }
    }
  }
  const std::size_t kk = lm->lanes.size();
  lm->times.resize(2 * kk * n);
  for (std::size_t k = 0; k < kk; ++k) {
    for (LaneId v = 0; v < n; ++v) {
      lm->times[2 * (kk * v + k)] = from[k * n + v];
      lm->times[2 * (kk * v + k) + 1] = to[k * n + v];
    }
  }
  return lm;
}

Router::Router(const Network& net, std::shared_ptr<const Landmarks> landmarks)
    : m_net(&net), m_landmarks(std::move(landmarks)) {
  m_min_speed_mps = std::numeric_limits<double>::infinity();
  const std::uint32_t n = net.lane_count();
  m_g.resize(n);
  m_parent.resize(n);
  m_parent_kind.resize(n);
  m_stamp.assign(n, 0);
  // End points in one array by lane: the heuristic reads one per lane it reaches, and through
  // the lane's run of points that is two dependent cache misses.
  m_end.assign(n, Vec3{});
  for (LaneId l = 0; l < n; ++l) {
    if (net.is(l, roads::kVehicle)) m_end[l] = lane_end_point(net, l);
  }
  // Heuristic constants: the fastest lane, and how far a lane change can move a lane's end
  // point (so a cheap change step never drops the heuristic by more than it costs).
  for (LaneId l = 0; l < n; ++l) {
    if (!net.is(l, roads::kVehicle)) {
      continue;
    }
    m_max_speed_mps = std::max(m_max_speed_mps, static_cast<double>(net.speed_limit_mps[l]));
    m_min_speed_mps = std::min(m_min_speed_mps, static_cast<double>(net.speed_limit_mps[l]));
    for (LaneId nb : {net.left[l], net.right[l]}) {
      if (is_vehicle(net, nb)) {
        m_max_change_m =
            std::max(m_max_change_m, length(lane_end_point(net, l) - lane_end_point(net, nb)));
      }
    }
  }
}

std::vector<RouteStep> Router::route(LaneId from, LaneId to, const RouteCosts& costs,
                                     std::uint32_t* expanded) {
  const Network& net = *m_net;
  if (expanded != nullptr) {
    *expanded = 0;
  }
  if (!is_vehicle(net, from) || !is_vehicle(net, to)) {
    return {};
  }
  CF_ASSERT(costs.lane_speed_mps.empty() || costs.lane_speed_mps.size() == net.lane_count(),
            "lane_speed_mps must have one entry per lane");
  CF_ASSERT(costs.min_speed_mps > 0.0 && costs.lane_change_s >= 0.0, "bad route costs");

  // 1. Heuristic speed: at least every speed a lane may be driven at in this query, and fast
  // enough that a lane change (which moves the end point sideways) stays consistent.
  double v_h = std::max(m_max_speed_mps, costs.min_speed_mps);
  for (float v : costs.lane_speed_mps) {
    v_h = std::max(v_h, static_cast<double>(v));
  }
  if (m_max_change_m > 0.0) {
    v_h = costs.lane_change_s > 0.0 ? std::max(v_h, m_max_change_m / costs.lane_change_s)
                                    : std::numeric_limits<double>::infinity();
  }
  const Vec3 goal = lane_end_point(net, to);
  // Landmarks bound the costs when no lane is faster than its limit in this query and lane
  // changes cost at least what the landmarks' times include.
  const Landmarks* lm =
      m_landmarks != nullptr && costs.lane_speed_mps.empty() &&
              costs.min_speed_mps <= m_min_speed_mps &&
              costs.lane_change_s >= m_landmarks->lane_change_s &&
              m_landmarks->times.size() == 2 * m_landmarks->lanes.size() * net.lane_count()
          ? m_landmarks.get()
          : nullptr;
  const std::size_t lk = lm != nullptr ? lm->lanes.size() : 0;
  const double* goal_times = lm != nullptr ? lm->times.data() + 2 * lk * to : nullptr;
  auto heuristic = [&](LaneId lane) {
    double h = std::isinf(v_h) ? 0.0 : length(m_end[lane] - goal) / v_h;
    if (lm == nullptr) return h;
    const double* times = lm->times.data() + 2 * lk * lane;
    for (std::size_t k = 0; k < lk; ++k) {
      // d(v, t) >= d(L, t) - d(L, v) and >= d(v, L) - d(t, L); unreachable terms give nothing.
      const double lt = goal_times[2 * k];
      const double lv = times[2 * k];
      if (std::isfinite(lt) && std::isfinite(lv)) h = std::max(h, lt - lv);
      const double vl = times[2 * k + 1];
      const double tl = goal_times[2 * k + 1];
      if (std::isfinite(vl) && std::isfinite(tl)) h = std::max(h, vl - tl);
    }
    return h;
  };

  // 2. A new epoch invalidates every g without touching the arrays.
  if (++m_epoch == 0) {
    std::fill(m_stamp.begin(), m_stamp.end(), 0U);
    m_epoch = 1;
  }
  m_open.clear();
  auto heap_cmp = [](const OpenEntry& a, const OpenEntry& b) {
    return open_after(a.f, a.g, a.lane, b.f, b.g, b.lane);
  };
  auto relax = [&](LaneId lane, double g, LaneId parent, StepKind kind) {
    if (m_stamp[lane] == m_epoch && m_g[lane] <= g) {
      return;
    }
    m_stamp[lane] = m_epoch;
    m_g[lane] = g;
    m_parent[lane] = parent;
    m_parent_kind[lane] = kind;
    m_open.push_back({g + heuristic(lane), g, lane});
    std::push_heap(m_open.begin(), m_open.end(), heap_cmp);
  };
  relax(from, travel_s(net, from, costs), kNoLane, StepKind::start);

  // 3. Expand until the goal is popped. Stale entries (a better g was found since) are skipped.
  std::uint32_t settled = 0;
  bool found = false;
  while (!m_open.empty()) {
    std::pop_heap(m_open.begin(), m_open.end(), heap_cmp);
    const OpenEntry top = m_open.back();
    m_open.pop_back();
    if (top.g > m_g[top.lane]) {
      continue;
    }
    ++settled;
    if (top.lane == to) {
      found = true;
      break;
    }
    const LaneId a = top.lane;
    for (std::uint32_t i = net.succ_begin[a]; i < net.succ_begin[a + 1]; ++i) {
      const LaneId s = net.succ[i];
      if (is_vehicle(net, s)) {
        relax(s, top.g + follow_cost(net, s, costs), a, StepKind::follow);
      }
    }
    // A lane change needs room along the lane: none on links shorter than kMinChangeLaneM.
    if (net.length_m[a] < kMinChangeLaneM) continue;
    if (is_vehicle(net, net.left[a])) {
      relax(net.left[a], top.g + change_cost(net, a, net.left[a], costs), a, StepKind::change_left);
    }
    if (is_vehicle(net, net.right[a])) {
      relax(net.right[a], top.g + change_cost(net, a, net.right[a], costs), a,
            StepKind::change_right);
    }
  }
  if (expanded != nullptr) {
    *expanded = settled;
  }
  if (!found) {
    return {};
  }

  // 4. Walk the parents back from the goal. Each parent update strictly lowered g, so the
  // parents form a tree rooted at `from`.
  std::vector<RouteStep> steps;
  for (LaneId l = to; l != kNoLane; l = m_parent[l]) {
    steps.push_back({l, m_parent_kind[l]});
    CF_ASSERT(steps.size() <= net.lane_count(), "route parent cycle");
  }
  std::reverse(steps.begin(), steps.end());
  return steps;
}

std::vector<RouteStep> find_route(const Network& net, LaneId from, LaneId to,
                                  const RouteCosts& costs, std::uint32_t* expanded) {
  Router router(net);
  return router.route(from, to, costs, expanded);
}

double route_time_s(const Network& net, std::span<const RouteStep> route, const RouteCosts& costs) {
  double t = 0.0;
  for (std::size_t i = 0; i < route.size(); ++i) {
    const LaneId lane = route[i].lane;
    switch (route[i].kind) {
      case StepKind::start:
        t += travel_s(net, lane, costs);
        break;
      case StepKind::follow:
        t += follow_cost(net, lane, costs);
        break;
      case StepKind::change_left:
      case StepKind::change_right:
        t += i > 0 ? change_cost(net, route[i - 1].lane, lane, costs)
                   : costs.lane_change_s + travel_s(net, lane, costs);
        break;
    }
  }
  return t;
}

}  // namespace cityforge::traffic
