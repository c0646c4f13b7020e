// SPDX-License-Identifier: Apache-2.0
#include "cityforge/lots/lots.hpp"

#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "lots/detail.hpp"
#include "lots_fixture.hpp"

namespace cityforge::lots {
namespace {

using namespace test;

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

// Length of `poly`'s outer boundary lying on the segment a-b (within 1 cm of its line).
double boundary_on(const Polygon& poly, Vec2 a, Vec2 b) {
  const Vec2 d = normalize(b - a);
  const double len = distance(a, b);
  double on = 0.0;
  const Ring& r = poly.outer;
  for (std::size_t i = 0; i < r.size(); ++i) {
    const Vec2 p = r[i];
    const Vec2 q = r[(i + 1) % r.size()];
    if (std::fabs(cross(d, p - a)) > 0.01 || std::fabs(cross(d, q - a)) > 0.01) continue;
    const double t0 = std::clamp(std::min(dot(p - a, d), dot(q - a, d)), 0.0, len);
    const double t1 = std::clamp(std::max(dot(p - a, d), dot(q - a, d)), 0.0, len);
    on += t1 - t0;
  }
  return on;
}

// Party walls (seeds/000, 29:14): a building whose parcel shares a lot line with another
// parcel keeps its whole wall on that line, whatever shape it draws (a notch, step or slant
// goes to a street side or the back, mirrored if need be), so the neighbour's wall hides it.
// The parcels here fill their lots (no rows), so every building's box is its parcel.
TEST(LotsRun, BuildingsKeepWholeWallsOnLotLinesTheyShare) {
  layout::Output city;
  city.blocks.push_back(hand_block(0, rect(0, 0, 240, 24), 18));
  std::vector<StyleRule> styles{StyleRule{"s", "styles/s.json", 3.0}};
  Config cfg;
  cfg.base_lot_area_m2 = 800;
  cfg.area_per_height_m = 0;
  cfg.narrow_share = 0.0;
  cfg.footprint_mix = {};
  cfg.footprint_mix[static_cast<std::size_t>(FootprintShape::l_shape)] = 1.0;
  cfg.footprint_mix[static_cast<std::size_t>(FootprintShape::stepped)] = 1.0;
  cfg.footprint_mix[static_cast<std::size_t>(FootprintShape::rectangle)] = 0.2;
  std::size_t shared = 0;
  std::size_t notched = 0;
  for (Seed seed = 1; seed <= 6; ++seed) {
    Result<Output> out = run(city, {}, styles, cfg, seed);
    ASSERT_TRUE(out.ok()) << out.error().to_string();
    ASSERT_GE(out->lots.size(), 4U) << "the block must be cut into a row of lots";
    check_invariants(city, {}, styles, cfg, *out);
    for (const Lot& lot : out->lots) {
      for (const Parcel& p : lot.parcels) {
        if (!p.has_building) continue;
        const Polygon fp = footprint_polygon(p.dna);
        notched += p.dna.shape != FootprintShape::rectangle ? 1 : 0;
        const Ring& r = p.area.outer;
        for (std::size_t i = 0; i < r.size(); ++i) {
          const Vec2 a = r[i];
          const Vec2 b = r[(i + 1) % r.size()];
          // A lot line across the block (its long sides and ends are streets) on the left or
          // right of the building, which faces a long side.
          const Vec2 front{std::cos(p.dna.angle_rad), std::sin(p.dna.angle_rad)};
          if (p.frontage[i] != 0 || std::fabs(a.x - b.x) > 1e-6 || a.x < 1e-6 || a.x > 240 - 1e-6 ||
              std::fabs(front.y) > 1e-6)
            continue;
          ++shared;
          EXPECT_NEAR(boundary_on(fp, a, b), distance(a, b), 0.01)  // the box keeps 1 mm off
              << "seed " << seed << ", lot " << lot.id << ": a " << to_string(p.dna.shape)
              << (p.dna.mirrored ? " (mirrored)" : "")
              << " leaves a gap on the lot line x = " << a.x;
        }
      }
    }
  }
  EXPECT_GT(shared, 20U);
  EXPECT_GT(notched, 0U) << "the end lots, with a street side, may still draw L and stepped shapes";
}

// One parcel, 30 x 20 m, its front on the street (edge 0, along +x), one side on a street and
// the other on a lot line: an L shape (notch at the back right) turns its notch to the street.
TEST(LotsDna, AnLShapeTurnsItsNotchAwayFromTheLotLine) {
  const Polygon parcel{{{0, 0}, {30, 0}, {30, 20}, {0, 20}}, {}};
  const StyleRule style{"s", "styles/s.json", 3.0};
  Config cfg;
  cfg.footprint_mix = {};
  cfg.footprint_mix[static_cast<std::size_t>(FootprintShape::l_shape)] = 1.0;
  auto dna_with = [&](std::vector<std::uint8_t> frontage, const Config& c) {
    detail::DnaRequest req;
    req.parcel = &parcel;
    req.frontage = &frontage;
    req.target_height_m = 12.0;
    Rng rng{7, Stage::lots, 1, 2};
    BuildingDNA dna;
    EXPECT_TRUE(detail::make_dna(req, {style}, {0}, c, rng, &dna));
    return dna;
  };
  // Edges: 0 front, 1 right (x = 30), 2 back, 3 left (x = 0).
  const BuildingDNA right_shared = dna_with({1, 0, 1, 1}, cfg);
  EXPECT_EQ(right_shared.shape, FootprintShape::l_shape);
  EXPECT_TRUE(right_shared.mirrored);
  EXPECT_NEAR(boundary_on(footprint_polygon(right_shared), {30, 0}, {30, 20}), 20.0, 0.01);
  const BuildingDNA left_shared = dna_with({1, 1, 1, 0}, cfg);
  EXPECT_EQ(left_shared.shape, FootprintShape::l_shape);
  EXPECT_FALSE(left_shared.mirrored);
  EXPECT_NEAR(boundary_on(footprint_polygon(left_shared), {0, 20}, {0, 0}), 20.0, 0.01);
  // Both sides shared: no L fits, the rectangle is left.
  EXPECT_EQ(dna_with({1, 0, 1, 0}, cfg).shape, FootprintShape::rectangle);
  // A street on every side: the L as drawn.
  const BuildingDNA free = dna_with({1, 1, 1, 1}, cfg);
  EXPECT_EQ(free.shape, FootprintShape::l_shape);
  EXPECT_FALSE(free.mirrored);
  // With a gap between lots no two buildings touch: nothing to keep whole.
  Config gap = cfg;
  gap.lot_gap_m = 1.0;
  const BuildingDNA apart = dna_with({1, 0, 1, 0}, gap);
  EXPECT_EQ(apart.shape, FootprintShape::l_shape);
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
