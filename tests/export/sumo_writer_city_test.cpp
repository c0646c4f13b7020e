// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "cityforge/core/rng.hpp"
#include "cityforge/export/export.hpp"
#include "cityforge/layout/layout.hpp"
#include "cityforge/roads/roads.hpp"
#include "cityforge/terrain/heightfield.hpp"
#include "sumo_fixture.hpp"

namespace cityforge::exporter {
namespace {

namespace fs = std::filesystem;
using layout::RoadClass;

using namespace sumo_test;

// End to end: a generated city through netconvert and a 600 s SUMO run with random trips.

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

terrain::Heightfield flat_ground() {
  return *terrain::run(ring_bounds({{0, 0}, {1000, 0}, {1000, 1000}, {0, 1000}}),
                       terrain::Config{0.0}, 1);
}

/// A ~1 x 1 km city with two crossing arteries on flat ground.
layout::Output generated_city() { return crossing_arteries_city(flat_ground()); }

roads::Output roads_of(const layout::Output& city) {
  auto out = roads::run(city, flat_ground(), roads::Config{}, 7);
  EXPECT_TRUE(out.ok()) << out.error().to_string();
  return std::move(out).value();
}

std::string node_name(std::uint32_t k) {
  std::string id = "n";  // appended: g++ 12 flags `"n" + ...` with a false -Wrestrict
  id += std::to_string(k);
  return id;
}

std::string edge_of(const roads::Output& roads, const roads::Lane& l) {
  std::string id = "e";  // appended: g++ 12 flags `"e" + ...` with a false -Wrestrict
  id += std::to_string(roads.sections[static_cast<std::size_t>(l.section)].edge);
  id += l.forward ? "f" : "b";
  return id;
}

/// The connection element of a vehicle connector, as the connections file spells it.
std::string connection_of(const roads::Output& roads, const roads::Lane& c) {
  const roads::Lane& in = roads.lanes.lanes[c.predecessors.at(0)];
  const roads::Lane& out = roads.lanes.lanes[c.successors.at(0)];
  return "<connection from=\"" + edge_of(roads, in) + "\" to=\"" + edge_of(roads, out) +
         "\" fromLane=\"" + std::to_string(in.lane_index) + "\" toLane=\"" +
         std::to_string(out.lane_index) + "\"";
}

bool is_connector(const roads::Lane& l) {
  return (l.tags & roads::kVehicle) != 0U && (l.tags & roads::kIntersection) != 0U;
}

TEST(SumoPlainXmlRoads, OneConnectionPerConnectorIncludingTurnarounds) {
  const layout::Output city = generated_city();
  const roads::Output roads = roads_of(city);
  auto files = sumo_plain_xml(city, roads);
  ASSERT_TRUE(files.ok()) << files.error().to_string();
  std::size_t connectors = 0;
  std::size_t u_turns = 0;
  for (const roads::Lane& l : roads.lanes.lanes) {
    if (!is_connector(l)) {
      continue;
    }
    ++connectors;
    u_turns += l.turn == roads::Turn::u_turn ? 1 : 0;
    EXPECT_NE(files->connections.find(connection_of(roads, l) + "/>"), std::string::npos)
        << "connector " << l.id << ": " << connection_of(roads, l);
  }
  EXPECT_GT(connectors, 50U);
  EXPECT_GT(u_turns, 0U);
  // Connectors plus the direct section-to-section joins of bends.
  EXPECT_GE(count_of(files->connections, "<connection "), connectors);
  EXPECT_EQ(count_of(files->connections, " tl="), 0U);
  // Signals only where the roads stage built a plan.
  EXPECT_EQ(count_of(files->nodes, "type=\"traffic_light\""), roads.lanes.signals.size());
  for (const roads::SignalPlan& plan : roads.lanes.signals) {
    EXPECT_EQ(attribute(line_with_id(files->nodes, node_name(plan.intersection)), "type"),
              "traffic_light");
  }
  const auto again = sumo_plain_xml(city, roads);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->connections, files->connections);
  EXPECT_EQ(again->tll, files->tll);
}

TEST(SumoPlainXmlRoads, SignalStatesFollowThePhasesInLinkIndexOrder) {
  const layout::Output city = generated_city();
  const roads::Output roads = roads_of(city);
  ASSERT_FALSE(roads.lanes.signals.empty());
  auto files = sumo_plain_xml(city, roads);
  ASSERT_TRUE(files.ok()) << files.error().to_string();
  const std::string& tll = files->tll;
  for (const roads::SignalPlan& plan : roads.lanes.signals) {
    const std::string id = node_name(plan.intersection);
    SCOPED_TRACE(id);
    // The pinned links of this junction: linkIndex 0..n-1, each once, in file order.
    std::vector<std::string> links;
    for (std::size_t at = tll.find("<connection "); at != std::string::npos;
         at = tll.find("<connection ", at + 1)) {
      const std::string line = tll.substr(at, tll.find('\n', at) - at);
      if (attribute(line, "tl") == id) {
        EXPECT_EQ(attribute(line, "linkIndex"), std::to_string(links.size()));
        links.push_back(line.substr(0, line.find(" tl=")));
      }
    }
    ASSERT_FALSE(links.empty());
    // Phase lines: green, yellow, all-red per phase of the plan.
    const std::size_t begin = tll.find("<tlLogic id=\"" + id + "\"");
    ASSERT_NE(begin, std::string::npos);
    std::vector<std::string> states;
    for (std::size_t at = tll.find("<phase ", begin); at < tll.find("</tlLogic>", begin);
         at = tll.find("<phase ", at + 1)) {
      states.push_back(attribute(tll.substr(at, tll.find('>', at) - at), "state"));
      EXPECT_EQ(states.back().size(), links.size());
    }
    ASSERT_EQ(states.size(), 3 * plan.phases.size());
    for (std::size_t p = 0; p < plan.phases.size(); ++p) {
      const roads::Phase& phase = plan.phases[p];
      std::string expected(links.size(), 'r');
      for (const roads::Lane& c : roads.lanes.lanes) {
        if (!is_connector(c) || c.intersection != static_cast<std::int32_t>(plan.intersection)) {
          continue;
        }
        const auto k = static_cast<std::size_t>(
            std::find(links.begin(), links.end(), connection_of(roads, c)) - links.begin());
        ASSERT_LT(k, links.size()) << "connector " << c.id << " has no link index";
        if (std::binary_search(phase.green.begin(), phase.green.end(), c.id)) {
          const bool yield = (c.tags & roads::kYield) != 0U;
          expected[k] = yield && expected[k] != 'G' ? 'g' : 'G';
        }
      }
      std::string yellow = expected;
      std::replace(yellow.begin(), yellow.end(), 'G', 'y');
      std::replace(yellow.begin(), yellow.end(), 'g', 'y');
      EXPECT_EQ(states[3 * p], expected) << "phase " << p;
      EXPECT_EQ(states[3 * p + 1], yellow) << "phase " << p;
      EXPECT_EQ(states[3 * p + 2], std::string(links.size(), 'r')) << "phase " << p;
      EXPECT_NE(expected.find_first_of("Gg"), std::string::npos) << "phase " << p;
    }
  }
}

TEST(SumoPlainXmlRoads, RejectsALaneGraphThatDoesNotFitTheLayout) {
  const layout::Output city = generated_city();
  const roads::Output good = roads_of(city);
  roads::Output bad = good;
  bad.intersections.pop_back();
  EXPECT_EQ(sumo_plain_xml(city, bad).error().where, "roads");

  bad = good;
  ASSERT_FALSE(bad.lanes.signals.empty());
  bad.lanes.signals[0].phases[0].green.push_back(
      static_cast<roads::LaneId>(bad.lanes.lanes.size()));
  EXPECT_EQ(sumo_plain_xml(city, bad).error().where, "roads.lanes.signals[0].phases[0].green");

  bad = good;
  for (roads::Lane& l : bad.lanes.lanes) {
    if ((l.tags & roads::kVehicle) != 0U && l.section >= 0 && !is_connector(l)) {
      l.lane_index = 7;
      EXPECT_EQ(sumo_plain_xml(city, bad).error().where,
                "roads.lanes[" + std::to_string(l.id) + "].lane_index");
      break;
    }
  }
}

/// A plausible control per node: signals where an artery meets two or more other legs, stops
/// at local crossings, yields elsewhere; plain bends and dead ends have none.
std::vector<std::uint8_t> plausible_control(const layout::Output& city) {
  std::vector<std::uint8_t> control(city.network.nodes.size(), 0);
  for (const layout::RoadNode& n : city.network.nodes) {
    if (n.edges.size() < 3) {
      continue;
    }
    bool artery = false;
    bool all_local = true;
    for (layout::EdgeId e : n.edges) {
      artery = artery || city.network.edges[e].road_class == RoadClass::artery;
      all_local = all_local && city.network.edges[e].road_class == RoadClass::local;
    }
    control[n.id] = artery ? 3 : (all_local ? 2 : 1);
  }
  return control;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The number after `label` in SUMO's statistics block (-1 if absent).
long statistic(const std::string& log, const std::string& label) {
  const std::size_t at = log.find(label);
  return at == std::string::npos ? -1 : std::strtol(log.c_str() + at + label.size(), nullptr, 10);
}

/// Random trips between distinct edges, departures spread evenly over [0, horizon_s).
std::string random_trips(const layout::Output& city, int count, double horizon_s) {
  Rng rng{1, Stage::test, 0};
  const auto edges = static_cast<std::uint32_t>(city.network.edges.size());
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<routes>\n";
  for (int i = 0; i < count; ++i) {
    const std::uint32_t a = rng.below(2 * edges);
    std::uint32_t b = rng.below(2 * edges - 1);
    b += b >= a ? 1 : 0;
    // Appended rather than `"e" + ...`, which g++ 12 flags with a false -Wrestrict.
    const auto name = [](std::uint32_t k) {
      std::string id = "e";
      id += std::to_string(k / 2);
      id += k % 2 == 0 ? "f" : "b";
      return id;
    };
    char depart[32];
    std::snprintf(depart, sizeof depart, "%.2f", horizon_s * i / count);
    xml += "  <trip id=\"t" + std::to_string(i) + "\" depart=\"" + depart + "\" from=\"" + name(a) +
           "\" to=\"" + name(b) + "\"/>\n";
  }
  return xml + "</routes>\n";
}

/// Runs a shell command with SUMO_HOME set to Debian's /usr/share/sumo unless the user set it
/// (without it SUMO warns and uses built-in type maps). Returns the exit status.
int run_shell(const std::string& command) {
  const std::string with_home =
      "if [ -z \"${SUMO_HOME:-}\" ] && [ -d /usr/share/sumo ]; then export "
      "SUMO_HOME=/usr/share/sumo; fi; " +
      command;
  const int status = std::system(with_home.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool have_sumo() {
  return run_shell("command -v netconvert >/dev/null 2>&1 && command -v sumo >/dev/null 2>&1") == 0;
}

/// What netconvert and a 600 s SUMO run made of a city's files.
struct SumoRun {
  fs::path dir;
  int convert = -1;
  std::string convert_log;
  std::string net;  ///< city.net.xml
  int sim = -1;
  std::string sim_log;
  std::size_t arrived = 0;  ///< <tripinfo> elements: vehicles that completed their trip.
  long inserted = -1;
  long teleports = -1;
};

/// Writes `files` under a fresh temporary folder, converts them through
/// scripts/sumo-convert.sh and, if that worked, simulates `trips` seeded random trips departing
/// over the first 400 s for 600 s. Prints the figures as a `[ sumo ]` line.
SumoRun convert_and_simulate(const layout::Output& city, const SumoFiles& files,
                             const std::string& name, int trips) {
  SumoRun r;
  r.dir = fs::path(testing::TempDir()) / (name + "_" + std::to_string(static_cast<long>(getpid())));
  const fs::path sumo_dir = r.dir / "sumo";
  fs::remove_all(r.dir);
  fs::create_directories(sumo_dir);
  for (const auto& [file, text] :
       {std::pair{"city.nod.xml", &files.nodes}, std::pair{"city.edg.xml", &files.edges},
        std::pair{"city.con.xml", &files.connections}, std::pair{"city.tll.xml", &files.tll}}) {
    EXPECT_TRUE(write_file_atomic((sumo_dir / file).string(), *text).ok()) << file;
  }

  // 1. netconvert through the project's script.
  const std::string script = std::string(CITYFORGE_SOURCE_DIR) + "/scripts/sumo-convert.sh";
  r.convert = run_shell("bash '" + script + "' '" + r.dir.string() + "' > '" +
                        (r.dir / "netconvert.log").string() + "' 2>&1");
  r.convert_log = read_text(r.dir / "netconvert.log");
  r.net = read_text(sumo_dir / "city.net.xml");
  if (r.convert != 0 || r.net.empty()) {
    return r;
  }

  // 2. Random trips, simulated for 600 s.
  EXPECT_TRUE(
      write_file_atomic((r.dir / "trips.rou.xml").string(), random_trips(city, trips, 400.0)).ok());
  r.sim = run_shell("sumo -n '" + (sumo_dir / "city.net.xml").string() + "' -r '" +
                    (r.dir / "trips.rou.xml").string() +
                    "' --end 600 --no-step-log --duration-log.statistics --tripinfo-output '" +
                    (r.dir / "tripinfo.xml").string() + "' > '" + (r.dir / "sumo.log").string() +
                    "' 2>&1");
  r.sim_log = read_text(r.dir / "sumo.log");

  // 3. Completed trips: one <tripinfo> per vehicle that arrived.
  r.arrived = count_of(read_text(r.dir / "tripinfo.xml"), "<tripinfo ");
  r.inserted = statistic(r.sim_log, "Inserted: ");
  r.teleports = statistic(r.sim_log, "Teleports: ");
  std::printf(
      "[ sumo     ] %s: %zu edges, %zu nodes; netconvert warnings %zu; vehicles inserted %ld of "
      "%d, arrived %zu, teleports %ld\n",
      name.c_str(), 2 * city.network.edges.size(), city.network.nodes.size(),
      count_of(r.convert_log, "Warning"), r.inserted, trips, r.arrived, r.teleports);
  return r;
}

/// Removes the run's folder unless the test failed or CITYFORGE_KEEP_SUMO is set.
void clean_up(const SumoRun& r) {
  if (!testing::Test::HasFailure() && std::getenv("CITYFORGE_KEEP_SUMO") == nullptr) {
    fs::remove_all(r.dir);
  }
}

// Set CITYFORGE_KEEP_SUMO=1 to keep the files in the temporary folder for sumo-gui.
TEST(SumoPlainXmlEndToEnd, GeneratedCityRunsInSumoWithCompletedTrips) {
  if (!have_sumo()) {
    GTEST_SKIP() << "netconvert / sumo not installed (Debian package 'sumo', see "
                    "scripts/install-deps.sh)";
  }
  const layout::Output city = generated_city();
  ASSERT_GT(city.network.edges.size(), 20U);
  auto files = plain_xml(city, plausible_control(city));
  ASSERT_TRUE(files.ok()) << files.error().to_string();

  const int trips = 300;
  const SumoRun r = convert_and_simulate(city, *files, "cityforge_sumo", trips);
  ASSERT_EQ(r.convert, 0) << r.convert_log;
  EXPECT_EQ(r.convert_log.find("Error"), std::string::npos) << r.convert_log;
  ASSERT_FALSE(r.net.empty()) << r.convert_log;
  EXPECT_GT(count_of(r.net, "type=\"traffic_light\""), 0U);
  EXPECT_NE(r.net.find("<edge id=\"e0f\""), std::string::npos);
  // Every dead end has a turnaround: the edge into it connects to its own back edge.
  std::vector<int> degree(city.network.nodes.size(), 0);
  for (const layout::RoadEdge& e : city.network.edges) {
    ++degree[e.from];
    ++degree[e.to];
  }
  std::size_t dead_ends = 0;
  for (const layout::RoadEdge& e : city.network.edges) {
    std::string id = "e";  // appended: g++ 12 flags `"e" + ...` with a false -Wrestrict
    id += std::to_string(e.id);
    for (const auto& [node, in, out] :
         {std::tuple{e.to, id + "f", id + "b"}, std::tuple{e.from, id + "b", id + "f"}}) {
      if (degree[node] == 1) {
        ++dead_ends;
        EXPECT_NE(r.net.find("<connection from=\"" + in + "\" to=\"" + out + "\""),
                  std::string::npos)
            << "no turnaround at dead end n" << node;
      }
    }
  }
  EXPECT_GT(dead_ends, 0U);

  ASSERT_EQ(r.sim, 0) << r.sim_log;
  EXPECT_EQ(r.sim_log.find("Error:"), std::string::npos) << r.sim_log;
  EXPECT_GE(r.arrived, 10U) << r.sim_log;
  EXPECT_GE(r.inserted, trips * 9L / 10) << r.sim_log;
  clean_up(r);
}

/// The durations of the <phase>s of tlLogic `id` in `xml` (tll or net file).
std::vector<double> phase_durations(const std::string& xml, const std::string& id) {
  std::vector<double> out;
  const std::size_t begin = xml.find("<tlLogic id=\"" + id + "\"");
  if (begin == std::string::npos) {
    return out;
  }
  const std::size_t end = xml.find("</tlLogic>", begin);
  for (std::size_t at = xml.find("<phase ", begin); at < end; at = xml.find("<phase ", at + 1)) {
    out.push_back(std::stod(attribute(xml.substr(at, xml.find('>', at) - at), "duration")));
  }
  return out;
}

// Our lane graph and signal plans, driven by SUMO.
TEST(SumoPlainXmlEndToEnd, SumoDrivesOurLaneGraphAndSignalPlans) {
  if (!have_sumo()) {
    GTEST_SKIP() << "netconvert / sumo not installed (Debian package 'sumo')";
  }
  const layout::Output city = generated_city();
  const roads::Output roads = roads_of(city);
  ASSERT_FALSE(roads.lanes.signals.empty());
  auto files = sumo_plain_xml(city, roads);
  ASSERT_TRUE(files.ok()) << files.error().to_string();

  const int trips = 300;
  const SumoRun r = convert_and_simulate(city, *files, "cityforge_sumo_lanes", trips);
  ASSERT_EQ(r.convert, 0) << r.convert_log;
  EXPECT_EQ(r.convert_log.find("Error"), std::string::npos) << r.convert_log;
  ASSERT_FALSE(r.net.empty()) << r.convert_log;

  // Every signal keeps our program: same phases, same cycle (net.xml rounds to 0.01 s).
  for (const roads::SignalPlan& plan : roads.lanes.signals) {
    const std::string id = node_name(plan.intersection);
    const std::vector<double> net = phase_durations(r.net, id);
    std::size_t expected = 0;
    for (const roads::Phase& p : plan.phases) {
      expected += (p.green_s > 0 ? 1 : 0) + (p.yellow_s > 0 ? 1 : 0) + (p.all_red_s > 0 ? 1 : 0);
    }
    EXPECT_EQ(net.size(), expected) << id;
    double cycle_s = 0.0;
    for (const double d : net) {
      cycle_s += d;
    }
    EXPECT_NEAR(cycle_s, plan.cycle_s(), 0.01 * static_cast<double>(expected)) << id;
  }

  ASSERT_EQ(r.sim, 0) << r.sim_log;
  EXPECT_EQ(r.sim_log.find("Error:"), std::string::npos) << r.sim_log;
  EXPECT_GE(r.arrived, 10U) << r.sim_log;
  EXPECT_GE(r.inserted, trips * 9L / 10) << r.sim_log;
  clean_up(r);
}

TEST(SumoPlainXmlEndToEnd, NetconvertAcceptsTheNetworkWithoutControl) {
  if (run_shell("command -v netconvert >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "netconvert not installed (Debian package 'sumo')";
  }
  auto files = plain_xml(generated_city(), {});
  ASSERT_TRUE(files.ok()) << files.error().to_string();
  const fs::path dir = fs::path(testing::TempDir()) /
                       ("cityforge_sumo_plain_" + std::to_string(static_cast<long>(getpid())));
  fs::remove_all(dir);
  fs::create_directories(dir / "sumo");
  ASSERT_TRUE(write_file_atomic((dir / "sumo" / "city.nod.xml").string(), files->nodes).ok());
  ASSERT_TRUE(write_file_atomic((dir / "sumo" / "city.edg.xml").string(), files->edges).ok());
  const std::string script = std::string(CITYFORGE_SOURCE_DIR) + "/scripts/sumo-convert.sh";
  const int convert = run_shell("bash '" + script + "' '" + dir.string() + "' > '" +
                                (dir / "netconvert.log").string() + "' 2>&1");
  const std::string log = read_text(dir / "netconvert.log");
  EXPECT_EQ(convert, 0) << log;
  EXPECT_TRUE(fs::exists(dir / "sumo" / "city.net.xml")) << log;
  if (!HasFailure() && std::getenv("CITYFORGE_KEEP_SUMO") == nullptr) {
    fs::remove_all(dir);
  }
}

// Imported places: a one-way street has no back edge, asymmetric roads get their lane counts
// per direction, every connection names existing edges and lanes, and netconvert takes it.
TEST(SumoPlainXmlRoads, OneWayAndAsymmetricRoads) {
  layout::Output city = t_junction();
  city.network.edges[1].lanes_backward = 0;  // The local street: one-way away from n1.
  city.network.edges[2].lanes_per_direction = 2;
  city.network.edges[2].lanes_backward = 1;  // The main road: 2 lanes out, 1 back.
  auto roads = roads::run(city, flat_ground(), roads::Config{}, 7);
  ASSERT_TRUE(roads.ok()) << roads.error().to_string();
  auto files = sumo_plain_xml(city, *roads);
  ASSERT_TRUE(files.ok()) << files.error().to_string();
  EXPECT_EQ(line_with_id(files->edges, "e1b"), "");
  EXPECT_EQ(attribute(line_with_id(files->edges, "e1f"), "numLanes"), "1");
  EXPECT_EQ(attribute(line_with_id(files->edges, "e2f"), "numLanes"), "2");
  EXPECT_EQ(attribute(line_with_id(files->edges, "e2b"), "numLanes"), "1");
  EXPECT_EQ(attribute(line_with_id(files->edges, "e0f"), "numLanes"), "3");
  EXPECT_EQ(attribute(line_with_id(files->edges, "e0b"), "numLanes"), "3");
  EXPECT_EQ(count_of(files->connections, "\"e1b\""), 0U);
  for (const roads::Lane& l : roads->lanes.lanes) {
    if (!is_connector(l)) continue;
    EXPECT_NE(files->connections.find(connection_of(*roads, l) + "/>"), std::string::npos)
        << "connector " << l.id;
  }
  if (run_shell("command -v netconvert >/dev/null 2>&1") != 0) return;
  const fs::path dir = fs::path(testing::TempDir()) /
                       ("cityforge_sumo_oneway_" + std::to_string(static_cast<long>(getpid())));
  fs::remove_all(dir);
  fs::create_directories(dir / "sumo");
  for (const auto& [file, text] :
       {std::pair{"city.nod.xml", &files->nodes}, std::pair{"city.edg.xml", &files->edges},
        std::pair{"city.con.xml", &files->connections}, std::pair{"city.tll.xml", &files->tll}}) {
    ASSERT_TRUE(write_file_atomic((dir / "sumo" / file).string(), *text).ok()) << file;
  }
  const std::string script = std::string(CITYFORGE_SOURCE_DIR) + "/scripts/sumo-convert.sh";
  const int convert = run_shell("bash '" + script + "' '" + dir.string() + "' > '" +
                                (dir / "netconvert.log").string() + "' 2>&1");
  const std::string log = read_text(dir / "netconvert.log");
  EXPECT_EQ(convert, 0) << log;
  EXPECT_TRUE(fs::exists(dir / "sumo" / "city.net.xml")) << log;
  if (!HasFailure() && std::getenv("CITYFORGE_KEEP_SUMO") == nullptr) {
    fs::remove_all(dir);
  }
}

}  // namespace
}  // namespace cityforge::exporter
