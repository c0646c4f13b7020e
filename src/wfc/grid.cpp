// SPDX-License-Identifier: Apache-2.0
// Cell graphs for the solver: square grids in 1, 2 and 3 dimensions, and the checks a
// user-built graph must pass.

#include <algorithm>
#include <string>

#include "cityforge/wfc/wfc.hpp"

namespace cityforge::wfc {

Grid square_grid(std::uint32_t size_x, std::uint32_t size_y, std::uint32_t size_z,
                 std::uint32_t dimensions) {
  Grid g;
  g.size_x = size_x;
  g.size_y = size_y;
  g.size_z = size_z;
  const std::uint32_t dims =
      std::min(3U, std::max(dimensions, size_z > 1 ? 3U : (size_y > 1 ? 2U : 1U)));
  g.label_count = 2U * dims;
  g.opposite.resize(g.label_count);
  for (std::uint32_t d = 0; d < g.label_count; ++d)
    g.opposite[d] = static_cast<Label>(d ^ 1U);
  g.cell_count = size_x * size_y * size_z;
  g.offsets.reserve(g.cell_count + 1);
  g.sides.reserve(static_cast<std::size_t>(g.cell_count) * g.label_count);
  const auto id = [&](std::uint32_t x, std::uint32_t y, std::uint32_t z) {
    return x + size_x * (y + size_y * z);
  };
  for (std::uint32_t z = 0; z < size_z; ++z) {
    for (std::uint32_t y = 0; y < size_y; ++y) {
      for (std::uint32_t x = 0; x < size_x; ++x) {
        g.offsets.push_back(static_cast<std::uint32_t>(g.sides.size()));
        g.sides.push_back({x + 1 < size_x ? id(x + 1, y, z) : kBoundary, kPosX});
        g.sides.push_back({x > 0 ? id(x - 1, y, z) : kBoundary, kNegX});
        if (dims >= 2) {
          g.sides.push_back({y + 1 < size_y ? id(x, y + 1, z) : kBoundary, kPosY});
          g.sides.push_back({y > 0 ? id(x, y - 1, z) : kBoundary, kNegY});
        }
        if (dims >= 3) {
          g.sides.push_back({z + 1 < size_z ? id(x, y, z + 1) : kBoundary, kPosZ});
          g.sides.push_back({z > 0 ? id(x, y, z - 1) : kBoundary, kNegZ});
        }
      }
    }
  }
  g.offsets.push_back(static_cast<std::uint32_t>(g.sides.size()));
  return g;
}

Status validate_grid(const Grid& grid) {
  const std::string where = "wfc grid";
  if (grid.label_count == 0 || grid.label_count > kMaxLabels) {
    return Error::invalid_input(where, "label_count must be 1.." + std::to_string(kMaxLabels) +
                                           ", got " + std::to_string(grid.label_count));
  }
  if (grid.opposite.size() != grid.label_count) {
    return Error::invalid_input(where, "opposite needs " + std::to_string(grid.label_count) +
                                           " entries, got " + std::to_string(grid.opposite.size()));
  }
  for (std::uint32_t d = 0; d < grid.label_count; ++d) {
    const Label o = grid.opposite[d];
    if (o >= grid.label_count || grid.opposite[o] != d) {
      return Error::invalid_input(where, "opposite[" + std::to_string(d) +
                                             "] is not an involution (opposite[opposite[d]] "
                                             "must be d)");
    }
  }
  if (grid.offsets.size() != static_cast<std::size_t>(grid.cell_count) + 1 ||
      grid.offsets.front() != 0 || grid.offsets.back() != grid.sides.size()) {
    return Error::invalid_input(where,
                                "offsets need cell_count + 1 entries from 0 to the "
                                "number of sides");
  }
  for (CellId c = 0; c < grid.cell_count; ++c) {
    if (grid.offsets[c] > grid.offsets[c + 1]) {
      return Error::invalid_input(where, "offsets decrease at cell " + std::to_string(c));
    }
    for (std::uint32_t s = grid.offsets[c]; s < grid.offsets[c + 1]; ++s) {
      const Side& side = grid.sides[s];
      // Built only on failure: every solve validates its grid, and callers solve thousands.
      const auto at = [&] { return "cell " + std::to_string(c) + " side " + std::to_string(s); };
      if (side.label >= grid.label_count) {
        return Error::invalid_input(
            where, at() + ": label " + std::to_string(side.label) + " out of range");
      }
      if (side.cell == kBoundary) continue;
      if (side.cell >= grid.cell_count) {
        return Error::invalid_input(
            where, at() + ": neighbour " + std::to_string(side.cell) + " out of range");
      }
      bool answered = false;
      for (std::uint32_t t = grid.offsets[side.cell]; t < grid.offsets[side.cell + 1]; ++t) {
        if (grid.sides[t].cell == c && grid.sides[t].label == grid.opposite[side.label]) {
          answered = true;
          break;
        }
      }
      if (!answered) {
        return Error::invalid_input(where, at() + ": neighbour " + std::to_string(side.cell) +
                                               " has no side back with the opposite label");
      }
    }
  }
  return Ok{};
}

}  // namespace cityforge::wfc
