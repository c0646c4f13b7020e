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

/// How one run went, as opposed to what it made: stats.json's last member, "timings", the only
/// part that differs between runs of the same inputs (threads, ranks, seconds, memory).
struct RunTimings {
  int threads = 1;                 ///< Worker threads per rank.
  int ranks = 1;                   ///< MPI ranks (1 without mpirun).
  std::vector<StageStats> stages;  ///< In order, the writer's steps included.
  double total_s = 0.0;            ///< Wall time of the command so far.
  /// Per rank, in rank order: peak memory (MiB) and the seconds its share of the tiles took.
  /// Empty: this process alone (its peak memory is read now).
  std::vector<std::pair<double, double>> per_rank;
  /// More members of "timings" as JSON object text ("{...}"), e.g. the tile writer's
  /// thread-seconds; empty for none.
  std::string more;
};

/// A run's figures as written and as told on the console, made from the same numbers.
struct CityStats {
  /// stats.json: version, city, seed, road km by class, counts, junctions by control, lanes,
  /// road modules, freeway, lots, buildings, dressing, rooftops (when built), instances, for an
  /// import "import" (the ImportReport), the caller's sections (e.g. "tiles"), and last
  /// "timings" (RunTimings: threads, ranks, stages with name, wall_s, cached and peak_rss_mib,
  /// total_wall_s, peak_rss_mib, per-rank figures). Everything before "timings" is the same,
  /// byte for byte, for the same inputs whatever the thread or rank count. Two-space indented
  /// JSON ending in a newline; keys in a fixed order.
  std::string json;
  /// Console lines (each ending in '\n', the first preceded by an empty line): roads and blocks,
  /// lots and buildings, rooftops (when built), dressing, stage times, junctions and lanes.
  std::string summary;
};

/// The figures of `city` built from `config` and how the run went (`timings`). `import`: the
/// report of an imported place. `sections`: more members of the deterministic part as JSON
/// object text ("{\"tiles\": {...}}"), placed before "timings"; empty for none.
CityStats city_stats(const CityConfig& config, const CityResult& city, const RunTimings& timings,
                     const ImportReport* import = nullptr, const std::string& sections = "");

}  // namespace cityforge::pipeline
