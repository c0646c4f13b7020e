// SPDX-License-Identifier: Apache-2.0
// Road markings as decals (issue 3, "markings as decal instances at exact road level"): centre,
// lane and edge lines along each section, and at 3+ leg junctions crosswalk stripes, stop lines
// and turn arrows on the approach. Every decal is a strip over an arc-length interval of its
// section at a lateral offset; outline points are placed with section_point and lifted onto
// road_surface_z, and long lines are cut into short pieces so each follows the surface.
// Right-hand traffic: forward lanes (from -> to) run right of the centre line.
// Dimensions follow common European practice (e.g. German RMS: 0.15 m lines, 3 m dashes).
#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <memory>

#include "cityforge/core/polyline.hpp"
#include "cityforge/roads/roads.hpp"
#include "roads/detail/lanes.hpp"

namespace cityforge::roads {
namespace {

constexpr double kLineM = 0.15;        // Width of single lines.
constexpr double kDoubleM = 0.45;      // Double solid: two 0.15 m lines, 0.15 m apart.
constexpr double kEdgeInsetM = 0.2;    // Edge lines' outer side this far inside the curb.
constexpr double kDashM = 3.0;         // Dash length of dashed lines...
constexpr double kDashGapM = 9.0;      // ...and the gap between dashes.
constexpr double kStopDepthM = 0.4;    // Stop line, along the road.
constexpr double kStripeM = 0.5;       // Zebra bar width...
constexpr double kStripeGapM = 0.5;    // ...and gap.
constexpr double kArrowLengthM = 5.0;  // Turn arrow decal.
constexpr double kArrowWidthM = 1.2;   // At most; narrower lanes get 0.8 of their width.
constexpr double kArrowGapM = 3.0;     // Between the stop line (or crosswalk) and the arrow.
constexpr double kMaxPieceM = 5.0;     // Longest piece of a long marking.
constexpr double kMinLineM = 0.5;      // Shorter line runs are dropped.

/// What one end of a section carries, as distances from that end (metres).
struct EndPlan {
  bool crosswalk = false;
  LaneId crosswalk_lane = kNoLane;
  double crosswalk_near = 0.0;
  double crosswalk_far = 0.0;
  bool stop = false;
  double stop_near = 0.0;
  bool arrows = false;
  double arrow_near = 0.0;
  double edge_clear = 0.0;    // Edge lines start here.
  double centre_clear = 0.0;  // Centre and lane lines start here.
};

MarkingKind arrow_kind(bool through, bool left, bool right, bool* ok) {
  *ok = true;
  if (through && !left && !right) return MarkingKind::arrow_through;
  if (!through && left && !right) return MarkingKind::arrow_left;
  if (!through && !left && right) return MarkingKind::arrow_right;
  if (through && left && !right) return MarkingKind::arrow_through_left;
  if (through && !left && right) return MarkingKind::arrow_through_right;
  *ok = false;
  return MarkingKind::arrow_through;
}

/// Where a painter puts its decals, and the kinds it paints (the others are skipped before
/// their outlines are draped).
struct Brush {
  std::vector<Decal> decals;
  std::uint32_t kinds = kAllMarkings;
  bool paints(MarkingKind kind) const { return (kinds & marking_bit(kind)) != 0U; }
};

class Painter {
 public:
  Painter(const layout::Output& city, const Output& roads, const terrain::Heightfield& ground,
          const Config& config)
      : m_city(city), m_roads(roads), m_ground(ground), m_config(config) {
    index_lanes();
  }

  /// Section `sec`'s decals of the kinds in `kinds` (a bit per MarkingKind), in build_markings'
  /// order. Thread-safe.
  std::vector<Decal> paint(std::uint32_t sec, std::uint32_t kinds = kAllMarkings) const {
    Brush out{{}, kinds};
    // Underground roads of imported places are not drawn, nor painted.
    if (!m_city.network.edges[m_roads.sections[sec].edge].tunnel) paint_section(out, sec);
    return std::move(out.decals);
  }

 private:
  void index_lanes();
  EndPlan plan_end(std::uint32_t sec, int end, double len) const;
  // Arc length where the crosswalk lane's line, moved shift_m to its left, crosses the offset
  // line at lat; the band the lane covers along that offset line.
  bool crossing(std::uint32_t sec, LaneId crosswalk, double lat, double shift_m,
                double* s_out) const;
  bool band_at(std::uint32_t sec, LaneId crosswalk, double lat, double* s_lo, double* s_hi) const;
  void paint_section(Brush& out, std::uint32_t sec) const;
  void paint_end(Brush& out, std::uint32_t sec, int end, double len, const EndPlan& plan) const;
  void strip(Brush& out, MarkingKind kind, std::uint32_t sec, double s0, double s1, double lat,
             double width, bool reverse, bool bend = true) const;
  void solid(Brush& out, MarkingKind kind, std::uint32_t sec, double s0, double s1, double lat,
             double width) const;
  void dashed(Brush& out, MarkingKind kind, std::uint32_t sec, double s0, double s1, double lat,
              double width) const;
  Vec3 lifted(std::uint32_t sec, double lat, double s) const {
    const Vec2 p = section_point(m_roads, sec, lat, s);
    return {
        p.x, p.y,
        road_surface_z(m_city, m_roads, m_ground, m_config, sec, lat, s) + m_config.marking_lift_m};
  }

  const layout::Output& m_city;
  const Output& m_roads;
  const terrain::Heightfield& m_ground;
  const Config& m_config;
  // Per section: driving lanes by direction (0 forward, 1 backward) and lane_index.
  std::vector<std::array<std::vector<LaneId>, 2>> m_section_lanes;
  // Per intersection: its crosswalk lanes, ascending.
  std::vector<std::vector<LaneId>> m_crosswalks;
};

void Painter::index_lanes() {
  m_section_lanes.resize(m_roads.sections.size());
  m_crosswalks.resize(m_roads.intersections.size());
  for (const Lane& lane : m_roads.lanes.lanes) {
    if ((lane.tags & kCrosswalk) != 0U && lane.intersection >= 0 &&
        static_cast<std::size_t>(lane.intersection) < m_crosswalks.size()) {
      m_crosswalks[static_cast<std::size_t>(lane.intersection)].push_back(lane.id);
      continue;
    }
    const bool driving = (lane.tags & kVehicle) != 0U && (lane.tags & kIntersection) == 0U;
    if (!driving || lane.section < 0 || lane.lane_index < 0 ||
        static_cast<std::size_t>(lane.section) >= m_section_lanes.size()) {
      continue;
    }
    auto& list = m_section_lanes[static_cast<std::size_t>(lane.section)][lane.forward ? 0 : 1];
    const auto k = static_cast<std::size_t>(lane.lane_index);
    if (list.size() <= k) list.resize(k + 1, kNoLane);
    list[k] = lane.id;
  }
}

EndPlan Painter::plan_end(std::uint32_t sec, int end, double len) const {
  EndPlan plan;
  const layout::RoadEdge& edge = m_city.network.edges[m_roads.sections[sec].edge];
  const layout::NodeId node = end == 0 ? edge.from : edge.to;
  if (node >= m_roads.intersections.size()) return plan;
  const Intersection& j = m_roads.intersections[node];
  if (j.legs.size() < 3) return plan;  // Dead ends and bends: lines run to the end.
  const double half = 0.5 * edge.width_m;
  // 1. The crosswalk of this leg: the crosswalk lane of the junction that crosses the section
  // near this end (its middle close to the centre line, running across the road).
  const double s_end = end == 0 ? 0.0 : len;
  const Vec2 e = section_point(m_roads, sec, 0.0, s_end);
  const Vec2 u = polyline_tangent_at(m_roads.sections[sec].centre, s_end) * (end == 0 ? 1.0 : -1.0);
  double best = half + 1.0;
  for (LaneId id : m_crosswalks[node]) {
    const Lane& lane = m_roads.lanes.lanes[id];
    if (lane.points.size() < 2) continue;
    const Vec2 a{lane.points.front().x, lane.points.front().y};
    const Vec2 b{lane.points.back().x, lane.points.back().y};
    const Vec2 m = (a + b) * 0.5;
    const double along = dot(m - e, u);
    const double across = std::abs(cross(u, m - e));
    if (std::abs(dot(normalize(b - a), u)) > 0.5 || along < -1.0 || along > len) continue;
    if (across < best) {
      best = across;
      plan.crosswalk_lane = id;
    }
  }
  // The band the crosswalk lane covers, measured along offset lines every metre across the
  // carriageway: the lane is a straight chord, the section may bend under it.
  if (plan.crosswalk_lane != kNoLane) {
    double near = len;
    double far = 0.0;
    double stop_near = 0.0;  // Where a stop line may start: the gap away from the band.
    const int steps = std::max(2, static_cast<int>(std::ceil(2.0 * half)));
    for (int k = 0; k <= steps; ++k) {
      const double lat = -half + 2.0 * half * k / steps;
      double lo = 0.0;
      double hi = 0.0;
      if (!band_at(sec, plan.crosswalk_lane, lat, &lo, &hi)) continue;
      const double d0 = end == 0 ? lo : len - hi;
      const double d1 = end == 0 ? hi : len - lo;
      near = std::min(near, d0);
      far = std::max(far, d1);
      // The gap is measured across the crosswalk lane: arc length is not distance where the
      // section bends or meets the crosswalk at a slant.
      const double reach =
          0.5 * m_roads.lanes.lanes[plan.crosswalk_lane].width_m + m_config.stop_line_gap_m;
      double g0 = 0.0;
      double g1 = 0.0;
      if (crossing(sec, plan.crosswalk_lane, lat, reach, &g0) &&
          crossing(sec, plan.crosswalk_lane, lat, -reach, &g1)) {
        stop_near = std::max(stop_near, end == 0 ? std::max(g0, g1) : len - std::min(g0, g1));
      } else {
        stop_near = std::max(stop_near, d1 + m_config.stop_line_gap_m);
      }
    }
    if (far > near) {
      plan.crosswalk = true;
      plan.crosswalk_near = std::max(0.0, near);
      plan.crosswalk_far = std::min(len, far);
      plan.stop_near = stop_near;
    }
  }
  plan.edge_clear = plan.crosswalk ? plan.crosswalk_far : 0.0;
  plan.centre_clear = plan.edge_clear;
  // 2. Stop line at signal and stop junctions, if it fits in this end's half of the section.
  if (j.control == Control::signal || j.control == Control::stop) {
    const double near = plan.crosswalk ? plan.stop_near : m_config.stop_line_gap_m;
    if (near + kStopDepthM <= 0.5 * len) {
      plan.stop = true;
      plan.stop_near = near;
      plan.centre_clear = near + kStopDepthM;
    }
  }
  // 3. Arrows some metres before the stop line.
  const double arrow_near = plan.centre_clear + kArrowGapM;
  if (arrow_near + kArrowLengthM <= 0.5 * len) {
    plan.arrows = true;
    plan.arrow_near = arrow_near;
  }
  return plan;
}

bool Painter::crossing(std::uint32_t sec, LaneId crosswalk, double lat, double shift_m,
                       double* s_out) const {
  const Lane& lane = m_roads.lanes.lanes[crosswalk];
  const Vec2 a{lane.points.front().x, lane.points.front().y};
  const Vec2 b{lane.points.back().x, lane.points.back().y};
  const Vec2 dir = normalize(b - a);
  const Vec2 shift = perp(dir) * shift_m;
  // The centre line runs on straight 5 m past both ends, since a band edge may fall just
  // outside the section (the crosswalk starts at the junction mouth).
  constexpr double kExtendM = 5.0;
  Polyline centre = polyline_dedupe(m_roads.sections[sec].centre);
  if (centre.size() < 2) return false;
  const Vec2 t0 = normalize(centre[1] - centre[0]);
  const Vec2 t1 = normalize(centre[centre.size() - 1] - centre[centre.size() - 2]);
  centre.insert(centre.begin(), centre.front() - t0 * kExtendM);
  centre.push_back(centre.back() + t1 * kExtendM);
  const Polyline off = polyline_offset(centre, lat);
  // The lane runs from sidewalk to sidewalk, so it spans the carriageway; of several crossings
  // (a bending road) the one nearest the lane's middle counts. The frame's arc length grows
  // linearly along each offset segment.
  const Vec2 mid = (a + b) * 0.5 + shift;
  double acc = -kExtendM;
  double best = 1e300;
  for (std::size_t i = 0; i + 1 < off.size(); ++i) {
    const double len_c = distance(centre[i], centre[i + 1]);
    const double len_o = distance(off[i], off[i + 1]);
    Vec2 hit;
    if (len_o > 1e-9 &&
        segment_intersection(off[i], off[i + 1], a + shift - dir * 2.0, b + shift + dir * 2.0,
                             &hit) &&
        distance(hit, mid) < best &&
        std::abs(cross((off[i + 1] - off[i]) * (1.0 / len_o), dir)) >= 0.2) {
      best = distance(hit, mid);
      *s_out = acc + distance(off[i], hit) / len_o * len_c;
    }
    acc += len_c;
  }
  return best < 1e300;
}

bool Painter::band_at(std::uint32_t sec, LaneId crosswalk, double lat, double* s_lo,
                      double* s_hi) const {
  const double half_w = 0.5 * m_roads.lanes.lanes[crosswalk].width_m;
  double s0 = 0.0;
  double s1 = 0.0;
  if (!crossing(sec, crosswalk, lat, half_w, &s0) || !crossing(sec, crosswalk, lat, -half_w, &s1))
    return false;
  *s_lo = std::min(s0, s1);
  *s_hi = std::max(s0, s1);
  return true;
}

void Painter::strip(Brush& out, MarkingKind kind, std::uint32_t sec, double s0, double s1,
                    double lat, double width, bool reverse, bool bend) const {
  if (!out.paints(kind)) return;
  const Polyline& line = m_roads.sections[sec].centre;
  // Arc lengths of the outline: the ends and, for lines that bend with the road, every
  // centre-line vertex in between. Stripes, stop lines and arrows stay quads (their corners on
  // the surface): they are short, and their texture must not kink.
  std::vector<double> ss{s0};
  double acc = 0.0;
  for (std::size_t i = 1; i < line.size(); ++i) {
    acc += distance(line[i - 1], line[i]);
    if (bend && acc > s0 + 1e-6 && acc < s1 - 1e-6) ss.push_back(acc);
  }
  ss.push_back(s1);
  Decal d;
  d.kind = kind;
  d.section_or_intersection = sec;
  d.length_m = s1 - s0;
  d.width_m = width;
  const double mid = 0.5 * (s0 + s1);
  d.position = lifted(sec, lat, mid);
  const Vec2 t = polyline_tangent_at(line, mid) * (reverse ? -1.0 : 1.0);
  d.yaw_rad = std::atan2(t.y, t.x);
  // Counter-clockwise from above: right side forward, left side back.
  for (double s : ss)
    d.outline.push_back(lifted(sec, lat - 0.5 * width, s));
  for (auto it = ss.rbegin(); it != ss.rend(); ++it)
    d.outline.push_back(lifted(sec, lat + 0.5 * width, *it));
  out.decals.push_back(std::move(d));
}

void Painter::solid(Brush& out, MarkingKind kind, std::uint32_t sec, double s0, double s1,
                    double lat, double width) const {
  if (s1 - s0 < kMinLineM) return;
  const auto n = static_cast<int>(std::ceil((s1 - s0) / kMaxPieceM - 1e-9));
  const double step = (s1 - s0) / n;
  for (int k = 0; k < n; ++k) {
    strip(out, kind, sec, s0 + step * k, k + 1 == n ? s1 : s0 + step * (k + 1), lat, width, false);
  }
}

void Painter::dashed(Brush& out, MarkingKind kind, std::uint32_t sec, double s0, double s1,
                     double lat, double width) const {
  for (double s = s0; s + kDashM <= s1 + 1e-9; s += kDashM + kDashGapM) {
    strip(out, kind, sec, s, std::min(s + kDashM, s1), lat, width, false);
  }
}

void Painter::paint_section(Brush& out, std::uint32_t sec) const {
  const Section& section = m_roads.sections[sec];
  const layout::RoadEdge& edge = m_city.network.edges[section.edge];
  if (polyline_dedupe(section.centre, 1e-6).size() < 2 || edge.width_m <= 0.0) return;
  const double len = polyline_length(section.centre);
  const double half = 0.5 * edge.width_m;
  const EndPlan start = plan_end(sec, 0, len);
  const EndPlan end = plan_end(sec, 1, len);
  const double c0 = start.centre_clear;
  const double c1 = len - end.centre_clear;
  if (detail::symmetric_lanes(edge)) {
    const int n = std::max(1, edge.lanes_per_direction);
    const double lane_w = edge.width_m / (2.0 * n);
    // 1. Centre line: double solid on arteries, solid on main roads, dashed on locals.
    switch (edge.road_class) {
      case layout::RoadClass::artery:
        solid(out, MarkingKind::centre_double_solid, sec, c0, c1, 0.0, kDoubleM);
        break;
      case layout::RoadClass::main:
        solid(out, MarkingKind::centre_solid, sec, c0, c1, 0.0, kLineM);
        break;
      case layout::RoadClass::local:
        dashed(out, MarkingKind::lane_dashed, sec, c0, c1, 0.0, kLineM);
        break;
    }
    // 2. Lane separators between same-direction lanes, both sides.
    for (int k = 1; k < n; ++k) {
      dashed(out, MarkingKind::lane_dashed, sec, c0, c1, -k * lane_w, kLineM);
      dashed(out, MarkingKind::lane_dashed, sec, c0, c1, k * lane_w, kLineM);
    }
  } else {
    // Asymmetric lanes (imported places): the centre line on the divider, none on one-way
    // sections; separators between the lanes of each direction.
    const double lane_w = detail::lane_width(edge);
    const int nf = detail::lanes_forward(edge);
    const int nb = detail::lanes_backward(edge);
    const double divider = detail::divider_lateral(edge);
    if (nb > 0) {
      switch (edge.road_class) {
        case layout::RoadClass::artery:
          solid(out, MarkingKind::centre_double_solid, sec, c0, c1, divider, kDoubleM);
          break;
        case layout::RoadClass::main:
          solid(out, MarkingKind::centre_solid, sec, c0, c1, divider, kLineM);
          break;
        case layout::RoadClass::local:
          dashed(out, MarkingKind::lane_dashed, sec, c0, c1, divider, kLineM);
          break;
      }
    }
    for (int k = 1; k < nf; ++k)
      dashed(out, MarkingKind::lane_dashed, sec, c0, c1, -half + k * lane_w, kLineM);
    for (int k = 1; k < nb; ++k)
      dashed(out, MarkingKind::lane_dashed, sec, c0, c1, half - k * lane_w, kLineM);
  }
  // 3. Edge lines along both curbs.
  const double edge_lat = half - kEdgeInsetM - 0.5 * kLineM;
  if (edge_lat > 0.5 * kDoubleM + kLineM) {
    solid(out, MarkingKind::edge_solid, sec, start.edge_clear, len - end.edge_clear, -edge_lat,
          kLineM);
    solid(out, MarkingKind::edge_solid, sec, start.edge_clear, len - end.edge_clear, edge_lat,
          kLineM);
  }
  // 4. Junction markings at both ends.
  paint_end(out, sec, 0, len, start);
  paint_end(out, sec, 1, len, end);
}

void Painter::paint_end(Brush& out, std::uint32_t sec, int end, double len,
                        const EndPlan& plan) const {
  const layout::RoadEdge& edge = m_city.network.edges[m_roads.sections[sec].edge];
  const double half = 0.5 * edge.width_m;
  // Distance d from this end as an arc-length interval [s(d1), s(d0)] of the section.
  auto at = [&](double d) { return end == 0 ? d : len - d; };
  // Incoming lanes at the `from` end run backward (left of the centre line, lat > 0).
  const double side = end == 0 ? 1.0 : -1.0;
  const bool reverse = end == 0;  // Travel towards the `from` end runs against the section.
  // 1. Crosswalk: zebra bars parallel to the road, centred across the carriageway.
  if (plan.crosswalk && out.paints(MarkingKind::crosswalk_stripe)) {
    const double span = 2.0 * (half - kEdgeInsetM);
    const auto bars = static_cast<int>(std::floor((span + kStripeGapM) / (kStripeM + kStripeGapM)));
    const double total = bars * kStripeM + (bars - 1) * kStripeGapM;
    for (int k = 0; k < bars; ++k) {
      const double lat = -0.5 * total + 0.5 * kStripeM + k * (kStripeM + kStripeGapM);
      // The bar spans what the band covers along both its long sides.
      double lo0 = 0.0;
      double hi0 = 0.0;
      double lo1 = 0.0;
      double hi1 = 0.0;
      if (!band_at(sec, plan.crosswalk_lane, lat - 0.5 * kStripeM, &lo0, &hi0) ||
          !band_at(sec, plan.crosswalk_lane, lat + 0.5 * kStripeM, &lo1, &hi1)) {
        continue;
      }
      const double s0 = std::clamp(std::max(lo0, lo1), 0.0, len);
      const double s1 = std::clamp(std::min(hi0, hi1), 0.0, len);
      if (s1 - s0 >= kMinLineM) {
        strip(out, MarkingKind::crosswalk_stripe, sec, s0, s1, lat, kStripeM, false, false);
      }
    }
  }
  const bool symmetric = detail::symmetric_lanes(edge);
  const int incoming = end == 0 ? detail::lanes_backward(edge) : detail::lanes_forward(edge);
  double inner = edge.road_class == layout::RoadClass::artery ? 0.5 * kDoubleM : 0.5 * kLineM;
  const double outer = half - kEdgeInsetM;
  // Asymmetric lanes: the incoming half runs from the divider (its centre line, or the far
  // edge line on a one-way section) to this side's edge line.
  if (!symmetric) {
    const bool two_way = detail::lanes_backward(edge) > 0;
    inner = side * detail::divider_lateral(edge) + (two_way ? inner : kEdgeInsetM);
  }
  // 2. Stop line across the incoming half, from the centre line to the edge line.
  if (plan.stop && outer > inner && incoming > 0) {
    const double d0 = plan.stop_near;
    const double d1 = plan.stop_near + kStopDepthM;
    strip(out, MarkingKind::stop_line, sec, std::min(at(d0), at(d1)), std::max(at(d0), at(d1)),
          side * 0.5 * (inner + outer), outer - inner, reverse, false);
  }
  // 3. Arrows on incoming lanes, for the movements their connectors allow.
  if (!plan.arrows) return;
  const int n = std::max(1, edge.lanes_per_direction);
  const double lane_w = symmetric ? edge.width_m / (2.0 * n) : detail::lane_width(edge);
  const auto& ids = m_section_lanes[sec][end == 0 ? 1 : 0];
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] == kNoLane) continue;
    bool through = false;
    bool left = false;
    bool right = false;
    for (LaneId next : m_roads.lanes.lanes[ids[i]].successors) {
      const Lane& c = m_roads.lanes.lanes[next];
      if ((c.tags & kIntersection) == 0U) continue;
      through = through || c.turn == Turn::through;
      left = left || c.turn == Turn::left;
      right = right || c.turn == Turn::right;
    }
    bool ok = false;
    const MarkingKind kind = arrow_kind(through, left, right, &ok);
    if (!ok) continue;
    const double lat = symmetric ? side * (n - 1 - static_cast<double>(i) + 0.5) * lane_w
                                 : detail::lane_lateral(edge, end == 1, static_cast<int>(i));
    const double d0 = plan.arrow_near;
    const double d1 = plan.arrow_near + kArrowLengthM;
    strip(out, kind, sec, std::min(at(d0), at(d1)), std::max(at(d0), at(d1)), lat,
          std::min(kArrowWidthM, 0.8 * lane_w), reverse, false);
  }
}

}  // namespace

const char* to_string(MarkingKind k) {
  switch (k) {
    case MarkingKind::centre_solid:
      return "centre_solid";
    case MarkingKind::centre_double_solid:
      return "centre_double_solid";
    case MarkingKind::lane_dashed:
      return "lane_dashed";
    case MarkingKind::edge_solid:
      return "edge_solid";
    case MarkingKind::stop_line:
      return "stop_line";
    case MarkingKind::crosswalk_stripe:
      return "crosswalk_stripe";
    case MarkingKind::arrow_through:
      return "arrow_through";
    case MarkingKind::arrow_left:
      return "arrow_left";
    case MarkingKind::arrow_right:
      return "arrow_right";
    case MarkingKind::arrow_through_left:
      return "arrow_through_left";
    case MarkingKind::arrow_through_right:
      return "arrow_through_right";
  }
  return "unknown";
}

std::vector<Decal> build_markings(const layout::Output& city, const Output& roads,
                                  const terrain::Heightfield& ground, const Config& config) {
  if (roads.sections.size() != city.network.edges.size() ||
      roads.intersections.size() != city.network.nodes.size()) {
    return {};
  }
  const Painter painter(city, roads, ground, config);
  std::vector<Decal> out;
  for (std::uint32_t i = 0; i < roads.sections.size(); ++i) {
    std::vector<Decal> mine = painter.paint(i);
    out.insert(out.end(), std::make_move_iterator(mine.begin()),
               std::make_move_iterator(mine.end()));
  }
  return out;
}

struct SectionMarkings::Impl {
  Painter painter;
};

SectionMarkings::SectionMarkings(const layout::Output& city, const Output& roads,
                                 const terrain::Heightfield& ground, const Config& config) {
  if (roads.sections.size() == city.network.edges.size() &&
      roads.intersections.size() == city.network.nodes.size()) {
    m_impl = std::make_unique<const Impl>(Impl{Painter(city, roads, ground, config)});
    m_sections = roads.sections.size();
  }
}

SectionMarkings::~SectionMarkings() = default;

std::vector<Decal> SectionMarkings::of(std::uint32_t section, std::uint32_t kinds) const {
  if (m_impl == nullptr || section >= m_sections) return {};
  return m_impl->painter.paint(section, kinds);
}

}  // namespace cityforge::roads
