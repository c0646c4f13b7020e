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

namespace cityforge::dressing {
namespace {

using testing::shared_city;

/// The item's footprint in the plane: its unit shape scaled, rotated and moved.
Ring item_shape(const Item& it) {
  const std::string& id = prop_catalog()[it.prop].id;
  Ring unit;
  if (id == "sidewalk_corner_out") {
    unit = {{0, 0}, {1, -0.5}, {1, 0.5}};
  } else if (id == "sidewalk_corner_in") {
    unit = {{0, 0}, {1, 0}, {0, 1}};
  } else {
    unit = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
  }
  const double c = std::cos(it.yaw_rad), s = std::sin(it.yaw_rad);
  Ring out;
  for (Vec2 p : unit) {
    const Vec2 q{p.x * it.scale_x, p.y * it.scale_y};
    out.push_back({it.position[0] + c * q.x - s * q.y, it.position[1] + s * q.x + c * q.y});
  }
  return out;
}

/// Item footprints with a hash for point queries.
struct Cover {
  std::vector<Ring> shapes;
  SpatialHash hash{4.0};
  explicit Cover(const std::vector<Item>& items) {
    for (const Item& it : items) {
      shapes.push_back(item_shape(it));
      hash.insert(static_cast<std::uint32_t>(shapes.size() - 1), ring_bounds(shapes.back()));
    }
  }
  bool covers(Vec2 p, std::vector<std::uint32_t>& ids) const {
    hash.query(Aabb2{p, p}, ids);
    for (std::uint32_t id : ids)
      if (ring_contains(shapes[id], p)) return true;
    return false;
  }
};

/// Samples of a polygon on a grid of `step` metres.
std::vector<Vec2> samples(const Polygon& poly, double step) {
  std::vector<Vec2> out;
  const Aabb2 b = ring_bounds(poly.outer);
  for (double y = b.min.y + 0.5 * step; y < b.max.y; y += step)
    for (double x = b.min.x + 0.5 * step; x < b.max.x; x += step)
      if (polygon_contains(poly, {x, y})) out.push_back({x, y});
  return out;
}

struct Tiled {
  std::vector<Item> items;
  std::vector<detail::TileRun> runs;
  double length_m = 0.0;
};

Tiled tile(const Inputs& in, Seed seed = 3) {
  Tiled t;
  t.length_m = detail::sidewalk_tiles(in, Config{}, seed, t.items, &t.runs);
  return t;
}

const Tiled& city_tiles() {
  static const Tiled s_tiles = tile(shared_city().inputs());
  return s_tiles;
}

TEST(SidewalkTiles, CityRunsAreCoveredWithoutGapOrOverlap) {
  const auto& city = shared_city();
  ASSERT_TRUE(city.error.empty()) << city.error;
  const Tiled& t = city_tiles();
  ASSERT_GT(t.items.size(), 1000U);
  std::printf("sidewalks %zu, items %zu, tiled %.2f km, runs %zu\n", city.roads.sidewalks.size(),
              t.items.size(), t.length_m / 1000.0, t.runs.size());
  std::size_t checked_gaps = 0;
  for (const detail::TileRun& run : t.runs) {
    const Polygon& sw = city.roads.sidewalks[run.sidewalk];
    const Vec2 out{run.direction.y, -run.direction.x};
    for (std::size_t i = 0; i < run.spans.size(); ++i) {
      EXPECT_LT(run.spans[i][0], run.spans[i][1]);
      EXPECT_GE(run.spans[i][0], -0.01);
      EXPECT_LE(run.spans[i][1], run.length_m + 0.01);
      if (i == 0) continue;
      const double gap = run.spans[i][0] - run.spans[i - 1][1];
      EXPECT_GT(gap, -0.01) << "overlap in sidewalk " << run.sidewalk << " run " << run.run;
      if (gap > 0.05) {
        // A real gap: the sidewalk is interrupted there (a junction mouth).
        const double t_mid = 0.5 * (run.spans[i][0] + run.spans[i - 1][1]);
        const Vec2 p = run.start + run.direction * t_mid + out * std::min(0.3, 0.5 * run.width_m);
        EXPECT_FALSE(polygon_contains(sw, p))
            << "gap of " << gap << " m in sidewalk " << run.sidewalk << " run " << run.run;
        ++checked_gaps;
      }
    }
  }
  std::printf("gaps at interruptions: %zu\n", checked_gaps);
}

TEST(SidewalkTiles, CityTilesCoverTheSidewalks) {
  const auto& city = shared_city();
  ASSERT_TRUE(city.error.empty()) << city.error;
  const Tiled& t = city_tiles();
  const Cover cover(t.items);
  std::vector<std::uint32_t> ids;
  // Coverage of each sidewalk by the tiles.
  std::size_t total = 0, covered = 0, poor = 0;
  for (std::size_t s = 0; s < city.roads.sidewalks.size(); ++s) {
    const auto pts = samples(city.roads.sidewalks[s], 0.3);
    std::size_t c = 0;
    for (Vec2 p : pts)
      c += cover.covers(p, ids) ? 1 : 0;
    total += pts.size();
    covered += c;
    if (pts.size() > 50 && c < 0.97 * static_cast<double>(pts.size())) {
      ++poor;
      ADD_FAILURE() << "sidewalk " << s << " covered " << 100.0 * c / pts.size() << " %";
    }
  }
  const double share = static_cast<double>(covered) / static_cast<double>(total);
  std::printf("covered %.2f %% of the sidewalk area, %zu poor sidewalks\n", 100.0 * share, poor);
  EXPECT_GE(share, 0.97);
  // The tiles lie inside the sidewalks.
  SpatialHash walks(16.0);
  for (std::size_t s = 0; s < city.roads.sidewalks.size(); ++s)
    walks.insert(static_cast<std::uint32_t>(s), ring_bounds(city.roads.sidewalks[s].outer));
  std::size_t in = 0, all = 0;
  for (const Ring& shape : cover.shapes) {
    for (Vec2 p : samples(Polygon{shape, {}}, 0.3)) {
      walks.query(Aabb2{p, p}, ids);
      bool inside = false;
      for (std::uint32_t id : ids)
        inside = inside || polygon_contains(city.roads.sidewalks[id], p);
      in += inside ? 1 : 0;
      ++all;
    }
  }
  const double inside_share = static_cast<double>(in) / static_cast<double>(all);
  std::printf("tiles inside the sidewalks: %.2f %%\n", 100.0 * inside_share);
  EXPECT_GE(inside_share, 0.98);
}

TEST(SidewalkTiles, CornersClose) {
  const auto& city = shared_city();
  ASSERT_TRUE(city.error.empty()) << city.error;
  const Tiled& t = city_tiles();
  const Cover cover(t.items);
  std::vector<std::uint32_t> ids;
  // Around every block corner a run starts at: the sidewalk within 2 m is covered, on a 4 cm
  // grid, but for less than a 5 cm wide gap's worth of samples.
  std::size_t corners = 0, total = 0, missed = 0;
  for (const detail::TileRun& run : t.runs) {
    if (run.width_m <= 0.0 || run.spans.empty()) continue;
    const Polygon& sw = city.roads.sidewalks[run.sidewalk];
    const Vec2 v = run.start;
    std::size_t n = 0, m = 0;
    for (double y = -2.0; y <= 2.0; y += 0.04) {
      for (double x = -2.0; x <= 2.0; x += 0.04) {
        const Vec2 p = v + Vec2{x, y};
        if (x * x + y * y > 4.0 || !polygon_contains(sw, p)) continue;
        ++n;
        if (!cover.covers(p, ids)) ++m;
      }
    }
    if (n == 0) continue;
    ++corners;
    total += n;
    missed += m;
    // A 5 cm gap across a 2 m radius band would leave ~2 * 2 m * 5 cm / (4 cm)^2 = 125 samples.
    EXPECT_LT(m, 125U) << "corner at " << v.x << ", " << v.y << " sidewalk " << run.sidewalk;
  }
  std::printf("corners %zu, uncovered samples %.2f %%\n", corners, 100.0 * missed / total);
  EXPECT_GT(corners, 50U);
  EXPECT_LT(static_cast<double>(missed), 0.03 * static_cast<double>(total));
}

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

TEST(SidewalkTiles, SameAtAnyThreadCount) {
  const auto& city = shared_city();
  ASSERT_TRUE(city.error.empty()) << city.error;
  std::vector<Item> one, two;
  double l1 = 0.0, l2 = 0.0;
  {
    tbb::global_control c(tbb::global_control::max_allowed_parallelism, 1);
    l1 = detail::sidewalk_tiles(city.inputs(), Config{}, 3, one, nullptr);
  }
  {
    tbb::global_control c(tbb::global_control::max_allowed_parallelism, 2);
    l2 = detail::sidewalk_tiles(city.inputs(), Config{}, 3, two, nullptr);
  }
  EXPECT_EQ(l1, l2);
  ASSERT_EQ(one.size(), two.size());
  EXPECT_EQ(std::memcmp(one.data(), two.data(), one.size() * sizeof(Item)), 0);
}

// ---- Ground cover ---------------------------------------------------------------------------

/// True when the square item lies inside the polygon (corners inside, no ring vertex within).
bool square_inside(const Ring& sq, const Polygon& poly) {
  // Inset by 1 cm: corners and ring vertices on the square's sides do not count.
  const Vec2 c = ring_centroid(sq);
  Ring inset;
  for (Vec2 p : sq)
    inset.push_back(p + normalize(c - p) * 0.01);
  for (Vec2 p : inset)
    if (!polygon_contains(poly, p)) return false;
  auto none_in = [&](const Ring& r) {
    return std::none_of(r.begin(), r.end(), [&](Vec2 v) { return ring_contains(inset, v); });
  };
  if (!none_in(poly.outer)) return false;
  for (const Ring& h : poly.holes)
    if (!none_in(h)) return false;
  return true;
}

TEST(GroundCover, CityTilesStayOffBuildingsAndSidewalks) {
  const auto& city = shared_city();
  ASSERT_TRUE(city.error.empty()) << city.error;
  std::vector<Item> items;
  detail::ground_cover(city.inputs(), Config{}, 3, items);
  ASSERT_GT(items.size(), 1000U);
  SpatialHash hash(16.0);
  std::vector<const Polygon*> footprints;
  for (const auto& b : city.buildings.buildings) {
    footprints.push_back(&b.volumes[0].footprint);
    hash.insert(static_cast<std::uint32_t>(footprints.size() - 1),
                ring_bounds(footprints.back()->outer));
  }
  std::vector<std::uint32_t> ids;
  std::size_t bad = 0;
  double area = 0.0;
  for (const Item& it : items) {
    const Ring sq = item_shape(it);
    area += std::fabs(ring_signed_area(sq));
    ASSERT_LT(it.owner, city.layout.blocks.size());
    if (!square_inside(sq, city.layout.blocks[it.owner].area)) {
      ++bad;
      ADD_FAILURE() << "tile outside block " << it.owner << " at " << sq[0].x << ", " << sq[0].y;
    }
    // No building footprint overlaps the square (clipped area < 1 cm2).
    hash.query(ring_bounds(sq), ids);
    for (std::uint32_t id : ids) {
      double overlap = 0.0;
      for (const Polygon& p : polygon_intersection(Polygon{sq, {}}, *footprints[id]))
        overlap += polygon_area(p);
      if (overlap > 1e-4) {
        ++bad;
        ADD_FAILURE() << "tile on building " << id << " at " << sq[0].x << ", " << sq[0].y;
      }
    }
  }
  double block_area = 0.0;
  for (const auto& b : city.layout.blocks)
    block_area += polygon_area(b.area);
  std::printf("ground tiles %zu, %.0f m2 of %.0f m2 block area\n", items.size(), area, block_area);
  EXPECT_EQ(bad, 0U);
}

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
