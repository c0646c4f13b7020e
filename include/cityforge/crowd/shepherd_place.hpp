// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cityforge/core/result.hpp"
#include "cityforge/core/rng.hpp"
#include "cityforge/crowd/shepherd.hpp"
#include "cityforge/crowd/walk_network.hpp"

/// A city's shepherds (seeds/002): every static group of a city config placed, and the
/// wandering shepherd's loops and walkers made, as shepherds.json holds them.
namespace cityforge::crowd {

/// The wandering shepherd as a city asks for it (the config's `crowd.wandering`).
struct WanderingSpec {
  std::uint32_t paths = 0;    ///< Closed loops over the sidewalks; 0: no wandering shepherd.
  std::uint32_t members = 0;  ///< Walkers spread over them.
  double min_length_m = 300;  ///< Shortest loop kept (when any is this long).
};

/// What place_city_shepherds made.
struct ShepherdsSummary {
  std::uint32_t groups = 0;
  std::uint32_t members = 0;  ///< Placed, all groups.
  std::uint32_t wanted = 0;   ///< min(count, density x area), all groups.
  std::uint32_t paths = 0;
  std::uint32_t walkers = 0;
  double wall_s = 0;  ///< Placement and paths.
  /// Groups short of members or with no sidewalk in their polygon, fewer loops than asked.
  std::vector<std::string> warnings;
};

/// Places every group of `groups` on `walk` with place_shepherds (in order, default
/// PlaceOptions), then makes `wandering.paths` loops (make_wandering_paths) and
/// `wandering.members` walkers on them (make_wandering_members), all from `seed`: the same
/// network, specs and seed give the same file. Errors: place_shepherds' (they name the group's
/// spec). `summary` (optional) gets the counts and the warnings.
Result<ShepherdsFile> place_city_shepherds(const WalkNetwork& walk,
                                           const std::vector<ShepherdSpec>& groups,
                                           const WanderingSpec& wandering, Seed seed,
                                           ShepherdsSummary* summary = nullptr);

}  // namespace cityforge::crowd
