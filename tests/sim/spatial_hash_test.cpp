// SPDX-License-Identifier: Apache-2.0
#include "cityforge/sim/spatial_hash.hpp"

#include <gtest/gtest.h>
#include <tbb/parallel_for.h>

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

std::vector<std::uint32_t> brute(const std::vector<Vec2>& pts, Vec2 c, float r) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t i = 0; i < pts.size(); ++i) {
    const auto dx = static_cast<float>(pts[i].x) - static_cast<float>(c.x);
    const auto dy = static_cast<float>(pts[i].y) - static_cast<float>(c.y);
    if (dx * dx + dy * dy <= r * r) out.push_back(i);
  }
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
      EXPECT_EQ(got, brute(pts, c, r)) << c.x << "," << c.y << " r " << r;
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
    EXPECT_EQ(seen[i], brute(a, a[i], 3.0f));
  hash.swap();
  std::vector<std::uint32_t> got;
  hash.query(b[0], 3.0f, got);
  std::vector<std::uint32_t> want = brute(b, b[0], 3.0f);
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

}  // namespace
}  // namespace cityforge::sim
