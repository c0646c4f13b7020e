// SPDX-License-Identifier: Apache-2.0
// SUMO plain XML of a hand-made T junction (generated cities and SUMO itself are in
// sumo_writer_city_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "cityforge/export/export.hpp"
#include "cityforge/layout/layout.hpp"
#include "sumo_fixture.hpp"

namespace cityforge::exporter {
namespace {

using layout::RoadClass;

using namespace sumo_test;

TEST(SumoPlainXml, WritesNodesAndTwoOneWayEdgesPerRoad) {
  auto files = plain_xml(t_junction(), {});
  ASSERT_TRUE(files.ok()) << files.error().to_string();
  for (const char* id : {"n0", "n1", "n2", "n3"}) {
    EXPECT_NE(line_with_id(files->nodes, id), "") << id;
  }
  EXPECT_EQ(attribute(line_with_id(files->nodes, "n2"), "x"), "100");
  EXPECT_EQ(attribute(line_with_id(files->nodes, "n2"), "y"), "80");

  const std::string e0f = line_with_id(files->edges, "e0f");
  const std::string e0b = line_with_id(files->edges, "e0b");
  EXPECT_EQ(attribute(e0f, "from"), "n0");
  EXPECT_EQ(attribute(e0f, "to"), "n1");
  EXPECT_EQ(attribute(e0b, "from"), "n1");
  EXPECT_EQ(attribute(e0b, "to"), "n0");
  EXPECT_EQ(attribute(e0f, "numLanes"), "3");
  EXPECT_EQ(attribute(e0f, "speed"), "16.6666667");  // 60 km/h
  EXPECT_EQ(attribute(e0f, "width"), "3.5");         // 21 m over 6 lanes
  EXPECT_EQ(attribute(e0f, "spreadType"), "right");
  EXPECT_EQ(attribute(e0f, "priority"), "3");
  const std::string e2b = line_with_id(files->edges, "e2b");
  EXPECT_EQ(attribute(e2b, "numLanes"), "2");
  EXPECT_EQ(attribute(e2b, "speed"), "13.8888889");  // 50 km/h
  EXPECT_EQ(attribute(line_with_id(files->edges, "e1f"), "numLanes"), "1");

  std::size_t edges = 0;
  for (std::size_t at = files->edges.find("<edge "); at != std::string::npos;
       at = files->edges.find("<edge ", at + 1)) {
    ++edges;
  }
  EXPECT_EQ(edges, 6U);
  EXPECT_NE(files->connections.find("<connections>"), std::string::npos);
  EXPECT_NE(files->tll.find("<tlLogics>"), std::string::npos);
}

TEST(SumoPlainXml, BackEdgeShapeIsTheForwardShapeReversed) {
  auto files = plain_xml(t_junction(), {});
  ASSERT_TRUE(files.ok()) << files.error().to_string();
  const auto forward = split_spaces(attribute(line_with_id(files->edges, "e0f"), "shape"));
  auto back = split_spaces(attribute(line_with_id(files->edges, "e0b"), "shape"));
  EXPECT_EQ(forward, (std::vector<std::string>{"0,0", "50,5.5", "100,0"}));
  std::reverse(back.begin(), back.end());
  EXPECT_EQ(back, forward);
  // The repeated point of edge 2 is written once.
  EXPECT_EQ(attribute(line_with_id(files->edges, "e2f"), "shape"), "100,0 175,0 250,0");
}

TEST(SumoPlainXml, NodeTypesFollowTheJunctionControl) {
  auto guessed = plain_xml(t_junction(), {});
  ASSERT_TRUE(guessed.ok());
  EXPECT_EQ(attribute(line_with_id(guessed->nodes, "n1"), "type"), "<none>");
  EXPECT_EQ(attribute(line_with_id(guessed->nodes, "n2"), "type"), "priority");  // dead end

  const std::vector<std::pair<std::uint8_t, std::string>> cases = {
      {0, "right_before_left"}, {1, "priority"}, {2, "priority_stop"}, {3, "traffic_light"}};
  for (const auto& [control, type] : cases) {
    auto files = plain_xml(t_junction(), {0, control, 0, 0});
    ASSERT_TRUE(files.ok()) << files.error().to_string();
    EXPECT_EQ(attribute(line_with_id(files->nodes, "n1"), "type"), type) << int{control};
  }
  // A stop where all legs share a class is an all-way stop.
  layout::Output same = t_junction();
  for (layout::RoadEdge& e : same.network.edges) {
    e.road_class = RoadClass::local;
  }
  auto files = plain_xml(same, {0, 2, 0, 0});
  ASSERT_TRUE(files.ok());
  EXPECT_EQ(attribute(line_with_id(files->nodes, "n1"), "type"), "allway_stop");
}

TEST(SumoPlainXml, IsDeterministic) {
  const auto a = plain_xml(t_junction(), {0, 3, 0, 0});
  const auto b = plain_xml(t_junction(), {0, 3, 0, 0});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->nodes, b->nodes);
  EXPECT_EQ(a->edges, b->edges);
  EXPECT_EQ(a->connections, b->connections);
  EXPECT_EQ(a->tll, b->tll);
}

TEST(SumoPlainXml, RejectsNonFiniteCoordinatesNamingTheEdge) {
  layout::Output city = t_junction();
  city.network.edges[1].points[1].x = std::numeric_limits<double>::quiet_NaN();
  auto files = plain_xml(city, {});
  ASSERT_FALSE(files.ok());
  EXPECT_EQ(files.error().code, ErrorCode::invalid_input);
  EXPECT_EQ(files.error().where, "network.edges[1].points[1]");

  city = t_junction();
  city.network.nodes[3].pos.y = std::numeric_limits<double>::infinity();
  files = plain_xml(city, {});
  ASSERT_FALSE(files.ok());
  EXPECT_EQ(files.error().where, "network.nodes[3].pos");
}

TEST(SumoPlainXml, RejectsBadControlAndBadEdges) {
  EXPECT_EQ(plain_xml(t_junction(), {0, 1}).error().where, "node_control");
  EXPECT_EQ(plain_xml(t_junction(), {0, 4, 0, 0}).error().where, "node_control[1]");
  layout::Output city = t_junction();
  city.network.edges[2].to = 9;
  EXPECT_EQ(plain_xml(city, {}).error().where, "network.edges[2]");
  city = t_junction();
  city.network.edges[0].lanes_per_direction = 0;
  EXPECT_EQ(plain_xml(city, {}).error().where, "network.edges[0].lanes_per_direction");
}

}  // namespace
}  // namespace cityforge::exporter
