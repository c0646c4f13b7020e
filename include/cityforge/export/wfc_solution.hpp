// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "cityforge/core/result.hpp"
#include "cityforge/wfc/wfc.hpp"

/// `cityforge wfc` (docs/wfc.md): one solve of a WFC model on a square grid, written as the tile
/// names per cell with the solver's stats (.json) or as instanced tiles (.glb), optionally with
/// every solver step (the trace), for iterating on a tile set as an artist.
namespace cityforge::exporter {

struct WfcRunOptions {
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
};

/// What run_wfc wrote.
struct WfcRunReport {
  std::string summary;  ///< Console lines, each ending in '\n'.
};

/// Grid sizes from "X,Y,Z" ("X,Y" and "X" leave the rest 1); every size >= 1 and the cell count
/// at most 16 M. Errors name --size, what was expected and what was given.
Result<std::array<std::uint32_t, 3>> parse_wfc_size(const std::string& text);

/// Reads a model: a path (it has a '/' or ends in .json), "builtin:NAME" or a built-in name
/// ("rooftop" is the city's rooftop model with its learnt layouts). Errors name the file, or
/// --model with the built-in names.
Result<wfc::Model> load_wfc_model(const std::string& spec);

/// Checks the options, loads the model, solves it on a square grid with the pre-placed tiles,
/// checks the solution independently of the solver, then writes options.out (and the trace)
/// through temporary names. Errors: invalid_input naming the option (-o, --cell, --size,
/// --fix, --model) or the model file, or when there is no solution within the budget.
Result<WfcRunReport> run_wfc(const WfcRunOptions& options);

}  // namespace cityforge::exporter
