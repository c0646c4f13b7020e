// SPDX-License-Identifier: Apache-2.0
// The `wfc` subcommand (apps/cityforge/wfc_cmd.cpp): solve a WFC model on a square grid.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "cityforge/core/result.hpp"
#include "cityforge/wfc/wfc.hpp"

namespace cityforge::app {

struct WfcOptions {
  /// A model JSON path, "builtin:NAME" or a built-in name (data/wfc/NAME.json, e.g. cat,
  /// city_blocks, rooftop).
  std::string model;
  std::string size;  ///< "X,Y,Z" (or "X,Y", "X"): cells per axis, each >= 1.
  std::uint64_t seed = 1;
  std::string out;                 ///< .json (tile names per cell + stats) or .glb (instances).
  std::string trace;               ///< Optional: every observe / propagate step as JSON.
  std::vector<std::string> fixed;  ///< "x,y,z=tile" pre-placements.
  std::uint32_t block = 0;         ///< Block size for block-wise solving; 0: one global solve.
  std::uint32_t backtracks = 64;   ///< Backtrack budget per attempt.
  std::uint32_t restarts = 3;      ///< Fresh attempts after a failed one.
  double cell_m = 3.0;             ///< Cell size in out.glb (metres; levels as tall).
  bool quiet = false;
};

/// Grid sizes from "X,Y,Z" ("X,Y" and "X" leave the rest 1); every size >= 1 and the cell count
/// at most 16 M. Errors name --size, what was expected and what was given.
Result<std::array<std::uint32_t, 3>> parse_wfc_size(const std::string& text);

/// A square grid of `dimensions` (1, 2 or 3) axes, whatever the sizes: a 3D model solves a
/// one-layer grid with six labels (up and down lead off the grid).
wfc::Grid square_grid_with_labels(std::uint32_t size_x, std::uint32_t size_y, std::uint32_t size_z,
                                  std::uint32_t dimensions);

/// Reads a model: a path, "builtin:NAME" or a built-in name.
Result<wfc::Model> load_wfc_model(const std::string& spec);

int wfc(const WfcOptions& options);

}  // namespace cityforge::app
