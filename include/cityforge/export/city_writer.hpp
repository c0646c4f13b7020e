// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "cityforge/core/ranks.hpp"
#include "cityforge/core/result.hpp"
#include "cityforge/export/export.hpp"
#include "cityforge/pipeline/city_config.hpp"
#include "cityforge/pipeline/city_pipeline.hpp"
#include "cityforge/pipeline/import_city.hpp"
#include "cityforge/pipeline/stage_graph.hpp"
#include "cityforge/roads/roads.hpp"

/// The city folder a `cityforge generate` or `cityforge import` run writes (DESIGN.md, "Outputs
/// a user gets from one run"): every output built in memory first, then each file written
/// through a temporary name and a rename, stats.json last, so a failed run leaves no
/// half-written file and a folder with stats.json is complete.
namespace cityforge::exporter {

/// A file of the city folder made in memory: its path under the folder and its bytes.
struct CityFile {
  std::string path;  ///< Relative, e.g. "shepherds.json".
  std::string bytes;
};

/// Where a long run reports as it goes. Every member may be empty: nothing is told.
struct CityLog {
  pipeline::Observer* stages = nullptr;  ///< Told of the stages and of the "export" step.
  /// A progress line (no newline), e.g. the shepherds' timing and counts.
  std::function<void(const std::string&)> note;
  /// A warning (no newline): the import's, the set dressing's, the shepherds'.
  std::function<void(const std::string&)> warning;
};

/// Makes more files of the city once its own files are written and before stats.json (the
/// crowd's shepherds.json, server::crowd_files). `lanes` is the lane graph as lanes.json holds
/// it (the streets' lanes with the freeway joined); `layout_geojson` the city's layout.geojson
/// as written (under its temporary name: every file goes into place together at the end).
using ExtraFiles = std::function<Result<std::vector<CityFile>>(
    const pipeline::CityConfig& config, const roads::Output& lanes,
    const std::string& layout_geojson, const CityLog& log)>;

/// How and where write_city writes.
struct CityWriteOptions {
  std::string out_dir = "out";  ///< Created (with its parents) when missing.
  bool sumo_convert = true;     ///< Run SUMO's netconvert on sumo/*.xml when it is on PATH.
  bool tiles = false;           ///< Also write the 3D Tiles tileset (out_dir/tiles/).
  bool city_glb = true;         ///< Write city.glb (false with --no-city-glb).
  /// OpenDRIVE minor version of opendrive/city.xodr: 4 (1.4, the default) or 8 (1.8).
  int opendrive_minor = 4;
  int threads = 1;  ///< The worker thread count, for stats.json only.
  /// When the command began: stats.json's total_wall_s counts from here.
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  ExtraFiles extra_files;  ///< Optional.
  CityLog log;
  /// The processes sharing the run (nullptr: this one alone). Every rank runs the city's
  /// stages and calls write_city; the tiles are shared out (write_tileset), rank 0 writes
  /// every other file and stats.json. The files are the same for any rank count.
  const Ranks* ranks = nullptr;
  /// Passed to TilesetOptions::before_tile (fault-injection tests); empty: nothing.
  std::function<Status(const std::string&)> before_tile;
};

/// What write_city wrote.
struct CityWriteReport {
  /// Console lines, each ending in '\n': the figures (pipeline::CityStats::summary), the files
  /// written, the SUMO note and how to look at the city (and, for an import, the data credit).
  std::string summary;
  std::string sumo_note;  ///< What became of sumo/city.net.xml (convert_for_sumo).
};

/// Exports `city` into memory (city.glb, layout.geojson, map.svg, lanes.json with the freeway
/// joined, the point clouds of road and building modules, props, parking spots and audio, the
/// SUMO plain XML), then writes every file into options.out_dir through a temporary name and a
/// rename: those files, then the extra files, then stats.json (pipeline::city_stats of
/// city.stages plus the "export" step). Then runs netconvert when asked. With several ranks
/// (options.ranks) this is collective: rank 0 exports and writes the files, every rank its
/// share of the tiles; every rank returns the same error when one fails. `origin` places an
/// imported city on Earth (layout.geojson); `import` adds stats.json's "import" object.
/// Errors: an exporter's (invalid_input for non-finite values), a folder or file that cannot be
/// written (io), the extra files'.
Result<CityWriteReport> write_city(const pipeline::CityConfig& config,
                                   const pipeline::CityResult& city,
                                   const CityWriteOptions& options, const Origin& origin = {},
                                   const pipeline::ImportReport* import = nullptr);

/// `cityforge generate`: runs the city's stages for `config` (pipeline::CityPipeline), then
/// write_city. An input error of a stage gets `source` (the config's file) in front of its
/// place. The caller sets the thread count (oneTBB's global_control).
Result<CityWriteReport> generate_city(const pipeline::CityConfig& config, const std::string& source,
                                      const CityWriteOptions& options);

/// `cityforge import`: runs pipeline::import_city on `settings` with the city named after the
/// map file (its warnings go to options.log.warning), then write_city with the place's
/// geo-reference and data credit in every output and the import's census in stats.json "import".
Result<CityWriteReport> import_place(const pipeline::ImportSettings& settings,
                                     const CityWriteOptions& options);

/// Converts the SUMO plain XML in `sumo_dir` (city.nod/edg/con/tll.xml) into city.net.xml with
/// SUMO's netconvert when it is on PATH, keeping our coordinates, connections and signal
/// programs; netconvert's messages go to sumo_dir/netconvert.log. The network is written to a
/// temporary name and renamed when complete. Returns a note for the summary (never fails: a
/// missing or failing netconvert is said in the note).
std::string convert_for_sumo(const std::string& sumo_dir);

}  // namespace cityforge::exporter
