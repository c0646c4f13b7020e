// SPDX-License-Identifier: Apache-2.0
#include "dressing/detail/prop_geometry.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <utility>
#include <vector>

namespace cityforge::dressing::detail {
namespace {

// The frame (u, v) around a unit axis d, as documented on add_frustum.
void axis_frame(Vec3 d, Vec3& u, Vec3& v) {
  if (std::abs(d.z) > 0.999) {
    u = {1.0, 0.0, 0.0};
  } else {
    u = normalize(cross(Vec3{0.0, 0.0, 1.0}, d));
  }
  u = normalize(u - d * dot(u, d));
  v = cross(d, u);
}

}  // namespace

void add_frustum(Mesh& mesh, Vec3 a, Vec3 b, double r0, double r1, std::uint32_t sides,
                 std::uint32_t caps, double phase_rad) {
  const double len = length(b - a);
  if (!(len >= kMinExtent) || sides < 3 || !(std::max(r0, r1) >= kMinExtent)) {
    return;
  }
  const Vec3 d = (b - a) * (1.0 / len);
  Vec3 u;
  Vec3 v;
  axis_frame(d, u, v);
  std::vector<Vec3> ring0(sides);
  std::vector<Vec3> ring1(sides);
  for (std::uint32_t k = 0; k < sides; ++k) {
    const double t = phase_rad + 2.0 * std::numbers::pi * k / sides;
    const Vec3 dir = u * std::cos(t) + v * std::sin(t);
    ring0[k] = a + dir * r0;
    ring1[k] = b + dir * r1;
  }
  for (std::uint32_t k = 0; k < sides; ++k) {
    const std::uint32_t n = (k + 1) % sides;
    if (r1 < kMinExtent) {
      add_tri(mesh, ring0[k], ring0[n], b);
    } else if (r0 < kMinExtent) {
      add_tri(mesh, a, ring1[n], ring1[k]);
    } else {
      add_quad(mesh, ring0[k], ring0[n], ring1[n], ring1[k]);
    }
  }
  if ((caps & kCapStart) != 0 && r0 >= kMinExtent) {
    for (std::uint32_t k = 1; k + 1 < sides; ++k) {
      add_tri(mesh, ring0[0], ring0[k + 1], ring0[k]);
    }
  }
  if ((caps & kCapEnd) != 0 && r1 >= kMinExtent) {
    for (std::uint32_t k = 1; k + 1 < sides; ++k) {
      add_tri(mesh, ring1[0], ring1[k], ring1[k + 1]);
    }
  }
}

void add_cylinder(Mesh& mesh, double x, double y, double z0, double z1, double radius,
                  std::uint32_t sides, std::uint32_t caps) {
  add_frustum(mesh, {x, y, z0}, {x, y, z1}, radius, radius, sides, caps);
}

void add_ngon(Mesh& mesh, Vec3 centre, Vec3 axis, double radius, std::uint32_t sides,
              double phase_rad) {
  if (sides < 3 || !(radius >= kMinExtent) || !(length(axis) > 0.0)) {
    return;
  }
  const Vec3 d = normalize(axis);
  Vec3 u;
  Vec3 v;
  axis_frame(d, u, v);
  std::vector<Vec3> ring(sides);
  for (std::uint32_t k = 0; k < sides; ++k) {
    const double t = phase_rad + 2.0 * std::numbers::pi * k / sides;
    ring[k] = centre + (u * std::cos(t) + v * std::sin(t)) * radius;
  }
  for (std::uint32_t k = 1; k + 1 < sides; ++k) {
    add_tri(mesh, ring[0], ring[k], ring[k + 1]);
  }
}

void add_tube(Mesh& mesh, double x, double y, double z0, double z1, double r_in, double r_out,
              std::uint32_t sides) {
  if (sides < 3 || !(z1 - z0 >= kMinExtent) || !(r_out - r_in >= kMinExtent) ||
      !(r_in >= kMinExtent)) {
    return;
  }
  for (std::uint32_t k = 0; k < sides; ++k) {
    const double t0 = 2.0 * std::numbers::pi * k / sides;
    const double t1 = 2.0 * std::numbers::pi * (k + 1) / sides;
    const Vec3 d0{std::cos(t0), std::sin(t0), 0.0};
    const Vec3 d1{std::cos(t1), std::sin(t1), 0.0};
    const Vec3 c0{x, y, z0};
    const Vec3 c1{x, y, z1};
    add_quad(mesh, c0 + d0 * r_out, c0 + d1 * r_out, c1 + d1 * r_out, c1 + d0 * r_out);
    add_quad(mesh, c0 + d1 * r_in, c0 + d0 * r_in, c1 + d0 * r_in, c1 + d1 * r_in);
    add_quad(mesh, c1 + d0 * r_in, c1 + d0 * r_out, c1 + d1 * r_out, c1 + d1 * r_in);
  }
}

void add_blob(Mesh& mesh, Vec3 centre, Vec3 radii, double yaw_rad, bool subdivide) {
  const double t = (1.0 + std::sqrt(5.0)) / 2.0;
  const std::array<Vec3, 12> ico = {{{-1, t, 0},
                                     {1, t, 0},
                                     {-1, -t, 0},
                                     {1, -t, 0},
                                     {0, -1, t},
                                     {0, 1, t},
                                     {0, -1, -t},
                                     {0, 1, -t},
                                     {t, 0, -1},
                                     {t, 0, 1},
                                     {-t, 0, -1},
                                     {-t, 0, 1}}};
  constexpr std::array<std::array<int, 3>, 20> kFaces = {
      {{0, 11, 5},  {0, 5, 1},  {0, 1, 7},  {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
       {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
       {3, 8, 9},   {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}}};
  // Unit-sphere triangles first, then one affine map to the blob.
  std::vector<std::array<Vec3, 3>> tris;
  for (const auto& f : kFaces) {
    const Vec3 a = normalize(ico[f[0]]);
    const Vec3 b = normalize(ico[f[1]]);
    const Vec3 c = normalize(ico[f[2]]);
    if (!subdivide) {
      tris.push_back({a, b, c});
      continue;
    }
    const Vec3 ab = normalize(a + b);
    const Vec3 bc = normalize(b + c);
    const Vec3 ca = normalize(c + a);
    tris.push_back({a, ab, ca});
    tris.push_back({ab, b, bc});
    tris.push_back({ca, bc, c});
    tris.push_back({ab, bc, ca});
  }
  const double cy = std::cos(yaw_rad);
  const double sy = std::sin(yaw_rad);
  const auto map = [&](Vec3 q) {
    return centre +
           Vec3{(q.x * cy - q.y * sy) * radii.x, (q.x * sy + q.y * cy) * radii.y, q.z * radii.z};
  };
  for (const auto& tri : tris) {
    Vec3 a = map(tri[0]);
    Vec3 b = map(tri[1]);
    const Vec3 c = map(tri[2]);
    // Scaling keeps the solid convex around its centre: face it away from the centre.
    if (dot(cross(b - a, c - a), (a + b + c) * (1.0 / 3.0) - centre) < 0.0) {
      std::swap(a, b);
    }
    add_tri(mesh, a, b, c);
  }
}

void add_extrusion_x(Mesh& mesh, const Vec2* ring, std::size_t count, double x0, double x1) {
  if (count < 3 || !(x1 - x0 >= kMinExtent)) {
    return;
  }
  for (std::size_t k = 0; k < count; ++k) {
    const Vec2 p = ring[k];
    const Vec2 q = ring[(k + 1) % count];
    add_quad(mesh, {x0, p.x, p.y}, {x0, q.x, q.y}, {x1, q.x, q.y}, {x1, p.x, p.y});
  }
  for (std::size_t k = 1; k + 1 < count; ++k) {
    add_tri(mesh, {x1, ring[0].x, ring[0].y}, {x1, ring[k].x, ring[k].y},
            {x1, ring[k + 1].x, ring[k + 1].y});
    add_tri(mesh, {x0, ring[0].x, ring[0].y}, {x0, ring[k + 1].x, ring[k + 1].y},
            {x0, ring[k].x, ring[k].y});
  }
}

void add_slab(Mesh& mesh, const Vec2* ring, std::size_t count, double z0, double z1, bool bottom) {
  if (count < 3 || !(z1 - z0 >= kMinExtent)) {
    return;
  }
  for (std::size_t k = 1; k + 1 < count; ++k) {
    add_tri(mesh, {ring[0].x, ring[0].y, z1}, {ring[k].x, ring[k].y, z1},
            {ring[k + 1].x, ring[k + 1].y, z1});
    if (bottom) {
      add_tri(mesh, {ring[0].x, ring[0].y, z0}, {ring[k + 1].x, ring[k + 1].y, z0},
              {ring[k].x, ring[k].y, z0});
    }
  }
  for (std::size_t k = 0; k < count; ++k) {
    const Vec2 p = ring[k];
    const Vec2 q = ring[(k + 1) % count];
    add_quad(mesh, {p.x, p.y, z0}, {q.x, q.y, z0}, {q.x, q.y, z1}, {p.x, p.y, z1});
  }
}

}  // namespace cityforge::dressing::detail
