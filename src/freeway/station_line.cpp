// SPDX-License-Identifier: Apache-2.0
// Stations along the deck: interpolation, cutting and offsetting lines that share the centre
// line's stations, so lanes cut at the same station meet exactly.
#include <algorithm>

#include "cityforge/core/polyline.hpp"
#include "freeway/detail.hpp"

namespace cityforge::freeway::detail {
namespace {

// Index k of the segment [k, k + 1] holding station s, and the fraction along it.
std::pair<std::size_t, double> locate(const StationLine& l, double s) {
  const std::size_t n = l.s.size();
  if (n < 2) return {0, 0.0};
  const auto it = std::upper_bound(l.s.begin(), l.s.end(), s);
  std::size_t k = it == l.s.begin() ? 0 : static_cast<std::size_t>(it - l.s.begin()) - 1;
  k = std::min(k, n - 2);
  const double seg = l.s[k + 1] - l.s[k];
  const double f = seg > 0.0 ? std::clamp((s - l.s[k]) / seg, 0.0, 1.0) : 0.0;
  return {k, f};
}

}  // namespace

std::string where(std::size_t curve, std::int64_t point) {
  std::string w = "freeways[" + std::to_string(curve) + "]";
  if (point >= 0) w += ".points[" + std::to_string(point) + "]";
  return w;
}

Vec3 point_at(const StationLine& l, double s) {
  const auto [k, f] = locate(l, s);
  const Vec2 p = lerp(l.xy[k], l.xy[k + 1], f);
  return {p.x, p.y, l.z[k] + (l.z[k + 1] - l.z[k]) * f};
}

Vec2 tangent_at(const StationLine& l, double s) {
  const auto [k, f] = locate(l, s);
  (void)f;
  return normalize(l.xy[k + 1] - l.xy[k]);
}

std::vector<Vec3> cut(const StationLine& l, double a, double b) {
  std::vector<Vec3> out{point_at(l, a)};
  for (std::size_t i = 0; i < l.s.size(); ++i) {
    // Interior points more than 1 mm from the cut ends keep the segments well formed.
    if (l.s[i] > a + 1e-3 && l.s[i] < b - 1e-3) out.push_back({l.xy[i].x, l.xy[i].y, l.z[i]});
  }
  out.push_back(point_at(l, b));
  return out;
}

StationLine lane_line(const StationLine& centre, double offset_m, bool forward) {
  StationLine out;
  out.xy = polyline_offset(centre.xy, forward ? -offset_m : offset_m);
  out.s = centre.s;
  out.z = centre.z;
  out.length_m = centre.length_m;
  if (!forward) {
    std::reverse(out.xy.begin(), out.xy.end());
    std::reverse(out.z.begin(), out.z.end());
    std::reverse(out.s.begin(), out.s.end());
    for (double& s : out.s)
      s = centre.length_m - s;
  }
  return out;
}

}  // namespace cityforge::freeway::detail
