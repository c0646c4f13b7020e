// SPDX-License-Identifier: Apache-2.0
#include "cityforge/core/fillet.hpp"

#include <algorithm>
#include <cmath>

namespace cityforge {

namespace {

/// Samples of the arc of `f` from arc length u0 to u1 (both included), fine enough that chords
/// at radius 1 / |curvature| + reach_m depart from the arc by at most kFilletChordErrorM.
void sample_arc(const CornerFillet& f, double u0, double u1, double reach_m, Polyline& out) {
  const double rho = 1.0 / std::abs(f.curvature);
  const double step = 2.0 * std::acos(1.0 - kFilletChordErrorM / (rho + std::max(0.0, reach_m)));
  const double angle = std::abs(f.curvature) * (u1 - u0);
  const int n = std::max(1, static_cast<int>(std::ceil(angle / step)));
  for (int i = 0; i <= n; ++i)
    out.push_back(fillet_point(f, u0 + (u1 - u0) * i / n));
}

}  // namespace

Polyline polyline_corners(const Polyline& input) {
  const Polyline line = polyline_dedupe(input, 1e-6);
  if (line.size() < 2) return line;
  Polyline corners{line[0]};
  std::size_t i = 0;
  while (i + 1 < line.size()) {
    std::size_t j = i + 1;
    while (j + 1 < line.size()) {
      bool ok = dot(line[j + 1] - line[j], line[j] - line[i]) > 0.0;
      for (std::size_t k = i + 1; ok && k <= j; ++k)
        ok = segment_distance(line[i], line[j + 1], line[k]) <= 1e-3;
      if (!ok) break;
      ++j;
    }
    corners.push_back(line[j]);
    i = j;
  }
  return corners;
}

CornerFillet corner_fillet(Vec2 before, Vec2 node, Vec2 after, double r) {
  if (!(r > 0.0)) return {};
  const Vec2 u0 = normalize(node - before);
  const Vec2 u1 = normalize(after - node);
  const double turn = std::atan2(cross(u0, u1), dot(u0, u1));
  const double room = 0.5 * std::min(distance(node, before), distance(after, node));
  return fillet_with_tangent(before, node, after,
                             std::min(r * std::tan(0.5 * std::abs(turn)), room));
}

CornerFillet fillet_with_tangent(Vec2 before, Vec2 node, Vec2 after, double tangent_m) {
  CornerFillet f;
  const Vec2 u0 = normalize(node - before);
  const Vec2 u1 = normalize(after - node);
  const double turn = std::atan2(cross(u0, u1), dot(u0, u1));
  const double half_tan = std::tan(0.5 * std::abs(turn));
  if (std::abs(turn) < 1e-6 || !(tangent_m > 1e-6)) return f;
  const double radius = tangent_m / half_tan;
  f.a = node - u0 * tangent_m;
  f.b = node + u1 * tangent_m;
  f.hdg_a = std::atan2(u0.y, u0.x);
  f.curvature = (turn > 0.0 ? 1.0 : -1.0) / radius;
  f.half_length = 0.5 * radius * std::abs(turn);
  f.hdg_m = f.hdg_a + f.curvature * f.half_length;
  f.m = fillet_point(f, f.half_length);
  f.ok = true;
  return f;
}

namespace {

/// Tangent length a corner turning before -> node -> after needs for radius r.
double demand(Vec2 before, Vec2 node, Vec2 after, double r) {
  const Vec2 u0 = normalize(node - before);
  const Vec2 u1 = normalize(after - node);
  const double turn = std::atan2(cross(u0, u1), dot(u0, u1));
  return std::abs(turn) < 1e-6 ? 0.0 : r * std::tan(0.5 * std::abs(turn));
}

double tangent_of(const CornerFillet& f, Vec2 node) { return f.ok ? distance(f.a, node) : 0.0; }

}  // namespace

std::vector<CornerFillet> line_fillets(const Polyline& c, double radius_m, const CornerJoin& start,
                                       const CornerJoin& end) {
  const std::size_t n = c.size();
  std::vector<CornerFillet> out(n);
  if (n < 2) return out;
  if (start.present) out[0] = corner_fillet(start.other, start.node, c[1], start.radius_m);
  if (end.present) out[n - 1] = corner_fillet(c[n - 2], end.node, end.other, end.radius_m);
  std::vector<double> need(n, 0.0);
  need[0] = tangent_of(out[0], c[0]);
  need[n - 1] = tangent_of(out[n - 1], c[n - 1]);
  if (radius_m > 0.0)
    for (std::size_t i = 1; i + 1 < n; ++i)
      need[i] = demand(c[i - 1], c[i], c[i + 1], radius_m);
  // What corner j claims of the line of length len it shares with a neighbour.
  const auto claim = [&](std::size_t j, double len) {
    return (j == 0 || j + 1 == n) ? need[j] : std::min(need[j], 0.5 * len);
  };
  for (std::size_t i = 1; i + 1 < n; ++i) {
    if (need[i] <= 0.0) continue;
    const double left = distance(c[i - 1], c[i]);
    const double right = distance(c[i], c[i + 1]);
    const double t = std::min({need[i], left - claim(i - 1, left), right - claim(i + 1, right)});
    out[i] = fillet_with_tangent(c[i - 1], c[i], c[i + 1], t);
  }
  return out;
}

Polyline corners_for_rounding(const Polyline& corners, double radius_m, double reach_m,
                              double max_shift_m) {
  Polyline c = corners;
  while (c.size() > 2) {
    const std::vector<CornerFillet> f = line_fillets(c, radius_m);
    std::size_t best = 0;
    double best_shift = max_shift_m;
    for (std::size_t i = 1; i + 1 < c.size(); ++i) {
      if (demand(c[i - 1], c[i], c[i + 1], radius_m) <= 0.0) continue;
      if (f[i].ok && 1.0 / std::abs(f[i].curvature) >= reach_m) continue;
      const double shift = segment_distance(c[i - 1], c[i + 1], c[i]);
      if (shift <= best_shift) {
        best = i;
        best_shift = shift;
        if (shift == 0.0) break;
      }
    }
    if (best == 0) break;
    c.erase(c.begin() + static_cast<std::ptrdiff_t>(best));
  }
  return c;
}

Vec2 fillet_point(const CornerFillet& f, double u) {
  const double h = f.hdg_a + f.curvature * u;
  return {f.a.x + (std::sin(h) - std::sin(f.hdg_a)) / f.curvature,
          f.a.y - (std::cos(h) - std::cos(f.hdg_a)) / f.curvature};
}

Polyline round_corners(const Polyline& corners, double radius_m, const CornerJoin& start,
                       const CornerJoin& end) {
  const std::size_t n = corners.size();
  if (n < 2) return corners;
  const std::vector<CornerFillet> f = line_fillets(corners, radius_m, start, end);
  Polyline out;
  if (f[0].ok) {
    sample_arc(f[0], f[0].half_length, 2.0 * f[0].half_length, start.radius_m, out);
  } else {
    out.push_back(corners[0]);
  }
  for (std::size_t k = 1; k + 1 < n; ++k) {
    if (f[k].ok) {
      sample_arc(f[k], 0.0, 2.0 * f[k].half_length, radius_m, out);
    } else {
      out.push_back(corners[k]);
    }
  }
  if (f[n - 1].ok) {
    sample_arc(f[n - 1], 0.0, f[n - 1].half_length, end.radius_m, out);
  } else {
    out.push_back(corners[n - 1]);
  }
  return polyline_dedupe(out, 1e-9);
}

Polyline polyline_densify(const Polyline& line, double max_spacing_m) {
  const Polyline src = polyline_dedupe(line);
  if (src.size() < 2 || !(max_spacing_m > 0.0) || !std::isfinite(max_spacing_m)) return src;
  Polyline out{src[0]};
  for (std::size_t i = 1; i < src.size(); ++i) {
    const double d = distance(src[i - 1], src[i]);
    const int n = std::max(1, static_cast<int>(std::ceil(d / max_spacing_m - 1e-9)));
    for (int k = 1; k < n; ++k)
      out.push_back(lerp(src[i - 1], src[i], static_cast<double>(k) / n));
    out.push_back(src[i]);
  }
  return out;
}

}  // namespace cityforge
