// SPDX-License-Identifier: Apache-2.0
// Geometry helpers of the lots stage: oriented boxes (Freeman & Shapira 1975, rotating
// calipers), half-plane cuts, street-side flags and the largest inscribed box of a parcel
// (maximal rectangle over a scanline raster, then grown exactly to the boundary).
#include <algorithm>
#include <cmath>

#include "cityforge/core/polyline.hpp"
#include "lots/detail.hpp"

namespace cityforge::lots::detail {
namespace {

bool near_segments(const std::vector<std::pair<Vec2, Vec2>>& segs, Vec2 p, double tol) {
  for (const auto& [a, b] : segs) {
    if (segment_distance(a, b, p) <= tol) return true;
  }
  return false;
}

void add_ring_segments(const Ring& ring, std::vector<std::pair<Vec2, Vec2>>* out) {
  for (std::size_t i = 0; i < ring.size(); ++i)
    out->push_back({ring[i], ring[(i + 1) % ring.size()]});
}

// Whether the local box (shrunk by 1 mm) lies inside the polygon given in local coordinates.
bool box_inside(const Polygon& local, const LocalBox& b) {
  const double e = 1e-3;
  const Vec2 c[4] = {
      {b.x0 + e, b.y0 + e}, {b.x1 - e, b.y0 + e}, {b.x1 - e, b.y1 - e}, {b.x0 + e, b.y1 - e}};
  for (Vec2 p : c) {
    if (!polygon_contains(local, p)) return false;
  }
  auto ring_ok = [&](const Ring& ring) {
    for (std::size_t i = 0; i < ring.size(); ++i) {
      const Vec2 a = ring[i];
      const Vec2 bb = ring[(i + 1) % ring.size()];
      if (a.x > c[0].x && a.x < c[1].x && a.y > c[0].y && a.y < c[2].y) return false;
      for (int k = 0; k < 4; ++k) {
        Vec2 hit;
        if (segment_intersection(c[k], c[(k + 1) % 4], a, bb, &hit)) return false;
      }
    }
    return true;
  };
  if (!ring_ok(local.outer)) return false;
  for (const Ring& h : local.holes) {
    if (!ring_ok(h)) return false;
  }
  return true;
}

}  // namespace

OrientedBox oriented_box(const Ring& ring) {
  const Ring hull = convex_hull(ring);
  OrientedBox best;
  double best_area = INFINITY;
  for (std::size_t i = 0; i < hull.size(); ++i) {
    const Vec2 u = normalize(hull[(i + 1) % hull.size()] - hull[i]);
    if (length(u) == 0.0) continue;
    const Vec2 v = perp(u);
    double u0 = INFINITY, u1 = -INFINITY, v0 = INFINITY, v1 = -INFINITY;
    for (Vec2 p : hull) {
      u0 = std::min(u0, dot(p, u));
      u1 = std::max(u1, dot(p, u));
      v0 = std::min(v0, dot(p, v));
      v1 = std::max(v1, dot(p, v));
    }
    const double area = (u1 - u0) * (v1 - v0);
    if (area < best_area - 1e-9) {
      best_area = area;
      best.centre = u * ((u0 + u1) / 2) + v * ((v0 + v1) / 2);
      if (u1 - u0 >= v1 - v0) {
        best.axis = u;
        best.long_m = u1 - u0;
        best.short_m = v1 - v0;
      } else {
        best.axis = v;
        best.long_m = v1 - v0;
        best.short_m = u1 - u0;
      }
    }
  }
  return best;
}

Ring remove_degenerate(Ring ring, double eps_m) {
  return ring_remove_degenerate(std::move(ring), eps_m, 1e-4);
}

std::vector<Polygon> cut_half(const Polygon& poly, Vec2 at, Vec2 dir, bool left) {
  const Aabb2 bb = ring_bounds(poly.outer);
  const double big = 4.0 * (std::fabs(bb.max.x - bb.min.x) + std::fabs(bb.max.y - bb.min.y)) + 10;
  const Vec2 d = normalize(dir);
  const Vec2 n = left ? perp(d) : -perp(d);
  Polygon half;
  half.outer = {at - d * big, at + d * big, at + d * big + n * big, at - d * big + n * big};
  half = polygon_canonical(std::move(half));
  return polygon_intersection(poly, half);
}

StreetSide street_side(const layout::Output& city, const layout::Block& block,
                       const std::vector<Polygon>& keep_out, double tolerance_m) {
  StreetSide side;
  side.tolerance_m = tolerance_m;
  const Ring& ring = block.area.outer;
  for (std::size_t i = 0; i < ring.size(); ++i) {
    const Vec2 a = ring[i];
    const Vec2 b = ring[(i + 1) % ring.size()];
    const Vec2 m = (a + b) * 0.5;
    // Hand-made blocks without roads count as bounded by streets everywhere.
    bool faces_road = block.frontage.empty();
    for (layout::EdgeId id : block.frontage) {
      if (id >= city.network.edges.size()) continue;
      const layout::RoadEdge& e = city.network.edges[id];
      const double reach = e.width_m / 2 + e.sidewalk_width_m + 1.0 + tolerance_m;
      if (polyline_distance(e.points, m) <= reach) {
        faces_road = true;
        break;
      }
    }
    if (faces_road) side.street.push_back({a, b});
  }
  const Aabb2 bb = ring_bounds(ring);
  for (const Polygon& k : keep_out) {
    const Aabb2 kb = ring_bounds(k.outer);
    if (kb.min.x > bb.max.x + 1 || kb.max.x < bb.min.x - 1 || kb.min.y > bb.max.y + 1 ||
        kb.max.y < bb.min.y - 1) {
      continue;
    }
    add_ring_segments(k.outer, &side.keep_out);
    for (const Ring& h : k.holes)
      add_ring_segments(h, &side.keep_out);
  }
  return side;
}

std::vector<std::uint8_t> StreetSide::frontage(const Ring& ring) const {
  std::vector<std::uint8_t> flags(ring.size(), 0);
  for (std::size_t i = 0; i < ring.size(); ++i) {
    const Vec2 a = ring[i];
    const Vec2 b = ring[(i + 1) % ring.size()];
    const Vec2 m = (a + b) * 0.5;
    const bool on_street = near_segments(street, a, tolerance_m) &&
                           near_segments(street, b, tolerance_m) &&
                           near_segments(street, m, tolerance_m);
    flags[i] = on_street && !near_segments(keep_out, m, tolerance_m) ? 1 : 0;
  }
  return flags;
}

std::size_t main_edge(const Ring& ring, const std::vector<std::uint8_t>& frontage) {
  std::size_t best = 0;
  double best_len = -1.0;
  bool any = std::any_of(frontage.begin(), frontage.end(), [](std::uint8_t f) { return f != 0; });
  for (std::size_t i = 0; i < ring.size(); ++i) {
    if (any && frontage[i] == 0) continue;
    const double len = distance(ring[i], ring[(i + 1) % ring.size()]);
    if (len > best_len + 1e-9) {
      best_len = len;
      best = i;
    }
  }
  return best;
}

double outside_area(const Polygon& inner, const Polygon& outer) {
  double a = 0.0;
  for (const Polygon& p : polygon_difference(inner, {outer}))
    a += polygon_area(p);
  return a;
}

bool largest_box(const Polygon& poly, Vec2 origin, Vec2 u, LocalBox* out) {
  // 1. The polygon in the local frame.
  const Vec2 v = perp(u);
  auto to_local = [&](const Ring& r) {
    Ring l;
    l.reserve(r.size());
    for (Vec2 p : r)
      l.push_back({dot(p - origin, u), dot(p - origin, v)});
    return l;
  };
  Polygon local{to_local(poly.outer), {}};
  for (const Ring& h : poly.holes)
    local.holes.push_back(to_local(h));
  const Aabb2 bb = ring_bounds(local.outer);
  const double ext = std::max(bb.max.x - bb.min.x, bb.max.y - bb.min.y);
  if (!(ext > 0.0)) return false;
  const double cell = std::max(0.1, ext / 160.0);
  const int nx = static_cast<int>(std::ceil((bb.max.x - bb.min.x) / cell));
  const int ny = static_cast<int>(std::ceil((bb.max.y - bb.min.y) / cell));
  if (nx < 1 || ny < 1) return false;

  // 2. Corner grid: inside by scanline crossings per row; cells with all corners inside and no
  // polygon vertex within are free.
  std::vector<std::uint8_t> corner(static_cast<std::size_t>((nx + 1) * (ny + 1)), 0);
  std::vector<const Ring*> rings{&local.outer};
  for (const Ring& h : local.holes)
    rings.push_back(&h);
  std::vector<double> xs;
  for (int j = 0; j <= ny; ++j) {
    const double y = bb.min.y + j * cell;
    xs.clear();
    for (const Ring* r : rings) {
      for (std::size_t i = 0; i < r->size(); ++i) {
        const Vec2 a = (*r)[i];
        const Vec2 b = (*r)[(i + 1) % r->size()];
        if ((a.y <= y) != (b.y <= y)) xs.push_back(a.x + (y - a.y) / (b.y - a.y) * (b.x - a.x));
      }
    }
    std::sort(xs.begin(), xs.end());
    std::size_t k = 0;
    for (int i = 0; i <= nx; ++i) {
      const double x = bb.min.x + i * cell;
      while (k < xs.size() && xs[k] <= x)
        ++k;
      corner[static_cast<std::size_t>(j * (nx + 1) + i)] = (k % 2 == 1) ? 1 : 0;
    }
  }
  std::vector<std::uint8_t> free(static_cast<std::size_t>(nx * ny), 0);
  for (int j = 0; j < ny; ++j) {
    for (int i = 0; i < nx; ++i) {
      auto c = [&](int di, int dj) {
        return corner[static_cast<std::size_t>((j + dj) * (nx + 1) + i + di)] != 0;
      };
      free[static_cast<std::size_t>(j * nx + i)] = c(0, 0) && c(1, 0) && c(0, 1) && c(1, 1);
    }
  }
  for (const Ring* r : rings) {
    for (Vec2 p : *r) {
      const int i = static_cast<int>(std::floor((p.x - bb.min.x) / cell));
      const int j = static_cast<int>(std::floor((p.y - bb.min.y) / cell));
      for (int dj = -1; dj <= 1; ++dj) {
        for (int di = -1; di <= 1; ++di) {
          if (i + di >= 0 && i + di < nx && j + dj >= 0 && j + dj < ny)
            free[static_cast<std::size_t>((j + dj) * nx + i + di)] = 0;
        }
      }
    }
  }

  // 3. Maximal rectangle of free cells (histogram per row with a stack); ties keep the first.
  std::vector<int> height(static_cast<std::size_t>(nx), 0);
  int best_area = 0;
  LocalBox best;
  std::vector<int> stack;
  for (int j = 0; j < ny; ++j) {
    for (int i = 0; i < nx; ++i) {
      height[static_cast<std::size_t>(i)] =
          free[static_cast<std::size_t>(j * nx + i)] ? height[static_cast<std::size_t>(i)] + 1 : 0;
    }
    stack.clear();
    for (int i = 0; i <= nx; ++i) {
      const int hcur = i < nx ? height[static_cast<std::size_t>(i)] : 0;
      while (!stack.empty() && height[static_cast<std::size_t>(stack.back())] >= hcur) {
        const int hh = height[static_cast<std::size_t>(stack.back())];
        stack.pop_back();
        const int left = stack.empty() ? 0 : stack.back() + 1;
        const int area = hh * (i - left);
        if (area > best_area) {
          best_area = area;
          best = {bb.min.x + left * cell, bb.min.y + (j + 1 - hh) * cell, bb.min.x + i * cell,
                  bb.min.y + (j + 1) * cell};
        }
      }
      stack.push_back(i);
    }
  }
  if (best_area == 0 || !box_inside(local, best)) return false;

  // 4. Grow each side to the boundary (bisection), so boxes reach the parcel edges exactly.
  for (int side = 0; side < 4; ++side) {
    double lo = 0.0;
    double hi = 3.0 * cell + 0.01;
    for (int it = 0; it < 24; ++it) {
      const double mid = (lo + hi) / 2;
      LocalBox t = best;
      if (side == 0) t.x0 -= mid;
      if (side == 1) t.x1 += mid;
      if (side == 2) t.y0 -= mid;
      if (side == 3) t.y1 += mid;
      (box_inside(local, t) ? lo : hi) = mid;
    }
    if (side == 0) best.x0 -= lo;
    if (side == 1) best.x1 += lo;
    if (side == 2) best.y0 -= lo;
    if (side == 3) best.y1 += lo;
  }
  // The inside test allows 1 mm; pull every side 2 mm in so the box is strictly inside.
  best.x0 += 2e-3;
  best.y0 += 2e-3;
  best.x1 -= 2e-3;
  best.y1 -= 2e-3;
  if (best.w() <= 0.0 || best.h() <= 0.0) return false;
  *out = best;
  return true;
}

}  // namespace cityforge::lots::detail
