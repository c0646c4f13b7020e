// SPDX-License-Identifier: Apache-2.0
// Independent checks of road markings (stop lines, stripes, arrows on the surface), for the
// markings tests (unit and city).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "cityforge/core/polygon.hpp"
#include "cityforge/core/polyline.hpp"
#include "cityforge/roads/roads.hpp"

namespace cityforge::roads::markings_test {

/// The road stage's output with its markings (build_markings), as the checks read them.
struct Painted : Output {
  std::vector<Decal> markings;
};

inline Vec2 xy(Vec3 p) { return {p.x, p.y}; }

inline bool is_arrow(MarkingKind k) { return k >= MarkingKind::arrow_through; }

/// Mitred offset direction at vertex v (polyline_offset's rule), written out for the tests.
inline Vec2 mitre(const Polyline& l, std::size_t v) {
  const Vec2 n0 = v > 0 ? perp(normalize(l[v] - l[v - 1])) : perp(normalize(l[1] - l[0]));
  const Vec2 n1 = v + 1 < l.size() ? perp(normalize(l[v + 1] - l[v])) : n0;
  const Vec2 b = normalize(n0 + n1);
  return b * std::min(1.0 / dot(b, n0), 4.0);
}

/// Signed lateral offset (left positive) of p in the section's mitred frame: p = lerp(c_i +
/// m_i lat, c_i+1 + m_i+1 lat, t) for some segment i and t in [0, 1] (the nearest such lat).
inline double lateral_of(const Polyline& centre, Vec2 p) {
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
inline double surface_at(const layout::Output& city, const Output& roads,
                         const terrain::Heightfield& ground, const Config& config,
                         std::uint32_t sec, Vec2 p) {
  const layout::RoadEdge& e = city.network.edges[roads.sections[sec].edge];
  const double half = 0.5 * e.width_m;
  const double lat = lateral_of(roads.sections[sec].centre, p);
  return ground.sample(p) + config.road_raise_m +
         config.class_raise_m[static_cast<int>(e.road_class)] +
         config.crown_m * std::max(0.0, 1.0 - std::abs(lat) / half);
}

inline double ring_distance(const Ring& r, Vec2 p) {
  double best = 1e300;
  for (std::size_t i = 0; i < r.size(); ++i)
    best = std::min(best, segment_distance(r[i], r[(i + 1) % r.size()], p));
  return best;
}

inline bool on_polygon(const Polygon& poly, Vec2 p, double tol) {
  if (poly.outer.size() < 3) return false;
  return polygon_contains(poly, p) || ring_distance(poly.outer, p) <= tol;
}

/// Inside the carriageway of its section, or of any road or junction surface, within tol.
inline bool on_road(const Output& roads, std::uint32_t sec, Vec2 p, double tol = 0.01) {
  if (on_polygon(roads.sections[sec].surface, p, tol)) return true;
  for (const Section& s : roads.sections)
    if (on_polygon(s.surface, p, tol)) return true;
  for (const Intersection& j : roads.intersections)
    if (on_polygon(j.surface, p, tol)) return true;
  return false;
}

/// Every decal: >= 4 outline points, z within 1 mm above surface + lift, on the road in plan,
/// pieces <= 5 m. Returns the first violation, or "".
inline std::string check_on_surface(const layout::Output& city, const Painted& roads,
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

inline std::map<MarkingKind, int> count_kinds(const std::vector<Decal>& decals) {
  std::map<MarkingKind, int> n;
  for (const Decal& d : decals)
    ++n[d.kind];
  return n;
}

/// Crosswalk lane of the junction nearest p, or kNoLane.
inline LaneId nearest_crosswalk(const Output& roads, std::uint32_t junction, Vec2 p, double* dist) {
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
inline std::string check_stop_lines(const Painted& roads, const Config& config, int* checked) {
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
inline std::string check_stripes(const Painted& roads, int* stripes) {
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
inline std::string check_arrows(const Painted& roads, int* arrows) {
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

inline void check_all(const layout::Output& city, const Painted& roads,
                      const terrain::Heightfield& g, const Config& config,
                      const std::string& name) {
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

inline Painted build(const layout::Output& city, const terrain::Heightfield& g,
                     const Config& config) {
  Result<Output> r = run(city, g, config, 1);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string());
  Painted out;
  if (!r.ok()) return out;
  static_cast<Output&>(out) = std::move(r).value();
  out.markings = build_markings(city, out, g, config);
  return out;
}

}  // namespace cityforge::roads::markings_test
