// SPDX-License-Identifier: Apache-2.0
// Reference lines and profiles of the OpenDRIVE writer (detail/opendrive_geometry.hpp).
// Based on: ASAM OpenDRIVE 1.4 / 1.8, "Geometry" (line, paramPoly3 with pRange normalized:
// u(p), v(p) cubics in the frame of the start point and heading) and "Elevation" (cubic
// polynomials in ds from each record's s).
#include <algorithm>
#include <cmath>
#include <utility>

#include "export/detail/opendrive_geometry.hpp"

namespace cityforge::exporter::detail {

namespace {

double cross2(Vec2 a, Vec2 b) { return a.x * b.y - a.y * b.x; }

struct Bezier {
  Vec2 a, b, c, d;
  Vec2 at(double u) const {
    const double v = 1.0 - u;
    return a * (v * v * v) + b * (3.0 * v * v * u) + c * (3.0 * v * u * u) + d * (u * u * u);
  }
  Vec2 d1(double u) const {
    const double v = 1.0 - u;
    return (b - a) * (3.0 * v * v) + (c - b) * (6.0 * v * u) + (d - c) * (3.0 * u * u);
  }
  Vec2 d2(double u) const { return (c - b * 2.0 + a) * (6.0 * (1.0 - u)) + (d - c * 2.0 + b) * (6.0 * u); }
};

/// Arc length of the curve: composite Simpson on |B'| with 256 intervals.
double arc_length(const Bezier& z) {
  constexpr int kN = 256;
  double sum = 0.0;
  for (int i = 0; i <= kN; ++i) {
    const double w = (i == 0 || i == kN) ? 1.0 : (i % 2 == 1 ? 4.0 : 2.0);
    sum += w * length(z.d1(static_cast<double>(i) / kN));
  }
  return sum / (3.0 * kN);
}

}  // namespace

std::vector<OdrGeometry> polyline_geometry(const Polyline& input) {
  const Polyline line = polyline_dedupe(input, 1e-6);
  std::vector<OdrGeometry> out;
  if (line.size() < 2) return out;
  double s = 0.0;
  std::size_t i = 0;
  while (i + 1 < line.size()) {
    // Extend the run from i while every point lies within 1 mm of the chord.
    std::size_t j = i + 1;
    while (j + 1 < line.size()) {
      bool ok = dot(line[j + 1] - line[j], line[j] - line[i]) > 0.0;
      for (std::size_t k = i + 1; ok && k <= j; ++k)
        ok = segment_distance(line[i], line[j + 1], line[k]) <= 1e-3;
      if (!ok) break;
      ++j;
    }
    const Vec2 d = line[j] - line[i];
    OdrGeometry g;
    g.s = s;
    g.x = line[i].x;
    g.y = line[i].y;
    g.hdg = std::atan2(d.y, d.x);
    g.length = length(d);
    s += g.length;
    out.push_back(g);
    i = j;
  }
  return out;
}

std::vector<OdrGeometry> bezier_geometry(const std::vector<Vec2>& samples, double* max_error_m) {
  const std::size_t n = samples.size();
  if (max_error_m != nullptr) *max_error_m = 0.0;
  if (n < 3) return {};
  const Vec2 a = samples.front();
  const Vec2 d = samples.back();
  const Vec2 t0 = normalize(samples[1] - samples[0]);
  const Vec2 t3 = normalize(samples[n - 1] - samples[n - 2]);
  std::vector<double> u(n, 0.0);
  double total = 0.0;
  for (std::size_t k = 1; k < n; ++k) {
    total += distance(samples[k], samples[k - 1]);
    u[k] = total;
  }
  if (total <= 1e-9) return {};
  for (double& x : u)
    x /= total;
  Bezier z{a, a + t0 * (total / 3.0), d - t3 * (total / 3.0), d};
  for (int iteration = 0; iteration < 12; ++iteration) {
    // Least squares for the two handle lengths at the current parameters.
    double ee = 0.0, ef = 0.0, ff = 0.0, er = 0.0, fr = 0.0;
    for (std::size_t k = 0; k < n; ++k) {
      const double v = 1.0 - u[k];
      const Vec2 base = a * (v * v * v + 3.0 * v * v * u[k]) + d * (3.0 * v * u[k] * u[k] + u[k] * u[k] * u[k]);
      const Vec2 e = t0 * (3.0 * v * v * u[k]);
      const Vec2 f = t3 * (-3.0 * v * u[k] * u[k]);
      const Vec2 r = samples[k] - base;
      ee += dot(e, e);
      ef += dot(e, f);
      ff += dot(f, f);
      er += dot(e, r);
      fr += dot(f, r);
    }
    const double det = ee * ff - ef * ef;
    if (std::abs(det) < 1e-12) return {};
    const double h0 = (er * ff - fr * ef) / det;
    const double h3 = (fr * ee - er * ef) / det;
    if (!(h0 > 0.0) || !(h3 > 0.0)) return {};
    z = Bezier{a, a + t0 * h0, d - t3 * h3, d};
    // Newton steps: each sample's parameter moves to its closest point on the curve.
    for (std::size_t k = 1; k + 1 < n; ++k) {
      const Vec2 diff = z.at(u[k]) - samples[k];
      const Vec2 d1 = z.d1(u[k]);
      const double den = dot(d1, d1) + dot(diff, z.d2(u[k]));
      if (den > 1e-12) u[k] = std::clamp(u[k] - dot(diff, d1) / den, 0.0, 1.0);
    }
  }
  double worst = 0.0;
  for (std::size_t k = 0; k < n; ++k)
    worst = std::max(worst, distance(z.at(u[k]), samples[k]));
  if (max_error_m != nullptr) *max_error_m = worst;
  // The polynomial coefficients of B(p), turned into the start frame.
  const Vec2 c1 = (z.b - z.a) * 3.0;
  const Vec2 c2 = (z.a - z.b * 2.0 + z.c) * 3.0;
  const Vec2 c3 = z.d - z.a + (z.b - z.c) * 3.0;
  OdrGeometry g;
  g.line = false;
  g.x = a.x;
  g.y = a.y;
  g.hdg = std::atan2(t0.y, t0.x);
  g.length = arc_length(z);
  g.bu = dot(c1, t0);
  g.bv = cross2(t0, c1);
  g.cu = dot(c2, t0);
  g.cv = cross2(t0, c2);
  g.du = dot(c3, t0);
  g.dv = cross2(t0, c3);
  return {g};
}

Vec2 geometry_point(const std::vector<OdrGeometry>& geo, double s, Vec2* heading) {
  if (geo.empty()) return {};
  std::size_t k = 0;
  while (k + 1 < geo.size() && geo[k + 1].s <= s)
    ++k;
  const OdrGeometry& g = geo[k];
  const double ds = std::clamp(s - g.s, 0.0, g.length);
  const Vec2 dir{std::cos(g.hdg), std::sin(g.hdg)};
  const Vec2 left{-dir.y, dir.x};
  if (g.line) {
    if (heading != nullptr) *heading = dir;
    return Vec2{g.x, g.y} + dir * ds;
  }
  const double p = g.length > 0.0 ? ds / g.length : 0.0;
  const double u = g.au + p * (g.bu + p * (g.cu + p * g.du));
  const double v = g.av + p * (g.bv + p * (g.cv + p * g.dv));
  if (heading != nullptr) {
    const double du = g.bu + p * (2.0 * g.cu + 3.0 * p * g.du);
    const double dv = g.bv + p * (2.0 * g.cv + 3.0 * p * g.dv);
    *heading = normalize(dir * du + left * dv);
  }
  return Vec2{g.x, g.y} + dir * u + left * v;
}

double geometry_length(const std::vector<OdrGeometry>& geo) {
  return geo.empty() ? 0.0 : geo.back().s + geo.back().length;
}

std::vector<Poly3> fit_profile(const std::function<double(double)>& f, double length,
                               double tolerance, double min_piece_m) {
  std::vector<Poly3> out;
  if (!(length > 0.0)) {
    out.push_back({0.0, f(0.0), 0.0, 0.0, 0.0});
    return out;
  }
  const double h = std::min(0.25, length / 4.0);
  auto slope = [&](double s) {
    const double lo = std::max(0.0, s - h);
    const double hi = std::min(length, s + h);
    return (f(hi) - f(lo)) / (hi - lo);
  };
  auto piece = [](double s0, double f0, double m0, double s1, double f1, double m1) {
    const double len = s1 - s0;
    const double q = (f1 - f0) / len;
    return Poly3{s0, f0, m0, (3.0 * q - 2.0 * m0 - m1) / len, (m0 + m1 - 2.0 * q) / (len * len)};
  };
  struct Knot {
    double s, f, m;
  };
  // Depth first, left half before right: pieces come out in order of s.
  std::vector<std::pair<Knot, Knot>> todo{{{0.0, f(0.0), slope(0.0)}, {length, f(length), slope(length)}}};
  while (!todo.empty()) {
    const auto [k0, k1] = todo.back();
    todo.pop_back();
    const Poly3 p = piece(k0.s, k0.f, k0.m, k1.s, k1.f, k1.m);
    double worst = 0.0;
    for (int i = 1; i <= 8; ++i) {
      const double s = k0.s + (k1.s - k0.s) * i / 9.0;
      const double ds = s - k0.s;
      worst = std::max(worst, std::abs(p.a + ds * (p.b + ds * (p.c + ds * p.d)) - f(s)));
    }
    if (worst > tolerance && k1.s - k0.s > min_piece_m) {
      const double sm = 0.5 * (k0.s + k1.s);
      const Knot km{sm, f(sm), slope(sm)};
      todo.push_back({km, k1});
      todo.push_back({k0, km});
      continue;
    }
    out.push_back(p);
  }
  return out;
}

double profile_at(const std::vector<Poly3>& pieces, double s) {
  if (pieces.empty()) return 0.0;
  auto it = std::upper_bound(pieces.begin(), pieces.end(), s,
                             [](double v, const Poly3& p) { return v < p.s; });
  const Poly3& p = it == pieces.begin() ? pieces.front() : *(it - 1);
  const double ds = s - p.s;
  return p.a + ds * (p.b + ds * (p.c + ds * p.d));
}

}  // namespace cityforge::exporter::detail
