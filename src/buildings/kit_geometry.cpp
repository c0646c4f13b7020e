// SPDX-License-Identifier: Apache-2.0
#include "buildings/detail/kit_geometry.hpp"

#include <algorithm>
#include <cmath>

namespace cityforge::buildings::detail {
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

std::array<Vec3, 8> box_corners(Vec3 lo, Vec3 hi) {
  std::array<Vec3, 8> c;
  for (std::size_t i = 0; i < 8; ++i) {
    c[i] = {(i & 1U) != 0 ? hi.x : lo.x, (i & 2U) != 0 ? hi.y : lo.y, (i & 4U) != 0 ? hi.z : lo.z};
  }
  return c;
}

}  // namespace

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
  add_hex(mesh, box_corners(lo, hi), faces);
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
    const Vec3 end = (i & 2U) != 0 ? b : a;
    const double s = (i & 1U) != 0 ? half_w : -half_w;
    const double u = (i & 4U) != 0 ? half_h : -half_h;
    c[i] = end + side * s + up * u;
  }
  add_hex(mesh, c, faces);
}

namespace {

// One axis-aligned face of the (possibly flat) box [lo, hi].
void add_rect(Mesh& mesh, Vec3 lo, Vec3 hi, BoxFace face) {
  add_hex(mesh, box_corners(lo, hi), face);
}

}  // namespace

void add_panel(Mesh& mesh, double width, double height, double depth, const Opening& hole,
               double reveal_m, bool bottom_reveal) {
  const double w = width;
  const double h = height;
  const double d = depth;
  if (!hole.valid()) {
    add_box(mesh, {0.0, -d, 0.0}, {w, 0.0, h}, kNoBack);
    return;
  }
  const double x0 = std::clamp(hole.x0, 0.0, w);
  const double x1 = std::clamp(hole.x1, x0, w);
  const double z0 = std::clamp(hole.z0, 0.0, h);
  const double z1 = std::clamp(hole.z1, z0, h);
  const double r = std::clamp(reveal_m, 0.0, d);
  // 1. Facade face around the hole: two full-height piers, then the strips below and above.
  add_rect(mesh, {0.0, 0.0, 0.0}, {x0, 0.0, h}, kPosY);
  add_rect(mesh, {x1, 0.0, 0.0}, {w, 0.0, h}, kPosY);
  add_rect(mesh, {x0, 0.0, 0.0}, {x1, 0.0, z0}, kPosY);
  add_rect(mesh, {x0, 0.0, z1}, {x1, 0.0, h}, kPosY);
  // 2. Reveals, facing into the hole.
  add_rect(mesh, {x0, -r, z0}, {x0, 0.0, z1}, kPosX);
  add_rect(mesh, {x1, -r, z0}, {x1, 0.0, z1}, kNegX);
  add_rect(mesh, {x0, -r, z1}, {x1, 0.0, z1}, kNegZ);
  if (bottom_reveal) {
    add_rect(mesh, {x0, -r, z0}, {x1, 0.0, z0}, kPosZ);
  }
  // 3. Outer sides, top and bottom (the bottom is split when the hole reaches the ground).
  add_rect(mesh, {0.0, -d, 0.0}, {0.0, 0.0, h}, kNegX);
  add_rect(mesh, {w, -d, 0.0}, {w, 0.0, h}, kPosX);
  add_rect(mesh, {0.0, -d, h}, {w, 0.0, h}, kPosZ);
  if (z0 > 0.0) {
    add_rect(mesh, {0.0, -d, 0.0}, {w, 0.0, 0.0}, kNegZ);
  } else {
    add_rect(mesh, {0.0, -d, 0.0}, {x0, 0.0, 0.0}, kNegZ);
    add_rect(mesh, {x1, -d, 0.0}, {w, 0.0, 0.0}, kNegZ);
  }
}

void add_frame_ring(Mesh& mesh, const Opening& o, double bar, double y0, double y1, bool bottom) {
  if (!o.valid() || bar < kMinExtent) {
    return;
  }
  add_box(mesh, {o.x0, y0, o.z0}, {o.x0 + bar, y1, o.z1}, kNoBack & ~kNegX);
  add_box(mesh, {o.x1 - bar, y0, o.z0}, {o.x1, y1, o.z1}, kNoBack & ~kPosX);
  add_box(mesh, {o.x0 + bar, y0, o.z1 - bar}, {o.x1 - bar, y1, o.z1},
          kNoBack & ~kPosZ & ~kNegX & ~kPosX);
  if (bottom) {
    add_box(mesh, {o.x0 + bar, y0, o.z0}, {o.x1 - bar, y1, o.z0 + bar},
            kNoBack & ~kNegZ & ~kNegX & ~kPosX);
  }
}

void add_glazing_bars(Mesh& mesh, const Opening& o, std::uint32_t nx, std::uint32_t ny, double bar,
                      double y0, double y1) {
  if (!o.valid() || bar < kMinExtent) {
    return;
  }
  const double w = o.x1 - o.x0;
  const double h = o.z1 - o.z0;
  while (nx > 0 && static_cast<double>(nx) * bar > 0.5 * w) {
    --nx;
  }
  while (ny > 0 && static_cast<double>(ny) * bar > 0.5 * h) {
    --ny;
  }
  for (std::uint32_t k = 0; k < nx; ++k) {
    const double c = o.x0 + w * static_cast<double>(k + 1) / static_cast<double>(nx + 1);
    add_box(mesh, {c - 0.5 * bar, y0, o.z0}, {c + 0.5 * bar, y1, o.z1}, kNoBack);
  }
  // Horizontal bars stop a little behind the vertical ones so their fronts never coincide.
  const double y1h = y0 + 0.75 * (y1 - y0);
  for (std::uint32_t k = 0; k < ny; ++k) {
    const double c = o.z0 + h * static_cast<double>(k + 1) / static_cast<double>(ny + 1);
    add_box(mesh, {o.x0, y0, c - 0.5 * bar}, {o.x1, y1h, c + 0.5 * bar}, kNoBack);
  }
}

}  // namespace cityforge::buildings::detail
