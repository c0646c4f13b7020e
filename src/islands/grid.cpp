// SPDX-License-Identifier: Apache-2.0
// The island grid end to end (base pattern, subdivision, relaxation, layers) and its form as
// a WFC cell graph with slot-pair labels.
#include "cityforge/islands/grid.hpp"

#include <utility>

namespace cityforge::islands {

Result<LayeredGrid> build_grid(const GridConfig& config, Seed seed) {
  Result<PlanarGrid> base = base_grid(config, seed);
  if (!base) return base.error();
  LayeredGrid out;
  out.plane = config.subdivide ? subdivide(*base) : std::move(*base);
  relax(out.plane, config.relax_iterations);
  out.layers = config.layers;
  out.layer_m = config.layer_m;
  return out;
}

std::vector<wfc::Label> grid_opposite_labels() {
  std::vector<wfc::Label> opposite(kGridLabelCount);
  for (std::uint32_t k = 0; k < 4; ++k) {
    for (std::uint32_t j = 0; j < 4; ++j)
      opposite[side_label(k, j)] = side_label(j, k);
  }
  opposite[kUpLabel] = kDownLabel;
  opposite[kDownLabel] = kUpLabel;
  return opposite;
}

SideNeighbour side_neighbour(const PlanarGrid& grid, std::uint32_t cell, std::uint32_t slot) {
  const Edge& e = grid.edges[grid.cells[cell].edges[slot]];
  const int self = e.cells[0] == cell && e.slots[0] == slot ? 0 : 1;
  return {e.cells[1 - self], e.slots[1 - self]};
}

Vec2 cell_centroid(const PlanarGrid& grid, const Cell& cell) {
  Vec2 sum{0, 0};
  for (std::uint32_t k = 0; k < cell.count; ++k) {
    sum += grid.vertices[cell.vertices[k]];
  }
  return sum / cell.count;
}

wfc::Grid to_wfc_grid(const LayeredGrid& grid) {
  const PlanarGrid& plane = grid.plane;
  wfc::Grid g;
  g.cell_count = grid.cell_count();
  g.label_count = kGridLabelCount;
  g.opposite = grid_opposite_labels();
  g.offsets.reserve(g.cell_count + 1);
  g.sides.reserve(static_cast<std::size_t>(g.cell_count) * 6);
  for (std::uint32_t layer = 0; layer < grid.layers; ++layer) {
    for (std::uint32_t c = 0; c < plane.cells.size(); ++c) {
      g.offsets.push_back(static_cast<std::uint32_t>(g.sides.size()));
      const Cell& cell = plane.cells[c];
      for (std::uint32_t k = 0; k < cell.count; ++k) {
        const SideNeighbour n = side_neighbour(plane, c, k);
        if (n.cell == kNoCell) {
          g.sides.push_back({wfc::kBoundary, side_label(k, k)});
        } else {
          g.sides.push_back({grid.cell_id(n.cell, layer), side_label(k, n.slot)});
        }
      }
      g.sides.push_back(
          {layer + 1 < grid.layers ? grid.cell_id(c, layer + 1) : wfc::kBoundary, kUpLabel});
      g.sides.push_back({layer > 0 ? grid.cell_id(c, layer - 1) : wfc::kBoundary, kDownLabel});
    }
  }
  g.offsets.push_back(static_cast<std::uint32_t>(g.sides.size()));
  return g;
}

}  // namespace cityforge::islands
