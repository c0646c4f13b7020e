// SPDX-License-Identifier: Apache-2.0
// Clips a polyline to a polygon with holes: every segment is split where it meets a polygon
// edge and each piece is kept when its midpoint is inside. Pieces that touch are joined, so the
// output follows the line in order.
#include <algorithm>
#include <cmath>
#include <cstddef>

#include "cityforge/core/polygon.hpp"

namespace cityforge {
namespace {

/// Parameters t in (0, 1) along pq where it meets segment ab (both ends of a collinear overlap).
void add_crossings(Vec2 p, Vec2 q, Vec2 a, Vec2 b, std::vector<double>& ts) {
  const Vec2 d = q - p;
  const Vec2 e = b - a;
  const double len_d = length(d);
  const double len_e = length(e);
  if (len_d <= 0.0 || len_e <= 0.0) {
    return;
  }
  const double denom = cross(d, e);
  const Vec2 ap = a - p;
  if (std::fabs(denom) > 1e-12 * len_d * len_e) {
    const double t = cross(ap, e) / denom;
    const double u = cross(ap, d) / denom;
    if (t > 0.0 && t < 1.0 && u >= 0.0 && u <= 1.0) {
      ts.push_back(t);
    }
    return;
  }
  // Parallel: only a collinear edge splits the segment, at the edge's end points.
  if (std::fabs(cross(d, ap)) > 1e-12 * len_d * std::max(len_d, length(ap))) {
    return;
  }
  for (const Vec2 end : {a, b}) {
    const double t = dot(end - p, d) / (len_d * len_d);
    if (t > 0.0 && t < 1.0) {
      ts.push_back(t);
    }
  }
}

}  // namespace

std::vector<Polyline> clip_polyline(const Polyline& line, const Polygon& poly) {
  std::vector<Polyline> out;
  const Polyline pts = polyline_dedupe(line, 0.0);
  if (pts.size() < 2 || poly.outer.size() < 3) {
    return out;
  }
  std::vector<const Ring*> rings{&poly.outer};
  for (const Ring& hole : poly.holes) {
    rings.push_back(&hole);
  }
  const Aabb2 box = ring_bounds(poly.outer);

  Polyline piece;
  const auto close_piece = [&]() {
    if (piece.size() >= 2) {
      out.push_back(std::move(piece));
    }
    piece.clear();
  };
  std::vector<double> ts;
  for (std::size_t i = 0; i + 1 < pts.size(); ++i) {
    const Vec2 p = pts[i];
    const Vec2 q = pts[i + 1];
    // 1. Split points along this segment.
    ts.assign({0.0, 1.0});
    Aabb2 seg_box;
    seg_box.add(p);
    seg_box.add(q);
    if (seg_box.overlaps(box)) {
      for (const Ring* ring : rings) {
        for (std::size_t k = 0; k < ring->size(); ++k) {
          add_crossings(p, q, (*ring)[k], (*ring)[(k + 1) % ring->size()], ts);
        }
      }
    }
    std::sort(ts.begin(), ts.end());
    ts.erase(std::unique(ts.begin(), ts.end()), ts.end());
    // 2. Keep the pieces whose midpoints are inside, joining consecutive ones.
    for (std::size_t k = 0; k + 1 < ts.size(); ++k) {
      const Vec2 a = ts[k] == 0.0 ? p : lerp(p, q, ts[k]);
      const Vec2 b = ts[k + 1] == 1.0 ? q : lerp(p, q, ts[k + 1]);
      if (a == b) {
        continue;
      }
      if (!polygon_contains(poly, (a + b) * 0.5)) {
        close_piece();
        continue;
      }
      if (piece.empty() || piece.back() != a) {
        close_piece();
        piece.push_back(a);
      }
      piece.push_back(b);
    }
  }
  close_piece();
  return out;
}

}  // namespace cityforge
