// SPDX-License-Identifier: Apache-2.0
// Relaxation of the island grid towards regular cells (squares after subdivision).
// Based on: the "square fitting" smoothing O. Stalberg describes for Townscaper's grid: each
// cell's corners, turned into one frame (corner k by -k * 360/n degrees about the centroid),
// are averaged into one offset; turning it back gives the regular cell closest to the current
// one, and every corner is pulled towards its place in it.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "cityforge/islands/grid.hpp"

namespace cityforge::islands {
namespace {

// How an outline vertex may move: not at all (corners), along a line (straight outline runs
// of the hexagon), or freely (interior).
struct Freedom {
  bool fixed = false;
  bool slide = false;
  Vec2 direction;
};

std::vector<Freedom> freedoms(const PlanarGrid& grid) {
  std::vector<Freedom> f(grid.vertices.size());
  const std::size_t n = grid.boundary.size();
  const double eps = 1e-9 * grid.cell_m;
  for (std::size_t i = 0; i < n; ++i) {
    const Vec2 prev = grid.vertices[grid.boundary[(i + n - 1) % n]];
    const Vec2 here = grid.vertices[grid.boundary[i]];
    const Vec2 next = grid.vertices[grid.boundary[(i + 1) % n]];
    Freedom& v = f[grid.boundary[i]];
    const Vec2 d = normalize(next - prev);
    const bool straight = std::abs(cross(d, here - prev)) <= eps;
    if (straight && grid.kind != GridKind::square) {
      v.slide = true;
      v.direction = d;
    } else {
      v.fixed = true;
    }
  }
  return f;
}

}  // namespace

void relax(PlanarGrid& grid, std::uint32_t iterations) { relax_towards(grid, {}, iterations); }

void relax_towards(PlanarGrid& grid, const std::vector<CellTarget>& targets,
                   std::uint32_t iterations) {
  const std::vector<Freedom> freedom = freedoms(grid);
  const double eps = 1e-6 * grid.cell_m * grid.cell_m;
  const CellTarget plain;
  std::vector<Vec2> pull(grid.vertices.size());
  std::vector<std::uint32_t> count(grid.vertices.size());
  for (std::uint32_t it = 0; it < iterations; ++it) {
    // 1. Every cell pulls its corners towards its regular polygon: the best fit's turn, and
    //    its own size or the target's.
    std::fill(pull.begin(), pull.end(), Vec2{});
    std::fill(count.begin(), count.end(), 0U);
    for (std::size_t c = 0; c < grid.cells.size(); ++c) {
      const Cell& cell = grid.cells[c];
      const CellTarget& target = targets.empty() ? plain : targets[c];
      const double turn = 2.0 * std::numbers::pi / cell.count;
      const Vec2 centre = cell_centroid(grid, cell);
      Vec2 offset;
      for (std::uint8_t k = 0; k < cell.count; ++k)
        offset += rotate(grid.vertices[cell.vertices[k]] - centre, -turn * k);
      offset = target.size > 0.0 ? normalize(offset) * target.size : offset / cell.count;
      for (std::uint8_t k = 0; k < cell.count; ++k) {
        const std::uint32_t v = cell.vertices[k];
        pull[v] += (centre + rotate(offset, turn * k) - grid.vertices[v]) * target.weight;
        ++count[v];
      }
    }
    // 2. Move half way, within each vertex's freedom.
    const std::vector<Vec2> old = grid.vertices;
    for (std::size_t v = 0; v < grid.vertices.size(); ++v) {
      if (freedom[v].fixed || count[v] == 0) continue;
      Vec2 step = pull[v] * (0.5 / count[v]);
      if (freedom[v].slide) step = freedom[v].direction * dot(step, freedom[v].direction);
      grid.vertices[v] += step;
    }
    // 3. Undo moves that fold a cell, until none does (the old positions were all convex).
    for (bool changed = true; changed;) {
      changed = false;
      for (const Cell& cell : grid.cells) {
        if (cell_convex(grid, cell, eps)) continue;
        for (std::uint8_t k = 0; k < cell.count; ++k) {
          const std::uint32_t v = cell.vertices[k];
          if (!(grid.vertices[v] == old[v])) {
            grid.vertices[v] = old[v];
            changed = true;
          }
        }
      }
    }
  }
}

}  // namespace cityforge::islands
