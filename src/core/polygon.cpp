// SPDX-License-Identifier: Apache-2.0
// Ring and polygon measures, containment, canonical orientation and the simple-ring check.
// Based on: the shoelace formula; W. R. Franklin, PNPOLY point inclusion test, 1970s; and a
// sort-and-sweep over edge x-extents for the pairwise edge tests.
#include "cityforge/core/polygon.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <utility>

#include "cityforge/core/polygon_bands.hpp"

namespace cityforge {

double ring_signed_area(const Ring& ring) {
  if (ring.size() < 3) {
    return 0.0;
  }
  // Relative to the first point: coordinates kilometres from the origin lose no precision.
  const Vec2 o = ring.front();
  double twice = 0.0;
  for (std::size_t i = 1; i + 1 < ring.size(); ++i) {
    twice += cross(ring[i] - o, ring[i + 1] - o);
  }
  return 0.5 * twice;
}

double polygon_area(const Polygon& poly) {
  double area = std::fabs(ring_signed_area(poly.outer));
  for (const Ring& hole : poly.holes) {
    area -= std::fabs(ring_signed_area(hole));
  }
  return area;
}

double polygon_perimeter(const Polygon& poly) {
  const auto ring_perimeter = [](const Ring& ring) {
    double total = 0.0;
    for (std::size_t i = 0; i < ring.size(); ++i) {
      total += distance(ring[i], ring[(i + 1) % ring.size()]);
    }
    return total;
  };
  double total = ring_perimeter(poly.outer);
  for (const Ring& hole : poly.holes) {
    total += ring_perimeter(hole);
  }
  return total;
}

Vec2 ring_centroid(const Ring& ring) {
  if (ring.empty()) {
    return {};
  }
  const Vec2 o = ring.front();
  double twice = 0.0;
  Vec2 acc;
  for (std::size_t i = 1; i + 1 < ring.size(); ++i) {
    const Vec2 p = ring[i] - o;
    const Vec2 q = ring[i + 1] - o;
    const double w = cross(p, q);
    twice += w;
    acc += (p + q) * w;
  }
  if (twice == 0.0) {
    // Degenerate ring: the mean of its points is the best we can say.
    Vec2 mean;
    for (const Vec2& p : ring) {
      mean += p - o;
    }
    return o + mean / static_cast<double>(ring.size());
  }
  return o + acc / (3.0 * twice);
}

Aabb2 ring_bounds(const Ring& ring) {
  Aabb2 box;
  for (const Vec2& p : ring) {
    box.add(p);
  }
  return box;
}

namespace {

/// The even-odd test's step: whether the edge from b to a crosses the horizontal ray from p to
/// +x (ring_contains and PolygonBands share it, so they agree bit for bit).
inline bool ray_crosses(Vec2 a, Vec2 b, Vec2 p) {
  if ((a.y > p.y) != (b.y > p.y)) {
    const double x = a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y);
    return p.x < x;
  }
  return false;
}

}  // namespace

bool ring_contains(const Ring& ring, Vec2 p) {
  bool inside = false;
  const std::size_t n = ring.size();
  for (std::size_t i = 0, j = n - 1; i < n; j = i++) {
    if (ray_crosses(ring[i], ring[j], p)) {
      inside = !inside;
    }
  }
  return inside;
}

bool polygon_contains(const Polygon& poly, Vec2 p) {
  if (!ring_contains(poly.outer, p)) {
    return false;
  }
  return std::none_of(poly.holes.begin(), poly.holes.end(),
                      [p](const Ring& hole) { return ring_contains(hole, p); });
}

PolygonBands::PolygonBands(Polygon poly) : m_poly(std::move(poly)) {
  m_rings.reserve(1 + m_poly.holes.size());
  m_rings.push_back(make_bands(m_poly.outer));
  for (const Ring& h : m_poly.holes) {
    m_rings.push_back(make_bands(h));
  }
}

PolygonBands::Bands PolygonBands::make_bands(const Ring& ring) {
  constexpr std::size_t kPlainEdges = 16;     // Fewer: a scan is as quick as the bands.
  constexpr std::size_t kMaxBands = 4096;     // Bands of a ring, at most.
  constexpr std::size_t kEntriesPerEdge = 8;  // Fewer bands while the entries exceed this.
  Bands b;
  const std::size_t n = ring.size();
  if (n == 0 || n > 0xffffffffU) return b;
  for (const Vec2& p : ring) {
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) return b;
  }
  const Aabb2 box = ring_bounds(ring);
  b.ranged = true;
  b.y_min = box.min.y;
  b.y_max = box.max.y;
  b.x_min = box.min.x;
  b.x_max = box.max.x;
  if (n < kPlainEdges || !(box.max.y > box.min.y)) return b;
  b.plain = false;
  auto entries = [&](std::uint32_t count) {
    b.count = count;
    b.inv_height = static_cast<double>(count) / (b.y_max - b.y_min);
    std::size_t total = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const Vec2 p = ring[i];
      const Vec2 q = ring[i + 1 == n ? 0 : i + 1];
      total += b.band(std::fmax(p.y, q.y)) - b.band(std::fmin(p.y, q.y)) + 1;
    }
    return total;
  };
  auto count = static_cast<std::uint32_t>(std::min(kMaxBands, std::max<std::size_t>(1, n / 2)));
  std::size_t total = entries(count);
  while (count > 1 && total > kEntriesPerEdge * n) {
    count /= 2;
    total = entries(count);
  }
  // Counting sort of the (band, edge) entries by band, edges ascending within a band.
  b.begin.assign(count + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const Vec2 p = ring[i];
    const Vec2 q = ring[i + 1 == n ? 0 : i + 1];
    for (std::uint32_t k = b.band(std::fmin(p.y, q.y)); k <= b.band(std::fmax(p.y, q.y)); ++k) {
      ++b.begin[k + 1];
    }
  }
  std::partial_sum(b.begin.begin(), b.begin.end(), b.begin.begin());
  b.edges.resize(total);
  b.first.resize(total);
  std::vector<std::uint32_t> at(b.begin.begin(), b.begin.end() - 1);
  for (std::size_t i = 0; i < n; ++i) {
    const Vec2 p = ring[i];
    const Vec2 q = ring[i + 1 == n ? 0 : i + 1];
    const std::uint32_t k0 = b.band(std::fmin(p.y, q.y));
    for (std::uint32_t k = k0; k <= b.band(std::fmax(p.y, q.y)); ++k) {
      b.edges[at[k]] = static_cast<std::uint32_t>(i);
      b.first[at[k]] = k0;
      ++at[k];
    }
  }
  return b;
}

bool PolygonBands::ring_has(const Bands& b, const Ring& ring, Vec2 p) {
  // Outside [y_min, y_max) no edge has one end above p.y and the other not (NaN included).
  if (b.ranged && !(p.y >= b.y_min && p.y < b.y_max)) return false;
  if (b.plain) return ring_contains(ring, p);
  const std::uint32_t k = b.band(p.y);
  const std::size_t n = ring.size();
  bool inside = false;
  for (std::uint32_t e = b.begin[k]; e < b.begin[k + 1]; ++e) {
    // Edge i joins points i and i + 1; ring_contains visits it as (a, b) = (i + 1, i).
    const std::uint32_t i = b.edges[e];
    if (ray_crosses(ring[i + 1 == n ? 0 : i + 1], ring[i], p)) {
      inside = !inside;
    }
  }
  return inside;
}

bool PolygonBands::contains(Vec2 p) const {
  if (!ring_has(m_rings[0], m_poly.outer, p)) return false;
  for (std::size_t h = 0; h < m_poly.holes.size(); ++h) {
    if (ring_has(m_rings[h + 1], m_poly.holes[h], p)) return false;
  }
  return true;
}

namespace {

/// Removes consecutive duplicates, including the closing duplicate of first and last.
Ring dedupe_ring(const Ring& ring) {
  Ring out = polyline_dedupe(ring, 0.0);
  while (out.size() > 1 && out.back() == out.front()) {
    out.pop_back();
  }
  return out;
}

}  // namespace

Polygon polygon_canonical(Polygon poly) {
  poly.outer = dedupe_ring(poly.outer);
  if (ring_signed_area(poly.outer) < 0.0) {
    std::reverse(poly.outer.begin(), poly.outer.end());
  }
  std::vector<Ring> holes;
  holes.reserve(poly.holes.size());
  for (Ring& hole : poly.holes) {
    Ring h = dedupe_ring(hole);
    if (h.size() < 3) {
      continue;
    }
    if (ring_signed_area(h) > 0.0) {
      std::reverse(h.begin(), h.end());
    }
    holes.push_back(std::move(h));
  }
  poly.holes = std::move(holes);
  return poly;
}

namespace {

struct RingEdge {
  std::size_t index = 0;  // Index of the edge in the input ring.
  Vec2 a;
  Vec2 b;
};

bool less_defect(const RingDefect& x, const RingDefect& y) {
  return x.edge_a != y.edge_a ? x.edge_a < y.edge_a : x.edge_b < y.edge_b;
}

/// Whether consecutive edges e0 (ending at the shared point) and e1 (starting there) fold back
/// onto each other: collinear and pointing in opposite directions.
bool folds_back(const RingEdge& e0, const RingEdge& e1) {
  const Vec2 d0 = e0.b - e0.a;
  const Vec2 d1 = e1.b - e1.a;
  const double scale = length(d0) * length(d1);
  return std::fabs(cross(d0, d1)) <= 1e-12 * scale && dot(d0, d1) < 0.0;
}

}  // namespace

Ring convex_hull(std::vector<Vec2> pts) {
  std::sort(pts.begin(), pts.end(),
            [](Vec2 a, Vec2 b) { return a.x != b.x ? a.x < b.x : a.y < b.y; });
  if (pts.size() < 3) return pts;
  Ring hull(2 * pts.size());
  std::size_t k = 0;
  for (std::size_t i = 0; i < pts.size(); ++i) {  // lower chain
    while (k >= 2 && cross(hull[k - 1] - hull[k - 2], pts[i] - hull[k - 2]) <= 0)
      --k;
    hull[k++] = pts[i];
  }
  for (std::size_t i = pts.size() - 1, t = k + 1; i-- > 0;) {  // upper chain
    while (k >= t && cross(hull[k - 1] - hull[k - 2], pts[i] - hull[k - 2]) <= 0)
      --k;
    hull[k++] = pts[i];
  }
  hull.resize(k - 1);
  return hull;
}

Aabb2 ring_bounds_rotated(const Ring& ring, double angle_rad) {
  const double c = std::cos(angle_rad);
  const double s = std::sin(angle_rad);
  Aabb2 box;
  for (const Vec2 p : ring)
    box.add({p.x * c + p.y * s, -p.x * s + p.y * c});
  return box;
}

Ring ring_remove_degenerate(Ring ring, double eps_m, double collinear_m) {
  bool changed = true;
  while (changed && ring.size() >= 3) {
    changed = false;
    for (std::size_t i = 0; i < ring.size() && ring.size() >= 3; ++i) {
      const Vec2 a = ring[(i + ring.size() - 1) % ring.size()];
      const Vec2 b = ring[i];
      const Vec2 c = ring[(i + 1) % ring.size()];
      const double base = distance(a, c);
      const bool spike = base < eps_m;
      const bool repeat = distance(a, b) < eps_m;
      const bool collinear = base > 1e-9 && std::fabs(cross(c - a, b - a)) / base < collinear_m;
      if (spike || repeat || collinear) {
        ring.erase(ring.begin() + static_cast<std::ptrdiff_t>(i));
        changed = true;
      }
    }
  }
  return ring;
}

std::vector<RingDefect> ring_self_intersections(const Ring& ring) {
  const Vec2 first = ring.empty() ? Vec2{} : ring.front();

  // 1. At least three distinct points.
  std::vector<Vec2> distinct = ring;
  std::sort(distinct.begin(), distinct.end(),
            [](Vec2 p, Vec2 q) { return p.x != q.x ? p.x < q.x : p.y < q.y; });
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  if (distinct.size() < 3) {
    return {RingDefect{0, 0, first}};
  }

  // 2. Edges of non-zero length; zero-length edges (repeated points) are skipped, so their
  // neighbours count as adjacent.
  const std::size_t n = ring.size();
  std::vector<RingEdge> edges;
  for (std::size_t i = 0; i < n; ++i) {
    const Vec2 a = ring[i];
    const Vec2 b = ring[(i + 1) % n];
    if (a != b) {
      edges.push_back({i, a, b});
    }
  }
  const std::size_t m = edges.size();
  std::vector<RingDefect> found;

  // 3. Adjacent edges may only share their common point: a fold back overlaps them.
  for (std::size_t k = 0; k < m; ++k) {
    const RingEdge& e0 = edges[k];
    const RingEdge& e1 = edges[(k + 1) % m];
    if (folds_back(e0, e1)) {
      found.push_back({std::min(e0.index, e1.index), std::max(e0.index, e1.index), e0.b});
    }
  }

  // 4. Non-adjacent edges must not touch: sweep over x so only overlapping x-extents meet.
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), std::size_t{0});
  const auto min_x = [&](std::size_t k) { return std::min(edges[k].a.x, edges[k].b.x); };
  const auto max_x = [&](std::size_t k) { return std::max(edges[k].a.x, edges[k].b.x); };
  std::sort(order.begin(), order.end(), [&](std::size_t p, std::size_t q) {
    return min_x(p) != min_x(q) ? min_x(p) < min_x(q) : p < q;
  });
  for (std::size_t oi = 0; oi < m; ++oi) {
    const std::size_t p = order[oi];
    for (std::size_t oj = oi + 1; oj < m && min_x(order[oj]) <= max_x(p); ++oj) {
      const std::size_t q = order[oj];
      const std::size_t lo = std::min(p, q);
      const std::size_t hi = std::max(p, q);
      if (hi == lo + 1 || (lo == 0 && hi == m - 1)) {
        continue;  // Adjacent (handled in step 3).
      }
      Vec2 at;
      if (segment_intersection(edges[lo].a, edges[lo].b, edges[hi].a, edges[hi].b, &at)) {
        found.push_back({edges[lo].index, edges[hi].index, at});
      }
    }
  }

  // 5. Zero area with no crossing found (nearly collinear points): report the first edges.
  if (found.empty()) {
    const Aabb2 box = ring_bounds(ring);
    const double diag2 = dot(box.size(), box.size());
    if (std::fabs(ring_signed_area(ring)) <= 1e-12 * diag2) {
      found.push_back({edges[0].index, edges[1].index, edges[0].b});
    }
  }
  if (found.empty()) {
    return {};
  }
  return {*std::min_element(found.begin(), found.end(), less_defect)};
}

}  // namespace cityforge
