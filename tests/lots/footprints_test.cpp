// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "cityforge/lots/lots.hpp"

namespace cityforge::lots {
namespace {

TEST(LotsFootprints, AllShapesAreValidCcwAndInsideTheirBox) {
  for (std::size_t s = 0; s < kFootprintShapeCount; ++s) {
    const auto shape = static_cast<FootprintShape>(s);
    for (double p : {0.2, 0.5, 0.8}) {
      for (auto [w, h] : {std::pair{20.0, 14.0}, std::pair{12.0, 30.0}, std::pair{40.0, 40.0}}) {
        SCOPED_TRACE(std::string(to_string(shape)) + " p=" + std::to_string(p) +
                     " w=" + std::to_string(w) + " h=" + std::to_string(h));
        const Polygon poly = footprint_outline(shape, w, h, p);
        std::string why;
        EXPECT_TRUE(polygon_is_valid(poly, &why)) << why;
        EXPECT_GT(ring_signed_area(poly.outer), 0.0);
        for (const Ring& hole : poly.holes)
          EXPECT_LT(ring_signed_area(hole), 0.0);
        EXPECT_GT(polygon_area(poly), 0.0);
        EXPECT_LE(polygon_area(poly), w * h + 1e-9);
        double shortest = INFINITY;
        auto scan = [&](const Ring& r) {
          for (std::size_t i = 0; i < r.size(); ++i) {
            const Vec2 a = r[(i + r.size() - 1) % r.size()];
            const Vec2 b = r[i];
            const Vec2 c = r[(i + 1) % r.size()];
            EXPECT_LE(std::fabs(b.x), w / 2 + 1e-9);
            EXPECT_LE(std::fabs(b.y), h / 2 + 1e-9);
            EXPECT_GT(distance(b, c), 1e-6) << "repeated point " << i;
            EXPECT_GT(std::fabs(cross(b - a, c - b)), 1e-9) << "collinear point " << i;
            shortest = std::min(shortest, distance(b, c));
          }
        };
        scan(poly.outer);
        for (const Ring& hole : poly.holes)
          scan(hole);
        EXPECT_DOUBLE_EQ(shortest_wall_m(shape, w, h, p), shortest);
        // The street side touches the front of the box (except the 12-gon's flat front).
        const double front =
            std::min_element(poly.outer.begin(), poly.outer.end(), [](Vec2 a, Vec2 b) {
              return a.y < b.y;
            })->y;
        if (shape != FootprintShape::cylinder) {
          EXPECT_NEAR(front, -h / 2, 1e-9);
        }
      }
    }
  }
}

TEST(LotsFootprints, NamesRoundTrip) {
  for (std::size_t s = 0; s < kFootprintShapeCount; ++s) {
    FootprintShape back = FootprintShape::rectangle;
    ASSERT_TRUE(footprint_shape_from_string(to_string(static_cast<FootprintShape>(s)), &back));
    EXPECT_EQ(static_cast<std::size_t>(back), s);
  }
  FootprintShape unused{};
  EXPECT_FALSE(footprint_shape_from_string("blob", &unused));
  EXPECT_STREQ(to_string(LotStatus::bad_aspect), "bad_aspect");
  EXPECT_STREQ(to_string(Massing::staggered), "staggered");
}

TEST(LotsFootprints, PolygonIsPlacedAndRotated) {
  BuildingDNA dna;
  dna.size_x_m = 20;
  dna.size_y_m = 10;
  dna.centre = {100, 50};
  dna.angle_rad = std::numbers::pi / 2;
  const Polygon poly = footprint_polygon(dna);
  EXPECT_NEAR(polygon_area(poly), 200.0, 1e-9);
  EXPECT_NEAR(ring_centroid(poly.outer).x, 100.0, 1e-9);
  EXPECT_NEAR(ring_centroid(poly.outer).y, 50.0, 1e-9);
  const Aabb2 bb = ring_bounds(poly.outer);
  EXPECT_NEAR(bb.max.x - bb.min.x, 10.0, 1e-9);  // x along the front now points north
  EXPECT_NEAR(bb.max.y - bb.min.y, 20.0, 1e-9);
  EXPECT_GT(ring_signed_area(poly.outer), 0.0);
}

TEST(LotsFootprints, MirroredOutlineSwapsItsSidesAndKeepsItsWinding) {
  for (std::size_t s = 0; s < kFootprintShapeCount; ++s) {
    const auto shape = static_cast<FootprintShape>(s);
    SCOPED_TRACE(to_string(shape));
    const Polygon poly = footprint_outline(shape, 20.0, 14.0, 0.4);
    const Polygon m = mirrored_outline(poly);
    std::string why;
    EXPECT_TRUE(polygon_is_valid(m, &why)) << why;
    EXPECT_GT(ring_signed_area(m.outer), 0.0);
    for (const Ring& hole : m.holes)
      EXPECT_LT(ring_signed_area(hole), 0.0);
    EXPECT_NEAR(polygon_area(m), polygon_area(poly), 1e-9);
    // Every point of the mirror is a point of the original seen from behind its y axis.
    ASSERT_EQ(m.outer.size(), poly.outer.size());
    for (const Vec2& q : m.outer) {
      EXPECT_TRUE(std::any_of(poly.outer.begin(), poly.outer.end(),
                              [&](Vec2 p) { return p.x == -q.x && p.y == q.y; }));
    }
  }
  // The L shape's notch (back right) opens on the left once mirrored.
  const Polygon l = footprint_outline(FootprintShape::l_shape, 20.0, 20.0, 0.5);
  EXPECT_TRUE(polygon_contains(l, {-8.0, 8.0}));
  EXPECT_FALSE(polygon_contains(l, {8.0, 8.0}));
  const Polygon ml = mirrored_outline(l);
  EXPECT_FALSE(polygon_contains(ml, {-8.0, 8.0}));
  EXPECT_TRUE(polygon_contains(ml, {8.0, 8.0}));
  BuildingDNA dna;
  dna.shape = FootprintShape::l_shape;
  dna.size_x_m = 20;
  dna.size_y_m = 20;
  dna.mirrored = true;
  dna.centre = {100, 50};
  EXPECT_FALSE(polygon_contains(footprint_polygon(dna), {92.0, 58.0}));
  EXPECT_TRUE(polygon_contains(footprint_polygon(dna), {108.0, 58.0}));
}

}  // namespace
}  // namespace cityforge::lots
