// SPDX-License-Identifier: Apache-2.0
#include "cityforge/traffic/network.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

namespace cityforge::traffic {
namespace {

using roads::Lane;
using roads::LaneGraph;

constexpr std::uint32_t kConnector = roads::kVehicle | roads::kIntersection;

Lane make_lane(std::uint32_t tags, std::vector<Vec3> points, std::int32_t junction = -1) {
  Lane l;
  l.tags = tags;
  l.points = std::move(points);
  for (std::size_t k = 1; k < l.points.size(); ++k)
    l.length_m += length(l.points[k] - l.points[k - 1]);
  l.speed_limit_mps = 10.0;
  l.width_m = 3.0;
  l.intersection = junction;
  return l;
}

LaneId add(LaneGraph& g, Lane l) {
  l.id = static_cast<LaneId>(g.lanes.size());
  g.lanes.push_back(std::move(l));
  return g.lanes.back().id;
}

void link(LaneGraph& g, LaneId from, LaneId to) {
  g.lanes[from].successors.push_back(to);
  g.lanes[to].predecessors.push_back(from);
  std::sort(g.lanes[from].successors.begin(), g.lanes[from].successors.end());
  std::sort(g.lanes[to].predecessors.begin(), g.lanes[to].predecessors.end());
}

/// A four-way junction (index 0) around the origin, right-hand traffic:
///  0 west in, 1 east out, 2 south in, 3 north out, 4 east in, 5 west out (40 m each);
///  6 through 0 -> 1 (y = -2), 7 through 2 -> 3 (x = 2), 8 right 4 -> 3, 9 left 0 -> 3,
///  10 through 4 -> 5 (y = 2); 11 a crosswalk over the north leg at y = 12.
LaneGraph four_way() {
  LaneGraph g;
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
  Lane walk = make_lane(roads::kCrosswalk, {{-6, 12, 0}, {6, 12, 0}}, 0);
  walk.speed_limit_mps = 1.4;
  add(g, walk);
  g.lanes[6].turn = g.lanes[7].turn = g.lanes[10].turn = roads::Turn::through;
  g.lanes[8].turn = roads::Turn::right;
  g.lanes[9].turn = roads::Turn::left;
  link(g, 0, 6);
  link(g, 6, 1);
  link(g, 2, 7);
  link(g, 7, 3);
  link(g, 4, 8);
  link(g, 8, 3);
  link(g, 0, 9);
  link(g, 9, 3);
  link(g, 4, 10);
  link(g, 10, 5);
  return g;
}

roads::SignalPlan plan(std::vector<std::vector<LaneId>> greens) {
  roads::SignalPlan p;
  p.intersection = 0;
  for (auto& green : greens) {
    roads::Phase ph;
    ph.green_s = 20.0;
    ph.yellow_s = 3.0;
    ph.all_red_s = 1.5;
    ph.green = std::move(green);
    p.phases.push_back(std::move(ph));
  }
  return p;
}

const std::vector<roads::Control> kSignal = {roads::Control::signal};

std::vector<LaneId> span_of(const std::vector<std::uint32_t>& begin, const std::vector<LaneId>& v,
                            LaneId lane) {
  return {v.begin() + begin[lane], v.begin() + begin[lane + 1]};
}

TEST(TrafficNetwork, FlattensLanesAndLinks) {
  const LaneGraph g = four_way();
  const Result<Network> net = build_network(g, kSignal);
  ASSERT_TRUE(net.ok()) << net.error().to_string();
  ASSERT_EQ(net->lane_count(), 12U);
  EXPECT_EQ(net->intersection_count(), 1U);
  EXPECT_FLOAT_EQ(net->length_m[0], 40.0F);
  EXPECT_EQ(span_of(net->succ_begin, net->succ, 0), (std::vector<LaneId>{6, 9}));
  EXPECT_EQ(span_of(net->pred_begin, net->pred, 3), (std::vector<LaneId>{7, 8, 9}));
  EXPECT_EQ(net->point_begin.back(), net->points.size());
  // Cumulative arc length along the left turn.
  const std::uint32_t b = net->point_begin[9];
  EXPECT_FLOAT_EQ(net->point_s[b], 0.0F);
  EXPECT_NEAR(net->point_s[b + 3], g.lanes[9].length_m, 1e-4);
  EXPECT_EQ(net->connectors, (std::vector<LaneId>{6, 7, 8, 9, 10}));
  EXPECT_EQ(net->connector_begin, (std::vector<std::uint32_t>{0, 5}));
  EXPECT_EQ(net->spawn_lanes, (std::vector<LaneId>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(net->signal_of, (std::vector<std::int32_t>{-1}));
  // Lane 3 has three predecessors, all connectors: a junction, not a merge.
  EXPECT_EQ(net->merge[3], 0);
}

TEST(TrafficNetwork, ConflictsAreCrossingsAndMerges) {
  const Result<Network> net = build_network(four_way(), kSignal);
  ASSERT_TRUE(net.ok()) << net.error().to_string();
  auto conflicts = [&](LaneId l) { return span_of(net->conflict_begin, net->conflicts, l); };
  EXPECT_EQ(conflicts(6), (std::vector<LaneId>{7}));  // 9 diverges from the same lane.
  EXPECT_EQ(conflicts(7), (std::vector<LaneId>{6, 8, 9, 10}));
  EXPECT_EQ(conflicts(8), (std::vector<LaneId>{7, 9}));  // Merges; 10 diverges.
  EXPECT_EQ(conflicts(9), (std::vector<LaneId>{7, 8, 10}));
  EXPECT_EQ(conflicts(10), (std::vector<LaneId>{7, 9}));
  EXPECT_TRUE(conflicts(0).empty());
  // Symmetric, no self.
  for (LaneId a : net->connectors) {
    for (LaneId c : conflicts(a)) {
      EXPECT_NE(a, c);
      const auto back = conflicts(c);
      EXPECT_TRUE(std::binary_search(back.begin(), back.end(), a)) << a << " " << c;
    }
  }
  // The crosswalk over the north leg: every movement into lane 3 crosses it.
  auto walks = [&](LaneId l) { return span_of(net->crosswalk_begin, net->crosswalks, l); };
  EXPECT_EQ(walks(7), (std::vector<LaneId>{11}));
  EXPECT_EQ(walks(8), (std::vector<LaneId>{11}));
  EXPECT_EQ(walks(9), (std::vector<LaneId>{11}));
  EXPECT_TRUE(walks(6).empty());
  EXPECT_TRUE(walks(10).empty());
}

TEST(TrafficNetwork, MergeFlagsAndSpawnLanes) {
  LaneGraph g;
  const LaneId main_in = add(g, make_lane(roads::kVehicle, {{0, 0, 0}, {100, 0, 0}}));
  Lane ramp = make_lane(roads::kVehicle | roads::kRamp, {{0, -20, 5}, {100, -3, 0}});
  const LaneId ramp_in = add(g, ramp);
  const LaneId out = add(g, make_lane(roads::kVehicle, {{100, 0, 0}, {200, 0, 0}}));
  link(g, main_in, out);
  link(g, ramp_in, out);
  const Result<Network> net = build_network(g, {});
  ASSERT_TRUE(net.ok()) << net.error().to_string();
  EXPECT_EQ(net->merge, (std::vector<std::uint8_t>{0, 0, 1}));
  EXPECT_EQ(net->spawn_lanes, (std::vector<LaneId>{0, 2}));
  EXPECT_EQ(net->intersection_count(), 0U);
  // 3D arc length: the ramp climbs down 5 m.
  EXPECT_NEAR(net->length_m[1], std::sqrt(100.0 * 100.0 + 17.0 * 17.0 + 25.0), 1e-3);
}

TEST(TrafficNetwork, AcceptsSignalPlanWithMergingAndYieldingGreens) {
  LaneGraph g = four_way();
  g.lanes[9].tags |= roads::kYield;
  // Phase 0: the east-west axis with a yielding left across the opposing through; phase 1:
  // north, right and left all merging into lane 3 (merges are not conflicting greens).
  g.signals.push_back(plan({{6, 9, 10}, {7, 8}}));
  g.signals[0].phases[0].walk = {11};
  const Result<Network> net = build_network(g, kSignal);
  ASSERT_TRUE(net.ok()) << net.error().to_string();
  EXPECT_EQ(net->signal_of, (std::vector<std::int32_t>{0}));
  ASSERT_EQ(net->signals.size(), 1U);
  EXPECT_EQ(net->signals[0].phases[1].green, (std::vector<LaneId>{7, 8}));
}

TEST(TrafficLanePose, InterpolatesAndOffsetsToTheLeft) {
  LaneGraph g;
  add(g, make_lane(roads::kVehicle, {{0, 0, 0}, {10, 0, 1}, {10, 20, 1}}));
  const Result<Network> net = build_network(g, {});
  ASSERT_TRUE(net.ok()) << net.error().to_string();
  const double first = std::sqrt(101.0);
  LanePose p = lane_pose(*net, 0, first / 2.0);
  EXPECT_NEAR(p.position.x, 5.0, 1e-5);
  EXPECT_NEAR(p.position.z, 0.5, 1e-5);
  EXPECT_NEAR(p.heading_rad, 0.0, 1e-9);
  // On the second segment, heading north, 1 m to the left is west.
  p = lane_pose(*net, 0, first + 5.0, 1.0);
  EXPECT_NEAR(p.position.x, 9.0, 1e-5);
  EXPECT_NEAR(p.position.y, 5.0, 1e-4);
  EXPECT_NEAR(p.heading_rad, std::numbers::pi / 2.0, 1e-9);
  // Clamped to the lane; negative lateral is to the right.
  p = lane_pose(*net, 0, 1e6, -2.0);
  EXPECT_NEAR(p.position.x, 12.0, 1e-5);
  EXPECT_NEAR(p.position.y, 20.0, 1e-5);
  p = lane_pose(*net, 0, -5.0);
  EXPECT_NEAR(p.position.x, 0.0, 1e-9);
  EXPECT_NEAR(p.position.y, 0.0, 1e-9);
}

TEST(TrafficLanePose, CapacityCountsWholeVehiclesOnSpawnLanes) {
  const Result<Network> net = build_network(four_way(), kSignal);
  ASSERT_TRUE(net.ok()) << net.error().to_string();
  // Six 40 m spawn lanes, 6.5 m per vehicle: 6 each; connectors do not count.
  EXPECT_EQ(lane_capacity(*net, 4.5, 2.0), 36U);
  EXPECT_EQ(lane_capacity(*net, 0.0, 0.0), 0U);
}

void expect_error(const LaneGraph& g, const std::vector<roads::Control>& controls,
                  const std::string& where, const std::string& fragment) {
  const Result<Network> net = build_network(g, controls);
  ASSERT_FALSE(net.ok()) << "expected an error at " << where;
  EXPECT_EQ(net.error().code, ErrorCode::invalid_input);
  EXPECT_EQ(net.error().where, where) << net.error().to_string();
  EXPECT_NE(net.error().message.find(fragment), std::string::npos) << net.error().to_string();
}

TEST(TrafficNetworkErrors, DanglingSuccessor) {
  LaneGraph g = four_way();
  g.lanes[1].successors = {99};
  expect_error(g, kSignal, "lanes[1].successors[0]", "dangling successor");
}

TEST(TrafficNetworkErrors, NonMirroredLinks) {
  LaneGraph g = four_way();
  g.lanes[1].predecessors.clear();
  expect_error(g, kSignal, "lanes[6].successors[0]", "mirror");
  g = four_way();
  g.lanes[6].successors.clear();
  expect_error(g, kSignal, "lanes[1].predecessors[0]", "mirror");
}

TEST(TrafficNetworkErrors, ZeroLengthVehicleLane) {
  LaneGraph g = four_way();
  g.lanes[1].points = {{10, -2, 0}, {10, -2, 0}};
  g.lanes[1].length_m = 0.0;
  expect_error(g, kSignal, "lanes[1].length_m", "> 0.001 m");
}

TEST(TrafficNetworkErrors, FewerThanTwoPoints) {
  LaneGraph g = four_way();
  g.lanes[1].points.resize(1);
  expect_error(g, kSignal, "lanes[1].points", ">= 2 points, found 1");
}

TEST(TrafficNetworkErrors, ZeroSpeedLimit) {
  LaneGraph g = four_way();
  g.lanes[2].speed_limit_mps = 0.0;
  expect_error(g, kSignal, "lanes[2].speed_limit_mps", "speed limit > 0");
}

TEST(TrafficNetworkErrors, NanCoordinate) {
  LaneGraph g = four_way();
  g.lanes[3].points[1].y = std::numeric_limits<double>::quiet_NaN();
  expect_error(g, kSignal, "lanes[3].points[1]", "finite");
}

TEST(TrafficNetworkErrors, JunctionBeyondControls) {
  expect_error(four_way(), {}, "lanes[6].intersection", "junction index < 0");
}

TEST(TrafficNetworkErrors, SignalNamingANonConnector) {
  LaneGraph g = four_way();
  g.signals.push_back(plan({{6, 10}, {0, 7}}));
  expect_error(g, kSignal, "signals[0].phases[1].green[0]", "found lane 0");
  g.signals[0] = plan({{6, 10}});
  g.signals[0].phases[0].walk = {3};
  expect_error(g, kSignal, "signals[0].phases[0].walk[0]", "expected a crosswalk");
}

TEST(TrafficNetworkErrors, ZeroLengthPhase) {
  LaneGraph g = four_way();
  g.signals.push_back(plan({{6, 10}, {7}}));
  g.signals[0].phases[1].green_s = 0.0;
  g.signals[0].phases[1].yellow_s = 0.0;
  g.signals[0].phases[1].all_red_s = 0.0;
  expect_error(g, kSignal, "signals[0].phases[1]", "green_s + yellow_s + all_red_s > 0");
  g.signals[0].phases[1].yellow_s = -3.0;
  expect_error(g, kSignal, "signals[0].phases[1].yellow_s", ">= 0");
}

TEST(TrafficNetworkErrors, ConflictingGreens) {
  LaneGraph g = four_way();
  g.signals.push_back(plan({{6, 10}, {6, 7}}));
  expect_error(g, kSignal, "signals[0].phases[1].green", "lanes 6 and 7 cross");
  // The same phase is fine when one of the two yields.
  g.lanes[7].tags |= roads::kYield;
  EXPECT_TRUE(build_network(g, kSignal).ok());
}

}  // namespace
}  // namespace cityforge::traffic
