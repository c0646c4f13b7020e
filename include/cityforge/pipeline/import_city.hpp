// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cityforge/osm/osm.hpp"
#include "cityforge/pipeline/city_config.hpp"
#include "cityforge/pipeline/city_pipeline.hpp"
#include "cityforge/pipeline/stage_graph.hpp"

/// `cityforge import`: a real place through the same stage graph as a generated city
/// (DESIGN.md: inputs from `osm`; CityPipeline::import). Stages: read the extract, resample the
/// DEM onto the local frame ("terrain"), build the road network and its blocks ("network"), cut
/// and fill the terrain under the roads ("condition"), the road processor, turn mapped
/// buildings into lots ("lots"), the building generator, rooftops, mapped features
/// ("features"), then the set dressing with them.
namespace cityforge::pipeline {

/// The data credit every import carries (ODbL).
inline constexpr const char* kOsmAttribution = "\u00a9 OpenStreetMap contributors";

struct ImportSettings {
  std::string osm_path;  ///< .osm or .osm.pbf
  /// DEM files (GeoTIFF, .hgt or .asc) and folders of them (osm::dem_files); several are
  /// mosaicked (osm::read_dem_mosaic), in any order. None = flat ground.
  std::vector<std::string> dem_paths;
  std::optional<osm::GeoBox> bbox;  ///< Default: the file's bounds.
  /// Heightfield spacing; 0 = automatic: 5 m, coarser for large areas (at most ~1 M samples).
  double cell_m = 0.0;
  /// The rules every stage reads (roads, buildings, dressing, export), from the built-in
  /// default city unless a caller sets them; `rules.seed` seeds every draw.
  CityConfig rules;
  osm::NetworkConfig network;
  osm::ConditionConfig condition;
  osm::BuildingConfig buildings;
};

/// What the import read, made and skipped (stats.json "import").
struct ImportReport {
  std::string source;
  osm::GeoBox bounds;
  double lon0 = 0.0;
  double lat0 = 0.0;
  std::string local_crs;
  double area_km2 = 0.0;
  double cell_m = 0.0;
  osm::ReadStats read;
  std::size_t nodes_kept = 0;
  std::size_t ways_kept = 0;
  std::size_t areas_kept = 0;
  std::optional<osm::DemStats> dem;
  osm::ConditionStats condition;
  osm::RoadCensus roads;
  osm::BuildingCensus buildings;
  osm::FeatureCensus features;
  std::vector<std::string> warnings;
};

struct ImportResult {
  CityResult city;
  ImportReport report;
  std::shared_ptr<const osm::Projection> projection;
  std::shared_ptr<const dressing::Mapped> mapped;
  std::vector<osm::PathWay> paths;
};

/// Runs the import on a fresh CityPipeline. Errors name the file and what was expected (see
/// osm::read_file, osm::dem_files, osm::read_dem_mosaic). Deterministic: same files (in any
/// order), bbox and seed give the same city at any thread count.
Result<ImportResult> import_city(const ImportSettings& settings, Observer* observer = nullptr);

/// The heightfield spacing import_city uses for an area of `area_m2` when cell_m is 0.
double auto_cell_m(double area_m2);

}  // namespace cityforge::pipeline
