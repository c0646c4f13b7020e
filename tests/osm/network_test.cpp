// SPDX-License-Identifier: Apache-2.0
// OSM highways -> road network: tag parsing, splitting at shared nodes, levels, one-way and
// asymmetric lanes, signals and crossings snapped to junctions (the sample extracts are in
// network_city_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "cityforge/core/polygon.hpp"
#include "cityforge/osm/osm.hpp"
#include "cityforge/roads/roads.hpp"
#include "osm/fixture.hpp"
#include "osm/junction_overlaps.hpp"

namespace cityforge::osm {
namespace {

using testing::flat;

// ---- Hand-made extracts -------------------------------------------------------------------

struct Builder {
  Extract x;
  std::map<std::int64_t, Vec2> pos;

  void node(std::int64_t id, double px, double py, Tags tags = {}) {
    pos[id] = {px, py};
    if (!tags.empty()) {
      std::sort(tags.begin(), tags.end());
      Node n;
      n.id = id;
      n.pos = {px, py};
      n.tags = std::move(tags);
      x.nodes.push_back(std::move(n));
    }
  }
  void way(std::int64_t id, std::vector<std::int64_t> refs, Tags tags) {
    Way w;
    w.id = id;
    for (std::int64_t r : refs)
      w.points.push_back(pos.at(r));
    w.refs = std::move(refs);
    std::sort(tags.begin(), tags.end());
    w.tags = std::move(tags);
    x.ways.push_back(std::move(w));
  }
  Extract done() {
    std::sort(x.nodes.begin(), x.nodes.end(),
              [](const Node& a, const Node& b) { return a.id < b.id; });
    std::sort(x.ways.begin(), x.ways.end(), [](const Way& a, const Way& b) { return a.id < b.id; });
    x.source = "hand.osm";
    return x;
  }
};

const Aabb2 kArea{{-500.0, -500.0}, {500.0, 500.0}};

NetworkBuild build(const Extract& x, const NetworkConfig& config = {}) {
  Result<NetworkBuild> r = build_network(x, kArea, config);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string());
  return r.ok() ? std::move(r).value() : NetworkBuild{};
}

const layout::RoadNode* node_with_osm(const layout::RoadNetwork& net, std::int64_t id) {
  for (const layout::RoadNode& n : net.nodes) {
    if (n.osm_node == id) return &n;
  }
  return nullptr;
}

std::vector<const layout::RoadEdge*> edges_of_way(const layout::RoadNetwork& net, std::int64_t id) {
  std::vector<const layout::RoadEdge*> out;
  for (const layout::RoadEdge& e : net.edges) {
    if (e.osm_way == id) out.push_back(&e);
  }
  return out;
}

// A plus: way 1 west-east, way 2 south-north, sharing node 5.
Builder plus(const Tags& t1, const Tags& t2) {
  Builder b;
  // The ends lie outside kArea: the ways are cut at it.
  b.node(1, -700, 0);
  b.node(2, -100, 0);
  b.node(5, 0, 0);
  b.node(3, 100, 0);
  b.node(4, 700, 0);
  b.node(11, 0, -700);
  b.node(12, 0, -100);
  b.node(13, 0, 100);
  b.node(14, 0, 700);
  b.way(1, {1, 2, 5, 3, 4}, t1);
  b.way(2, {11, 12, 5, 13, 14}, t2);
  return b;
}

// ---- Tags ---------------------------------------------------------------------------------

TEST(OsmNetworkTags, Lengths) {
  EXPECT_DOUBLE_EQ(parse_length_m("7").value(), 7.0);
  EXPECT_DOUBLE_EQ(parse_length_m("7.5").value(), 7.5);
  EXPECT_DOUBLE_EQ(parse_length_m("7 m").value(), 7.0);
  EXPECT_DOUBLE_EQ(parse_length_m("7,5 m").value(), 7.5);
  EXPECT_NEAR(parse_length_m("20 ft").value(), 6.096, 1e-9);
  EXPECT_NEAR(parse_length_m("12'6\"").value(), 12 * 0.3048 + 6 * 0.0254, 1e-9);
  EXPECT_FALSE(parse_length_m("wide").has_value());
  EXPECT_FALSE(parse_length_m("-3").has_value());
  EXPECT_FALSE(parse_length_m("").has_value());
  EXPECT_FALSE(parse_length_m("7 parsecs").has_value());
}

TEST(OsmNetworkTags, Maxspeed) {
  EXPECT_DOUBLE_EQ(parse_maxspeed_kmh("50").value(), 50.0);
  EXPECT_NEAR(parse_maxspeed_kmh("30 mph").value(), 48.28, 0.01);
  EXPECT_DOUBLE_EQ(parse_maxspeed_kmh("DE:urban").value(), 50.0);
  EXPECT_DOUBLE_EQ(parse_maxspeed_kmh("DE:rural").value(), 100.0);
  EXPECT_DOUBLE_EQ(parse_maxspeed_kmh("FR:rural").value(), 90.0);
  EXPECT_DOUBLE_EQ(parse_maxspeed_kmh("DE:zone30").value(), 30.0);
  EXPECT_DOUBLE_EQ(parse_maxspeed_kmh("DE:zone:30").value(), 30.0);
  EXPECT_DOUBLE_EQ(parse_maxspeed_kmh("none").value(), 130.0);
  EXPECT_DOUBLE_EQ(parse_maxspeed_kmh("walk").value(), 7.0);
  EXPECT_FALSE(parse_maxspeed_kmh("signals").has_value());
  EXPECT_FALSE(parse_maxspeed_kmh("fast").has_value());
}

TEST(OsmNetworkTags, HighwayTable) {
  for (const char* name :
       {"motorway",     "trunk",        "primary",        "secondary",    "tertiary",
        "unclassified", "residential",  "living_street",  "service",      "track",
        "path",         "footway",      "cycleway",       "raceway",      "construction",
        "road",         "pedestrian",   "steps",          "bridleway",    "motorway_link",
        "trunk_link",   "primary_link", "secondary_link", "tertiary_link"}) {
    const int i = find_highway(name);
    ASSERT_GE(i, 0) << name;
    const HighwaySpec& s = highway_table()[static_cast<std::size_t>(i)];
    EXPECT_EQ(s.name, name);
    EXPECT_GT(s.width_m, 0.0) << name;
    EXPECT_GE(s.lanes, 1) << name;
  }
  EXPECT_EQ(find_highway("proposed"), -1);
  const auto spec = [](const char* n) {
    return highway_table()[static_cast<std::size_t>(find_highway(n))];
  };
  EXPECT_TRUE(spec("motorway").oneway);
  EXPECT_TRUE(spec("motorway_link").oneway);
  EXPECT_FALSE(spec("primary").oneway);
  EXPECT_EQ(spec("motorway").road_class, layout::RoadClass::artery);
  EXPECT_EQ(spec("primary_link").road_class, layout::RoadClass::artery);
  EXPECT_EQ(spec("tertiary").road_class, layout::RoadClass::main);
  EXPECT_EQ(spec("service").road_class, layout::RoadClass::local);
  EXPECT_TRUE(spec("track").vehicles);
  EXPECT_TRUE(spec("service").vehicles);
  for (const char* n : {"footway", "path", "cycleway", "pedestrian", "steps", "bridleway"}) {
    EXPECT_FALSE(spec(n).vehicles) << n;
  }
}

TEST(OsmNetworkTags, TagsOverrideDefaults) {
  Builder b;
  b.node(1, 0, 0);
  b.node(2, 100, 0);
  b.node(3, 0, 50);
  b.node(4, 100, 50);
  b.node(5, 0, 100);
  b.node(6, 100, 100);
  b.way(1, {1, 2},
        {{"highway", "residential"},
         {"width", "9.5 m"},
         {"maxspeed", "30 mph"},
         {"lit", "no"},
         {"sidewalk", "no"},
         {"lanes", "3"}});
  b.way(2, {3, 4},
        {{"highway", "primary"},
         {"lanes:forward", "2"},
         {"lanes:backward", "1"},
         {"turn:lanes:forward", "left|through"},
         {"sidewalk", "left"}});
  b.way(3, {5, 6}, {{"highway", "construction"}, {"construction", "secondary"}});
  const NetworkBuild nb = build(b.done());
  ASSERT_EQ(nb.layout.network.edges.size(), 3U);
  const layout::RoadEdge& r = *edges_of_way(nb.layout.network, 1)[0];
  EXPECT_DOUBLE_EQ(r.width_m, 9.5);
  EXPECT_NEAR(r.speed_limit_kmh, 48.28, 0.01);
  EXPECT_FALSE(r.lit);
  EXPECT_EQ(r.sidewalk_width_m, 0.0);
  EXPECT_EQ(r.lanes_forward(), 2);  // lanes=3 two-way: the odd lane goes forward.
  EXPECT_EQ(r.lanes_back(), 1);
  EXPECT_EQ(r.highway, find_highway("residential") + 1);
  const layout::RoadEdge& p = *edges_of_way(nb.layout.network, 2)[0];
  EXPECT_EQ(p.lanes_forward(), 2);
  EXPECT_EQ(p.lanes_back(), 1);
  EXPECT_EQ(p.turn_lanes_forward, "left|through");
  EXPECT_GT(p.sidewalk_width_m, 0.0);
  EXPECT_EQ(p.road_class, layout::RoadClass::artery);
  const layout::RoadEdge& c = *edges_of_way(nb.layout.network, 3)[0];
  EXPECT_EQ(c.highway, find_highway("construction") + 1);
  EXPECT_EQ(c.road_class, layout::RoadClass::main);  // The class under construction.
}

// ---- Topology -------------------------------------------------------------------------------

TEST(OsmNetwork, SplitsAtSharedNodes) {
  Builder b = plus({{"highway", "residential"}}, {{"highway", "residential"}});
  const NetworkBuild nb = build(b.done());
  const layout::RoadNetwork& net = nb.layout.network;
  EXPECT_EQ(net.edges.size(), 4U);
  const layout::RoadNode* centre = node_with_osm(net, 5);
  ASSERT_NE(centre, nullptr);
  EXPECT_EQ(centre->edges.size(), 4U);
  // Counter-clockwise by leaving angle: east, north, west, south after sorting by atan2.
  std::vector<double> angles;
  for (layout::EdgeId id : centre->edges) {
    const layout::RoadEdge& e = net.edges[id];
    const Vec2 d = e.from == centre->id ? e.points[1] - e.points[0]
                                        : e.points[e.points.size() - 2] - e.points.back();
    angles.push_back(std::atan2(d.y, d.x));
  }
  EXPECT_TRUE(std::is_sorted(angles.begin(), angles.end()));
  // Interior nodes 2, 3, 12, 13 are not split points.
  EXPECT_EQ(node_with_osm(net, 2), nullptr);
  EXPECT_EQ(nb.census.highway_ways, 2U);
  EXPECT_EQ(nb.census.vehicle_ways, 2U);
  EXPECT_EQ(nb.census.edges, 4U);
  // Four local legs: an all-way stop (no signal mapped).
  EXPECT_EQ(centre->control_hint, 3);
  EXPECT_TRUE(net.mapped_crossings);
  // Blocks: the four quadrants of the area.
  EXPECT_EQ(nb.layout.blocks.size(), 4U);
}

TEST(OsmNetwork, BridgeOverRoadMakesNoJunction) {
  Builder b = plus({{"highway", "residential"}},
                   {{"highway", "primary"}, {"bridge", "yes"}, {"layer", "1"}});
  const NetworkBuild nb = build(b.done());
  const layout::RoadNetwork& net = nb.layout.network;
  EXPECT_EQ(net.edges.size(), 2U);
  EXPECT_EQ(node_with_osm(net, 5), nullptr);
  for (const layout::RoadEdge& e : net.edges) {
    EXPECT_EQ(e.bridge, e.osm_way == 2);
    EXPECT_EQ(e.layer, e.osm_way == 2 ? 1 : 0);
  }
  // Blocks come from the surface roads only: the bridge does not cut them.
  EXPECT_EQ(nb.layout.blocks.size(), 2U);
  // The road processor keeps both surfaces whole where they cross.
  const terrain::Heightfield ground = flat(kArea);
  Result<roads::Output> r = roads::run(nb.layout, ground, roads::Config{}, Seed{1});
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->geometry_stats.surfaces_clipped, 0U);
  EXPECT_EQ(r->geometry_stats.junctions, 0U);
  EXPECT_NEAR(polygon_area(r->sections[0].surface), 1000.0 * net.edges[0].width_m, 1.0);
}

TEST(OsmNetwork, BridgeEndJoinsTheRoadBelow) {
  // The bridge starts on the surface road's node 5 (an end of the bridge): a T junction.
  Builder b;
  b.node(1, -200, 0);
  b.node(5, 0, 0);
  b.node(4, 200, 0);
  b.node(13, 0, 100);
  b.node(14, 0, 200);
  b.way(1, {1, 5, 4}, {{"highway", "residential"}});
  b.way(2, {5, 13, 14}, {{"highway", "residential"}, {"bridge", "yes"}});
  const NetworkBuild nb = build(b.done());
  const layout::RoadNode* t = node_with_osm(nb.layout.network, 5);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->edges.size(), 3U);
}

TEST(OsmNetwork, OnewayAndReverse) {
  Builder b;
  b.node(1, 0, 0);
  b.node(2, 100, 0);
  b.node(3, 0, 50);
  b.node(4, 100, 50);
  b.node(5, 0, 100);
  b.node(6, 100, 100);
  b.way(1, {1, 2}, {{"highway", "residential"}, {"oneway", "yes"}});
  b.way(2, {3, 4}, {{"highway", "residential"}, {"oneway", "-1"}, {"lanes:backward", "2"}});
  b.way(3, {5, 6}, {{"highway", "motorway"}});
  const NetworkBuild nb = build(b.done());
  const auto& net = nb.layout.network;
  const layout::RoadEdge& a = *edges_of_way(net, 1)[0];
  EXPECT_EQ(a.lanes_back(), 0);
  EXPECT_EQ(a.lanes_forward(), 1);
  EXPECT_LT(a.points.front().x, a.points.back().x);
  const layout::RoadEdge& r = *edges_of_way(net, 2)[0];
  EXPECT_EQ(r.lanes_back(), 0);
  EXPECT_EQ(r.lanes_forward(), 2);  // lanes:backward of the way, along the travel direction.
  EXPECT_GT(r.points.front().x, r.points.back().x);
  EXPECT_EQ(net.nodes[r.from].osm_node, 4);
  const layout::RoadEdge& m = *edges_of_way(net, 3)[0];
  EXPECT_EQ(m.lanes_back(), 0);
  EXPECT_EQ(m.lanes_forward(), 2);
}

TEST(OsmNetwork, RoundaboutIsOnewayAndSplit) {
  Builder b;
  // A closed ring of 8 nodes (radius 30 m) with one entry road at node 100.
  std::vector<std::int64_t> ring;
  for (int k = 0; k < 8; ++k) {
    const double a = k * 3.14159265358979 / 4.0;
    b.node(100 + k, 30.0 * std::cos(a), 30.0 * std::sin(a));
    ring.push_back(100 + k);
  }
  ring.push_back(100);
  b.node(200, 200, 0);
  b.way(1, ring, {{"highway", "primary"}, {"junction", "roundabout"}});
  b.way(2, {200, 100}, {{"highway", "residential"}});
  // An isolated closed loop (no entry) is split in two.
  std::vector<std::int64_t> loop;
  for (int k = 0; k < 6; ++k) {
    const double a = k * 3.14159265358979 / 3.0;
    b.node(300 + k, -300 + 40.0 * std::cos(a), 300 + 40.0 * std::sin(a));
    loop.push_back(300 + k);
  }
  loop.push_back(300);
  b.way(3, loop, {{"highway", "service"}});
  const NetworkBuild nb = build(b.done());
  const auto& net = nb.layout.network;
  // The ring runs from the entry node back to it: split at its middle into two one-way edges
  // that follow each other.
  const auto round = edges_of_way(net, 1);
  ASSERT_EQ(round.size(), 2U);
  for (const layout::RoadEdge* e : round) {
    EXPECT_EQ(e->lanes_back(), 0);
    EXPECT_NE(e->from, e->to);
  }
  EXPECT_TRUE(round[0]->to == round[1]->from || round[1]->to == round[0]->from);
  const layout::RoadNode* entry = node_with_osm(net, 100);
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->edges.size(), 3U);
  const auto loop_edges = edges_of_way(net, 3);
  ASSERT_EQ(loop_edges.size(), 2U);
  for (const layout::RoadEdge* e : loop_edges)
    EXPECT_NE(e->from, e->to);
  // The road processor takes it, and the ring's lanes run one way only.
  const terrain::Heightfield ground = flat(kArea);
  Result<roads::Output> r = roads::run(nb.layout, ground, roads::Config{}, Seed{1});
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  for (const roads::Lane& lane : r->lanes.lanes) {
    if (lane.section < 0 || (lane.tags & roads::kVehicle) == 0U) continue;
    const layout::RoadEdge& e = net.edges[static_cast<std::size_t>(lane.section)];
    if (e.osm_way == 1) {
      EXPECT_TRUE(lane.forward);
    }
  }
}

TEST(OsmNetwork, AsymmetricLanesInTheLaneGraph) {
  Builder b;
  b.node(1, -200, 0);
  b.node(2, 200, 0);
  b.way(1, {1, 2}, {{"highway", "primary"}, {"lanes:forward", "3"}, {"lanes:backward", "1"}});
  const NetworkBuild nb = build(b.done());
  const terrain::Heightfield ground = flat(kArea);
  Result<roads::Output> r = roads::run(nb.layout, ground, roads::Config{}, Seed{1});
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  int fwd = 0;
  int bwd = 0;
  for (const roads::Lane& lane : r->lanes.lanes) {
    if (lane.section != 0 || (lane.tags & roads::kVehicle) == 0U) continue;
    (lane.forward ? fwd : bwd) += 1;
    // Forward lanes right of the centre (y < 0 for a west-east road), backward left.
    const double y = lane.points[lane.points.size() / 2].y;
    const double half = 0.5 * nb.layout.network.edges[0].width_m;
    EXPECT_LT(std::abs(y), half);
    if (!lane.forward) {
      EXPECT_GT(y, 0.0);
    }
  }
  EXPECT_EQ(fwd, 3);
  EXPECT_EQ(bwd, 1);
  // Dead ends: U-turn connectors only where lanes go both ways.
  for (const roads::Lane& lane : r->lanes.lanes) {
    if ((lane.tags & roads::kIntersection) == 0U || (lane.tags & roads::kVehicle) == 0U) continue;
    ASSERT_EQ(lane.predecessors.size(), 1U);
    ASSERT_EQ(lane.successors.size(), 1U);
  }
}

TEST(OsmNetwork, OnewayLaneGraphAndMarkings) {
  // A one-way street (way 1) crossing a two-way one: no lanes against way 1, no connectors
  // into it from its exit end, no centre line on it.
  Builder b = plus({{"highway", "secondary"}, {"oneway", "yes"}}, {{"highway", "secondary"}});
  const NetworkBuild nb = build(b.done());
  const auto& net = nb.layout.network;
  const terrain::Heightfield ground = flat(kArea);
  Result<roads::Output> r = roads::run(nb.layout, ground, roads::Config{}, Seed{1});
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  for (const roads::Lane& lane : r->lanes.lanes) {
    if ((lane.tags & roads::kVehicle) == 0U) continue;
    if (lane.section >= 0) {
      const layout::RoadEdge& e = net.edges[static_cast<std::size_t>(lane.section)];
      if (e.osm_way == 1) {
        EXPECT_TRUE(lane.forward) << lane.id;
      }
      continue;
    }
    // Connectors go from a lane into a lane.
    EXPECT_EQ(lane.predecessors.size(), 1U);
    EXPECT_EQ(lane.successors.size(), 1U);
  }
  for (const roads::Decal& d : roads::build_markings(nb.layout, *r, ground, roads::Config{})) {
    const layout::RoadEdge& e = net.edges[r->sections[d.section_or_intersection].edge];
    if (e.osm_way == 1) {
      EXPECT_NE(d.kind, roads::MarkingKind::centre_solid);
    }
  }
}

TEST(OsmNetwork, SignalsSnapToJunctions) {
  // A T junction at node 5; a signal 10 m along the east leg, another 60 m along the west leg
  // (too far), a give_way on the north leg of a second junction.
  Builder b;
  b.node(1, -200, 0);
  b.node(2, -60, 0, {{"highway", "traffic_signals"}});
  b.node(5, 0, 0);
  b.node(3, 10, 0, {{"highway", "traffic_signals"}});
  b.node(4, 200, 0);
  b.node(13, 0, 200);
  b.way(1, {1, 2, 5, 3, 4}, {{"highway", "primary"}});
  b.way(2, {5, 13}, {{"highway", "residential"}});
  const NetworkBuild nb = build(b.done());
  const auto& net = nb.layout.network;
  const layout::RoadNode* t = node_with_osm(net, 5);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->control_hint, 4);
  EXPECT_EQ(nb.census.signal_nodes, 2U);
  EXPECT_EQ(nb.census.signals_mapped, 1U);
  const terrain::Heightfield ground = flat(kArea);
  Result<roads::Output> r = roads::run(nb.layout, ground, roads::Config{}, Seed{1});
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->intersections[t->id].control, roads::Control::signal);
  ASSERT_EQ(r->lanes.signals.size(), 1U);
  EXPECT_EQ(r->lanes.signals[0].intersection, t->id);
  // Without the near signal the same junction only yields (never an unmapped signal).
  Builder c;
  c.node(1, -200, 0);
  c.node(5, 0, 0);
  c.node(4, 200, 0);
  c.node(13, 0, 200);
  c.node(14, 0, -200, {{"highway", "give_way"}});
  c.way(1, {1, 5, 4}, {{"highway", "primary"}});
  c.way(2, {5, 13}, {{"highway", "primary"}});
  c.way(3, {14, 5}, {{"highway", "residential"}});
  const NetworkBuild nc = build(c.done());
  const layout::RoadNode* u = node_with_osm(nc.layout.network, 5);
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->control_hint, 3);  // Unmapped, major roads: stop for the minor legs.
}

TEST(OsmNetwork, CrossingsMarkLegEnds) {
  Builder b = plus({{"highway", "residential"}}, {{"highway", "residential"}});
  b.node(2, -8, 0, {{"highway", "crossing"}});    // West leg, 8 m from the junction.
  b.node(13, 0, 100, {{"highway", "crossing"}});  // North leg, 100 m: too far.
  Extract x = b.done();
  for (Way& w : x.ways) {
    for (std::size_t i = 0; i < w.refs.size(); ++i) {
      if (w.refs[i] == 2) w.points[i] = {-8, 0};
    }
  }
  const NetworkBuild nb = build(x);
  const auto& net = nb.layout.network;
  EXPECT_EQ(nb.census.crossing_nodes, 2U);
  EXPECT_EQ(nb.census.crossings_mapped, 1U);
  const layout::RoadNode* centre = node_with_osm(net, 5);
  ASSERT_NE(centre, nullptr);
  int bits = 0;
  for (const layout::RoadEdge& e : net.edges) {
    if (e.crossings == 0) continue;
    ++bits;
    const bool at_from = (e.crossings & 1U) != 0U;
    EXPECT_EQ(at_from ? e.from : e.to, centre->id);
    EXPECT_LT((at_from ? e.points.back() : e.points.front()).x, 0.0);  // The west leg.
  }
  EXPECT_EQ(bits, 1);
  const terrain::Heightfield ground = flat(kArea);
  Result<roads::Output> r = roads::run(nb.layout, ground, roads::Config{}, Seed{1});
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  int crosswalks = 0;
  for (const roads::Lane& lane : r->lanes.lanes)
    crosswalks += (lane.tags & roads::kCrosswalk) != 0U ? 1 : 0;
  EXPECT_EQ(crosswalks, 1);
}

TEST(OsmNetwork, ClipsToTheAreaAndCountsEveryWay) {
  Builder b;
  b.node(1, -900, 0);
  b.node(2, 900, 0);
  b.node(3, 0, -900);
  b.node(4, 0, 900);
  b.node(5, 600, 600);
  b.node(6, 700, 700);
  b.node(7, 100, 100);
  b.node(8, 100, 300);
  b.node(9, 300, 100);
  b.node(10, 300, 300);
  b.way(1, {1, 2}, {{"highway", "residential"}});  // Crosses the whole area: cut twice.
  b.way(2, {3, 4}, {{"highway", "footway"}});      // A path, cut at the area.
  b.way(3, {5, 6}, {{"highway", "residential"}});  // Outside: not counted.
  b.way(4, {7, 8}, {{"highway", "proposed"}});     // Skipped (documented).
  b.way(5, {9, 10}, {{"highway", "platform"}});    // Skipped.
  b.way(6, {7, 9, 10, 8, 7}, {{"highway", "pedestrian"}, {"area", "yes"}});  // Square: skipped.
  const NetworkBuild nb = build(b.done());
  const auto& c = nb.census;
  EXPECT_EQ(c.highway_ways, 5U);
  EXPECT_EQ(c.vehicle_ways, 1U);
  EXPECT_EQ(c.path_ways, 1U);
  EXPECT_EQ(c.skipped_ways, 3U);
  EXPECT_EQ(c.highway_ways, c.vehicle_ways + c.path_ways + c.skipped_ways);
  EXPECT_GE(c.edges, c.vehicle_ways);
  ASSERT_EQ(nb.layout.network.edges.size(), 1U);
  for (Vec2 p : nb.layout.network.edges[0].points) {
    EXPECT_TRUE(kArea.contains(p));
  }
  EXPECT_NEAR(nb.layout.network.edges[0].length_m, 1000.0, 1e-6);
  ASSERT_EQ(nb.paths.size(), 1U);
  EXPECT_NEAR(polyline_length(nb.paths[0].points), 1000.0, 1e-6);
  EXPECT_FALSE(nb.warnings.empty());
  EXPECT_EQ(nb.layout.boundary.outer.size(), 4U);
}

TEST(OsmNetwork, TinyPiecesAreContracted) {
  // Two junctions 0.3 m apart (a mapping wobble) become one.
  Builder b;
  b.node(1, -200, 0);
  b.node(5, 0, 0);
  b.node(6, 0.3, 0);
  b.node(4, 200, 0);
  b.node(13, 0, 200);
  b.node(14, 0.3, -200);
  b.way(1, {1, 5, 6, 4}, {{"highway", "residential"}});
  b.way(2, {5, 13}, {{"highway", "residential"}});
  b.way(3, {6, 14}, {{"highway", "residential"}});
  const NetworkBuild nb = build(b.done());
  const auto& net = nb.layout.network;
  EXPECT_EQ(net.edges.size(), 4U);
  for (const layout::RoadEdge& e : net.edges)
    EXPECT_GE(e.length_m, 0.5);
  std::size_t four = 0;
  for (const layout::RoadNode& n : net.nodes)
    four += n.edges.size() == 4 ? 1 : 0;
  EXPECT_EQ(four, 1U);
}

}  // namespace
}  // namespace cityforge::osm
