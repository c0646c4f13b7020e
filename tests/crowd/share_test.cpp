// SPDX-License-Identifier: Apache-2.0
// The crowd shared over ranks (Crowd::share): ranks here are threads of one process exchanging
// through the collectives MPI provides (ThreadRanks); tests/app/mpi_test.cpp runs the same
// over `mpirun`.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "cityforge/traffic/partition.hpp"
#include "crowd/environment_fixture.hpp"
#include "thread_ranks.hpp"

namespace cityforge::crowd::test {
namespace {

using cityforge::testing::ThreadJob;
using cityforge::testing::ThreadRanks;

struct RunSetup {
  bool lod = false;
  Navigation navigation = Navigation::roam;
  /// Over ranks, gather() (and compare the state) every this many ticks: 1, the crowd whole
  /// after every tick; more, ticks between that send each agent's update only to its halo.
  int gather_every = 1;
  bool keep_whole = false;  ///< Crowd::keep_whole: every update whole to every rank.
};

/// What a run ends with, and the state hash after every gathered tick.
struct RunResult {
  std::vector<std::uint64_t> hashes;
  Stats stats;
  CrowdShareStats share;
};

constexpr int kTicks = 300;

std::unique_ptr<Crowd> make_crowd(const RunSetup& s) {
  Config c;
  c.pedestrians = 700;
  c.lod.enabled = s.lod;
  c.navigation = s.navigation;
  Result<std::unique_ptr<Crowd>> made = Crowd::create(grid_with_roads(), c, 9);
  EXPECT_TRUE(made.ok()) << made.error().to_string();
  return std::move(*made);
}

/// Ticks with what changes the active set and the agents' behaviour on the way: a viewer that
/// walks across the grid (levels of detail), a flee event, a car on the pavement.
void run(Crowd& c, int gather_every, RunResult& out) {
  c.add_event(Event{.position = Vec2{140, 70}, .time_s = 8.0, .radius_m = 40.0f});
  for (int t = 0; t < kTicks; ++t) {
    Viewer viewer;
    viewer.position = Vec3{20.0 + t * 0.6, 30.0 + t * 0.4, 10};
    c.set_viewer(viewer);
    if (t >= 100 && t < 160) {
      Hazard h;
      h.position = Vec3{60, -10 + (t - 100) * 0.5, 0};
      h.velocity = Vec2{0, 12};
      c.set_hazards(std::span<const Hazard>(&h, 1));
    }
    if (t == 160) c.set_hazards({});
    c.tick();
    if ((t + 1) % gather_every == 0 || t + 1 == kTicks) {
      c.gather();
      out.hashes.push_back(c.state_hash());
    }
  }
  out.stats = c.stats();
  out.share = c.share_stats();
}

/// The traffic's partition of the grid for `np` ranks (METIS: a block's sidewalks on one rank).
std::vector<std::uint16_t> lane_parts(int np) {
  Result<traffic::Partition> cut =
      traffic::partition_network(grid_with_roads(), static_cast<std::uint32_t>(np), 5);
  EXPECT_TRUE(cut.ok()) << cut.error().to_string();
  return cut->lane_part;
}

RunResult run_alone(const RunSetup& s) {
  RunResult out;
  run(*make_crowd(s), s.gather_every, out);
  return out;
}

std::vector<RunResult> run_shared(int np, const RunSetup& s) {
  ThreadJob job(np);
  std::vector<RunResult> runs(static_cast<std::size_t>(np));
  // Cut once: METIS keeps its random state in globals, so threads must not cut at once (ranks
  // are processes, each cutting alone).
  const std::vector<std::uint16_t> parts = lane_parts(np);
  std::vector<std::thread> threads;
  for (int r = 0; r < np; ++r) {
    threads.emplace_back([&, r] {
      const ThreadRanks ranks(job, r);
      std::unique_ptr<Crowd> c = make_crowd(s);
      c->share(ranks, parts);
      c->keep_whole(s.keep_whole);
      run(*c, s.gather_every, runs[static_cast<std::size_t>(r)]);
    });
  }
  for (std::thread& t : threads)
    t.join();
  return runs;
}

TEST(CrowdShare, SameStateEveryTickOnOneToThreeRanks) {
  std::vector<RunSetup> setups;
  for (const int every : {1, 10}) {
    for (const bool lod : {false, true}) {
      for (const Navigation nav : {Navigation::roam, Navigation::goals}) {
        setups.push_back(RunSetup{lod, nav, every, false});
        if (every == 1) setups.push_back(RunSetup{lod, nav, every, true});
      }
    }
  }
  for (const RunSetup& s : setups) {
    SCOPED_TRACE(::testing::Message()
                 << "lod " << s.lod << ", goals " << (s.navigation == Navigation::goals)
                 << ", gathered every " << s.gather_every << " ticks, keep whole " << s.keep_whole);
    const RunResult alone = run_alone(s);
    EXPECT_GT(alone.stats.lane_transitions, 100U);
    EXPECT_GT(alone.stats.neighbour_queries, 1000U);
    if (s.navigation == Navigation::goals && !s.lod) {
      EXPECT_GT(alone.stats.goals_reached, 0U);
    }
    EXPECT_EQ(alone.share.exchanges, 0U);
    for (int np = 1; np <= 3; ++np) {
      const std::vector<RunResult> runs = run_shared(np, s);
      std::uint64_t updated = 0;
      std::uint64_t arrived = 0;
      std::uint64_t halo = 0;
      for (int r = 0; r < np; ++r) {
        const RunResult& got = runs[static_cast<std::size_t>(r)];
        ASSERT_EQ(got.hashes.size(), alone.hashes.size());
        for (std::size_t t = 0; t < got.hashes.size(); ++t) {
          ASSERT_EQ(got.hashes[t], alone.hashes[t])
              << np << " ranks, rank " << r << ": the crowd differs after tick " << t;
        }
        EXPECT_EQ(got.stats.neighbour_queries, alone.stats.neighbour_queries);
        EXPECT_EQ(got.stats.goals_reached, alone.stats.goals_reached);
        EXPECT_EQ(got.stats.lane_transitions, alone.stats.lane_transitions);
        EXPECT_EQ(got.stats.crossings, alone.stats.crossings);
        EXPECT_EQ(got.stats.jaywalks, alone.stats.jaywalks);
        EXPECT_EQ(got.stats.hazard_reactions, alone.stats.hazard_reactions);
        EXPECT_EQ(got.stats.flee_reactions, alone.stats.flee_reactions);
        EXPECT_EQ(got.share.exchanges, np > 1 ? static_cast<std::uint64_t>(kTicks) : 0U);
        if (np > 1) {
          // Each rank updates the agents on its blocks (with levels of detail only those near
          // the viewer, whose path may miss a rank's blocks).
          if (!s.lod) {
            EXPECT_GT(got.share.updated, 0U) << "rank " << r;
          }
          EXPECT_GT(got.share.sent_bytes, 0U);
          // Gathered every tick: a whole exchange after each; else fewer (the ticks with
          // levels of detail, the event, the hazard and the gathers need them).
          if (s.keep_whole) {
            EXPECT_EQ(got.share.syncs, 0U);  // Whole after every tick's one exchange.
            EXPECT_EQ(got.share.halo_items, 0U);
          } else if (s.gather_every == 1) {
            EXPECT_EQ(got.share.syncs, static_cast<std::uint64_t>(kTicks));
          } else {
            EXPECT_LT(got.share.syncs, static_cast<std::uint64_t>(kTicks) / 2);
            EXPECT_GT(got.share.syncs, static_cast<std::uint64_t>(kTicks) / s.gather_every - 1);
          }
        }
        updated += got.share.updated;
        arrived += got.share.arrived;
        halo += got.share.halo_items;
      }
      EXPECT_EQ(updated, alone.share.updated) << np << " ranks";
      // Some walk from one rank's lanes onto another's (and are updated there from then on);
      // with levels of detail only the few near the viewer are updated this way.
      if (np > 1 && !s.lod) {
        EXPECT_GT(arrived, 0U) << np << " ranks";
        if (!s.keep_whole) {
          EXPECT_GT(halo, 0U) << np << " ranks";  // Agents near another rank's blocks.
        }
      }
    }
  }
}

// The halo (which ranks get an agent's map point) counts on every body's centre keeping within
// its lane's half width (plus a margin): checked on every agent after every tick, through the
// flee event and the hazard that push them aside.
TEST(CrowdShare, BodiesKeepWithinTheirLanesHalfWidth) {
  std::unique_ptr<Crowd> c = make_crowd(RunSetup{});
  const traffic::Network& net = grid_with_roads();
  c->add_event(Event{.position = Vec2{140, 70}, .time_s = 8.0, .radius_m = 40.0f});
  double widest = 0;
  for (int t = 0; t < kTicks; ++t) {
    if (t >= 100 && t < 160) {
      Hazard h;
      h.position = Vec3{60, -10 + (t - 100) * 0.5, 0};
      h.velocity = Vec2{0, 12};
      c->set_hazards(std::span<const Hazard>(&h, 1));
    }
    if (t == 160) c->set_hazards({});
    c->tick();
    for (const PedestrianView& v : c->views()) {
      if (v.lane == kNoLane) continue;
      const double half = 0.5 * net.width_m[v.lane];
      widest = std::max(widest, std::abs(static_cast<double>(v.lateral_m)) / half);
      ASSERT_LE(std::abs(v.lateral_m), half) << "pedestrian " << v.id << " after tick " << t;
    }
  }
  EXPECT_GT(widest, 0.3);  // They do use the width.
}

TEST(CrowdShare, PedestrianLanesFollowTheirBlocksRank) {
  const traffic::Network& net = grid_with_roads();
  for (const std::uint32_t np : {2U, 3U, 4U}) {
    Result<traffic::Partition> cut = traffic::partition_network(net, np, 5);
    ASSERT_TRUE(cut.ok()) << cut.error().to_string();
    const std::vector<std::uint16_t>& part = cut->lane_part;
    // Each block's eight sidewalks (the fixture adds them block by block) on one rank, and
    // every rank with a block (the grid's four roads leave METIS little room to balance).
    std::vector<int> blocks(np, 0);
    for (int b = 0; b < kBlocks * kBlocks; ++b) {
      const auto first = static_cast<LaneId>(8 * b);
      for (LaneId l = first; l < first + 8; ++l) {
        ASSERT_TRUE(net.is(l, roads::kSidewalk));
        EXPECT_EQ(part[l], part[first]) << np << " ranks, block " << b << ", lane " << l;
      }
      blocks[part[first]] += 1;
    }
    for (std::uint32_t r = 0; r < np; ++r) {
      EXPECT_GE(blocks[r], 1) << np << " ranks: rank " << r << " has " << blocks[r] << " blocks";
      EXPECT_GT(cut->part_pedestrians[r], 0.0);
    }
  }
}

}  // namespace
}  // namespace cityforge::crowd::test
