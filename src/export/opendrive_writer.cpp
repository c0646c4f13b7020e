// SPDX-License-Identifier: Apache-2.0
// ASAM OpenDRIVE 1.4 / 1.8 map of the streets (docs/opendrive.md).
// Based on: ASAM OpenDRIVE 1.4H (VIRES, 2015) and ASAM OpenDRIVE 1.8 (2023), sections on the
// reference line, lanes (centre lane, ids, width, height, road marks, speed), road and lane
// linkage, junctions (connecting roads, connections, lane links, controllers), signals (type
// 1000001 dynamic traffic lights, 206 stop, 205 yield), objects (crosswalk with an outline) and
// the lateral profile (superelevation; crossfall in 1.4, shape in 1.8).
//
// Each section of the roads stage is one road; its reference line is the line the lane graph
// offsets its lanes from (roads::lane_reference), so lane centres match the lane graph. Every
// vehicle connector of a junction is one connecting road with one lane on the connector's curve.
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cityforge/export/opendrive.hpp"
#include "cityforge/roads/meshes.hpp"
#include "export/detail/opendrive_freeway.hpp"
#include "export/detail/opendrive_geometry.hpp"
#include "export/detail/xml_text.hpp"

namespace cityforge::exporter {

namespace {

using detail::OdrGeometry;
using detail::Poly3;
using detail::XmlText;
using roads::kNoLane;
using roads::Lane;
using roads::LaneId;

constexpr double kElevationToleranceM = 0.01;
constexpr double kMinPieceM = 1.0;

std::string num_id(std::size_t v) { return std::to_string(v); }

Vec2 xy(Vec3 p) { return {p.x, p.y}; }

/// The lanes of one section road, by OpenDRIVE side.
struct RoadLanes {
  std::vector<LaneId> right;  ///< Forward lanes, -1 (next to the centre) outwards.
  std::vector<LaneId> left;   ///< Backward lanes, 1 outwards.
  LaneId walk_right = kNoLane;
  LaneId walk_left = kNoLane;
};

using LaneRef = detail::OdrLaneRef;

/// The numeric part of one road, fitted before the text is written (in parallel).
struct Profiles {
  std::vector<OdrGeometry> geo;  ///< Connecting roads only (sections: Writer::m_geo).
  std::vector<Poly3> elevation;
  std::vector<Poly3> roll;
  std::vector<Poly3> stretch;  ///< 1 / cos(roll): the standard measures t across the roll.
  std::vector<detail::ShapeRecord> shapes;
  double fit_error_m = -1.0;  ///< Connectors on their own curve: its distance from the samples.
};

class Writer {
 public:
  Writer(const layout::Output& city, const roads::Output& roads, const terrain::Heightfield& ground,
         const roads::Config& config, const OpenDriveOptions& options,
         const freeway::Output* freeway)
      : m_city(city),
        m_roads(roads),
        m_ground(ground),
        m_config(config),
        m_options(options),
        m_freeway(freeway) {}

  Result<OpenDriveFiles> run();

 private:
  void index_lanes();
  Profiles section_profiles(std::uint32_t k) const;
  Profiles connector_profiles(LaneId c, std::uint32_t junction) const;
  void section_road(std::uint32_t k, const Profiles& pr);
  void connecting_road(LaneId c, std::size_t road_id, std::uint32_t junction, const Profiles& pr);
  void lane_xml(const Lane& lane, int id, const char* type, const char* mark, LaneRef pred,
                LaneRef succ, double height_inner, double height_outer);

  void road_link(std::uint32_t k, bool at_start);
  void plan_view(const std::vector<OdrGeometry>& geo, const std::string& where);
  void profile(const char* element, const std::vector<Poly3>& pieces, const std::string& where,
               const char* extra = nullptr);
  void signals_of(std::uint32_t k);
  void objects_of(std::uint32_t k);
  void junction_xml(std::uint32_t j);
  void controllers_xml();
  std::string side_json() const;
  double stop_s(std::uint32_t k, bool forward) const;

  const layout::Output& m_city;
  const roads::Output& m_roads;
  const terrain::Heightfield& m_ground;
  const roads::Config& m_config;
  const OpenDriveOptions& m_options;
  const freeway::Output* m_freeway;
  detail::FreewayMap m_fw;  // The freeway's roads (empty without one).
  XmlText m_x;
  OpenDriveStats m_stats;
  std::vector<RoadLanes> m_sections;
  std::vector<std::vector<OdrGeometry>> m_geo;    // Per section.
  std::vector<std::vector<LaneId>> m_connectors;  // Per intersection, ascending.
  std::vector<std::vector<LaneId>> m_crosswalks;  // Per section.
  std::vector<LaneRef> m_ref;                     // Per lane.
  std::vector<std::size_t> m_plan_of;             // Per intersection, or SIZE_MAX.
  // Signals: one controller per (junction, set of phases a movement is green in).
  struct Head {
    std::uint32_t road = 0;
    bool forward = true;
    std::vector<int> lanes;
    std::string controller;
    int type = 1000001;
  };
  std::vector<std::vector<Head>> m_heads;                                       // Per section road.
  std::vector<std::pair<std::string, std::vector<std::string>>> m_controllers;  // id, signals
  std::vector<std::vector<std::vector<std::string>>> m_phase_controllers;       // Per plan, phase.
  std::size_t m_signal_count = 0;
  /// 1 / cos(superelevation) along the road being written: the standard measures t across the
  /// rolled surface, our lanes' widths are in plan.
  std::vector<Poly3> m_stretch;
};

double Writer::stop_s(std::uint32_t k, bool forward) const {
  const double len = detail::geometry_length(m_geo[k]);
  const double back = std::min(0.5 * len, m_config.crosswalk_width_m + m_config.stop_line_gap_m);
  return forward ? len - back : back;
}

void Writer::index_lanes() {
  const auto& lanes = m_roads.lanes.lanes;
  const std::size_t ns = m_roads.sections.size();
  m_sections.assign(ns, {});
  m_crosswalks.assign(ns, {});
  m_connectors.assign(m_roads.intersections.size(), {});
  m_ref.assign(lanes.size(), {});
  for (const Lane& l : lanes) {
    if ((l.tags & roads::kVehicle) != 0U && l.intersection >= 0) {
      m_connectors[static_cast<std::size_t>(l.intersection)].push_back(l.id);
    } else if ((l.tags & roads::kVehicle) != 0U && l.section >= 0) {
      RoadLanes& r = m_sections[static_cast<std::size_t>(l.section)];
      auto& side = l.forward ? r.right : r.left;
      if (side.size() <= static_cast<std::size_t>(l.lane_index))
        side.resize(static_cast<std::size_t>(l.lane_index) + 1, kNoLane);
      side[static_cast<std::size_t>(l.lane_index)] = l.id;
    } else if ((l.tags & roads::kSidewalk) != 0U && l.section >= 0) {
      // The lane graph builds the right sidewalk (side 0) first, then the left one.
      RoadLanes& r = m_sections[static_cast<std::size_t>(l.section)];
      (r.walk_right == kNoLane ? r.walk_right : r.walk_left) = l.id;
    }
  }
  for (std::uint32_t k = 0; k < ns; ++k) {
    RoadLanes& r = m_sections[k];
    // lane_index 0 is the curb lane: OpenDRIVE counts from the centre outwards.
    std::reverse(r.right.begin(), r.right.end());
    std::reverse(r.left.begin(), r.left.end());
    for (std::size_t i = 0; i < r.right.size(); ++i)
      if (r.right[i] != kNoLane) m_ref[r.right[i]] = {k, -static_cast<int>(i + 1)};
    for (std::size_t i = 0; i < r.left.size(); ++i)
      if (r.left[i] != kNoLane) m_ref[r.left[i]] = {k, static_cast<int>(i + 1)};
  }
  // Reference lines. Corners round with the radius of the outermost lane border (no border
  // loops inside); at a bend without a junction the two roads share one rounding.
  std::vector<Polyline> corners(ns);
  std::vector<double> radius(ns);
  for (std::uint32_t k = 0; k < ns; ++k) {
    const layout::RoadEdge& e = m_city.network.edges[k];
    corners[k] = detail::polyline_corners(roads::lane_reference(m_city, m_roads, k));
    radius[k] = 0.5 * e.width_m + e.sidewalk_width_m + 0.5;
  }
  const auto join = [&](std::uint32_t k, bool at_start) {
    detail::EndJoin out;
    const layout::RoadEdge& e = m_city.network.edges[k];
    const roads::Intersection& x = m_roads.intersections[at_start ? e.from : e.to];
    if (!m_connectors[at_start ? e.from : e.to].empty() || x.legs.size() != 2) return out;
    const roads::Leg& other =
        (x.legs[0].edge == k && x.legs[0].at_edge_start == at_start) ? x.legs[1] : x.legs[0];
    const Polyline& a = corners[k];
    const Polyline& b = corners[other.edge];
    if (other.edge == k || a.size() < 2 || b.size() < 2) return out;
    const Vec2 node = at_start ? a.front() : a.back();
    const Vec2 there = other.at_edge_start ? b.front() : b.back();
    if (distance(node, there) > 1e-3) return out;
    out.present = true;
    out.node = node;
    out.other = other.at_edge_start ? b[1] : b[b.size() - 2];
    out.radius_m = std::max(radius[k], radius[other.edge]);
    return out;
  };
  for (std::uint32_t k = 0; k < ns; ++k)
    m_geo.push_back(
        detail::polyline_geometry(corners[k], radius[k], join(k, true), join(k, false)));
  std::size_t next = ns;
  for (const auto& cs : m_connectors)
    for (const LaneId c : cs)
      m_ref[c] = {static_cast<std::int64_t>(next++), -1};
  m_plan_of.assign(m_roads.intersections.size(), SIZE_MAX);
  for (std::size_t p = 0; p < m_roads.lanes.signals.size(); ++p)
    m_plan_of[m_roads.lanes.signals[p].intersection] = p;
  // Crosswalks: on the leg whose end lies nearest the crosswalk's middle.
  for (const Lane& l : lanes) {
    if ((l.tags & roads::kCrosswalk) == 0U || l.intersection < 0 || l.points.size() < 2) continue;
    const Vec2 mid = (xy(l.points.front()) + xy(l.points.back())) * 0.5;
    double best = 1e300;
    std::uint32_t road = 0;
    for (const roads::Leg& leg :
         m_roads.intersections[static_cast<std::size_t>(l.intersection)].legs) {
      const auto& geo = m_geo[leg.edge];
      const Vec2 end = detail::geometry_point(geo, leg.at_edge_start ? 0.0 : 1e300);
      if (distance(end, mid) < best) {
        best = distance(end, mid);
        road = leg.edge;
      }
    }
    m_crosswalks[road].push_back(l.id);
  }
}

/// Writes stateless pieces: a link element's attributes.
void link_attrs(XmlText& x, const char* type, std::size_t id, const char* contact) {
  x.attr("elementType", type);
  x.attr("elementId", num_id(id));
  if (contact != nullptr) x.attr("contactPoint", contact);
}

void Writer::road_link(std::uint32_t k, bool at_start) {
  const layout::RoadEdge& e = m_city.network.edges[k];
  const std::uint32_t node = at_start ? e.from : e.to;
  const char* tag = at_start ? "      <predecessor" : "      <successor";
  if (!m_connectors[node].empty() || m_fw.at_node.count(node) != 0) {
    m_x.raw(tag);
    link_attrs(m_x, "junction", node, nullptr);
    m_x.raw("/>\n");
    return;
  }
  // Sections joined directly (a bend without a junction surface): the other leg's road.
  const roads::Intersection& j = m_roads.intersections[node];
  if (j.legs.size() != 2) return;
  const roads::Leg& other =
      (j.legs[0].edge == k && j.legs[0].at_edge_start == at_start) ? j.legs[1] : j.legs[0];
  m_x.raw(tag);
  link_attrs(m_x, "road", other.edge, other.at_edge_start ? "start" : "end");
  m_x.raw("/>\n");
}

void Writer::plan_view(const std::vector<OdrGeometry>& geo, const std::string& where) {
  m_x.raw("    <planView>\n");
  for (const OdrGeometry& g : geo) {
    m_x.raw("      <geometry");
    m_x.attr("s", g.s, where);
    m_x.attr("x", g.x, where);
    m_x.attr("y", g.y, where);
    m_x.attr("hdg", g.hdg, where);
    m_x.attr("length", g.length, where);
    if (g.kind == OdrGeometry::Kind::line) {
      m_x.raw("><line/></geometry>\n");
    } else if (g.kind == OdrGeometry::Kind::arc) {
      m_x.raw("><arc");
      m_x.attr("curvature", g.curvature, where);
      m_x.raw("/></geometry>\n");
    } else {
      m_x.raw("><paramPoly3");
      m_x.attr("aU", g.au, where);
      m_x.attr("bU", g.bu, where);
      m_x.attr("cU", g.cu, where);
      m_x.attr("dU", g.du, where);
      m_x.attr("aV", g.av, where);
      m_x.attr("bV", g.bv, where);
      m_x.attr("cV", g.cv, where);
      m_x.attr("dV", g.dv, where);
      m_x.attr("pRange", "normalized");
      m_x.raw("/></geometry>\n");
    }
  }
  m_stats.geometries += geo.size();
  m_x.raw("    </planView>\n");
}

void Writer::profile(const char* element, const std::vector<Poly3>& pieces,
                     const std::string& where, const char* extra) {
  for (const Poly3& p : pieces) {
    m_x.raw("      <");
    m_x.raw(element);
    if (extra != nullptr) m_x.raw(extra);
    m_x.attr("s", p.s, where);
    m_x.attr("a", p.a, where);
    m_x.attr("b", p.b, where);
    m_x.attr("c", p.c, where);
    m_x.attr("d", p.d, where);
    m_x.raw("/>\n");
  }
}

void Writer::lane_xml(const Lane& lane, int id, const char* type, const char* mark, LaneRef pred,
                      LaneRef succ, double height_inner, double height_outer) {
  const std::string where = "lane " + std::to_string(lane.id);
  m_x.raw("          <lane");
  m_x.attr_int("id", id);
  m_x.attr("type", type);
  m_x.attr("level", "false");
  m_x.raw(">\n");
  if (pred.road >= 0 || succ.road >= 0) {
    m_x.raw("            <link>");
    if (pred.road >= 0) {
      m_x.raw("<predecessor");
      m_x.attr_int("id", pred.id);
      m_x.raw("/>");
    }
    if (succ.road >= 0) {
      m_x.raw("<successor");
      m_x.attr_int("id", succ.id);
      m_x.raw("/>");
    }
    m_x.raw("</link>\n");
  }
  for (const Poly3& p : m_stretch) {
    m_x.raw("            <width");
    m_x.attr("sOffset", p.s, where);
    m_x.attr("a", lane.width_m * p.a, where);
    m_x.attr("b", lane.width_m * p.b, where);
    m_x.attr("c", lane.width_m * p.c, where);
    m_x.attr("d", lane.width_m * p.d, where);
    m_x.raw("/>\n");
  }
  m_x.raw("            <roadMark sOffset=\"0\"");
  m_x.attr("type", mark);
  m_x.raw(" weight=\"standard\" color=\"standard\" width=\"0.15\"/>\n");
  if ((lane.tags & roads::kVehicle) != 0U) {
    m_x.raw("            <speed sOffset=\"0\"");
    m_x.attr("max", lane.speed_limit_mps, where);
    m_x.raw(" unit=\"m/s\"/>\n");
  } else {
    m_x.raw("            <height sOffset=\"0\"");
    m_x.attr("inner", height_inner, where);
    m_x.attr("outer", height_outer, where);
    m_x.raw("/>\n");
  }
  m_x.raw("          </lane>\n");
}

Profiles Writer::section_profiles(std::uint32_t k) const {
  const layout::RoadEdge& edge = m_city.network.edges[k];
  const auto& geo = m_geo[k];
  const double len = detail::geometry_length(geo);
  const double half = 0.5 * edge.width_m;
  const double raise = roads::road_surface_raise(m_config, edge.road_class);
  Profiles pr;
  // The drawn surface: ground + the class raise, the crown on the reference line.
  const auto surface = [&](double s, double lateral) {
    Vec2 h;
    const Vec2 p = detail::geometry_point(geo, s, &h);
    return m_ground.sample(p + Vec2{-h.y, h.x} * lateral) + raise;
  };
  pr.elevation = detail::fit_profile([&](double s) { return surface(s, 0.0) + m_config.crown_m; },
                                     len, kElevationToleranceM, kMinPieceM);
  // Superelevation: the terrain's roll between the curbs; the crown on top of it.
  pr.roll = detail::fit_profile(
      [&](double s) { return std::atan((surface(s, half) - surface(s, -half)) / (2.0 * half)); },
      len, kElevationToleranceM / std::max(half, 0.5), kMinPieceM);
  pr.stretch =
      detail::fit_profile([&](double s) { return 1.0 / std::cos(detail::profile_at(pr.roll, s)); },
                          len, 1e-4, kMinPieceM);
  const double crown_slope = m_config.crown_m / std::max(half, 0.5);
  const double cf = m_options.rev_minor == 4 ? std::atan(crown_slope) : 0.0;
  // What the elevation, roll and crossfall miss of the drawn surface (the crown in 1.8, the
  // terrain's curvature across the road, the ground beside it under the sidewalks): shapes.
  const double reach = half + edge.sidewalk_width_m + 1.0;
  pr.shapes = detail::fit_shape(
      [&](double s, double t) {
        const double crown = m_config.crown_m * std::max(0.0, 1.0 - std::abs(t) / half);
        const double roll = detail::profile_at(pr.roll, s);
        const double base =
            detail::profile_at(pr.elevation, s) + t * std::sin(roll) - std::abs(t) * std::tan(cf);
        return surface(s, t * std::cos(roll)) + crown - base;
      },
      len, {-reach, -half, 0.0, half, reach}, kElevationToleranceM, 2.0);
  return pr;
}

void Writer::section_road(std::uint32_t k, const Profiles& pr) {
  const layout::RoadEdge& edge = m_city.network.edges[k];
  const RoadLanes& rl = m_sections[k];
  const auto& geo = m_geo[k];
  const std::string where = "road " + std::to_string(k);
  const double len = detail::geometry_length(geo);
  const double half = 0.5 * edge.width_m;
  const double raise = roads::road_surface_raise(m_config, edge.road_class);
  m_x.raw("  <road");
  m_x.attr("name", "");
  m_x.attr("length", len, where);
  m_x.attr("id", num_id(k));
  m_x.attr("junction", "-1");
  m_x.raw(">\n    <link>\n");
  road_link(k, true);
  road_link(k, false);
  m_x.raw("    </link>\n    <type s=\"0\" type=\"town\"/>\n");
  plan_view(geo, where);
  m_stretch = pr.stretch;
  m_stats.elevations += pr.elevation.size();
  m_x.raw("    <elevationProfile>\n");
  profile("elevation", pr.elevation, where);
  m_x.raw("    </elevationProfile>\n    <lateralProfile>\n");
  profile("superelevation", pr.roll, where);
  const double crown_slope = m_config.crown_m / std::max(half, 0.5);
  if (m_options.rev_minor == 4) {
    // The crown as crossfall (1.4 readers that skip <shape> still get it).
    m_x.raw("      <crossfall side=\"both\" s=\"0\"");
    m_x.attr("a", std::atan(crown_slope), where);
    m_x.raw(" b=\"0\" c=\"0\" d=\"0\"/>\n");
  }
  const auto& shapes = pr.shapes;
  for (const detail::ShapeRecord& r : shapes) {
    m_x.raw("      <shape");
    m_x.attr("s", r.s, where);
    m_x.attr("t", r.t, where);
    m_x.attr("a", r.a, where);
    m_x.attr("b", r.b, where);
    m_x.attr("c", r.c, where);
    m_x.attr("d", r.d, where);
    m_x.raw("/>\n");
  }
  m_stats.shapes += shapes.size();
  m_x.raw("    </lateralProfile>\n    <lanes>\n");
  // The line between the directions (asymmetric imported roads; the left curb of one-way ones).
  const double divider =
      rl.left.empty()
          ? half
          : half - static_cast<double>(rl.left.size()) *
                       (edge.width_m / static_cast<double>(rl.left.size() + rl.right.size()));
  const double offset = rl.left.size() == rl.right.size() ? 0.0 : divider;
  for (const Poly3& p : m_stretch) {
    m_x.raw("      <laneOffset");
    m_x.attr("s", p.s, where);
    m_x.attr("a", offset * p.a, where);
    m_x.attr("b", offset * p.b, where);
    m_x.attr("c", offset * p.c, where);
    m_x.attr("d", offset * p.d, where);
    m_x.raw("/>\n");
  }
  m_x.raw("      <laneSection s=\"0\">\n");
  // Sidewalk tops: the block surface; the road surface at the curb is ground + raise.
  const double inner = m_roads.block_raise_m - raise;
  const double outer = inner;  // The shapes carry the ground under the sidewalks.
  const auto& lanes = m_roads.lanes.lanes;
  // Lane links inside a road chain (bends without a junction): OpenDRIVE predecessors sit at
  // s = 0, which is where forward lanes come from and backward lanes go to.
  const auto linked = [&](const Lane& l, bool at_start) {
    const auto& others = (l.forward == at_start) ? l.predecessors : l.successors;
    for (const LaneId o : others)
      if (lanes[o].section >= 0 && lanes[o].intersection < 0) return m_ref[o];
    return LaneRef{};
  };
  const char* centre_mark = "none";
  if (!rl.left.empty() && !rl.right.empty()) {
    centre_mark = edge.road_class == layout::RoadClass::artery ? "solid solid"
                  : edge.road_class == layout::RoadClass::main ? "solid"
                                                               : "broken";
  }
  for (int side = 0; side < 2; ++side) {
    const bool left = side == 0;
    const auto& ids = left ? rl.left : rl.right;
    const LaneId walk = left ? rl.walk_left : rl.walk_right;
    const int sign = left ? 1 : -1;
    std::vector<std::pair<int, LaneId>> order;  // OpenDRIVE order: left 3,2,1; right -1,-2,-3.
    for (std::size_t i = 0; i < ids.size(); ++i)
      if (ids[i] != kNoLane) order.emplace_back(sign * static_cast<int>(i + 1), ids[i]);
    if (walk != kNoLane && edge.sidewalk_width_m > 0.0)
      order.emplace_back(sign * static_cast<int>(ids.size() + 1), walk);
    if (left) std::reverse(order.begin(), order.end());
    // A side without lanes (the left of a one-way street without sidewalks) has no element.
    if (!order.empty()) m_x.raw(left ? "        <left>\n" : "        <right>\n");
    for (const auto& [id, lid] : order) {
      const Lane& l = lanes[lid];
      if ((l.tags & roads::kSidewalk) != 0U) {
        lane_xml(l, id, "sidewalk", "none", {}, {}, inner, outer);
      } else {
        const bool outermost = static_cast<std::size_t>(std::abs(id)) == ids.size();
        lane_xml(l, id, "driving", outermost ? "solid" : "broken", linked(l, true),
                 linked(l, false), 0.0, 0.0);
      }
    }
    if (!order.empty()) m_x.raw(left ? "        </left>\n" : "        </right>\n");
    if (left) {
      m_x.raw("        <center>\n          <lane id=\"0\" type=\"none\" level=\"false\">\n");
      m_x.raw("            <roadMark sOffset=\"0\"");
      m_x.attr("type", centre_mark);
      m_x.raw(" weight=\"standard\" color=\"standard\" width=\"0.15\"/>\n");
      m_x.raw("          </lane>\n        </center>\n");
    }
  }
  m_x.raw("      </laneSection>\n    </lanes>\n");
  objects_of(k);
  signals_of(k);
  m_x.raw("  </road>\n");
  ++m_stats.roads;
}

void Writer::objects_of(std::uint32_t k) {
  const layout::RoadEdge& edge = m_city.network.edges[k];
  if (m_crosswalks[k].empty() && !edge.bridge && !edge.tunnel) {
    m_x.raw("    <objects/>\n");
    return;
  }
  const auto& geo = m_geo[k];
  const std::string where = "road " + std::to_string(k) + " crosswalk";
  m_x.raw("    <objects>\n");
  for (const LaneId c : m_crosswalks[k]) {
    const Lane& l = m_roads.lanes.lanes[c];
    const Vec2 a = xy(l.points.front());
    const Vec2 b = xy(l.points.back());
    const Vec2 mid = (a + b) * 0.5;
    const Vec2 st = detail::geometry_project(geo, mid);
    const double s_mid = st.x;
    const double t_mid = st.y;
    const double across = distance(a, b);
    const double along = l.width_m;
    m_x.raw("      <object");
    m_x.attr("type", "crosswalk");
    m_x.attr("name", "crosswalk");
    m_x.attr("id", num_id(c));
    m_x.attr("s", s_mid, where);
    m_x.attr("t", t_mid, where);
    m_x.raw(" zOffset=\"0\" validLength=\"0\" orientation=\"none\"");
    m_x.attr("length", along, where);
    m_x.attr("width", across, where);
    m_x.raw(" height=\"0\" hdg=\"0\" pitch=\"0\" roll=\"0\">\n        <outline>\n");
    const double us[4] = {-0.5 * along, 0.5 * along, 0.5 * along, -0.5 * along};
    const double vs[4] = {-0.5 * across, -0.5 * across, 0.5 * across, 0.5 * across};
    for (int i = 0; i < 4; ++i) {
      m_x.raw("          <cornerLocal");
      m_x.attr("u", us[i], where);
      m_x.attr("v", vs[i], where);
      m_x.raw(" z=\"0\" height=\"0\"/>\n");
    }
    m_x.raw("        </outline>\n      </object>\n");
    ++m_stats.crosswalks;
  }
  // Imported bridges and tunnels span the whole road (the XSD wants tunnels before bridges).
  // Their id is the road's: one per road at most.
  if (edge.tunnel || edge.bridge) {
    m_x.raw(edge.tunnel ? "      <tunnel s=\"0\"" : "      <bridge s=\"0\"");
    m_x.attr("length", detail::geometry_length(geo), where);
    std::string name = edge.tunnel ? "tunnel" : "bridge";
    if (edge.osm_way != 0) name += " of OSM way " + std::to_string(edge.osm_way);
    m_x.attr("name", name);
    m_x.attr("id", num_id(k));
    m_x.attr("type", edge.tunnel ? "standard" : "concrete");
    m_x.raw("/>\n");
    ++(edge.tunnel ? m_stats.tunnels : m_stats.bridges);
  }
  m_x.raw("    </objects>\n");
}

void Writer::signals_of(std::uint32_t k) {
  if (m_heads[k].empty()) {
    m_x.raw("    <signals/>\n");
    return;
  }
  const layout::RoadEdge& edge = m_city.network.edges[k];
  const std::string where = "road " + std::to_string(k) + " signal";
  m_x.raw("    <signals>\n");
  for (const Head& h : m_heads[k]) {
    const std::string id = num_id(m_signal_count++);
    m_x.raw("      <signal");
    m_x.attr("s", stop_s(k, h.forward), where);
    m_x.attr("t", (h.forward ? -1.0 : 1.0) * (0.5 * edge.width_m + 0.3), where);
    m_x.attr("id", id);
    m_x.attr("name", h.type == 1000001 ? "traffic light" : h.type == 206 ? "stop" : "yield");
    m_x.attr("dynamic", h.type == 1000001 ? "yes" : "no");
    m_x.attr("orientation", h.forward ? "+" : "-");
    m_x.attr("zOffset", h.type == 1000001 ? "2.5" : "1.8");
    m_x.attr("country", "OpenDRIVE");
    m_x.attr_int("type", h.type);
    m_x.attr("subtype", "-1");
    m_x.raw(" value=\"-1\" height=\"0.9\" width=\"0.6\">\n");
    // One validity per run of consecutive lane ids.
    std::vector<int> ids = h.lanes;
    std::sort(ids.begin(), ids.end());
    for (std::size_t i = 0; i < ids.size();) {
      std::size_t j = i;
      while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1)
        ++j;
      m_x.raw("        <validity");
      m_x.attr_int("fromLane", ids[i]);
      m_x.attr_int("toLane", ids[j]);
      m_x.raw("/>\n");
      i = j + 1;
    }
    m_x.raw("      </signal>\n");
    if (h.type == 1000001) {
      for (auto& [cid, signals] : m_controllers)
        if (cid == h.controller) signals.push_back(id);
      ++m_stats.traffic_lights;
    } else {
      ++m_stats.signs;
    }
  }
  m_x.raw("    </signals>\n");
}

Profiles Writer::connector_profiles(LaneId c, std::uint32_t junction) const {
  const Lane& lane = m_roads.lanes.lanes[c];
  Profiles pr;
  std::vector<Vec2> samples;
  for (const Vec3& p : lane.points)
    samples.push_back(xy(p));
  // The connector's own curve; from its samples when the lane graph came without it.
  double err = 0.0;
  pr.geo = lane.handles[0] == Vec2{} && lane.handles[1] == Vec2{}
               ? detail::bezier_geometry(samples, &err)
               : detail::bezier_curve(samples.front(), lane.handles[0], lane.handles[1],
                                      samples.back(), samples, &err);
  if (pr.geo.empty() || err > 0.01) {
    pr.geo = detail::polyline_geometry(samples);
  } else {
    pr.fit_error_m = err;
  }
  const auto& geo = pr.geo;
  const double len = detail::geometry_length(geo);
  const auto z = [&](Vec2 q) {
    return roads::junction_surface_z(m_city, m_roads, m_ground, m_config, junction, q);
  };
  pr.elevation = detail::fit_profile([&](double s) { return z(detail::geometry_point(geo, s)); },
                                     len, kElevationToleranceM, kMinPieceM);
  // The junction surface's roll across the lane.
  const double hw = 0.5 * std::max(lane.width_m, 1.0);
  pr.roll = detail::fit_profile(
      [&](double s) {
        Vec2 h;
        const Vec2 p = detail::geometry_point(geo, s, &h);
        const Vec2 left{-h.y, h.x};
        return std::atan((z(p + left * hw) - z(p - left * hw)) / (2.0 * hw));
      },
      len, kElevationToleranceM / hw, kMinPieceM);
  pr.stretch =
      detail::fit_profile([&](double s) { return 1.0 / std::cos(detail::profile_at(pr.roll, s)); },
                          len, 1e-4, kMinPieceM);
  return pr;
}

void Writer::connecting_road(LaneId c, std::size_t road_id, std::uint32_t junction,
                             const Profiles& pr) {
  const auto& lanes = m_roads.lanes.lanes;
  const Lane& lane = lanes[c];
  const std::string where = "connecting road " + std::to_string(road_id);
  const auto& geo = pr.geo;
  if (pr.fit_error_m >= 0.0)
    m_stats.max_fit_error_m = std::max(m_stats.max_fit_error_m, pr.fit_error_m);
  const double len = detail::geometry_length(geo);
  const LaneRef pred = lane.predecessors.empty() ? LaneRef{} : m_ref[lane.predecessors[0]];
  const LaneRef succ = lane.successors.empty() ? LaneRef{} : m_ref[lane.successors[0]];
  m_x.raw("  <road");
  m_x.attr("name", "");
  m_x.attr("length", len, where);
  m_x.attr("id", num_id(road_id));
  m_x.attr("junction", num_id(junction));
  m_x.raw(">\n    <link>\n");
  // A forward lane (right side) ends at its road's end, a backward one at its start.
  if (pred.road >= 0) {
    m_x.raw("      <predecessor");
    link_attrs(m_x, "road", static_cast<std::size_t>(pred.road), pred.id < 0 ? "end" : "start");
    m_x.raw("/>\n");
  }
  if (succ.road >= 0) {
    m_x.raw("      <successor");
    link_attrs(m_x, "road", static_cast<std::size_t>(succ.road), succ.id < 0 ? "start" : "end");
    m_x.raw("/>\n");
  }
  m_x.raw("    </link>\n    <type s=\"0\" type=\"town\"/>\n");
  plan_view(geo, where);
  m_stretch = pr.stretch;
  m_stats.elevations += pr.elevation.size();
  m_x.raw("    <elevationProfile>\n");
  profile("elevation", pr.elevation, where);
  m_x.raw("    </elevationProfile>\n    <lateralProfile>\n");
  profile("superelevation", pr.roll, where);
  m_x.raw("    </lateralProfile>\n    <lanes>\n");
  for (const Poly3& p : m_stretch) {
    m_x.raw("      <laneOffset");
    m_x.attr("s", p.s, where);
    m_x.attr("a", 0.5 * lane.width_m * p.a, where);
    m_x.attr("b", 0.5 * lane.width_m * p.b, where);
    m_x.attr("c", 0.5 * lane.width_m * p.c, where);
    m_x.attr("d", 0.5 * lane.width_m * p.d, where);
    m_x.raw("/>\n");
  }
  m_x.raw("      <laneSection s=\"0\">\n");
  m_x.raw("        <center>\n          <lane id=\"0\" type=\"none\" level=\"false\"/>\n");
  m_x.raw("        </center>\n        <right>\n");
  lane_xml(lane, -1, "driving", "none", pred, succ, 0.0, 0.0);
  m_x.raw("        </right>\n      </laneSection>\n    </lanes>\n  </road>\n");
  ++m_stats.roads;
  ++m_stats.connecting_roads;
}

void Writer::junction_xml(std::uint32_t j) {
  const auto& lanes = m_roads.lanes.lanes;
  m_x.raw("  <junction");
  m_x.attr("name", "");
  m_x.attr("id", num_id(j));
  m_x.raw(">\n");
  std::size_t n = 0;
  for (const LaneId c : m_connectors[j]) {
    const Lane& lane = lanes[c];
    if (lane.predecessors.empty()) continue;
    const LaneRef in = m_ref[lane.predecessors[0]];
    m_x.raw("    <connection");
    m_x.attr("id", num_id(n++));
    m_x.attr("incomingRoad", num_id(static_cast<std::size_t>(in.road)));
    m_x.attr("connectingRoad", num_id(static_cast<std::size_t>(m_ref[c].road)));
    m_x.attr("contactPoint", "start");
    m_x.raw(">\n      <laneLink");
    m_x.attr_int("from", in.id);
    m_x.raw(" to=\"-1\"/>\n    </connection>\n");
  }
  // Ramps, and the freeway between an interchange's diverge and merge.
  const auto ramps = m_fw.at_node.find(j);
  if (ramps != m_fw.at_node.end()) {
    for (const detail::OdrConnection& c : ramps->second) {
      m_x.raw("    <connection");
      m_x.attr("id", num_id(n++));
      m_x.attr("incomingRoad", num_id(c.incoming));
      m_x.attr("connectingRoad", num_id(c.connecting));
      m_x.raw(" contactPoint=\"start\">\n");
      for (const auto& [from, to] : c.lane_links) {
        m_x.raw("      <laneLink");
        m_x.attr_int("from", from);
        m_x.attr_int("to", to);
        m_x.raw("/>\n");
      }
      m_x.raw("    </connection>\n");
    }
  }
  if (m_plan_of[j] != SIZE_MAX) {
    std::vector<std::string> seen;
    for (const auto& phase : m_phase_controllers[m_plan_of[j]])
      for (const std::string& cid : phase)
        if (std::find(seen.begin(), seen.end(), cid) == seen.end()) seen.push_back(cid);
    std::sort(seen.begin(), seen.end(), [](const std::string& a, const std::string& b) {
      return std::stoll(a) < std::stoll(b);
    });
    for (std::size_t i = 0; i < seen.size(); ++i) {
      m_x.raw("    <controller");
      m_x.attr("id", seen[i]);
      m_x.attr("type", "0");
      m_x.attr_int("sequence", static_cast<long long>(i));
      m_x.raw("/>\n");
    }
  }
  m_x.raw("  </junction>\n");
  ++m_stats.junctions;
}

void Writer::controllers_xml() {
  for (const auto& [cid, signals] : m_controllers) {
    m_x.raw("  <controller");
    m_x.attr("id", cid);
    m_x.attr("name", "phase group " + cid);
    m_x.raw(">\n");
    for (const std::string& s : signals) {
      m_x.raw("    <control");
      m_x.attr("signalId", s);
      m_x.attr("type", "0");
      m_x.raw("/>\n");
    }
    m_x.raw("  </controller>\n");
  }
  m_stats.controllers = m_controllers.size();
}

std::string Writer::side_json() const {
  std::string out = "{\"format\": \"cityforge-opendrive\", \"version\": 1,\n \"lanes\": [";
  bool first = true;
  for (const Lane& l : m_roads.lanes.lanes) {
    if (m_ref[l.id].road < 0) continue;
    out += first ? "\n  " : ",\n  ";
    first = false;
    out += "{\"lane\": " + std::to_string(l.id) + ", \"road\": \"" +
           std::to_string(m_ref[l.id].road) + "\", \"lane_id\": " + std::to_string(m_ref[l.id].id) +
           "}";
  }
  for (const auto& [id, ref] : m_fw.lanes) {
    out += first ? "\n  " : ",\n  ";
    first = false;
    out += "{\"lane\": " + std::to_string(id) + ", \"road\": \"" + std::to_string(ref.road) +
           "\", \"lane_id\": " + std::to_string(ref.id) + "}";
  }
  out += "],\n \"plans\": [";
  for (std::size_t p = 0; p < m_roads.lanes.signals.size(); ++p) {
    const roads::SignalPlan& plan = m_roads.lanes.signals[p];
    out += p == 0 ? "\n  " : ",\n  ";
    out += "{\"junction\": \"" + std::to_string(plan.intersection) +
           "\", \"offset_s\": " + format_g9(plan.offset_s) +
           ", \"cycle_s\": " + format_g9(plan.cycle_s()) + ", \"phases\": [";
    for (std::size_t i = 0; i < plan.phases.size(); ++i) {
      const roads::Phase& ph = plan.phases[i];
      out += i == 0 ? "" : ", ";
      out += "{\"green_s\": " + format_g9(ph.green_s) +
             ", \"yellow_s\": " + format_g9(ph.yellow_s) +
             ", \"all_red_s\": " + format_g9(ph.all_red_s) + ", \"green_controllers\": [";
      const auto& cs = m_phase_controllers[p][i];
      for (std::size_t c = 0; c < cs.size(); ++c)
        out += (c == 0 ? "\"" : ", \"") + cs[c] + "\"";
      out += "]}";
    }
    out += "]}";
  }
  out += "]}\n";
  return out;
}

Result<OpenDriveFiles> Writer::run() {
  if (m_options.rev_minor != 4 && m_options.rev_minor != 8) {
    return Error::invalid_input(
        "--opendrive", "expected 1.4 or 1.8, got 1." + std::to_string(m_options.rev_minor));
  }
  if (m_roads.sections.size() != m_city.network.edges.size() ||
      m_roads.intersections.size() != m_city.network.nodes.size()) {
    return Error::invalid_input("roads", "expected one section per edge and one junction per node");
  }
  index_lanes();
  const auto& lanes = m_roads.lanes.lanes;
  if (m_freeway != nullptr) {
    std::size_t first_road = m_roads.sections.size();
    for (const auto& cs : m_connectors)
      first_road += cs.size();
    m_fw = detail::freeway_map(*m_freeway, m_city, m_roads, m_ref, first_road,
                               m_roads.intersections.size());
    if (m_fw.error) return *m_fw.error;
    m_stats.roads += m_fw.roads;
    m_stats.connecting_roads += m_fw.connecting_roads;
    m_stats.junctions += m_fw.junctions;
    m_stats.geometries += m_fw.geometries;
    m_stats.elevations += m_fw.elevations;
  }
  // Heads and signs per approach: traffic lights grouped by the phases their movements are
  // green in (one controller per group and junction), stop and yield signs where movements
  // give way at stop and yield junctions.
  m_heads.assign(m_roads.sections.size(), {});
  m_phase_controllers.assign(m_roads.lanes.signals.size(), {});
  for (std::uint32_t j = 0; j < m_roads.intersections.size(); ++j) {
    const roads::Intersection& x = m_roads.intersections[j];
    const bool lights = m_plan_of[j] != SIZE_MAX;
    const roads::SignalPlan* plan = lights ? &m_roads.lanes.signals[m_plan_of[j]] : nullptr;
    if (plan != nullptr) m_phase_controllers[m_plan_of[j]].assign(plan->phases.size(), {});
    std::map<std::string, std::string> controller_of;  // phase signature -> controller id
    std::map<std::tuple<std::uint32_t, bool, std::string>, std::size_t> head_of;
    for (const LaneId c : m_connectors[j]) {
      const Lane& con = lanes[c];
      if (con.predecessors.empty()) continue;
      const LaneRef in = m_ref[con.predecessors[0]];
      if (in.road < 0) continue;
      std::string key;
      int type = 1000001;
      if (lights) {
        for (std::size_t p = 0; p < plan->phases.size(); ++p) {
          const auto& g = plan->phases[p].green;
          key += std::binary_search(g.begin(), g.end(), c) ? '1' : '0';
        }
      } else if ((con.tags & roads::kYield) != 0U &&
                 (x.control == roads::Control::stop || x.control == roads::Control::yield)) {
        type = x.control == roads::Control::stop ? 206 : 205;
        key = "sign";
      } else {
        continue;
      }
      const auto road = static_cast<std::uint32_t>(in.road);
      const bool forward = in.id < 0;
      auto [it, fresh] = head_of.try_emplace({road, forward, key}, m_heads[road].size());
      if (fresh) {
        Head h;
        h.road = road;
        h.forward = forward;
        h.type = type;
        if (lights) {
          auto [cit, new_controller] = controller_of.try_emplace(key, num_id(m_controllers.size()));
          if (new_controller) {
            m_controllers.emplace_back(cit->second, std::vector<std::string>{});
            for (std::size_t p = 0; p < key.size(); ++p)
              if (key[p] == '1') m_phase_controllers[m_plan_of[j]][p].push_back(cit->second);
          }
          h.controller = cit->second;
        }
        m_heads[road].push_back(h);
      }
      auto& ids = m_heads[road][it->second].lanes;
      if (std::find(ids.begin(), ids.end(), in.id) == ids.end()) ids.push_back(in.id);
    }
    if (lights) ++m_stats.signalised_junctions;
  }
  // The document.
  m_x.raw(detail::kXmlDeclaration);
  m_x.raw("<OpenDRIVE>\n  <header revMajor=\"1\"");
  m_x.attr_int("revMinor", m_options.rev_minor);
  m_x.attr("name", m_options.name);
  m_x.raw(" version=\"1\"");
  double n = -1e300, s = 1e300, e = -1e300, w = 1e300;
  for (const auto& geo : m_geo)
    for (const OdrGeometry& g : geo)
      for (const Vec2 p : {Vec2{g.x, g.y}, detail::geometry_point({g}, g.s + g.length)}) {
        n = std::max(n, p.y);
        s = std::min(s, p.y);
        e = std::max(e, p.x);
        w = std::min(w, p.x);
      }
  n = std::max(n, m_fw.north);
  s = std::min(s, m_fw.south);
  e = std::max(e, m_fw.east);
  w = std::min(w, m_fw.west);
  if (n < s) n = s = e = w = 0.0;
  m_x.attr("north", n, "header");
  m_x.attr("south", s, "header");
  m_x.attr("east", e, "header");
  m_x.attr("west", w, "header");
  m_x.attr("vendor", "cityforge");
  if (m_options.geo_proj.empty()) {
    m_x.raw("/>\n");
  } else {
    m_x.raw(">\n    <geoReference><![CDATA[");
    m_x.raw(m_options.geo_proj);
    m_x.raw("]]></geoReference>\n  </header>\n");
  }
  // The numbers of every road, in parallel (each a pure function of the inputs), then the text
  // in road order.
  const std::size_t ns = m_roads.sections.size();
  std::vector<std::pair<LaneId, std::uint32_t>> connectors;  // (lane, junction) in road order
  for (std::uint32_t j = 0; j < m_connectors.size(); ++j)
    for (const LaneId c : m_connectors[j])
      connectors.emplace_back(c, j);
  std::vector<Profiles> profiles(ns + connectors.size());
  tbb::parallel_for(std::size_t{0}, profiles.size(), [&](std::size_t i) {
    profiles[i] = i < ns ? section_profiles(static_cast<std::uint32_t>(i))
                         : connector_profiles(connectors[i - ns].first, connectors[i - ns].second);
  });
  for (std::uint32_t k = 0; k < ns; ++k)
    section_road(k, profiles[k]);
  for (std::size_t i = 0; i < connectors.size(); ++i)
    connecting_road(connectors[i].first, ns + i, connectors[i].second, profiles[ns + i]);
  m_x.raw(m_fw.roads_xml);
  controllers_xml();
  for (std::uint32_t j = 0; j < m_connectors.size(); ++j)
    if (!m_connectors[j].empty() || m_fw.at_node.count(j) != 0) junction_xml(j);
  m_x.raw(m_fw.junctions_xml);
  m_x.raw("</OpenDRIVE>\n");
  if (m_x.error()) return *m_x.error();
  OpenDriveFiles out;
  out.xodr = std::move(m_x.str());
  out.side_json = side_json();
  out.stats = m_stats;
  return out;
}

}  // namespace

Result<OpenDriveFiles> opendrive(const layout::Output& city, const roads::Output& roads,
                                 const terrain::Heightfield& ground, const roads::Config& config,
                                 const OpenDriveOptions& options, const freeway::Output* freeway) {
  Writer writer(city, roads, ground, config, options, freeway);
  return writer.run();
}

}  // namespace cityforge::exporter
