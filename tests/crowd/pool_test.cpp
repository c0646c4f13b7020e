// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "cityforge/core/rng.hpp"
#include "cityforge/crowd/lod.hpp"

namespace cityforge::crowd {
namespace {

std::vector<std::uint32_t> variants_of(const AgentPool& pool) {
  std::vector<std::uint32_t> v;
  for (std::uint32_t s = 0; s < pool.slots(); ++s)
    v.push_back(pool.variant_of(s));
  return v;
}

std::vector<std::uint32_t> agents_of(const AgentPool& pool) {
  std::vector<std::uint32_t> a;
  for (std::uint32_t s = 0; s < pool.slots(); ++s)
    a.push_back(pool.agent_in(s));
  return a;
}

/// Every seated agent is found by slot_of at its slot, and no agent holds two slots.
void expect_index_consistent(const AgentPool& pool) {
  std::set<std::uint32_t> seen;
  for (std::uint32_t s = 0; s < pool.slots(); ++s) {
    const std::uint32_t id = pool.agent_in(s);
    if (id == AgentPool::kFree) continue;
    EXPECT_TRUE(seen.insert(id).second) << "agent " << id << " holds two slots";
    EXPECT_EQ(pool.slot_of(id), s);
  }
}

TEST(AgentPool, StartsFreeAndDressedRoundRobin) {
  const AgentPool pool(7, 3, 1);
  EXPECT_EQ(pool.slots(), 7U);
  EXPECT_EQ(variants_of(pool), (std::vector<std::uint32_t>{0, 1, 2, 0, 1, 2, 0}));
  for (std::uint32_t s = 0; s < 7; ++s)
    EXPECT_EQ(pool.agent_in(s), AgentPool::kFree);
  EXPECT_EQ(pool.slot_of(0), AgentPool::kFree);
  const auto mix = pool.mix();
  ASSERT_EQ(mix.size(), 3U);
  EXPECT_DOUBLE_EQ(mix[0], 3.0 / 7);
  EXPECT_DOUBLE_EQ(mix[1], 2.0 / 7);
  EXPECT_DOUBLE_EQ(mix[2], 2.0 / 7);
  EXPECT_EQ(pool.assignments() + pool.mismatches() + pool.redresses(), 0U);
}

TEST(AgentPool, NearestGetSlotsAndKeepThemWhileNear) {
  AgentPool pool(3, 1, 1);
  const std::vector<double> target = {1.0};
  std::vector<PoolCandidate> c = {
      {10, 0, 5.0f}, {11, 0, 1.0f}, {12, 0, 9.0f}, {13, 0, 3.0f}, {14, 0, 7.0f}};
  pool.update(c, target);
  // Nearest three: 11 (1 m), 13 (3 m), 10 (5 m), seated nearest first into the lowest slots.
  EXPECT_EQ(agents_of(pool), (std::vector<std::uint32_t>{11, 13, 10}));
  EXPECT_EQ(pool.slot_of(12), AgentPool::kFree);
  EXPECT_EQ(pool.assignments(), 3U);
  // They reshuffle among themselves, still the nearest three: nobody moves.
  c = {{10, 0, 0.5f}, {11, 0, 4.0f}, {12, 0, 9.0f}, {13, 0, 2.0f}, {14, 0, 8.0f}};
  pool.update(c, target);
  EXPECT_EQ(agents_of(pool), (std::vector<std::uint32_t>{11, 13, 10}));
  EXPECT_EQ(pool.assignments(), 3U);
  // 13 walks away, 14 comes near: 14 takes 13's slot, the others stay put.
  c = {{10, 0, 0.5f}, {11, 0, 4.0f}, {12, 0, 9.0f}, {13, 0, 20.0f}, {14, 0, 1.0f}};
  pool.update(c, target);
  EXPECT_EQ(agents_of(pool), (std::vector<std::uint32_t>{11, 14, 10}));
  EXPECT_EQ(pool.slot_of(13), AgentPool::kFree);
  EXPECT_EQ(pool.slot_of(14), 1U);
  EXPECT_EQ(pool.assignments(), 4U);
  expect_index_consistent(pool);
  // Nobody wants a slot: all freed.
  pool.update({}, target);
  EXPECT_EQ(agents_of(pool), std::vector<std::uint32_t>(3, AgentPool::kFree));
  EXPECT_EQ(pool.slot_of(10), AgentPool::kFree);
}

TEST(AgentPool, EqualDistancesBreakTiesById) {
  AgentPool pool(2, 1, 1);
  const std::vector<PoolCandidate> c = {{9, 0, 10.0f}, {5, 0, 10.0f}, {3, 0, 10.0f}};
  pool.update(c, std::vector<double>{1.0});
  EXPECT_EQ(agents_of(pool), (std::vector<std::uint32_t>{3, 5}));
}

TEST(AgentPool, MatchingVariantPreferredElseMismatchCounted) {
  AgentPool pool(3, 3, 1);                     // Slots dressed 0, 1, 2.
  const std::vector<double> even = {1, 1, 1};  // Already the pool's mix: no re-dress.
  pool.update(std::vector<PoolCandidate>{{1, 2, 1.0f}}, even);
  EXPECT_EQ(pool.slot_of(1), 2U);
  EXPECT_EQ(pool.mismatches(), 0U);
  // A second variant-2 agent finds no free variant-2 slot: it takes one anyway, counted.
  pool.update(std::vector<PoolCandidate>{{1, 2, 1.0f}, {2, 2, 2.0f}}, even);
  EXPECT_EQ(pool.slot_of(1), 2U);
  EXPECT_NE(pool.slot_of(2), AgentPool::kFree);
  EXPECT_EQ(pool.mismatches(), 1U);
  EXPECT_EQ(pool.assignments(), 2U);
  EXPECT_EQ(pool.redresses(), 0U);
  // A variant-1 agent still finds its slot free.
  pool.update(std::vector<PoolCandidate>{{1, 2, 1.0f}, {2, 2, 2.0f}, {3, 1, 3.0f}}, even);
  EXPECT_EQ(pool.slot_of(3), 1U);
  EXPECT_EQ(pool.mismatches(), 1U);
}

TEST(AgentPool, NoFreeSlotNoRedress) {
  AgentPool pool(3, 3, 2);
  const std::vector<PoolCandidate> c = {{1, 0, 1.0f}, {2, 1, 2.0f}, {3, 2, 3.0f}};
  const std::vector<double> all_zero = {1, 0, 0};
  for (int i = 0; i < 5; ++i)
    pool.update(c, all_zero);
  EXPECT_EQ(pool.redresses(), 0U);
  EXPECT_EQ(variants_of(pool), (std::vector<std::uint32_t>{0, 1, 2}));
}

// Tolerance: a pool of S slots can only hold whole counts, and re-dressing stops when moving one
// more slot would not narrow the gap, so once settled every variant's share is within 1/S of its
// target share. Settling took at most S / K + 3 updates in every case tried (each re-dress
// narrows the spread of the per-variant excess).
TEST(AgentPool, MixSettlesOnTheTargetAtMostKChangesPerUpdate) {
  AgentPool pool(30, 3, 1);
  const std::vector<double> target = {50, 30, 20};
  // Ten variant-0 agents stay near the whole time; they keep their slots.
  std::vector<PoolCandidate> c;
  for (std::uint32_t i = 0; i < 10; ++i)
    c.push_back({100 + i, 0, 1.0f + static_cast<float>(i)});
  std::uint64_t before = pool.redresses();
  for (int step = 0; step < 40; ++step) {
    pool.update(c, target);
    EXPECT_LE(pool.redresses() - before, 1U) << "step " << step;
    before = pool.redresses();
    for (const PoolCandidate& a : c) {
      ASSERT_NE(pool.slot_of(a.id), AgentPool::kFree);
      EXPECT_EQ(pool.variant_of(pool.slot_of(a.id)), 0U);
    }
  }
  const auto mix = pool.mix();
  EXPECT_NEAR(mix[0], 0.5, 1.0 / 30 + 1e-12);
  EXPECT_NEAR(mix[1], 0.3, 1.0 / 30 + 1e-12);
  EXPECT_NEAR(mix[2], 0.2, 1.0 / 30 + 1e-12);
  EXPECT_EQ(pool.mismatches(), 0U);
  // Settled: further updates re-dress nothing.
  const std::uint64_t settled = pool.redresses();
  for (int step = 0; step < 5; ++step)
    pool.update(c, target);
  EXPECT_EQ(pool.redresses(), settled);
}

TEST(AgentPool, RandomTargetsSettleWithinOneSlot) {
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    Rng rng(seed, Stage::test, 21);
    const std::uint32_t slots = 5 + rng.below(40);
    const std::uint32_t variants = 1 + rng.below(6);
    const std::uint32_t k = 1 + rng.below(3);
    AgentPool pool(slots, variants, k);
    std::vector<double> target(variants);
    double total = 0;
    for (double& t : target)
      total += (t = rng.below(4) == 0 ? 0.0 : rng.uniform(0, 10));
    if (total == 0) target[0] = total = 1;
    std::uint64_t before = 0;
    for (std::uint32_t step = 0; step < slots / k + 3; ++step) {
      pool.update({}, target);
      EXPECT_LE(pool.redresses() - before, k);
      before = pool.redresses();
    }
    const auto mix = pool.mix();
    for (std::uint32_t v = 0; v < variants; ++v) {
      EXPECT_NEAR(mix[v], target[v] / total, 1.0 / slots + 1e-12)
          << "seed " << seed << " variant " << v;
    }
    // Settled pools stay put (no swapping a slot back and forth around a fractional target).
    for (int step = 0; step < 3; ++step)
      pool.update({}, target);
    EXPECT_EQ(pool.redresses(), before) << "seed " << seed;
  }
}

// A crowd of 200 walking agents offered each update: the seated set is always the nearest
// slots() (ties by id), agents chosen twice in a row keep their slot, re-dresses stay within K
// and assignments count exactly the newly seated.
TEST(AgentPool, RandomRunsKeepTheInvariants) {
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    Rng rng(seed, Stage::test, 31);
    const std::uint32_t slots = 10 + rng.below(30);
    const std::uint32_t variants = 1 + rng.below(5);
    const std::uint32_t k = 1 + rng.below(3);
    AgentPool pool(slots, variants, k);
    AgentPool twin(slots, variants, k);
    std::vector<PoolCandidate> all(200);
    for (std::uint32_t i = 0; i < all.size(); ++i) {
      all[i] = {i * 7 + 3, static_cast<std::uint16_t>(rng.below(variants)),
                static_cast<float>(rng.uniform(0, 100))};
    }
    std::map<std::uint32_t, std::uint32_t> last;  // id -> slot
    std::uint64_t redresses = 0;
    for (int step = 0; step < 30; ++step) {
      for (PoolCandidate& a : all) {
        a.distance_m = std::abs(a.distance_m + static_cast<float>(rng.uniform(-8, 8)));
      }
      // Only those within 60 m want a slot; sometimes fewer than there are slots.
      std::vector<PoolCandidate> want;
      for (const PoolCandidate& a : all) {
        if (a.distance_m < 60.0f) want.push_back(a);
      }
      std::vector<double> target(variants);
      for (const PoolCandidate& a : want)
        target[a.variant] += 1;
      const std::uint64_t assigned_before = pool.assignments();
      pool.update(want, target);
      twin.update(want, target);
      EXPECT_EQ(agents_of(pool), agents_of(twin));
      EXPECT_EQ(variants_of(pool), variants_of(twin));
      EXPECT_LE(pool.redresses() - redresses, k);
      redresses = pool.redresses();
      expect_index_consistent(pool);

      std::vector<PoolCandidate> sorted = want;
      std::sort(sorted.begin(), sorted.end(), [](const PoolCandidate& a, const PoolCandidate& b) {
        return a.distance_m != b.distance_m ? a.distance_m < b.distance_m : a.id < b.id;
      });
      if (sorted.size() > slots) sorted.resize(slots);
      std::map<std::uint32_t, std::uint32_t> now;
      std::uint64_t newly = 0;
      for (const PoolCandidate& a : sorted) {
        const std::uint32_t s = pool.slot_of(a.id);
        ASSERT_NE(s, AgentPool::kFree) << "seed " << seed << " step " << step;
        now[a.id] = s;
        const auto it = last.find(a.id);
        if (it != last.end()) {
          EXPECT_EQ(it->second, s) << "agent " << a.id << " changed slot while chosen";
        } else {
          ++newly;
        }
      }
      std::uint32_t seated = 0;
      for (std::uint32_t s = 0; s < slots; ++s)
        seated += pool.agent_in(s) != AgentPool::kFree;
      EXPECT_EQ(seated, sorted.size());
      EXPECT_EQ(pool.assignments() - assigned_before, newly);
      last = now;
    }
  }
}

}  // namespace
}  // namespace cityforge::crowd
