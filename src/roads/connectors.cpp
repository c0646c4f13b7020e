// SPDX-License-Identifier: Apache-2.0
// Connector curves inside junctions: cubic Bezier curves whose control points lie on the end
// tangents, so a connector is continuous in position and tangent with the lanes it joins.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "cityforge/core/polyline.hpp"
#include "roads/detail/lanes.hpp"

namespace cityforge::roads {
namespace {

using detail::plan_xy;

Vec2 bezier_at(Vec2 p0, Vec2 p1, Vec2 p2, Vec2 p3, double t) {
  const double u = 1.0 - t;
  return p0 * (u * u * u) + p1 * (3.0 * u * u * t) + p2 * (3.0 * u * t * t) + p3 * (t * t * t);
}

}  // namespace

std::vector<Vec3> bezier_connector(Vec3 p0, Vec2 t0, Vec3 p3, Vec2 t3, double handle_m,
                                   double spacing_m) {
  const Vec2 a = plan_xy(p0);
  const Vec2 d = plan_xy(p3);
  const Vec2 b = a + t0 * handle_m;
  const Vec2 c = d - t3 * handle_m;
  // 1. Dense table of the curve with cumulative arc length.
  constexpr int kDense = 512;
  std::vector<Vec2> dense(kDense + 1);
  std::vector<double> arc(kDense + 1, 0.0);
  for (int i = 0; i <= kDense; ++i) {
    dense[i] = bezier_at(a, b, c, d, static_cast<double>(i) / kDense);
    if (i > 0) arc[i] = arc[i - 1] + distance(dense[i], dense[i - 1]);
  }
  const double total = arc.back();
  // 2. Arc-length stations, evenly spaced.
  std::vector<double> stations;
  const int n = std::max(2, static_cast<int>(std::ceil(total / spacing_m)));
  for (int i = 0; i <= n; ++i)
    stations.push_back(total * i / n);
  // 3. Interpolate positions; exact end points; z linear in arc length.
  std::vector<Vec3> out;
  out.reserve(stations.size() + 2);
  std::size_t k = 0;
  auto z_at = [&](double s) { return p0.z + (p3.z - p0.z) * (total > 0.0 ? s / total : 0.0); };
  for (std::size_t i = 0; i < stations.size(); ++i) {
    const double s = stations[i];
    Vec2 p;
    if (i == 0) {
      p = a;
    } else if (i + 1 == stations.size()) {
      p = d;
    } else {
      while (k + 1 < arc.size() && arc[k + 1] < s)
        ++k;
      const double seg = arc[k + 1] - arc[k];
      const double f = seg > 0.0 ? (s - arc[k]) / seg : 0.0;
      p = lerp(dense[k], dense[k + 1], f);
    }
    out.push_back({p.x, p.y, z_at(s)});
  }
  // 4. One sample close to each end, close enough that the end chords follow the tangents
  // within 0.25 degrees however tight the curve (the lanes they join continue straight there).
  const double max_sin = std::sin(0.25 * std::numbers::pi / 180.0);
  auto near_end = [&](bool at_start) {
    const Vec2 origin = at_start ? a : d;
    const Vec2 tangent = at_start ? t0 : -t3;
    double t = 1.0 / (4.0 * kDense);
    Vec2 p = origin;
    for (int it = 0; it < 40; ++it, t *= 0.5) {
      p = bezier_at(a, b, c, d, at_start ? t : 1.0 - t);
      const Vec2 chord = normalize(p - origin);
      if (std::abs(cross(chord, tangent)) < max_sin && dot(chord, tangent) > 0.0) break;
    }
    return Vec3{p.x, p.y, at_start ? p0.z : p3.z};
  };
  out.insert(out.begin() + 1, near_end(true));
  out.insert(out.end() - 1, near_end(false));
  return out;
}

double polyline3_length(const std::vector<Vec3>& points) {
  double total = 0.0;
  for (std::size_t i = 1; i < points.size(); ++i)
    total += length(points[i] - points[i - 1]);
  return total;
}

bool detail::lanes_cross(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
  if (a.size() < 2 || b.size() < 2) return false;
  constexpr double kShared = 0.05;
  const bool same_start = distance(plan_xy(a.front()), plan_xy(b.front())) < kShared;
  const bool same_end = distance(plan_xy(a.back()), plan_xy(b.back())) < kShared;
  for (std::size_t i = 1; i < a.size(); ++i) {
    for (std::size_t j = 1; j < b.size(); ++j) {
      Vec2 hit;
      if (!segment_intersection(plan_xy(a[i - 1]), plan_xy(a[i]), plan_xy(b[j - 1]), plan_xy(b[j]),
                                &hit))
        continue;
      if (same_start && distance(hit, plan_xy(a.front())) < kShared) continue;
      if (same_end && distance(hit, plan_xy(a.back())) < kShared) continue;
      return true;
    }
  }
  return false;
}

}  // namespace cityforge::roads
