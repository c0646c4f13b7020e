// SPDX-License-Identifier: Apache-2.0
// The `island` subcommand (apps/cityforge/island_cmd.cpp): one island level from a seed.
#pragma once

#include <string>

#include "cityforge/core/result.hpp"
#include "cityforge/islands/island.hpp"

namespace cityforge::app {

/// Options as typed (numbers checked by island(), so every bad value exits 2 with its name).
struct IslandOptions {
  std::string seed = "1";      ///< Decimal, 0 .. 2^64-1.
  std::string size = "6";      ///< Hexagon radius in base cells, 2..24.
  std::string grid = "mixed";  ///< mixed, square or triangle.
  std::string layers = "5";    ///< Layers of cells, 2..12.
  std::string out;             ///< Output folder (created if missing).
  bool quiet = false;
};

/// The generator's config from the options, or an error naming the option (invalid_input).
Result<islands::IslandConfig> island_config(const IslandOptions& options);

/// Builds the tile set and the island, writes island.glb, island_nav.json, island_tiles.json
/// and stats.json into options.out (all or none) and prints a summary. Returns the exit code:
/// 0 done, 2 bad input (the message names the option) or no island within the solver's budget,
/// 1 other failure.
int island(const IslandOptions& options);

}  // namespace cityforge::app
