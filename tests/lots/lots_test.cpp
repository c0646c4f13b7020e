// SPDX-License-Identifier: Apache-2.0
#include "cityforge/lots/lots.hpp"

#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace cityforge::lots {
namespace {

layout::Inputs small_inputs() {
  layout::Inputs in;
  in.boundary.outer = {{0, 0}, {1000, 0}, {1000, 1000}, {0, 1000}};
  in.arteries.push_back({"east-west", {{10, 480}, {500, 520}, {990, 500}}});
  layout::Zone res;
  res.kind = layout::ZoneKind::residential;
  res.area.outer = in.boundary.outer;
  res.min_height_m = 8;
  res.max_height_m = 14;
  layout::Zone down;
  down.kind = layout::ZoneKind::downtown;
  down.area.outer = {{450, 250}, {950, 250}, {950, 750}, {450, 750}};
  down.min_height_m = 40;
  down.max_height_m = 150;
  down.density = 0.9;
  in.zones = {res, down};
  return in;
}

const layout::Output& small_city() {
  static const layout::Output city = [] {
    const layout::Inputs in = small_inputs();
    const auto ground = terrain::run(ring_bounds(in.boundary.outer), terrain::Config{0.0}, 1);
    return *layout::run(in, *ground, layout::Config{}, 7);
  }();
  return city;
}

// A freeway-like strip across the city.
std::vector<Polygon> freeway() { return polyline_buffer({{0, 150}, {1000, 420}}, 15.0); }

std::vector<StyleRule> test_styles() {
  StyleRule low{"low", "styles/low.json", 3.0, 0x1F, 0, 20, 2.0};
  StyleRule mid{"mid", "styles/mid.json", 4.0, 0x1F, 15, 45, 1.0};
  mid.staggered_share = 0.3;
  StyleRule tower{"tower", "styles/tower.json", 6.0, 0x03, 40, 1e9, 1.0};
  tower.cubified_share = 0.3;
  tower.staggered_share = 0.3;
  return {low, mid, tower};
}

double overlap(const Polygon& a, const Polygon& b) {
  const Aabb2 ba = ring_bounds(a.outer);
  const Aabb2 bb = ring_bounds(b.outer);
  if (ba.min.x > bb.max.x || bb.min.x > ba.max.x || ba.min.y > bb.max.y || bb.min.y > ba.max.y)
    return 0.0;
  double s = 0.0;
  for (const Polygon& p : polygon_intersection(a, b))
    s += polygon_area(p);
  return s;
}

double outside(const Polygon& inner, const Polygon& outer) {
  double s = 0.0;
  for (const Polygon& p : polygon_difference(inner, {outer}))
    s += polygon_area(p);
  return s;
}

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

// Checks every `stride`-th block (from `first`) so 20 seeds stay within a few seconds.
void check_invariants(const layout::Output& city, const std::vector<Polygon>& keep_out,
                      const std::vector<StyleRule>& styles, const Config& cfg, const Output& out,
                      std::size_t first = 0, std::size_t stride = 1) {
  std::map<layout::BlockId, std::vector<const Lot*>> by_block;
  for (std::size_t i = 0; i < out.lots.size(); ++i) {
    const Lot& lot = out.lots[i];
    ASSERT_EQ(lot.id, i);
    by_block[lot.block].push_back(&lot);
  }
  for (const auto& [block_id, lots] : by_block) {
    if (block_id % stride != first % stride) continue;
    const layout::Block& block = city.blocks[block_id];
    std::vector<std::pair<const Lot*, Polygon>> footprints;
    for (std::size_t i = 0; i < lots.size(); ++i) {
      const Lot& lot = *lots[i];
      SCOPED_TRACE("lot " + std::to_string(lot.id));
      EXPECT_LT(outside(lot.area, block.area), 0.01) << "lot leaves its block";
      for (std::size_t j = i + 1; j < lots.size(); ++j)
        EXPECT_LT(overlap(lot.area, lots[j]->area), 0.01) << "with lot " << lots[j]->id;
      if (lot.narrow) {
        EXPECT_GE(lot.parcels.size(), 2U);
        EXPECT_LT(lot.target_height_m, cfg.narrow_height_m);
      }
      if (lot.status != LotStatus::buildable && lot.status != LotStatus::replaced) {
        EXPECT_TRUE(lot.parcels.empty());
      }
      for (const Parcel& p : lot.parcels) {
        EXPECT_EQ(p.frontage.size(), p.area.outer.size());
        EXPECT_LT(outside(p.area, lot.area), 0.01) << "parcel leaves its lot";
        if (!p.has_building) continue;
        const Polygon fp = footprint_polygon(p.dna);
        EXPECT_LT(outside(fp, p.area), 0.01) << "footprint leaves its parcel";
        for (const Polygon& k : keep_out)
          EXPECT_LT(overlap(fp, k), 0.01) << "footprint on the keep-out area";
        ASSERT_LT(p.dna.style, styles.size());
        EXPECT_GE(shortest_wall_m(p.dna.shape, p.dna.size_x_m, p.dna.size_y_m, p.dna.shape_param),
                  styles[p.dna.style].min_wall_m - 1e-9)
            << to_string(p.dna.shape);
        EXPECT_GT(p.dna.base_m, 0.0);
        EXPECT_GE(p.dna.shaft_m, 0.0);
        EXPECT_GE(p.dna.crown_m, 0.0);
        footprints.push_back({&lot, fp});
      }
    }
    for (std::size_t i = 0; i < footprints.size(); ++i) {
      for (std::size_t j = i + 1; j < footprints.size(); ++j) {
        const bool same_lot = footprints[i].first == footprints[j].first;
        // Buildings of different lots keep lot_gap_m apart; those of one lot may share walls.
        const double grow = 0.5 * cfg.lot_gap_m - 0.01;
        const Polygon a = same_lot || grow <= 0.0
                              ? footprints[i].second
                              : polygon_offset(footprints[i].second, grow).front();
        EXPECT_LT(overlap(a, footprints[j].second), 0.01)
            << "footprints of lots " << footprints[i].first->id << " and "
            << footprints[j].first->id;
      }
    }
  }
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

layout::Block hand_block(layout::BlockId id, Ring ring, double height_m) {
  layout::Block b;
  b.id = id;
  b.area = polygon_canonical(Polygon{std::move(ring), {}});
  b.zone = layout::ZoneKind::residential;
  b.target_height_m = height_m;
  return b;
}

Ring rect(double x, double y, double w, double h) {
  return {{x, y}, {x + w, y}, {x + w, y + h}, {x, y + h}};
}

TEST(LotsRun, EveryStatusIsReachedByACraftedBlock) {
  layout::Output city;
  city.blocks.push_back(hand_block(0, rect(0, 0, 40, 30), 12));  // buildable
  city.blocks.push_back(hand_block(
      1, {{100, 0}, {140, 0}, {140, 3.5}, {103.5, 3.5}, {103.5, 40}, {100, 40}}, 12));  // sliver
  city.blocks.push_back(hand_block(2, rect(200, 0, 30, 3.6), 12));  // bad_aspect
  city.blocks.push_back(hand_block(3, rect(300, 0, 20, 4.5), 12));  // too_narrow
  city.blocks.push_back(hand_block(4, rect(400, 0, 60, 9), 12));    // replaced
  StyleRule style{"s", "styles/s.json", 5.0};
  Config cfg;
  cfg.base_lot_area_m2 = 5000;
  cfg.narrow_share = 1.0;  // every low lot becomes a row
  Result<Output> out = run(city, {}, {style}, cfg, 1);
  ASSERT_TRUE(out.ok()) << out.error().to_string();
  ASSERT_EQ(out->lots.size(), 5U);
  EXPECT_EQ(out->lots[0].status, LotStatus::buildable);
  EXPECT_TRUE(out->lots[0].narrow);
  EXPECT_EQ(out->lots[1].status, LotStatus::sliver);
  EXPECT_EQ(out->lots[2].status, LotStatus::bad_aspect);
  EXPECT_EQ(out->lots[3].status, LotStatus::too_narrow);
  EXPECT_EQ(out->lots[4].status, LotStatus::replaced);
  for (int i = 1; i <= 3; ++i)
    EXPECT_TRUE(out->lots[static_cast<std::size_t>(i)].parcels.empty());
  ASSERT_EQ(out->lots[4].parcels.size(), 1U);
  const Parcel& p = out->lots[4].parcels[0];
  ASSERT_TRUE(p.has_building);
  EXPECT_LT(outside(footprint_polygon(p.dna), out->lots[4].area), 0.01);
  EXPECT_LE(std::max(p.dna.size_x_m, p.dna.size_y_m),
            cfg.max_aspect * std::min(p.dna.size_x_m, p.dna.size_y_m) + 1e-6);
  check_invariants(city, {}, {style}, cfg, *out);

  // Lots cut below the minimum area by subdivision are too_small.
  layout::Output tiny;
  tiny.blocks.push_back(hand_block(0, rect(0, 0, 60, 20), 12));
  Config small_lots;
  small_lots.base_lot_area_m2 = 100;
  small_lots.area_per_height_m = 0;
  small_lots.area_jitter = 0;
  std::size_t too_small = 0;
  for (Seed seed = 1; seed <= 5; ++seed) {
    Result<Output> t = run(tiny, {}, {StyleRule{"s", "s", 3.0}}, small_lots, seed);
    ASSERT_TRUE(t.ok()) << t.error().to_string();
    too_small += t->stats.lots_by_status[static_cast<std::size_t>(LotStatus::too_small)];
  }
  EXPECT_GT(too_small, 0U);
}

TEST(LotsRun, KeepOutIsCutFromTheBlock) {
  layout::Output city;
  city.blocks.push_back(hand_block(0, rect(0, 0, 100, 60), 30));
  const std::vector<Polygon> keep{Polygon{rect(40, -10, 20, 80), {}}};
  Result<Output> out = run(city, keep, test_styles(), Config{}, 2);
  ASSERT_TRUE(out.ok()) << out.error().to_string();
  ASSERT_FALSE(out->lots.empty());
  for (const Lot& lot : out->lots) {
    EXPECT_LT(overlap(lot.area, keep[0]), 0.01);
    // Edges along the cut are not street frontage.
    for (const Parcel& p : lot.parcels) {
      for (std::size_t i = 0; i < p.area.outer.size(); ++i) {
        const Vec2 m = (p.area.outer[i] + p.area.outer[(i + 1) % p.area.outer.size()]) * 0.5;
        if (std::fabs(m.x - 40) < 1e-6 || std::fabs(m.x - 60) < 1e-6) {
          EXPECT_EQ(p.frontage[i], 0);
        }
      }
    }
  }
}

TEST(LotsRun, StyleNoLotCanMeetIsAnError) {
  std::vector<StyleRule> styles = test_styles();
  styles.push_back(StyleRule{"giant", "styles/giant.json: /min_wall_m", 500.0});
  Result<Output> out = run(small_city(), {}, styles, Config{}, 1);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().code, ErrorCode::invalid_input);
  EXPECT_EQ(out.error().where, "styles/giant.json: /min_wall_m");
  EXPECT_NE(out.error().message.find("500"), std::string::npos) << out.error().message;
}

TEST(LotsValidate, NamesTheConfigKey) {
  const std::vector<StyleRule> styles = test_styles();
  EXPECT_TRUE(validate(Config{}, styles).ok());
  Config c;
  c.narrow_min_width_m = c.narrow_max_width_m + 1;
  Status s = validate(c, styles);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().where, "lots.narrow_max_width_m");
  c = Config{};
  c.narrow_share = 1.5;
  EXPECT_EQ(validate(c, styles).error().where, "lots.narrow_share");
  c = Config{};
  c.min_compactness = 1.5;
  EXPECT_EQ(validate(c, styles).error().where, "lots.min_compactness");
  c = Config{};
  c.area_jitter = NAN;
  EXPECT_EQ(validate(c, styles).error().where, "lots.area_jitter");
  EXPECT_FALSE(validate(Config{}, {}).ok());
  std::vector<StyleRule> bad = styles;
  bad[1].min_wall_m = 0;
  EXPECT_EQ(validate(Config{}, bad).error().where, "styles/mid.json");
  EXPECT_FALSE(run(small_city(), {}, bad, Config{}, 1).ok());
}

}  // namespace
}  // namespace cityforge::lots
