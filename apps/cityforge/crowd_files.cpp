// SPDX-License-Identifier: Apache-2.0
// Crowd files of a generated city (shepherds.json): the config's shepherd groups placed on the
// sidewalks and the wandering shepherd's loops and walkers, written so a designer can edit the
// positions and the simulation loads them unchanged (seeds/002).
#include "crowd_files.hpp"

#include <chrono>
#include <cstdio>

#include "cityforge/export/export.hpp"
#include "cityforge/roads/roads.hpp"
#include "cityforge/traffic/network.hpp"

namespace cityforge::app {

Result<crowd::ShepherdsFile> make_shepherds(const pipeline::CityConfig& config,
                                            const crowd::WalkNetwork& walk,
                                            ShepherdsSummary* summary) {
  const auto t0 = std::chrono::steady_clock::now();
  ShepherdsSummary sum;
  crowd::ShepherdsFile file;
  for (std::size_t i = 0; i < config.crowd.shepherds.size(); ++i) {
    const pipeline::ShepherdSetting& s = config.crowd.shepherds[i];
    crowd::ShepherdSpec spec;
    spec.name = s.name;
    spec.polygon = s.polygon;
    spec.count = s.count;
    spec.density_per_m2 = s.density;
    spec.variant_mix = s.variant_mix;
    if (!crowd::shepherd_behaviour_from_string(s.behaviour, &spec.behaviour)) {
      return Error::invalid_input(
          "crowd.shepherds[" + std::to_string(i) + "].behaviour",
          "expected \"idle\" or \"look_around\", got \"" + s.behaviour + "\"");
    }
    crowd::PlaceReport rep;
    Result<crowd::ShepherdGroup> g = crowd::place_shepherds(walk, spec, config.seed, {}, &rep);
    if (!g) return g.error();
    if (rep.walkable_area_m2 <= 0 && spec.count > 0) {
      sum.warnings.push_back("shepherd '" + s.name + "': no sidewalk inside its polygon");
    } else if (rep.placed < rep.wanted) {
      sum.warnings.push_back("shepherd '" + s.name + "': placed " + std::to_string(rep.placed) +
                             " of " + std::to_string(rep.wanted) +
                             " members (no free spot 0.6 m from the others)");
    }
    sum.members += rep.placed;
    sum.wanted += rep.wanted;
    file.groups.push_back(std::move(*g));
  }
  const pipeline::WanderingSetting& w = config.crowd.wandering;
  if (w.paths > 0) {
    file.paths = crowd::make_wandering_paths(walk, w.paths, w.min_length_m, config.seed);
    file.walkers = crowd::make_wandering_members(walk, file.paths, w.members, config.seed);
    if (file.paths.size() < w.paths) {
      sum.warnings.push_back("wandering: " + std::to_string(file.paths.size()) + " of " +
                             std::to_string(w.paths) + " paths (the city has no more loops)");
    }
  }
  sum.groups = static_cast<std::uint32_t>(file.groups.size());
  sum.paths = static_cast<std::uint32_t>(file.paths.size());
  sum.walkers = static_cast<std::uint32_t>(file.walkers.size());
  sum.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (summary != nullptr) *summary = std::move(sum);
  return file;
}

Status write_crowd_files(const pipeline::CityConfig& config, const roads::Output& roads,
                         const std::filesystem::path& dir, bool quiet) {
  if (!config.crowd.present) return Ok{};
  const auto t0 = std::chrono::steady_clock::now();
  // 1. The network as `simulate` builds it from lanes.json (same lanes, same ids; lanes.json
  //    holds the coordinates rounded to 9 digits), without reading the file back.
  std::vector<roads::Control> controls(roads.intersections.size());
  for (std::size_t i = 0; i < controls.size(); ++i)
    controls[i] = roads.intersections[i].control;
  Result<traffic::Network> net = traffic::build_network(roads.lanes, controls);
  if (!net) return net.error();
  // The buildings as simulate reads them (layout.geojson, written before this hook), so both
  // narrow the same sidewalk bands and exclude the same lanes.
  std::vector<crowd::Footprint> buildings;
  const std::filesystem::path layout = dir / "layout.geojson";
  if (std::filesystem::exists(layout)) {
    Result<std::vector<crowd::Footprint>> b = crowd::load_building_footprints(layout.string());
    if (!b) return b.error();
    buildings = std::move(*b);
  }
  const crowd::WalkNetwork walk = crowd::build_walk_network(*net, buildings);
  // 2. Place, then write.
  ShepherdsSummary sum;
  Result<crowd::ShepherdsFile> file = make_shepherds(config, walk, &sum);
  if (!file) return file.error();
  const std::string text = crowd::shepherds_json(*file);
  if (Status s = exporter::write_file_atomic((dir / "shepherds.json").string(), text); !s) {
    return s;
  }
  if (!quiet) {
    const double total_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr,
                 "  %-10s %8.3f s  (%u groups, %u of %u members; %u wandering paths, %u "
                 "walkers; placement %.3f s)\n",
                 "shepherds", total_s, sum.groups, sum.members, sum.wanted, sum.paths, sum.walkers,
                 sum.wall_s);
    for (const std::string& warning : sum.warnings)
      std::fprintf(stderr, "cityforge: warning: %s\n", warning.c_str());
  }
  return Ok{};
}

}  // namespace cityforge::app
