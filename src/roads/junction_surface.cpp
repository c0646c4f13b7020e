// SPDX-License-Identifier: Apache-2.0
// Junction surface: walking counter-clockwise round the node, each leg's mouth (the flat end
// of its trimmed section, curb to curb) is joined to the next leg's mouth by a curb return, a
// circular arc tangent to both curbs where it fits between the mouths, else a straight curb.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "roads/detail/geometry.hpp"

namespace cityforge::roads::detail {

namespace {

// Points of the return arc from ti to tj round centre c, the short way, without ti.
void append_arc(Vec2 c, Vec2 ti, Vec2 tj, Ring& ring) {
  const double a0 = std::atan2(ti.y - c.y, ti.x - c.x);
  double sweep = std::atan2(tj.y - c.y, tj.x - c.x) - a0;
  while (sweep > std::numbers::pi)
    sweep -= 2.0 * std::numbers::pi;
  while (sweep < -std::numbers::pi)
    sweep += 2.0 * std::numbers::pi;
  const double r = distance(c, ti);
  // About one point per 11.25 degrees of turn.
  const int steps =
      std::max(2, static_cast<int>(std::ceil(std::abs(sweep) / (std::numbers::pi / 16))));
  for (int s = 1; s < steps; ++s) {
    const double a = a0 + sweep * s / steps;
    ring.push_back(c + Vec2{std::cos(a), std::sin(a)} * r);
  }
  ring.push_back(tj);
}

}  // namespace

Polygon junction_surface(const layout::Output& city, const layout::RoadNode& node,
                         const NodeLegs& nl) {
  const std::size_t k = nl.legs.size();
  if (nl.kind != NodeKind::junction || k < 2) return {};
  // 1. Mouth corners at the trims, on the real centre line (it may bend before the mouth).
  std::vector<Vec2> right(k);
  std::vector<Vec2> left(k);
  for (std::size_t i = 0; i < k; ++i) {
    const Leg& leg = nl.legs[i];
    const Polyline line = leg_line(city.network.edges[leg.edge], leg.at_edge_start);
    const Vec2 m = polyline_point_at(line, leg.trim_m);
    const Vec2 tangent = polyline_tangent_at(line, leg.trim_m);
    right[i] = m - perp(tangent) * nl.half_w[i];
    left[i] = m + perp(tangent) * nl.half_w[i];
  }
  // 2. Walk round: mouth i, then the return to mouth i + 1.
  Ring ring;
  for (std::size_t i = 0; i < k; ++i) {
    const std::size_t j = (i + 1) % k;
    ring.push_back(right[i]);
    ring.push_back(left[i]);
    const Corner& c = nl.corners[i];
    const double si = c.a + c.t;
    const double sj = c.b + c.t;
    const bool fits = c.meets && c.radius_m > 0.0 && si >= 0.0 && sj >= 0.0 &&
                      si <= nl.legs[i].trim_m + 1e-9 && sj <= nl.legs[j].trim_m + 1e-9;
    if (!fits) continue;  // A straight curb from left[i] to right[j].
    const Vec2 di = nl.legs[i].direction;
    const Vec2 dj = nl.legs[j].direction;
    const Vec2 ti = node.pos + di * si + perp(di) * nl.half_w[i];
    const Vec2 tj = node.pos + dj * sj - perp(dj) * nl.half_w[j];
    const Vec2 centre = c.p + normalize(di + dj) * (c.radius_m / std::sin(c.theta_rad / 2.0));
    ring.push_back(ti);
    append_arc(centre, ti, tj, ring);
  }
  // 3. Repair (sharp corners on short legs can fold the ring) and keep the main piece.
  // Near-duplicate points (a return ending exactly at a mouth corner) make GEOS's overlay
  // misbehave, so drop points closer than a micrometre, the closing one included.
  ring = polyline_dedupe(ring, 1e-6);
  while (ring.size() > 1 && distance(ring.front(), ring.back()) < 1e-6)
    ring.pop_back();
  Polygon poly;
  poly.outer = std::move(ring);
  poly = polygon_canonical(std::move(poly));
  if (poly.outer.size() < 3) return {};
  return largest_piece(polygon_union({poly}));
}

double overlap_area(const Polygon& a, const Polygon& b) {
  if (a.outer.size() < 3 || b.outer.size() < 3) return 0.0;
  if (!ring_bounds(a.outer).overlaps(ring_bounds(b.outer))) return 0.0;
  double area = 0.0;
  for (const Polygon& p : polygon_intersection(a, b))
    area += polygon_area(p);
  return area;
}

Polygon largest_piece(const std::vector<Polygon>& pieces) {
  const Polygon* best = nullptr;
  double best_area = 0.0;
  for (const Polygon& p : pieces) {
    const double a = polygon_area(p);
    if (best == nullptr || a > best_area) {
      best = &p;
      best_area = a;
    }
  }
  return best != nullptr ? *best : Polygon{};
}

}  // namespace cityforge::roads::detail
