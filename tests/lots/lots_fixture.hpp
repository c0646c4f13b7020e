// SPDX-License-Identifier: Apache-2.0
// A small laid-out city, styles and the lots' invariants, for the lots tests (unit and city).
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "cityforge/layout/layout.hpp"
#include "cityforge/lots/lots.hpp"

namespace cityforge::lots::test {

inline layout::Inputs small_inputs() {
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

inline const layout::Output& small_city() {
  static const layout::Output city = [] {
    const layout::Inputs in = small_inputs();
    const auto ground = terrain::run(ring_bounds(in.boundary.outer), terrain::Config{0.0}, 1);
    return *layout::run(in, *ground, layout::Config{}, 7);
  }();
  return city;
}

// A freeway-like strip across the city.
inline std::vector<Polygon> freeway() { return polyline_buffer({{0, 150}, {1000, 420}}, 15.0); }

inline std::vector<StyleRule> test_styles() {
  StyleRule low{"low", "styles/low.json", 3.0, 0x1F, 0, 20, 2.0};
  StyleRule mid{"mid", "styles/mid.json", 4.0, 0x1F, 15, 45, 1.0};
  mid.staggered_share = 0.3;
  StyleRule tower{"tower", "styles/tower.json", 6.0, 0x03, 40, 1e9, 1.0};
  tower.cubified_share = 0.3;
  tower.staggered_share = 0.3;
  return {low, mid, tower};
}

inline double overlap(const Polygon& a, const Polygon& b) {
  const Aabb2 ba = ring_bounds(a.outer);
  const Aabb2 bb = ring_bounds(b.outer);
  if (ba.min.x > bb.max.x || bb.min.x > ba.max.x || ba.min.y > bb.max.y || bb.min.y > ba.max.y)
    return 0.0;
  double s = 0.0;
  for (const Polygon& p : polygon_intersection(a, b))
    s += polygon_area(p);
  return s;
}

inline double outside(const Polygon& inner, const Polygon& outer) {
  double s = 0.0;
  for (const Polygon& p : polygon_difference(inner, {outer}))
    s += polygon_area(p);
  return s;
}

// Checks every `stride`-th block (from `first`) so 20 seeds stay within a few seconds.
inline void check_invariants(const layout::Output& city, const std::vector<Polygon>& keep_out,
                             const std::vector<StyleRule>& styles, const Config& cfg,
                             const Output& out, std::size_t first = 0, std::size_t stride = 1) {
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

}  // namespace cityforge::lots::test
