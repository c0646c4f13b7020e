// SPDX-License-Identifier: Apache-2.0
// Corner types by walking each floor ring (seeds/000, 27:36-27:57): split corners within the
// collinear tolerance (a corner cap wins over a split module), convex and concave otherwise.

#include <algorithm>
#include <cmath>
#include <numbers>

#include "buildings/detail/gen_internal.hpp"

namespace cityforge::buildings::detail {

std::vector<CornerKind> classify_corners(const Ring& ring, double tol_deg) {
  const std::size_t n = ring.size();
  std::vector<CornerKind> kinds(n, CornerKind::convex);
  const double cos_tol = std::cos(tol_deg * std::numbers::pi / 180.0);
  for (std::size_t i = 0; i < n; ++i) {
    const Vec2 in = normalize(ring[i] - ring[(i + n - 1) % n]);
    const Vec2 out = normalize(ring[(i + 1) % n] - ring[i]);
    if (dot(in, out) >= cos_tol) {
      kinds[i] = CornerKind::split;
    } else {
      // The solid lies left of the walking direction: a left turn wraps around it.
      kinds[i] = cross(in, out) > 0.0 ? CornerKind::convex : CornerKind::concave;
    }
  }
  return kinds;
}

RingCorners ring_corners(const Ring& ring, const Style& style) {
  const std::size_t n = ring.size();
  RingCorners rc;
  rc.kind = classify_corners(ring, style.collinear_tolerance_deg);
  rc.module.assign(n, -1);
  rc.start_m.assign(n, 0.0);
  rc.end_m.assign(n, 0.0);
  std::vector<double> before(n, 0.0);  // Consumed at the end of the incoming edge.
  std::vector<double> after(n, 0.0);   // Consumed at the start of the outgoing edge.
  for (std::size_t i = 0; i < n; ++i) {
    std::int32_t m = -1;
    bool half = false;
    switch (rc.kind[i]) {
      case CornerKind::convex:
        m = style.corner_convex;
        break;
      case CornerKind::concave:
        m = style.corner_concave;
        break;
      case CornerKind::split:
        m = style.corner_cap >= 0 ? style.corner_cap : style.corner_split;
        half = true;
        break;
    }
    if (m < 0 || static_cast<std::size_t>(m) >= style.modules.size()) {
      continue;
    }
    rc.module[i] = m;
    const double w = style.modules[static_cast<std::size_t>(m)].width_m;
    before[i] = half ? w * 0.5 : w;
    after[i] = half ? w * 0.5 : w;
  }
  for (std::size_t e = 0; e < n; ++e) {
    const std::size_t j = (e + 1) % n;
    const double len = distance(ring[e], ring[j]);
    double s = after[e];
    double t = before[j];
    if (s + t > len && s + t > 0.0) {
      const double k = len / (s + t);
      s *= k;
      t *= k;
    }
    rc.start_m[e] = s;
    rc.end_m[e] = t;
  }
  return rc;
}

}  // namespace cityforge::buildings::detail
