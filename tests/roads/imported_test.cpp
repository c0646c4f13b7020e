// SPDX-License-Identifier: Apache-2.0
// The road processor on imported-place networks: mapped controls, mapped crossings, one-way
// and asymmetric lanes, and roads on different layers crossing without a junction.
#include <gtest/gtest.h>

#include "cityforge/core/polygon.hpp"
#include "cityforge/roads/roads.hpp"
#include "roads/hand_networks.hpp"
#include "roads/overlap_checks.hpp"

namespace cityforge::roads {
namespace {

using layout::RoadClass;
using test::NetBuilder;

std::size_t count_tag(const Output& out, std::uint32_t tag) {
  std::size_t n = 0;
  for (const Lane& l : out.lanes.lanes)
    n += (l.tags & tag) != 0U ? 1 : 0;
  return n;
}

TEST(RoadsImported, ControlHintOverridesTheClasses) {
  // Four local legs: an all-way stop by class; mapped as a signal.
  layout::Output city = test::star({0, 90, 180, 270}, {RoadClass::local});
  auto plain = run(city, test::flat_ground(), Config{}, 1);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->intersections[0].control, Control::stop);
  EXPECT_TRUE(plain->lanes.signals.empty());
  city.network.nodes[0].control_hint = 1 + static_cast<std::uint8_t>(Control::signal);
  auto mapped = run(city, test::flat_ground(), Config{}, 1);
  ASSERT_TRUE(mapped.ok());
  EXPECT_EQ(mapped->intersections[0].control, Control::signal);
  ASSERT_EQ(mapped->lanes.signals.size(), 1U);
  EXPECT_EQ(mapped->geometry_stats.hints_ignored, 0U);
  // A hint on a dead end or bend is ignored and counted.
  city.network.nodes[1].control_hint = 1 + static_cast<std::uint8_t>(Control::signal);
  auto dead = run(city, test::flat_ground(), Config{}, 1);
  ASSERT_TRUE(dead.ok());
  EXPECT_EQ(dead->intersections[1].control, Control::none);
  EXPECT_EQ(dead->geometry_stats.hints_ignored, 1U);
  EXPECT_EQ(dead->lanes.signals.size(), 1U);
}

TEST(RoadsImported, MappedCrossingsOnlyWhereMapped) {
  layout::Output city = test::star({0, 90, 180, 270}, {RoadClass::main});
  auto all = run(city, test::flat_ground(), Config{}, 1);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(count_tag(*all, kCrosswalk), 4U);
  city.network.mapped_crossings = true;
  // A mapped signal's pedestrian phases cross every leg, mapped crossings or not.
  city.network.nodes[0].control_hint = 4;
  auto signalised = run(city, test::flat_ground(), Config{}, 1);
  ASSERT_TRUE(signalised.ok());
  EXPECT_EQ(count_tag(*signalised, kCrosswalk), 4U);
  // An all-way stop (as imports make unsignalised 4-leg junctions): only where mapped.
  city.network.nodes[0].control_hint = 3;
  auto none = run(city, test::flat_ground(), Config{}, 1);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(count_tag(*none, kCrosswalk), 0U);
  // Edges run from the centre (node 0): bit 0 is the junction end.
  city.network.edges[1].crossings = 1;
  city.network.edges[3].crossings = 1;
  auto two = run(city, test::flat_ground(), Config{}, 1);
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(count_tag(*two, kCrosswalk), 2U);
  std::size_t stripes = 0;
  for (const Decal& d : build_markings(city, *two, test::flat_ground(), Config{}))
    stripes += d.kind == MarkingKind::crosswalk_stripe ? 1 : 0;
  EXPECT_GT(stripes, 0U);
}

TEST(RoadsImported, OneWayLegsGetNoLanesAgainstThem) {
  // A T: the main road two-way, the local leg one-way away from the junction.
  NetBuilder b;
  const auto c = b.node({0, 0});
  const auto w = b.node({-150, 0});
  const auto e = b.node({150, 0});
  const auto n = b.node({0, 150});
  b.edge(w, c, RoadClass::main);
  b.edge(c, e, RoadClass::main);
  const auto side = b.edge(c, n, RoadClass::local);
  layout::Output city = b.finish();
  city.network.edges[side].lanes_backward = 0;
  auto out = run(city, test::flat_ground(), Config{}, 1);
  ASSERT_TRUE(out.ok()) << out.error().to_string();
  for (const Lane& l : out->lanes.lanes) {
    if ((l.tags & kVehicle) == 0U) continue;
    if (l.section == static_cast<std::int32_t>(side)) {
      EXPECT_TRUE(l.forward);
    }
    if ((l.tags & kIntersection) != 0U) {
      ASSERT_EQ(l.successors.size(), 1U);
      const Lane& to = out->lanes.lanes[l.successors[0]];
      ASSERT_EQ(l.predecessors.size(), 1U);
      const Lane& from = out->lanes.lanes[l.predecessors[0]];
      EXPECT_NE(from.section, static_cast<std::int32_t>(side)) << "no lane comes out of it";
      (void)to;
    }
  }
  // Movements into the one-way leg exist (from both main legs), none out of it.
  std::size_t into = 0;
  for (const Lane& l : out->lanes.lanes) {
    if ((l.tags & kIntersection) == 0U || (l.tags & kVehicle) == 0U) continue;
    into += out->lanes.lanes[l.successors[0]].section == static_cast<std::int32_t>(side) ? 1 : 0;
  }
  EXPECT_EQ(into, 2U);
  // No centre line on the one-way section.
  for (const Decal& d : build_markings(city, *out, test::flat_ground(), Config{})) {
    if (d.section_or_intersection != side) continue;
    EXPECT_NE(d.kind, MarkingKind::lane_dashed) << "one lane, one way: no line inside";
  }
}

TEST(RoadsImported, RoadsOnDifferentLayersCrossWithoutClipping) {
  NetBuilder b;
  const auto a0 = b.node({-200, 0});
  const auto a1 = b.node({200, 0});
  const auto b0 = b.node({0, -200});
  const auto b1 = b.node({0, 200});
  b.edge(a0, a1, RoadClass::main);
  b.edge(b0, b1, RoadClass::artery);
  layout::Output city = b.finish();
  auto same = run(city, test::flat_ground(), Config{}, 1);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->geometry_stats.surfaces_clipped, 1U);  // One layer: the crossing is cut.
  city.network.edges[1].layer = 1;
  city.network.edges[1].bridge = true;
  auto bridge = run(city, test::flat_ground(), Config{}, 1);
  ASSERT_TRUE(bridge.ok());
  EXPECT_EQ(bridge->geometry_stats.surfaces_clipped, 0U);
  EXPECT_NEAR(polygon_area(bridge->sections[0].surface), 400.0 * city.network.edges[0].width_m,
              1.0);
  EXPECT_NEAR(polygon_area(bridge->sections[1].surface), 400.0 * city.network.edges[1].width_m,
              1.0);
  // Tunnels are not drawn: no road modules on them.
  city.network.edges[1].layer = -1;
  city.network.edges[1].bridge = false;
  city.network.edges[1].tunnel = true;
  auto tunnel = run(city, test::flat_ground(), Config{}, 1);
  ASSERT_TRUE(tunnel.ok());
  EXPECT_EQ(tunnel->geometry_stats.surfaces_clipped, 0U);
  for (const ModuleInstance& m : tunnel->modules)
    EXPECT_NE(m.owner, 1U);
}

}  // namespace
}  // namespace cityforge::roads
