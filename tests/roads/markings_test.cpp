// SPDX-License-Identifier: Apache-2.0
// Road markings: every decal lies on the road surface (height and plan), arteries get double
// centre lines, stop lines sit on the incoming lanes before the crosswalk, crosswalk stripes on
// the crosswalk lanes, arrows match the lanes' movements; deterministic.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "cityforge/core/polygon.hpp"
#include "cityforge/core/polyline.hpp"
#include "cityforge/roads/roads.hpp"
#include "roads/hand_networks.hpp"

namespace cityforge::roads {
namespace {

using RC = layout::RoadClass;
using test::flat_ground;
using test::star;

Vec2 xy(Vec3 p) { return {p.x, p.y}; }

terrain::Heightfield sloped_ground() {
  terrain::Heightfield g = flat_ground();
  g.heights = {0, 10, 20, 5, 15, 25, 10, 20, 30};
  return g;
}

bool is_arrow(MarkingKind k) { return k >= MarkingKind::arrow_through; }

/// Mitred offset direction at vertex v (polyline_offset's rule), written out for the tests.
Vec2 mitre(const Polyline& l, std::size_t v) {
  const Vec2 n0 = v > 0 ? perp(normalize(l[v] - l[v - 1])) : perp(normalize(l[1] - l[0]));
  const Vec2 n1 = v + 1 < l.size() ? perp(normalize(l[v + 1] - l[v])) : n0;
  const Vec2 b = normalize(n0 + n1);
  return b * std::min(1.0 / dot(b, n0), 4.0);
}

/// Signed lateral offset (left positive) of p in the section's mitred frame: p = lerp(c_i +
/// m_i lat, c_i+1 + m_i+1 lat, t) for some segment i and t in [0, 1] (the nearest such lat).
double lateral_of(const Polyline& centre, Vec2 p) {
  const Polyline l = polyline_dedupe(centre);
  double lat = 1e300;
  for (std::size_t i = 0; i + 1 < l.size(); ++i) {
    const Vec2 q = p - l[i];
    const Vec2 d = l[i + 1] - l[i];
    const Vec2 m0 = mitre(l, i);
    const Vec2 dm = mitre(l, i + 1) - m0;
    // cross(q - t d, m0 + t dm) = 0: a t^2 + b t + c = 0.
    const double a = -cross(d, dm);
    const double b = cross(q, dm) - cross(d, m0);
    const double c = cross(q, m0);
    std::vector<double> ts;
    if (std::abs(a) < 1e-12) {
      if (std::abs(b) > 1e-15) ts.push_back(-c / b);
    } else {
      const double disc = b * b - 4 * a * c;
      if (disc >= 0) {
        ts.push_back((-b + std::sqrt(disc)) / (2 * a));
        ts.push_back((-b - std::sqrt(disc)) / (2 * a));
      }
    }
    for (double t : ts) {
      if (t < -1e-6 || t > 1 + 1e-6) continue;
      const Vec2 m = m0 + dm * t;
      const double candidate = dot(q - d * t, m) / dot(m, m);
      if (std::abs(candidate) < std::abs(lat)) lat = candidate;
    }
  }
  return lat;
}

/// The road surface at p on a section, by the exporter's rule written out independently.
double surface_at(const layout::Output& city, const Output& roads,
                  const terrain::Heightfield& ground, const Config& config, std::uint32_t sec,
                  Vec2 p) {
  const layout::RoadEdge& e = city.network.edges[roads.sections[sec].edge];
  const double half = 0.5 * e.width_m;
  const double lat = lateral_of(roads.sections[sec].centre, p);
  return ground.sample(p) + config.road_raise_m +
         config.class_raise_m[static_cast<int>(e.road_class)] +
         config.crown_m * std::max(0.0, 1.0 - std::abs(lat) / half);
}

double ring_distance(const Ring& r, Vec2 p) {
  double best = 1e300;
  for (std::size_t i = 0; i < r.size(); ++i)
    best = std::min(best, segment_distance(r[i], r[(i + 1) % r.size()], p));
  return best;
}

bool on_polygon(const Polygon& poly, Vec2 p, double tol) {
  if (poly.outer.size() < 3) return false;
  return polygon_contains(poly, p) || ring_distance(poly.outer, p) <= tol;
}

/// Inside the carriageway of its section, or of any road or junction surface, within tol.
bool on_road(const Output& roads, std::uint32_t sec, Vec2 p, double tol = 0.01) {
  if (on_polygon(roads.sections[sec].surface, p, tol)) return true;
  for (const Section& s : roads.sections)
    if (on_polygon(s.surface, p, tol)) return true;
  for (const Intersection& j : roads.intersections)
    if (on_polygon(j.surface, p, tol)) return true;
  return false;
}

/// Every decal: >= 4 outline points, z within 1 mm above surface + lift, on the road in plan,
/// pieces <= 5 m. Returns the first violation, or "".
std::string check_on_surface(const layout::Output& city, const Output& roads,
                             const terrain::Heightfield& ground, const Config& config) {
  for (std::size_t i = 0; i < roads.markings.size(); ++i) {
    const Decal& d = roads.markings[i];
    const std::string where = "decal " + std::to_string(i) + " (" + to_string(d.kind) + ")";
    if (d.outline.size() < 4) return where + ": outline has < 4 points";
    if (d.length_m > 5.0 + 1e-9) return where + ": longer than 5 m";
    if (ring_signed_area([&] {
          Ring r;
          for (Vec3 v : d.outline)
            r.push_back(xy(v));
          return r;
        }()) <= 0.0) {
      return where + ": outline not counter-clockwise";
    }
    const std::uint32_t sec = d.section_or_intersection;
    std::vector<Vec3> points = d.outline;
    points.push_back(d.position);
    for (Vec3 v : points) {
      const double above =
          v.z - config.marking_lift_m - surface_at(city, roads, ground, config, sec, xy(v));
      if (above < -1e-5 || above > 1e-3) {
        return where + ": " + std::to_string(above) + " m off the lifted road surface at " +
               std::to_string(v.x) + ", " + std::to_string(v.y) + " section " +
               std::to_string(sec) + " lateral " +
               std::to_string(lateral_of(roads.sections[sec].centre, xy(v)));
      }
      if (!on_road(roads, sec, xy(v))) return where + ": vertex off the road surface";
    }
  }
  return "";
}

std::map<MarkingKind, int> count_kinds(const std::vector<Decal>& decals) {
  std::map<MarkingKind, int> n;
  for (const Decal& d : decals)
    ++n[d.kind];
  return n;
}

/// Crosswalk lane of the junction nearest p, or kNoLane.
LaneId nearest_crosswalk(const Output& roads, std::uint32_t junction, Vec2 p, double* dist) {
  LaneId best = kNoLane;
  *dist = 1e300;
  for (const Lane& l : roads.lanes.lanes) {
    if ((l.tags & kCrosswalk) == 0U || l.intersection != static_cast<std::int32_t>(junction))
      continue;
    Polyline line;
    for (Vec3 v : l.points)
      line.push_back(xy(v));
    const double dd = polyline_distance(line, p);
    if (dd < *dist) {
      *dist = dd;
      best = l.id;
    }
  }
  return best;
}

/// Stop lines: on every leg of signal / stop junctions whose section has room, exactly one, on
/// the incoming lanes, beyond the crosswalk. Returns the first violation, or "".
std::string check_stop_lines(const Output& roads, const Config& config, int* checked) {
  for (std::uint32_t ji = 0; ji < roads.intersections.size(); ++ji) {
    const Intersection& j = roads.intersections[ji];
    if (j.legs.size() < 3 || (j.control != Control::signal && j.control != Control::stop)) continue;
    for (const Leg& leg : j.legs) {
      const Section& sec = roads.sections[leg.edge];
      const double len = polyline_length(sec.centre);
      const Vec2 end = leg.at_edge_start ? sec.centre.front() : sec.centre.back();
      const std::string where =
          "junction " + std::to_string(ji) + " leg " + std::to_string(leg.edge);
      std::vector<const Decal*> lines;
      for (const Decal& d : roads.markings) {
        if (d.kind == MarkingKind::stop_line && d.section_or_intersection == leg.edge &&
            distance(xy(d.position), end) < 0.5 * len) {
          lines.push_back(&d);
        }
      }
      // Short sections (skewed crosswalks need more room) may drop their stop lines.
      const double need = config.crosswalk_width_m + config.stop_line_gap_m + 0.4 + 5.0;
      if (len < 2.0 * need) {
        if (lines.size() > 1) return where + ": several stop lines";
        continue;
      }
      if (lines.size() != 1) return where + ": " + std::to_string(lines.size()) + " stop lines";
      ++*checked;
      const Decal& d = *lines[0];
      // Incoming side: right of the direction of travel towards the junction.
      const double lat = lateral_of(sec.centre, xy(d.position));
      if (leg.at_edge_start ? lat <= 0.0 : lat >= 0.0) return where + ": on the outgoing side";
      const Vec2 travel{std::cos(d.yaw_rad), std::sin(d.yaw_rad)};
      if (dot(travel, -leg.direction) < 0.7) return where + ": not facing the junction";
      double cw_dist = 0.0;
      const LaneId cw = nearest_crosswalk(roads, ji, xy(d.position), &cw_dist);
      if (cw == kNoLane) return where + ": no crosswalk";
      const Lane& c = roads.lanes.lanes[cw];
      const Vec2 mid = (xy(c.points.front()) + xy(c.points.back())) * 0.5;

      for (Vec3 v : d.outline) {
        Polyline line;
        for (Vec3 p : c.points)
          line.push_back(xy(p));
        if (polyline_distance(line, xy(v)) < 0.5 * c.width_m + config.stop_line_gap_m - 1e-6)
          return where + ": stop line on or too close to the crosswalk (" +
                 std::to_string(polyline_distance(line, xy(v))) + " m from lane " +
                 std::to_string(cw) + ")";
        if (dot(xy(v) - mid, leg.direction) <= 0.0) return where + ": stop line past the crosswalk";
      }
    }
  }
  return "";
}

/// Every stripe lies on a crosswalk lane's band; returns the first violation, or "".
std::string check_stripes(const Output& roads, int* stripes) {
  for (const Decal& d : roads.markings) {
    if (d.kind != MarkingKind::crosswalk_stripe) continue;
    ++*stripes;
    bool on_lane = false;
    for (const Lane& l : roads.lanes.lanes) {
      if ((l.tags & kCrosswalk) == 0U) continue;
      Polyline line;
      for (Vec3 p : l.points)
        line.push_back(xy(p));
      bool all = true;
      for (Vec3 v : d.outline)
        all = all && polyline_distance(line, xy(v)) <= 0.5 * l.width_m + 0.01;
      on_lane = on_lane || all;
    }
    if (!on_lane) {
      std::string pts;
      for (Vec3 v : d.outline)
        pts += " (" + std::to_string(v.x) + "," + std::to_string(v.y) + ")";
      return "stripe" + pts + " off every crosswalk lane";
    }
  }
  return "";
}

/// Every arrow lies on a driving lane heading its way and shows exactly that lane's movements.
std::string check_arrows(const Output& roads, int* arrows) {
  for (const Decal& d : roads.markings) {
    if (!is_arrow(d.kind)) continue;
    ++*arrows;
    const Lane* lane = nullptr;
    double best = 1e300;
    for (const Lane& l : roads.lanes.lanes) {
      if ((l.tags & kVehicle) == 0U || (l.tags & kIntersection) != 0U ||
          l.section != static_cast<std::int32_t>(d.section_or_intersection)) {
        continue;
      }
      Polyline line;
      for (Vec3 p : l.points)
        line.push_back(xy(p));
      const double dd = polyline_distance(line, xy(d.position));
      if (dd < best) {
        best = dd;
        lane = &l;
      }
    }
    if (lane == nullptr || best > 0.25 * lane->width_m) return "arrow off its lane";
    const Vec2 travel = normalize(xy(lane->points.back()) - xy(lane->points.front()));
    if (dot(travel, Vec2{std::cos(d.yaw_rad), std::sin(d.yaw_rad)}) < 0.5)
      return "arrow against its lane";
    bool t = false;
    bool l = false;
    bool r = false;
    for (LaneId s : lane->successors) {
      const Lane& c = roads.lanes.lanes[s];
      t = t || c.turn == Turn::through;
      l = l || c.turn == Turn::left;
      r = r || c.turn == Turn::right;
    }
    const bool match = (d.kind == MarkingKind::arrow_through && t && !l && !r) ||
                       (d.kind == MarkingKind::arrow_left && !t && l && !r) ||
                       (d.kind == MarkingKind::arrow_right && !t && !l && r) ||
                       (d.kind == MarkingKind::arrow_through_left && t && l && !r) ||
                       (d.kind == MarkingKind::arrow_through_right && t && !l && r);
    if (!match)
      return std::string("arrow ") + to_string(d.kind) + " does not match lane " +
             std::to_string(lane->id);
  }
  return "";
}

void check_all(const layout::Output& city, const Output& roads, const terrain::Heightfield& g,
               const Config& config, const std::string& name) {
  EXPECT_EQ(check_on_surface(city, roads, g, config), "") << name;
  int stops = 0;
  int stripes = 0;
  int arrows = 0;
  EXPECT_EQ(check_stop_lines(roads, config, &stops), "") << name;
  EXPECT_EQ(check_stripes(roads, &stripes), "") << name;
  EXPECT_EQ(check_arrows(roads, &arrows), "") << name;
  std::printf("%s: %zu decals, %d stop lines checked, %d stripes, %d arrows\n", name.c_str(),
              roads.markings.size(), stops, stripes, arrows);
}

Output build(const layout::Output& city, const terrain::Heightfield& g, const Config& config) {
  Result<Output> r = run(city, g, config, 1);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string());
  return r.ok() ? std::move(r).value() : Output{};
}

TEST(RoadsMarkings, SurfaceHeightFollowsTheExporterRule) {
  const layout::Output city = star({0, 90, 180}, {RC::artery, RC::local, RC::artery});
  const terrain::Heightfield g = sloped_ground();
  const Config config;
  const Output roads = build(city, g, config);
  const auto& e = city.network.edges[0];
  const double half = 0.5 * e.width_m;
  const Vec2 c = section_point(roads, 0, 0.0, 30.0);
  const Vec2 curb = section_point(roads, 0, -half, 30.0);
  EXPECT_NEAR(distance(c, curb), half, 1e-9);
  EXPECT_NEAR(road_surface_z(city, roads, g, config, 0, 0.0, 30.0),
              g.sample(c) + config.road_raise_m + 0.04 + config.crown_m, 1e-12);
  EXPECT_NEAR(road_surface_z(city, roads, g, config, 0, -half, 30.0),
              g.sample(curb) + config.road_raise_m + 0.04, 1e-12);
  EXPECT_NEAR(junction_surface_z(city, roads, g, config, 0, {1, 1}),
              g.sample({1, 1}) + config.road_raise_m + 0.04, 1e-12);
}

TEST(RoadsMarkings, FourWayArteriesDoubleCentreStopLinesStripesArrows) {
  const layout::Output city = star({0, 90, 180, 270}, {RC::artery});
  const terrain::Heightfield g = sloped_ground();
  const Config config;
  const Output roads = build(city, g, config);
  ASSERT_EQ(roads.intersections[0].control, Control::signal);
  check_all(city, roads, g, config, "4-way arteries");
  const auto n = count_kinds(roads.markings);
  EXPECT_GT(n.count(MarkingKind::centre_double_solid), 0U);
  EXPECT_EQ(n.count(MarkingKind::centre_solid), 0U);
  EXPECT_EQ(n.at(MarkingKind::stop_line), 4);
  // Double solid centre lines sit on the centre line of every artery section.
  for (const Decal& d : roads.markings) {
    if (d.kind != MarkingKind::centre_double_solid) continue;
    EXPECT_NEAR(lateral_of(roads.sections[d.section_or_intersection].centre, xy(d.position)), 0.0,
                1e-6);
  }
  // Each approach lane gets one arrow (2 lanes per direction on arteries).
  const int lanes_in = 4 * city.network.edges[0].lanes_per_direction;
  int arrows = 0;
  for (const auto& [k, c] : n)
    arrows += is_arrow(k) ? c : 0;
  EXPECT_EQ(arrows, lanes_in);
  EXPECT_GT(n.at(MarkingKind::crosswalk_stripe), 4 * 5);
  EXPECT_GT(n.at(MarkingKind::edge_solid), 8);
}

TEST(RoadsMarkings, TJunctionMainAndLocalLines) {
  const layout::Output city = star({0, 90, 180}, {RC::main, RC::local, RC::main});
  const terrain::Heightfield g = sloped_ground();
  const Config config;
  const Output roads = build(city, g, config);
  check_all(city, roads, g, config, "T main/local");
  bool main_solid = false;
  bool local_dashed_centre = false;
  for (const Decal& d : roads.markings) {
    const auto cls = city.network.edges[roads.sections[d.section_or_intersection].edge].road_class;
    const double lat = lateral_of(roads.sections[d.section_or_intersection].centre, xy(d.position));
    EXPECT_NE(d.kind, MarkingKind::centre_double_solid);
    if (d.kind == MarkingKind::centre_solid) {
      EXPECT_EQ(cls, RC::main);
      main_solid = true;
    }
    if (d.kind == MarkingKind::lane_dashed && cls == RC::local && std::abs(lat) < 1e-6) {
      local_dashed_centre = true;
      EXPECT_NEAR(d.length_m, 3.0, 1e-9);
    }
  }
  EXPECT_TRUE(main_solid);
  EXPECT_TRUE(local_dashed_centre);
}

TEST(RoadsMarkings, CurvedRoadPiecesFollowTheSurface) {
  test::NetBuilder b;
  const auto a = b.node({-150, 0});
  const auto c = b.node({0, 0});
  const auto d = b.node({150, 40});
  const auto e = b.node({0, 150});
  b.edge(a, c, RC::artery, {{-100, -20}, {-50, -25}, {-20, -10}});
  b.edge(c, d, RC::artery, {{40, 10}, {90, 30}});
  b.edge(c, e, RC::main, {{10, 60}, {-10, 110}});
  const layout::Output city = b.finish();
  const terrain::Heightfield g = sloped_ground();
  const Config config;
  const Output roads = build(city, g, config);
  check_all(city, roads, g, config, "curved T");
  EXPECT_GT(roads.markings.size(), 50U);
}

TEST(RoadsMarkings, SmallLayoutCity) {
  layout::Inputs in;
  in.boundary.outer = {{0, 0}, {1200, 0}, {1250, 700}, {1100, 1100}, {0, 1000}};
  in.arteries.push_back({"east-west", {{10, 480}, {600, 560}, {1230, 520}}});
  in.arteries.push_back({"north-south", {{620, 10}, {560, 500}, {640, 1040}}});
  layout::Zone res;
  res.area.outer = in.boundary.outer;
  in.zones = {res};
  const terrain::Heightfield g =
      *terrain::run(ring_bounds(in.boundary.outer), terrain::Config{}, 4);
  const layout::Output city = *layout::run(in, g, layout::Config{}, 4);
  const Config config;
  const Output roads = build(city, g, config);
  check_all(city, roads, g, config, "small city");
  const auto n = count_kinds(roads.markings);
  for (const auto& [k, c] : n)
    std::printf("  %s: %d\n", to_string(k), c);
  EXPECT_GT(n.count(MarkingKind::centre_double_solid), 0U);
  EXPECT_GT(n.count(MarkingKind::stop_line), 0U);
  EXPECT_GT(n.count(MarkingKind::crosswalk_stripe), 0U);
  // Determinism: the same inputs give the same decals, bit for bit.
  const Output again = build(city, g, config);
  ASSERT_EQ(again.markings.size(), roads.markings.size());
  for (std::size_t i = 0; i < roads.markings.size(); ++i) {
    const Decal& x = roads.markings[i];
    const Decal& y = again.markings[i];
    ASSERT_TRUE(x.kind == y.kind && x.position == y.position && x.yaw_rad == y.yaw_rad &&
                x.section_or_intersection == y.section_or_intersection && x.outline == y.outline)
        << i;
  }
}

TEST(RoadsMarkings, ChecksCanFail) {
  const layout::Output city = star({0, 90, 180, 270}, {RC::artery, RC::main});
  const terrain::Heightfield g = sloped_ground();
  const Config config;
  const Output roads = build(city, g, config);
  int n = 0;
  ASSERT_EQ(check_on_surface(city, roads, g, config), "");
  {  // Floating 5 mm too high.
    Output bad = roads;
    bad.markings[0].outline[1].z += 0.005;
    EXPECT_NE(check_on_surface(city, bad, g, config), "");
  }
  {  // Off the carriageway.
    Output bad = roads;
    for (Vec3& v : bad.markings[0].outline)
      v.y += 30.0;
    EXPECT_NE(check_on_surface(city, bad, g, config), "");
  }
  for (std::size_t i = 0; i < roads.markings.size(); ++i) {
    Output bad = roads;
    Decal& d = bad.markings[i];
    if (d.kind == MarkingKind::crosswalk_stripe) {  // Moved off the crosswalk.
      for (Vec3& v : d.outline)
        v = v + Vec3{-std::sin(d.yaw_rad), std::cos(d.yaw_rad), 0.0} * 0.0 +
            Vec3{std::cos(d.yaw_rad), std::sin(d.yaw_rad), 0.0} * 4.0;
      EXPECT_NE(check_stripes(bad, &n), "");
    } else if (d.kind == MarkingKind::arrow_through) {  // Wrong movement.
      d.kind = MarkingKind::arrow_left;
      EXPECT_NE(check_arrows(bad, &n), "");
    } else if (d.kind == MarkingKind::stop_line) {  // Dropped.
      bad.markings.erase(bad.markings.begin() + static_cast<std::ptrdiff_t>(i));
      EXPECT_NE(check_stop_lines(bad, config, &n), "");
    }
  }
}

}  // namespace
}  // namespace cityforge::roads
