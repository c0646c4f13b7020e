// SPDX-License-Identifier: Apache-2.0
#include "cityforge/traffic/routing.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <queue>
#include <vector>

#include "cityforge/core/rng.hpp"
#include "cityforge/traffic/traffic.hpp"
#include "traffic/net_fixture.hpp"

namespace cityforge::traffic {
namespace {

using testing::make_grid;
using testing::NetBuilder;

// A grid of n x n junctions, `lanes` lanes each way.
testing::Grid square_grid(int n, int lanes = 1) {
  testing::GridSpec spec;
  spec.nx = n;
  spec.ny = n;
  spec.lanes = lanes;
  return make_grid(spec);
}

LaneId any_spawn_lane(const Network& net, Rng& rng) {
  return net.spawn_lanes[rng.below(static_cast<std::uint32_t>(net.spawn_lanes.size()))];
}

std::vector<LaneId> lanes_of(const std::vector<RouteStep>& r) {
  std::vector<LaneId> out;
  for (const RouteStep& s : r) {
    out.push_back(s.lane);
  }
  return out;
}

// Two roads from A to D: B is 100 m at 5 m/s (20 s), C is 300 m at 30 m/s (10 s).
struct Diamond {
  Network net;
  LaneId a, b, c, d;
};
Diamond make_diamond() {
  NetBuilder nb;
  Diamond g{};
  g.a = nb.add_straight({0, 0, 0}, {10, 0, 0});
  g.b = nb.add_straight({10, 0, 0}, {110, 0, 0}, 5.0f);
  g.c = nb.add_lane({{10, 0, 0}, {60, 100, 0}, {110, 100, 0}, {110, 0, 0}}, 30.0f);
  g.d = nb.add_straight({110, 0, 0}, {120, 0, 0});
  nb.link(g.a, g.b);
  nb.link(g.a, g.c);
  nb.link(g.b, g.d);
  nb.link(g.c, g.d);
  g.net = nb.finish();
  return g;
}

TEST(Routing, FastestByTimeNotByDistance) {
  const Diamond g = make_diamond();
  ASSERT_GT(g.net.length_m[g.c], 2.5f * g.net.length_m[g.b]);
  const auto r = find_route(g.net, g.a, g.d);
  EXPECT_EQ(lanes_of(r), (std::vector<LaneId>{g.a, g.c, g.d}));
  ASSERT_EQ(r.size(), 3U);
  EXPECT_EQ(r[0].kind, StepKind::start);
  EXPECT_EQ(r[1].kind, StepKind::follow);
  EXPECT_EQ(r[2].kind, StepKind::follow);
}

TEST(Routing, LiveSpeedsChangeTheRoute) {
  const Diamond g = make_diamond();
  std::vector<float> speeds(g.net.speed_limit_mps.begin(), g.net.speed_limit_mps.end());
  speeds[g.c] = 2.0f;  // a jam on the fast road
  RouteCosts costs;
  costs.lane_speed_mps = speeds;
  EXPECT_EQ(lanes_of(find_route(g.net, g.a, g.d, costs)), (std::vector<LaneId>{g.a, g.b, g.d}));
  // The floor keeps a stopped lane finite: both roads jammed at 0 m/s cost length / 1 m/s.
  speeds[g.b] = 0.0f;
  speeds[g.c] = 0.0f;
  const auto r = find_route(g.net, g.a, g.d, costs);
  EXPECT_EQ(lanes_of(r), (std::vector<LaneId>{g.a, g.b, g.d}));
  const double expect = g.net.length_m[g.a] / speeds[g.a] + g.net.length_m[g.b] / 1.0 +
                        g.net.length_m[g.d] / speeds[g.d];
  EXPECT_NEAR(route_time_s(g.net, r, costs), expect, 1e-6);
}

TEST(Routing, RouteTimeSumsLanesAndPenalties) {
  const Diamond g = make_diamond();
  RouteCosts costs;
  const auto r = find_route(g.net, g.a, g.d, costs);
  const double t = 10.0 / 13.9 + g.net.length_m[g.c] / 30.0 + 10.0 / 13.9;
  EXPECT_NEAR(route_time_s(g.net, r, costs), t, 1e-4);
  EXPECT_EQ(route_time_s(g.net, {}, costs), 0.0);
}

// Two parallel lanes L (left) and R (right); only R continues to the exit X.
struct TwoLane {
  Network net;
  LaneId l, r, x, lx;
};
TwoLane make_two_lane() {
  NetBuilder nb;
  TwoLane g{};
  g.r = nb.add_straight({0, 0, 0}, {100, 0, 0});
  g.l = nb.add_straight({0, 3.5, 0}, {100, 3.5, 0});
  g.x = nb.add_straight({100, 0, 0}, {100, -50, 0});
  g.lx = nb.add_straight({100, 3.5, 0}, {200, 3.5, 0});
  nb.neighbours(g.l, g.r);
  nb.link(g.r, g.x);
  nb.link(g.l, g.lx);
  g.net = nb.finish();
  return g;
}

TEST(Routing, ChangesLaneWhenOnlyTheNeighbourLeadsThere) {
  const TwoLane g = make_two_lane();
  RouteCosts costs;
  costs.lane_change_s = 4.0;
  const auto r = find_route(g.net, g.l, g.x, costs);
  ASSERT_EQ(r.size(), 3U);
  EXPECT_EQ(r[0].lane, g.l);
  EXPECT_EQ(r[1].lane, g.r);
  EXPECT_EQ(r[1].kind, StepKind::change_right);
  EXPECT_EQ(r[2].lane, g.x);
  EXPECT_EQ(r[2].kind, StepKind::follow);
  EXPECT_NEAR(route_time_s(g.net, r, costs), 100.0 / 13.9 + 4.0 + 50.0 / 13.9, 1e-4);

  const auto back = find_route(g.net, g.r, g.lx, costs);
  ASSERT_EQ(back.size(), 3U);
  EXPECT_EQ(back[1].lane, g.l);
  EXPECT_EQ(back[1].kind, StepKind::change_left);
  // Target is the neighbour itself.
  const auto side = find_route(g.net, g.r, g.l, costs);
  EXPECT_EQ(lanes_of(side), (std::vector<LaneId>{g.r, g.l}));
}

TEST(Routing, UnreachableAndBadIdsGiveEmpty) {
  const TwoLane g = make_two_lane();
  EXPECT_TRUE(find_route(g.net, g.x, g.l).empty());  // x is a dead end
  EXPECT_TRUE(find_route(g.net, g.l, 999).empty());
  EXPECT_TRUE(find_route(g.net, kNoLane, g.l).empty());
  // Non-vehicle lanes are not used, neither as ends nor in between.
  NetBuilder nb;
  const LaneId a = nb.add_straight({0, 0, 0}, {10, 0, 0});
  const LaneId walk = nb.add_straight({10, 0, 0}, {20, 0, 0}, 1.4f, roads::kSidewalk);
  const LaneId b = nb.add_straight({20, 0, 0}, {30, 0, 0});
  nb.link(a, walk);
  nb.link(walk, b);
  const Network net = nb.finish();
  EXPECT_TRUE(find_route(net, a, b).empty());
  EXPECT_TRUE(find_route(net, a, walk).empty());
}

TEST(Routing, FromEqualsTo) {
  const TwoLane g = make_two_lane();
  const auto r = find_route(g.net, g.l, g.l);
  ASSERT_EQ(r.size(), 1U);
  EXPECT_EQ(r[0].lane, g.l);
  EXPECT_EQ(r[0].kind, StepKind::start);
  EXPECT_NEAR(route_time_s(g.net, r), 100.0 / 13.9, 1e-4);
}

// Config::trip_reach_m: every trip goes to a destination within reach of where it starts (a
// region's trips are mostly local); without it, trips cross the whole grid.
TEST(Routing, TripsStayWithinTheirReach) {
  testing::GridSpec spec;
  spec.nx = 12;
  spec.ny = 12;  // 1.1 km square, 80 m streets.
  const Network net = make_grid(spec).net;
  const auto end_of = [&](LaneId l) { return net.points[net.point_begin[l + 1] - 1]; };
  const auto farthest = [&](float reach_m, std::size_t& trips) {
    Config cfg;
    cfg.vehicles = 400;
    cfg.trip_share = 1.0f;
    cfg.trip_reach_m = reach_m;
    Result<std::unique_ptr<Simulation>> sim = Simulation::create(net, cfg, {}, 11);
    EXPECT_TRUE(sim.ok()) << sim.error().to_string();
    double far = 0;
    trips = 0;
    if (!sim) return far;
    for (const VehicleView& v : (*sim)->vehicles()) {
      if (!v.on_trip) continue;
      ++trips;
      const Vec3 d = end_of(v.destination) - end_of(v.lane);  // Trips start where they are.
      far = std::max(far, std::hypot(d.x, d.y));
    }
    return far;
  };
  std::size_t trips = 0;
  EXPECT_LE(farthest(250.0f, trips), 250.0);
  EXPECT_GT(trips, 300U);
  EXPECT_GT(farthest(0.0f, trips), 700.0);
  EXPECT_GT(trips, 300U);
  // A reach is a distance.
  Config bad;
  bad.trip_reach_m = -1.0f;
  EXPECT_FALSE(Simulation::create(net, bad, {}, 11).ok());
}

TEST(Routing, ConnectorExtraIsCharged) {
  testing::GridSpec spec;
  spec.nx = 3;
  spec.ny = 2;
  const auto grid = make_grid(spec);
  const LaneId from = grid.lane(0, 0, 1, 0);
  const LaneId to = grid.lane(1, 0, 2, 0);
  RouteCosts costs;
  const double base = route_time_s(grid.net, find_route(grid.net, from, to, costs), costs);
  costs.connector_extra_s = 7.0;
  const auto r = find_route(grid.net, from, to, costs);
  ASSERT_EQ(r.size(), 3U);
  EXPECT_TRUE(grid.net.is(r[1].lane, roads::kIntersection));
  EXPECT_NEAR(route_time_s(grid.net, r, costs), base + 7.0, 1e-9);
}

TEST(Routing, DeterministicAndRouterReusable) {
  const auto grid = square_grid(6, 2);
  const LaneId from = grid.lane(0, 0, 1, 0, 0);
  const LaneId to = grid.lane(5, 4, 5, 5, 1);
  const auto first = find_route(grid.net, from, to);
  ASSERT_FALSE(first.empty());
  Router router(grid.net);
  for (int i = 0; i < 5; ++i) {
    const auto again = router.route(from, to);
    ASSERT_EQ(again.size(), first.size());
    for (std::size_t k = 0; k < first.size(); ++k) {
      EXPECT_EQ(again[k].lane, first[k].lane);
      EXPECT_EQ(again[k].kind, first[k].kind);
    }
    // An unrelated query in between must not leak state into the next one.
    EXPECT_FALSE(router.route(to, from).empty());
  }
  // Every step is a real edge of the graph.
  for (std::size_t k = 1; k < first.size(); ++k) {
    const LaneId p = first[k - 1].lane;
    const LaneId l = first[k].lane;
    switch (first[k].kind) {
      case StepKind::follow:
        EXPECT_TRUE(std::binary_search(grid.net.succ.begin() + grid.net.succ_begin[p],
                                       grid.net.succ.begin() + grid.net.succ_begin[p + 1], l));
        break;
      case StepKind::change_left:
        EXPECT_EQ(grid.net.left[p], l);
        break;
      case StepKind::change_right:
        EXPECT_EQ(grid.net.right[p], l);
        break;
      case StepKind::start:
        ADD_FAILURE() << "start step in the middle";
        break;
    }
  }
}

TEST(Routing, AStarExpandsFewerLanesThanTheGraphHas) {
  const auto grid = square_grid(12);
  std::uint32_t expanded = 0;
  const auto r =
      find_route(grid.net, grid.lane(0, 0, 1, 0), grid.lane(10, 0, 11, 0), {}, &expanded);
  ASSERT_FALSE(r.empty());
  // A straight run along one street: the heuristic keeps the search near it.
  EXPECT_LT(expanded, grid.net.lane_count() / 4);
  EXPECT_GE(expanded, static_cast<std::uint32_t>(r.size()));
}

// Reference: plain Dijkstra over the same cost model, returns the best cost to the end of `to`.
double dijkstra_cost(const Network& net, LaneId from, LaneId to, const RouteCosts& costs) {
  auto travel = [&](LaneId l) {
    const double v =
        costs.lane_speed_mps.empty() ? net.speed_limit_mps[l] : costs.lane_speed_mps[l];
    return net.length_m[l] / std::max(costs.min_speed_mps, v);
  };
  std::vector<double> dist(net.lane_count(), std::numeric_limits<double>::infinity());
  using Item = std::pair<double, LaneId>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> q;
  dist[from] = travel(from);
  q.push({dist[from], from});
  while (!q.empty()) {
    const auto [d, a] = q.top();
    q.pop();
    if (d > dist[a]) {
      continue;
    }
    auto push = [&](LaneId b, double c) {
      if (net.is(b, roads::kVehicle) && d + c < dist[b]) {
        dist[b] = d + c;
        q.push({dist[b], b});
      }
    };
    for (std::uint32_t i = net.succ_begin[a]; i < net.succ_begin[a + 1]; ++i) {
      const LaneId s = net.succ[i];
      push(s, travel(s) + (net.is(s, roads::kIntersection) ? costs.connector_extra_s : 0.0));
    }
    if (net.length_m[a] < 30.0f) continue;  // No lane changes on links under 30 m.
    for (LaneId nb : {net.left[a], net.right[a]}) {
      if (nb != kNoLane) {
        push(nb, costs.lane_change_s + std::max(0.0, travel(nb) - travel(a)));
      }
    }
  }
  return dist[to];
}

TEST(Routing, AStarMatchesDijkstraOnRandomGraphs) {
  int reachable = 0;
  for (std::uint64_t seed = 0; seed < 60; ++seed) {
    Rng rng(seed, Stage::test, 6);
    // Junction points, lanes between them (successors start where their predecessor ends), and
    // some lanes with a side-by-side twin (a neighbour: same ends, bowed out in the middle).
    const std::uint32_t nodes = 5 + rng.below(10);
    std::vector<Vec3> node;
    for (std::uint32_t i = 0; i < nodes; ++i) {
      node.push_back({rng.uniform(0, 500), rng.uniform(0, 500), rng.uniform(0, 5)});
    }
    NetBuilder nb;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> ends;
    const std::uint32_t edges = nodes + rng.below(3 * nodes);
    for (std::uint32_t i = 0; i < edges; ++i) {
      const std::uint32_t u = rng.below(nodes);
      const std::uint32_t v = rng.below(nodes);
      if (u == v) {
        continue;
      }
      const std::uint32_t tags =
          roads::kVehicle |
          (rng.chance(0.3) ? static_cast<std::uint32_t>(roads::kIntersection) : 0U);
      const LaneId a =
          nb.add_lane({node[u], node[v]}, static_cast<float>(rng.uniform(3, 35)), tags);
      ends.emplace_back(u, v);
      if (rng.chance(0.3)) {
        const Vec3 mid = (node[u] + node[v]) * 0.5 + Vec3{rng.uniform(-20, 20), 3.5, 0};
        const LaneId b =
            nb.add_lane({node[u], mid, node[v]}, static_cast<float>(rng.uniform(3, 35)), tags);
        ends.emplace_back(u, v);
        nb.neighbours(b, a);
      }
    }
    const std::uint32_t n = nb.lane_count();
    for (LaneId a = 0; a < n; ++a) {
      for (LaneId b = 0; b < n; ++b) {
        if (ends[a].second == ends[b].first && rng.chance(0.7)) {
          nb.link(a, b);
        }
      }
    }
    const Network net = nb.finish();
    RouteCosts costs;
    costs.lane_change_s = rng.uniform(0.0, 5.0);
    costs.connector_extra_s = rng.uniform(0.0, 3.0);
    std::vector<float> live;
    if (rng.chance(0.5)) {
      for (std::uint32_t i = 0; i < n; ++i) {
        live.push_back(static_cast<float>(rng.uniform(0.0, 40.0)));  // may exceed the limits
      }
      costs.lane_speed_mps = live;
    }
    Router router(net);
    for (int k = 0; k < 10; ++k) {
      if (n == 0) {
        break;
      }
      const LaneId from = rng.below(n);
      const LaneId to = rng.below(n);
      const double ref = dijkstra_cost(net, from, to, costs);
      const auto r = router.route(from, to, costs);
      if (std::isinf(ref)) {
        EXPECT_TRUE(r.empty()) << "seed " << seed;
        continue;
      }
      ++reachable;
      ASSERT_FALSE(r.empty()) << "seed " << seed;
      EXPECT_EQ(r.front().lane, from);
      EXPECT_EQ(r.back().lane, to);
      EXPECT_NEAR(route_time_s(net, r, costs), ref, 1e-9 * std::max(1.0, ref)) << "seed " << seed;
    }
  }
  EXPECT_GT(reachable, 100);  // the comparison is not vacuous
}

TEST(Routing, LandmarksKeepRoutesOptimalAndSettleFewerLanes) {
  const auto grid = square_grid(12, 2);
  const auto landmarks = build_landmarks(grid.net, 6);
  ASSERT_EQ(landmarks->lanes.size(), 6U);
  Router plain(grid.net);
  Router alt(grid.net, landmarks);
  const auto& spawn = grid.net.spawn_lanes;
  Rng rng(3, Stage::test, 11);
  std::uint64_t settled_plain = 0;
  std::uint64_t settled_alt = 0;
  for (int i = 0; i < 200; ++i) {
    const LaneId a = any_spawn_lane(grid.net, rng);
    const LaneId b = any_spawn_lane(grid.net, rng);
    std::uint32_t ep = 0;
    std::uint32_t ea = 0;
    const auto rp = plain.route(a, b, {}, &ep);
    const auto ra = alt.route(a, b, {}, &ea);
    ASSERT_EQ(rp.empty(), ra.empty());
    if (rp.empty()) continue;
    EXPECT_NEAR(route_time_s(grid.net, ra), route_time_s(grid.net, rp), 1e-6) << a << " -> " << b;
    settled_plain += ep;
    settled_alt += ea;
  }
  EXPECT_LT(settled_alt * 3, settled_plain * 2) << "landmarks should cut the search by a third";
  // Costs the landmarks do not bound (live lane speeds) fall back to the straight line.
  std::vector<float> fast(grid.net.lane_count(), 100.0f);
  RouteCosts live;
  live.lane_speed_mps = fast;
  const LaneId a = spawn.front();
  const LaneId b = spawn.back();
  EXPECT_NEAR(route_time_s(grid.net, alt.route(a, b, live), live),
              route_time_s(grid.net, plain.route(a, b, live), live), 1e-6);
}

// The landmarks' times include the lane change cost of the queries they serve (the default, the
// simulation's trips): tighter bounds, the same fastest routes, and queries with cheaper lane
// changes (which those times would overestimate) go without them.
TEST(Routing, LandmarksWithTheLaneChangeCostSettleFewerAndStayOptimal) {
  const auto grid = square_grid(12, 3);
  const auto without = build_landmarks(grid.net, 6, 0.0);
  const auto with = build_landmarks(grid.net, 6);
  EXPECT_EQ(with->lane_change_s, RouteCosts{}.lane_change_s);
  Router plain(grid.net);
  Router alt0(grid.net, without);
  Router alt3(grid.net, with);
  Rng rng(5, Stage::test, 12);
  std::uint64_t settled0 = 0;
  std::uint64_t settled3 = 0;
  int compared = 0;
  RouteCosts free_changes;
  free_changes.lane_change_s = 0.0;
  for (int i = 0; i < 300; ++i) {
    const LaneId a = any_spawn_lane(grid.net, rng);
    const LaneId b = any_spawn_lane(grid.net, rng);
    std::uint32_t e0 = 0;
    std::uint32_t e3 = 0;
    const auto rp = plain.route(a, b);
    const auto r0 = alt0.route(a, b, {}, &e0);
    const auto r3 = alt3.route(a, b, {}, &e3);
    ASSERT_EQ(rp.empty(), r3.empty());
    if (rp.empty()) continue;
    ++compared;
    EXPECT_NEAR(route_time_s(grid.net, r3), route_time_s(grid.net, rp), 1e-6) << a << " -> " << b;
    EXPECT_NEAR(route_time_s(grid.net, r0), route_time_s(grid.net, rp), 1e-6) << a << " -> " << b;
    settled0 += e0;
    settled3 += e3;
    // Lane changes for nothing: the landmarks' 3 s a change would overestimate.
    EXPECT_NEAR(route_time_s(grid.net, alt3.route(a, b, free_changes), free_changes),
                route_time_s(grid.net, plain.route(a, b, free_changes), free_changes), 1e-6)
        << a << " -> " << b;
  }
  EXPECT_GT(compared, 200);
  EXPECT_LT(settled3 * 10, settled0 * 9) << "the lane change cost should tighten the bounds";
}

// Not a test: prints route timings on a ~10k lane grid. Run with
// --gtest_also_run_disabled_tests --gtest_filter='*RoutingTiming*'.
TEST(RoutingTiming, DISABLED_GridMedian) {
  const auto grid = square_grid(21, 2);
  Router router(grid.net);
  Rng rng(1, Stage::test, 7);
  std::vector<double> us;
  std::vector<double> exp;
  for (int i = 0; i < 2000; ++i) {
    const LaneId a = any_spawn_lane(grid.net, rng);
    const LaneId b = any_spawn_lane(grid.net, rng);
    std::uint32_t e = 0;
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = router.route(a, b, {}, &e);
    const auto t1 = std::chrono::steady_clock::now();
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    exp.push_back(e);
    EXPECT_FALSE(r.empty());
  }
  std::sort(us.begin(), us.end());
  std::sort(exp.begin(), exp.end());
  std::printf(
      "lanes %u routes %zu: median %.1f us, p90 %.1f us, max %.1f us, median expanded %.0f\n",
      grid.net.lane_count(), us.size(), us[us.size() / 2], us[us.size() * 9 / 10], us.back(),
      exp[exp.size() / 2]);
}

}  // namespace
}  // namespace cityforge::traffic
