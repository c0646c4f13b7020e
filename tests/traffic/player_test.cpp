// SPDX-License-Identifier: Apache-2.0
// Traffic reacting to the driver's car (the live viewer's player, an obstacle of the traffic
// simulation): at a four-way junction whose exits loop back to its entries, cross traffic is
// held while the player's car stands in the junction and goes again when it leaves; vehicles on
// the player's lane follow it as their leader and never pass through it (obstacle_test.cpp has
// the car-following figures).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "cityforge/traffic/network.hpp"
#include "cityforge/traffic/traffic.hpp"

namespace cityforge::traffic {
namespace {

constexpr std::uint32_t kConnector = roads::kVehicle | roads::kIntersection;
constexpr float kPlayerLengthM = 4.5f;  // As the live server gives the player's car.

roads::Lane make_lane(std::uint32_t tags, std::vector<Vec3> points, std::int32_t junction = -1) {
  roads::Lane l;
  l.tags = tags;
  l.points = std::move(points);
  for (std::size_t k = 1; k < l.points.size(); ++k)
    l.length_m += length(l.points[k] - l.points[k - 1]);
  l.speed_limit_mps = 10.0;
  l.width_m = 3.0;
  l.intersection = junction;
  l.traffic_density = 0.5;
  return l;
}

void add(roads::LaneGraph& g, roads::Lane l) {
  l.id = static_cast<LaneId>(g.lanes.size());
  g.lanes.push_back(std::move(l));
}

void link(roads::LaneGraph& g, LaneId from, LaneId to) {
  g.lanes[from].successors.push_back(to);
  g.lanes[to].predecessors.push_back(from);
  std::sort(g.lanes[from].successors.begin(), g.lanes[from].successors.end());
  std::sort(g.lanes[to].predecessors.begin(), g.lanes[to].predecessors.end());
}

/// A four-way junction (index 0, no signal) at the origin, right-hand traffic, whose exits loop
/// back to its entries so vehicles keep coming:
///  0 west in, 1 east out, 2 south in, 3 north out, 4 east in, 5 west out (40 m each);
///  connectors 6 through 0 -> 1 (y = -2), 7 through 2 -> 3 (x = 2), 8 right 4 -> 3,
///  9 left 0 -> 3, 10 through 4 -> 5; loops 11 (1 -> 4), 12 (3 -> 2), 13 (5 -> 0).
/// Movement 7 (south to north) crosses movement 6 (west to east) at (2, -2).
constexpr LaneId kSouthIn = 2, kEastThrough = 6, kNorthThrough = 7;

roads::LaneGraph looped_junction() {
  roads::LaneGraph g;
  add(g, make_lane(roads::kVehicle, {{-50, -2, 0}, {-10, -2, 0}}));
  add(g, make_lane(roads::kVehicle, {{10, -2, 0}, {50, -2, 0}}));
  add(g, make_lane(roads::kVehicle, {{2, -50, 0}, {2, -10, 0}}));
  add(g, make_lane(roads::kVehicle, {{2, 10, 0}, {2, 50, 0}}));
  add(g, make_lane(roads::kVehicle, {{50, 2, 0}, {10, 2, 0}}));
  add(g, make_lane(roads::kVehicle, {{-10, 2, 0}, {-50, 2, 0}}));
  add(g, make_lane(kConnector, {{-10, -2, 0}, {0, -2, 0}, {10, -2, 0}}, 0));
  add(g, make_lane(kConnector, {{2, -10, 0}, {2, 0, 0}, {2, 10, 0}}, 0));
  add(g, make_lane(kConnector, {{10, 2, 0}, {4, 4, 0}, {2, 10, 0}}, 0));
  add(g, make_lane(kConnector, {{-10, -2, 0}, {-4, -1, 0}, {0, 3, 0}, {2, 10, 0}}, 0));
  add(g, make_lane(kConnector, {{10, 2, 0}, {0, 2, 0}, {-10, 2, 0}}, 0));
  add(g, make_lane(roads::kVehicle, {{50, -2, 0}, {60, -2, 0}, {60, 2, 0}, {50, 2, 0}}));
  add(g,
      make_lane(roads::kVehicle,
                {{2, 50, 0}, {2, 60, 0}, {-70, 60, 0}, {-70, -60, 0}, {2, -60, 0}, {2, -50, 0}}));
  add(g, make_lane(roads::kVehicle, {{-50, 2, 0}, {-60, 2, 0}, {-60, -2, 0}, {-50, -2, 0}}));
  g.lanes[6].turn = g.lanes[7].turn = g.lanes[10].turn = roads::Turn::through;
  g.lanes[8].turn = roads::Turn::right;
  g.lanes[9].turn = roads::Turn::left;
  for (const auto& [a, b] : std::vector<std::pair<LaneId, LaneId>>{{0, 6},
                                                                   {6, 1},
                                                                   {2, 7},
                                                                   {7, 3},
                                                                   {4, 8},
                                                                   {8, 3},
                                                                   {0, 9},
                                                                   {9, 3},
                                                                   {4, 10},
                                                                   {10, 5},
                                                                   {1, 11},
                                                                   {11, 4},
                                                                   {3, 12},
                                                                   {12, 2},
                                                                   {5, 13},
                                                                   {13, 0}}) {
    link(g, a, b);
  }
  return g;
}

std::unique_ptr<Simulation> make_sim(Seed seed) {
  Result<Network> net = build_network(looped_junction(), {roads::Control::none});
  EXPECT_TRUE(net.ok()) << net.error().to_string();
  Config cfg;
  cfg.vehicles = 10;
  cfg.trip_share = 0;
  cfg.type_share = {1, 0, 0, 0};
  Result<std::unique_ptr<Simulation>> sim = Simulation::create(std::move(*net), cfg, {}, seed);
  EXPECT_TRUE(sim.ok()) << sim.error().to_string();
  return std::move(*sim);
}

/// Ticks `ticks` times; returns how many vehicles entered `lane` (appeared on it).
int entries_into(Simulation& sim, LaneId lane, int ticks) {
  std::set<std::uint32_t> before;
  for (const VehicleView& v : sim.vehicles())
    if (v.lane == lane) before.insert(v.entity.index);
  int entered = 0;
  for (int t = 0; t < ticks; ++t) {
    sim.tick();
    std::set<std::uint32_t> now;
    for (const VehicleView& v : sim.vehicles()) {
      if (v.lane != lane) continue;
      now.insert(v.entity.index);
      entered += before.count(v.entity.index) == 0 ? 1 : 0;
    }
    before = std::move(now);
  }
  return entered;
}

/// A vehicle standing at the end of `lane` (within 8 m of it, nearly stopped).
bool waiting_at_end(const Simulation& sim, LaneId lane) {
  for (const VehicleView& v : sim.vehicles()) {
    if (v.lane == lane && sim.network().length_m[lane] - v.s_m < 8.0f && v.speed_mps < 0.5f) {
      return true;
    }
  }
  return false;
}

TEST(TrafficPlayer, CoordinatorHoldsCrossTrafficForAPlayerCarStandingInAJunction) {
  for (const Seed seed : {1ULL, 2ULL, 3ULL}) {
    SCOPED_TRACE(seed);
    // Without the player, south-north traffic crosses the junction.
    auto free_run = make_sim(seed);
    EXPECT_GT(entries_into(*free_run, kNorthThrough, 600), 3);
    // The player's car stands on the west-east movement, over its crossing with south-north
    // (x = 2 is 12 m along connector 6): no south-north vehicle is let in for a minute, and
    // one waits at the line.
    auto sim = make_sim(seed);
    const std::uint32_t player = sim->add_obstacle(kEastThrough, 14.0f, kPlayerLengthM, 0.0f);
    EXPECT_EQ(entries_into(*sim, kNorthThrough, 600), 0);
    EXPECT_TRUE(waiting_at_end(*sim, kSouthIn));
    EXPECT_EQ(sim->stats().emergency_stops, 0U);
    // The car drives on out of the junction: cross traffic goes again.
    sim->remove_obstacle(player);
    EXPECT_GT(entries_into(*sim, kNorthThrough, 300), 0);
  }
}

TEST(TrafficPlayer, GrantIsWithdrawnWhenThePlayerDrivesIntoTheJunction) {
  int checked = 0;
  for (const Seed seed : {1ULL, 2ULL, 3ULL, 4ULL, 5ULL}) {
    SCOPED_TRACE(seed);
    // A south-north vehicle driving at the junction 28-36 m from its line (able to stop), and
    // granted: it does not slow down for the line (a vehicle without a grant brakes for it).
    auto sim = make_sim(seed);
    const float len = sim->network().length_m[kSouthIn];
    bool found = false;
    for (int t = 0; t < 1200 && !found; ++t) {
      sim->tick();
      for (const VehicleView& v : sim->vehicles()) {
        const float dist = len - v.s_m;
        found = found || (v.lane == kSouthIn && dist > 28.0f && dist < 36.0f &&
                          v.speed_mps > 5.0f && v.speed_mps < 9.5f && v.accel_mps2 > -0.05f);
      }
      // Alone in the junction's reach: nothing on the crossing movements, nothing closer.
      if (found) {
        for (const VehicleView& v : sim->vehicles()) {
          found = found && v.lane != kEastThrough && v.lane != kNorthThrough &&
                  (v.lane != kSouthIn || len - v.s_m > 28.0f);
        }
      }
    }
    if (!found) continue;
    ++checked;
    // The player's car drives into the junction across its way: the grant goes, the vehicle
    // stops at the line instead of driving into the car.
    sim->add_obstacle(kEastThrough, 14.0f, kPlayerLengthM, 0.0f);
    EXPECT_EQ(entries_into(*sim, kNorthThrough, 300), 0);
    EXPECT_TRUE(waiting_at_end(*sim, kSouthIn));
  }
  EXPECT_GE(checked, 2);
}

TEST(TrafficPlayer, ThePlayersCarIsALeaderForFollowingVehicles) {
  for (const Seed seed : {1ULL, 2ULL, 3ULL}) {
    SCOPED_TRACE(seed);
    auto sim = make_sim(seed);
    // The player's car stopped 30 m along the south approach.
    const float front = 30.0f;
    const float rear = front - kPlayerLengthM;
    sim->add_obstacle(kSouthIn, front, kPlayerLengthM, 0.0f);
    // Vehicles spawned before it came (ahead of it, or where it appeared) are left out; the
    // ones behind it and those arriving later count.
    std::set<std::uint32_t> ahead;
    for (const VehicleView& v : sim->vehicles())
      if (v.lane == kSouthIn && v.s_m > rear) ahead.insert(v.entity.index);
    bool queued = false;
    for (int t = 0; t < 900; ++t) {
      sim->tick();
      for (const VehicleView& v : sim->vehicles()) {
        if (v.lane != kSouthIn || ahead.count(v.entity.index) != 0U) continue;
        ASSERT_LE(v.s_m, rear + 1e-3f) << "vehicle " << v.entity.index << " drove into the car";
        queued = queued || (rear - v.s_m < 6.0f && v.speed_mps < 0.2f);
      }
    }
    EXPECT_TRUE(queued) << "no vehicle came to a stop behind the player's car";
    EXPECT_EQ(sim->stats().emergency_stops, 0U);
  }
}

}  // namespace
}  // namespace cityforge::traffic
