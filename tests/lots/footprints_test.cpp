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

}  // namespace
}  // namespace cityforge::lots
