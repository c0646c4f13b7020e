// SPDX-License-Identifier: Apache-2.0
// ASAM OpenDRIVE 1.4 / 1.8 map of the streets (docs/opendrive.md).
// Based on: ASAM OpenDRIVE 1.4H (VIRES, 2015) and ASAM OpenDRIVE 1.8 (2023), sections on the
// reference line, lanes (centre lane, ids, width, height, road marks, speed), road and lane
// linkage, junctions (connecting roads, connections, lane links, controllers), signals (type
// 1000001 dynamic traffic lights, 206 stop, 205 yield), objects (crosswalk with an outline) and
// the lateral profile (superelevation; crossfall in 1.4, shape in 1.8).
//
// Each section of the roads stage is one road; its reference line is the line the lane graph
// offsets its lanes from (roads::lane_reference): the corners of the section's centre line
// rounded by the arcs the roads stage sampled, so lane centres match the lane graph. Every
// vehicle connector of a junction is one connecting road with one lane on the connector's curve.
#include "export/detail/opendrive_writer.hpp"

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

namespace detail {

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
  // Reference lines: the corners of the roads stage's centre lines, rounded by the same arcs
  // (Section::corner_radius_m, Section::joins) the lanes were sampled from.
  for (std::uint32_t k = 0; k < ns; ++k) {
    const roads::Section& sec = m_roads.sections[k];
    if (sec.corners.size() >= 2) {
      m_geo.push_back(
          detail::polyline_geometry(sec.corners, sec.corner_radius_m, sec.joins[0], sec.joins[1]));
    } else {
      // A section trimmed away: the 1 cm stub its lanes keep.
      m_geo.push_back(detail::polyline_geometry(roads::lane_reference(m_city, m_roads, k)));
    }
  }
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
  write_plan_view(m_x, geo, where);
  m_stats.geometries += geo.size();
}

void Writer::heights(const Profiles& pr, const std::string& where) {
  m_stretch = pr.stretch;
  m_stats.elevations += pr.elevation.size();
  m_x.raw("    <elevationProfile>\n");
  profile("      <elevation", "s", pr.elevation, 1.0, where);
  m_x.raw("    </elevationProfile>\n    <lateralProfile>\n");
  profile("      <superelevation", "s", pr.roll, 1.0, where);
}

void Writer::profile(const char* open, const char* s_name, const std::vector<Poly3>& pieces,
                     double scale, const std::string& where) {
  write_records(m_x, open, s_name, pieces, scale, where);
}

void Writer::lane_xml(const Lane& lane, int id, const char* type, const char* mark, LaneRef pred,
                      LaneRef succ, double height_inner, double height_outer) {
  const std::string where = "lane " + std::to_string(lane.id);
  m_x.raw("          <lane");
  m_x.attr_int("id", id);
  m_x.attr("type", type);
  m_x.attr("level", "false");
  m_x.raw(">\n");
  write_lane_link(m_x, pred, succ);
  profile("            <width", "sOffset", m_stretch, lane.width_m, where);
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
  heights(pr, where);
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
  profile("      <laneOffset", "s", m_stretch, offset, where);
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
    pr.geo = detail::polyline_geometry(polyline_corners(samples));
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
  heights(pr, where);
  m_x.raw("    </lateralProfile>\n    <lanes>\n");
  profile("      <laneOffset", "s", m_stretch, 0.5 * lane.width_m, where);
  m_x.raw("      <laneSection s=\"0\">\n");
  m_x.raw("        <center>\n          <lane id=\"0\" type=\"none\" level=\"false\"/>\n");
  m_x.raw("        </center>\n        <right>\n");
  lane_xml(lane, -1, "driving", "none", pred, succ, 0.0, 0.0);
  m_x.raw("        </right>\n      </laneSection>\n    </lanes>\n  </road>\n");
  ++m_stats.roads;
  ++m_stats.connecting_roads;
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
  build_heads();
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
  // The numbers of the roads a batch at a time, in parallel (each a pure function of the
  // inputs), then their text in road order, spilled to the sink as it grows: a valley's map
  // (250 MB) was held whole, with every road's fitted profiles, at the export's peak.
  const std::size_t ns = m_roads.sections.size();
  std::vector<std::pair<LaneId, std::uint32_t>> connectors;  // (lane, junction) in road order
  for (std::uint32_t j = 0; j < m_connectors.size(); ++j)
    for (const LaneId c : m_connectors[j])
      connectors.emplace_back(c, j);
  const std::size_t road_count = ns + connectors.size();
  constexpr std::size_t kBatch = 4096;
  std::vector<Profiles> profiles;
  for (std::size_t first = 0; first < road_count; first += kBatch) {
    const std::size_t batch = std::min(kBatch, road_count - first);
    profiles.assign(batch, Profiles{});
    tbb::parallel_for(std::size_t{0}, batch, [&](std::size_t b) {
      const std::size_t i = first + b;
      profiles[b] = i < ns
                        ? section_profiles(static_cast<std::uint32_t>(i))
                        : connector_profiles(connectors[i - ns].first, connectors[i - ns].second);
    });
    for (std::size_t b = 0; b < batch; ++b) {
      const std::size_t i = first + b;
      if (i < ns) {
        section_road(static_cast<std::uint32_t>(i), profiles[b]);
      } else {
        connecting_road(connectors[i - ns].first, i, connectors[i - ns].second, profiles[b]);
      }
      m_x.spill();
    }
  }
  profiles = {};
  m_x.raw(m_fw.roads_xml);
  controllers_xml();
  m_x.spill();
  for (std::uint32_t j = 0; j < m_connectors.size(); ++j) {
    if (!m_connectors[j].empty() || m_fw.at_node.count(j) != 0) junction_xml(j);
    m_x.spill();
  }
  m_x.raw(m_fw.junctions_xml);
  m_x.raw("</OpenDRIVE>\n");
  m_x.spill(true);
  if (m_x.error()) return *m_x.error();
  OpenDriveFiles out;
  out.xodr_bytes = m_x.bytes();
  out.xodr = std::move(m_x.str());
  out.side_json = side_json();
  out.stats = m_stats;
  return out;
}

}  // namespace detail

Result<OpenDriveFiles> opendrive(const layout::Output& city, const roads::Output& roads,
                                 const terrain::Heightfield& ground, const roads::Config& config,
                                 const OpenDriveOptions& options, const freeway::Output* freeway) {
  detail::Writer writer(city, roads, ground, config, options, freeway);
  return writer.run();
}

Result<OpenDriveFiles> opendrive(const ByteSink& xodr, const layout::Output& city,
                                 const roads::Output& roads, const terrain::Heightfield& ground,
                                 const roads::Config& config, const OpenDriveOptions& options,
                                 const freeway::Output* freeway) {
  detail::Writer writer(city, roads, ground, config, options, freeway, &xodr);
  return writer.run();
}

}  // namespace cityforge::exporter
