// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cityforge/buildings/buildings.hpp"
#include "cityforge/buildings/style.hpp"
#include "cityforge/core/ranks.hpp"
#include "cityforge/freeway/freeway.hpp"
#include "cityforge/layout/layout.hpp"
#include "cityforge/lots/lots.hpp"
#include "cityforge/pipeline/city_config.hpp"
#include "cityforge/pipeline/stage_graph.hpp"
#include "cityforge/roads/meshes.hpp"
#include "cityforge/roads/roads.hpp"
#include "cityforge/rooftops/rooftops.hpp"
#include "cityforge/terrain/heightfield.hpp"

namespace cityforge::pipeline {

/// The outputs of every stage of one run (shared with the cache, never modified).
struct CityResult {
  std::shared_ptr<const terrain::Heightfield> terrain;
  std::shared_ptr<const layout::Output> layout;
  std::shared_ptr<const roads::Output> roads;
  std::shared_ptr<const freeway::Output> freeway;
  std::shared_ptr<const buildings::StyleLibrary> styles;
  std::shared_ptr<const lots::Output> lots;
  std::shared_ptr<const buildings::Output> buildings;
  /// WFC rooftops on the flat roofs (empty when config.rooftops.enabled is false).
  std::shared_ptr<const rooftops::RooftopOutput> rooftops;
  std::shared_ptr<const dressing::Output> dressing;
  std::vector<StageStats> stages;  ///< In stage order.
};

/// Parses every (file, JSON text) style source and builds the library (errors name the file).
Result<buildings::StyleLibrary> load_styles(
    const std::vector<std::pair<std::string, std::string>>& sources);

/// Builds the WFC rooftops of `buildings` with the built-in rooftop model (an empty output with
/// the model's counts when config.enabled is false); records the cell sizes in the output. With
/// several `ranks` the roofs are shared out between them (rooftops::build_rooftops).
Result<rooftops::RooftopOutput> build_city_rooftops(const buildings::Output& buildings,
                                                    const rooftops::RooftopConfig& config,
                                                    Seed seed, const Ranks& ranks = single_rank());

struct ImportSettings;
struct ImportResult;

/// The city graph of DESIGN.md (terrain, zoning -> layout -> roads -> freeway;
/// styles; lots -> buildings -> rooftops -> dressing), with an in-memory cache: calling run()
/// again after changing one config key re-runs only the stages that read it and those downstream
/// of them. Each stage is handed exactly the config values it reads, and their canonical text is
/// its cache key (docs/city-config.md says which stages read each key).
class CityPipeline {
 public:
  /// `per_stage`: outputs kept per stage (see StageCache).
  explicit CityPipeline(std::size_t per_stage = 4) : m_cache(per_stage) {}
  /// Runs all stages for `config`. Deterministic: same config gives identical outputs at any
  /// thread count (thread count is set by the caller through oneTBB's global_control).
  Result<CityResult> run(const CityConfig& config, Observer* observer = nullptr);
  /// `cityforge import`: the same graph with the OSM stages (read, terrain from the DEM,
  /// network, condition, lots from mapped buildings, features) in place of the generated
  /// ones; same cache, stats and observer. Defined in import_city.cpp (see import_city.hpp).
  Result<ImportResult> import(const ImportSettings& settings, Observer* observer = nullptr);
  /// The processes sharing the work of the stages that split it (the rooftops' solves); every
  /// rank must then run the same configs in the same order. Default: this process alone. The
  /// outputs do not depend on it.
  void set_ranks(const Ranks* ranks) { m_ranks = ranks != nullptr ? ranks : &single_rank(); }
  /// How many times a stage actually ran (not served from the cache).
  std::size_t executions(const std::string& stage) const { return m_cache.executions(stage); }
  /// Stage names in order.
  static std::vector<std::string> stage_names();
  /// Each stage with the stages whose outputs it reads, in order.
  static std::vector<std::pair<std::string, std::vector<std::string>>> stage_inputs();

 private:
  StageCache m_cache;
  const Ranks* m_ranks = &single_rank();
};

}  // namespace cityforge::pipeline
