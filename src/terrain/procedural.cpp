// SPDX-License-Identifier: Apache-2.0
// Procedural terrain: fractal gradient noise sampled on a regular grid.
#include <tbb/parallel_for.h>

#include <cmath>
#include <string>

#include "cityforge/core/noise.hpp"
#include "cityforge/terrain/heightfield.hpp"

namespace cityforge::terrain {
namespace {

Status check(const Aabb2& area, const Config& c) {
  auto bad = [](const std::string& key, const std::string& what) {
    return Error::invalid_input("terrain." + key, what);
  };
  if (area.empty() || !std::isfinite(area.min.x) || !std::isfinite(area.max.y)) {
    return Error::invalid_input("terrain", "the area to cover is empty or not finite");
  }
  if (!(c.amplitude_m >= 0 && c.amplitude_m <= 2000)) {
    return bad("amplitude_m", "expected 0..2000 m, got " + std::to_string(c.amplitude_m));
  }
  if (!(c.scale_m > 0 && std::isfinite(c.scale_m))) {
    return bad("scale_m", "expected > 0, got " + std::to_string(c.scale_m));
  }
  if (c.octaves < 1 || c.octaves > 12) {
    return bad("octaves", "expected 1..12, got " + std::to_string(c.octaves));
  }
  if (!(c.persistence > 0 && c.persistence < 1)) {
    return bad("persistence", "expected in (0, 1), got " + std::to_string(c.persistence));
  }
  if (!(c.cell_m >= 1 && c.cell_m <= 1000)) {
    return bad("cell_m", "expected 1..1000 m, got " + std::to_string(c.cell_m));
  }
  if (!(c.margin_m >= 0 && std::isfinite(c.margin_m))) {
    return bad("margin_m", "expected >= 0, got " + std::to_string(c.margin_m));
  }
  const Vec2 size = area.size() + Vec2{2 * c.margin_m, 2 * c.margin_m};
  if (size.x / c.cell_m * size.y / c.cell_m > 4e8) {
    return Error::invalid_input("terrain.cell_m",
                                "the grid would need over 400 million samples; "
                                "use a larger cell_m");
  }
  return Ok{};
}

}  // namespace

Result<Heightfield> run(const Aabb2& area, const Config& config, Seed seed) {
  if (Status s = check(area, config); !s) {
    return s.error();
  }
  Heightfield hf;
  hf.cell_m = config.cell_m;
  // Snap the origin to the cell grid so chunk borders and samples line up between runs with
  // slightly different areas.
  hf.origin = {std::floor((area.min.x - config.margin_m) / config.cell_m) * config.cell_m,
               std::floor((area.min.y - config.margin_m) / config.cell_m) * config.cell_m};
  const Vec2 far = area.max + Vec2{config.margin_m, config.margin_m};
  hf.nx = static_cast<std::uint32_t>(std::ceil((far.x - hf.origin.x) / config.cell_m)) + 1;
  hf.ny = static_cast<std::uint32_t>(std::ceil((far.y - hf.origin.y) / config.cell_m)) + 1;
  hf.heights.assign(std::size_t{hf.nx} * hf.ny, 0.0f);
  if (config.amplitude_m == 0.0) {
    return hf;
  }
  const std::uint64_t key = hash_combine(mix64(seed), static_cast<std::uint64_t>(Stage::terrain));
  tbb::parallel_for(std::uint32_t{0}, hf.ny, [&](std::uint32_t j) {
    for (std::uint32_t i = 0; i < hf.nx; ++i) {
      const Vec2 p = hf.origin + Vec2{i * hf.cell_m, j * hf.cell_m};
      const double n = fractal_noise(key, p / config.scale_m, config.octaves, config.persistence);
      hf.heights[std::size_t{j} * hf.nx + i] = static_cast<float>(config.amplitude_m * n);
    }
  });
  return hf;
}

}  // namespace cityforge::terrain
