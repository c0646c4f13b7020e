// SPDX-License-Identifier: Apache-2.0
#include "cityforge/terrain/heightfield.hpp"

#include <algorithm>
#include <cmath>

#include "cityforge/core/grid_sample.hpp"

namespace cityforge::terrain {

double Heightfield::sample(Vec2 p) const {
  // A grid of fewer than 2 x 2 samples has no area: flat ground.
  return nx < 2 || ny < 2 ? 0.0 : bilinear_sample(heights, nx, ny, origin, cell_m, p);
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
