// SPDX-License-Identifier: Apache-2.0
// Reference lines and profiles of the OpenDRIVE writer (detail/opendrive_geometry.hpp).
// Based on: ASAM OpenDRIVE 1.4 / 1.8, "Geometry" (line, paramPoly3 with pRange normalized:
// u(p), v(p) cubics in the frame of the start point and heading) and "Elevation" (cubic
// polynomials in ds from each record's s).
#include "export/detail/opendrive_geometry.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

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
  Vec2 d2(double u) const {
    return (c - b * 2.0 + a) * (6.0 * (1.0 - u)) + (d - c * 2.0 + b) * (6.0 * u);
  }
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

std::vector<OdrGeometry> polyline_geometry(const Polyline& input, double radius_m,
                                           const CornerJoin& start, const CornerJoin& end) {
  const Polyline corners = polyline_dedupe(input, 1e-6);
  std::vector<OdrGeometry> out;
  if (corners.size() < 2) return out;
  double s = 0.0;
  const auto add_line = [&](Vec2 a, Vec2 b) {
    const Vec2 d = b - a;
    if (length(d) <= 1e-9) return;
    OdrGeometry g;
    g.s = s;
    g.x = a.x;
    g.y = a.y;
    g.hdg = std::atan2(d.y, d.x);
    g.length = length(d);
    s += g.length;
    out.push_back(g);
  };
  const auto add_arc = [&](Vec2 a, double hdg, double curvature, double len) {
    OdrGeometry g;
    g.kind = OdrGeometry::Kind::arc;
    g.s = s;
    g.x = a.x;
    g.y = a.y;
    g.hdg = hdg;
    g.curvature = curvature;
    g.length = len;
    s += len;
    out.push_back(g);
  };
  const std::size_t n = corners.size();
  const std::vector<CornerFillet> f = line_fillets(corners, radius_m, start, end);
  Vec2 from = corners[0];
  if (f[0].ok) {
    // The second half of the join's rounding: from its middle to this road's line.
    add_arc(f[0].m, f[0].hdg_m, f[0].curvature, f[0].half_length);
    from = f[0].b;
  }
  for (std::size_t k = 1; k + 1 < n; ++k) {
    if (!f[k].ok) {
      add_line(from, corners[k]);
      from = corners[k];
      continue;
    }
    add_line(from, f[k].a);
    add_arc(f[k].a, f[k].hdg_a, f[k].curvature, 2.0 * f[k].half_length);
    from = f[k].b;
  }
  if (f[n - 1].ok) {
    add_line(from, f[n - 1].a);
    add_arc(f[n - 1].a, f[n - 1].hdg_a, f[n - 1].curvature, f[n - 1].half_length);
    return out;
  }
  add_line(from, corners.back());
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
  for (int iteration = 0; iteration < 40; ++iteration) {
    // Least squares for the two inner control points at the current parameters (x and y
    // share the normal equations).
    double m11 = 0.0, m12 = 0.0, m22 = 0.0;
    Vec2 r1, r2;
    for (std::size_t k = 0; k < n; ++k) {
      const double v = 1.0 - u[k];
      const double b0 = v * v * v, b1 = 3.0 * v * v * u[k], b2 = 3.0 * v * u[k] * u[k],
                   b3 = u[k] * u[k] * u[k];
      const Vec2 r = samples[k] - a * b0 - d * b3;
      m11 += b1 * b1;
      m12 += b1 * b2;
      m22 += b2 * b2;
      r1 += r * b1;
      r2 += r * b2;
    }
    const double det = m11 * m22 - m12 * m12;
    if (std::abs(det) < 1e-12) return {};
    const Vec2 b = (r1 * m22 - r2 * m12) * (1.0 / det);
    const Vec2 c = (r2 * m11 - r1 * m12) * (1.0 / det);
    if (length(b - a) < 1e-6 || length(d - c) < 1e-6) return {};
    z = Bezier{a, b, c, d};
    // Newton steps: each sample's parameter moves to its closest point on the curve.
    for (std::size_t k = 1; k + 1 < n; ++k) {
      for (int step = 0; step < 4; ++step) {
        const Vec2 diff = z.at(u[k]) - samples[k];
        const Vec2 d1 = z.d1(u[k]);
        const double den = dot(d1, d1) + dot(diff, z.d2(u[k]));
        if (den > 1e-12) u[k] = std::clamp(u[k] - dot(diff, d1) / den, 0.0, 1.0);
      }
    }
  }
  return bezier_curve(z.a, z.b, z.c, z.d, samples, max_error_m);
}

std::vector<OdrGeometry> bezier_curve(Vec2 a, Vec2 b, Vec2 c, Vec2 d,
                                      const std::vector<Vec2>& samples, double* max_error_m) {
  const Bezier z{a, b, c, d};
  const std::size_t n = samples.size();
  // The error: each sample's distance from the curve (its closest point on a dense table,
  // refined by Newton steps).
  // The samples run along the curve in order: each search starts from the last one's closest
  // entry and stops once the table has moved well past it.
  constexpr int kTable = 256;
  std::vector<Vec2> table(kTable + 1);
  for (int i = 0; i <= kTable; ++i)
    table[static_cast<std::size_t>(i)] = z.at(static_cast<double>(i) / kTable);
  double spacing = 0.0;
  for (int i = 0; i < kTable; ++i)
    spacing = std::max(spacing, distance(table[static_cast<std::size_t>(i)],
                                         table[static_cast<std::size_t>(i) + 1]));
  double worst = 0.0;
  int from = 0;
  for (std::size_t k = 0; k < n; ++k) {
    double best = 1e300;
    int at = from;
    for (int i = from; i <= kTable; ++i) {
      const double d2 = distance(table[static_cast<std::size_t>(i)], samples[k]);
      if (d2 < best) {
        best = d2;
        at = i;
      } else if (d2 > best + 4.0 * spacing + 0.5) {
        break;
      }
    }
    from = at;
    double uk = static_cast<double>(at) / kTable;
    for (int step = 0; step < 6; ++step) {
      const Vec2 diff = z.at(uk) - samples[k];
      const Vec2 d1 = z.d1(uk);
      const double den = dot(d1, d1) + dot(diff, z.d2(uk));
      if (den > 1e-12) uk = std::clamp(uk - dot(diff, d1) / den, 0.0, 1.0);
    }
    worst = std::max(worst, std::min(best, distance(z.at(uk), samples[k])));
  }
  if (max_error_m != nullptr) *max_error_m = worst;
  // The polynomial coefficients of B(p), turned into the frame of its start tangent.
  const Vec2 dir = normalize(z.b - z.a);
  const Vec2 c1 = (z.b - z.a) * 3.0;
  const Vec2 c2 = (z.a - z.b * 2.0 + z.c) * 3.0;
  const Vec2 c3 = z.d - z.a + (z.b - z.c) * 3.0;
  OdrGeometry g;
  g.kind = OdrGeometry::Kind::param_poly3;
  g.x = a.x;
  g.y = a.y;
  g.hdg = std::atan2(dir.y, dir.x);
  g.length = arc_length(z);
  g.bu = dot(c1, dir);
  g.bv = cross2(dir, c1);
  g.cu = dot(c2, dir);
  g.cv = cross2(dir, c2);
  g.du = dot(c3, dir);
  g.dv = cross2(dir, c3);
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
  if (g.kind == OdrGeometry::Kind::line) {
    if (heading != nullptr) *heading = dir;
    return Vec2{g.x, g.y} + dir * ds;
  }
  if (g.kind == OdrGeometry::Kind::arc) {
    const double a = g.hdg + g.curvature * ds;
    if (heading != nullptr) *heading = Vec2{std::cos(a), std::sin(a)};
    return Vec2{g.x + (std::sin(a) - std::sin(g.hdg)) / g.curvature,
                g.y - (std::cos(a) - std::cos(g.hdg)) / g.curvature};
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

Vec2 geometry_project(const std::vector<OdrGeometry>& geo, Vec2 p) {
  const double len = geometry_length(geo);
  const int n = std::max(1, static_cast<int>(std::ceil(len / 0.1)));
  double best = 1e300;
  int at = 0;
  for (int i = 0; i <= n; ++i) {
    const double d = distance(geometry_point(geo, len * i / n), p);
    if (d < best) {
      best = d;
      at = i;
    }
  }
  const double s0 = len * std::max(0, at - 1) / n;
  const double s1 = len * std::min(n, at + 1) / n;
  const Vec2 a = geometry_point(geo, s0);
  const Vec2 b = geometry_point(geo, s1);
  const double ab = distance(a, b);
  const double f = ab > 1e-12 ? std::clamp(dot(p - a, b - a) / (ab * ab), 0.0, 1.0) : 0.0;
  const double s = s0 + (s1 - s0) * f;
  Vec2 h;
  const Vec2 q = geometry_point(geo, s, &h);
  return {s, cross2(h, p - q)};
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
  std::vector<std::pair<Knot, Knot>> todo{
      {{0.0, f(0.0), slope(0.0)}, {length, f(length), slope(length)}}};
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

namespace {

/// The least-squares cubic through (x, y) samples, x measured from the interval's start.
std::array<double, 4> cubic_fit(const std::vector<double>& x, const std::vector<double>& y,
                                double width) {
  // Normal equations in the scaled variable u = x / width, then scaled back.
  double m[4][5] = {};
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double u = x[i] / width;
    const double p[4] = {1.0, u, u * u, u * u * u};
    for (int r = 0; r < 4; ++r) {
      for (int c = 0; c < 4; ++c)
        m[r][c] += p[r] * p[c];
      m[r][4] += p[r] * y[i];
    }
  }
  for (int col = 0; col < 4; ++col) {
    int pivot = col;
    for (int r = col + 1; r < 4; ++r)
      if (std::abs(m[r][col]) > std::abs(m[pivot][col])) pivot = r;
    for (int c = 0; c < 5; ++c)
      std::swap(m[col][c], m[pivot][c]);
    if (std::abs(m[col][col]) < 1e-15) return {0.0, 0.0, 0.0, 0.0};
    for (int r = 0; r < 4; ++r) {
      if (r == col) continue;
      const double f = m[r][col] / m[col][col];
      for (int c = col; c < 5; ++c)
        m[r][c] -= f * m[col][c];
    }
  }
  std::array<double, 4> k{};
  double scale = 1.0;
  for (int r = 0; r < 4; ++r) {
    k[static_cast<std::size_t>(r)] = m[r][4] / m[r][r] / scale;
    scale *= width;
  }
  return k;
}

double shape_at(const std::vector<ShapeRecord>& station, double t) {
  const ShapeRecord* r = &station.front();
  for (const ShapeRecord& x : station)
    if (x.t <= t) r = &x;
  const double dt = t - r->t;
  return r->a + dt * (r->b + dt * (r->c + dt * r->d));
}

}  // namespace

std::vector<ShapeRecord> fit_shape(const std::function<double(double, double)>& residual,
                                   double length, const std::vector<double>& breaks,
                                   double tolerance, double min_piece_m) {
  constexpr int kSamples = 9;
  const auto station = [&](double s) {
    std::vector<ShapeRecord> out;
    for (std::size_t i = 0; i + 1 < breaks.size(); ++i) {
      const double w = breaks[i + 1] - breaks[i];
      std::vector<double> x, y;
      for (int k = 0; k < kSamples; ++k) {
        x.push_back(w * k / (kSamples - 1));
        y.push_back(residual(s, breaks[i] + x.back()));
      }
      const auto c = cubic_fit(x, y, w);
      out.push_back({s, breaks[i], c[0], c[1], c[2], c[3]});
    }
    return out;
  };
  // Where the residual matters at all.
  bool needed = false;
  const int n_s = std::max(2, static_cast<int>(std::ceil(length / 5.0)));
  for (int i = 0; i <= n_s && !needed; ++i)
    for (std::size_t b = 0; b + 1 < breaks.size() && !needed; ++b)
      for (int k = 0; k < kSamples && !needed; ++k)
        needed = std::abs(residual(length * i / n_s, breaks[b] + (breaks[b + 1] - breaks[b]) * k /
                                                                     (kSamples - 1))) > tolerance;
  if (!needed || breaks.size() < 2) return {};
  std::vector<std::vector<ShapeRecord>> stations{station(0.0)};
  std::vector<std::vector<ShapeRecord>> todo{station(length)};  // right ends, last = next
  while (!todo.empty()) {
    const std::vector<ShapeRecord>& a = stations.back();
    const std::vector<ShapeRecord>& b = todo.back();
    const double s0 = a.front().s;
    const double s1 = b.front().s;
    const double sm = 0.5 * (s0 + s1);
    double worst = 0.0;
    if (s1 - s0 > min_piece_m) {
      for (std::size_t i = 0; i + 1 < breaks.size(); ++i)
        for (int k = 0; k < kSamples; ++k) {
          const double t = breaks[i] + (breaks[i + 1] - breaks[i]) * k / (kSamples - 1);
          const double h = 0.5 * (shape_at(a, t) + shape_at(b, t));
          worst = std::max(worst, std::abs(h - residual(sm, t)));
        }
    }
    if (worst > tolerance) {
      todo.push_back(station(sm));
      continue;
    }
    stations.push_back(todo.back());
    todo.pop_back();
  }
  std::vector<ShapeRecord> out;
  for (const auto& st : stations)
    out.insert(out.end(), st.begin(), st.end());
  return out;
}

void write_plan_view(XmlText& x, const std::vector<OdrGeometry>& geo, const std::string& where) {
  x.raw("    <planView>\n");
  for (const OdrGeometry& g : geo) {
    x.raw("      <geometry");
    x.attr("s", g.s, where);
    x.attr("x", g.x, where);
    x.attr("y", g.y, where);
    x.attr("hdg", g.hdg, where);
    x.attr("length", g.length, where);
    if (g.kind == OdrGeometry::Kind::line) {
      x.raw("><line/></geometry>\n");
    } else if (g.kind == OdrGeometry::Kind::arc) {
      x.raw("><arc");
      x.attr("curvature", g.curvature, where);
      x.raw("/></geometry>\n");
    } else {
      x.raw("><paramPoly3");
      x.attr("aU", g.au, where);
      x.attr("bU", g.bu, where);
      x.attr("cU", g.cu, where);
      x.attr("dU", g.du, where);
      x.attr("aV", g.av, where);
      x.attr("bV", g.bv, where);
      x.attr("cV", g.cv, where);
      x.attr("dV", g.dv, where);
      x.attr("pRange", "normalized");
      x.raw("/></geometry>\n");
    }
  }
  x.raw("    </planView>\n");
}

void write_records(XmlText& x, const char* open, const char* s_name,
                   const std::vector<Poly3>& pieces, double scale, const std::string& where) {
  for (const Poly3& p : pieces) {
    x.raw(open);
    x.attr(s_name, p.s, where);
    x.attr("a", scale * p.a, where);
    x.attr("b", scale * p.b, where);
    x.attr("c", scale * p.c, where);
    x.attr("d", scale * p.d, where);
    x.raw("/>\n");
  }
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
