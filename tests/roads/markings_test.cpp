// SPDX-License-Identifier: Apache-2.0
// Road markings: every decal lies on the road surface (height and plan), arteries get double
// centre lines, stop lines sit on the incoming lanes before the crosswalk, crosswalk stripes on
// the crosswalk lanes, arrows match the lanes' movements; deterministic.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "cityforge/core/polygon.hpp"
#include "cityforge/core/polyline.hpp"
#include "cityforge/roads/roads.hpp"
#include "roads/hand_networks.hpp"
#include "roads/markings_checks.hpp"

namespace cityforge::roads {
namespace {

using RC = layout::RoadClass;
using test::flat_ground;
using test::star;

using namespace markings_test;

terrain::Heightfield sloped_ground() {
  terrain::Heightfield g = flat_ground();
  g.heights = {0, 10, 20, 5, 15, 25, 10, 20, 30};
  return g;
}

TEST(RoadsMarkings, SurfaceHeightFollowsTheExporterRule) {
  const layout::Output city = star({0, 90, 180}, {RC::artery, RC::local, RC::artery});
  const terrain::Heightfield g = sloped_ground();
  const Config config;
  const Painted roads = build(city, g, config);
  const auto& e = city.network.edges[0];
  const double half = 0.5 * e.width_m;
  const Vec2 c = section_point(roads, 0, 0.0, 30.0);
  const Vec2 curb = section_point(roads, 0, -half, 30.0);
  EXPECT_NEAR(distance(c, curb), half, 1e-9);
  EXPECT_NEAR(road_surface_z(city, roads, g, config, 0, 0.0, 30.0),
              g.sample(c) + config.road_raise_m + 0.04 + config.crown_m, 1e-12);
  EXPECT_NEAR(road_surface_z(city, roads, g, config, 0, -half, 30.0),
              g.sample(curb) + config.road_raise_m + 0.04, 1e-12);
  EXPECT_NEAR(junction_surface_z(city, roads, g, config, 0, {1, 1}),
              g.sample({1, 1}) + config.road_raise_m + 0.04, 1e-12);
}

TEST(RoadsMarkings, FourWayArteriesDoubleCentreStopLinesStripesArrows) {
  const layout::Output city = star({0, 90, 180, 270}, {RC::artery});
  const terrain::Heightfield g = sloped_ground();
  const Config config;
  const Painted roads = build(city, g, config);
  ASSERT_EQ(roads.intersections[0].control, Control::signal);
  check_all(city, roads, g, config, "4-way arteries");
  const auto n = count_kinds(roads.markings);
  EXPECT_GT(n.count(MarkingKind::centre_double_solid), 0U);
  EXPECT_EQ(n.count(MarkingKind::centre_solid), 0U);
  EXPECT_EQ(n.at(MarkingKind::stop_line), 4);
  // Double solid centre lines sit on the centre line of every artery section.
  for (const Decal& d : roads.markings) {
    if (d.kind != MarkingKind::centre_double_solid) continue;
    EXPECT_NEAR(lateral_of(roads.sections[d.section_or_intersection].centre, xy(d.position)), 0.0,
                1e-6);
  }
  // Each approach lane gets one arrow (2 lanes per direction on arteries).
  const int lanes_in = 4 * city.network.edges[0].lanes_per_direction;
  int arrows = 0;
  for (const auto& [k, c] : n)
    arrows += is_arrow(k) ? c : 0;
  EXPECT_EQ(arrows, lanes_in);
  EXPECT_GT(n.at(MarkingKind::crosswalk_stripe), 4 * 5);
  EXPECT_GT(n.at(MarkingKind::edge_solid), 8);
}

TEST(RoadsMarkings, TJunctionMainAndLocalLines) {
  const layout::Output city = star({0, 90, 180}, {RC::main, RC::local, RC::main});
  const terrain::Heightfield g = sloped_ground();
  const Config config;
  const Painted roads = build(city, g, config);
  check_all(city, roads, g, config, "T main/local");
  bool main_solid = false;
  bool local_dashed_centre = false;
  for (const Decal& d : roads.markings) {
    const auto cls = city.network.edges[roads.sections[d.section_or_intersection].edge].road_class;
    const double lat = lateral_of(roads.sections[d.section_or_intersection].centre, xy(d.position));
    EXPECT_NE(d.kind, MarkingKind::centre_double_solid);
    if (d.kind == MarkingKind::centre_solid) {
      EXPECT_EQ(cls, RC::main);
      main_solid = true;
    }
    if (d.kind == MarkingKind::lane_dashed && cls == RC::local && std::abs(lat) < 1e-6) {
      local_dashed_centre = true;
      EXPECT_NEAR(d.length_m, 3.0, 1e-9);
    }
  }
  EXPECT_TRUE(main_solid);
  EXPECT_TRUE(local_dashed_centre);
}

TEST(RoadsMarkings, CurvedRoadPiecesFollowTheSurface) {
  test::NetBuilder b;
  const auto a = b.node({-150, 0});
  const auto c = b.node({0, 0});
  const auto d = b.node({150, 40});
  const auto e = b.node({0, 150});
  b.edge(a, c, RC::artery, {{-100, -20}, {-50, -25}, {-20, -10}});
  b.edge(c, d, RC::artery, {{40, 10}, {90, 30}});
  b.edge(c, e, RC::main, {{10, 60}, {-10, 110}});
  const layout::Output city = b.finish();
  const terrain::Heightfield g = sloped_ground();
  const Config config;
  const Painted roads = build(city, g, config);
  check_all(city, roads, g, config, "curved T");
  EXPECT_GT(roads.markings.size(), 50U);
}

TEST(RoadsMarkings, ChecksCanFail) {
  const layout::Output city = star({0, 90, 180, 270}, {RC::artery, RC::main});
  const terrain::Heightfield g = sloped_ground();
  const Config config;
  const Painted roads = build(city, g, config);
  int n = 0;
  ASSERT_EQ(check_on_surface(city, roads, g, config), "");
  {  // Floating 5 mm too high.
    Painted bad = roads;
    bad.markings[0].outline[1].z += 0.005;
    EXPECT_NE(check_on_surface(city, bad, g, config), "");
  }
  {  // Off the carriageway.
    Painted bad = roads;
    for (Vec3& v : bad.markings[0].outline)
      v.y += 30.0;
    EXPECT_NE(check_on_surface(city, bad, g, config), "");
  }
  for (std::size_t i = 0; i < roads.markings.size(); ++i) {
    Painted bad = roads;
    Decal& d = bad.markings[i];
    if (d.kind == MarkingKind::crosswalk_stripe) {  // Moved off the crosswalk.
      for (Vec3& v : d.outline)
        v = v + Vec3{-std::sin(d.yaw_rad), std::cos(d.yaw_rad), 0.0} * 0.0 +
            Vec3{std::cos(d.yaw_rad), std::sin(d.yaw_rad), 0.0} * 4.0;
      EXPECT_NE(check_stripes(bad, &n), "");
    } else if (d.kind == MarkingKind::arrow_through) {  // Wrong movement.
      d.kind = MarkingKind::arrow_left;
      EXPECT_NE(check_arrows(bad, &n), "");
    } else if (d.kind == MarkingKind::stop_line) {  // Dropped.
      bad.markings.erase(bad.markings.begin() + static_cast<std::ptrdiff_t>(i));
      EXPECT_NE(check_stop_lines(bad, config, &n), "");
    }
  }
}

}  // namespace
}  // namespace cityforge::roads
