// SPDX-License-Identifier: Apache-2.0
// Road geometry and sidewalks of laid-out cities (label city).
#include <gtest/gtest.h>

#include "cityforge/core/polygon.hpp"
#include "cityforge/layout/layout.hpp"
#include "cityforge/roads/roads.hpp"
#include "geometry_checks.hpp"
#include "small_city_fixture.hpp"

namespace cityforge::roads {
namespace {

using test::check_geometry;

TEST(RoadsGeometry, LayoutCityHasNoOverlaps) {
  const test::SmallCity small = test::small_layout_city();
  const terrain::Heightfield& ground = small.ground;
  const layout::Output& city = small.city;
  Result<Output> r = build_geometry(city, ground, Config{});
  ASSERT_TRUE(r.ok());
  check_geometry(city, *r);
  EXPECT_GT(r->geometry_stats.junctions, 20U);
}

// Sidewalks fill the ring between blocks and curbs: they never overlap a road surface or a
// block, and they reach the junction corners (the curb returns).
TEST(RoadsSidewalks, BetweenBlocksAndCurbsWithoutOverlaps) {
  layout::Inputs in;
  in.boundary.outer = {{0, 0}, {900, 0}, {900, 700}, {0, 700}};
  in.arteries.push_back({"a", {{10, 350}, {890, 380}}});
  layout::Zone z;
  z.area.outer = in.boundary.outer;
  in.zones = {z};
  const terrain::Heightfield flat =
      *terrain::run(ring_bounds(in.boundary.outer), terrain::Config{0.0}, 1);
  const layout::Output city = *layout::run(in, flat, layout::Config{}, 3);
  const Output out = *run(city, flat, Config{}, 3);
  ASSERT_GT(out.sidewalks.size(), city.blocks.size() / 2);
  double walk_area = 0.0;
  for (const Polygon& w : out.sidewalks) {
    walk_area += polygon_area(w);
    const Aabb2 wb = ring_bounds(w.outer);
    auto overlap = [&](const Polygon& p) {
      if (p.outer.size() < 3 || !wb.overlaps(ring_bounds(p.outer))) return 0.0;
      double a = 0.0;
      for (const Polygon& q : polygon_intersection(w, p))
        a += polygon_area(q);
      return a;
    };
    for (const Section& s : out.sections)
      ASSERT_LT(overlap(s.surface), 0.01);
    for (const Intersection& x : out.intersections)
      ASSERT_LT(overlap(x.surface), 0.01);
    for (const layout::Block& b : city.blocks)
      ASSERT_LT(overlap(b.area), 0.01);
  }
  // Roughly the sidewalk width times the block perimeters.
  double expected = 0.0;
  for (const layout::Block& b : city.blocks)
    expected += polygon_perimeter(b.area) * 3.0;
  EXPECT_GT(walk_area, 0.8 * expected);
}

}  // namespace
}  // namespace cityforge::roads
