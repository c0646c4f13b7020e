// SPDX-License-Identifier: Apache-2.0
// Vehicles at level of detail `off` are driven once every Config::off_step_s with that step:
// on a free-flow stretch such a vehicle, raised again, is where the same vehicle driven every
// tick is (within the tolerance docs/traffic.md gives), its samples in between are
// extrapolated, not frozen, and on a grid whose levels change all the time no vehicle appears,
// disappears or jumps, with the same state at 1 and 2 threads (overlaps, conflicts and red
// entries at such churn are audited on the default city in tests/app/simulate_test.cpp).
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <utility>
#include <vector>

#include "cityforge/core/rng.hpp"
#include "cityforge/traffic/traffic.hpp"
#include "continuity.hpp"
#include "net_fixture.hpp"

using namespace cityforge;
using namespace cityforge::traffic;

namespace {

/// A one-way loop of two 3 km straights joined by 40 m lanes: long free-flow stretches.
Network long_loop() {
  traffic::testing::NetBuilder b;
  const LaneId a = b.add_straight({0, 0, 0}, {3000, 0, 0});
  const LaneId c = b.add_straight({3000, 0, 0}, {3000, 40, 0});
  const LaneId d = b.add_straight({3000, 40, 0}, {0, 40, 0});
  const LaneId e = b.add_straight({0, 40, 0}, {0, 0, 0});
  b.link(a, c);
  b.link(c, d);
  b.link(d, e);
  b.link(e, a);
  return b.finish();
}

std::unique_ptr<Simulation> make_sim(Network net, std::uint32_t vehicles, float trip_share,
                                     float off_step_s, Seed seed) {
  Config cfg;
  cfg.vehicles = vehicles;
  cfg.trip_share = trip_share;
  cfg.off_step_s = off_step_s;
  Result<std::unique_ptr<Simulation>> sim = Simulation::create(std::move(net), cfg, {}, seed);
  EXPECT_TRUE(sim.ok()) << sim.error().to_string();
  return std::move(*sim);
}

double distance_xy(const Vec3& a, const Vec3& b) { return std::hypot(a.x - b.x, a.y - b.y); }

// The documented tolerance (docs/traffic.md, "Levels of detail").
constexpr double kToleranceM = 1.0;
constexpr double kToleranceMps = 0.2;

TEST(TrafficLod, OffVehicleRaisedAgainIsWhereTheVehicleDrivenEveryTickIs) {
  for (const Seed seed : {5ULL, 6ULL, 7ULL}) {
    // The reference is driven every tick (level high throughout); the other is off from 5 s
    // (still accelerating from its standing start) to 95 s, three lane ends later.
    auto ref = make_sim(long_loop(), 1, 0, 1.0f, seed);
    auto lod = make_sim(long_loop(), 1, 0, 1.0f, seed);
    const std::uint32_t id = ref->vehicles().at(0).entity.index;
    std::vector<std::uint8_t> high(id + 1, 0);
    std::vector<std::uint8_t> off(id + 1, 0);
    off[id] = 3;
    ref->set_lod(high);
    lod->set_lod(high);
    double worst_off_m = 0;    // Samples while off (extrapolated between steps).
    double worst_after_m = 0;  // Lane positions once raised.
    double worst_speed = 0;
    std::uint64_t frozen = 0;  // Ticks an off vehicle's sample did not move while driving.
    Vec3 last{};
    const int ticks = 1200;
    for (int t = 0; t < ticks; ++t) {
      if (t == 50) lod->set_lod(off);
      if (t == 950) lod->set_lod(high);
      ref->tick();
      lod->tick();
      const VehicleSample a = ref->samples().at(0);
      const VehicleSample b = lod->samples().at(0);
      if (t >= 50 && t < 950) {
        worst_off_m = std::max(worst_off_m, distance_xy(a.position, b.position));
        if (t > 50 && a.speed_mps > 1.0f && distance_xy(b.position, last) < 1e-4) ++frozen;
      } else if (t >= 950) {
        const VehicleView va = ref->vehicles().at(0);
        const VehicleView vb = lod->vehicles().at(0);
        ASSERT_EQ(va.lane, vb.lane) << "seed " << seed << " tick " << t;
        worst_after_m = std::max(worst_after_m, static_cast<double>(std::abs(va.s_m - vb.s_m)));
        worst_speed =
            std::max(worst_speed, static_cast<double>(std::abs(va.speed_mps - vb.speed_mps)));
      }
      last = b.position;
    }
    // While off it was driven at 1 s steps, and every tick within reach of a lane end.
    const std::uint64_t driven = lod->stats().vehicles_driven;
    EXPECT_LT(driven, ref->stats().vehicles_driven / 2) << "seed " << seed;
    EXPECT_EQ(frozen, 0U) << "seed " << seed;
    EXPECT_LT(worst_off_m, kToleranceM) << "seed " << seed;
    EXPECT_LT(worst_after_m, kToleranceM) << "seed " << seed;
    EXPECT_LT(worst_speed, kToleranceMps) << "seed " << seed;
    std::printf(
        "seed %llu: driven %llu of %d ticks; off: samples within %.3f m; raised: %.3f m, "
        "%.3f m/s\n",
        static_cast<unsigned long long>(seed), static_cast<unsigned long long>(driven), ticks,
        worst_off_m, worst_after_m, worst_speed);
  }
}

/// Levels drawn per vehicle every 0.3 s, most of them off.
std::vector<std::uint8_t> churned_levels(std::uint64_t tick, std::uint32_t entities) {
  std::vector<std::uint8_t> levels(entities);
  for (std::uint32_t e = 0; e < entities; ++e) {
    Rng rng(11, Stage::sim, hash_combine(tick / 3, e), 99);
    const double u = rng.uniform01();
    levels[e] = u < 0.1 ? 0 : u < 0.2 ? 1 : u < 0.35 ? 2 : 3;
  }
  return levels;
}

struct ChurnRun {
  std::uint64_t hash = 0;
  std::uint64_t driven = 0;
  std::uint64_t updates = 0;
  std::uint64_t trips = 0;
};

void churn(int threads, bool check, ChurnRun& out) {
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                            static_cast<std::size_t>(threads));
  traffic::testing::GridSpec spec;
  spec.nx = 5;
  spec.ny = 5;
  spec.lanes = 2;
  spec.block_m = 200;
  auto sim = make_sim(traffic::testing::make_grid(spec).net, 400, 0.3f, 1.0f, 9);
  const std::uint32_t total = sim->stats().vehicles_moving + sim->stats().vehicles_pooled;
  const std::uint32_t entities = total + 64;
  traffic::testing::Continuity continuity;
  for (std::uint64_t t = 0; t < 1500; ++t) {
    sim->set_lod(churned_levels(t, entities));
    sim->tick();
    if (!check) continue;
    const Stats& s = sim->stats();
    // Every vehicle is either moving or pooled.
    ASSERT_EQ(s.vehicles_moving + s.vehicles_pooled, total) << "tick " << t;
    // Overlaps are audited on the default city (tests/app/simulate_test.cpp): this grid's
    // junctions have no conflict table, so two vehicles may enter one lane together here at any
    // level (they do so driven every tick as well).
    const Audit a = audit(*sim);
    ASSERT_EQ(a.bad_positions, 0U) << "tick " << t;
    // A vehicle that was moving and still is has moved on by at most what it can drive in the
    // time it may have been behind (one off step, 1 s) at its top speed (lane limit x the
    // largest driver factor). Only an arrival leaves for the pool, or comes back from it
    // elsewhere (possibly in the same tick).
    const auto [left_or_moved, arrivals] = continuity.step(*sim, 13.9 * 1.1 * 1.0 + 0.5);
    ASSERT_LE(left_or_moved, arrivals) << "tick " << t;
  }
  out = ChurnRun{sim->state_hash(), sim->stats().vehicles_driven, sim->stats().vehicle_updates,
                 sim->stats().trips_completed};
}

TEST(TrafficLod, NoVehicleAppearsDisappearsOrJumpsWhileLevelsChange) {
  ChurnRun one;
  churn(1, true, one);
  ASSERT_NE(one.updates, 0U);
  // Most were off most of the time, so far fewer were driven than simulated.
  EXPECT_LT(one.driven, one.updates * 6 / 10);
  EXPECT_GT(one.trips, 0U);
  ChurnRun two;
  churn(2, false, two);
  EXPECT_EQ(one.hash, two.hash);
  EXPECT_EQ(one.driven, two.driven);
  std::printf("driven %llu of %llu vehicle updates, %llu trips completed\n",
              static_cast<unsigned long long>(one.driven),
              static_cast<unsigned long long>(one.updates),
              static_cast<unsigned long long>(one.trips));
}

TEST(TrafficLod, OffVehicleStopsBehindAStoppedObstacleWithoutAnEmergency) {
  for (const Seed seed : {5ULL, 6ULL}) {
    auto sim = make_sim(long_loop(), 1, 0, 1.0f, seed);
    const VehicleView v0 = sim->vehicles().at(0);
    std::vector<std::uint8_t> off(v0.entity.index + 1, 0);
    off[v0.entity.index] = 3;
    sim->set_lod(off);
    // A stopped obstacle up to 1 km ahead on the same 3 km straight.
    ASSERT_GT(sim->network().length_m[v0.lane], 2000.0f) << "seed " << seed;
    const float front = std::min(v0.s_m + 1000.0f, 2990.0f);
    ASSERT_GT(front - v0.s_m, 300.0f) << "seed " << seed;
    sim->add_obstacle(v0.lane, front, 4.5f);
    std::uint64_t overlaps = 0;
    for (int t = 0; t < 1500; ++t) {
      sim->tick();
      overlaps += audit(*sim).overlaps;
    }
    const VehicleView v = sim->vehicles().at(0);
    EXPECT_EQ(overlaps, 0U) << "seed " << seed;
    EXPECT_EQ(sim->stats().emergency_stops, 0U) << "seed " << seed;
    EXPECT_EQ(v.lane, v0.lane) << "seed " << seed;
    EXPECT_LT(v.speed_mps, 0.1f) << "seed " << seed;
    const float gap = front - 4.5f - v.s_m;
    EXPECT_GT(gap, 0.9f * default_params(VehicleType::car).min_gap_m) << "seed " << seed;
    EXPECT_LT(gap, 10.0f) << "seed " << seed;
  }
}

TEST(TrafficLod, OffStepZeroDrivesEveryVehicleEveryTick) {
  auto a = make_sim(long_loop(), 1, 0, 0.0f, 5);
  auto b = make_sim(long_loop(), 1, 0, 0.0f, 5);
  const std::uint32_t id = a->vehicles().at(0).entity.index;
  std::vector<std::uint8_t> off(id + 1, 3);
  b->set_lod(off);
  for (int t = 0; t < 300; ++t) {
    a->tick();
    b->tick();
  }
  EXPECT_EQ(b->stats().vehicles_driven, 300U);
  EXPECT_EQ(a->state_hash(), b->state_hash());
}

TEST(TrafficLod, NegativeOffStepIsRefused) {
  Config cfg;
  cfg.off_step_s = -1;
  Result<std::unique_ptr<Simulation>> sim = Simulation::create(long_loop(), cfg, {}, 1);
  ASSERT_FALSE(sim.ok());
  EXPECT_NE(sim.error().to_string().find("off_step_s"), std::string::npos);
}

}  // namespace
