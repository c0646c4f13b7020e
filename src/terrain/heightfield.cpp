// SPDX-License-Identifier: Apache-2.0
#include "cityforge/terrain/heightfield.hpp"

#include <algorithm>
#include <cmath>

#include "cityforge/core/grid_sample.hpp"

namespace cityforge::terrain {

double Heightfield::sample(Vec2 p) const {
  // A grid of fewer than 2 x 2 samples has no area: flat ground.
  if (nx < 2 || ny < 2) return 0.0;
  if (!mesh_exact) return bilinear_sample(heights, nx, ny, origin, cell_m, p);
  const double gx = std::clamp((p.x - origin.x) / cell_m, 0.0, static_cast<double>(nx - 1));
  const double gy = std::clamp((p.y - origin.y) / cell_m, 0.0, static_cast<double>(ny - 1));
  const auto i = std::min(static_cast<std::uint32_t>(gx), nx - 2);
  const auto j = std::min(static_cast<std::uint32_t>(gy), ny - 2);
  const double u = gx - i;
  const double v = gy - j;
  const double h00 = at(i, j);
  const double h10 = at(i + 1, j);
  const double h01 = at(i, j + 1);
  const double h11 = at(i + 1, j + 1);
  // mesh_chunks: triangles (i,j)-(i+1,j)-(i+1,j+1) below the diagonal, (i,j)-(i+1,j+1)-(i,j+1)
  // above it.
  if (u >= v) return h00 + u * (h10 - h00) + v * (h11 - h10);
  return h00 + v * (h01 - h00) + u * (h11 - h01);
}

double Heightfield::slope(Vec2 p) const {
  const double d = cell_m;
  const double dx = (sample(p + Vec2{d, 0}) - sample(p - Vec2{d, 0})) / (2 * d);
  const double dy = (sample(p + Vec2{0, d}) - sample(p - Vec2{0, d})) / (2 * d);
  return std::hypot(dx, dy);
}

Aabb2 Heightfield::bounds() const {
  Aabb2 b;
  b.add(origin);
  b.add(origin + Vec2{cell_m * (nx > 0 ? nx - 1 : 0), cell_m * (ny > 0 ? ny - 1 : 0)});
  return b;
}

}  // namespace cityforge::terrain
