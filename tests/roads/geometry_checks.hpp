// SPDX-License-Identifier: Apache-2.0
// The road geometry's shared invariants, for the geometry tests (unit and city).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "cityforge/core/polygon.hpp"
#include "cityforge/core/polyline.hpp"
#include "cityforge/roads/roads.hpp"
#include "overlap_checks.hpp"

namespace cityforge::roads::test {

// Shared invariants: no overlaps, one intersection per node and one section per edge, legs
// counter-clockwise, every mouth on its junction surface.
inline void check_geometry(const layout::Output& city, const Output& out,
                           const Config& config = {}) {
  EXPECT_EQ(test::describe(test::overlaps(out)), "");
  ASSERT_EQ(out.intersections.size(), city.network.nodes.size());
  ASSERT_EQ(out.sections.size(), city.network.edges.size());
  for (std::size_t n = 0; n < out.intersections.size(); ++n) {
    const Intersection& x = out.intersections[n];
    SCOPED_TRACE("node " + std::to_string(n));
    EXPECT_EQ(x.node, n);
    ASSERT_EQ(x.legs.size(), city.network.nodes[n].edges.size());
    double prev = -10;
    for (const Leg& leg : x.legs) {
      EXPECT_NEAR(length(leg.direction), 1.0, 1e-9);
      const double a = std::atan2(leg.direction.y, leg.direction.x);
      EXPECT_GE(a, prev) << "legs counter-clockwise by leaving angle";
      prev = a;
      const Section& s = out.sections[leg.edge];
      EXPECT_DOUBLE_EQ(leg.trim_m, leg.at_edge_start ? s.trim_start_m : s.trim_end_m);
      if (x.legs.size() >= 3) {
        EXPECT_GE(leg.trim_m, config.min_trim_m - 1e-9);
      }
      if (x.legs.size() == 1) {
        EXPECT_EQ(leg.trim_m, 0.0);
      }
      if (!x.surface.outer.empty()) {
        // The mouth's centre lies on the junction surface's boundary (within 1 cm).
        const Vec2 m = leg.at_edge_start ? s.centre.front() : s.centre.back();
        Polyline boundary = x.surface.outer;
        boundary.push_back(boundary.front());
        EXPECT_LT(polyline_distance(boundary, m), 0.01);
      }
    }
  }
  for (const Section& s : out.sections) {
    const double len = polyline_length(city.network.edges[s.edge].points);
    EXPECT_LE(s.trim_start_m + s.trim_end_m, config.max_trim_share * len + 1e-6);
    // The corners run between the trim points (dropping a corner only shortens them); the
    // rounded centre line starts and ends there, or, at a rounded bend, on the shared arc.
    const Polyline& edge = city.network.edges[s.edge].points;
    ASSERT_GE(s.corners.size(), 2U);
    EXPECT_LT(distance(s.corners.front(), polyline_point_at(edge, s.trim_start_m)), 1e-6);
    EXPECT_LT(distance(s.corners.back(), polyline_point_at(edge, len - s.trim_end_m)), 1e-6);
    EXPECT_LE(polyline_length(s.corners), len - s.trim_start_m - s.trim_end_m + 1e-6);
    EXPECT_LE(polyline_length(s.centre), polyline_length(s.corners) + 1e-6);
    if (!s.joins[0].present) {
      EXPECT_LT(distance(s.centre.front(), s.corners.front()), 1e-9);
    }
    if (!s.joins[1].present) {
      EXPECT_LT(distance(s.centre.back(), s.corners.back()), 1e-9);
    }
    EXPECT_GT(polygon_area(s.surface), 0.0);
  }
}

}  // namespace cityforge::roads::test
