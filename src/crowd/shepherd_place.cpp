// SPDX-License-Identifier: Apache-2.0
// A city's shepherds.json content: its static groups placed on the sidewalks and the wandering
// shepherd's loops and walkers, so a designer can edit the positions and the simulation loads
// them unchanged (seeds/002).
#include "cityforge/crowd/shepherd_place.hpp"

#include <chrono>
#include <utility>

namespace cityforge::crowd {

Result<ShepherdsFile> place_city_shepherds(const WalkNetwork& walk,
                                           const std::vector<ShepherdSpec>& groups,
                                           const WanderingSpec& wandering, Seed seed,
                                           ShepherdsSummary* summary) {
  const auto t0 = std::chrono::steady_clock::now();
  ShepherdsSummary sum;
  ShepherdsFile file;
  for (const ShepherdSpec& spec : groups) {
    PlaceReport rep;
    Result<ShepherdGroup> g = place_shepherds(walk, spec, seed, {}, &rep);
    if (!g) return g.error();
    if (rep.walkable_area_m2 <= 0 && spec.count > 0) {
      sum.warnings.push_back("shepherd '" + spec.name + "': no sidewalk inside its polygon");
    } else if (rep.placed < rep.wanted) {
      sum.warnings.push_back("shepherd '" + spec.name + "': placed " + std::to_string(rep.placed) +
                             " of " + std::to_string(rep.wanted) +
                             " members (no free spot 0.6 m from the others)");
    }
    sum.members += rep.placed;
    sum.wanted += rep.wanted;
    file.groups.push_back(std::move(*g));
  }
  if (wandering.paths > 0) {
    file.paths = make_wandering_paths(walk, wandering.paths, wandering.min_length_m, seed);
    file.walkers = make_wandering_members(walk, file.paths, wandering.members, seed);
    if (file.paths.size() < wandering.paths) {
      sum.warnings.push_back("wandering: " + std::to_string(file.paths.size()) + " of " +
                             std::to_string(wandering.paths) +
                             " paths (the city has no more loops)");
    }
  }
  sum.groups = static_cast<std::uint32_t>(file.groups.size());
  sum.paths = static_cast<std::uint32_t>(file.paths.size());
  sum.walkers = static_cast<std::uint32_t>(file.walkers.size());
  sum.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (summary != nullptr) *summary = std::move(sum);
  return file;
}

}  // namespace cityforge::crowd
