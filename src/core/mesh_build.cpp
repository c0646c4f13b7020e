// SPDX-License-Identifier: Apache-2.0
// Mesh-building primitives shared by the procedural kits (see mesh_build.hpp).
#include "cityforge/core/mesh_build.hpp"

#include <cmath>

namespace cityforge::meshing {
namespace {

std::array<float, 3> to_float(Vec3 v) {
  return {static_cast<float>(v.x), static_cast<float>(v.y), static_cast<float>(v.z)};
}

// Corner indices of the six hex faces, counter-clockwise seen from outside, in BoxFace order.
constexpr std::array<std::array<int, 4>, 6> kHexFaces = {{
    {0, 4, 6, 2},  // -u
    {1, 3, 7, 5},  // +u
    {0, 1, 5, 4},  // -v
    {2, 6, 7, 3},  // +v
    {0, 2, 3, 1},  // -w
    {4, 5, 7, 6},  // +w
}};

}  // namespace

void add_tri(Mesh& mesh, Vec3 a, Vec3 b, Vec3 c) {
  const Vec3 area2 = cross(b - a, c - a);
  const double len = length(area2);
  if (!(len > 2e-8)) {
    return;
  }
  const auto n = to_float(area2 * (1.0 / len));
  const auto base = static_cast<std::uint32_t>(mesh.positions.size());
  for (const Vec3& p : {a, b, c}) {
    mesh.positions.push_back(to_float(p));
    mesh.normals.push_back(n);
  }
  for (const std::uint32_t i : {0U, 1U, 2U}) {
    mesh.indices.push_back(base + i);
  }
}

void add_quad(Mesh& mesh, Vec3 p0, Vec3 p1, Vec3 p2, Vec3 p3) {
  // The diagonals' cross product is twice the area vector of any planar quad.
  const Vec3 area2 = cross(p2 - p0, p3 - p1);
  const double len = length(area2);
  if (!(len > 2.0 * kMinExtent * kMinExtent)) {
    return;
  }
  const auto n = to_float(area2 * (1.0 / len));
  const auto base = static_cast<std::uint32_t>(mesh.positions.size());
  for (const Vec3& p : {p0, p1, p2, p3}) {
    mesh.positions.push_back(to_float(p));
    mesh.normals.push_back(n);
  }
  for (const std::uint32_t i : {0U, 1U, 2U, 0U, 2U, 3U}) {
    mesh.indices.push_back(base + i);
  }
}

void add_hex(Mesh& mesh, const std::array<Vec3, 8>& c, std::uint32_t faces) {
  for (std::size_t f = 0; f < kHexFaces.size(); ++f) {
    if ((faces & (1U << f)) == 0) {
      continue;
    }
    const auto& q = kHexFaces[f];
    add_quad(mesh, c[q[0]], c[q[1]], c[q[2]], c[q[3]]);
  }
}

void add_box(Mesh& mesh, Vec3 lo, Vec3 hi, std::uint32_t faces) {
  if (!(hi.x - lo.x >= kMinExtent && hi.y - lo.y >= kMinExtent && hi.z - lo.z >= kMinExtent)) {
    return;
  }
  std::array<Vec3, 8> c;
  for (std::size_t i = 0; i < 8; ++i) {
    c[i] = {(i & 1U) != 0 ? hi.x : lo.x, (i & 2U) != 0 ? hi.y : lo.y, (i & 4U) != 0 ? hi.z : lo.z};
  }
  add_hex(mesh, c, faces);
}

void add_beam(Mesh& mesh, Vec3 a, Vec3 b, double half_w, double half_h, std::uint32_t faces) {
  const double len = length(b - a);
  if (!(len >= kMinExtent && half_w >= 0.5 * kMinExtent && half_h >= 0.5 * kMinExtent)) {
    return;
  }
  const Vec3 d = (b - a) * (1.0 / len);
  Vec3 side = cross(d, Vec3{0.0, 0.0, 1.0});
  if (length(side) < 0.1) {
    side = cross(d, Vec3{1.0, 0.0, 0.0});
  }
  side = normalize(side);
  const Vec3 up = cross(side, d);  // (side, d, up) is right-handed.
  std::array<Vec3, 8> c;
  for (std::size_t i = 0; i < 8; ++i) {
    const double s = (i & 1U) != 0 ? half_w : -half_w;
    const Vec3 end = (i & 2U) != 0 ? b : a;
    const double h = (i & 4U) != 0 ? half_h : -half_h;
    c[i] = end + side * s + up * h;
  }
  add_hex(mesh, c, faces);
}

}  // namespace cityforge::meshing
