// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cityforge/traffic/network.hpp"

namespace cityforge::traffic {
namespace {

// A lanes.json in the exporter's layout: an approach, a connector with green, an exit and a
// crosswalk at junction 1 (junction 0 is a dead end).
const std::string kLanes =
    R"({"format":"cityforge-lanes","version":1,"units":"m, m/s, s; x east, y north, z up","lanes":[
{"id":0,"tags":["vehicle"],"width_m":3.5,"length_m":40,"speed_limit_mps":13.8888889,"section":0,"intersection":-1,"lane_index":0,"forward":true,"turn":"none","traffic_density":0.5,"pedestrian_density":0.25,"left_neighbour":null,"right_neighbour":null,"successors":[1],"predecessors":[],"points":[[-50,0,1.5],[-10,0,1.5]]},
{"id":1,"tags":["vehicle","intersection"],"width_m":3.5,"length_m":20,"speed_limit_mps":8.33333333,"section":-1,"intersection":1,"lane_index":0,"forward":true,"turn":"through","traffic_density":0.5,"pedestrian_density":0,"left_neighbour":null,"right_neighbour":null,"successors":[2],"predecessors":[0],"points":[[-10,0,1.5],[0,0,1.5],[10,0,1.5]]},
{"id":2,"tags":["vehicle","ramp"],"width_m":3.5,"length_m":40,"speed_limit_mps":13.8888889,"section":1,"intersection":-1,"lane_index":0,"forward":false,"turn":"none","traffic_density":0.5,"pedestrian_density":0.25,"left_neighbour":null,"right_neighbour":null,"successors":[],"predecessors":[1],"points":[[10,0,1.5],[50,0,1.5]]},
{"id":3,"tags":["crosswalk"],"width_m":3,"length_m":8,"speed_limit_mps":1.4,"section":-1,"intersection":1,"lane_index":-1,"forward":true,"turn":"none","traffic_density":0.5,"pedestrian_density":0.25,"left_neighbour":null,"right_neighbour":null,"successors":[],"predecessors":[],"points":[[14,-4,1.6],[14,4,1.6]]}
],"intersections":[
{"id":0,"node":0,"position":[-50,0],"control":"none","legs":[{"edge":0,"at_edge_start":true,"trim_m":0}]},
{"id":1,"node":1,"position":[0,0],"control":"signal","legs":[]}
],"signals":[
{"intersection":1,"offset_s":4,"cycle_s":28.5,"phases":[{"green_s":24,"yellow_s":3,"all_red_s":1.5,"green":[1],"walk":[]},{"green_s":10,"yellow_s":3,"all_red_s":1.5,"green":[],"walk":[3]}]}
]}
)";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(TrafficLanesJson, ReadsLanesJunctionsAndSignals) {
  const Result<LanesFile> file = parse_lanes_json(kLanes, "t.json");
  ASSERT_TRUE(file.ok()) << file.error().to_string();
  const auto& lanes = file->graph.lanes;
  ASSERT_EQ(lanes.size(), 4U);
  EXPECT_EQ(lanes[1].tags, roads::kVehicle | roads::kIntersection);
  EXPECT_EQ(lanes[2].tags, roads::kVehicle | roads::kRamp);
  EXPECT_EQ(lanes[1].turn, roads::Turn::through);
  EXPECT_EQ(lanes[1].intersection, 1);
  EXPECT_EQ(lanes[0].left_neighbour, kNoLane);
  EXPECT_FALSE(lanes[2].forward);
  EXPECT_EQ(lanes[0].successors, (std::vector<LaneId>{1}));
  EXPECT_EQ(lanes[2].predecessors, (std::vector<LaneId>{1}));
  EXPECT_DOUBLE_EQ(lanes[0].speed_limit_mps, 13.8888889);
  EXPECT_DOUBLE_EQ(lanes[0].traffic_density, 0.5);
  ASSERT_EQ(lanes[1].points.size(), 3U);
  EXPECT_DOUBLE_EQ(lanes[1].points[2].x, 10.0);
  EXPECT_DOUBLE_EQ(lanes[1].points[2].z, 1.5);
  EXPECT_EQ(file->controls,
            (std::vector<roads::Control>{roads::Control::none, roads::Control::signal}));
  ASSERT_EQ(file->graph.signals.size(), 1U);
  const roads::SignalPlan& plan = file->graph.signals[0];
  EXPECT_EQ(plan.intersection, 1U);
  EXPECT_DOUBLE_EQ(plan.offset_s, 4.0);
  ASSERT_EQ(plan.phases.size(), 2U);
  EXPECT_EQ(plan.phases[0].green, (std::vector<LaneId>{1}));
  EXPECT_EQ(plan.phases[1].walk, (std::vector<LaneId>{3}));
  EXPECT_DOUBLE_EQ(plan.cycle_s(), 43.0);

  // The file builds into a network: the connector's movement crosses the crosswalk on its
  // exit, the ramp is not a spawn lane.
  const Result<Network> net = build_network(file->graph, file->controls);
  ASSERT_TRUE(net.ok()) << net.error().to_string();
  EXPECT_EQ(net->signal_of, (std::vector<std::int32_t>{-1, 0}));
  EXPECT_EQ(net->connectors, (std::vector<LaneId>{1}));
  EXPECT_EQ(net->crosswalks, (std::vector<LaneId>{3}));
  EXPECT_EQ(net->spawn_lanes, (std::vector<LaneId>{0}));
}

void expect_error(const std::string& text, const std::string& where, const std::string& fragment) {
  const Result<LanesFile> file = parse_lanes_json(text, "t.json");
  ASSERT_FALSE(file.ok()) << "expected an error at " << where;
  EXPECT_EQ(file.error().code, ErrorCode::invalid_input);
  EXPECT_EQ(file.error().where, where) << file.error().to_string();
  EXPECT_NE(file.error().message.find(fragment), std::string::npos) << file.error().to_string();
}

TEST(TrafficLanesJson, SyntaxErrorNamesLineAndColumn) {
  // Line 3 of the text is lane 1; its first `:` becomes `=`.
  expect_error(replaced(kLanes, R"({"id":1,)", R"({"id"=1,)"), "t.json:3:6", "syntax error");
}

TEST(TrafficLanesJson, WrongTypes) {
  expect_error(replaced(kLanes, "[0,0,1.5],[10,0,1.5]]", "[0,0,1.5],[10,0]]"),
               "t.json: lanes[1].points[2]", "expected [x, y, z] numbers, found [10,0]");
  expect_error(replaced(kLanes, R"("speed_limit_mps":1.4)", R"("speed_limit_mps":"fast")"),
               "t.json: lanes[3].speed_limit_mps", "expected a number, found \"fast\" (string)");
  expect_error(replaced(kLanes, R"("successors":[2])", R"("successors":[-2])"),
               "t.json: lanes[1].successors[0]", "expected an integer in [0,");
  expect_error(replaced(kLanes, R"("forward":false)", R"("forward":0)"), "t.json: lanes[2].forward",
               "expected true or false");
  expect_error(replaced(kLanes, R"("green_s":10)", R"("green_s":null)"),
               "t.json: signals[0].phases[1].green_s", "expected a number, found null");
}

TEST(TrafficLanesJson, UnknownNames) {
  expect_error(replaced(kLanes, R"(["vehicle","ramp"])", R"(["vehicle","rampe"])"),
               "t.json: lanes[2].tags[1]", "found \"rampe\"");
  expect_error(replaced(kLanes, R"("turn":"through")", R"("turn":"straight")"),
               "t.json: lanes[1].turn", "found \"straight\"");
  expect_error(replaced(kLanes, R"("control":"signal")", R"("control":"lights")"),
               "t.json: intersections[1].control", "one of none, yield, stop, signal");
}

TEST(TrafficLanesJson, MissingFieldsAndWrongHeader) {
  expect_error(replaced(kLanes, R"("predecessors":[1],)", ""), "t.json: lanes[2].predecessors",
               "expected field \"predecessors\", found nothing");
  expect_error(replaced(kLanes, R"("signals":[)", R"("signalz":[)"), "t.json: signals",
               "expected field \"signals\"");
  expect_error(replaced(kLanes, "cityforge-lanes", "other"), "t.json: format",
               "expected \"cityforge-lanes\"");
  expect_error(replaced(kLanes, R"({"id":2,)", R"({"id":5,)"), "t.json: lanes[2].id",
               "expected the lane's index 2, found 5");
  expect_error("[1, 2]", "t.json: (document)", "expected an object");
}

// The lanes are read one at a time as the text is parsed (LanesEvents): what a reader of the
// whole document would report, in the same order, must still come out.
TEST(TrafficLanesJson, LanesReadAsParsedKeepTheDocumentsErrorsAndOrder) {
  // A number beyond double range is named by its JSON pointer, inside a lane or as one.
  expect_error(replaced(kLanes, "[0,0,1.5],[10,0,1.5]]", "[0,0,1.5],[1e400,0,1.5]]"),
               "t.json: /lanes/1/points/2/0", "beyond the range of a double");
  expect_error(replaced(kLanes, R"({"id":2,)", R"(1e999,{"id":2,)"), "t.json: /lanes/2",
               "beyond the range of a double");
  expect_error(replaced(kLanes, R"("width_m":3,)", R"("width_m":-1e500,)"),
               "t.json: /lanes/3/width_m", "beyond the range of a double");
  // The document's own checks come first, then the first bad lane, then the junctions.
  const std::string bad_lane = replaced(kLanes, R"("turn":"through")", R"("turn":"straight")");
  expect_error(replaced(bad_lane, "cityforge-lanes", "other"), "t.json: format",
               "expected \"cityforge-lanes\"");
  expect_error(replaced(bad_lane, R"("signals":[)", R"("signalz":[)"), "t.json: signals",
               "expected field \"signals\"");
  expect_error(replaced(replaced(bad_lane, R"("forward":false)", R"("forward":0)"),
                        R"("control":"signal")", R"("control":"lights")"),
               "t.json: lanes[1].turn", "found \"straight\"");
  // Not an array of objects: an array inside a "lanes" object is no lane.
  expect_error(replaced(kLanes, R"("lanes":[)", R"("lanes":{"x":[)") + "}", "t.json: lanes",
               "expected an array");
  expect_error(
      R"({"format":"cityforge-lanes","version":1,"lanes":{},"intersections":[],"signals":[]})",
      "t.json: lanes", "expected an array");
  expect_error(
      R"({"format":"cityforge-lanes","version":1,"lanes":[7],"intersections":[],"signals":[]})",
      "t.json: lanes[0]", "expected an object, found 7");
  // A syntax error after a bad lane is still the error.
  expect_error(replaced(bad_lane, R"("cycle_s":28.5,)", R"("cycle_s":28.5,,)"), "t.json:10:47",
               "syntax error");
}

TEST(TrafficLanesJson, OnlyTheTopLevelLanesArrayIsReadAsLanes) {
  // A "lanes" key elsewhere is an ordinary value; a repeated top-level one counts last, as in a
  // document (the first, bad, is forgotten).
  std::string text = replaced(kLanes, R"("legs":[])", R"("legs":[],"lanes":[[1,2],{"id":9}])");
  text = replaced(text, R"("version":1,)",
                  R"("version":1,"notes":{"lanes":[{"id":"x"}]},"lanes":[{"id":"bad"}],)");
  const Result<LanesFile> file = parse_lanes_json(text, "t.json");
  ASSERT_TRUE(file.ok()) << file.error().to_string();
  ASSERT_EQ(file->graph.lanes.size(), 4U);
  EXPECT_EQ(file->graph.lanes[3].tags, roads::kCrosswalk);
  EXPECT_EQ(file->controls.size(), 2U);
  // The other way round: the last "lanes" is the bad one.
  expect_error(
      replaced(kLanes, R"("intersections":[)", R"("lanes":[{"id":"bad"}],"intersections":[)"),
      "t.json: lanes[0].id", "expected an integer");
}

// load_lanes_json reads the file in pieces (parse_json_file_events): the same lanes and the
// same errors as the text read whole.
TEST(TrafficLanesJson, AFileReadInPiecesGivesWhatItsTextGives) {
  namespace fs = std::filesystem;
  const fs::path path =
      fs::temp_directory_path() / ("cityforge-lanes-" + std::to_string(::getpid()) + ".json");
  const std::vector<std::string> texts = {
      kLanes,
      "\xEF\xBB\xBF" + kLanes,
      replaced(kLanes, "[0,0,1.5],[10,0,1.5]]", "[0,0,1.5],[1e400,0,1.5]]"),
      replaced(kLanes, R"("turn":"through")", R"("turn":"straight")"),
      replaced(kLanes, R"({"id":1,)", R"({"id"=1,)"),
      replaced(kLanes, R"("control":"signal")", "\"control\":\"sign\xC3\""),
      replaced(kLanes, "cityforge-lanes", "other")};
  for (const std::string& text : texts) {
    {
      std::ofstream f(path, std::ios::binary);
      f << text;
    }
    const Result<LanesFile> whole = parse_lanes_json(text, path.string());
    const Result<LanesFile> read = load_lanes_json(path.string());
    ASSERT_EQ(read.ok(), whole.ok()) << text.substr(0, 60);
    if (!whole) {
      EXPECT_EQ(read.error().where, whole.error().where);
      EXPECT_EQ(read.error().message, whole.error().message);
      continue;
    }
    ASSERT_EQ(read->graph.lanes.size(), whole->graph.lanes.size());
    for (std::size_t i = 0; i < whole->graph.lanes.size(); ++i) {
      EXPECT_EQ(read->graph.lanes[i].points, whole->graph.lanes[i].points);
      EXPECT_EQ(read->graph.lanes[i].successors, whole->graph.lanes[i].successors);
      EXPECT_EQ(read->graph.lanes[i].tags, whole->graph.lanes[i].tags);
    }
    EXPECT_EQ(read->controls, whole->controls);
    EXPECT_EQ(read->graph.signals.size(), whole->graph.signals.size());
  }
  fs::remove(path);
}

TEST(TrafficLanesJson, MissingFileIsAnIoError) {
  const Result<LanesFile> file = load_lanes_json("/nonexistent/lanes.json");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error().code, ErrorCode::io);
  EXPECT_EQ(file.error().where, "/nonexistent/lanes.json");
}

}  // namespace
}  // namespace cityforge::traffic
