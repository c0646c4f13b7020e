// SPDX-License-Identifier: Apache-2.0
// Many containment and edge queries against one polygon.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "cityforge/core/polygon.hpp"

namespace cityforge {

/// One polygon asked many times: its rings' edges bucketed by horizontal bands, so a query
/// visits the edges near it instead of all of them (a sidewalk or a leftover zone has hundreds).
/// `contains` gives polygon_contains's answer bit for bit: an edge can cross a point's
/// horizontal line only if its y range holds the line, so it lies in the line's band, and the
/// same crossing test runs on it with the same operands (the parity does not depend on order).
/// Keeps a copy of the polygon.
class PolygonBands {
 public:
  explicit PolygonBands(Polygon poly);

  const Polygon& polygon() const { return m_poly; }
  /// polygon_contains(polygon(), p).
  bool contains(Vec2 p) const;
  /// Calls f(ring, i) for edge i of ring `ring` (0 the outer ring, h + 1 hole h; edge i goes
  /// from point i to point i + 1, wrapping), once each, for every edge whose bounds overlap
  /// `box` and maybe a few more; stops and returns true as soon as f does.
  template <class F>
  bool any_edge(const Aabb2& box, F&& f) const {
    for (std::size_t r = 0; r < m_rings.size(); ++r) {
      const Bands& b = m_rings[r];
      const Ring& ring = r == 0 ? m_poly.outer : m_poly.holes[r - 1];
      if (b.ranged && (box.max.y < b.y_min || box.min.y > b.y_max || box.max.x < b.x_min ||
                       box.min.x > b.x_max)) {
        continue;
      }
      if (b.plain) {
        for (std::size_t i = 0; i < ring.size(); ++i) {
          if (f(r, i)) return true;
        }
        continue;
      }
      const std::uint32_t k0 = b.band(box.min.y);
      const std::uint32_t k1 = b.band(box.max.y);
      for (std::uint32_t k = k0; k <= k1; ++k) {
        for (std::uint32_t e = b.begin[k]; e < b.begin[k + 1]; ++e) {
          // An edge in several bands is visited in the first of them the box covers.
          if (std::max(b.first[e], k0) != k) continue;
          const std::size_t i = b.edges[e];
          const Vec2 p = ring[i];
          const Vec2 q = ring[i + 1 == ring.size() ? 0 : i + 1];
          if (std::fmax(p.x, q.x) < box.min.x || std::fmin(p.x, q.x) > box.max.x ||
              std::fmax(p.y, q.y) < box.min.y || std::fmin(p.y, q.y) > box.max.y) {
            continue;
          }
          if (f(r, i)) return true;
        }
      }
    }
    return false;
  }

 private:
  struct Bands {
    bool plain = true;    ///< Few edges or a non-finite point: scanned whole, as ring_contains.
    bool ranged = false;  ///< y_min..y_max hold the ring's y range (every point finite).
    double y_min = 0, y_max = 0, x_min = 0, x_max = 0;
    double inv_height = 0;  ///< Bands per metre.
    std::uint32_t count = 1;
    std::vector<std::uint32_t> begin;  ///< count + 1 offsets into edges.
    std::vector<std::uint32_t> edges;  ///< Edge indices per band.
    std::vector<std::uint32_t> first;  ///< Per entry: the first band its edge lies in.
    /// The band of a y (monotone in y, clamped to the bands).
    std::uint32_t band(double y) const {
      const double t = (y - y_min) * inv_height;
      if (!(t > 0)) return 0;
      if (t >= static_cast<double>(count)) return count - 1;
      return static_cast<std::uint32_t>(t);
    }
  };
  static Bands make_bands(const Ring& ring);
  static bool ring_has(const Bands& b, const Ring& ring, Vec2 p);

  Polygon m_poly;
  std::vector<Bands> m_rings;  ///< Outer ring, then the holes.
};

}  // namespace cityforge
