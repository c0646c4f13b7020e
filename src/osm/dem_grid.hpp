// SPDX-License-Identifier: Apache-2.0
// The heightfield grid a DEM is resampled onto (geodata/dem.cpp) and flat ground is made on
// (dem_files.cpp): samples every cell_m from area.min, covering the area, at least 2 x 2.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "cityforge/core/vec.hpp"

namespace cityforge::osm::detail {

struct DemGrid {
  std::uint32_t nx = 0;
  std::uint32_t ny = 0;
};

inline DemGrid dem_grid_size(const Aabb2& area, double cell_m) {
  const Vec2 size = area.size();
  auto count = [&](double extent) {
    const double n = std::ceil(extent / cell_m - 1e-9) + 1.0;
    return static_cast<std::uint32_t>(std::max(2.0, n));
  };
  return {count(size.x), count(size.y)};
}

}  // namespace cityforge::osm::detail
