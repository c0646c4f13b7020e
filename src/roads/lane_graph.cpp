// SPDX-License-Identifier: Apache-2.0
// The lane graph on the trimmed road geometry (issue 3, DESIGN.md "The lane graph"): driving
// lanes per direction, connectors for the allowed movements inside junctions, sidewalk,
// corner and crosswalk lanes for pedestrians, priority tags and signal plans.
// Right-hand traffic. Lane ids: sections in index order (forward lanes, backward lanes, right
// then left sidewalk), then junctions in index order (connectors by from leg, from lane, to
// leg, to lane; crosswalks by leg; corners by leg), so the same input gives the same ids.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <string>
#include <utility>

#include "cityforge/core/polyline.hpp"
#include "cityforge/roads/roads.hpp"
#include "roads/detail/lanes.hpp"

namespace cityforge::roads {
namespace {

using detail::JunctionLanes;
using detail::Movement;
using detail::plan_xy;

constexpr double kLaneSpacingM = 5.0;  // Section lanes have points at least this often (terrain).
constexpr double kConnectorSpacingM = 1.0;  // Connector curves are sampled this fine.
constexpr double kWalkSpeedMps = 1.4;
constexpr double kMaxTurnDeg = 150.0;  // Sharper turns at 3+ legs count as U-turns.
constexpr double kThroughMaxDeg = 60.0;

/// Lanes of one section.
struct SectionLanes {
  std::vector<LaneId> fwd;  ///< By lane_index.
  std::vector<LaneId> bwd;
  LaneId walk_right = kNoLane;  ///< Right of the from -> to direction.
  LaneId walk_left = kNoLane;
};

/// The part between arc lengths s0 <= s1 (clamped) of `line` offset by `offset_m`
/// (polyline_offset): the whole line is offset, then cut where the offset segments correspond
/// to the cut points, at the same share of the segment. Cutting first and offsetting the cut
/// would turn back at an inner offset whose cut lands early on a chord of a sampled arc (the
/// mitred vertex lies further along than the offset of the cut point).
Polyline offset_part(const Polyline& input, double s0, double s1, double offset_m) {
  const Polyline line = polyline_dedupe(input);
  const Polyline off = polyline_offset(line, offset_m);
  if (line.size() < 2) return off;
  // Segment index and share along it of arc length s.
  const auto locate = [&](double s) {
    double acc = 0.0;
    for (std::size_t i = 0; i + 1 < line.size(); ++i) {
      const double d = distance(line[i], line[i + 1]);
      if (s <= acc + d || i + 2 == line.size())
        return std::pair{i, d > 0.0 ? std::clamp((s - acc) / d, 0.0, 1.0) : 0.0};
      acc += d;
    }
    return std::pair{std::size_t{0}, 0.0};
  };
  const auto [k0, f0] = locate(s0);
  const auto [k1, f1] = locate(s1);
  Polyline out{lerp(off[k0], off[k0 + 1], f0)};
  for (std::size_t i = k0 + 1; i <= k1; ++i)
    out.push_back(off[i]);
  out.push_back(lerp(off[k1], off[k1 + 1], f1));
  return polyline_dedupe(out, 1e-6);
}

Vec2 end_tangent(const std::vector<Vec3>& p) {
  return normalize(plan_xy(p[p.size() - 1]) - plan_xy(p[p.size() - 2]));
}
Vec2 start_tangent(const std::vector<Vec3>& p) { return normalize(plan_xy(p[1]) - plan_xy(p[0])); }

/// Angle in degrees from heading a to heading b, in (-180, 180], positive counter-clockwise.
double turn_deg(Vec2 a, Vec2 b) {
  return std::atan2(cross(a, b), dot(a, b)) * 180.0 / std::numbers::pi;
}

}  // namespace

Polyline lane_reference(const layout::Output& city, const Output& roads, std::uint32_t section) {
  const Section& sec = roads.sections[section];
  const layout::RoadEdge& edge = city.network.edges[sec.edge];
  Polyline centre = polyline_dedupe(sec.centre, 1e-6);
  if (centre.size() < 2) {
    // A section trimmed away entirely keeps a 1 cm stub along the edge so lanes stay linked.
    const Vec2 p = centre.empty() ? polyline_point_at(edge.points, sec.trim_start_m) : centre[0];
    const Vec2 t = polyline_tangent_at(edge.points, sec.trim_start_m);
    centre = {p, p + t * 0.01};
  }
  return polyline_densify(centre, kLaneSpacingM);
}

namespace {

class Builder {
 public:
  Builder(const layout::Output& city, const Output& geo, const terrain::Heightfield& ground,
          const Config& config)
      : m_city(city), m_geo(geo), m_ground(ground), m_config(config) {}

  Result<LaneGraph> build();

 private:
  LaneId add(Lane lane) {
    lane.id = static_cast<LaneId>(m_graph.lanes.size());
    m_graph.lanes.push_back(std::move(lane));
    return m_graph.lanes.back().id;
  }
  std::vector<Vec3> drape(const Polyline& line, double lift_m) const {
    std::vector<Vec3> out;
    out.reserve(line.size());
    for (Vec2 p : line)
      out.push_back({p.x, p.y, m_ground.sample(p) + lift_m});
    return out;
  }
  bool is_direct(const Intersection& j) const;
  double walk_cut(std::uint32_t node) const;
  void build_section(std::uint32_t index);
  std::vector<LaneId> incoming(const Leg& leg) const;
  std::vector<LaneId> outgoing(const Leg& leg) const;
  LaneId walk_ccw(const Leg& leg) const;  // Sidewalk on the counter-clockwise side of a leg.
  LaneId walk_cw(const Leg& leg) const;
  void join_direct(const Intersection& j);
  void build_junction(std::uint32_t index);
  void add_movements(std::uint32_t index, JunctionLanes& jl);
  LaneId add_connector(std::uint32_t index, LaneId from, LaneId to, Turn turn, bool yield);
  void link_pedestrians();
  void finish_lanes();
  void join_walk(LaneId a, bool a_end, LaneId b, bool b_end);
  std::size_t walk_root(std::size_t k);

  const layout::Output& m_city;
  const Output& m_geo;
  const terrain::Heightfield& m_ground;
  const Config& m_config;
  LaneGraph m_graph;
  std::vector<SectionLanes> m_sections;
  std::vector<JunctionLanes> m_junctions;
  std::vector<std::size_t> m_walk_parent;  // Union-find over pedestrian lane ends (2 id + end).
};

bool Builder::is_direct(const Intersection& j) const {
  if (j.legs.size() != 2 || !j.surface.outer.empty()) return false;
  const auto& a = m_city.network.edges[j.legs[0].edge];
  const auto& b = m_city.network.edges[j.legs[1].edge];
  if (!detail::symmetric_lanes(a) || !detail::symmetric_lanes(b)) {
    // Lanes join one to one only where every lane going in has a lane going on.
    return j.legs[0].edge != j.legs[1].edge &&
           incoming(j.legs[0]).size() == outgoing(j.legs[1]).size() &&
           incoming(j.legs[1]).size() == outgoing(j.legs[0]).size();
  }
  return a.lanes_per_direction == b.lanes_per_direction && j.legs[0].edge != j.legs[1].edge;
}

double Builder::walk_cut(std::uint32_t node) const {
  // Sidewalks stop at the middle of the crosswalk band of junctions with 3+ legs.
  return m_geo.intersections[node].legs.size() >= 3 ? m_config.crosswalk_width_m * 0.5 : 0.0;
}

void Builder::build_section(std::uint32_t index) {
  const Section& sec = m_geo.sections[index];
  const layout::RoadEdge& edge = m_city.network.edges[sec.edge];
  SectionLanes sl;
  const Polyline centre = lane_reference(m_city, m_geo, index);
  const double lane_w = detail::lane_width(edge);
  const double half = edge.width_m * 0.5;
  const double speed = edge.speed_limit_kmh / 3.6;
  // 1. Driving lanes, forward (right of the divider) then backward, curb lane first; none
  // against the direction of a one-way edge.
  for (int dir = 0; dir < 2; ++dir) {
    const bool fwd = dir == 0;
    const int n = fwd ? detail::lanes_forward(edge) : detail::lanes_backward(edge);
    for (int i = 0; i < n; ++i) {
      const double lat = detail::lane_lateral(edge, fwd, i);
      const double off = std::abs(lat);
      Polyline line = polyline_offset(centre, lat);
      if (!fwd) std::reverse(line.begin(), line.end());
      Lane lane;
      lane.tags = kVehicle;
      lane.points = drape(line, m_config.crown_m * std::max(0.0, 1.0 - off / half));
      lane.width_m = lane_w;
      lane.speed_limit_mps = speed;
      lane.section = static_cast<std::int32_t>(index);
      lane.lane_index = i;
      lane.forward = fwd;
      lane.traffic_density = edge.traffic_density;
      lane.pedestrian_density = edge.pedestrian_density;
      (fwd ? sl.fwd : sl.bwd).push_back(add(std::move(lane)));
    }
    const auto& ids = fwd ? sl.fwd : sl.bwd;
    for (std::size_t i = 1; i < ids.size(); ++i) {
      m_graph.lanes[ids[i - 1]].left_neighbour = ids[i];
      m_graph.lanes[ids[i]].right_neighbour = ids[i - 1];
    }
  }
  // 2. Sidewalks, both along from -> to, cut back to the crosswalk centre at 3+ leg junctions.
  const double len = polyline_length(centre);
  double c0 = walk_cut(edge.from);
  double c1 = walk_cut(edge.to);
  if (c0 + c1 > 0.8 * len) {
    const double f = 0.8 * len / (c0 + c1);
    c0 *= f;
    c1 *= f;
  }
  const double walk_off = half + edge.sidewalk_width_m * 0.5;
  for (int side = 0; side < 2; ++side) {
    Lane lane;
    lane.tags = kSidewalk;
    lane.points = drape(offset_part(centre, c0, len - c1, side == 0 ? -walk_off : walk_off),
                        m_config.curb_height_m);
    lane.width_m = edge.sidewalk_width_m;
    lane.speed_limit_mps = kWalkSpeedMps;
    lane.section = static_cast<std::int32_t>(index);
    lane.forward = true;
    lane.traffic_density = edge.traffic_density;
    lane.pedestrian_density = edge.pedestrian_density;
    (side == 0 ? sl.walk_right : sl.walk_left) = add(std::move(lane));
  }
  m_sections.push_back(std::move(sl));
}

std::vector<LaneId> Builder::incoming(const Leg& leg) const {
  const SectionLanes& sl = m_sections[leg.edge];
  return leg.at_edge_start ? sl.bwd : sl.fwd;
}
std::vector<LaneId> Builder::outgoing(const Leg& leg) const {
  const SectionLanes& sl = m_sections[leg.edge];
  return leg.at_edge_start ? sl.fwd : sl.bwd;
}
LaneId Builder::walk_ccw(const Leg& leg) const {
  const SectionLanes& sl = m_sections[leg.edge];
  return leg.at_edge_start ? sl.walk_left : sl.walk_right;
}
LaneId Builder::walk_cw(const Leg& leg) const {
  const SectionLanes& sl = m_sections[leg.edge];
  return leg.at_edge_start ? sl.walk_right : sl.walk_left;
}

/// Moves the end of `a` (or its start) and the start/end of `b` to the intersection of their
/// end lines, so lanes meeting at a bend without a junction surface join in position.
void mitre(std::vector<Vec3>& a, bool a_end, std::vector<Vec3>& b, bool b_end) {
  if (!a_end) std::reverse(a.begin(), a.end());
  if (b_end) std::reverse(b.begin(), b.end());
  // Now a ends at the join, b starts there.
  const Vec2 pa = plan_xy(a.back());
  const Vec2 ua = end_tangent(a);
  const Vec2 pb = plan_xy(b.front());
  const Vec2 ub = start_tangent(b);
  Vec2 m = (pa + pb) * 0.5;
  const double den = cross(ua, ub);
  if (std::abs(den) > std::sin(0.5 * std::numbers::pi / 180.0)) {
    const double t = cross(pb - pa, ub) / den;
    const Vec2 cand = pa + ua * t;
    if (distance(cand, pa) < 4.0 * distance(pa, pb) + 0.5) m = cand;
  }
  const double z = (a.back().z + b.front().z) * 0.5;
  while (a.size() > 2 && dot(m - plan_xy(a[a.size() - 2]), ua) <= 0.05)
    a.erase(a.end() - 2);
  while (b.size() > 2 && dot(plan_xy(b[1]) - m, ub) <= 0.05)
    b.erase(b.begin() + 1);
  a.back() = {m.x, m.y, z};
  b.front() = {m.x, m.y, z};
  if (!a_end) std::reverse(a.begin(), a.end());
  if (b_end) std::reverse(b.begin(), b.end());
}

void Builder::join_direct(const Intersection& j) {
  for (int k = 0; k < 2; ++k) {
    const Leg& in = j.legs[k];
    const Leg& out = j.legs[1 - k];
    const auto ins = incoming(in);
    const auto outs = outgoing(out);
    for (std::size_t i = 0; i < ins.size() && i < outs.size(); ++i) {
      Lane& a = m_graph.lanes[ins[i]];
      Lane& b = m_graph.lanes[outs[i]];
      mitre(a.points, true, b.points, false);
      a.successors.push_back(b.id);
      b.predecessors.push_back(a.id);
    }
    // The CCW sidewalk of one leg meets the CW sidewalk of the other.
    const LaneId wa = walk_ccw(in);
    const LaneId wb = walk_cw(out);
    Lane& a = m_graph.lanes[wa];
    Lane& b = m_graph.lanes[wb];
    const bool a_end = !in.at_edge_start;
    const bool b_end = !out.at_edge_start;
    mitre(a.points, a_end, b.points, b_end);
    join_walk(wa, a_end, wb, b_end);
  }
}

LaneId Builder::add_connector(std::uint32_t index, LaneId from, LaneId to, Turn turn, bool yield) {
  const Lane& a = m_graph.lanes[from];
  const Lane& b = m_graph.lanes[to];
  const Vec3 p0 = a.points.back();
  const Vec3 p3 = b.points.front();
  const double gap = distance(plan_xy(p0), plan_xy(p3));
  // A floor on the handle keeps near-touching ends (lane count changes) a smooth S-curve.
  const double handle = turn == Turn::u_turn ? gap * 2.0 / 3.0 + 0.5 : std::max(gap / 3.0, 0.3);
  Lane lane;
  lane.tags = kVehicle | kIntersection | (yield ? kYield : 0U);
  const Vec2 t0 = end_tangent(a.points);
  const Vec2 t3 = start_tangent(b.points);
  lane.points = bezier_connector(p0, t0, p3, t3, handle, kConnectorSpacingM);
  lane.handles = {plan_xy(p0) + t0 * handle, plan_xy(p3) - t3 * handle};
  lane.width_m = std::min(a.width_m, b.width_m);
  double limit = std::min(a.speed_limit_mps, b.speed_limit_mps);
  if (turn == Turn::right) limit = std::min(limit, 20.0 / 3.6);
  if (turn == Turn::left) limit = std::min(limit, 30.0 / 3.6);
  if (turn == Turn::u_turn) limit = std::min(limit, 10.0 / 3.6);
  lane.speed_limit_mps = limit;
  lane.intersection = static_cast<std::int32_t>(index);
  lane.lane_index = a.lane_index;
  lane.forward = b.forward;
  lane.turn = turn;
  lane.traffic_density = a.traffic_density;
  lane.pedestrian_density = a.pedestrian_density;
  const LaneId id = add(std::move(lane));
  m_graph.lanes[from].successors.push_back(id);
  m_graph.lanes[id].predecessors.push_back(from);
  m_graph.lanes[id].successors.push_back(to);
  m_graph.lanes[to].predecessors.push_back(id);
  return id;
}

void Builder::add_movements(std::uint32_t index, JunctionLanes& jl) {
  const Intersection& j = m_geo.intersections[index];
  const std::size_t nl = j.legs.size();
  // Minor legs of yield / stop junctions give way: every leg below the best class present,
  // or every leg when all share one class (all-way stop).
  std::vector<bool> minor(nl, false);
  if (j.control == Control::yield || j.control == Control::stop) {
    int best = 99;
    int worst = -1;
    for (const Leg& l : j.legs) {
      const int c = static_cast<int>(m_city.network.edges[l.edge].road_class);
      best = std::min(best, c);
      worst = std::max(worst, c);
    }
    for (std::size_t k = 0; k < nl; ++k) {
      const int c = static_cast<int>(m_city.network.edges[j.legs[k].edge].road_class);
      minor[k] = best == worst || c > best;
    }
  }
  for (std::uint32_t a = 0; a < nl; ++a) {
    const auto ins = incoming(j.legs[a]);
    if (ins.empty()) continue;  // A one-way leg leaving the junction.
    const Vec2 heading = -j.legs[a].direction;
    // 1. Classify the movements from leg a by the angle between the legs.
    struct Target {
      std::uint32_t leg;
      Turn turn;
      double angle;
    };
    std::vector<Target> targets;
    if (nl == 1) {
      if (!outgoing(j.legs[0]).empty()) targets.push_back({0, Turn::u_turn, 180.0});
    } else {
      double best = 1e9;
      std::int32_t through = -1;
      for (std::uint32_t b = 0; b < nl; ++b) {
        if (b == a || outgoing(j.legs[b]).empty()) continue;  // No lane into a one-way leg.
        const double ang = turn_deg(heading, j.legs[b].direction);
        if (nl >= 3 && std::abs(ang) > kMaxTurnDeg) continue;
        targets.push_back({b, ang < 0.0 ? Turn::right : Turn::left, ang});
        if (std::abs(ang) < best) {
          best = std::abs(ang);
          through = static_cast<std::int32_t>(targets.size() - 1);
        }
      }
      if (through >= 0 && (best < kThroughMaxDeg || nl == 2)) targets[through].turn = Turn::through;
    }
    // 2. Lanes per movement: through keeps the lane index (fanning out or merging where counts
    // differ), right from curb lane to curb lane, left from inner lane to inner lane. Lanes
    // left without any movement join the movement of their nearest neighbour lane.
    std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> pairs(targets.size());
    const auto nin = static_cast<std::uint32_t>(ins.size());
    std::vector<int> used(nin, 0);
    for (std::size_t t = 0; t < targets.size(); ++t) {
      const auto nout = static_cast<std::uint32_t>(outgoing(j.legs[targets[t].leg]).size());
      auto& p = pairs[t];
      if (targets[t].turn == Turn::through || targets[t].turn == Turn::u_turn) {
        for (std::uint32_t i = 0; i < nin; ++i)
          p.push_back({i, std::min(i, nout - 1)});
        for (std::uint32_t o = nin; o < nout; ++o)
          p.push_back({nin - 1, o});
      } else if (targets[t].turn == Turn::right) {
        p.push_back({0, 0});
      } else {
        p.push_back({nin - 1, nout - 1});
      }
      for (auto [i, o] : p)
        ++used[i];
    }
    for (std::uint32_t i = 0; i < nin && !targets.empty(); ++i) {
      if (used[i] != 0) continue;
      // Right-hand lanes (low index) take the rightmost movement, the others the leftmost.
      std::size_t pick = 0;
      for (std::size_t t = 1; t < targets.size(); ++t) {
        const bool better = i < nin / 2 ? targets[t].angle < targets[pick].angle
                                        : targets[t].angle > targets[pick].angle;
        if (better) pick = t;
      }
      const auto nout = static_cast<std::uint32_t>(outgoing(j.legs[targets[pick].leg]).size());
      pairs[pick].push_back({i, std::min(i, nout - 1)});
    }
    // 3. Connectors, in target leg order then lane order.
    std::vector<std::size_t> order(targets.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](std::size_t x, std::size_t y) { return targets[x].leg < targets[y].leg; });
    for (std::size_t t : order) {
      auto& p = pairs[t];
      std::sort(p.begin(), p.end());
      p.erase(std::unique(p.begin(), p.end()), p.end());
      const auto outs = outgoing(j.legs[targets[t].leg]);
      Movement mv{a, targets[t].leg, targets[t].turn, {}};
      for (auto [i, o] : p) {
        mv.connectors.push_back(add_connector(index, ins[i], outs[o], mv.turn, minor[a]));
      }
      jl.movements.push_back(std::move(mv));
    }
  }
}

void Builder::build_junction(std::uint32_t index) {
  const Intersection& j = m_geo.intersections[index];
  JunctionLanes jl;
  jl.crosswalks.assign(j.legs.size(), kNoLane);
  if (j.legs.empty()) {
    m_junctions.push_back(std::move(jl));
    return;
  }
  if (is_direct(j)) {
    join_direct(j);
    m_junctions.push_back(std::move(jl));
    return;
  }
  // 1. Vehicle connectors.
  add_movements(index, jl);
  // 2. Crosswalks across each leg of 3+ leg junctions, from the CW to the CCW sidewalk.
  const std::size_t nl = j.legs.size();
  for (std::size_t k = 0; k < nl && nl >= 3; ++k) {
    const Leg& leg = j.legs[k];
    if (m_city.network.mapped_crossings && j.control != Control::signal) {
      // Imported places: only where a crossing is mapped on this leg end, and on every leg of a
      // signalised junction (its pedestrian phases; OSM rarely maps those crossings apart).
      const std::uint8_t bit = leg.at_edge_start ? 1U : 2U;
      if ((m_city.network.edges[leg.edge].crossings & bit) == 0U) continue;
    }
    const LaneId cw = walk_cw(leg);
    const LaneId ccw = walk_ccw(leg);
    const bool end = !leg.at_edge_start;
    const Vec3 p0 = end ? m_graph.lanes[cw].points.back() : m_graph.lanes[cw].points.front();
    const Vec3 p1 = end ? m_graph.lanes[ccw].points.back() : m_graph.lanes[ccw].points.front();
    const auto& edge = m_city.network.edges[leg.edge];
    Lane lane;
    lane.tags = kCrosswalk;
    lane.points = drape(polyline_resample({plan_xy(p0), plan_xy(p1)}, kConnectorSpacingM), 0.0);
    lane.points.front() = p0;
    lane.points.back() = p1;
    lane.width_m = m_config.crosswalk_width_m;
    lane.speed_limit_mps = kWalkSpeedMps;
    lane.intersection = static_cast<std::int32_t>(index);
    lane.traffic_density = edge.traffic_density;
    lane.pedestrian_density = edge.pedestrian_density;
    jl.crosswalks[k] = add(std::move(lane));
    join_walk(jl.crosswalks[k], false, cw, end);
    join_walk(jl.crosswalks[k], true, ccw, end);
  }
  // 3. Corner sidewalks from each leg's CCW sidewalk to the next leg's CW sidewalk (round the
  // end of the road at dead ends).
  for (std::size_t k = 0; k < nl; ++k) {
    const Leg& a = j.legs[k];
    const Leg& b = j.legs[(k + 1) % nl];
    const LaneId wa = walk_ccw(a);
    const LaneId wb = walk_cw(b);
    const bool a_end = !a.at_edge_start;
    const bool b_end = !b.at_edge_start;
    const auto& pa = m_graph.lanes[wa].points;
    const auto& pb = m_graph.lanes[wb].points;
    const Vec3 p0 = a_end ? pa.back() : pa.front();
    const Vec3 p3 = b_end ? pb.back() : pb.front();
    const Vec2 t0 = -a.direction;
    const Vec2 t3 = b.direction;
    const double gap = distance(plan_xy(p0), plan_xy(p3));
    Lane lane;
    lane.tags = kSidewalk;
    lane.points =
        bezier_connector(p0, t0, p3, t3, nl == 1 ? gap * 2.0 / 3.0 : gap / 3.0, kConnectorSpacingM);
    lane.width_m = std::min(m_graph.lanes[wa].width_m, m_graph.lanes[wb].width_m);
    lane.speed_limit_mps = kWalkSpeedMps;
    lane.intersection = static_cast<std::int32_t>(index);
    lane.pedestrian_density = m_graph.lanes[wa].pedestrian_density;
    lane.traffic_density = m_graph.lanes[wa].traffic_density;
    const LaneId id = add(std::move(lane));
    join_walk(id, false, wa, a_end);
    join_walk(id, true, wb, b_end);
  }
  m_junctions.push_back(std::move(jl));
}

std::size_t Builder::walk_root(std::size_t k) {
  if (m_walk_parent.size() <= k) {
    const std::size_t old = m_walk_parent.size();
    m_walk_parent.resize(k + 1);
    std::iota(m_walk_parent.begin() + static_cast<std::ptrdiff_t>(old), m_walk_parent.end(), old);
  }
  while (m_walk_parent[k] != k) {
    m_walk_parent[k] = m_walk_parent[m_walk_parent[k]];
    k = m_walk_parent[k];
  }
  return k;
}

void Builder::join_walk(LaneId a, bool a_end, LaneId b, bool b_end) {
  const std::size_t ra = walk_root(2 * std::size_t{a} + (a_end ? 1 : 0));
  const std::size_t rb = walk_root(2 * std::size_t{b} + (b_end ? 1 : 0));
  m_walk_parent[std::max(ra, rb)] = std::min(ra, rb);
}

void Builder::link_pedestrians() {
  // Pedestrian lanes are walked both ways: successors are the lanes touching a lane's end,
  // predecessors those touching its start.
  const std::size_t n = m_graph.lanes.size();
  walk_root(2 * n + 1);
  std::vector<std::vector<LaneId>> members(2 * n + 2);
  for (std::size_t id = 0; id < n; ++id) {
    if ((m_graph.lanes[id].tags & kVehicle) != 0U) continue;
    for (int e = 0; e < 2; ++e)
      members[walk_root(2 * id + e)].push_back(static_cast<LaneId>(id));
  }
  for (std::size_t id = 0; id < n; ++id) {
    Lane& lane = m_graph.lanes[id];
    if ((lane.tags & kVehicle) != 0U) continue;
    for (int e = 0; e < 2; ++e) {
      auto& list = e == 1 ? lane.successors : lane.predecessors;
      for (LaneId other : members[walk_root(2 * id + e)]) {
        if (other != id) list.push_back(other);
      }
    }
  }
}

void Builder::finish_lanes() {
  for (Lane& lane : m_graph.lanes) {
    for (auto* list : {&lane.successors, &lane.predecessors}) {
      std::sort(list->begin(), list->end());
      list->erase(std::unique(list->begin(), list->end()), list->end());
    }
    lane.length_m = polyline3_length(lane.points);
  }
}

Result<LaneGraph> Builder::build() {
  const auto& net = m_city.network;
  if (m_geo.sections.size() != net.edges.size() || m_geo.intersections.size() != net.nodes.size()) {
    return Error::invalid_input(
        "roads.lanes", "geometry needs one section per edge and one intersection per node, got " +
                           std::to_string(m_geo.sections.size()) + " sections for " +
                           std::to_string(net.edges.size()) + " edges and " +
                           std::to_string(m_geo.intersections.size()) + " intersections for " +
                           std::to_string(net.nodes.size()) + " nodes");
  }
  for (std::size_t i = 0; i < net.edges.size(); ++i) {
    if (m_geo.sections[i].edge != i || net.edges[i].lanes_per_direction < 1 ||
        net.edges[i].width_m <= 0.0) {
      return Error::invalid_input(
          "roads.sections[" + std::to_string(i) + "]",
          "expected edge " + std::to_string(i) + " with >= 1 lane and a positive width");
    }
  }
  // 1. Section lanes and sidewalks.
  for (std::uint32_t i = 0; i < m_geo.sections.size(); ++i)
    build_section(i);
  // 2. Junctions: connectors, crosswalks, corners; bends without a surface join directly.
  for (std::uint32_t i = 0; i < m_geo.intersections.size(); ++i)
    build_junction(i);
  // 3. Pedestrian links, sorted link lists, lengths.
  link_pedestrians();
  finish_lanes();
  // 4. Signal plans (may tag permissive movements kYield).
  for (std::uint32_t i = 0; i < m_geo.intersections.size(); ++i) {
    const Intersection& j = m_geo.intersections[i];
    if (j.control != Control::signal || j.legs.size() < 3) continue;
    SignalPlan plan =
        detail::build_signal_plan(i, j, m_junctions[i], m_city, m_config, m_graph.lanes);
    if (plan.phases.empty()) continue;  // No movement through it (one-way legs all leaving).
    m_graph.signals.push_back(std::move(plan));
  }
  detail::coordinate_signal_plans(m_graph.signals, m_graph.lanes);
  return std::move(m_graph);
}

}  // namespace

Result<LaneGraph> build_lane_graph(const layout::Output& city, const Output& geometry,
                                   const terrain::Heightfield& ground, const Config& config) {
  Builder builder(city, geometry, ground, config);
  return builder.build();
}

}  // namespace cityforge::roads
