// SPDX-License-Identifier: Apache-2.0
// Coordination of close signalised junctions on hand-made lanes and plans.
#include <gtest/gtest.h>

#include <cmath>

#include "cityforge/roads/roads.hpp"
#include "roads/detail/lanes.hpp"

namespace cityforge::roads {
namespace {

/// Whether connector c is green at time t under the plan (the first phase starts at offset_s).
bool green_at(const SignalPlan& plan, LaneId c, double t) {
  const double cycle = plan.cycle_s();
  double x = std::fmod(t - plan.offset_s, cycle);
  if (x < 0) x += cycle;
  for (const Phase& p : plan.phases) {
    if (x < p.green_s) return std::find(p.green.begin(), p.green.end(), c) != p.green.end();
    x -= p.green_s + p.yellow_s + p.all_red_s;
    if (x < 0) return false;
  }
  return false;
}

Lane lane(LaneId id, std::uint32_t tags, double length, std::int32_t junction) {
  Lane l;
  l.id = id;
  l.tags = kVehicle | tags;
  l.length_m = length;
  l.intersection = junction;
  return l;
}

Phase phase(double green, std::vector<LaneId> lanes) {
  Phase p;
  p.green_s = green;
  p.yellow_s = 3.0;
  p.all_red_s = 1.5;
  p.green = std::move(lanes);
  return p;
}

// Lanes: 0 approach -> 1 (junction 0) -> 2 link of `link_m` -> 3 (junction 1) -> 4 exit;
// 5 and 6 are the junctions' other movements (their second phases).
struct TwoJunctions {
  std::vector<Lane> lanes;
  std::vector<SignalPlan> plans;

  explicit TwoJunctions(double link_m) {
    lanes = {lane(0, 0, 80, -1),           lane(1, kIntersection, 15, 0),
             lane(2, 0, link_m, -1),       lane(3, kIntersection, 15, 1),
             lane(4, 0, 80, -1),           lane(5, kIntersection, 15, 0),
             lane(6, kIntersection, 15, 1)};
    const auto link = [&](LaneId a, LaneId b) {
      lanes[a].successors.push_back(b);
      lanes[b].predecessors.push_back(a);
    };
    link(0, 1);
    link(1, 2);
    link(2, 3);
    link(3, 4);
    // Out of phase and of different cycles as built: junction 0 serves the path first (20 s
    // of 44.5), junction 1 second (18 s after a 22 s phase, of 49 s).
    plans.resize(2);
    plans[0].intersection = 0;
    plans[0].phases = {phase(20, {1}), phase(15.5, {5})};
    plans[1].intersection = 1;
    plans[1].phases = {phase(22, {6}), phase(18, {3})};
  }

  /// Seconds per (common) cycle a vehicle leaving on connector 1 finds connector 3 green for
  /// the next `travel_s`.
  double usable_s(double travel_s) const {
    const double cycle = plans[0].cycle_s();
    double usable = 0;
    for (double t = 0; t < cycle; t += 0.1) {
      bool ok = green_at(plans[0], 1, t);
      for (double u = 0; ok && u <= travel_s; u += 0.1)
        ok = green_at(plans[1], 3, t + u);
      usable += ok ? 0.1 : 0.0;
    }
    return usable;
  }
};

TEST(SignalCoordination, CloseJunctionsShareACycleAndOpenThePathTogether) {
  TwoJunctions j(8.0);
  ASSERT_LT(j.usable_s(5.0), 0.5) << "the plans as built leave the path no window";
  detail::coordinate_signal_plans(j.plans, j.lanes);
  EXPECT_NEAR(j.plans[0].cycle_s(), j.plans[1].cycle_s(), 1e-9);
  EXPECT_NEAR(j.plans[0].cycle_s(), 49.0, 1e-9) << "the longest cycle of the cluster";
  EXPECT_EQ(j.plans[0].offset_s, 0.0) << "the first junction keeps its offset";
  // Green for the path through the link most of the first junction's green.
  EXPECT_GT(j.usable_s(7.0), 10.0);
  // Phase order and shares are kept: the stretched greens keep their ratio.
  EXPECT_NEAR(j.plans[0].phases[0].green_s / j.plans[0].phases[1].green_s, 20.0 / 15.5, 1e-9);
}

TEST(SignalCoordination, DistantJunctionsAreLeftAlone) {
  TwoJunctions j(60.0);
  const std::vector<SignalPlan> before = j.plans;
  detail::coordinate_signal_plans(j.plans, j.lanes);
  for (std::size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(j.plans[i].offset_s, before[i].offset_s);
    EXPECT_EQ(j.plans[i].cycle_s(), before[i].cycle_s());
  }
}

}  // namespace
}  // namespace cityforge::roads
