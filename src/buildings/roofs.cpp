// SPDX-License-Identifier: Apache-2.0
// Roofs (seeds/000, 34:03-34:56): every volume's top minus the volumes standing on it is a flat
// roof (split roofs between setbacks), with parapets along its exposed outline.

#include <cmath>

#include "buildings/detail/gen_internal.hpp"

namespace cityforge::buildings::detail {
namespace {

using F3 = std::array<float, 3>;

F3 f3(Vec2 p, double z) {
  return {static_cast<float>(p.x), static_cast<float>(p.y), static_cast<float>(z)};
}

// A quad with a flat normal, wound counter-clockwise seen from the normal's side.
void add_quad(Mesh& mesh, std::array<F3, 4> q, F3 n) {
  const Vec3 a{q[0][0], q[0][1], q[0][2]};
  const Vec3 b{q[1][0], q[1][1], q[1][2]};
  const Vec3 c{q[2][0], q[2][1], q[2][2]};
  if (dot(cross(b - a, c - a), Vec3{n[0], n[1], n[2]}) < 0.0) {
    std::swap(q[1], q[3]);
  }
  const auto base = static_cast<std::uint32_t>(mesh.positions.size());
  for (const F3& p : q) {
    mesh.positions.push_back(p);
    mesh.normals.push_back(n);
  }
  for (std::uint32_t i : {0U, 1U, 2U, 0U, 2U, 3U}) {
    mesh.indices.push_back(base + i);
  }
}

double edge_distance(Vec2 p, Vec2 a, Vec2 b) {
  const Vec2 d = b - a;
  const double l2 = dot(d, d);
  const double t = l2 > 0.0 ? std::fmax(0.0, std::fmin(1.0, dot(p - a, d) / l2)) : 0.0;
  return distance(p, a + d * t);
}

bool on_boundary(const Polygon& poly, Vec2 p) {
  auto ring_hit = [&](const Ring& r) {
    for (std::size_t i = 0; i < r.size(); ++i) {
      if (edge_distance(p, r[i], r[(i + 1) % r.size()]) < 1e-3) {
        return true;
      }
    }
    return false;
  };
  if (ring_hit(poly.outer)) {
    return true;
  }
  for (const Ring& h : poly.holes) {
    if (ring_hit(h)) {
      return true;
    }
  }
  return false;
}

// Whether build_roofs tries a shaped (pitched) roof on the volume rather than a flat top.
bool asks_shaped_roof(const Volume& vol) {
  return vol.roof != lots::RoofShape::flat && vol.roof_height_m > 1e-3;
}

}  // namespace

double parapet_hides_m(const Style& style, const Volume& volume, double push_m) {
  // build_roofs: a shaped roof where one is asked for (no parapet), else a flat top with a
  // parapet of the style's height and width along every edge of its exposed outline; where a
  // volume stands flush on the edge instead, that volume's own wall rises above it.
  if (asks_shaped_roof(volume) || style.parapet_height_m <= 0.0 || style.parapet_width_m < push_m) {
    return 0.0;
  }
  return style.parapet_height_m;
}

std::array<Mesh, kMaterialCount> build_roofs(const std::vector<Volume>& volumes, const Style& style,
                                             std::size_t* triangles) {
  std::array<Mesh, kMaterialCount> parts;
  Mesh& roof = parts[static_cast<std::size_t>(Material::roof)];
  Mesh& trim = parts[static_cast<std::size_t>(Material::trim)];
  const double ph = style.parapet_height_m;
  const double pw = style.parapet_width_m;
  for (std::size_t v = 0; v < volumes.size(); ++v) {
    const Volume& vol = volumes[v];
    // Imported pitched roofs (roof_shapes.cpp); a flat roof where none could be built.
    if (asks_shaped_roof(vol) && build_shaped_roof(vol, parts)) {
      continue;
    }
    // 1. The exposed top: footprint minus the volumes standing on it.
    std::vector<Polygon> above;
    for (std::size_t w = 0; w < volumes.size(); ++w) {
      if (w != v && std::abs(volumes[w].z0_m - vol.z1_m) < 1e-6) {
        above.push_back(volumes[w].footprint);
      }
    }
    const std::vector<Polygon> tops = above.empty() ? std::vector<Polygon>{vol.footprint}
                                                    : polygon_difference(vol.footprint, above);
    for (const Polygon& top : tops) {
      // 2. Flat roof triangles.
      const Triangulation tri = triangulate(top);
      const auto base = static_cast<std::uint32_t>(roof.positions.size());
      for (const Vec2& p : tri.points) {
        roof.positions.push_back(f3(p, vol.z1_m));
        roof.normals.push_back({0.0F, 0.0F, 1.0F});
      }
      for (std::uint32_t i : tri.indices) {
        roof.indices.push_back(base + i);
      }
      // 3. Parapets along the edges on the volume's own outline (not against a wall above).
      if (ph <= 0.0 || pw <= 0.0) {
        continue;
      }
      auto parapet_ring = [&](const Ring& r) {
        for (std::size_t i = 0; i < r.size(); ++i) {
          const Vec2 a = r[i];
          const Vec2 b = r[(i + 1) % r.size()];
          if (distance(a, b) < 1e-6 || !on_boundary(vol.footprint, (a + b) * 0.5)) {
            continue;
          }
          const Vec2 dir = normalize(b - a);
          const Vec2 in = perp(dir);  // The solid lies left of every canonical ring.
          const Vec2 ai = a + in * pw;
          const Vec2 bi = b + in * pw;
          const double z0 = vol.z1_m;
          const double z1 = vol.z1_m + ph;
          const F3 out_n{static_cast<float>(-in.x), static_cast<float>(-in.y), 0.0F};
          const F3 in_n{static_cast<float>(in.x), static_cast<float>(in.y), 0.0F};
          add_quad(trim, {f3(a, z0), f3(b, z0), f3(b, z1), f3(a, z1)}, out_n);
          add_quad(trim, {f3(ai, z0), f3(bi, z0), f3(bi, z1), f3(ai, z1)}, in_n);
          add_quad(trim, {f3(a, z1), f3(b, z1), f3(bi, z1), f3(ai, z1)}, {0.0F, 0.0F, 1.0F});
        }
      };
      parapet_ring(top.outer);
      for (const Ring& h : top.holes) {
        parapet_ring(h);
      }
    }
  }
  if (triangles != nullptr) {
    *triangles += roof.triangle_count() + trim.triangle_count() +
                  parts[static_cast<std::size_t>(Material::wall)].triangle_count();
  }
  return parts;
}

}  // namespace cityforge::buildings::detail
