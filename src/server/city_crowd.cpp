// SPDX-License-Identifier: Apache-2.0
// shepherds.json of a generated city: the config's shepherd groups placed on the sidewalks and
// the wandering shepherd's loops and walkers (crowd::place_city_shepherds), on the network
// `simulate` will build from lanes.json.
#include "cityforge/server/city_crowd.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <utility>

#include "cityforge/crowd/shepherd_place.hpp"
#include "cityforge/crowd/walk_network.hpp"
#include "cityforge/traffic/network.hpp"

namespace cityforge::server {

Result<std::vector<crowd::ShepherdSpec>> shepherd_specs(const pipeline::CrowdSettings& crowd) {
  std::vector<crowd::ShepherdSpec> specs;
  for (std::size_t i = 0; i < crowd.shepherds.size(); ++i) {
    const pipeline::ShepherdSetting& s = crowd.shepherds[i];
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
    specs.push_back(std::move(spec));
  }
  return specs;
}

Result<std::vector<exporter::CityFile>> crowd_files(const pipeline::CityConfig& config,
                                                    const roads::Output& lanes,
                                                    const std::string& layout_geojson,
                                                    const exporter::CityLog& log) {
  std::vector<exporter::CityFile> files;
  if (!config.crowd.present) return files;
  const auto t0 = std::chrono::steady_clock::now();
  Result<std::vector<crowd::ShepherdSpec>> specs = shepherd_specs(config.crowd);
  if (!specs) return specs.error();
  // 1. The network as `simulate` builds it from lanes.json (same lanes, same ids; lanes.json
  //    holds the coordinates rounded to 9 digits), without reading the file back.
  std::vector<roads::Control> controls(lanes.intersections.size());
  for (std::size_t i = 0; i < controls.size(); ++i)
    controls[i] = lanes.intersections[i].control;
  Result<traffic::Network> net = traffic::build_network(lanes.lanes, controls);
  if (!net) return net.error();
  // The buildings as simulate reads them (layout.geojson, written before this hook), so both
  // narrow the same sidewalk bands and exclude the same lanes.
  std::vector<crowd::Footprint> buildings;
  if (std::filesystem::exists(layout_geojson)) {
    Result<std::vector<crowd::Footprint>> b = crowd::load_building_footprints(layout_geojson);
    if (!b) return b.error();
    buildings = std::move(*b);
  }
  const crowd::WalkNetwork walk = crowd::build_walk_network(*net, buildings);
  // 2. Place.
  const pipeline::WanderingSetting& w = config.crowd.wandering;
  crowd::ShepherdsSummary sum;
  Result<crowd::ShepherdsFile> file = crowd::place_city_shepherds(
      walk, *specs, {w.paths, w.members, w.min_length_m}, config.seed, &sum);
  if (!file) return file.error();
  files.push_back({"shepherds.json", crowd::shepherds_json(*file)});
  if (log.note) {
    const double total_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    char line[256];
    std::snprintf(line, sizeof line,
                  "  %-10s %8.3f s  (%u groups, %u of %u members; %u wandering paths, %u "
                  "walkers; placement %.3f s)",
                  "shepherds", total_s, sum.groups, sum.members, sum.wanted, sum.paths, sum.walkers,
                  sum.wall_s);
    log.note(line);
  }
  if (log.warning) {
    for (const std::string& warning : sum.warnings)
      log.warning(warning);
  }
  return files;
}

}  // namespace cityforge::server
