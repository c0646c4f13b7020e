// SPDX-License-Identifier: Apache-2.0
// The lane graph cut by METIS (partition_network) and the driving shared over ranks
// (Simulation::share): ranks here are threads of one process exchanging through the same
// collectives MPI provides (ThreadRanks), so the exchange is tested in every build, sanitizers
// included; tests/app/mpi_test.cpp runs the same over `mpirun`.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cityforge/core/ranks.hpp"
#include "cityforge/core/rng.hpp"
#include "cityforge/traffic/partition.hpp"
#include "cityforge/traffic/traffic.hpp"
#include "net_fixture.hpp"
#include "thread_ranks.hpp"

using namespace cityforge;
using namespace cityforge::traffic;

namespace {

using cityforge::testing::ThreadJob;
using cityforge::testing::ThreadRanks;

/// `later`: Config::route_trips_later (the initial trips routed by share(), or the first tick).
Config config(std::uint32_t vehicles, bool later = false) {
  Config cfg;
  cfg.vehicles = vehicles;
  cfg.trip_share = 0.4f;
  cfg.route_trips_later = later;
  return cfg;
}

/// Lanes per direction of the grid's roads (a test may set 3 with LanesPerSide).
int g_lanes = 2;

traffic::testing::GridSpec spec() {
  traffic::testing::GridSpec s;
  s.nx = 6;
  s.ny = 5;
  s.lanes = g_lanes;
  return s;
}

/// Roads of `n` lanes per direction while in scope.
struct LanesPerSide {
  explicit LanesPerSide(int n) { g_lanes = n; }
  ~LanesPerSide() { g_lanes = 2; }
  LanesPerSide(const LanesPerSide&) = delete;
  LanesPerSide& operator=(const LanesPerSide&) = delete;
};

std::uint64_t hash_positions(const std::vector<VehicleSample>& samples) {
  std::uint64_t h = 0;
  for (const VehicleSample& v : samples) {
    h = hash_combine(h, v.id);
    h = hash_bytes(&v.position, sizeof v.position, h);
  }
  return h;
}

/// Half the vehicles at level of detail `off` (driven every Config::off_step_s, skipped
/// between), so the exchange carries skipped rows too.
void set_levels(Simulation& sim) {
  std::vector<std::uint8_t> levels(sim.world().entity_count() + 1, 0);
  for (std::size_t i = 0; i < levels.size(); i += 2)
    levels[i] = 3;
  sim.set_lod(levels);
}

/// What a run ends with, its figures after every tick and its state hash now and then.
struct RunResult {
  std::vector<std::uint64_t> figures;  ///< Every tick: a hash of the tick's Stats figures.
  std::vector<std::uint64_t> hashes;   ///< Every kGatherEvery-th tick: the state hash.
  std::vector<std::uint64_t> placed;   ///< Every 10th tick: a hash of positions().
  /// Every 10th tick: a hash of samples_on_rank0() (every field; none on a rank but 0).
  std::vector<std::uint64_t> sampled;
  Stats stats;
  ShareStats share;
};

/// Over ranks the state is gathered only this often (gather_state): in between, each rank runs
/// on its own vehicles and its halo, as a run over MPI does, so a read outside the halo shows.
constexpr int kGatherEvery = 100;

std::uint64_t hash_figures(const Stats& s) {
  std::uint64_t h = hash_bytes(&s.distance_km, sizeof s.distance_km, 0);
  h = hash_bytes(&s.mean_speed_mps, sizeof s.mean_speed_mps, h);
  for (const std::uint64_t v :
       {s.vehicle_updates, s.vehicles_driven, s.lane_changes, s.lane_changes_aborted, s.stops,
        s.junction_entries, s.entries_on_yellow, s.red_violations, s.emergency_stops,
        s.trips_started, s.trips_completed, s.reroutes,
        static_cast<std::uint64_t>(s.vehicles_moving),
        static_cast<std::uint64_t>(s.vehicles_pooled)}) {
    h = hash_combine(h, v);
  }
  return h;
}

void after_tick(Simulation& sim, int t, RunResult& out, int gather_every = kGatherEvery) {
  out.figures.push_back(hash_figures(sim.stats()));
  if (t % 10 == 0) {
    out.placed.push_back(hash_positions(sim.positions()));
    // Near a point only: exactly the vehicles within the radius, as positions() has them.
    const Vec3 centre{200.0, 150.0, 0.0};
    const std::vector<VehicleSample> all = sim.positions();
    const std::vector<VehicleSample> near = sim.positions(centre, 120.0);
    std::vector<VehicleSample> within;
    for (const VehicleSample& v : all) {
      if (length(v.position - centre) <= 120.0) within.push_back(v);
    }
    EXPECT_GT(within.size(), 0U);
    EXPECT_LT(within.size(), all.size());
    EXPECT_EQ(near.size(), within.size());
    for (std::size_t k = 0; k < near.size() && k < within.size(); ++k) {
      EXPECT_EQ(near[k].id, within[k].id);
      EXPECT_EQ(near[k].kind, within[k].kind);
      EXPECT_EQ(near[k].position, within[k].position) << "vehicle " << within[k].id;
    }
    out.placed.push_back(hash_positions(near));
    std::uint64_t h = 0;
    for (const VehicleSample& v : sim.samples_on_rank0()) {
      for (const std::uint64_t x :
           {std::uint64_t{v.id}, std::uint64_t{v.flags}, static_cast<std::uint64_t>(v.kind)})
        h = hash_combine(h, x);
      for (const double x : {v.position.x, v.position.y, v.position.z, v.heading_rad, v.speed_mps})
        h = hash_bytes(&x, sizeof x, h);
    }
    out.sampled.push_back(h);
  }
  if (t % gather_every == gather_every - 1) {
    sim.gather_state();
    out.hashes.push_back(sim.state_hash());
  }
}

/// One process; `later` with `share_one`: the initial trips routed by share() over one rank,
/// without it by the first tick.
/// What a run does before each tick (e.g. change the vehicle count), on every rank alike.
using BeforeTick = std::function<void(Simulation&, int)>;

RunResult run_alone(std::uint32_t vehicles, int ticks, bool later = false, bool share_one = false,
                    const BeforeTick& before = {}) {
  const Network net = traffic::testing::make_grid(spec()).net;
  Result<std::unique_ptr<Simulation>> sim = Simulation::create(net, config(vehicles, later), {}, 5);
  EXPECT_TRUE(sim.ok());
  if (share_one) {
    Result<Partition> one = partition_network(net, 1, 5);
    EXPECT_TRUE(one.ok() && (*sim)->share(single_rank(), *one).ok());
  }
  set_levels(**sim);
  RunResult out;
  for (int t = 0; t < ticks; ++t) {
    if (before) before(**sim, t);
    (*sim)->tick();
    after_tick(**sim, t, out);
  }
  out.stats = (*sim)->stats();
  return out;
}

/// The same run on `np` thread ranks: every rank's result.
std::vector<RunResult> run_shared(int np, std::uint32_t vehicles, int ticks,
                                  int gather_every = kGatherEvery, bool later = false,
                                  const BeforeTick& before = {}) {
  ThreadJob job(np);
  std::vector<RunResult> runs(static_cast<std::size_t>(np));
  // One partition for all (METIS keeps global state: it is not called from several threads).
  Result<Partition> part =
      partition_network(traffic::testing::make_grid(spec()).net, static_cast<std::uint32_t>(np), 5);
  EXPECT_TRUE(part.ok());
  std::vector<std::thread> threads;
  for (int r = 0; r < np; ++r) {
    threads.emplace_back([&, r] {
      const ThreadRanks ranks(job, r);
      Result<std::unique_ptr<Simulation>> sim = Simulation::create(
          traffic::testing::make_grid(spec()).net, config(vehicles, later), {}, 5);
      ASSERT_TRUE(sim.ok());
      ASSERT_TRUE((*sim)->share(ranks, *part).ok());
      set_levels(**sim);
      RunResult& out = runs[static_cast<std::size_t>(r)];
      for (int t = 0; t < ticks; ++t) {
        if (before) before(**sim, t);
        (*sim)->tick();
        after_tick(**sim, t, out, gather_every);
      }
      // A second gather with no tick between changes nothing (vehicles handed over in the last
      // tick went with the first; none is held twice, which would stop the job).
      (*sim)->gather_state();
      EXPECT_EQ((*sim)->state_hash(), out.hashes.back()) << "np " << np << " rank " << r;
      out.stats = (*sim)->stats();
      out.share = (*sim)->share_stats();
    });
  }
  for (std::thread& t : threads)
    t.join();
  return runs;
}

TEST(TrafficPartition, JunctionsKeepTheirApproachesAndNeighboursStayTogether) {
  const Network net = traffic::testing::make_grid(spec()).net;
  Result<Partition> a = partition_network(net, 4, 7);
  ASSERT_TRUE(a.ok()) << a.error().to_string();
  Result<Partition> b = partition_network(net, 4, 7);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(a->lane_part, b->lane_part) << "same network and seed, same partition";
  ASSERT_EQ(a->lane_part.size(), net.lane_count());
  std::set<std::uint16_t> used(a->lane_part.begin(), a->lane_part.end());
  EXPECT_EQ(used.size(), 4U);
  EXPECT_LT(a->imbalance(), 1.15);
  for (LaneId l = 0; l < net.lane_count(); ++l) {
    if (net.left[l] != kNoLane) {
      EXPECT_EQ(a->lane_part[l], a->lane_part[net.left[l]]);
    }
    if (net.intersection[l] < 0) continue;
    for (std::uint32_t q = net.pred_begin[l]; q < net.pred_begin[l + 1]; ++q) {
      EXPECT_EQ(a->lane_part[net.pred[q]], a->lane_part[l]) << "approach " << net.pred[q];
    }
  }
  // The cut: counted right, and far smaller than dealing the lanes out in turn would make.
  std::uint32_t links = 0;
  std::uint32_t dealt = 0;
  for (LaneId l = 0; l < net.lane_count(); ++l) {
    for (std::uint32_t q = net.succ_begin[l]; q < net.succ_begin[l + 1]; ++q) {
      links += a->lane_part[l] != a->lane_part[net.succ[q]];
      dealt += l % 4 != net.succ[q] % 4;
    }
  }
  EXPECT_EQ(links, a->cut_links);
  EXPECT_GT(a->cut_links, 0U);
  EXPECT_LT(a->cut_links * 4, dealt);
}

TEST(TrafficPartition, OnePartAndBadCounts) {
  const Network net = traffic::testing::make_grid(spec()).net;
  Result<Partition> one = partition_network(net, 1, 1);
  ASSERT_TRUE(one.ok());
  EXPECT_TRUE(std::all_of(one->lane_part.begin(), one->lane_part.end(),
                          [](std::uint16_t p) { return p == 0; }));
  EXPECT_EQ(one->cut_links, 0U);
  EXPECT_FALSE(partition_network(net, 0, 1).ok());
  EXPECT_FALSE(partition_network(net, 5000, 1).ok());
}

// Config::route_trips_later (simulate and serve --live set it, so that share() deals the
// initial trips' routing to the ranks): the same run as routing them in create(), whether
// share() routes them (one rank or two) or, without share(), the first tick.
TEST(TrafficShare, RoutingTheInitialTripsLaterChangesNothing) {
  constexpr int kTicks = 200;
  const RunResult now = run_alone(600, kTicks);
  const auto same = [&](const RunResult& run, const char* how) {
    EXPECT_EQ(run.figures, now.figures) << how;
    EXPECT_EQ(run.hashes, now.hashes) << how;
    EXPECT_EQ(run.sampled, now.sampled) << how;
  };
  same(run_alone(600, kTicks, true, false), "routed by the first tick");
  same(run_alone(600, kTicks, true, true), "routed by share() on one rank");
  const std::vector<RunResult> two = run_shared(2, 600, kTicks, kGatherEvery, true);
  EXPECT_EQ(two[0].figures, now.figures) << "routed by share() on two ranks";
  EXPECT_EQ(two[0].hashes, now.hashes) << "routed by share() on two ranks";
}

TEST(TrafficShare, SameStateEveryTickOnOneToThreeRanks) {
  constexpr int kTicks = 400;
  const RunResult alone = run_alone(600, kTicks);
  for (int np = 1; np <= 3; ++np) {
    const std::vector<RunResult> runs = run_shared(np, 600, kTicks);
    for (int r = 0; r < np; ++r) {
      const RunResult& run = runs[static_cast<std::size_t>(r)];
      ASSERT_EQ(run.figures.size(), alone.figures.size());
      for (std::size_t t = 0; t < alone.figures.size(); ++t) {
        ASSERT_EQ(run.figures[t], alone.figures[t])
            << "np " << np << " rank " << r << " tick " << t << ": the tick's figures";
      }
      ASSERT_EQ(run.hashes.size(), alone.hashes.size());
      for (std::size_t k = 0; k < alone.hashes.size(); ++k) {
        ASSERT_EQ(run.hashes[k], alone.hashes[k])
            << "np " << np << " rank " << r << " tick " << (k + 1) * kGatherEvery - 1;
      }
      EXPECT_EQ(run.placed, alone.placed) << "np " << np << " rank " << r << ": positions";
      // Rank 0 gets every vehicle's sample, the others none (the hash of nothing, 0).
      if (r == 0) {
        EXPECT_EQ(run.sampled, alone.sampled) << "np " << np << ": samples on rank 0";
      } else {
        EXPECT_EQ(run.sampled, std::vector<std::uint64_t>(alone.sampled.size(), 0))
            << "np " << np << " rank " << r << ": samples off rank 0";
      }
      EXPECT_EQ(run.stats.distance_km, alone.stats.distance_km);
      EXPECT_EQ(run.stats.mean_speed_mps, alone.stats.mean_speed_mps);
      EXPECT_EQ(run.stats.lane_changes, alone.stats.lane_changes);
      EXPECT_EQ(run.stats.junction_entries, alone.stats.junction_entries);
      EXPECT_EQ(run.stats.trips_completed, alone.stats.trips_completed);
      EXPECT_EQ(run.stats.reroutes, alone.stats.reroutes);
      EXPECT_EQ(run.stats.vehicles_driven, alone.stats.vehicles_driven);
    }
    EXPECT_LT(alone.stats.vehicles_driven, alone.stats.vehicle_updates * 9 / 10)
        << "off vehicles are skipped between their steps";
    EXPECT_GT(alone.stats.trips_completed, 0U) << "arrivals pooled across ranks are exercised";
    if (np == 1) continue;
    // Each vehicle update ran on exactly one rank; every rank had a share; vehicles crossed.
    const ShareStats& s = runs[0].share;
    std::uint64_t updates = 0;
    for (const std::uint64_t u : s.updates) {
      EXPECT_GT(u, alone.stats.vehicle_updates / (4U * static_cast<std::uint64_t>(np)));
      updates += u;
    }
    EXPECT_EQ(updates, alone.stats.vehicle_updates);
    EXPECT_GT(s.migrations, 0U);
    EXPECT_EQ(s.exchanges, static_cast<std::uint64_t>(kTicks));
    // A rank found the rows it holds by passing over every row only at the first tick and after
    // each gather (at ticks 99, 199 and 299); in the other ticks from the vehicles it drove.
    EXPECT_EQ(s.row_passes, static_cast<std::uint64_t>(kTicks / kGatherEvery));
    EXPECT_EQ(runs[1].share.updates, s.updates);
  }
}

// A vehicle crossing a cut is handed over once, at the next tick's start or by a gather before
// it: gathering every tick changes neither the simulation nor how many were handed over.
TEST(TrafficShare, GatheringEveryTickHandsTheSameVehiclesOver) {
  constexpr int kTicks = 200;
  const auto handed = [](const std::vector<RunResult>& runs) {
    std::uint64_t n = 0;
    for (const RunResult& r : runs)
      n += r.share.migrations;  // Each rank counts those it handed over.
    return n;
  };
  const std::vector<RunResult> sparse = run_shared(2, 600, kTicks);
  const std::vector<RunResult> every = run_shared(2, 600, kTicks, 1);
  EXPECT_GT(handed(sparse), 0U);
  EXPECT_EQ(handed(every), handed(sparse));
  EXPECT_EQ(every[0].figures, sparse[0].figures);
  EXPECT_EQ(every[0].hashes.back(), sparse[1].hashes.back());
  EXPECT_EQ(every[0].share.row_passes, static_cast<std::uint64_t>(kTicks));
  EXPECT_EQ(sparse[0].share.row_passes, 2U);
}

/// Every rank's run as one process's: each tick's figures, the state hashes and positions.
void expect_every_tick_alike(const std::vector<RunResult>& runs, const RunResult& alone) {
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const RunResult& run = runs[r];
    const std::string where = "np " + std::to_string(runs.size()) + " rank " + std::to_string(r);
    ASSERT_EQ(run.figures.size(), alone.figures.size()) << where;
    for (std::size_t t = 0; t < alone.figures.size(); ++t) {
      ASSERT_EQ(run.figures[t], alone.figures[t]) << where << " tick " << t;
    }
    EXPECT_EQ(run.hashes, alone.hashes) << where;
    EXPECT_EQ(run.placed, alone.placed) << where;
  }
}

// Roads of three lanes a side: a halo lane's vehicle may change onto a lane beyond the halo (the
// middle lane is in it as the walked lane's neighbour, the far one is not), whose queue must hold
// its ghost as one process's does.
TEST(TrafficShare, SameStateEveryTickOnThreeLaneRoads) {
  const LanesPerSide three(3);
  constexpr int kTicks = 300;
  const RunResult alone = run_alone(900, kTicks);
  EXPECT_GT(alone.stats.lane_changes, 50U);
  for (int np = 2; np <= 3; ++np) {
    expect_every_tick_alike(run_shared(np, 900, kTicks), alone);
  }
}

// The rows a rank holds are kept from tick to tick as vehicles are pooled (trips ended, or too
// many: the count lowered) and placed (the count raised, in large batches): the same every tick
// as one process, and a vehicle lost from them or kept twice would stop the job.
TEST(TrafficShare, ChangingTheVehicleCountKeepsEveryTickTheSame) {
  constexpr int kTicks = 300;
  const BeforeTick change = [](Simulation& sim, int t) {
    if (t == 40) sim.set_vehicle_count(250);
    if (t == 90) sim.set_vehicle_count(900);
    if (t == 160) sim.set_vehicle_count(500);
  };
  const RunResult alone = run_alone(600, kTicks, false, false, change);
  EXPECT_LT(alone.stats.vehicles_moving, 600U) << "the last change took effect";
  for (int np = 2; np <= 3; ++np) {
    const std::vector<RunResult> runs = run_shared(np, 600, kTicks, kGatherEvery, false, change);
    expect_every_tick_alike(runs, alone);
    // Lowering the count pools the surplus from a gathered state (twice), and the ticks after
    // those and the gathers at 99 and 199 pass over every row; the others do not (the gather
    // after tick 299 has no tick after it).
    EXPECT_EQ(runs[0].share.row_passes, 5U) << "np " << np;
  }
}

TEST(TrafficShare, APartitionMustFitTheRanksAndTheNetwork) {
  ThreadJob job(1);
  const ThreadRanks ranks(job, 0);
  Network net = traffic::testing::make_grid(spec()).net;
  Result<Partition> two = partition_network(net, 2, 1);
  ASSERT_TRUE(two.ok());
  Result<std::unique_ptr<Simulation>> sim = Simulation::create(std::move(net), config(50), {}, 1);
  ASSERT_TRUE(sim.ok());
  EXPECT_FALSE((*sim)->share(ranks, *two).ok());
  Partition other;
  other.lane_part.assign(3, 0);
  EXPECT_FALSE((*sim)->share(ranks, other).ok());
}

}  // namespace
