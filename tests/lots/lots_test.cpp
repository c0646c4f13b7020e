// SPDX-License-Identifier: Apache-2.0
#include "cityforge/lots/lots.hpp"

#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>
#include <map>

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
