// SPDX-License-Identifier: Apache-2.0
// Land use, water, street furniture, trees, barriers and paths of a hand-made extract: which
// features are taken, how they are clipped to the imported area, what the census counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <numbers>
#include <string>

#include "cityforge/osm/osm.hpp"

namespace cityforge::osm {
namespace {

Polygon square(double x0, double y0, double x1, double y1) {
  return Polygon{{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}}, {}};
}

Area area(std::int64_t id, Polygon poly, Tags tags) {
  Area a;
  a.osm_id = id;
  a.polygons.push_back(std::move(poly));
  a.tags = std::move(tags);
  return a;
}

Node node(std::int64_t id, Vec2 pos, Tags tags) {
  Node n;
  n.id = id;
  n.pos = pos;
  n.tags = std::move(tags);
  return n;
}

const Aabb2 kArea{{0.0, 0.0}, {200.0, 200.0}};

Extract make_extract() {
  Extract e;
  e.source = "hand-made";
  // Grass half outside the area (clipped), a pond with an island, a park, a parking garage
  // (a building: not ground), residential land use (not drawn).
  e.areas.push_back(area(1, square(-50, 10, 50, 60), {{"landuse", "grass"}}));
  Polygon pond = square(100, 100, 160, 160);
  pond.holes.push_back({{120, 120}, {120, 140}, {140, 140}, {140, 120}});
  e.areas.push_back(area(2, pond, {{"natural", "water"}}));
  e.areas.push_back(
      area(3, square(10, 100, 40, 130), {{"amenity", "parking"}, {"building", "yes"}}));
  e.areas.push_back(area(4, square(0, 0, 200, 200), {{"landuse", "residential"}}));
  e.areas.push_back(area(5, square(60, 10, 90, 40), {{"leisure", "park"}, {"name", "Green"}}));
  e.areas.push_back(area(6, square(300, 300, 400, 400), {{"natural", "wood"}}));  // Outside.
  // Furniture and a tree; one bench outside the area, one facing east, a cafe (not furniture).
  e.nodes.push_back(node(10, {20, 20}, {{"amenity", "bench"}}));
  e.nodes.push_back(node(11, {30, 30}, {{"natural", "tree"}}));
  e.nodes.push_back(node(12, {40, 40}, {{"emergency", "fire_hydrant"}}));
  e.nodes.push_back(node(13, {-20, 20}, {{"amenity", "bench"}}));
  e.nodes.push_back(node(14, {50, 50}, {{"amenity", "bench"}, {"direction", "E"}}));
  e.nodes.push_back(node(15, {60, 60}, {{"amenity", "cafe"}}));
  // A fence crossing the area's edge, a road (not a barrier).
  Way fence;
  fence.id = 20;
  fence.points = {{-30, 80}, {30, 80}, {30, 90}};
  fence.tags = {{"barrier", "fence"}, {"height", "1.8 m"}};
  e.ways.push_back(fence);
  Way road;
  road.id = 21;
  road.points = {{0, 150}, {200, 150}};
  road.tags = {{"highway", "residential"}};
  e.ways.push_back(road);
  return e;
}

std::vector<PathWay> make_paths() {
  std::vector<PathWay> paths(2);
  paths[0].osm_way = 40;
  paths[0].highway = std::max(0, find_highway("steps"));
  paths[0].points = {{10, 170}, {60, 170}};
  paths[0].width_m = 3.0;
  paths[1].osm_way = 41;
  paths[1].points = {{10, 180}, {60, 180}};
  paths[1].tunnel = true;
  return paths;
}

TEST(Features, CensusCountsWhatWasTaken) {
  const FeatureBuild b = build_features(make_extract(), kArea, make_paths());
  EXPECT_EQ(b.census.ground_areas, 2U);  // grass, park
  EXPECT_EQ(b.census.water_areas, 1U);
  EXPECT_EQ(b.census.props_mapped, 3U);  // two benches inside, the hydrant
  EXPECT_EQ(b.census.trees_mapped, 1U);
  EXPECT_EQ(b.census.barrier_ways, 1U);
  EXPECT_FALSE(b.mapped.procedural_furniture);
}

TEST(Features, AreasAreClassifiedAndClippedWithTheirHoles) {
  const dressing::Mapped m = build_features(make_extract(), kArea, {}).mapped;
  ASSERT_EQ(m.areas.size(), 3U);
  // Sorted by osm id.
  EXPECT_EQ(m.areas[0].osm_id, 1);
  EXPECT_EQ(m.areas[0].kind, dressing::GroundKind::grass);
  EXPECT_NEAR(polygon_area(m.areas[0].area), 50.0 * 50.0, 1e-6);  // The half inside.
  for (const Vec2& p : m.areas[0].area.outer)
    EXPECT_GE(p.x, -1e-9);
  EXPECT_EQ(m.areas[1].osm_id, 2);
  EXPECT_EQ(m.areas[1].kind, dressing::GroundKind::water);
  EXPECT_EQ(m.areas[1].area.holes.size(), 1U);
  EXPECT_NEAR(polygon_area(m.areas[1].area), 60.0 * 60.0 - 20.0 * 20.0, 1e-6);
  EXPECT_FALSE(polygon_contains(m.areas[1].area, {130, 130}));
  EXPECT_EQ(m.areas[2].osm_id, 5);
  EXPECT_EQ(m.areas[2].kind, dressing::GroundKind::park);
}

TEST(Features, NodesBecomeCatalogueProps) {
  const dressing::Mapped m = build_features(make_extract(), kArea, {}).mapped;
  ASSERT_EQ(m.props.size(), 4U);
  EXPECT_EQ(m.props[0].osm_id, 10);
  EXPECT_EQ(m.props[0].prop, static_cast<std::uint32_t>(dressing::find_prop("bench")));
  EXPECT_TRUE(m.props[0].face_road);
  EXPECT_EQ(m.props[0].position, (Vec2{20, 20}));
  EXPECT_EQ(m.props[1].prop, static_cast<std::uint32_t>(dressing::find_prop("park_tree")));
  EXPECT_FALSE(m.props[1].face_road);
  EXPECT_EQ(m.props[2].prop, static_cast<std::uint32_t>(dressing::find_prop("hydrant")));
  // direction=E: facing +x, not the road.
  EXPECT_EQ(m.props[3].osm_id, 14);
  EXPECT_FALSE(m.props[3].face_road);
  EXPECT_NEAR(m.props[3].yaw_rad, 0.0, 1e-12);
}

TEST(Features, BarriersAreClippedToTheArea) {
  const dressing::Mapped m = build_features(make_extract(), kArea, {}).mapped;
  ASSERT_EQ(m.barriers.size(), 1U);
  const dressing::Barrier& f = m.barriers[0];
  EXPECT_EQ(f.kind, dressing::BarrierKind::fence);
  EXPECT_EQ(f.osm_id, 20);
  EXPECT_NEAR(f.height_m, 1.8, 1e-12);
  EXPECT_NEAR(polyline_length(f.points), 30.0 + 10.0, 1e-6);
  for (const Vec2& p : f.points)
    EXPECT_GE(p.x, -1e-9);
}

TEST(Features, PathsSkipTunnels) {
  const dressing::Mapped m = build_features(make_extract(), kArea, make_paths()).mapped;
  ASSERT_EQ(m.paths.size(), 1U);
  EXPECT_EQ(m.paths[0].osm_id, 40);
  EXPECT_NEAR(m.paths[0].width_m, 3.0, 1e-12);
  EXPECT_EQ(m.paths[0].steps, find_highway("steps") >= 0);
}

TEST(Features, IsDeterministicWhateverTheInputOrder) {
  Extract a = make_extract();
  Extract b = make_extract();
  std::reverse(b.areas.begin(), b.areas.end());
  std::reverse(b.nodes.begin(), b.nodes.end());
  std::reverse(b.ways.begin(), b.ways.end());
  const dressing::Mapped ma = build_features(a, kArea, {}).mapped;
  const dressing::Mapped mb = build_features(b, kArea, {}).mapped;
  ASSERT_EQ(ma.areas.size(), mb.areas.size());
  for (std::size_t i = 0; i < ma.areas.size(); ++i) {
    EXPECT_EQ(ma.areas[i].osm_id, mb.areas[i].osm_id);
    EXPECT_EQ(ma.areas[i].area.outer, mb.areas[i].area.outer);
  }
  ASSERT_EQ(ma.props.size(), mb.props.size());
  for (std::size_t i = 0; i < ma.props.size(); ++i)
    EXPECT_EQ(ma.props[i].osm_id, mb.props[i].osm_id);
}

}  // namespace
}  // namespace cityforge::osm
