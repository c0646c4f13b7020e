// SPDX-License-Identifier: Apache-2.0
// The checks a heightfield passes before anything samples or meshes it.
#include <cmath>
#include <string>

#include "cityforge/terrain/heightfield.hpp"

namespace cityforge::terrain {

Status validate(const Heightfield& hf) {
  if (hf.nx < 2 || hf.ny < 2 || hf.heights.size() != std::size_t{hf.nx} * hf.ny) {
    return Error::invalid_input("terrain",
                                "expected a grid of >= 2 x 2 samples with nx * ny "
                                "heights, got " +
                                    std::to_string(hf.nx) + " x " + std::to_string(hf.ny) +
                                    " and " + std::to_string(hf.heights.size()));
  }
  if (!std::isfinite(hf.origin.x) || !std::isfinite(hf.origin.y) || !std::isfinite(hf.cell_m) ||
      hf.cell_m <= 0.0) {
    return Error::invalid_input("terrain", "origin and cell_m must be finite, cell_m > 0");
  }
  for (std::size_t i = 0; i < hf.heights.size(); ++i) {
    if (!std::isfinite(hf.heights[i])) {
      return Error::invalid_input("terrain.heights[" + std::to_string(i) + "]",
                                  "expected a finite height, got " + std::to_string(hf.heights[i]));
    }
  }
  return Ok{};
}

}  // namespace cityforge::terrain
