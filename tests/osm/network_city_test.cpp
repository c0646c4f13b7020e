// SPDX-License-Identifier: Apache-2.0
// The sample extracts through build_network and the road processor, with no overlapping road
// surfaces, and the same network twice (slow: label city).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "cityforge/core/polygon.hpp"
#include "cityforge/osm/osm.hpp"
#include "cityforge/roads/roads.hpp"
#include "osm/fixture.hpp"
#include "osm/junction_overlaps.hpp"

namespace cityforge::osm {
namespace {

// ---- Sample extracts --------------------------------------------------------------------------

using testing::flat;
using testing::junction_overlaps;
using testing::SampleFigures;

Aabb2 local_area(const Extract& x) {
  Result<Projection> proj = Projection::around(x.lon0, x.lat0);
  Aabb2 box;
  if (!proj.ok()) return box;
  for (double lon : {x.bounds.min_lon, x.bounds.max_lon}) {
    for (double lat : {x.bounds.min_lat, x.bounds.max_lat})
      box.add(proj->to_local(lon, lat));
  }
  return box;
}

class OsmNetworkSample : public ::testing::TestWithParam<const char*> {};

TEST_P(OsmNetworkSample, BuildsRoadsWithoutOverlaps) {
  const std::string path = std::string(CITYFORGE_TEST_DATA) + "/osm/" + GetParam();
  Result<Extract> x = read_file(path);
  ASSERT_TRUE(x.ok()) << x.error().to_string();
  const Aabb2 area = local_area(*x);
  ASSERT_FALSE(area.empty());
  Result<NetworkBuild> nb = build_network(*x, area);
  ASSERT_TRUE(nb.ok()) << nb.error().to_string();
  const RoadCensus& c = nb->census;
  const auto& net = nb->layout.network;
  // Every highway way inside is a vehicle way, a path or a documented skip.
  EXPECT_EQ(c.highway_ways, c.vehicle_ways + c.path_ways + c.skipped_ways);
  EXPECT_GT(c.vehicle_ways, 0U);
  EXPECT_GE(c.edges, c.vehicle_ways);
  EXPECT_EQ(c.edges, net.edges.size());
  EXPECT_LE(c.signals_mapped, c.signal_nodes);
  for (const layout::RoadEdge& e : net.edges) {
    ASSERT_GE(e.points.size(), 2U);
    EXPECT_NE(e.from, e.to);
    EXPECT_GE(e.length_m, 0.5 - 1e-9);
    for (Vec2 p : e.points) {
      EXPECT_TRUE(p.x >= area.min.x - 1e-6 && p.x <= area.max.x + 1e-6 &&
                  p.y >= area.min.y - 1e-6 && p.y <= area.max.y + 1e-6);
    }
  }
  const terrain::Heightfield ground = flat(area);
  Result<roads::Output> r = roads::run(nb->layout, ground, roads::Config{}, Seed{9});
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  // Signals: one plan per mapped signalised junction (at most).
  std::size_t hinted = 0;
  for (const layout::RoadNode& n : net.nodes)
    hinted += n.control_hint == 4 ? 1 : 0;
  EXPECT_EQ(hinted, c.signals_mapped);
  EXPECT_LE(r->lanes.signals.size(), c.signals_mapped);
  // One-way sections have lanes in one direction only; two-way ones in both.
  std::vector<std::array<int, 2>> dirs(net.edges.size(), {0, 0});
  for (const roads::Lane& lane : r->lanes.lanes) {
    if (lane.section < 0 || (lane.tags & roads::kVehicle) == 0U) continue;
    ++dirs[static_cast<std::size_t>(lane.section)][lane.forward ? 0 : 1];
  }
  for (std::size_t i = 0; i < net.edges.size(); ++i) {
    EXPECT_EQ(dirs[i][0], net.edges[i].lanes_forward()) << "edge " << i;
    EXPECT_EQ(dirs[i][1], net.edges[i].lanes_back()) << "edge " << i;
  }
  // No two surfaces overlap at junctions on the same level.
  const SampleFigures f = junction_overlaps(nb->layout, *r, 0.5);
  std::printf(
      "[ figures  ] %s: %zu ways (%zu vehicle, %zu paths, %zu skipped), %zu edges, %zu "
      "nodes, %u junction surfaces, %zu signals mapped / %zu plans, %zu crossings "
      "mapped, %zu blocks; %zu same-level junction pairs compared, worst overlap %.2e m2 "
      "(%s), %zu >= 0.5 m2; surfaces clipped %u, trims grown %u\n",
      GetParam(), c.highway_ways, c.vehicle_ways, c.path_ways, c.skipped_ways, net.edges.size(),
      net.nodes.size(), r->geometry_stats.junctions, c.signals_mapped, r->lanes.signals.size(),
      c.crossings_mapped, nb->layout.blocks.size(), f.junction_pairs, f.worst_m2, f.worst.c_str(),
      f.over, r->geometry_stats.surfaces_clipped, r->geometry_stats.trims_grown);
  EXPECT_EQ(f.over, 0U) << "worst: " << f.worst << " " << f.worst_m2 << " m2";
}

TEST(OsmNetworkSampleDeterminism, SameExtractSameNetwork) {
  Result<Extract> x = read_file(std::string(CITYFORGE_TEST_DATA) + "/osm/aberdeen_centre.osm");
  ASSERT_TRUE(x.ok()) << x.error().to_string();
  const Aabb2 area = local_area(*x);
  Result<NetworkBuild> a = build_network(*x, area);
  Result<NetworkBuild> b = build_network(*x, area);
  ASSERT_TRUE(a.ok() && b.ok());
  const auto& na = a->layout.network;
  const auto& nb = b->layout.network;
  ASSERT_EQ(na.nodes.size(), nb.nodes.size());
  ASSERT_EQ(na.edges.size(), nb.edges.size());
  for (std::size_t i = 0; i < na.nodes.size(); ++i) {
    EXPECT_EQ(na.nodes[i].pos, nb.nodes[i].pos);
    EXPECT_EQ(na.nodes[i].edges, nb.nodes[i].edges);
    EXPECT_EQ(na.nodes[i].control_hint, nb.nodes[i].control_hint);
  }
  for (std::size_t i = 0; i < na.edges.size(); ++i) {
    EXPECT_EQ(na.edges[i].points, nb.edges[i].points);
    EXPECT_EQ(na.edges[i].crossings, nb.edges[i].crossings);
    EXPECT_EQ(na.edges[i].osm_way, nb.edges[i].osm_way);
  }
  ASSERT_EQ(a->layout.blocks.size(), b->layout.blocks.size());
  for (std::size_t i = 0; i < a->layout.blocks.size(); ++i)
    EXPECT_EQ(a->layout.blocks[i].area.outer, b->layout.blocks[i].area.outer);
  ASSERT_EQ(a->paths.size(), b->paths.size());
}

// Andorra (the whole country, 4,764 highway ways) is left out: it takes long on 2 cores and
// shows nothing the others do not; the import integration test covers it end to end.
INSTANTIATE_TEST_SUITE_P(Samples, OsmNetworkSample,
                         ::testing::Values("manhattan_west_village.osm.pbf", "aberdeen_centre.osm",
                                           "munich_altstadt.osm.pbf", "baltimore_downtown.osm.pbf"),
                         [](const ::testing::TestParamInfo<const char*>& p) {
                           std::string n = p.param;
                           return n.substr(0, n.find('.'));
                         });

}  // namespace
}  // namespace cityforge::osm
