// SPDX-License-Identifier: Apache-2.0
// Crowd files of a generated city: shepherds.json (apps/cityforge/crowd_files.cpp).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "cityforge/core/result.hpp"
#include "cityforge/crowd/shepherd.hpp"
#include "cityforge/pipeline/city_config.hpp"
#include "cityforge/roads/roads.hpp"

namespace cityforge::app {

/// What make_shepherds placed.
struct ShepherdsSummary {
  std::uint32_t groups = 0;
  std::uint32_t members = 0;  ///< Placed, all groups.
  std::uint32_t wanted = 0;   ///< min(count, density x area), all groups.
  std::uint32_t paths = 0;
  std::uint32_t walkers = 0;
  double wall_s = 0;                  ///< Network, placement and paths (not the write).
  std::vector<std::string> warnings;  ///< Groups short of members, polygons with no sidewalk.
};

/// The shepherds of the config's `crowd` object on `walk` (docs/city-config.md): every group
/// placed with crowd::place_shepherds, the wandering paths and members, all from `config.seed`.
Result<crowd::ShepherdsFile> make_shepherds(const pipeline::CityConfig& config,
                                            const crowd::WalkNetwork& walk,
                                            ShepherdsSummary* summary);

/// The `cityforge generate` hook, called once the city's files are written: when the config
/// has a `crowd` object, builds the runtime network from `roads` (the lane graph written to
/// DIR/lanes.json, freeway included, so lane ids match the file), places the shepherds and
/// writes DIR/shepherds.json through a temporary name. Without a `crowd` object it writes
/// nothing. Prints a summary line and warnings to stderr unless `quiet`.
Status write_crowd_files(const pipeline::CityConfig& config, const roads::Output& roads,
                         const std::filesystem::path& dir, bool quiet);

}  // namespace cityforge::app
