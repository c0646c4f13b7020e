// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

#include "cityforge/pipeline/city_config.hpp"
#include "cityforge/pipeline/city_pipeline.hpp"
#include "cityforge/pipeline/import_city.hpp"
#include "cityforge/pipeline/stage_graph.hpp"

/// stats.json: what the stages of one city run made (counts, km of streets, timings).
namespace cityforge::pipeline {

/// A run's figures as written and as told on the console, made from the same numbers.
struct CityStats {
  /// stats.json: version, city, seed, threads, road km by class, counts, junctions by control,
  /// lanes, road modules, freeway, lots, buildings, dressing, rooftops (when built), instances,
  /// stages (name, wall_s, cached, peak_rss_mib), total_wall_s, peak_rss_mib and, for an
  /// import, "import" (the ImportReport). Two-space indented JSON ending in a newline; keys in
  /// a fixed order.
  std::string json;
  /// Console lines (each ending in '\n', the first preceded by an empty line): roads and blocks,
  /// lots and buildings, rooftops (when built), dressing, stage times, junctions and lanes.
  std::string summary;
};

/// The figures of `city` built from `config`. `stages` are the stages' stats in order (the
/// caller's export step included), `threads` the worker thread count, `total_s` the wall time
/// so far; the process peak memory is read now. `import`: the report of an imported place.
CityStats city_stats(const CityConfig& config, const CityResult& city,
                     const std::vector<StageStats>& stages, int threads, double total_s,
                     const ImportReport* import = nullptr);

}  // namespace cityforge::pipeline
