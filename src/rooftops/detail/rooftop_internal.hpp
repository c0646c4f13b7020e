// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cityforge/rooftops/rooftops.hpp"

// Shared by rooftops.cpp (grids, solves, instances) and rooftop_rules.cpp (post-solve
// neighbour rules): one solved roof and what the rules need to read from it.
namespace cityforge::rooftops::detail {

/// Wall props the neighbour rules add, indexed after the model's base tiles in
/// RooftopOutput::tile_names (their kit meshes hang on the cell's -y face).
inline const std::vector<std::string>& rooftop_prop_names() {
  static const std::vector<std::string> names = {"prop_wall_ac", "prop_wall_pipe", "prop_wall_sign",
                                                 "prop_wall_light"};
  return names;
}

/// Square-grid sides as a bitmask of wfc::SquareLabel bits (bit d = label d).
using SideMask = std::uint8_t;

/// Sides of a variant that carry a structure wall (struct_* tiles; 0 for everything else),
/// in grid labels after the variant's reflection and turns.
SideMask structure_walls(const wfc::Model& model, wfc::TileId tile);

/// One solved roof: its grid, the solution, and the cells' positions in the roof grid.
struct SolvedRoof {
  const wfc::Model* model = nullptr;
  const wfc::Grid* grid = nullptr;
  const std::vector<wfc::TileId>* tiles = nullptr;
  std::vector<std::uint32_t> cell_x, cell_y, cell_z;  ///< Per cell.
  Seed seed = 0;
  std::uint64_t object_id = 0;
};

/// Post-solve neighbour rules (seeds/000, 43:31): a colour per connected rooftop structure
/// (and per free-standing tile), and wall props on open deck cells next to a structure wall.
/// `colour` gets one entry per cell; props are (cell, turns so the prop's -y faces the wall,
/// prop index into rooftop_prop_names()). Deterministic per (seed, object_id).
struct RoofRules {
  std::vector<std::uint16_t> colour;
  struct Prop {
    wfc::CellId cell = 0;
    std::uint8_t turns = 0;
    std::uint32_t prop = 0;
    std::uint16_t colour = 0;
  };
  std::vector<Prop> props;
};
RoofRules apply_rooftop_rules(const SolvedRoof& roof);

}  // namespace cityforge::rooftops::detail
