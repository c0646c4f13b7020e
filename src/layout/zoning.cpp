// SPDX-License-Identifier: Apache-2.0
// Zoning fields, the "vertical modelling" of the source: each zone raises the skyline from its
// minimum height at its edge to its maximum at its core (smoothstep on the normalised depth,
// so downtown peaks in the middle), with a little seeded variation so rows of blocks do not
// all match. Where zones overlap, the later zone in the file wins: users layer detail on top.
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>

#include "cityforge/core/noise.hpp"
#include "layout/detail.hpp"

namespace cityforge::layout::detail {
namespace {

double ring_edge_distance(const Ring& ring, Vec2 p) {
  double d = 1e300;
  for (std::size_t i = 0; i < ring.size(); ++i) {
    d = std::min(d, segment_distance(ring[i], ring[(i + 1) % ring.size()], p));
  }
  return d;
}

double smoothstep(double t) {
  t = std::clamp(t, 0.0, 1.0);
  return t * t * (3.0 - 2.0 * t);
}

}  // namespace

void build_zoning_fields(const Inputs& in, const Config& config, Seed seed, Field& height,
                         Field& density) {
  const Aabb2 box = ring_bounds(in.boundary.outer);
  for (Field* f : {&height, &density}) {
    f->cell_m = config.zoning_cell_m;
    f->origin = box.min;
    f->nx = static_cast<std::uint32_t>(std::ceil(box.size().x / f->cell_m)) + 1;
    f->ny = static_cast<std::uint32_t>(std::ceil(box.size().y / f->cell_m)) + 1;
    f->values.assign(std::size_t{f->nx} * f->ny, 0.0f);
  }
  // 1. Each zone's depth scale: its deepest point from the edge (sampled on the field grid).
  std::vector<double> depth(in.zones.size(), 1.0);
  for (std::size_t z = 0; z < in.zones.size(); ++z) {
    const Ring& r = in.zones[z].area.outer;
    const Aabb2 zb = ring_bounds(r);
    double deepest = 1.0;
    const double step = std::max(config.zoning_cell_m, std::max(zb.size().x, zb.size().y) / 64);
    for (double y = zb.min.y; y <= zb.max.y; y += step) {
      for (double x = zb.min.x; x <= zb.max.x; x += step) {
        if (ring_contains(r, {x, y})) deepest = std::max(deepest, ring_edge_distance(r, {x, y}));
      }
    }
    depth[z] = deepest;
  }
  // 2. Sample every cell: rows in parallel, each into its own slots.
  const std::uint64_t key =
      hash_combine(mix64(seed), static_cast<std::uint64_t>(Stage::layout) * 7919U);
  tbb::parallel_for(std::uint32_t{0}, height.ny, [&](std::uint32_t j) {
    for (std::uint32_t i = 0; i < height.nx; ++i) {
      const Vec2 p = height.origin + Vec2{i * height.cell_m, j * height.cell_m};
      double h = config.default_height_m;
      double d = config.default_density;
      for (std::size_t z = 0; z < in.zones.size(); ++z) {
        const Zone& zone = in.zones[z];
        if (!polygon_contains(zone.area, p)) continue;
        const double t = smoothstep(ring_edge_distance(zone.area.outer, p) / depth[z]);
        h = zone.min_height_m + (zone.max_height_m - zone.min_height_m) * t;
        d = zone.density * (0.75 + 0.25 * t);
      }
      // +-15 % variation with a wavelength of a few blocks.
      const double n = fractal_noise(key, p / 350.0, 2, 0.5);
      h *= 1.0 + 0.15 * n;
      const std::size_t k = std::size_t{j} * height.nx + i;
      height.values[k] = static_cast<float>(std::max(0.0, h));
      density.values[k] = static_cast<float>(std::clamp(d, 0.0, 1.0));
    }
  });
}

}  // namespace cityforge::layout::detail
