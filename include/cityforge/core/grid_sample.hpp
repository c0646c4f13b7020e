// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "cityforge/core/vec.hpp"

namespace cityforge {

/// Bilinear interpolation in a regular grid of samples: sample (i, j) sits at
/// origin + (i, j) * cell_m, values row-major by j then i. Points outside the grid take the
/// value at the nearest edge. Grids with fewer than 2 samples a side return their first
/// value (or 0 when empty). Shared by every raster of the engine (terrain, zoning fields).
inline double bilinear_sample(const std::vector<float>& values, std::uint32_t nx, std::uint32_t ny,
                              Vec2 origin, double cell_m, Vec2 p) {
  if (values.empty() || nx == 0 || ny == 0) {
    return 0.0;
  }
  if (nx < 2 || ny < 2) {
    return values[0];
  }
  const double gx = std::clamp((p.x - origin.x) / cell_m, 0.0, static_cast<double>(nx - 1));
  const double gy = std::clamp((p.y - origin.y) / cell_m, 0.0, static_cast<double>(ny - 1));
  const auto i = std::min(static_cast<std::uint32_t>(gx), nx - 2);
  const auto j = std::min(static_cast<std::uint32_t>(gy), ny - 2);
  const double u = gx - i;
  const double v = gy - j;
  auto at = [&](std::uint32_t a, std::uint32_t b) { return values[std::size_t{b} * nx + a]; };
  const double h0 = at(i, j) + u * (at(i + 1, j) - at(i, j));
  const double h1 = at(i, j + 1) + u * (at(i + 1, j + 1) - at(i, j + 1));
  return h0 + v * (h1 - h0);
}

}  // namespace cityforge
