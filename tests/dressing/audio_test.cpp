// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <cmath>

#include "city_fixture.hpp"
#include "dressing/detail.hpp"

namespace cityforge::dressing {
namespace {

/// A flat 300 x 300 m city: one residential block, one park block, buildings as given.
struct Synthetic {
  terrain::Heightfield ground;
  layout::Output city;
  buildings::Output buildings;
  roads::Output roads;
  Inputs inputs() const {
    const testing::Nothing& none = testing::nothing();
    return Inputs{.city = city,
                  .roads = roads,
                  .freeway = none.freeway,
                  .lots = none.lots,
                  .buildings = buildings,
                  .ground = ground,
                  .styles = none.styles,
                  .rooftops = none.rooftops};
  }
};

Synthetic synthetic(const std::vector<Ring>& footprints) {
  Synthetic s;
  s.ground.origin = {-50, -50};
  s.ground.cell_m = 10;
  s.ground.nx = s.ground.ny = 41;
  s.ground.heights.assign(41 * 41, 2.0f);
  s.city.boundary.outer = {{0, 0}, {300, 0}, {300, 300}, {0, 300}};
  layout::Block homes;
  homes.area.outer = {{0, 0}, {300, 0}, {300, 150}, {0, 150}};
  homes.zone = layout::ZoneKind::residential;
  layout::Block park;
  park.id = 1;
  park.area.outer = {{0, 150}, {300, 150}, {300, 300}, {0, 300}};
  park.zone = layout::ZoneKind::park;
  s.city.blocks = {homes, park};
  for (const Ring& r : footprints) {
    buildings::Building b;
    buildings::Volume v;
    v.footprint.outer = r;
    v.z1_m = 60.0;
    b.volumes.push_back(v);
    s.buildings.buildings.push_back(b);
  }
  return s;
}

Ring box(double x0, double y0, double x1, double y1) {
  return {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}};
}

const AudioPoint* nearest(const std::vector<AudioPoint>& pts, Vec2 p) {
  const AudioPoint* best = nullptr;
  double best_d = 1e300;
  for (const AudioPoint& a : pts) {
    const double d = distance(Vec2{a.position[0], a.position[1]}, p);
    if (d < best_d) {
      best_d = d;
      best = &a;
    }
  }
  return best;
}

TEST(AudioGrid, OnePointPerCellOfWalkableSurface) {
  // Two 100 x 40 m buildings 10 m apart: 8000 m2 not walkable.
  const Synthetic s = synthetic({box(20, 20, 120, 60), box(20, 70, 120, 110)});
  const std::vector<AudioPoint> pts = detail::audio_grid(s.inputs(), Config{});
  const double expected = (300.0 * 300.0 - 8000.0) / 9.0;
  EXPECT_NEAR(static_cast<double>(pts.size()), expected, 0.05 * expected);
  for (const AudioPoint& p : pts) {
    const Vec2 q{p.position[0], p.position[1]};
    EXPECT_FALSE(q.x > 20 && q.x < 120 && ((q.y > 20 && q.y < 60) || (q.y > 70 && q.y < 110)));
    EXPECT_GE(p.reverb, 0.0f);
    EXPECT_LE(p.reverb, 1.0f);
    EXPECT_FLOAT_EQ(p.position[2], 2.0f);
    EXPECT_EQ(p.surface, q.y < 150 ? Surface::ground : Surface::park);
    // World-aligned: points at cell centres of the 3 m grid.
    EXPECT_NEAR(std::fmod(q.x, 3.0), 1.5, 1e-3);
  }
}

TEST(AudioGrid, NarrowStreetReverbsMoreThanThePark) {
  const Synthetic s = synthetic({box(20, 20, 120, 60), box(20, 70, 120, 110)});
  const std::vector<AudioPoint> pts = detail::audio_grid(s.inputs(), Config{});
  const AudioPoint* street = nearest(pts, {70, 65});
  const AudioPoint* park = nearest(pts, {200, 240});
  ASSERT_NE(street, nullptr);
  ASSERT_NE(park, nullptr);
  EXPECT_GE(street->reverb, 0.5f);  // Walls on both sides: about 14 of 16 rays.
  EXPECT_EQ(park->reverb, 0.0f);    // Nothing within 40 m.
  EXPECT_GT(street->reverb, park->reverb);
}

}  // namespace
}  // namespace cityforge::dressing
