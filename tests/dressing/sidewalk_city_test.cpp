// SPDX-License-Identifier: Apache-2.0
// Sidewalk tiles and ground cover over the dressing tests' whole city (label city).
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "city_fixture.hpp"
#include "dressing/detail.hpp"
#include "sidewalk_fixture.hpp"

namespace cityforge::dressing {
namespace {

using namespace testing;

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

}  // namespace
}  // namespace cityforge::dressing
