// SPDX-License-Identifier: Apache-2.0
// Private helpers shared by the road geometry files (trim.cpp, junction_surface.cpp,
// sections.cpp).
#pragma once

#include <vector>

#include "cityforge/core/polygon.hpp"
#include "cityforge/core/polyline.hpp"
#include "cityforge/layout/layout.hpp"
#include "cityforge/roads/roads.hpp"

namespace cityforge::roads::detail {

/// The corner between leg i and the next leg j counter-clockwise, in the straight-leg model:
/// the left curb of i and the right curb of j meet at p = node + a d_i + w_i perp(d_i) =
/// node + b d_j - w_j perp(d_j); a return of radius r touches them t = r / tan(theta / 2)
/// beyond p.
struct Corner {
  bool meets = false;      ///< theta < pi: the two curbs meet on the junction side.
  double theta_rad = 0.0;  ///< Counter-clockwise angle from d_i to d_j, (0, 2 pi].
  double a = 0.0;
  double b = 0.0;
  double t = 0.0;
  double radius_m = 0.0;
  Vec2 p;
};

/// How a node joins its sections.
enum class NodeKind { dead_end, mitre, junction };

/// Legs and corners of one node.
struct NodeLegs {
  NodeKind kind = NodeKind::dead_end;
  std::vector<Leg> legs;        ///< Counter-clockwise by leaving angle (ties by edge, end).
  std::vector<double> half_w;   ///< Half carriageway width per leg.
  std::vector<Corner> corners;  ///< corners[i]: between legs[i] and legs[(i + 1) % n].
};

/// The edge's centre line seen from one of its ends (reversed for the `to` end).
Polyline leg_line(const layout::RoadEdge& e, bool at_edge_start);

/// The part of a polyline between arc lengths s0 <= s1 (clamped).
Polyline polyline_slice(const Polyline& line, double s0, double s1);

/// Legs, corners and the required trims (before the per-edge cap) of every node.
std::vector<NodeLegs> compute_legs(const layout::Output& city, const Config& config);

/// Caps the two trims of every edge to config.max_trim_share of its length (proportionally);
/// returns the number of edges shrunk. trims[e] = {start, end}.
std::uint32_t cap_trims(const layout::Output& city, const Config& config,
                        std::vector<std::array<double, 2>>& trims);

/// Junction control from the classes of the legs (see build_geometry's documentation).
Control junction_control(const layout::Output& city, const NodeLegs& node);

/// The junction surface: leg mouths joined by curb returns; empty if degenerate.
Polygon junction_surface(const layout::Output& city, const layout::RoadNode& node,
                         const NodeLegs& legs);

/// Area of a intersect b, 0 when the boxes do not overlap.
double overlap_area(const Polygon& a, const Polygon& b);

/// The largest piece of a boolean result (ties by order), or an empty polygon.
Polygon largest_piece(const std::vector<Polygon>& pieces);

}  // namespace cityforge::roads::detail
