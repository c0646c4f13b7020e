// SPDX-License-Identifier: Apache-2.0
// The deck "mega mesh" and its barriers as closed prisms swept along the centre line, then cut
// into square chunks for streaming (seeds/000, 13:43-14:02): every triangle is clipped to each
// chunk it touches (Sutherland-Hodgman against the chunk's four sides), so a chunk's triangles
// lie inside it.
#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "cityforge/core/polyline.hpp"
#include "freeway/detail.hpp"

namespace cityforge::freeway::detail {
namespace {

Vec3 at(Vec2 p, double z) { return {p.x, p.y, z}; }

// Adds quad a-b-c-d as two triangles, wound so the normal points along `outward`.
void add_quad(std::vector<Triangle>& out, Vec3 a, Vec3 b, Vec3 c, Vec3 d, Vec3 outward) {
  Vec3 n = normalize(cross(b - a, c - a));
  if (length(n) == 0.0) n = normalize(cross(c - a, d - a));
  if (dot(n, outward) < 0.0) {
    std::swap(b, d);
    n = n * -1.0;
  }
  out.push_back({{a, b, c}, n});
  out.push_back({{a, c, d}, n});
}

// Keeps the part of `poly` with sign * (coordinate - limit) >= 0.
std::vector<Vec3> clip(const std::vector<Vec3>& poly, bool along_x, double limit, double sign) {
  std::vector<Vec3> out;
  const std::size_t n = poly.size();
  for (std::size_t i = 0; i < n; ++i) {
    const Vec3 a = poly[i];
    const Vec3 b = poly[(i + 1) % n];
    const double da = sign * ((along_x ? a.x : a.y) - limit);
    const double db = sign * ((along_x ? b.x : b.y) - limit);
    if (da >= 0.0) out.push_back(a);
    if ((da >= 0.0) != (db >= 0.0)) {
      const double f = da / (da - db);
      Vec3 p = a + (b - a) * f;
      (along_x ? p.x : p.y) = limit;  // exactly on the chunk side
      out.push_back(p);
    }
  }
  return out;
}

std::array<float, 3> to_f(Vec3 p) {
  return {static_cast<float>(p.x), static_cast<float>(p.y), static_cast<float>(p.z)};
}

}  // namespace

void prism(const StationLine& line, double left_m, double right_m, double lo_m, double hi_m,
           std::vector<Triangle>& out, bool top) {
  const Polyline l = polyline_offset(line.xy, left_m);
  const Polyline r = polyline_offset(line.xy, right_m);
  const std::size_t n = std::min({l.size(), r.size(), line.z.size()});
  for (std::size_t k = 0; k + 1 < n; ++k) {
    const double z0 = line.z[k];
    const double z1 = line.z[k + 1];
    const Vec2 side = perp(normalize(line.xy[k + 1] - line.xy[k]));
    const Vec3 left_out{side.x, side.y, 0.0};
    if (top) {
      add_quad(out, at(l[k], z0 + hi_m), at(r[k], z0 + hi_m), at(r[k + 1], z1 + hi_m),
               at(l[k + 1], z1 + hi_m), {0, 0, 1});
    }
    add_quad(out, at(l[k], z0 + lo_m), at(l[k + 1], z1 + lo_m), at(r[k + 1], z1 + lo_m),
             at(r[k], z0 + lo_m), {0, 0, -1});
    add_quad(out, at(l[k], z0 + lo_m), at(l[k], z0 + hi_m), at(l[k + 1], z1 + hi_m),
             at(l[k + 1], z1 + lo_m), left_out);
    add_quad(out, at(r[k], z0 + lo_m), at(r[k + 1], z1 + lo_m), at(r[k + 1], z1 + hi_m),
             at(r[k], z0 + hi_m), left_out * -1.0);
  }
  if (n < 2) return;
  // End caps.
  for (const std::size_t k : {std::size_t{0}, n - 1}) {
    const Vec2 t = normalize(line.xy[std::min(k + 1, n - 1)] - line.xy[k == 0 ? 0 : k - 1]);
    const Vec3 outward = k == 0 ? Vec3{-t.x, -t.y, 0} : Vec3{t.x, t.y, 0};
    const double z = line.z[k];
    add_quad(out, at(l[k], z + lo_m), at(r[k], z + lo_m), at(r[k], z + hi_m), at(l[k], z + hi_m),
             outward);
  }
}

void ribbon(const StationLine& line, double left_m, double right_m, std::vector<Triangle>& out) {
  const Polyline l = polyline_offset(line.xy, left_m);
  const Polyline r = polyline_offset(line.xy, right_m);
  const std::size_t n = std::min({l.size(), r.size(), line.z.size()});
  // Split along the line itself so the surface holds the line's z exactly, also where a tight
  // bend twists the quad between two cross-sections.
  for (std::size_t k = 0; k + 1 < n; ++k) {
    const Vec3 c0 = at(line.xy[k], line.z[k]);
    const Vec3 c1 = at(line.xy[k + 1], line.z[k + 1]);
    add_quad(out, at(l[k], line.z[k]), c0, c1, at(l[k + 1], line.z[k + 1]), {0, 0, 1});
    add_quad(out, c0, at(r[k], line.z[k]), at(r[k + 1], line.z[k + 1]), c1, {0, 0, 1});
  }
}

void deck_triangles(const CentreLine& c, const Config& config, std::vector<Triangle>& deck,
                    std::vector<Triangle>& barriers) {
  const double h = c.half_width_m;
  const double w = config.barrier_width_m;
  const double bh = config.barrier_height_m;
  prism(c.line, h, -h, -config.deck_thickness_m, 0.0, deck);
  prism(c.line, h, h - w, 0.0, bh, barriers);
  prism(c.line, -h + w, -h, 0.0, bh, barriers);
  if (config.median_m > 0.0) prism(c.line, w / 2.0, -w / 2.0, 0.0, bh, barriers);
}

std::vector<MeshChunk> chunk_triangles(const std::vector<Triangle>& tris, double chunk_m) {
  std::map<std::pair<std::int32_t, std::int32_t>, Mesh> chunks;  // (cy, cx)
  for (const Triangle& t : tris) {
    double x0 = t.p[0].x, x1 = x0, y0 = t.p[0].y, y1 = y0;
    for (const Vec3& p : t.p) {
      x0 = std::min(x0, p.x);
      x1 = std::max(x1, p.x);
      y0 = std::min(y0, p.y);
      y1 = std::max(y1, p.y);
    }
    const auto cx0 = static_cast<std::int32_t>(std::floor(x0 / chunk_m));
    const auto cx1 = static_cast<std::int32_t>(std::floor(x1 / chunk_m));
    const auto cy0 = static_cast<std::int32_t>(std::floor(y0 / chunk_m));
    const auto cy1 = static_cast<std::int32_t>(std::floor(y1 / chunk_m));
    for (std::int32_t cy = cy0; cy <= cy1; ++cy) {
      for (std::int32_t cx = cx0; cx <= cx1; ++cx) {
        std::vector<Vec3> poly(t.p.begin(), t.p.end());
        poly = clip(poly, true, cx * chunk_m, 1.0);
        poly = clip(poly, true, (cx + 1) * chunk_m, -1.0);
        poly = clip(poly, false, cy * chunk_m, 1.0);
        poly = clip(poly, false, (cy + 1) * chunk_m, -1.0);
        if (poly.size() < 3) continue;
        Mesh& m = chunks[{cy, cx}];
        for (std::size_t i = 1; i + 1 < poly.size(); ++i) {
          if (length(cross(poly[i] - poly[0], poly[i + 1] - poly[0])) < 1e-8) continue;
          const auto base = static_cast<std::uint32_t>(m.positions.size());
          for (const Vec3& p : {poly[0], poly[i], poly[i + 1]}) {
            m.positions.push_back(to_f(p));
            m.normals.push_back(to_f(t.n));
          }
          m.indices.insert(m.indices.end(), {base, base + 1, base + 2});
        }
      }
    }
  }
  std::vector<MeshChunk> out;
  for (auto& [key, mesh] : chunks) {
    if (mesh.empty()) continue;
    out.push_back({key.second, key.first, std::move(mesh)});
  }
  return out;
}

}  // namespace cityforge::freeway::detail
