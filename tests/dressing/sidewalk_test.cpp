// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "city_fixture.hpp"
#include "cityforge/core/spatial_hash.hpp"
#include "dressing/detail.hpp"
#include "sidewalk_fixture.hpp"

namespace cityforge::dressing {
namespace {

using namespace testing;

/// One block and its sidewalk (the block grown by 2.5 m, mitred) on flat ground.
struct HandMade {
  terrain::Heightfield ground;
  layout::Output city;
  roads::Output roads;
  Inputs inputs(const buildings::Output& built = testing::nothing().buildings) const {
    const testing::Nothing& none = testing::nothing();
    return Inputs{.city = city,
                  .roads = roads,
                  .freeway = none.freeway,
                  .lots = none.lots,
                  .buildings = built,
                  .ground = ground,
                  .styles = none.styles,
                  .rooftops = none.rooftops};
  }
};

HandMade hand_made(const Ring& block) {
  HandMade h;
  h.ground.origin = {-100, -100};
  h.ground.cell_m = 10;
  h.ground.nx = h.ground.ny = 40;
  h.ground.heights.assign(1600, 0.0f);
  layout::Block b;
  b.area.outer = block;
  h.city.blocks.push_back(b);
  h.city.boundary.outer = {{-100, -100}, {290, -100}, {290, 290}, {-100, 290}};
  for (const Polygon& g : polygon_offset(b.area, 2.5)) {
    for (Polygon& p : polygon_difference(g, {b.area}))
      h.roads.sidewalks.push_back(std::move(p));
  }
  return h;
}

std::size_t count_prop(const std::vector<Item>& items, const char* id) {
  return static_cast<std::size_t>(std::count_if(items.begin(), items.end(), [&](const Item& i) {
    return i.prop == static_cast<std::uint32_t>(find_prop(id));
  }));
}

TEST(SidewalkTiles, LShapedBlockHasOneInsideCorner) {
  const HandMade h = hand_made({{0, 0}, {60, 0}, {60, 20}, {25, 20}, {25, 50}, {0, 50}});
  ASSERT_EQ(h.roads.sidewalks.size(), 1U);
  const Tiled t = tile(h.inputs());
  EXPECT_EQ(count_prop(t.items, "sidewalk_corner_in"), 2U);   // One pair.
  EXPECT_GT(count_prop(t.items, "sidewalk_corner_out"), 5U);  // Five convex corners.
  EXPECT_EQ(t.runs.size(), 6U);
  // Each run: tiles of about tile_m (1.5 m), stretched to fit.
  for (const detail::TileRun& r : t.runs) {
    EXPECT_NEAR(r.width_m, 2.5, 1e-6);
    ASSERT_FALSE(r.spans.empty());
    EXPECT_NEAR(r.spans.front()[0], 0.0, 0.01);
    EXPECT_NEAR(r.spans.back()[1], r.length_m, 0.01);
  }
  // The whole ring is covered (mitred corners: the fans meet the straight mitre lines).
  const Cover cover(t.items);
  std::vector<std::uint32_t> ids;
  const auto pts = samples(h.roads.sidewalks[0], 0.1);
  std::size_t c = 0;
  for (Vec2 p : pts)
    c += cover.covers(p, ids) ? 1 : 0;
  EXPECT_GE(static_cast<double>(c), 0.99 * static_cast<double>(pts.size()));
  // Perimeter of the L: 60 + 20 + 35 + 30 + 25 + 50 = 220 m of block edge.
  EXPECT_GT(t.length_m, 220.0);
}

TEST(SidewalkTiles, GapsStopTheTiles) {
  HandMade h = hand_made({{0, 0}, {60, 0}, {60, 40}, {0, 40}});
  // A junction mouth cuts the south sidewalk between x = 20 and x = 30.
  const Polygon cut{{{20, -10}, {30, -10}, {30, -0.0}, {20, 0.0}}, {}};
  std::vector<Polygon> pieces;
  for (const Polygon& s : h.roads.sidewalks)
    for (Polygon& p : polygon_difference(s, {cut}))
      pieces.push_back(std::move(p));
  h.roads.sidewalks = pieces;
  const Tiled t = tile(h.inputs());
  for (const Item& it : t.items) {
    const Ring shape = item_shape(it);
    const Vec2 centre = ring_centroid(shape);
    EXPECT_FALSE(centre.x > 20.05 && centre.x < 29.95 && centre.y < 0.0)
        << "tile in the gap at " << centre.x << ", " << centre.y;
  }
  // The south run holds a gap of 10 m.
  bool found = false;
  for (const detail::TileRun& r : t.runs) {
    for (std::size_t i = 1; i < r.spans.size(); ++i) {
      const double gap = r.spans[i][0] - r.spans[i - 1][1];
      if (gap > 1.0) {
        EXPECT_NEAR(gap, 10.0, 0.05);
        found = true;
      }
    }
  }
  EXPECT_TRUE(found);
}

TEST(SidewalkTiles, VariantsAreSeeded) {
  const HandMade h = hand_made({{0, 0}, {60, 0}, {60, 40}, {0, 40}});
  const Tiled a = tile(h.inputs(), 11);
  const Tiled b = tile(h.inputs(), 11);
  const Tiled c = tile(h.inputs(), 12);
  ASSERT_EQ(a.items.size(), b.items.size());
  ASSERT_EQ(a.items.size(), c.items.size());
  std::vector<std::size_t> seen(Config{}.tile_variants, 0);
  bool differs = false;
  for (std::size_t i = 0; i < a.items.size(); ++i) {
    EXPECT_EQ(a.items[i].variant, b.items[i].variant);
    differs = differs || a.items[i].variant != c.items[i].variant;
    if (a.items[i].prop == static_cast<std::uint32_t>(find_prop("sidewalk_tile"))) {
      ASSERT_LT(a.items[i].variant, seen.size());
      ++seen[a.items[i].variant];
    }
  }
  EXPECT_TRUE(differs);
  for (std::size_t n : seen)
    EXPECT_GT(n, 5U);  // Every variant is used on ~130 tiles.
}

// ---- Ground cover ---------------------------------------------------------------------------

TEST(GroundCover, RectangleMinusBuildingIsMostlyTiled) {
  HandMade h = hand_made({{0, 0}, {40, 0}, {40, 30}, {0, 30}});
  // A rotated frame: the grid follows the longest edge.
  const double a = 0.3;
  for (Vec2& p : h.city.blocks[0].area.outer)
    p = rotate(p, a);
  buildings::Output bo;
  buildings::Building b;
  buildings::Volume v;
  for (Vec2 p : Ring{{5, 5}, {15, 5}, {15, 15}, {5, 15}})
    v.footprint.outer.push_back(rotate(p, a));
  b.volumes.push_back(v);
  bo.buildings.push_back(b);
  h.roads.sidewalks.clear();
  const Inputs in = h.inputs(bo);
  std::vector<Item> items;
  detail::ground_cover(in, Config{}, 3, items);
  const double free_m2 = 40.0 * 30.0 - 100.0;
  double tiled = 0.0;
  for (const Item& it : items) {
    const Ring sq = item_shape(it);
    tiled += std::fabs(ring_signed_area(sq));
    EXPECT_TRUE(square_inside(sq, h.city.blocks[0].area));
    for (Vec2 p : sq) {
      // No corner strictly inside the building.
      const Vec2 q = rotate(p, -a);
      EXPECT_FALSE(q.x > 5.001 && q.x < 14.999 && q.y > 5.001 && q.y < 14.999);
    }
    EXPECT_FLOAT_EQ(it.yaw_rad, static_cast<float>(a));
    EXPECT_FLOAT_EQ(it.scale_x, 2.0f);
  }
  EXPECT_GE(tiled, 0.7 * free_m2);
  EXPECT_LE(tiled, free_m2 + 1e-6);
}

}  // namespace
}  // namespace cityforge::dressing
