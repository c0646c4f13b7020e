// SPDX-License-Identifier: Apache-2.0
// Junction trims: how far each road section stops short of its node so that neighbouring
// carriageways and their curb returns fit. Straight-leg model: each leg is a strip of its
// half width along its leaving direction; two neighbouring strips' curbs meet at a point p,
// and the curb return (a circular arc of the corner radius tangent to both curbs) ends
// r / tan(theta / 2) further out.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "roads/detail/geometry.hpp"

namespace cityforge::roads::detail {
Polyline leg_line(const layout::RoadEdge& e, bool at_edge_start) {
  Polyline line = e.points;
  if (!at_edge_start) std::reverse(line.begin(), line.end());
  return polyline_dedupe(line);
}

Polyline polyline_slice(const Polyline& line, double s0, double s1) {
  Polyline out;
  if (line.size() < 2) return line;
  const double total = polyline_length(line);
  s0 = std::clamp(s0, 0.0, total);
  s1 = std::clamp(s1, s0, total);
  out.push_back(polyline_point_at(line, s0));
  double acc = 0.0;
  for (std::size_t i = 0; i + 1 < line.size(); ++i) {
    acc += distance(line[i], line[i + 1]);
    if (acc > s0 && acc < s1 && i + 2 < line.size()) out.push_back(line[i + 1]);
  }
  out.push_back(polyline_point_at(line, s1));
  return polyline_dedupe(out, 1e-6);
}

namespace {

// Unit direction leaving the node: towards the point 1 m along the leg (or the far end of a
// shorter leg), which ignores sub-metre wiggles at the node.
Vec2 leaving_direction(const Polyline& line) {
  const double len = polyline_length(line);
  if (len <= 0.0) return {1.0, 0.0};
  return normalize(polyline_point_at(line, std::min(1.0, len)) - line.front());
}

Corner make_corner(Vec2 node, Vec2 di, double wi, Vec2 dj, double wj, double radius) {
  Corner c;
  c.radius_m = radius;
  double theta = std::atan2(cross(di, dj), dot(di, dj));
  if (theta <= 0.0) theta += 2.0 * std::numbers::pi;
  c.theta_rad = theta;
  // Nearly straight continuations have no corner worth a return.
  if (theta >= std::numbers::pi - 1e-6) return c;
  // a d_i - b d_j = -w_i perp(d_i) - w_j perp(d_j), by Cramer's rule.
  const Vec2 rhs = -wi * perp(di) - wj * perp(dj);
  const Vec2 v = -dj;
  const double det = cross(di, v);
  if (std::abs(det) < 1e-12) return c;
  c.meets = true;
  c.a = cross(rhs, v) / det;
  c.b = cross(di, rhs) / det;
  c.p = node + c.a * di + wi * perp(di);
  c.t = radius / std::tan(theta / 2.0);
  return c;
}

}  // namespace

std::vector<NodeLegs> compute_legs(const layout::Output& city, const Config& config) {
  const auto& net = city.network;
  std::vector<NodeLegs> out(net.nodes.size());
  for (std::size_t n = 0; n < net.nodes.size(); ++n) {
    const layout::RoadNode& node = net.nodes[n];
    NodeLegs& nl = out[n];
    // 1. Legs, sorted counter-clockwise by leaving angle.
    struct Tmp {
      double angle;
      Leg leg;
    };
    std::vector<Tmp> tmp;
    for (layout::EdgeId eid : node.edges) {
      const layout::RoadEdge& e = net.edges[eid];
      for (bool start : {true, false}) {
        if ((start ? e.from : e.to) != node.id) continue;
        Leg leg;
        leg.edge = eid;
        leg.at_edge_start = start;
        leg.direction = leaving_direction(leg_line(e, start));
        tmp.push_back({std::atan2(leg.direction.y, leg.direction.x), leg});
      }
    }
    std::sort(tmp.begin(), tmp.end(), [](const Tmp& x, const Tmp& y) {
      if (x.angle != y.angle) return x.angle < y.angle;
      if (x.leg.edge != y.leg.edge) return x.leg.edge < y.leg.edge;
      return x.leg.at_edge_start && !y.leg.at_edge_start;
    });
    // Duplicated edge ids in node.edges would give duplicate legs.
    tmp.erase(std::unique(tmp.begin(), tmp.end(),
                          [](const Tmp& x, const Tmp& y) {
                            return x.leg.edge == y.leg.edge &&
                                   x.leg.at_edge_start == y.leg.at_edge_start;
                          }),
              tmp.end());
    for (const Tmp& t : tmp) {
      nl.legs.push_back(t.leg);
      nl.half_w.push_back(0.5 * net.edges[t.leg.edge].width_m);
    }
    const std::size_t k = nl.legs.size();
    // 2. Kind: dead end, mitred bend of two equal roads, or a junction with a surface.
    if (k <= 1) {
      nl.kind = NodeKind::dead_end;
    } else if (k == 2 && std::abs(nl.half_w[0] - nl.half_w[1]) < 1e-6) {
      nl.kind = NodeKind::mitre;
    } else {
      nl.kind = NodeKind::junction;
    }
    if (nl.kind != NodeKind::junction) continue;
    // 3. Corners between neighbours and the trims they require.
    nl.corners.resize(k);
    std::vector<double> need(k, config.min_trim_m);
    for (std::size_t i = 0; i < k; ++i) {
      const std::size_t j = (i + 1) % k;
      const auto ci = static_cast<std::size_t>(net.edges[nl.legs[i].edge].road_class);
      const auto cj = static_cast<std::size_t>(net.edges[nl.legs[j].edge].road_class);
      const double r =
          std::max(0.0, std::min(config.corner_radius_m[std::min<std::size_t>(ci, 2)],
                                 config.corner_radius_m[std::min<std::size_t>(cj, 2)]));
      nl.corners[i] = make_corner(node.pos, nl.legs[i].direction, nl.half_w[i],
                                  nl.legs[j].direction, nl.half_w[j], r);
      const Corner& c = nl.corners[i];
      if (!c.meets) continue;
      need[i] = std::max(need[i], c.a + c.t);
      need[j] = std::max(need[j], c.b + c.t);
    }
    for (std::size_t i = 0; i < k; ++i)
      nl.legs[i].trim_m = need[i];
  }
  return out;
}

std::uint32_t cap_trims(const layout::Output& city, const Config& config,
                        std::vector<std::array<double, 2>>& trims) {
  std::uint32_t shrunk = 0;
  for (std::size_t e = 0; e < trims.size(); ++e) {
    const double len = polyline_length(city.network.edges[e].points);
    const double room = config.max_trim_share * len;
    const double sum = trims[e][0] + trims[e][1];
    if (sum > room + 1e-9) {
      const double f = sum > 0.0 ? room / sum : 0.0;
      trims[e][0] *= f;
      trims[e][1] *= f;
      ++shrunk;
    }
  }
  return shrunk;
}

// Signals where two major roads (artery or main) meet; a major road that merely passes a local
// street keeps priority and the local legs stop; local crossings of 4+ legs are all-way stops,
// smaller local junctions yield. Two major legs belong to one road passing through when they
// are of the same class and nearly opposite (> 150 degrees apart).
Control junction_control(const layout::Output& city, const NodeLegs& node) {
  if (node.kind != NodeKind::junction || node.legs.size() < 3) return Control::none;
  std::vector<const Leg*> major;
  int local = 0;
  for (const Leg& leg : node.legs) {
    if (city.network.edges[leg.edge].road_class == layout::RoadClass::local) {
      ++local;
    } else {
      major.push_back(&leg);
    }
  }
  if (major.size() >= 3) return Control::signal;
  if (major.size() == 2) {
    const bool same_class = city.network.edges[major[0]->edge].road_class ==
                            city.network.edges[major[1]->edge].road_class;
    const bool opposite =
        dot(major[0]->direction, major[1]->direction) < std::cos(150.0 * std::numbers::pi / 180.0);
    return same_class && opposite ? Control::stop : Control::signal;
  }
  if (!major.empty() || local >= 4) return Control::stop;
  return Control::yield;
}

}  // namespace cityforge::roads::detail
