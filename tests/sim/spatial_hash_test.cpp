// SPDX-License-Identifier: Apache-2.0
#include "cityforge/sim/spatial_hash.hpp"

#include <gtest/gtest.h>
#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <span>
#include <thread>
#include <vector>

#include "cityforge/core/rng.hpp"

namespace cityforge::sim {
namespace {

std::vector<Vec2> random_points(std::uint32_t n, float extent_m, std::uint64_t seed) {
  Rng rng(seed, Stage::test, 1);
  std::vector<Vec2> pts(n);
  for (Vec2& p : pts)
    p = Vec2{rng.uniform(-extent_m, extent_m), rng.uniform(-extent_m, extent_m)};
  return pts;
}

// The cell of a point as the map computes it (its float position times the inverse cell).
std::array<std::int64_t, 2> cell_of(Vec2 p, float cell) {
  const double inv = 1.0 / static_cast<double>(cell);
  return {
      static_cast<std::int64_t>(std::floor(static_cast<double>(static_cast<float>(p.y)) * inv)),
      static_cast<std::int64_t>(std::floor(static_cast<double>(static_cast<float>(p.x)) * inv))};
}

// Point ids within r of c (float distances, as the map tests them), in query order: by cell
// (rows upwards, then along the row), by id within a cell.
std::vector<std::uint32_t> brute(const std::vector<Vec2>& pts, Vec2 c, float r, float cell) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t i = 0; i < pts.size(); ++i) {
    const auto dx = static_cast<float>(pts[i].x) - static_cast<float>(c.x);
    const auto dy = static_cast<float>(pts[i].y) - static_cast<float>(c.y);
    if (dx * dx + dy * dy <= r * r) out.push_back(i);
  }
  std::stable_sort(out.begin(), out.end(), [&](std::uint32_t a, std::uint32_t b) {
    return cell_of(pts[a], cell) < cell_of(pts[b], cell);
  });
  return out;
}

TEST(SpatialHash, QueriesMatchBruteForceAfterParallelInserts) {
  const auto pts = random_points(20000, 60.0f, 5);  // Dense: ~1.4 agents per square metre.
  SpatialHash hash(1.5f, 20000, 16384);             // Fewer buckets than cells: collisions.
  tbb::parallel_for(std::uint32_t{0}, static_cast<std::uint32_t>(pts.size()),
                    [&](std::uint32_t i) { EXPECT_TRUE(hash.insert(i, pts[i])); });
  std::vector<std::uint32_t> got;
  hash.query(pts[0], 1.5f, got);
  EXPECT_TRUE(got.empty()) << "queries read the previous tick's map";
  hash.swap();
  EXPECT_EQ(hash.size(), pts.size());
  const auto centres = random_points(300, 65.0f, 9);
  for (const Vec2 c : centres) {
    for (const float r : {0.5f, 1.5f, 4.0f}) {
      hash.query(c, r, got);
      EXPECT_EQ(got, brute(pts, c, r, 1.5f)) << c.x << "," << c.y << " r " << r;
    }
  }
}

TEST(SpatialHash, InsertsDuringQueriesGoToTheNextTick) {
  const auto a = random_points(500, 20.0f, 1);
  const auto b = random_points(500, 20.0f, 2);
  SpatialHash hash(2.0f, 1000, 1024);
  for (std::uint32_t i = 0; i < a.size(); ++i)
    ASSERT_TRUE(hash.insert(i, a[i]));
  hash.swap();
  // Tick 2: inserts of b while queries read a, from many threads at once.
  std::vector<std::vector<std::uint32_t>> seen(a.size());
  tbb::parallel_for(std::uint32_t{0}, static_cast<std::uint32_t>(a.size()), [&](std::uint32_t i) {
    hash.insert(1000 + i, b[i]);
    hash.query(a[i], 3.0f, seen[i]);
  });
  for (std::uint32_t i = 0; i < a.size(); ++i)
    EXPECT_EQ(seen[i], brute(a, a[i], 3.0f, 2.0f));
  hash.swap();
  std::vector<std::uint32_t> got;
  hash.query(b[0], 3.0f, got);
  std::vector<std::uint32_t> want = brute(b, b[0], 3.0f, 2.0f);
  for (std::uint32_t& id : want)
    id += 1000;
  EXPECT_EQ(got, want) << "a is gone after the second swap";
}

TEST(SpatialHash, FullMapRefusesAndNegativeCoordinatesWork) {
  SpatialHash hash(1.0f, 3, 4);
  EXPECT_TRUE(hash.insert(0, Vec2{-0.5, -0.5}));
  EXPECT_TRUE(hash.insert(1, Vec2{-1.5, 0.2}));
  EXPECT_TRUE(hash.insert(2, Vec2{100.0, 100.0}));
  EXPECT_FALSE(hash.insert(3, Vec2{0.0, 0.0}));
  hash.swap();
  EXPECT_EQ(hash.size(), 3U);
  std::vector<std::uint32_t> got;
  hash.query(Vec2{-1.0, 0.0}, 0.8f, got);
  EXPECT_EQ(got, (std::vector<std::uint32_t>{0, 1}));
  hash.swap();
  hash.swap();
  EXPECT_EQ(hash.size(), 0U);
  hash.query(Vec2{-1.0, 0.0}, 0.8f, got);
  EXPECT_TRUE(got.empty());
}

std::vector<SpatialHash::Hit> brute_hits(const std::vector<Vec2>& pts, const std::vector<Vec2>& vel,
                                         Vec2 c, float r, float cell) {
  std::vector<SpatialHash::Hit> out;
  for (const std::uint32_t i : brute(pts, c, r, cell)) {
    out.push_back({i, static_cast<float>(pts[i].x), static_cast<float>(pts[i].y),
                   static_cast<float>(vel[i].x), static_cast<float>(vel[i].y)});
  }
  return out;
}

bool same_hits(const std::vector<SpatialHash::Hit>& a, const std::vector<SpatialHash::Hit>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].id != b[i].id || a[i].x != b[i].x || a[i].y != b[i].y || a[i].vx != b[i].vx ||
        a[i].vy != b[i].vy)
      return false;
  }
  return true;
}

TEST(SpatialHash, HitQueryReturnsExactPositionsAndVelocities) {
  SpatialHash hash(1.5f, 8, 8);
  const std::vector<Vec2> pts = {{0.1, 0.2}, {-0.7, 1.1}, {0.3, -0.4}, {30.0, 30.0}};
  const std::vector<Vec2> vel = {{1.25, -0.5}, {0.0, 1.5}, {-2.0, 0.75}, {9.0, 9.0}};
  for (const std::uint32_t i : {2U, 0U, 3U, 1U})
    ASSERT_TRUE(hash.insert(10 + i, pts[i], vel[i]));
  hash.swap();
  std::vector<SpatialHash::Hit> got;
  hash.query(Vec2{0.0, 0.0}, 2.0f, got);
  ASSERT_EQ(got.size(), 3U);
  // In query order: the row of cells below (item 2's), then the row of the centre, from the
  // left: item 1's cell (-1, 0), then item 0's (0, 0).
  const std::array<std::uint32_t, 3> order = {2, 1, 0};
  for (std::uint32_t k = 0; k < 3; ++k) {
    const std::uint32_t i = order[k];
    EXPECT_EQ(got[k].id, 10 + i);
    EXPECT_EQ(got[k].x, static_cast<float>(pts[i].x));
    EXPECT_EQ(got[k].y, static_cast<float>(pts[i].y));
    EXPECT_EQ(got[k].vx, static_cast<float>(vel[i].x));
    EXPECT_EQ(got[k].vy, static_cast<float>(vel[i].y));
  }
  // The ids-only insert stores a zero velocity.
  SpatialHash still(1.0f, 2, 2);
  ASSERT_TRUE(still.insert(7, Vec2{-3.0, 4.0}));
  still.swap();
  still.query(Vec2{-3.0, 4.0}, 0.0f, got);
  ASSERT_EQ(got.size(), 1U);
  EXPECT_EQ(got[0].id, 7U);
  EXPECT_EQ(got[0].x, -3.0f);
  EXPECT_EQ(got[0].y, 4.0f);
  EXPECT_EQ(got[0].vx, 0.0f);
  EXPECT_EQ(got[0].vy, 0.0f);
}

TEST(SpatialHash, BothQueriesMatchBruteForceForManyCellsAndRadii) {
  for (const float cell : {0.5f, 1.5f, 4.0f}) {
    auto pts = random_points(3000, 25.0f, 11);  // Around the origin: negative coordinates.
    // Points exactly on cell borders and corners.
    for (int i = -6; i <= 6; ++i) {
      pts.push_back(Vec2{i * static_cast<double>(cell), 0.0});
      pts.push_back(Vec2{i * static_cast<double>(cell), -i * static_cast<double>(cell)});
      pts.push_back(Vec2{0.5 * cell, i * static_cast<double>(cell)});
    }
    const auto vel = random_points(static_cast<std::uint32_t>(pts.size()), 2.0f, 12);
    // Few buckets: many cells share one, so the cell check matters.
    SpatialHash hash(cell, static_cast<std::uint32_t>(pts.size()), 512);
    for (std::uint32_t i = 0; i < pts.size(); ++i)
      ASSERT_TRUE(hash.insert(i, pts[i], vel[i]));
    hash.swap();
    auto centres = random_points(150, 28.0f, 13);
    for (int i = -3; i <= 3; ++i) {  // Centres on borders too, with radii of whole cells.
      centres.push_back(Vec2{i * static_cast<double>(cell), i * static_cast<double>(cell)});
      centres.push_back(Vec2{i * static_cast<double>(cell), 0.5});
    }
    std::vector<std::uint32_t> ids;
    std::vector<SpatialHash::Hit> hits;
    for (const Vec2 c : centres) {
      for (const float r : {0.0f, 0.3f, cell * 0.5f, cell, 1.5f, cell * 1.7f, cell * 3.0f, 9.0f}) {
        hash.query(c, r, ids);
        EXPECT_EQ(ids, brute(pts, c, r, cell))
            << "cell " << cell << " at " << c.x << "," << c.y << " r " << r;
        hash.query(c, r, hits);
        EXPECT_TRUE(same_hits(hits, brute_hits(pts, vel, c, r, cell)))
            << "cell " << cell << " at " << c.x << "," << c.y << " r " << r;
      }
    }
  }
}

TEST(SpatialHash, ParallelInsertsGiveTheSameResultsAsSerial) {
  const auto pts = random_points(30000, 80.0f, 21);
  const auto vel = random_points(30000, 1.5f, 22);
  SpatialHash serial(1.5f, 30000, 32768);
  SpatialHash parallel(1.5f, 30000, 32768);
  for (std::uint32_t i = 0; i < pts.size(); ++i)
    ASSERT_TRUE(serial.insert(i, pts[i], vel[i]));
  std::atomic<std::uint32_t> refused{0};
  tbb::parallel_for(std::uint32_t{0}, static_cast<std::uint32_t>(pts.size()), [&](std::uint32_t i) {
    if (!parallel.insert(i, pts[i], vel[i])) refused.fetch_add(1);
  });
  EXPECT_EQ(refused.load(), 0U);
  serial.swap();
  parallel.swap();
  EXPECT_EQ(serial.size(), parallel.size());
  std::vector<std::uint32_t> a;
  std::vector<std::uint32_t> b;
  std::vector<SpatialHash::Hit> ha;
  std::vector<SpatialHash::Hit> hb;
  std::size_t total = 0;
  for (std::uint32_t i = 0; i < pts.size(); i += 7) {
    serial.query(pts[i], 1.5f, a);
    parallel.query(pts[i], 1.5f, b);
    ASSERT_EQ(a, b) << "agent " << i;
    serial.query(pts[i], 1.5f, ha);
    parallel.query(pts[i], 1.5f, hb);
    ASSERT_TRUE(same_hits(ha, hb)) << "agent " << i;
    total += a.size();
  }
  EXPECT_GT(total, pts.size() / 7) << "the queries found neighbours, not just themselves";
}

// Read copies (set_read_copies): queries from two threads over maps that change every tick
// give the brute force's answer for that tick; a copy left from an earlier tick would not.
TEST(SpatialHash, ThreadsReadingTheirOwnCopiesSeeEveryTicksMap) {
  const tbb::global_control two(tbb::global_control::max_allowed_parallelism, 2);
  SpatialHash hash(1.5f, 4000, 4096);
  hash.set_read_copies(2);
  std::atomic<std::uint32_t> wrong{0};
  std::atomic<std::uint64_t> found{0};
  for (std::uint64_t tick = 0; tick < 12; ++tick) {
    const auto pts = random_points(4000, 40.0f, 100 + tick);  // Everyone elsewhere each tick.
    for (std::uint32_t i = 0; i < pts.size(); ++i)
      ASSERT_TRUE(hash.insert(i, pts[i], Vec2{0, 0}));
    hash.swap();
    tbb::parallel_for(tbb::blocked_range<std::uint32_t>(0, 4000, 16),
                      [&](const tbb::blocked_range<std::uint32_t>& r) {
                        std::vector<std::uint32_t> got;
                        for (std::uint32_t i = r.begin(); i != r.end(); ++i) {
                          hash.query(pts[i], 1.5f, got);
                          if (got != brute(pts, pts[i], 1.5f, 1.5f)) wrong.fetch_add(1);
                          found.fetch_add(got.size());
                        }
                      });
  }
  EXPECT_EQ(wrong.load(), 0U);
  EXPECT_GT(found.load(), 12U * 4000U) << "the queries found neighbours, not just themselves";
  if (std::thread::hardware_concurrency() >= 2) {
    EXPECT_GT(hash.copies_made(), 0U) << "the second thread never read a copy of its own";
  }
}

// The crowd's configuration (a cell of the query radius, a bucket per item): the query's cells
// nearly always have buckets of their own, where the scan tests distances only; the rare rows
// whose buckets overlap take the checked scan. Both must give the brute force's answer.
TEST(SpatialHash, CrowdSizedMapMatchesBruteForce) {
  const auto pts = random_points(20000, 60.0f, 31);  // 1.4 agents a square metre.
  SpatialHash hash(1.5f, 20000, 32768);
  for (std::uint32_t i = 0; i < pts.size(); ++i)
    ASSERT_TRUE(hash.insert(i, pts[i]));
  hash.swap();
  std::vector<std::uint32_t> ids;
  std::size_t found = 0;
  for (std::uint32_t i = 0; i < pts.size(); i += 3) {
    hash.query(pts[i], 1.5f, ids);
    ASSERT_EQ(ids, brute(pts, pts[i], 1.5f, 1.5f)) << "agent " << i;
    found += ids.size();
  }
  EXPECT_GT(found, 8 * (pts.size() / 3)) << "about ten neighbours a query";
}

// An id inserted more than once comes back once per insert, in query order: the same id twice in
// a cell by its position's bits, whatever order the inserts came in.
TEST(SpatialHash, RepeatedIdsComeBackOncePerInsert) {
  const std::vector<std::pair<std::uint32_t, Vec2>> items = {
      {7, {0.1, 0.1}}, {3, {0.2, 0.3}},   {7, {0.4, -0.2}}, {9, {-0.3, 0.2}},
      {3, {0.0, 0.5}}, {1, {-0.5, -0.5}}, {8, {5.0, 5.0}}};
  for (const bool reversed : {false, true}) {
    SpatialHash hash(1.0f, 64, 64);
    for (std::size_t k = 0; k < items.size(); ++k) {
      const auto& [id, p] = items[reversed ? items.size() - 1 - k : k];
      ASSERT_TRUE(hash.insert(id, p, Vec2{p.y, -p.x}));
    }
    hash.swap();
    std::vector<std::uint32_t> ids;
    hash.query(Vec2{0, 0}, 1.0f, ids);
    // Row y -1: cells x -1 (id 1), 0 (id 7); row y 0: cells x -1 (id 9), 0 (3, 3, 7).
    EXPECT_EQ(ids, (std::vector<std::uint32_t>{1, 7, 9, 3, 3, 7})) << "reversed " << reversed;
    std::vector<SpatialHash::Hit> hits;
    hash.query(Vec2{0, 0}, 1.0f, hits);
    ASSERT_EQ(hits.size(), 6U);
    for (std::size_t i = 0; i < hits.size(); ++i)
      EXPECT_EQ(hits[i].id, ids[i]);
    // The two 3s in cell (0, 0): x 0.0 before x 0.2 (their bits), in either insert order.
    EXPECT_EQ(hits[3].x, 0.0f);
    EXPECT_EQ(hits[3].vx, 0.5f);
    EXPECT_EQ(hits[4].x, 0.2f);
    EXPECT_EQ(hits[4].vy, -0.2f);
  }
}

TEST(SpatialHash, SwapEmptiesTheOldMapEveryTick) {
  SpatialHash hash(1.5f, 2000, 256);  // Few buckets: heads are reused from tick to tick.
  std::vector<std::uint32_t> got;
  std::vector<Vec2> last;
  for (std::uint32_t tick = 0; tick < 40; ++tick) {
    // Odd ticks insert nothing: their map must read as empty after the swap.
    const auto pts =
        tick % 2 == 0 ? random_points(1000 + tick, 15.0f, 100 + tick) : std::vector<Vec2>{};
    for (std::uint32_t i = 0; i < pts.size(); ++i)
      ASSERT_TRUE(hash.insert(i, pts[i]));
    // Still last tick's map until the swap.
    EXPECT_EQ(hash.size(), last.size());
    hash.query(Vec2{1.0, -2.0}, 4.0f, got);
    EXPECT_EQ(got, brute(last, Vec2{1.0, -2.0}, 4.0f, 1.5f)) << "tick " << tick;
    hash.swap();
    EXPECT_EQ(hash.size(), pts.size());
    for (const Vec2 c : random_points(20, 16.0f, 500 + tick)) {
      hash.query(c, 3.0f, got);
      EXPECT_EQ(got, brute(pts, c, 3.0f, 1.5f)) << "tick " << tick;
    }
    last = pts;
  }
}

TEST(SpatialHash, FullMapInsertReturnsFalseFromManyThreads) {
  const auto pts = random_points(5000, 10.0f, 31);
  SpatialHash hash(1.0f, 1000, 1024);
  std::vector<char> accepted(pts.size(), 0);
  tbb::parallel_for(std::uint32_t{0}, static_cast<std::uint32_t>(pts.size()),
                    [&](std::uint32_t i) { accepted[i] = hash.insert(i, pts[i]) ? 1 : 0; });
  std::vector<std::uint32_t> kept_ids;
  for (std::uint32_t i = 0; i < pts.size(); ++i) {
    if (accepted[i] != 0) kept_ids.push_back(i);
  }
  EXPECT_EQ(kept_ids.size(), 1000U) << "exactly max_items inserts succeed";
  std::stable_sort(kept_ids.begin(), kept_ids.end(), [&](std::uint32_t a, std::uint32_t b) {
    return cell_of(pts[a], 1.0f) < cell_of(pts[b], 1.0f);  // Query order.
  });
  EXPECT_FALSE(hash.insert(99999, Vec2{0, 0}));
  hash.swap();
  EXPECT_EQ(hash.size(), 1000U);
  std::vector<std::uint32_t> got;
  hash.query(Vec2{0, 0}, 100.0f, got);
  EXPECT_EQ(got, kept_ids) << "the accepted items, and only those, are in the map";
  // The next tick has room again; a run of inserts that does not fit adds its first items.
  EXPECT_TRUE(hash.insert(0, Vec2{0, 0}));
  const std::span<const Vec2> run(pts);
  EXPECT_EQ(hash.insert(10, run.subspan(0, 990), run.subspan(1000, 990)), 990U);
  EXPECT_EQ(hash.insert(2000, run.subspan(0, 20), run.subspan(0, 20)), 9U);
  EXPECT_EQ(hash.insert(3000, run.subspan(0, 5), run.subspan(0, 5)), 0U);
  hash.swap();
  std::vector<SpatialHash::Hit> hits;
  hash.query(Vec2{0, 0}, 100.0f, hits);
  ASSERT_EQ(hits.size(), 1000U);
  std::stable_sort(hits.begin(), hits.end(),
                   [](const auto& a, const auto& b) { return a.id < b.id; });
  EXPECT_EQ(hits[0].id, 0U);
  for (std::uint32_t i = 1; i < 991; ++i) {
    EXPECT_EQ(hits[i].id, 10 + i - 1);
    EXPECT_EQ(hits[i].x, static_cast<float>(pts[i - 1].x));
    EXPECT_EQ(hits[i].vy, static_cast<float>(pts[1000 + i - 1].y));
  }
  EXPECT_EQ(hits[991].id, 2000U);
  EXPECT_EQ(hits[999].id, 2008U);
}

}  // namespace
}  // namespace cityforge::sim
