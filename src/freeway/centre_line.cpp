// SPDX-License-Identifier: Apache-2.0
// The deck centre line: the designer's polyline with every corner rounded by the largest
// circular arc whose tangent points stay within half of each neighbouring segment (the whole
// segment at the curve's ends), resampled evenly. A corner whose largest arc is tighter than
// the design speed allows is an error rather than a silent fix: the designer must move points.
// Based on: AASHTO, A Policy on Geometric Design of Highways and Streets, minimum radius
// R = v^2 / (127 (e + f)).
#include <algorithm>
#include <cmath>
#include <numbers>

#include "freeway/detail.hpp"

namespace cityforge::freeway {

double min_radius_m(double design_speed_kmh, const Config& config) {
  return design_speed_kmh * design_speed_kmh /
         (127.0 * (config.superelevation + config.side_friction));
}

namespace detail {
namespace {

std::string fixed1(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// A dense point of the rounded line with its parameter u: arc length along the input polyline.
struct DensePoint {
  Vec2 p;
  double u = 0;
};

}  // namespace

Result<CentreLine> build_centre_line(const FreewayCurve& curve, std::size_t index,
                                     const terrain::Heightfield& ground, const Config& config) {
  const std::string label = "freeway '" + curve.name + "'";
  // 1. Attributes and distinct points (keeping each point's input index for messages).
  if (curve.lanes_per_direction < 1 || curve.lanes_per_direction > 6) {
    return Error::invalid_input(where(index), label + " needs 1..6 lanes per direction, got " +
                                                  std::to_string(curve.lanes_per_direction));
  }
  if (!(curve.design_speed_kmh > 0.0 && curve.design_speed_kmh <= 200.0)) {
    return Error::invalid_input(
        where(index),
        label + " needs a design speed in (0, 200] km/h, got " + fixed1(curve.design_speed_kmh));
  }
  std::vector<Vec3> pts;
  std::vector<std::uint32_t> src;
  for (std::size_t j = 0; j < curve.points.size(); ++j) {
    const Vec3 q = curve.points[j];
    if (!std::isfinite(q.x) || !std::isfinite(q.y) || !std::isfinite(q.z)) {
      return Error::invalid_input(where(index, static_cast<std::int64_t>(j)),
                                  label + ": point is not finite");
    }
    if (!pts.empty() && distance(Vec2{q.x, q.y}, Vec2{pts.back().x, pts.back().y}) < 1e-6) continue;
    pts.push_back(q);
    src.push_back(static_cast<std::uint32_t>(j));
  }
  double total = 0;
  std::vector<double> u{0.0};
  for (std::size_t j = 1; j < pts.size(); ++j) {
    total += distance(Vec2{pts[j].x, pts[j].y}, Vec2{pts[j - 1].x, pts[j - 1].y});
    u.push_back(total);
  }
  if (pts.size() < 2 || total < 1.0) {
    return Error::invalid_input(
        where(index), label + " is a zero-length curve: it needs at least two distinct points " +
                          "1 m apart, got " + std::to_string(curve.points.size()) +
                          " points spanning " + fixed1(total) + " m");
  }
  // 2. Corners: the largest arc that fits must be at least the design radius.
  const double r_min = min_radius_m(curve.design_speed_kmh, config);
  std::vector<DensePoint> dense{{{pts[0].x, pts[0].y}, 0.0}};
  for (std::size_t j = 1; j + 1 < pts.size(); ++j) {
    const Vec2 a{pts[j - 1].x, pts[j - 1].y};
    const Vec2 v{pts[j].x, pts[j].y};
    const Vec2 b{pts[j + 1].x, pts[j + 1].y};
    const Vec2 din = normalize(v - a);
    const Vec2 dout = normalize(b - v);
    const double turn = std::atan2(std::fabs(cross(din, dout)), dot(din, dout));
    if (turn < 1e-9) continue;
    const double room_in = distance(a, v) * (j == 1 ? 1.0 : 0.5);
    const double room_out = distance(v, b) * (j + 2 == pts.size() ? 1.0 : 0.5);
    const double tan_half = std::tan(turn / 2.0);
    const double r_fit = tan_half > 1e12 ? 0.0 : std::min(room_in, room_out) / tan_half;
    if (r_fit < r_min) {
      return Error::invalid_input(
          where(index, src[j]),
          label + " turns " + fixed1(turn * 180.0 / std::numbers::pi) + " deg at (" + fixed1(v.x) +
              ", " + fixed1(v.y) + "): design speed " + fixed1(curve.design_speed_kmh) +
              " km/h needs a curve radius >= " + fixed1(r_min) +
              " m (R = v^2 / (127 (e + f))), but at most " + fixed1(r_fit) +
              " m fits between the neighbouring points; spread the points or lower the speed");
    }
    const double t = r_fit * tan_half;
    const double side = cross(din, dout) > 0.0 ? 1.0 : -1.0;
    const Vec2 t_in = v - din * t;
    const Vec2 centre = t_in + perp(din) * (side * r_fit);
    const int steps =
        std::max(2, static_cast<int>(std::ceil(turn * r_fit / config.sample_spacing_m)));
    for (int k = 0; k <= steps; ++k) {
      const double f = static_cast<double>(k) / steps;
      const Vec2 p = centre + rotate(t_in - centre, side * turn * f);
      dense.push_back({p, u[j] - t + 2.0 * t * f});
    }
  }
  dense.push_back({{pts.back().x, pts.back().y}, total});
  // 3. Resample evenly in arc length, carrying u; heights: ground at each input point plus its
  //    height above ground, linear in u between points.
  std::vector<double> arc{0.0};
  for (std::size_t k = 1; k < dense.size(); ++k)
    arc.push_back(arc.back() + distance(dense[k].p, dense[k - 1].p));
  const double length = arc.back();
  const int n = std::max(1, static_cast<int>(std::ceil(length / config.sample_spacing_m)));
  std::vector<double> z_src(pts.size());
  for (std::size_t j = 0; j < pts.size(); ++j)
    z_src[j] = ground.sample({pts[j].x, pts[j].y}) + pts[j].z;
  CentreLine out;
  out.half_width_m =
      config.median_m / 2.0 + curve.lanes_per_direction * config.lane_width_m + config.shoulder_m;
  std::size_t k = 0;
  for (int i = 0; i <= n; ++i) {
    const double s = length * i / n;
    while (k + 2 < arc.size() && arc[k + 1] < s)
      ++k;
    const double seg = arc[k + 1] - arc[k];
    const double f = seg > 0.0 ? std::clamp((s - arc[k]) / seg, 0.0, 1.0) : 0.0;
    const Vec2 p = i == n ? dense.back().p : lerp(dense[k].p, dense[k + 1].p, f);
    const double uu = dense[k].u + (dense[k + 1].u - dense[k].u) * f;
    const auto it = std::upper_bound(u.begin(), u.end(), uu);
    std::size_t j = it == u.begin() ? 0 : static_cast<std::size_t>(it - u.begin()) - 1;
    j = std::min(j, u.size() - 2);
    const double g = std::clamp((uu - u[j]) / (u[j + 1] - u[j]), 0.0, 1.0);
    out.line.xy.push_back(p);
    out.line.s.push_back(s);
    out.line.z.push_back(z_src[j] + (z_src[j + 1] - z_src[j]) * g);
    out.source_point.push_back(src[g < 0.5 ? j : j + 1]);
  }
  out.line.length_m = length;
  return out;
}

}  // namespace detail
}  // namespace cityforge::freeway
