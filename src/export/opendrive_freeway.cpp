// SPDX-License-Identifier: Apache-2.0
// The freeway of the OpenDRIVE map (detail/opendrive_freeway.hpp): deck pieces, ramps and
// turnarounds as roads. Based on ASAM OpenDRIVE 1.4H, sections on road linkage (a road end
// with more than one successor needs a junction), junctions (connecting roads, laneLinks of
// the incoming road) and lane types (offRamp, onRamp).
#include "export/detail/opendrive_freeway.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "cityforge/core/polyline.hpp"
#include "export/detail/opendrive_geometry.hpp"
#include "export/detail/xml_text.hpp"

namespace cityforge::exporter::detail {

namespace {

using roads::kNoLane;
using roads::Lane;
using roads::LaneId;

enum class Kind { piece, off_ramp, on_ramp, turnaround };

/// One freeway road: its lanes in OpenDRIVE order (-1, -2, ...), and its junction (-1: none).
struct FRoad {
  Kind kind = Kind::piece;
  std::vector<LaneId> lanes;
  std::int64_t junction = -1;
  std::vector<OdrGeometry> geo;
  std::vector<Poly3> elevation;
};

class FreewayWriter {
 public:
  FreewayWriter(const freeway::Output& fw, const layout::Output& city, const roads::Output& roads,
                const std::vector<OdrLaneRef>& street_ref, std::size_t first_road,
                std::size_t first_junction)
      : m_fw(fw),
        m_city(city),
        m_roads(roads),
        m_street_ref(street_ref),
        m_first_road(first_road),
        m_first_junction(first_junction) {}

  FreewayMap run();

 private:
  const Lane& lane(LaneId id) const {
    return id < m_fw.first_lane_id ? m_roads.lanes.lanes[id] : m_fw.lanes[id - m_fw.first_lane_id];
  }
  bool ours(LaneId id) const { return id >= m_fw.first_lane_id; }
  OdrLaneRef ref(LaneId id) const {
    return ours(id) ? m_ref[id - m_fw.first_lane_id] : m_street_ref[id];
  }
  std::size_t road_of(LaneId id) const { return m_road_of[id - m_fw.first_lane_id]; }
  /// The layout node where a street lane starts (at_start) or ends.
  std::uint32_t street_node(LaneId id, bool at_start) const {
    const Lane& l = m_roads.lanes.lanes[id];
    const layout::RoadEdge& e = m_city.network.edges[static_cast<std::size_t>(l.section)];
    return l.forward == at_start ? e.from : e.to;
  }
  void build_roads();
  void fit(FRoad& r) const;
  void link_xml(const FRoad& r, bool at_start);
  void road_xml(std::size_t k);

  const freeway::Output& m_fw;
  const layout::Output& m_city;
  const roads::Output& m_roads;
  const std::vector<OdrLaneRef>& m_street_ref;
  std::size_t m_first_road;
  std::size_t m_first_junction;
  std::vector<FRoad> m_froads;
  std::vector<OdrLaneRef> m_ref;       // Per freeway lane.
  std::vector<std::size_t> m_road_of;  // Per freeway lane: index into m_froads.
  XmlText m_x;
  XmlText m_j;
  FreewayMap m_out;
};

void FreewayWriter::build_roads() {
  const std::size_t n = m_fw.lanes.size();
  m_ref.assign(n, {});
  m_road_of.assign(n, SIZE_MAX);
  std::vector<bool> off(n, false);
  for (const freeway::Ramp& r : m_fw.ramps)
    if (ours(r.lane)) off[r.lane - m_fw.first_lane_id] = r.off;
  for (const Lane& l : m_fw.lanes) {
    FRoad r;
    if ((l.tags & roads::kRamp) != 0U) {
      r.kind = off[l.id - m_fw.first_lane_id] ? Kind::off_ramp : Kind::on_ramp;
      r.lanes = {l.id};
    } else if ((l.tags & roads::kIntersection) != 0U) {
      r.kind = Kind::turnaround;
      r.lanes = {l.id};
    } else if (l.right_neighbour == kNoLane) {
      // A piece: from the curb lane leftwards to the median, then -1 at the median.
      for (LaneId id = l.id; id != kNoLane && ours(id); id = lane(id).left_neighbour)
        r.lanes.push_back(id);
      std::reverse(r.lanes.begin(), r.lanes.end());
    } else {
      continue;  // Part of the piece of its curb lane.
    }
    for (std::size_t i = 0; i < r.lanes.size(); ++i) {
      m_ref[r.lanes[i] - m_fw.first_lane_id] = {
          static_cast<std::int64_t>(m_first_road + m_froads.size()), -static_cast<int>(i + 1)};
      m_road_of[r.lanes[i] - m_fw.first_lane_id] = m_froads.size();
    }
    m_froads.push_back(std::move(r));
  }
  // Junctions: ramps join the street node where they meet the artery; a piece that starts at
  // a diverge joins its off-ramp's; each turnaround has its own.
  std::size_t turns = 0;
  for (FRoad& r : m_froads) {
    const Lane& l = lane(r.lanes.front());
    if (r.kind == Kind::turnaround) {
      r.junction = static_cast<std::int64_t>(m_first_junction + turns++);
    } else if (r.kind == Kind::off_ramp && !l.successors.empty() && !ours(l.successors[0])) {
      r.junction = street_node(l.successors[0], true);
    } else if (r.kind == Kind::on_ramp && !l.predecessors.empty() && !ours(l.predecessors[0])) {
      r.junction = street_node(l.predecessors[0], false);
    }
  }
  for (FRoad& r : m_froads) {
    if (r.kind != Kind::piece) continue;
    const Lane& curb = lane(r.lanes.back());
    for (const LaneId p : curb.predecessors) {
      if (!ours(p)) continue;
      for (const LaneId s : lane(p).successors)
        if (ours(s) && m_froads[road_of(s)].kind == Kind::off_ramp)
          r.junction = m_froads[road_of(s)].junction;
    }
  }
}

void FreewayWriter::fit(FRoad& r) const {
  const Lane& l = lane(r.lanes.front());
  Polyline plan;
  for (const Vec3& p : l.points)
    plan.push_back({p.x, p.y});
  if (r.kind == Kind::piece) {
    double reach = 0.0;
    for (const LaneId id : r.lanes)
      reach += lane(id).width_m;
    r.geo = polyline_geometry(polyline_corners(plan), reach + 1.0);
  } else {
    // The ramp's or turnaround's own Bezier; fitted to its samples when it came without it.
    double err = 0.0;
    r.geo = l.handles[0] == Vec2{} && l.handles[1] == Vec2{}
                ? bezier_geometry(plan, &err)
                : bezier_curve(plan.front(), l.handles[0], l.handles[1], plan.back(), plan, &err);
    if (r.geo.empty() || err > 0.01) r.geo = polyline_geometry(polyline_corners(plan));
  }
  // z along the lane by the share of its plan length.
  std::vector<double> run{0.0};
  for (std::size_t i = 1; i < plan.size(); ++i)
    run.push_back(run.back() + distance(plan[i], plan[i - 1]));
  const double len = geometry_length(r.geo);
  const bool curve = r.kind != Kind::piece && !r.geo.empty() &&
                     r.geo.front().kind == OdrGeometry::Kind::param_poly3;
  const auto z = [&](double s) {
    // On a paramPoly3 (p = s / length) s is not the curve's arc length: the plan length up to
    // the point nearest the map's position at s; elsewhere s's share of the length.
    double u = len > 0.0 ? s / len * run.back() : 0.0;
    if (curve) {
      const Vec2 q = geometry_point(r.geo, s);
      double best = 1e300;
      for (std::size_t i = 1; i < plan.size(); ++i) {
        const Vec2 d = plan[i] - plan[i - 1];
        const double l2 = dot(d, d);
        const double t = l2 > 0.0 ? std::clamp(dot(q - plan[i - 1], d) / l2, 0.0, 1.0) : 0.0;
        const double dist = distance(q, plan[i - 1] + d * t);
        if (dist < best) {
          best = dist;
          u = run[i - 1] + (run[i] - run[i - 1]) * t;
        }
      }
    }
    const auto it = std::upper_bound(run.begin(), run.end(), u);
    if (it == run.begin()) return l.points.front().z;
    if (it == run.end()) return l.points.back().z;
    const std::size_t k = static_cast<std::size_t>(it - run.begin()) - 1;
    const double f = (u - run[k]) / std::max(run[k + 1] - run[k], 1e-12);
    return l.points[k].z + (l.points[k + 1].z - l.points[k].z) * f;
  };
  r.elevation = fit_profile(z, len, kElevationToleranceM, kMinPieceM);
}

void FreewayWriter::link_xml(const FRoad& r, bool at_start) {
  const Lane& l = lane(r.lanes.front());
  const auto& others = at_start ? l.predecessors : l.successors;
  if (others.empty()) return;
  const LaneId o = others[0];
  const OdrLaneRef to = ref(o);
  if (to.road < 0) return;
  const bool junction = ours(o) && r.junction < 0 && m_froads[road_of(o)].junction >= 0;
  m_x.raw(at_start ? "      <predecessor" : "      <successor");
  if (junction) {
    m_x.attr("elementType", "junction");
    m_x.attr("elementId", std::to_string(m_froads[road_of(o)].junction));
  } else {
    m_x.attr("elementType", "road");
    m_x.attr("elementId", std::to_string(to.road));
    // Right lanes run along their road: they come from its end and go to its start.
    m_x.attr("contactPoint", (to.id < 0) == at_start ? "end" : "start");
  }
  m_x.raw("/>\n");
}

void FreewayWriter::road_xml(std::size_t k) {
  const FRoad& r = m_froads[k];
  const std::size_t id = m_first_road + k;
  const std::string where = "freeway road " + std::to_string(id);
  const double len = geometry_length(r.geo);
  m_x.raw("  <road");
  m_x.attr("name", r.kind == Kind::piece      ? "freeway"
                   : r.kind == Kind::off_ramp ? "off-ramp"
                   : r.kind == Kind::on_ramp  ? "on-ramp"
                                              : "freeway turnaround");
  m_x.attr("length", len, where);
  m_x.attr("id", std::to_string(id));
  m_x.attr("junction", std::to_string(r.junction));
  m_x.raw(">\n    <link>\n");
  link_xml(r, true);
  link_xml(r, false);
  m_x.raw("    </link>\n    <type s=\"0\" type=\"motorway\"/>\n");
  write_plan_view(m_x, r.geo, where);
  for (const OdrGeometry& g : r.geo) {
    for (const Vec2 p : {Vec2{g.x, g.y}, geometry_point({g}, g.s + g.length)}) {
      m_out.north = std::max(m_out.north, p.y);
      m_out.south = std::min(m_out.south, p.y);
      m_out.east = std::max(m_out.east, p.x);
      m_out.west = std::min(m_out.west, p.x);
    }
  }
  m_out.geometries += r.geo.size();
  m_x.raw("    <elevationProfile>\n");
  write_records(m_x, "      <elevation", "s", r.elevation, 1.0, where);
  m_out.elevations += r.elevation.size();
  // The deck is flat across: no lateral profile. Lane -1's centre is the reference line.
  m_x.raw("    </elevationProfile>\n    <lanes>\n      <laneOffset s=\"0\"");
  m_x.attr("a", 0.5 * lane(r.lanes.front()).width_m, where);
  m_x.raw(" b=\"0\" c=\"0\" d=\"0\"/>\n      <laneSection s=\"0\">\n");
  m_x.raw("        <center>\n          <lane id=\"0\" type=\"none\" level=\"false\">\n");
  m_x.raw("            <roadMark sOffset=\"0\"");
  m_x.attr("type", r.kind == Kind::piece ? "solid" : "none");
  m_x.raw(" weight=\"standard\" color=\"standard\" width=\"0.15\"/>\n");
  m_x.raw("          </lane>\n        </center>\n        <right>\n");
  const char* type = r.kind == Kind::off_ramp  ? "offRamp"
                     : r.kind == Kind::on_ramp ? "onRamp"
                                               : "driving";
  OdrConnection con;
  con.connecting = id;
  for (std::size_t i = 0; i < r.lanes.size(); ++i) {
    const Lane& l = lane(r.lanes[i]);
    const int lid = -static_cast<int>(i + 1);
    m_x.raw("          <lane");
    m_x.attr_int("id", lid);
    m_x.attr("type", type);
    m_x.raw(" level=\"false\">\n");
    // Lane links to the roads linked directly (a connecting road's are its incoming and
    // outgoing roads; a road that ends at a junction leaves them to the junction).
    OdrLaneRef pred, succ;
    const auto direct = [&](LaneId o) {
      return r.junction >= 0 || !ours(o) || m_froads[road_of(o)].junction < 0;
    };
    for (const LaneId o : l.predecessors)
      if (direct(o) && pred.road < 0 && (r.junction < 0 || ref(o).road >= 0)) pred = ref(o);
    for (const LaneId o : l.successors)
      if (direct(o) && succ.road < 0) succ = ref(o);
    if (r.junction >= 0 && pred.road >= 0) {
      con.incoming = static_cast<std::size_t>(pred.road);
      con.lane_links.emplace_back(pred.id, lid);
    }
    write_lane_link(m_x, pred, succ);
    m_x.raw("            <width sOffset=\"0\"");
    m_x.attr("a", l.width_m, where);
    m_x.raw(" b=\"0\" c=\"0\" d=\"0\"/>\n            <roadMark sOffset=\"0\"");
    m_x.attr("type", i + 1 == r.lanes.size() ? "solid" : "broken");
    m_x.raw(" weight=\"standard\" color=\"standard\" width=\"0.15\"/>\n");
    m_x.raw("            <speed sOffset=\"0\"");
    m_x.attr("max", l.speed_limit_mps, where);
    m_x.raw(" unit=\"m/s\"/>\n          </lane>\n");
  }
  m_x.raw("        </right>\n      </laneSection>\n    </lanes>\n  </road>\n");
  ++m_out.roads;
  if (r.junction < 0) return;
  ++m_out.connecting_roads;
  if (con.lane_links.empty()) return;
  if (r.kind != Kind::turnaround) {
    m_out.at_node[static_cast<std::uint32_t>(r.junction)].push_back(std::move(con));
    return;
  }
  m_j.raw("  <junction name=\"freeway turnaround\"");
  m_j.attr("id", std::to_string(r.junction));
  m_j.raw(">\n");
  write_connection(m_j, 0, {con.incoming, id, con.lane_links});
  m_j.raw("  </junction>\n");
  ++m_out.junctions;
}

FreewayMap FreewayWriter::run() {
  build_roads();
  for (FRoad& r : m_froads)
    fit(r);
  for (std::size_t k = 0; k < m_froads.size(); ++k)
    road_xml(k);
  for (std::size_t i = 0; i < m_ref.size(); ++i)
    if (m_ref[i].road >= 0) m_out.lanes.emplace_back(m_fw.first_lane_id + i, m_ref[i]);
  if (m_x.error()) m_out.error = *m_x.error();
  m_out.roads_xml = std::move(m_x.str());
  m_out.junctions_xml = std::move(m_j.str());
  return std::move(m_out);
}

}  // namespace

FreewayMap freeway_map(const freeway::Output& freeway, const layout::Output& city,
                       const roads::Output& roads, const std::vector<OdrLaneRef>& street_ref,
                       std::size_t first_road, std::size_t first_junction) {
  FreewayWriter w(freeway, city, roads, street_ref, first_road, first_junction);
  return w.run();
}

}  // namespace cityforge::exporter::detail
