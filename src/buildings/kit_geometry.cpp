// SPDX-License-Identifier: Apache-2.0
#include "buildings/detail/kit_geometry.hpp"

#include <algorithm>
#include <cmath>

namespace cityforge::buildings::detail {
namespace {

std::array<Vec3, 8> box_corners(Vec3 lo, Vec3 hi) {
  std::array<Vec3, 8> c;
  for (std::size_t i = 0; i < 8; ++i) {
    c[i] = {(i & 1U) != 0 ? hi.x : lo.x, (i & 2U) != 0 ? hi.y : lo.y, (i & 4U) != 0 ? hi.z : lo.z};
  }
  return c;
}

}  // namespace

namespace {

// One axis-aligned face of the (possibly flat) box [lo, hi].
void add_rect(Mesh& mesh, Vec3 lo, Vec3 hi, meshing::BoxFace face) {
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
