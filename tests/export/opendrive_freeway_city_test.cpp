// SPDX-License-Identifier: Apache-2.0
// The freeway in the OpenDRIVE map: deck pieces, ramps and turnarounds read back by the
// independent test reader against the freeway's lanes (plan and deck z), lane ends meeting
// across every link, the XSD, the same bytes twice; and imported bridges and tunnels as objects.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app/cli_run.hpp"
#include "cityforge/core/atomic_file.hpp"
#include "cityforge/export/opendrive.hpp"
#include "cityforge/freeway/freeway.hpp"
#include "cityforge/layout/layout.hpp"
#include "cityforge/roads/roads.hpp"
#include "cityforge/terrain/heightfield.hpp"
#include "opendrive_check.hpp"
#include "roads/small_city_fixture.hpp"

namespace cityforge::exporter {
namespace {

namespace fs = std::filesystem;
using clitest::CliRun;
using clitest::run_command;
using clitest::temp_dir;

/// The freeway tests' small city with a crossing freeway and its ramps.
struct FreewayCity {
  terrain::Heightfield ground;
  layout::Output layout;
  roads::Output roads;
  freeway::Output freeway;
  roads::LaneGraph merged;
};

const FreewayCity& freeway_city() {
  static const FreewayCity c = [] {
    const layout::Inputs in = roads::test::small_city_inputs();
    terrain::Config hills;
    hills.amplitude_m = 6;
    hills.scale_m = 600;
    FreewayCity out;
    out.ground = *terrain::run(ring_bounds(in.boundary.outer), hills, 2);
    out.layout = *layout::run(in, out.ground, layout::Config{}, 3);
    out.roads = *roads::run(out.layout, out.ground, roads::Config{}, 3);
    const freeway::FreewayCurve curve{
        "crosstown", {{40, 150, 16}, {600, 300, 16}, {1150, 850, 16}}, 3, 90};
    out.freeway = *freeway::run({curve}, out.layout, out.roads, out.ground, freeway::Config{}, 7);
    out.merged = freeway::merged_lanes(out.roads.lanes, out.freeway);
    return out;
  }();
  return c;
}

OpenDriveFiles write(const FreewayCity& c, int minor = 4) {
  OpenDriveOptions o;
  o.rev_minor = minor;
  o.name = "freeway";
  auto files = opendrive(c.layout, c.roads, c.ground, roads::Config{}, o, &c.freeway);
  EXPECT_TRUE(files.ok()) << files.error().to_string();
  return files.ok() ? std::move(*files) : OpenDriveFiles{};
}

xodr_test::Document read(const std::string& xodr) {
  const auto parsed = xodr_test::parse_string(xodr);
  EXPECT_TRUE(parsed.ok()) << parsed.error;
  return parsed.doc;
}

/// z of a lane's polyline at the point nearest p (plan).
double lane_z(const std::vector<Vec3>& pts, Vec2 p) {
  double best = 1e300, z = pts.front().z;
  for (std::size_t k = 0; k + 1 < pts.size(); ++k) {
    const Vec2 a{pts[k].x, pts[k].y}, b{pts[k + 1].x, pts[k + 1].y};
    const double l2 = dot(b - a, b - a);
    const double t = l2 > 0 ? std::clamp(dot(p - a, b - a) / l2, 0.0, 1.0) : 0.0;
    const double d = distance(p, a + (b - a) * t);
    if (d < best) {
      best = d;
      z = pts[k].z + (pts[k + 1].z - pts[k].z) * t;
    }
  }
  return z;
}

TEST(OpenDriveFreeway, DeckAndRampRoadsFollowTheFreewayLanes) {
  const FreewayCity& c = freeway_city();
  ASSERT_FALSE(c.freeway.ramps.empty());
  const OpenDriveFiles files = write(c);
  const xodr_test::Document doc = read(files.xodr);
  const auto side = nlohmann::json::parse(files.side_json);
  std::vector<odr_check::OurLane> lanes;
  std::size_t freeway_lanes = 0;
  for (const auto& e : side["lanes"]) {
    const auto id = e["lane"].get<std::uint32_t>();
    if (id < c.freeway.first_lane_id) continue;
    const roads::Lane& l = c.merged.lanes[id];
    odr_check::OurLane o;
    o.id = l.id;
    o.points = l.points;
    o.width_m = l.width_m;
    o.road = e["road"].get<std::string>();
    o.lane_id = e["lane_id"].get<int>();
    // Ramps and turnarounds sample Bezier curves (5 m and 1 m apart): their borders are the
    // curves' exact offsets.
    o.connector = (l.tags & (roads::kRamp | roads::kIntersection)) != 0U;
    if (o.connector && (l.handles[0] != Vec2{} || l.handles[1] != Vec2{})) {
      o.has_curve = true;
      o.curve = {Vec2{l.points.front().x, l.points.front().y}, l.handles[0], l.handles[1],
                 Vec2{l.points.back().x, l.points.back().y}};
    }
    lanes.push_back(std::move(o));
    ++freeway_lanes;
  }
  EXPECT_EQ(freeway_lanes, c.freeway.lanes.size());  // every freeway and ramp lane is mapped
  const odr_check::Fit fit =
      odr_check::compare(doc, lanes, [&](const odr_check::OurLane& l, Vec2 p, double) {
        return lane_z(c.merged.lanes[l.id].points, p);
      });
  std::printf(
      "[ freeway  ] %zu lanes, %zu samples: centre %.4f m (%s), border %.4f m (%s), vertical "
      "%.4f m (%s); %zu roads\n",
      fit.lanes, fit.samples, fit.centre_m, fit.worst_centre.c_str(), fit.border_m,
      fit.worst_border.c_str(), fit.vertical_m, fit.worst_vertical.c_str(), doc.roads.size());
  EXPECT_EQ(fit.missing, 0U);
  EXPECT_LT(fit.centre_m, 0.02) << fit.worst_centre;
  EXPECT_LT(fit.border_m, 0.02) << fit.worst_border;
  EXPECT_LT(fit.vertical_m, 0.05) << fit.worst_vertical;
  // Lane types and road types.
  std::size_t off = 0, on = 0, motorway_lanes = 0;
  for (const auto& r : doc.roads)
    for (const auto& l : r.lane_sections[0].right) {
      off += l.type == "offRamp" ? 1 : 0;
      on += l.type == "onRamp" ? 1 : 0;
      motorway_lanes += r.name == "freeway" ? 1 : 0;
    }
  std::size_t offs = 0;
  for (const auto& r : c.freeway.ramps)
    offs += r.off ? 1 : 0;
  EXPECT_EQ(off, offs);
  EXPECT_EQ(on, c.freeway.ramps.size() - offs);
  EXPECT_GT(motorway_lanes, 0U);
  // The same bytes twice.
  const OpenDriveFiles again = write(c);
  EXPECT_TRUE(again.xodr == files.xodr);
  EXPECT_TRUE(again.side_json == files.side_json);
}

/// Lane centre at a road's end (at_end) or start.
std::optional<xodr_test::Vec3> lane_end(const xodr_test::Road& r, int lane, bool at_end) {
  return xodr_test::lane_centre_point(r, at_end ? r.length : 0.0, lane);
}

TEST(OpenDriveFreeway, LaneEndsMeetAcrossEveryLink) {
  const FreewayCity& c = freeway_city();
  const OpenDriveFiles files = write(c);
  const xodr_test::Document doc = read(files.xodr);
  // Freeway roads: every road named freeway / off-ramp / on-ramp / freeway turnaround.
  const auto is_freeway = [](const xodr_test::Road& r) { return !r.name.empty(); };
  std::size_t road_links = 0, junction_links = 0, junctions_with_ramps = 0;
  double street_dz = 0.0;
  for (const auto& r : doc.roads) {
    if (!is_freeway(r)) continue;
    // Right lanes run along the road: each one's successor lane starts where it ends.
    if (r.successor.present && r.successor.element_type == "road") {
      const auto* next = xodr_test::find_road(doc, r.successor.element_id);
      ASSERT_NE(next, nullptr) << r.id;
      for (const auto& l : r.lane_sections[0].right) {
        if (!l.successor) continue;
        const auto a = lane_end(r, l.id, true);
        const auto b = xodr_test::lane_centre_point(
            *next, xodr_test::contact_s(*next, r.successor.contact_point), *l.successor);
        ASSERT_TRUE(a && b) << "road " << r.id << " lane " << l.id;
        EXPECT_LT(std::hypot(a->x - b->x, a->y - b->y), 0.02)
            << "road " << r.id << " lane " << l.id;
        // Deck to deck: the same z. A ramp onto a street: our lane z at the artery lane's start
        // against the drawn street surface (crown and class raise) the map carries.
        if (is_freeway(*next)) {
          EXPECT_LT(std::abs(a->z - b->z), 0.01) << "road " << r.id << " lane " << l.id;
        } else {
          street_dz = std::max(street_dz, std::abs(a->z - b->z));
        }
        ++road_links;
      }
    }
  }
  // Junction connections onto freeway connecting roads: the incoming lane ends where the
  // connecting lane starts.
  for (const auto& j : doc.junctions) {
    bool ramps = false;
    for (const auto& con : j.connections) {
      const auto* in = xodr_test::find_road(doc, con.incoming_road);
      const auto* cr = xodr_test::find_road(doc, con.connecting_road);
      ASSERT_TRUE(in && cr);
      EXPECT_EQ(cr->junction, j.id);
      if (!is_freeway(*cr)) continue;
      ramps = ramps || cr->name != "freeway turnaround";
      for (const auto& ll : con.lane_links) {
        const auto a = lane_end(*in, ll.from, ll.from < 0);
        const auto b = lane_end(*cr, ll.to, false);
        ASSERT_TRUE(a && b) << "junction " << j.id << " connection " << con.id;
        EXPECT_LT(std::hypot(a->x - b->x, a->y - b->y), 0.02)
            << "junction " << j.id << " connection " << con.id;
        if (is_freeway(*in)) {
          EXPECT_LT(std::abs(a->z - b->z), 0.01) << "junction " << j.id << " connection " << con.id;
        } else {
          street_dz = std::max(street_dz, std::abs(a->z - b->z));
        }
        ++junction_links;
      }
    }
    junctions_with_ramps += ramps ? 1 : 0;
  }
  std::printf(
      "[ links    ] %zu lane links road to road, %zu through junctions; %zu street "
      "junctions with ramps; ramp ends %.3f m from the street surface in z\n",
      road_links, junction_links, junctions_with_ramps, street_dz);
  EXPECT_LT(street_dz, 0.15);
  EXPECT_GT(road_links, 0U);
  // Each interchange: the deck piece between diverge and merge (3 lanes) and 2 ramps; and 2
  // turnarounds.
  EXPECT_EQ(junction_links, c.freeway.ramps.size() / 2 * 5 + 2);
  EXPECT_EQ(junctions_with_ramps, c.freeway.ramps.size() / 2);
}

void validate(const std::string& xodr, const std::string& name, int minor) {
  const fs::path schemas =
      fs::path(CITYFORGE_SOURCE_DIR) / ".." / "shared" / "schemas" / "opendrive";
  if (!fs::exists(schemas / "1.4" / "OpenDRIVE_1.4H.xsd")) {
    GTEST_SKIP() << "no ../shared/schemas/opendrive (offline XSDs): not validated";
  }
  const fs::path dir = temp_dir("opendrive_fw_xsd");
  ASSERT_TRUE(write_file_atomic((dir / name).string(), xodr).ok());
  CliRun v;
  if (minor == 4) {
    if (run_command("command -v xmllint >/dev/null").exit_code != 0) {
      GTEST_SKIP() << "xmllint not installed (Debian libxml2-utils)";
    }
    v = run_command("xmllint --noout --schema '" +
                    (schemas / "1.4" / "OpenDRIVE_1.4H.xsd").string() + "' '" +
                    (dir / name).string() + "' 2>&1");
  } else {
    if (run_command("/usr/bin/python3 -c 'import xmlschema'").exit_code != 0) {
      GTEST_SKIP() << "python3-xmlschema not installed: OpenDRIVE 1.8 not validated";
    }
    v = run_command(
        "/usr/bin/python3 -c \"import sys, xmlschema; s = xmlschema.XMLSchema11(sys.argv[1]); "
        "e = list(s.iter_errors(sys.argv[2])); [print(x) for x in e[:3]]; "
        "sys.exit(len(e) > 0)\" '" +
        (schemas / "1.8" / "OpenDRIVE_Core.xsd").string() + "' '" + (dir / name).string() +
        "' 2>&1");
  }
  EXPECT_EQ(v.exit_code, 0) << name << ": " << v.output.substr(0, 4000);
  fs::remove_all(dir);
}

TEST(OpenDriveFreeway, ValidatesAgainstTheAsamXsd) {
  validate(write(freeway_city()).xodr, "freeway.xodr", 4);
}

TEST(OpenDriveFreeway, BridgesAndTunnelsAreObjects) {
  FreewayCity c = freeway_city();
  c.layout.network.edges[0].bridge = true;
  c.layout.network.edges[1].tunnel = true;
  c.layout.network.edges[1].osm_way = 42;
  const OpenDriveFiles files = write(c);
  EXPECT_EQ(files.stats.bridges, 1U);
  EXPECT_EQ(files.stats.tunnels, 1U);
  EXPECT_NE(files.xodr.find("<bridge s=\"0\""), std::string::npos);
  EXPECT_NE(files.xodr.find("name=\"tunnel of OSM way 42\" id=\"1\" type=\"standard\"/>"),
            std::string::npos);
  validate(files.xodr, "bridges.xodr", 4);
}

}  // namespace
}  // namespace cityforge::exporter
