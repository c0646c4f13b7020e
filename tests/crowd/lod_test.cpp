// SPDX-License-Identifier: Apache-2.0
#include "cityforge/crowd/lod.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <tuple>
#include <vector>

#include "cityforge/core/rng.hpp"

namespace cityforge::crowd {
namespace {

const Viewer kOrigin{Vec3{0, 0, 0}, 0.0};  // Looking along +x.

std::vector<Lod> assign_fresh(LodAssigner& a, const std::vector<Vec3>& pos, const Viewer& v) {
  std::vector<Lod> levels(pos.size(), Lod::off);
  a.assign(pos, v, levels);
  return levels;
}

/// The header's rule written plainly (acos bearings, a full sort per level) to check the fast
/// path against. Ranks by float distance like the implementation (ties then by index).
std::vector<Lod> reference_assign(const LodConfig& c, const std::vector<Vec3>& pos, const Viewer& v,
                                  const std::vector<Lod>& before) {
  const std::size_t n = pos.size();
  std::vector<Lod> out(n, Lod::high);
  if (!c.enabled) return out;
  const double limit[3] = {c.high_m, c.medium_m, c.low_m};
  std::vector<float> dist(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Vec3 d = pos[i] - v.position;
    const double dd = std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
    dist[i] = static_cast<float>(dd);
    double bearing_deg = 0;
    if (d.x != 0 || d.y != 0) {
      const double rel = std::atan2(d.y, d.x) - v.yaw_rad;
      bearing_deg = std::abs(std::remainder(rel, 2 * std::numbers::pi)) * 180 / std::numbers::pi;
    }
    const auto cur = static_cast<int>(before[i]);
    int wanted = 3;
    for (int l = 0; l < 3; ++l) {
      const bool kept = cur <= l;
      if (!(dd < limit[l] + (kept ? c.hysteresis_m : 0.0f))) continue;
      const double half = double{c.cone_half_angle_deg} + (kept ? c.hysteresis_deg : 0.0f);
      if (l < 2 && dd >= c.near_m && bearing_deg > half) continue;
      wanted = l;
      break;
    }
    out[i] = static_cast<Lod>(wanted);
  }
  const std::uint32_t budget[3] = {c.budget_high, c.budget_medium, c.budget_low};
  for (int l = 0; l < 3; ++l) {
    std::vector<std::tuple<bool, float, std::size_t>> rank;
    for (std::size_t i = 0; i < n; ++i) {
      if (static_cast<int>(out[i]) == l) {
        rank.emplace_back(static_cast<int>(before[i]) > l, dist[i], i);
      }
    }
    std::sort(rank.begin(), rank.end());
    for (std::size_t k = budget[l]; k < rank.size(); ++k) {
      out[std::get<2>(rank[k])] = static_cast<Lod>(l + 1);
    }
  }
  return out;
}

TEST(Lod, NamesAndPresets) {
  EXPECT_STREQ(to_string(Lod::high), "high");
  EXPECT_STREQ(to_string(Lod::medium), "medium");
  EXPECT_STREQ(to_string(Lod::low), "low");
  EXPECT_STREQ(to_string(Lod::off), "off");
  const LodConfig p = pedestrian_lod();
  EXPECT_EQ(p.budget_high, 10U);
  EXPECT_EQ(p.budget_medium, 20U);
  EXPECT_EQ(p.budget_low, 500U);
  EXPECT_FLOAT_EQ(p.high_m, 12.0f);
  EXPECT_FLOAT_EQ(p.medium_m, 40.0f);
  EXPECT_FLOAT_EQ(p.low_m, 150.0f);
  const LodConfig v = vehicle_lod();
  EXPECT_EQ(v.budget_high, 10U);
  EXPECT_EQ(v.budget_medium, 150U);
  EXPECT_EQ(v.budget_low, 5000U);
  EXPECT_LT(p.high_m, v.high_m);
  EXPECT_LT(v.high_m, v.medium_m);
  EXPECT_LT(v.medium_m, v.low_m);
}

TEST(LodAssigner, DistanceBandsInsideTheCone) {
  LodAssigner a(pedestrian_lod());
  const std::vector<Vec3> pos = {{5, 0, 0}, {20, 1, 0}, {100, -3, 0}, {200, 0, 0}, {11.9, 0, 0}};
  const auto levels = assign_fresh(a, pos, kOrigin);
  EXPECT_EQ(levels, (std::vector<Lod>{Lod::high, Lod::medium, Lod::low, Lod::off, Lod::high}));
  EXPECT_EQ(a.counts()[0], 2U);
  EXPECT_EQ(a.counts()[1], 1U);
  EXPECT_EQ(a.counts()[2], 1U);
  EXPECT_EQ(a.counts()[3], 1U);
}

TEST(LodAssigner, BehindTheCameraNeverHighOrMediumExceptNear) {
  LodAssigner a(pedestrian_lod());
  // Behind, beside (90 degrees) and just outside the 60 degree cone; one within near_m behind.
  const Vec3 outside{10 * std::cos(1.1 * std::numbers::pi / 3),
                     10 * std::sin(1.1 * std::numbers::pi / 3), 0};
  const Vec3 inside{10 * std::cos(0.9 * std::numbers::pi / 3),
                    10 * std::sin(0.9 * std::numbers::pi / 3), 0};
  const std::vector<Vec3> pos = {{-5, 0, 0}, {-30, 0, 0}, {0, 8, 0}, outside, inside, {-2, 0, 0}};
  const auto levels = assign_fresh(a, pos, kOrigin);
  EXPECT_EQ(levels,
            (std::vector<Lod>{Lod::low, Lod::low, Lod::low, Lod::low, Lod::high, Lod::high}));
  // Turning the camera round brings those behind into the cone.
  const auto turned = assign_fresh(a, pos, Viewer{Vec3{}, std::numbers::pi});
  EXPECT_EQ(turned[0], Lod::high);
  EXPECT_EQ(turned[1], Lod::medium);
  EXPECT_EQ(turned[4], Lod::low);
}

TEST(LodAssigner, ConeHoldsOverRandomViewersAndIncumbents) {
  const LodConfig c = pedestrian_lod();
  LodAssigner a(c);
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    Rng rng(seed, Stage::test, 7);
    std::vector<Vec3> pos(500);
    std::vector<Lod> levels(pos.size());
    for (std::size_t i = 0; i < pos.size(); ++i) {
      pos[i] = Vec3{rng.uniform(-60, 60), rng.uniform(-60, 60), 0};
      levels[i] = static_cast<Lod>(rng.below(4));  // Any level on entry, incumbents included.
    }
    const Viewer v{Vec3{rng.uniform(-5, 5), rng.uniform(-5, 5), 1.7}, rng.uniform(-4, 4)};
    a.assign(pos, v, levels);
    for (std::size_t i = 0; i < pos.size(); ++i) {
      const Vec3 d = pos[i] - v.position;
      const double bearing =
          std::abs(std::remainder(std::atan2(d.y, d.x) - v.yaw_rad, 2 * std::numbers::pi)) * 180 /
          std::numbers::pi;
      if (length(d) >= c.near_m && bearing > c.cone_half_angle_deg + c.hysteresis_deg) {
        EXPECT_GE(levels[i], Lod::low) << "seed " << seed << " agent " << i;
      }
    }
  }
}

TEST(LodAssigner, HysteresisStopsFlippingAroundAThreshold) {
  const LodConfig c = pedestrian_lod();  // high < 12 m, margin 4 m.
  LodAssigner a(c);
  std::vector<Lod> level = {Lod::off};
  // A newcomer just outside the distance does not get the better level...
  a.assign(std::vector<Vec3>{{12.5, 0, 0}}, kOrigin, level);
  EXPECT_EQ(level[0], Lod::medium);
  // ...it does inside, then keeps it while wandering up to 4 m beyond.
  for (int step = 0; step < 40; ++step) {
    const double x = (step % 2 == 0) ? 11.0 : 15.0;
    a.assign(std::vector<Vec3>{{x, 0, 0}}, kOrigin, level);
    EXPECT_EQ(level[0], Lod::high) << "step " << step;
  }
  a.assign(std::vector<Vec3>{{16.5, 0, 0}}, kOrigin, level);
  EXPECT_EQ(level[0], Lod::medium);
  // Same with the cone edge (60 degrees, margin 5): oscillating by 3 degrees around it.
  level[0] = Lod::off;
  for (int step = 0; step < 40; ++step) {
    const double deg = (step % 2 == 0) ? 57.0 : 63.0;
    const double r = deg * std::numbers::pi / 180;
    a.assign(std::vector<Vec3>{{8 * std::cos(r), 8 * std::sin(r), 0}}, kOrigin, level);
    EXPECT_EQ(level[0], Lod::high) << "step " << step;
  }
  a.assign(std::vector<Vec3>{{8 * std::cos(1.15), 8 * std::sin(1.15), 0}}, kOrigin,
           level);  // 66 deg
  EXPECT_EQ(level[0], Lod::low);
}

TEST(LodAssigner, IncumbentsKeepAFullBudgetAgainstACloserNewcomer) {
  LodConfig c = pedestrian_lod();
  c.budget_high = 2;
  c.budget_medium = 1;
  LodAssigner a(c);
  const std::vector<Vec3> pos = {{5, 0, 0}, {6, 0, 0}, {4.99, 0, 0}};
  std::vector<Lod> levels = {Lod::high, Lod::high, Lod::off};
  a.assign(pos, kOrigin, levels);
  EXPECT_EQ(levels, (std::vector<Lod>{Lod::high, Lod::high, Lod::medium}));
  // Without incumbents the nearest two win.
  EXPECT_EQ(assign_fresh(a, pos, kOrigin), (std::vector<Lod>{Lod::high, Lod::medium, Lod::high}));
  // Overflow cascades: medium is full too, so a fourth wanting high goes low.
  const std::vector<Vec3> four = {{5, 0, 0}, {6, 0, 0}, {4.99, 0, 0}, {7, 0, 0}};
  levels = {Lod::high, Lod::high, Lod::off, Lod::off};
  a.assign(four, kOrigin, levels);
  EXPECT_EQ(levels, (std::vector<Lod>{Lod::high, Lod::high, Lod::medium, Lod::low}));
  EXPECT_EQ(a.counts()[2], 1U);
}

TEST(LodAssigner, EqualDistancesBreakTiesByIndex) {
  LodConfig c = pedestrian_lod();
  c.budget_high = 1;
  LodAssigner a(c);
  const std::vector<Vec3> pos = {{0, 5, 0}, {5, 0, 0}, {0, -5, 0}, {5, 0, 0}};
  EXPECT_EQ(assign_fresh(a, pos, Viewer{Vec3{}, std::numbers::pi / 4}),
            (std::vector<Lod>{Lod::high, Lod::medium, Lod::low, Lod::medium}));
}

TEST(LodAssigner, DisabledGivesEveryAgentHigh) {
  LodConfig c = pedestrian_lod();
  c.enabled = false;
  LodAssigner a(c);
  std::vector<Vec3> pos;
  for (int i = 0; i < 100; ++i)
    pos.push_back(Vec3{-100.0 * i, 3.0 * i, 0});
  const auto levels = assign_fresh(a, pos, kOrigin);
  EXPECT_TRUE(std::all_of(levels.begin(), levels.end(), [](Lod l) { return l == Lod::high; }));
  EXPECT_EQ(a.counts()[0], 100U);
  EXPECT_EQ(a.counts()[1] + a.counts()[2] + a.counts()[3], 0U);
}

TEST(LodAssigner, EmptyInput) {
  LodAssigner a(pedestrian_lod());
  std::vector<Lod> none;
  a.assign(std::span<const Vec3>{}, kOrigin, none);
  EXPECT_EQ(a.counts()[0] + a.counts()[1] + a.counts()[2] + a.counts()[3], 0U);
}

// Random configurations, a crowd on a random walk and a moving, turning viewer: budgets are
// never exceeded, counts() matches the levels, and every level equals the plain rule's.
TEST(LodAssigner, BudgetsHoldAndMatchTheRuleOverRandomRuns) {
  for (std::uint64_t seed = 0; seed < 30; ++seed) {
    Rng rng(seed, Stage::test, 11);
    LodConfig c = seed % 2 == 0 ? pedestrian_lod() : vehicle_lod();
    c.budget_high = rng.below(15);
    c.budget_medium = rng.below(40);
    c.budget_low = rng.below(600);
    c.hysteresis_m = static_cast<float>(rng.uniform(0, 6));
    c.hysteresis_deg = static_cast<float>(rng.uniform(0, 10));
    c.cone_half_angle_deg = static_cast<float>(rng.uniform(20, 120));
    const double extent = c.low_m * 1.2;
    std::vector<Vec3> pos(1500);
    for (Vec3& p : pos)
      p = Vec3{rng.uniform(-extent, extent), rng.uniform(-extent, extent), 0};
    // Some exact duplicates to exercise ties.
    for (std::size_t i = 0; i < 50; ++i)
      pos[pos.size() - 1 - i] = pos[i];
    LodAssigner a(c);
    std::vector<Lod> levels(pos.size(), Lod::off);
    Viewer v{Vec3{0, 0, 1.7}, 0};
    for (int step = 0; step < 25; ++step) {
      for (Vec3& p : pos)
        p = p + Vec3{rng.uniform(-2, 2), rng.uniform(-2, 2), 0};
      v.position = v.position + Vec3{rng.uniform(-5, 5), rng.uniform(-5, 5), 0};
      v.yaw_rad += rng.uniform(-0.5, 0.5);
      const std::vector<Lod> expected = reference_assign(c, pos, v, levels);
      a.assign(pos, v, levels);
      ASSERT_EQ(levels, expected) << "seed " << seed << " step " << step;
      std::uint32_t count[kLods] = {0, 0, 0, 0};
      for (const Lod l : levels)
        ++count[static_cast<std::size_t>(l)];
      for (std::size_t l = 0; l < kLods; ++l)
        EXPECT_EQ(a.counts()[l], count[l]);
      EXPECT_LE(count[0], c.budget_high);
      EXPECT_LE(count[1], c.budget_medium);
      EXPECT_LE(count[2], c.budget_low);
    }
  }
}

TEST(LodAssigner, SameInputSameOutput) {
  Rng rng(3, Stage::test, 5);
  std::vector<Vec3> pos(3000);
  std::vector<Lod> start(pos.size());
  for (std::size_t i = 0; i < pos.size(); ++i) {
    pos[i] = Vec3{rng.uniform(-80, 80), rng.uniform(-80, 80), 0};
    start[i] = static_cast<Lod>(rng.below(4));
  }
  const Viewer v{Vec3{1, 2, 1.7}, 0.3};
  LodAssigner a(pedestrian_lod());
  LodAssigner b(pedestrian_lod());
  std::vector<Lod> la = start;
  std::vector<Lod> lb = start;
  a.assign(pos, v, la);
  b.assign(pos, v, lb);
  EXPECT_EQ(la, lb);
  std::vector<Lod> again = start;
  a.assign(pos, v, again);  // Reused scratch gives the same answer.
  EXPECT_EQ(la, again);
  EXPECT_EQ(a.counts()[0], 10U);  // 3000 agents in 160 m: the budgets bind.
  EXPECT_EQ(a.counts()[1], 20U);
}

TEST(LodAssigner, VehiclePresetReachesFarther) {
  const std::vector<Vec3> pos = {{25, 0, 0}, {100, 0, 0}};
  LodAssigner cars(vehicle_lod());
  LodAssigner people(pedestrian_lod());
  EXPECT_EQ(assign_fresh(cars, pos, kOrigin), (std::vector<Lod>{Lod::high, Lod::medium}));
  EXPECT_EQ(assign_fresh(people, pos, kOrigin), (std::vector<Lod>{Lod::medium, Lod::low}));
}

}  // namespace
}  // namespace cityforge::crowd
