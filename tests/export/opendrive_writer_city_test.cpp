// SPDX-License-Identifier: Apache-2.0
// The OpenDRIVE map against the lane graph it was written from, read back by the independent
// test reader: lane centres and borders in plan, the drawn road surface in height, links,
// junctions, signals, the XSD, and the same bytes twice.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/cli_run.hpp"
#include "cityforge/core/atomic_file.hpp"
#include "cityforge/export/opendrive.hpp"
#include "cityforge/layout/layout.hpp"
#include "cityforge/roads/meshes.hpp"
#include "cityforge/roads/roads.hpp"
#include "cityforge/terrain/heightfield.hpp"
#include "fixture.hpp"
#include "opendrive_check.hpp"
#include "sumo_fixture.hpp"

namespace cityforge::exporter {
namespace {

namespace fs = std::filesystem;
using clitest::CliRun;
using clitest::run_command;
using clitest::temp_dir;

terrain::Heightfield hills(double amplitude_m) {
  terrain::Config tc;
  tc.amplitude_m = amplitude_m;
  tc.scale_m = 600.0;
  return *terrain::run(ring_bounds({{0, 0}, {1000, 0}, {1000, 1000}, {0, 1000}}), tc, 5);
}

/// A ~1 x 1 km city with two crossing arteries on hills.
layout::Output hilly_city(const terrain::Heightfield& ground) {
  return sumo_test::crossing_arteries_city(ground);
}

struct Written {
  OpenDriveFiles files;
  xodr_test::Document doc;
};

Written write_and_read(const layout::Output& city, const roads::Output& roads,
                       const terrain::Heightfield& ground, int minor = 4) {
  OpenDriveOptions o;
  o.rev_minor = minor;
  o.name = "test";
  auto files = opendrive(city, roads, ground, roads::Config{}, o);
  EXPECT_TRUE(files.ok()) << files.error().to_string();
  Written w;
  if (!files.ok()) return w;
  w.files = std::move(*files);
  const auto parsed = xodr_test::parse_string(w.files.xodr);
  EXPECT_TRUE(parsed.ok()) << parsed.error;
  w.doc = parsed.doc;
  return w;
}

/// Our vehicle lanes with their place in the map (the side file's lane map).
std::vector<odr_check::OurLane> our_lanes(const roads::Output& roads, const std::string& side) {
  const auto j = nlohmann::json::parse(side);
  std::vector<odr_check::OurLane> out;
  for (const auto& e : j["lanes"]) {
    const roads::Lane& l = roads.lanes.lanes[e["lane"].get<std::uint32_t>()];
    odr_check::OurLane o;
    o.id = l.id;
    o.points = l.points;
    o.width_m = l.width_m;
    o.road = e["road"].get<std::string>();
    o.lane_id = e["lane_id"].get<int>();
    o.connector = l.intersection >= 0;
    if (o.connector && (l.handles[0] != Vec2{} || l.handles[1] != Vec2{})) {
      o.has_curve = true;
      o.curve = {Vec2{l.points.front().x, l.points.front().y}, l.handles[0], l.handles[1],
                 Vec2{l.points.back().x, l.points.back().y}};
    }
    out.push_back(std::move(o));
  }
  return out;
}

/// The drawn surface (roads/meshes.hpp): sections with their crown, junctions flat.
odr_check::DrawnZ drawn_surface(const layout::Output& city, const roads::Output& roads,
                                const terrain::Heightfield& ground) {
  return [&city, &roads, &ground](const odr_check::OurLane& l, Vec2 p, double t) {
    const roads::Config cfg;
    const roads::Lane& lane = roads.lanes.lanes[l.id];
    if (lane.intersection >= 0) {
      return roads::junction_surface_z(city, roads, ground, cfg,
                                       static_cast<std::uint32_t>(lane.intersection), p);
    }
    const auto& e = city.network.edges[static_cast<std::size_t>(lane.section)];
    const double half = 0.5 * e.width_m;
    return ground.sample(p) + roads::road_surface_raise(cfg, e.road_class) +
           cfg.crown_m * std::max(0.0, 1.0 - std::abs(t) / half);
  };
}

TEST(OpenDrive, HillyCityLanesFollowTheLaneGraphAndTheDrawnSurface) {
  const terrain::Heightfield ground = hills(25.0);
  const layout::Output city = hilly_city(ground);
  auto roads = roads::run(city, ground, roads::Config{}, 7);
  ASSERT_TRUE(roads.ok()) << roads.error().to_string();
  // The layout has corners (turns over 5 degrees inside sections, and bends between sections):
  // the roads stage rounds them, and the map must follow the rounding within 2 cm.
  std::size_t corners = 0, joins = 0;
  for (const roads::Section& sec : roads->sections) {
    for (std::size_t i = 1; i + 1 < sec.corners.size(); ++i) {
      const Vec2 a = normalize(sec.corners[i] - sec.corners[i - 1]);
      const Vec2 b = normalize(sec.corners[i + 1] - sec.corners[i]);
      corners += dot(a, b) < std::cos(5.0 * 3.14159265358979 / 180.0) ? 1 : 0;
    }
    joins += (sec.joins[0].present ? 1 : 0) + (sec.joins[1].present ? 1 : 0);
  }
  std::printf("[ corners  ] %zu inner corners over 5 degrees, %zu rounded bend ends\n", corners,
              joins);
  EXPECT_GT(corners, 0U);
  for (const int minor : {4, 8}) {
    SCOPED_TRACE("OpenDRIVE 1." + std::to_string(minor));
    const Written w = write_and_read(city, *roads, ground, minor);
    const auto lanes = our_lanes(*roads, w.files.side_json);
    const odr_check::Fit fit =
        odr_check::compare(w.doc, lanes, drawn_surface(city, *roads, ground));
    std::printf(
        "[ fit 1.%d  ] %zu lanes, %zu samples: centre %.4f m (%s), border %.4f m (%s), "
        "vertical %.4f m (%s); connector curve fit %.4f m\n",
        minor, fit.lanes, fit.samples, fit.centre_m, fit.worst_centre.c_str(), fit.border_m,
        fit.worst_border.c_str(), fit.vertical_m, fit.worst_vertical.c_str(),
        w.files.stats.max_fit_error_m);
    EXPECT_EQ(fit.missing, 0U);
    EXPECT_GT(fit.lanes, 500U);
    EXPECT_LT(fit.centre_m, 0.02) << fit.worst_centre;
    EXPECT_LT(fit.border_m, 0.02) << fit.worst_border;
    EXPECT_LT(fit.vertical_m, 0.05) << fit.worst_vertical;
  }
}

TEST(OpenDrive, JunctionsLinksAndSignalsMatchTheLaneGraph) {
  const terrain::Heightfield ground = hills(10.0);
  const layout::Output city = hilly_city(ground);
  auto roads = roads::run(city, ground, roads::Config{}, 7);
  ASSERT_TRUE(roads.ok()) << roads.error().to_string();
  const Written w = write_and_read(city, *roads, ground);
  const auto& doc = w.doc;
  std::size_t connectors = 0;
  for (const roads::Lane& l : roads->lanes.lanes)
    connectors += (l.tags & roads::kVehicle) != 0U && l.intersection >= 0 ? 1 : 0;
  EXPECT_EQ(w.files.stats.connecting_roads, connectors);
  EXPECT_EQ(doc.roads.size(), roads->sections.size() + connectors);
  EXPECT_EQ(w.files.stats.signalised_junctions, roads->lanes.signals.size());
  // Every connecting road's lane starts where its incoming lane ends and ends where its
  // outgoing lane starts (lane centres, 2 cm), as the links say.
  std::size_t checked = 0;
  for (const xodr_test::Junction& j : doc.junctions) {
    for (const xodr_test::Connection& c : j.connections) {
      const auto* in = xodr_test::find_road(doc, c.incoming_road);
      const auto* con = xodr_test::find_road(doc, c.connecting_road);
      ASSERT_NE(in, nullptr);
      ASSERT_NE(con, nullptr);
      ASSERT_EQ(con->junction, j.id);
      ASSERT_EQ(c.lane_links.size(), 1U);
      const int from = c.lane_links[0].from;
      // A right lane (negative id) drives to its road's end, a left lane to its start.
      const double s_in = from < 0 ? in->length : 0.0;
      const auto a = xodr_test::lane_centre_point(*in, s_in, from);
      const auto b = xodr_test::lane_centre_point(*con, 0.0, -1);
      ASSERT_TRUE(a && b);
      EXPECT_LT(std::hypot(a->x - b->x, a->y - b->y), 0.02)
          << "junction " << j.id << " connection " << c.id;
      ASSERT_TRUE(con->successor.present);
      const auto* out = xodr_test::find_road(doc, con->successor.element_id);
      ASSERT_NE(out, nullptr);
      const int to = con->lane_sections[0].right[0].successor.value_or(0);
      const double s_out = xodr_test::contact_s(*out, con->successor.contact_point);
      const auto e = xodr_test::lane_centre_point(*con, con->length, -1);
      const auto f = xodr_test::lane_centre_point(*out, s_out, to);
      ASSERT_TRUE(e && f) << "road " << con->id << " successor lane " << to;
      EXPECT_LT(std::hypot(e->x - f->x, e->y - f->y), 0.02) << "connecting road " << con->id;
      ++checked;
    }
  }
  EXPECT_EQ(checked, connectors);
  // Traffic lights: every signalised junction has controllers whose signals exist on roads.
  std::map<std::string, const xodr_test::Signal*> signals;
  for (const auto& r : doc.roads)
    for (const auto& s : r.signals)
      signals[s.id] = &s;
  std::size_t lights = 0;
  for (const auto& [id, s] : signals)
    lights += s->type == "1000001" ? 1 : 0;
  EXPECT_EQ(lights, w.files.stats.traffic_lights);
  EXPECT_GT(lights, 0U);
  for (const auto& c : doc.controllers) {
    EXPECT_FALSE(c.controls.empty()) << "controller " << c.id;
    for (const auto& ctl : c.controls)
      EXPECT_TRUE(signals.count(ctl.signal_id)) << "controller " << c.id << ": " << ctl.signal_id;
  }
  // The same bytes twice.
  const Written again = write_and_read(city, *roads, ground);
  EXPECT_TRUE(again.files.xodr == w.files.xodr);
  EXPECT_TRUE(again.files.side_json == w.files.side_json);
}

TEST(OpenDrive, OneWayAndAsymmetricRoadsKeepTheirLanes) {
  layout::Output city = sumo_test::t_junction();
  city.network.edges[1].lanes_backward = 0;  // one-way away from n1
  city.network.edges[2].lanes_per_direction = 2;
  city.network.edges[2].lanes_backward = 1;  // 2 lanes out, 1 back
  const terrain::Heightfield ground =
      *terrain::run(ring_bounds({{-50, -50}, {300, -50}, {300, 150}, {-50, 150}}),
                    terrain::Config{8.0, 300.0}, 3);
  auto roads = roads::run(city, ground, roads::Config{}, 7);
  ASSERT_TRUE(roads.ok()) << roads.error().to_string();
  const Written w = write_and_read(city, *roads, ground);
  const auto* one_way = xodr_test::find_road(w.doc, "1");
  const auto* asym = xodr_test::find_road(w.doc, "2");
  ASSERT_TRUE(one_way && asym);
  std::size_t driving_left = 0;
  for (const auto& l : one_way->lane_sections[0].left)
    driving_left += l.type == "driving" ? 1 : 0;
  EXPECT_EQ(driving_left, 0U);
  EXPECT_EQ(asym->lane_sections[0].right.size(), 2U);  // 2 driving (no sidewalks here)
  EXPECT_EQ(asym->lane_sections[0].left.size(), 1U);   // 1 driving
  const auto lanes = our_lanes(*roads, w.files.side_json);
  const odr_check::Fit fit = odr_check::compare(w.doc, lanes, drawn_surface(city, *roads, ground));
  EXPECT_EQ(fit.missing, 0U);
  EXPECT_LT(fit.centre_m, 0.02) << fit.worst_centre;
  EXPECT_LT(fit.border_m, 0.02) << fit.worst_border;
  EXPECT_LT(fit.vertical_m, 0.05) << fit.worst_vertical;
}

TEST(OpenDrive, ValidatesAgainstTheAsamXsd) {
  const fs::path schemas =
      fs::path(CITYFORGE_SOURCE_DIR) / ".." / "shared" / "schemas" / "opendrive";
  if (!fs::exists(schemas / "1.4" / "OpenDRIVE_1.4H.xsd")) {
    GTEST_SKIP() << "no ../shared/schemas/opendrive (offline XSDs): not validated";
  }
  if (run_command("command -v xmllint >/dev/null").exit_code != 0) {
    GTEST_SKIP() << "xmllint not installed (Debian libxml2-utils)";
  }
  const terrain::Heightfield ground = hills(10.0);
  const layout::Output city = hilly_city(ground);
  auto roads = roads::run(city, ground, roads::Config{}, 7);
  ASSERT_TRUE(roads.ok()) << roads.error().to_string();
  const fs::path dir = temp_dir("opendrive_xsd");
  const auto validate14 = [&](const std::string& xodr, const std::string& name) {
    ASSERT_TRUE(write_file_atomic((dir / name).string(), xodr).ok());
    const CliRun v = run_command("xmllint --noout --schema '" +
                                 (schemas / "1.4" / "OpenDRIVE_1.4H.xsd").string() + "' '" +
                                 (dir / name).string() + "' 2>&1");
    EXPECT_EQ(v.exit_code, 0) << name << ": " << v.output.substr(0, 4000);
  };
  const Written w = write_and_read(city, *roads, ground);
  validate14(w.files.xodr, "city.xodr");
  // One-way and asymmetric streets without sidewalks: a side without lanes.
  layout::Output t = sumo_test::t_junction();
  t.network.edges[1].lanes_backward = 0;
  t.network.edges[2].lanes_per_direction = 2;
  t.network.edges[2].lanes_backward = 1;
  auto t_roads = roads::run(t, ground, roads::Config{}, 7);
  ASSERT_TRUE(t_roads.ok()) << t_roads.error().to_string();
  validate14(write_and_read(t, *t_roads, ground).files.xodr, "one_way.xodr");
  // 1.8: an XSD 1.1 schema, which xmllint does not read; Debian's python3-xmlschema does.
  if (run_command("/usr/bin/python3 -c 'import xmlschema'").exit_code != 0) {
    GTEST_SKIP() << "python3-xmlschema not installed: OpenDRIVE 1.8 not validated";
  }
  // The T junction (signals, controllers, crosswalks, shapes, one-way streets): the XSD 1.1
  // validator takes 10 s over the 1 km city.
  const Written w8 = write_and_read(t, *t_roads, ground, 8);
  ASSERT_TRUE(write_file_atomic((dir / "city18.xodr").string(), w8.files.xodr).ok());
  const CliRun v8 = run_command(
      "/usr/bin/python3 -c \"import sys, xmlschema; s = xmlschema.XMLSchema11(sys.argv[1]); "
      "e = list(s.iter_errors(sys.argv[2])); [print(x) for x in e[:3]]; sys.exit(len(e) > 0)\" '" +
      (schemas / "1.8" / "OpenDRIVE_Core.xsd").string() + "' '" + (dir / "city18.xodr").string() +
      "' 2>&1");
  EXPECT_EQ(v8.exit_code, 0) << v8.output.substr(0, 4000);
  if (!HasFailure()) fs::remove_all(dir);
}

TEST(OpenDrive, WrittenToASinkIsTheSameMapInParts) {
  const terrain::Heightfield ground = hills(25.0);
  const layout::Output city = hilly_city(ground);
  auto roads = roads::run(city, ground, roads::Config{}, 7);
  ASSERT_TRUE(roads.ok()) << roads.error().to_string();
  OpenDriveOptions o;
  o.name = "test";
  const auto whole = opendrive(city, *roads, ground, roads::Config{}, o);
  ASSERT_TRUE(whole.ok()) << whole.error().to_string();
  fixture::CollectedText got;
  const ByteSink sink = got.sink();
  const std::string& streamed = got.text;
  const std::size_t& parts = got.parts;
  const auto made = opendrive(sink, city, *roads, ground, roads::Config{}, o);
  ASSERT_TRUE(made.ok()) << made.error().to_string();
  std::printf("[ streamed ] %zu bytes in %zu parts\n", streamed.size(), parts);
  EXPECT_TRUE(made->xodr.empty());
  EXPECT_EQ(made->xodr_bytes, streamed.size());
  EXPECT_EQ(whole->xodr_bytes, whole->xodr.size());
  EXPECT_EQ(streamed, whole->xodr);
  EXPECT_EQ(made->side_json, whole->side_json);
  EXPECT_GE(parts, 2U);  // A megabyte at a time: never held whole.
  // A sink that fails (a full disk) stops the map with its error.
  const ByteSink full = [](const void*, std::size_t) -> Status {
    return Error::io("city.xodr", "no space left on device");
  };
  const auto failed = opendrive(full, city, *roads, ground, roads::Config{}, o);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.error().to_string().find("no space left"), std::string::npos)
      << failed.error().to_string();
}

TEST(OpenDrive, RejectsAnUnknownVersion) {
  const layout::Output city = sumo_test::t_junction();
  const terrain::Heightfield ground = hills(0.0);
  auto roads = roads::run(city, ground, roads::Config{}, 7);
  ASSERT_TRUE(roads.ok());
  OpenDriveOptions o;
  o.rev_minor = 6;
  const auto r = opendrive(city, *roads, ground, roads::Config{}, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().to_string().find("1.4 or 1.8"), std::string::npos) << r.error().to_string();
}

}  // namespace
}  // namespace cityforge::exporter
