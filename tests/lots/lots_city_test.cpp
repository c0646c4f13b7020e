// SPDX-License-Identifier: Apache-2.0
// Lots over a laid-out city: invariants over seeds, stats, zoning and determinism across thread
// counts (slow: label city).
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "cityforge/lots/lots.hpp"
#include "lots_fixture.hpp"

namespace cityforge::lots {
namespace {

using namespace test;

std::uint64_t hash_output(const Output& out) {
  std::uint64_t h = 0;
  auto add = [&](double v) { h = hash_combine(h, std::hash<double>{}(v)); };
  for (const Lot& lot : out.lots) {
    add(lot.id);
    add(static_cast<double>(lot.status));
    for (Vec2 p : lot.area.outer) {
      add(p.x);
      add(p.y);
    }
    for (const Parcel& p : lot.parcels) {
      for (Vec2 q : p.area.outer)
        add(q.x + q.y);
      add(p.has_building);
      add(p.dna.centre.x);
      add(p.dna.centre.y);
      add(p.dna.size_x_m);
      add(p.dna.size_y_m);
      add(p.dna.height_m());
      add(static_cast<double>(p.dna.shape));
      add(p.dna.style);
    }
  }
  return h;
}

TEST(LotsRun, InvariantsHoldOverSeeds) {
  // A quarter of the blocks (renumbered), so 20 seeds stay within a few seconds.
  layout::Output city = small_city();
  std::vector<layout::Block> kept;
  for (const layout::Block& b : city.blocks) {
    if (b.id % 4 != 0) continue;
    kept.push_back(b);
    kept.back().id = static_cast<layout::BlockId>(kept.size() - 1);
  }
  city.blocks = std::move(kept);
  const std::vector<Polygon> keep_out = freeway();
  const std::vector<StyleRule> styles = test_styles();
  for (Seed seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    // Party walls between lots (the default) and a kept gap, on alternate seeds.
    Config cfg;
    cfg.lot_gap_m = seed % 2 == 0 ? 0.0 : 0.5;
    Result<Output> out = run(city, keep_out, styles, cfg, seed);
    ASSERT_TRUE(out.ok()) << out.error().to_string();
    ASSERT_GT(out->stats.buildings, 20U);
    check_invariants(city, keep_out, styles, cfg, *out, seed, 2);
    if (HasFailure()) return;
  }
}

TEST(LotsRun, StatsAddUpAndNarrowLotsAppearInLowZones) {
  Result<Output> out = run(small_city(), freeway(), test_styles(), Config{}, 3);
  ASSERT_TRUE(out.ok()) << out.error().to_string();
  std::size_t by_status = 0;
  for (std::size_t n : out->stats.lots_by_status)
    by_status += n;
  EXPECT_EQ(by_status, out->stats.lots);
  std::size_t by_shape = 0;
  for (std::size_t n : out->stats.footprints_by_shape)
    by_shape += n;
  EXPECT_EQ(by_shape, out->stats.buildings);
  EXPECT_GT(out->stats.narrow_lots, 5U);
  EXPECT_GT(out->stats.parcels, out->stats.lots);
  std::size_t shapes_used = 0;
  for (std::size_t n : out->stats.footprints_by_shape)
    shapes_used += n > 0 ? 1 : 0;
  EXPECT_GE(shapes_used, 8U);
}

TEST(LotsRun, TallerTargetsGiveLargerLots) {
  const layout::Output& city = small_city();
  Result<Output> out = run(city, {}, test_styles(), Config{}, 5);
  ASSERT_TRUE(out.ok());
  // Mean lot area per height band rises with the band.
  const double bands[] = {0, 20, 60, 100, 1e9};
  std::vector<double> mean;
  for (int b = 0; b < 4; ++b) {
    double sum = 0;
    int n = 0;
    for (const Lot& lot : out->lots) {
      if (lot.target_height_m >= bands[b] && lot.target_height_m < bands[b + 1]) {
        sum += polygon_area(lot.area);
        ++n;
      }
    }
    if (n >= 3) mean.push_back(sum / n);
  }
  ASSERT_GE(mean.size(), 3U);
  for (std::size_t i = 1; i < mean.size(); ++i)
    EXPECT_GT(mean[i], mean[i - 1]) << "band " << i;
}

TEST(LotsRun, SameSeedSameOutputAtAnyThreadCountAndSeedsDiffer) {
  const layout::Output& city = small_city();
  std::uint64_t h1 = 0;
  std::uint64_t h2 = 0;
  {
    tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
    h1 = hash_output(*run(city, freeway(), test_styles(), Config{}, 11));
  }
  {
    tbb::global_control two(tbb::global_control::max_allowed_parallelism, 2);
    h2 = hash_output(*run(city, freeway(), test_styles(), Config{}, 11));
  }
  EXPECT_EQ(h1, h2);
  EXPECT_NE(h1, hash_output(*run(city, freeway(), test_styles(), Config{}, 12)));
}

}  // namespace
}  // namespace cityforge::lots
