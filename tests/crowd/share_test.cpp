// SPDX-License-Identifier: Apache-2.0
// The crowd shared over ranks (Crowd::share): ranks here are threads of one process exchanging
// through the collectives MPI provides (ThreadRanks); tests/app/mpi_test.cpp runs the same
// over `mpirun`.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "crowd/environment_fixture.hpp"
#include "thread_ranks.hpp"

namespace cityforge::crowd::test {
namespace {

using cityforge::testing::ThreadJob;
using cityforge::testing::ThreadRanks;

struct RunSetup {
  bool lod = false;
  Navigation navigation = Navigation::roam;
};

/// What a run ends with, and the state hash after every tick.
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
  Result<std::unique_ptr<Crowd>> made = Crowd::create(grid(), c, 9);
  EXPECT_TRUE(made.ok()) << made.error().to_string();
  return std::move(*made);
}

/// Ticks with what changes the active set and the agents' behaviour on the way: a viewer that
/// walks across the grid (levels of detail), a flee event, a car on the pavement.
void run(Crowd& c, RunResult& out) {
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
    out.hashes.push_back(c.state_hash());
  }
  out.stats = c.stats();
  out.share = c.share_stats();
}

RunResult run_alone(const RunSetup& s) {
  RunResult out;
  run(*make_crowd(s), out);
  return out;
}

std::vector<RunResult> run_shared(int np, const RunSetup& s) {
  ThreadJob job(np);
  std::vector<RunResult> runs(static_cast<std::size_t>(np));
  std::vector<std::thread> threads;
  for (int r = 0; r < np; ++r) {
    threads.emplace_back([&, r] {
      const ThreadRanks ranks(job, r);
      std::unique_ptr<Crowd> c = make_crowd(s);
      c->share(ranks);
      run(*c, runs[static_cast<std::size_t>(r)]);
    });
  }
  for (std::thread& t : threads)
    t.join();
  return runs;
}

TEST(CrowdShare, SameStateEveryTickOnOneToThreeRanks) {
  for (const RunSetup s : {RunSetup{false, Navigation::roam}, RunSetup{true, Navigation::roam},
                           RunSetup{false, Navigation::goals}, RunSetup{true, Navigation::goals}}) {
    SCOPED_TRACE(::testing::Message()
                 << "lod " << s.lod << ", goals " << (s.navigation == Navigation::goals));
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
        EXPECT_EQ(got.share.exchanges, np > 1 ? static_cast<std::uint64_t>(kTicks) : 0U);
        if (np > 1) {
          EXPECT_GT(got.share.updated, alone.share.updated / (2U * np)) << "rank " << r;
          EXPECT_GT(got.share.sent_bytes, 0U);
        }
        updated += got.share.updated;
      }
      EXPECT_EQ(updated, alone.share.updated) << np << " ranks";
    }
  }
}

}  // namespace
}  // namespace cityforge::crowd::test
