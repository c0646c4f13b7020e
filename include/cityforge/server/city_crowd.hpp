// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

#include "cityforge/core/result.hpp"
#include "cityforge/crowd/shepherd.hpp"
#include "cityforge/export/city_writer.hpp"
#include "cityforge/pipeline/city_config.hpp"
#include "cityforge/roads/roads.hpp"

/// The crowd's files of a generated city (shepherds.json), made where the city's exporter and
/// the crowd meet: exporter::write_city writes them (its ExtraFiles hook).
namespace cityforge::server {

/// The static groups of the config's `crowd` object as the crowd module takes them, in order.
/// Error (invalid_input) "crowd.shepherds[i].behaviour" for a behaviour crowd does not know.
Result<std::vector<crowd::ShepherdSpec>> shepherd_specs(const pipeline::CrowdSettings& crowd);

/// exporter::ExtraFiles for `cityforge generate` and `import`: when the config has a `crowd`
/// object, builds the runtime network from `lanes` (the lane graph written to lanes.json,
/// freeway included, so lane ids match the file) with the buildings of `layout_geojson` (the
/// city's, as `simulate` reads them, so both narrow the same sidewalk bands), places the shepherds
/// (crowd::place_city_shepherds) and returns shepherds.json. Without a `crowd` object: no
/// files. Tells log.note a line of timings and counts and log.warning each warning.
Result<std::vector<exporter::CityFile>> crowd_files(const pipeline::CityConfig& config,
                                                    const roads::Output& lanes,
                                                    const std::string& layout_geojson,
                                                    const exporter::CityLog& log);

}  // namespace cityforge::server
