// SPDX-License-Identifier: Apache-2.0
// The tests' own OpenDRIVE reader (xodr_reader.hpp): its parsing, its evaluation math against
// closed forms and independent integrations, and two sample files from another tool.
#include "export/xodr_reader.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <numbers>
#include <string>

namespace cityforge::xodr_test {
namespace {

constexpr double kPi = std::numbers::pi;

/// A document with one road "1" of `length` whose body (planView, lanes, ...) is `body`.
std::string one_road(double length, const std::string& body, const std::string& rev = "4") {
  std::string s = "<?xml version=\"1.0\"?>\n<OpenDRIVE>\n<header revMajor=\"1\" revMinor=\"";
  s += rev;
  s += "\"/>\n<road id=\"1\" length=\"";
  s += std::to_string(length);
  s += "\" junction=\"-1\">\n";
  s += body;
  s += "\n</road>\n</OpenDRIVE>\n";
  return s;
}

std::string geometry(double s, double x, double y, double hdg, double length,
                     const std::string& primitive) {
  char buf[400];
  std::snprintf(buf, sizeof buf,
                "<geometry s=\"%.17g\" x=\"%.17g\" y=\"%.17g\" hdg=\"%.17g\" "
                "length=\"%.17g\">",
                s, x, y, hdg, length);
  std::string out = buf;
  out += primitive;
  out += "</geometry>\n";
  return out;
}

Road parse_one(const std::string& xml) {
  ParseResult r = parse_string(xml);
  EXPECT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.doc.roads.size(), 1u);
  return r.doc.roads.empty() ? Road{} : r.doc.roads.front();
}

/// Angle difference wrapped into (-pi, pi].
double angle_diff(double a, double b) { return std::remainder(a - b, 2 * kPi); }

TEST(XodrReader, ParsesEveryRecordKind) {
  const std::string xml = R"(<?xml version="1.0"?>
<OpenDRIVE>
  <header revMajor="1" revMinor="8" name="t" north="10" south="-10" east="20" west="-20">
    <geoReference><![CDATA[+proj=tmerc +lat_0=1]]></geoReference>
  </header>
  <road id="7" name="Main" length="10" junction="-1">
    <link><predecessor elementType="junction" elementId="3"/>
          <successor elementType="road" elementId="8" contactPoint="end"/></link>
    <planView><geometry s="0" x="0" y="0" hdg="0" length="10"><line/></geometry></planView>
    <elevationProfile><elevation s="0" a="1" b="0" c="0" d="0"/></elevationProfile>
    <lateralProfile>
      <superelevation s="0" a="0.01" b="0" c="0" d="0"/>
      <shape s="0" t="-3" a="0" b="0" c="0" d="0"/>
    </lateralProfile>
    <lanes>
      <laneOffset s="0" a="0.5" b="0" c="0" d="0"/>
      <laneSection s="0">
        <left><lane id="1" type="sidewalk" level="true">
          <link><predecessor id="2"/><successor id="3"/></link>
          <width sOffset="0" a="2" b="0" c="0" d="0"/>
          <height sOffset="0" inner="0.1" outer="0.15"/>
        </lane></left>
        <center><lane id="0" type="none"><roadMark sOffset="0" type="broken" weight="standard"
          color="white" width="0.12"><type name="x"><line length="3" space="6"/></type>
          </roadMark></lane></center>
        <right><lane id="-1" type="driving">
          <border sOffset="1" a="-3" b="0" c="0" d="0"/>
          <speed sOffset="0" max="13.9" unit="m/s"/>
        </lane></right>
      </laneSection>
    </lanes>
    <objects>
      <object id="o1" type="building" name="B" s="2" t="-5" zOffset="0.1" hdg="0.2">
        <outline><cornerRoad s="2" t="-5" dz="0" height="3"/></outline>
      </object>
      <object id="o2" s="3" t="5"><outlines><outline id="9">
        <cornerLocal u="0" v="1" z="0.5" height="2"/><cornerLocal u="1" v="1"/>
      </outline></outlines></object>
    </objects>
    <signals>
      <signal id="s1" name="light" s="9.5" t="-4" zOffset="2.5" orientation="+" dynamic="yes"
              country="OpenDRIVE" type="1000001" subtype="-1" value="-1">
        <validity fromLane="-1" toLane="-1"/>
      </signal>
    </signals>
  </road>
  <controller id="c1" name="ctl"><control signalId="s1" type="0"/></controller>
  <junction id="3" name="J">
    <connection id="0" incomingRoad="7" connectingRoad="9" contactPoint="start">
      <laneLink from="1" to="-1"/>
    </connection>
    <controller id="c1" type="0" sequence="2"/>
  </junction>
</OpenDRIVE>
)";
  const ParseResult r = parse_string(xml);
  ASSERT_TRUE(r.ok()) << r.error;
  const Document& d = r.doc;
  EXPECT_EQ(d.header.rev_major, 1);
  EXPECT_EQ(d.header.rev_minor, 8);
  EXPECT_EQ(d.header.geo_reference, "+proj=tmerc +lat_0=1");
  EXPECT_EQ(d.header.north, 10);
  EXPECT_EQ(d.header.west, -20);
  ASSERT_EQ(d.roads.size(), 1u);
  const Road& road = d.roads[0];
  EXPECT_EQ(road.id, "7");
  EXPECT_EQ(road.name, "Main");
  EXPECT_EQ(road.junction, "-1");
  EXPECT_TRUE(road.predecessor.present);
  EXPECT_EQ(road.predecessor.element_type, "junction");
  EXPECT_EQ(road.predecessor.element_id, "3");
  EXPECT_EQ(road.successor.contact_point, "end");
  ASSERT_EQ(road.plan_view.size(), 1u);
  EXPECT_EQ(road.plan_view[0].kind, GeometryKind::kLine);
  EXPECT_EQ(road.elevations.size(), 1u);
  EXPECT_EQ(road.superelevations.size(), 1u);
  EXPECT_EQ(road.shapes.size(), 1u);
  EXPECT_EQ(road.lane_offsets.size(), 1u);
  ASSERT_EQ(road.lane_sections.size(), 1u);
  const LaneSection& sec = road.lane_sections[0];
  ASSERT_EQ(sec.left.size(), 1u);
  ASSERT_EQ(sec.center.size(), 1u);
  ASSERT_EQ(sec.right.size(), 1u);
  const Lane& l1 = sec.left[0];
  EXPECT_EQ(l1.type, "sidewalk");
  EXPECT_TRUE(l1.level);
  EXPECT_EQ(l1.predecessor, 2);
  EXPECT_EQ(l1.successor, 3);
  ASSERT_EQ(l1.heights.size(), 1u);
  EXPECT_EQ(l1.heights[0].outer, 0.15);
  ASSERT_EQ(sec.center[0].road_marks.size(), 1u);
  EXPECT_EQ(sec.center[0].road_marks[0].type, "broken");
  EXPECT_EQ(sec.center[0].road_marks[0].color, "white");
  EXPECT_EQ(sec.center[0].road_marks[0].width, 0.12);
  EXPECT_EQ(sec.right[0].borders.size(), 1u);
  ASSERT_EQ(sec.right[0].speeds.size(), 1u);
  EXPECT_EQ(sec.right[0].speeds[0].unit, "m/s");
  ASSERT_EQ(road.objects.size(), 2u);
  EXPECT_EQ(road.objects[0].outlines.size(), 1u);
  EXPECT_TRUE(road.objects[0].outlines[0].corners[0].road);
  ASSERT_EQ(road.objects[1].outlines.size(), 1u);
  ASSERT_EQ(road.objects[1].outlines[0].corners.size(), 2u);
  EXPECT_FALSE(road.objects[1].outlines[0].corners[0].road);
  EXPECT_EQ(road.objects[1].outlines[0].corners[0].z, 0.5);
  ASSERT_EQ(road.signals.size(), 1u);
  const Signal& sg = road.signals[0];
  EXPECT_EQ(sg.id, "s1");
  EXPECT_EQ(sg.s, 9.5);
  EXPECT_EQ(sg.z_offset, 2.5);
  EXPECT_EQ(sg.type, "1000001");
  EXPECT_EQ(sg.subtype, "-1");
  EXPECT_EQ(sg.dynamic, "yes");
  ASSERT_EQ(sg.validity.size(), 1u);
  EXPECT_EQ(sg.validity[0].from_lane, -1);
  ASSERT_EQ(d.controllers.size(), 1u);
  ASSERT_EQ(d.controllers[0].controls.size(), 1u);
  EXPECT_EQ(d.controllers[0].controls[0].signal_id, "s1");
  ASSERT_EQ(d.junctions.size(), 1u);
  const Junction& j = d.junctions[0];
  ASSERT_EQ(j.connections.size(), 1u);
  EXPECT_EQ(j.connections[0].incoming_road, "7");
  EXPECT_EQ(j.connections[0].connecting_road, "9");
  EXPECT_EQ(j.connections[0].contact_point, "start");
  ASSERT_EQ(j.connections[0].lane_links.size(), 1u);
  EXPECT_EQ(j.connections[0].lane_links[0].to, -1);
  ASSERT_EQ(j.controllers.size(), 1u);
  EXPECT_EQ(j.controllers[0].sequence, 2);
  EXPECT_EQ(find_road(d, "7"), &road);
  EXPECT_EQ(find_junction(d, "3"), &j);
  EXPECT_EQ(find_lane(sec, -1), &sec.right[0]);
}

TEST(XodrReader, ParseErrorsNameTheLine) {
  ParseResult r = parse_string("<OpenDRIVE>\n<header revMajor=\"1\" revMinor=\"4\">\n</OpenDRIVE>");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.error.rfind("line 3: ", 0), 0u) << r.error;  // mismatched tag

  r = parse_string(one_road(10,
                            "<planView>\n<geometry s=\"0\" x=\"0\" y=\"0\" length=\"10\">"
                            "<line/></geometry></planView>"));
  EXPECT_EQ(r.error, "line 6: <geometry> missing attribute 'hdg'");

  r = parse_string(one_road(10,
                            "<planView><geometry s=\"0\" x=\"abc\" y=\"0\" hdg=\"0\" "
                            "length=\"10\"><line/></geometry></planView>"));
  EXPECT_EQ(r.error, "line 5: <geometry> attribute 'x' is not a number: 'abc'");

  r = parse_string(one_road(10,
                            "<lanes><laneSection s=\"0\"><right><lane id=\"x\"/></right>"
                            "</laneSection></lanes>"));
  EXPECT_EQ(r.error, "line 5: <lane> attribute 'id' is not an integer: 'x'");

  r = parse_string(one_road(10,
                            "<lanes><laneSection s=\"0\"><right><lane id=\"2\"/></right>"
                            "</laneSection></lanes>"));
  EXPECT_EQ(r.error, "line 5: <lane> lane id 2 in <right>");

  r = parse_string("<?xml version=\"1.0\"?>\n<OpenDrive/>\n");
  EXPECT_EQ(r.error, "line 2: <OpenDrive> root element is not <OpenDRIVE>");

  r = parse_string("<OpenDRIVE>\n</OpenDRIVE>\n");
  EXPECT_EQ(r.error, "line 3: no <header> with revMajor");  // at the end

  r = parse_string(
      "<OpenDRIVE><header revMajor=\"1\" revMinor=\"4\"/>\n<road length=\"1\"/>"
      "</OpenDRIVE>");
  EXPECT_EQ(r.error, "line 2: <road> missing attribute 'id'");

  r = parse_string("");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.error.rfind("line 1: ", 0), 0u) << r.error;

  r = parse_file("/nonexistent/city.xodr");
  EXPECT_EQ(r.error, "cannot read /nonexistent/city.xodr");
}

TEST(XodrReader, LineAndGeometryLookup) {
  const Road road = parse_one(one_road(
      20, "<planView>" + geometry(0, 1, 2, 0.3, 10, "<line/>") +
              geometry(10, 1 + 10 * std::cos(0.3), 2 + 10 * std::sin(0.3), kPi / 2, 10, "<line/>") +
              "</planView>"));
  Pose p = reference_pose(road, 5);
  EXPECT_NEAR(p.x, 1 + 5 * std::cos(0.3), 1e-12);
  EXPECT_NEAR(p.y, 2 + 5 * std::sin(0.3), 1e-12);
  EXPECT_NEAR(p.hdg, 0.3, 1e-12);
  p = reference_pose(road, 10);  // A geometry starting exactly at s is the one in force.
  EXPECT_NEAR(p.hdg, kPi / 2, 1e-12);
  p = reference_pose(road, 15);
  EXPECT_NEAR(p.x, 1 + 10 * std::cos(0.3), 1e-12);
  EXPECT_NEAR(p.y, 2 + 10 * std::sin(0.3) + 5, 1e-12);
}

TEST(XodrReader, ArcQuarterCircle) {
  const double r = 25;
  const double len = kPi / 2 * r;
  for (double sign : {1.0, -1.0}) {
    char arc[64];
    std::snprintf(arc, sizeof arc, "<arc curvature=\"%.17g\"/>", sign / r);
    const Road road =
        parse_one(one_road(len, "<planView>" + geometry(0, 3, 4, 0, len, arc) + "</planView>"));
    const Pose end = reference_pose(road, len);
    EXPECT_NEAR(end.x, 3 + r, 1e-9);
    EXPECT_NEAR(end.y, 4 + sign * r, 1e-9);
    EXPECT_NEAR(end.hdg, sign * kPi / 2, 1e-12);
    const Pose mid = reference_pose(road, len / 2);  // 45 degrees round the centre (3, 4 ± r).
    EXPECT_NEAR(mid.x, 3 + r * std::sin(kPi / 4), 1e-9);
    EXPECT_NEAR(mid.y, 4 + sign * r * (1 - std::cos(kPi / 4)), 1e-9);
  }
}

/// End of a clothoid from curvature 0 to 1/R over L (heading from 0), from its power series:
/// x = L·Σ (-1)^n θ^(2n) / ((4n+1)(2n)!), y = L·Σ (-1)^n θ^(2n+1) / ((4n+3)(2n+1)!),
/// θ = L/(2R) the end heading.
void clothoid_series(double len, double radius, double& x, double& y) {
  const double th = len / (2 * radius);
  x = y = 0;
  double fact = 1;  // (2n)!
  for (int n = 0; n < 40; ++n) {
    if (n > 0) fact *= (2.0 * n - 1) * (2.0 * n);
    const double sign = n % 2 ? -1.0 : 1.0;
    x += sign * std::pow(th, 2 * n) / ((4 * n + 1) * fact);
    y += sign * std::pow(th, 2 * n + 1) / ((4 * n + 3) * fact * (2 * n + 1));
  }
  x *= len;
  y *= len;
}

TEST(XodrReader, SpiralMatchesClothoidSeries) {
  const double len = 100, radius = 80;
  const Road road = parse_one(
      one_road(len, "<planView>" +
                        geometry(0, 0, 0, 0, len, "<spiral curvStart=\"0\" curvEnd=\"0.0125\"/>") +
                        "</planView>"));
  double x = 0, y = 0;
  clothoid_series(len, radius, x, y);
  const Pose end = reference_pose(road, len);
  EXPECT_NEAR(end.x, x, 1e-6);
  EXPECT_NEAR(end.y, y, 1e-6);
  EXPECT_NEAR(end.hdg, len / (2 * radius), 1e-12);
  // Part way along: the same series with the clothoid's parameter A² = R·L kept.
  clothoid_series(40, radius * len / 40, x, y);
  const Pose mid = reference_pose(road, 40);
  EXPECT_NEAR(mid.x, x, 1e-6);
  EXPECT_NEAR(mid.y, y, 1e-6);
}

TEST(XodrReader, SpiralWithStartCurvatureMatchesFineIntegration) {
  // Curvature 0.02 -> -0.01 over 60 m from (5, -2) heading 1: against a midpoint rule with
  // 200k steps of the heading θ(σ) = 1 + 0.02σ - 0.03σ²/(2·60).
  const double len = 60;
  const Road road = parse_one(one_road(
      len, "<planView>" +
               geometry(0, 5, -2, 1, len, "<spiral curvStart=\"0.02\" curvEnd=\"-0.01\"/>") +
               "</planView>"));
  const int n = 200000;
  double x = 5, y = -2;
  for (int i = 0; i < n; ++i) {
    const double sig = (i + 0.5) * len / n;
    const double th = 1 + 0.02 * sig - 0.03 * sig * sig / (2 * len);
    x += std::cos(th) * len / n;
    y += std::sin(th) * len / n;
  }
  const Pose end = reference_pose(road, len);
  EXPECT_NEAR(end.x, x, 1e-6);
  EXPECT_NEAR(end.y, y, 1e-6);
  EXPECT_NEAR(end.hdg, 1 + 0.02 * len - 0.03 * len / 2, 1e-12);
}

TEST(XodrReader, ParamPoly3NormalizedAndArcLength) {
  // u = 10p, v = 2p² for p in [0, 1] (normalized), the same curve as u = p, v = 0.02p² for p in
  // [0, 10] (arcLength). Heading pi/2 from (1, 1): world = (1 - v, 1 + u).
  const std::string norm =
      "<paramPoly3 aU=\"0\" bU=\"10\" cU=\"0\" dU=\"0\" aV=\"0\" bV=\"0\" cV=\"2\" dV=\"0\" "
      "pRange=\"normalized\"/>";
  const std::string arc =
      "<paramPoly3 aU=\"0\" bU=\"1\" cU=\"0\" dU=\"0\" aV=\"0\" bV=\"0\" cV=\"0.02\" dV=\"0\" "
      "pRange=\"arcLength\"/>";
  const Road a =
      parse_one(one_road(10, "<planView>" + geometry(0, 1, 1, kPi / 2, 10, norm) + "</planView>"));
  const Road b =
      parse_one(one_road(10, "<planView>" + geometry(0, 1, 1, kPi / 2, 10, arc) + "</planView>"));
  EXPECT_TRUE(a.plan_view[0].normalized);
  EXPECT_FALSE(b.plan_view[0].normalized);
  for (const Road* road : {&a, &b}) {
    const Pose p = reference_pose(*road, 5);  // p = 0.5 or 5: u = 5, v = 0.5.
    EXPECT_NEAR(p.x, 1 - 0.5, 1e-12);
    EXPECT_NEAR(p.y, 1 + 5, 1e-12);
    EXPECT_NEAR(p.hdg, kPi / 2 + std::atan2(2.0, 10.0), 1e-12);  // dv/du = 4p/10 at p = 0.5
  }
  // pRange absent reads as normalized (the 1.4 default).
  const Road c = parse_one(one_road(
      10, "<planView>" +
              geometry(0, 0, 0, 0, 10,
                       "<paramPoly3 aU=\"0\" bU=\"10\" cU=\"0\" dU=\"0\" aV=\"0\" bV=\"0\" "
                       "cV=\"0\" dV=\"0\"/>") +
              "</planView>"));
  EXPECT_NEAR(reference_pose(c, 4).x, 4, 1e-12);
}

TEST(XodrReader, Poly3FollowsArcLength) {
  // Straight poly3 v = 0.75u: arc length ds is at u = 0.8·ds.
  Road road = parse_one(one_road(
      10, "<planView>" + geometry(0, 0, 0, 0, 10, "<poly3 a=\"0\" b=\"0.75\" c=\"0\" d=\"0\"/>") +
              "</planView>"));
  Pose p = reference_pose(road, 10);
  EXPECT_NEAR(p.x, 8, 1e-9);
  EXPECT_NEAR(p.y, 6, 1e-9);
  EXPECT_NEAR(p.hdg, std::atan(0.75), 1e-12);
  // Curved v = 0.01u² + 0.001u³: the arc length to the returned u, by a fine midpoint rule.
  road = parse_one(
      one_road(20, "<planView>" +
                       geometry(0, 0, 0, 0, 20, "<poly3 a=\"0\" b=\"0\" c=\"0.01\" d=\"0.001\"/>") +
                       "</planView>"));
  p = reference_pose(road, 20);
  const double u_end = p.x;
  double arc = 0;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    const double u = (i + 0.5) * u_end / n;
    const double dv = 0.02 * u + 0.003 * u * u;
    arc += std::sqrt(1 + dv * dv) * u_end / n;
  }
  EXPECT_NEAR(arc, 20, 1e-6);
  EXPECT_NEAR(p.y, 0.01 * u_end * u_end + 0.001 * u_end * u_end * u_end, 1e-12);
}

TEST(XodrReader, LaneWidthsOffsetAndBorders) {
  const std::string lanes = R"(<lanes>
  <laneOffset s="0" a="0.5" b="0.01" c="0" d="0"/>
  <laneOffset s="50" a="1" b="0" c="0" d="0"/>
  <laneSection s="0">
    <left>
      <lane id="2" type="sidewalk"><width sOffset="0" a="2" b="0" c="0" d="0"/></lane>
      <lane id="1" type="driving">
        <width sOffset="0" a="3" b="0.02" c="0" d="0"/>
        <width sOffset="10" a="3.2" b="0" c="0.001" d="0"/>
      </lane>
    </left>
    <center><lane id="0"/></center>
    <right>
      <lane id="-1" type="driving"><width sOffset="0" a="3.5" b="0" c="0" d="0.0001"/></lane>
      <lane id="-2" type="border"><border sOffset="0" a="-6" b="-0.01" c="0" d="0"/></lane>
    </right>
  </laneSection>
  <laneSection s="40">
    <right><lane id="-1" type="driving"><width sOffset="2" a="3" b="0.1" c="0" d="0"/></lane>
    </right>
  </laneSection>
</lanes>)";
  const Road road = parse_one(
      one_road(100, "<planView>" + geometry(0, 0, 0, 0, 100, "<line/>") + "</planView>" + lanes));
  EXPECT_NEAR(lane_offset(road, 25), 0.75, 1e-12);
  EXPECT_NEAR(lane_offset(road, 50), 1.0, 1e-12);
  // s = 25: lane 1's second record (ds = 15), lanes stacked outward from t = 0.75.
  const double w1 = 3.2 + 0.001 * 15 * 15, w2 = 2, wm1 = 3.5 + 0.0001 * 25 * 25 * 25;
  std::optional<LaneBounds> b = lane_bounds(road, 25, 1);
  ASSERT_TRUE(b);
  EXPECT_NEAR(b->inner_t, 0.75, 1e-12);
  EXPECT_NEAR(b->outer_t, 0.75 + w1, 1e-12);
  EXPECT_NEAR(b->centre_t, 0.75 + w1 / 2, 1e-12);
  b = lane_bounds(road, 25, 2);
  EXPECT_NEAR(b->inner_t, 0.75 + w1, 1e-12);
  EXPECT_NEAR(b->outer_t, 0.75 + w1 + w2, 1e-12);
  b = lane_bounds(road, 25, -1);
  EXPECT_NEAR(b->outer_t, 0.75 - wm1, 1e-12);
  b = lane_bounds(road, 25, -2);  // <border>: the outer t straight from the reference line.
  EXPECT_NEAR(b->inner_t, 0.75 - wm1, 1e-12);
  EXPECT_NEAR(b->outer_t, -6 - 0.01 * 25, 1e-12);
  b = lane_bounds(road, 25, 0);
  EXPECT_NEAR(b->centre_t, 0.75, 1e-12);
  // s = 45: the second section (ds = 5, its width record from sOffset 2: 3 + 0.1·3).
  EXPECT_FALSE(lane_bounds(road, 45, 1));
  b = lane_bounds(road, 45, -1);
  ASSERT_TRUE(b);
  EXPECT_NEAR(b->outer_t, 0.95 - 3.3, 1e-12);
  EXPECT_EQ(section_index(road, 40), 1u);
  EXPECT_EQ(section_index(road, 39.99), 0u);
  // Straight road along +x: the world point of (s, t) is (s, t, 0).
  const std::optional<Vec3> c = lane_centre_point(road, 25, -1);
  ASSERT_TRUE(c);
  EXPECT_NEAR(c->x, 25, 1e-12);
  EXPECT_NEAR(c->y, 0.75 - wm1 / 2, 1e-12);
}

TEST(XodrReader, ElevationSuperelevationCrossfallShape) {
  const std::string plan =
      "<planView>" + geometry(0, 0, 0, kPi / 2, 100, "<line/>") + "</planView>";
  const std::string elev = R"(<elevationProfile>
  <elevation s="0" a="10" b="0.02" c="0" d="0"/>
  <elevation s="50" a="11" b="0.02" c="0.001" d="-0.00001"/>
</elevationProfile>)";
  Road road = parse_one(one_road(100, plan + elev + R"(<lateralProfile>
  <superelevation s="0" a="0.05" b="0" c="0" d="0"/></lateralProfile>)"));
  EXPECT_NEAR(elevation(road, 25), 10.5, 1e-12);
  EXPECT_NEAR(elevation(road, 70), 11 + 0.4 + 0.4 - 0.08, 1e-12);
  EXPECT_NEAR(elevation(road, 50), 11, 1e-12);
  // Positive superelevation: the right side (t < 0) is lower.
  EXPECT_NEAR(surface_z(road, 25, -2), 10.5 - 2 * std::sin(0.05), 1e-12);
  EXPECT_NEAR(surface_z(road, 25, 2), 10.5 + 2 * std::sin(0.05), 1e-12);
  EXPECT_LT(surface_z(road, 25, -2), surface_z(road, 25, 2));
  // Heading north: +t is west (-x); the rolled t axis puts t = 2 at 2·cos(0.05) across.
  const Vec3 w = world_point(road, 25, 2, 0.5);
  EXPECT_NEAR(w.x, -2 * std::cos(0.05), 1e-12);
  EXPECT_NEAR(w.y, 25, 1e-12);
  EXPECT_NEAR(w.z, 10.5 + 2 * std::sin(0.05) + 0.5, 1e-12);

  // Crossfall (1.4): both sides fall outward; a later left-only record changes the left only.
  road = parse_one(one_road(100, plan + elev + R"(<lateralProfile>
  <crossfall side="both" s="0" a="0.02" b="0" c="0" d="0"/>
  <crossfall side="left" s="60" a="0.04" b="0" c="0" d="0"/></lateralProfile>)"));
  EXPECT_NEAR(surface_z(road, 25, 3), 10.5 - 3 * std::tan(0.02), 1e-12);
  EXPECT_NEAR(surface_z(road, 25, -3), 10.5 - 3 * std::tan(0.02), 1e-12);
  EXPECT_NEAR(surface_z(road, 25, 0), 10.5, 1e-12);
  const double z70 = elevation(road, 70);
  EXPECT_NEAR(surface_z(road, 70, 3), z70 - 3 * std::tan(0.04), 1e-12);
  EXPECT_NEAR(surface_z(road, 70, -3), z70 - 3 * std::tan(0.02), 1e-12);

  // Shape (1.5+): the spec's crown example at s = 0 (0 to t = -3, +0.15/m to 0.45 at t = 0,
  // -0.1/m after), a flat 1.0 at s = 100, linear in s between.
  road = parse_one(one_road(100, plan + R"(<lateralProfile>
  <shape s="0" t="-4" a="0" b="0" c="0" d="0"/>
  <shape s="0" t="-3" a="0" b="0.15" c="0" d="0"/>
  <shape s="0" t="0" a="0.45" b="-0.1" c="0" d="0"/>
  <shape s="0" t="4" a="0.05" b="0" c="0" d="0"/>
  <shape s="100" t="-4" a="1" b="0" c="0" d="0"/></lateralProfile>)",
                            "8"));
  EXPECT_NEAR(surface_z(road, 0, -3.5), 0, 1e-12);
  EXPECT_NEAR(surface_z(road, 0, -1), 0.3, 1e-12);
  EXPECT_NEAR(surface_z(road, 0, 0), 0.45, 1e-12);
  EXPECT_NEAR(surface_z(road, 0, 2), 0.25, 1e-12);
  EXPECT_NEAR(surface_z(road, 0, 4), 0.05, 1e-12);
  EXPECT_NEAR(surface_z(road, 50, -1), 0.5 * (0.3 + 1.0), 1e-12);
  EXPECT_NEAR(surface_z(road, 75, 0), 0.25 * 0.45 + 0.75, 1e-12);
  EXPECT_NEAR(surface_z(road, 100, 0), 1.0, 1e-12);
}

TEST(XodrReader, LaneHeight) {
  const Road road = parse_one(one_road(10, "<planView>" + geometry(0, 0, 0, 0, 10, "<line/>") +
                                               R"(</planView><lanes><laneSection s="0">
  <left><lane id="1" type="sidewalk"><width sOffset="0" a="2" b="0" c="0" d="0"/>
    <height sOffset="0" inner="0.1" outer="0.2"/></lane></left>
  <center><lane id="0"/></center>
  <right><lane id="-1" type="driving"><width sOffset="0" a="3" b="0" c="0" d="0"/></lane>
  </right></laneSection></lanes>)"));
  EXPECT_NEAR(lane_height(road, 5, 0.5), 0.125, 1e-12);
  EXPECT_NEAR(lane_height(road, 5, 2), 0.2, 1e-12);
  EXPECT_EQ(lane_height(road, 5, -1), 0);
  EXPECT_EQ(lane_height(road, 5, 5), 0);
}

// ---------------------------------------------------------------------------------------------
// Samples from another tool (esmini's, MPL-2.0, in the shared folder next to the checkout).

std::string sample(const char* name) {
  return std::string(CITYFORGE_SOURCE_DIR "/../shared/schemas/opendrive/samples/") + name;
}

#define SKIP_WITHOUT_SAMPLES(path)                                               \
  if (!std::filesystem::exists(path)) {                                          \
    GTEST_SKIP() << "OpenDRIVE samples not found at " << (path)                  \
                 << " (the shared schemas folder is absent from this checkout)"; \
  }

TEST(XodrSamples, CrestCurveSpiralAndElevation) {
  const std::string path = sample("crest-curve.xodr");
  SKIP_WITHOUT_SAMPLES(path);
  const ParseResult r = parse_file(path);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.doc.header.rev_minor, 6);
  ASSERT_EQ(r.doc.roads.size(), 1u);
  const Road& road = r.doc.roads[0];
  ASSERT_EQ(road.plan_view.size(), 2u);
  EXPECT_EQ(road.plan_view[1].kind, GeometryKind::kSpiral);
  // The spiral (100 -> 400) from (100, 0) turns right from curvature 0 to -0.02 (R = 50)
  // through 3 rad: the clothoid series, mirrored.
  double x = 0, y = 0;
  clothoid_series(300, 50, x, y);
  const Pose end = reference_pose(road, 400);
  EXPECT_NEAR(end.x, 100 + x, 1e-6);
  EXPECT_NEAR(end.y, -y, 1e-6);
  EXPECT_NEAR(end.hdg, -3, 1e-12);
  // The crest: 0 before s = 200, 6 m at s = 270 with a flat top, back to 0 at 340; each piece
  // meets the next with the same value.
  EXPECT_NEAR(elevation(road, 150), 0, 1e-12);
  EXPECT_NEAR(elevation(road, 270 - 1e-9), 6, 1e-6);
  EXPECT_NEAR(elevation(road, 270), 6, 1e-12);
  EXPECT_NEAR(elevation(road, 340 - 1e-9), 0, 1e-6);
  EXPECT_GT(elevation(road, 270), elevation(road, 269.5));
  EXPECT_GT(elevation(road, 270), elevation(road, 270.5));
  // Lanes: 50 m border, 3.2 m driving either side, 30 m border on the right.
  EXPECT_NEAR(lane_bounds(road, 200, 2)->outer_t, 53.2, 1e-12);
  EXPECT_NEAR(lane_bounds(road, 200, -2)->outer_t, -33.2, 1e-12);
  ASSERT_EQ(road.objects.size(), 9u);
  EXPECT_EQ(road.objects[2].outlines[0].corners.size(), 4u);
  EXPECT_FALSE(road.objects[2].outlines[0].corners[0].road);
  EXPECT_EQ(road.objects[3].outlines[0].corners.size(), 8u);
  EXPECT_TRUE(road.objects[3].outlines[0].corners[0].road);
}

TEST(XodrSamples, FabriksgatanPlanViewIsContinuous) {
  const std::string path = sample("fabriksgatan.xodr");
  SKIP_WITHOUT_SAMPLES(path);
  const ParseResult r = parse_file(path);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.doc.header.rev_minor, 4);
  EXPECT_EQ(r.doc.roads.size(), 16u);
  double max_gap = 0, max_turn = 0, max_len = 0;
  for (const Road& road : r.doc.roads) {
    double total = 0;
    for (std::size_t i = 0; i < road.plan_view.size(); ++i) {
      const Geometry& g = road.plan_view[i];
      total += g.length;
      if (i + 1 == road.plan_view.size()) break;
      const Pose e = eval_geometry(g, g.length);
      const Geometry& n = road.plan_view[i + 1];
      max_gap = std::max(max_gap, std::hypot(e.x - n.x, e.y - n.y));
      max_turn = std::max(max_turn, std::fabs(angle_diff(e.hdg, n.hdg)));
    }
    max_len = std::max(max_len, std::fabs(total - road.length));
  }
  std::printf(
      "fabriksgatan planView: max gap %.3g m, max heading jump %.3g rad, "
      "max |sum(lengths) - length| %.3g m\n",
      max_gap, max_turn, max_len);
  EXPECT_LT(max_gap, 1e-3);
  EXPECT_LT(max_turn, 1e-3);
  EXPECT_LT(max_len, 1e-6);
}

/// World point and heading of a lane's border or centre at a road end.
struct EndPoint {
  Vec3 inner, outer, centre;
  double hdg = 0;
};
std::optional<EndPoint> lane_end(const Road& road, double s, int lane) {
  const std::optional<LaneBounds> b = lane_bounds(road, s, lane);
  if (!b) return std::nullopt;
  return EndPoint{world_point(road, s, b->inner_t), world_point(road, s, b->outer_t),
                  world_point(road, s, b->centre_t), reference_pose(road, s).hdg};
}
double dist(const Vec3& a, const Vec3& b) {
  return std::sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) +
                   (a.z - b.z) * (a.z - b.z));
}

TEST(XodrSamples, FabriksgatanLinksAreContinuous) {
  const std::string path = sample("fabriksgatan.xodr");
  SKIP_WITHOUT_SAMPLES(path);
  const ParseResult r = parse_file(path);
  ASSERT_TRUE(r.ok()) << r.error;
  const Document& doc = r.doc;
  double max_centre = 0, max_border = 0, max_turn = 0;
  int checked = 0;
  // Lane `lane` of `road` at end s meets lane `other_lane` of `other` at its `contact` end;
  // the roads run on (contact "start" of a successor, "end" of a predecessor) or face each
  // other (the same contact), so their headings agree or differ by pi.
  auto check = [&](const Road& road, double s, int lane, const Road& other,
                   const std::string& contact, int other_lane, bool same_direction) {
    const std::optional<EndPoint> a = lane_end(road, s, lane);
    const std::optional<EndPoint> b = lane_end(other, contact_s(other, contact), other_lane);
    ASSERT_TRUE(a && b) << "road " << road.id << " lane " << lane << " -> road " << other.id
                        << " lane " << other_lane;
    const double gap = dist(a->centre, b->centre);
    const double border = std::max(dist(a->inner, b->inner), dist(a->outer, b->outer));
    const double turn = std::fabs(angle_diff(a->hdg + (same_direction ? 0 : kPi), b->hdg));
    EXPECT_LT(gap, 0.01) << "road " << road.id << " lane " << lane << " -> road " << other.id;
    EXPECT_LT(border, 0.01) << "road " << road.id << " lane " << lane << " -> road " << other.id;
    EXPECT_LT(turn, 0.01) << "road " << road.id << " lane " << lane << " -> road " << other.id;
    max_centre = std::max(max_centre, gap);
    max_border = std::max(max_border, border);
    max_turn = std::max(max_turn, turn);
    ++checked;
  };
  // 1. Road-to-road links (the connecting roads'): every lane with a predecessor / successor.
  for (const Road& road : doc.roads) {
    for (const bool pred : {true, false}) {
      const RoadLink& link = pred ? road.predecessor : road.successor;
      if (!link.present || link.element_type != "road") continue;
      const Road* other = find_road(doc, link.element_id);
      ASSERT_NE(other, nullptr) << link.element_id;
      const double s = pred ? 0.0 : road.length;
      const LaneSection& sec = road.lane_sections[section_index(road, s)];
      for (const auto* side : {&sec.left, &sec.right}) {
        for (const Lane& l : *side) {
          const std::optional<int> to = pred ? l.predecessor : l.successor;
          if (!to) continue;
          check(road, s, l.id, *other, link.contact_point, *to,
                (link.contact_point == "end") == pred);
        }
      }
    }
  }
  const int road_links = checked;
  // 2. Junction connections: the incoming road's lane at the end the connecting road names
  //    meets the connecting road's lane at the connection's contact point.
  for (const Junction& j : doc.junctions) {
    for (const Connection& c : j.connections) {
      const Road* in = find_road(doc, c.incoming_road);
      const Road* conn = find_road(doc, c.connecting_road);
      ASSERT_TRUE(in && conn) << "connection " << c.id;
      const RoadLink& back = c.contact_point == "start" ? conn->predecessor : conn->successor;
      ASSERT_EQ(back.element_id, in->id) << "connection " << c.id;
      const double s_in = contact_s(*in, back.contact_point);
      for (const LaneLink& ll : c.lane_links) {
        check(*in, s_in, ll.from, *conn, c.contact_point, ll.to,
              back.contact_point != c.contact_point);
      }
    }
  }
  std::printf(
      "fabriksgatan: %d road-link lanes, %d junction lane links; max gap: lane centre "
      "%.3g m, borders %.3g m, heading %.3g rad\n",
      road_links, checked - road_links, max_centre, max_border, max_turn);
  EXPECT_EQ(road_links, 40);  // 12 connecting roads, both ends of each linked lane
  EXPECT_EQ(checked - road_links, 20);
}

}  // namespace
}  // namespace cityforge::xodr_test
