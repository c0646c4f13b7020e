// SPDX-License-Identifier: Apache-2.0
#pragma once

// The stages of the city graph, shared by `generate` (city_pipeline.cpp) and `import`
// (import_city.cpp). A stage is handed its config values explicitly and captures nothing else,
// and its cache key is the canonical text of exactly those values (config_text): a stage cannot
// read config its key misses.

#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "cityforge/osm/osm.hpp"
#include "cityforge/pipeline/city_pipeline.hpp"
#include "cityforge/pipeline/stage_graph.hpp"
#include "cityforge/roads/meshes.hpp"
#include "pipeline/detail/config_schema.hpp"

namespace cityforge::pipeline::detail {

/// An input file as a stage is handed it: a changed file (size or time) changes its key.
struct SourceFile {
  std::string path;  ///< "" = none
  std::uintmax_t bytes = 0;
  std::int64_t modified = 0;  ///< Last write, in the file clock's ticks.
  static SourceFile at(const std::string& path);
};
std::string config_text(const SourceFile& file);
std::string config_text(const std::optional<osm::GeoBox>& box);
std::string config_text(const osm::NetworkConfig& c);
std::string config_text(const osm::ConditionConfig& c);
std::string config_text(const osm::BuildingConfig& c);
/// The heightfield spacing asked for (0 = automatic).
struct CellSize {
  double cell_m = 0.0;
};
std::string config_text(CellSize c);

/// How a stage's work is shared between ranks (CityPipeline::set_ranks). Handed like a config
/// value but never part of the cache key: the output is the same for any rank count.
struct Sharing {
  const Ranks* ranks = nullptr;
};
inline std::string config_text(Sharing) { return ""; }

/// The outputs a stage reads (StageOutput<T>, or std::optional of one for an optional input).
template <class... O>
struct Reads {
  std::tuple<O...> outputs;
};
template <class... O>
Reads<O...> reads(const O&... o) {
  return {std::tuple<O...>(o...)};
}

/// The config values a stage is handed (copied into the graph).
template <class... C>
struct Given {
  std::tuple<C...> values;
};
template <class... C>
Given<C...> given(const C&... c) {
  return {std::tuple<C...>(c...)};
}

/// Adds a stage computing `run(inputs..., config...)` -> Result<T>: the inputs are the outputs
/// of `in` (in order), the config the values of `config`, whose canonical text is the stage's
/// cache key (with the keys of its inputs).
template <class T, class... O, class... C, class F>
StageOutput<T> add_stage(StageGraph& g, std::string name, Reads<O...> in, Given<C...> config,
                         F run) {
  static_assert(std::is_empty_v<F>,
                "a stage function captures nothing: it reads the config it is handed, which is "
                "its cache key");
  std::string key;
  std::apply([&](const C&... c) { ((key += config_text(c)), ...); }, config.values);
  std::vector<StageGraph::Input> inputs;
  std::apply([&](const O&... o) { (inputs.emplace_back(o), ...); }, in.outputs);
  return g.template add<T>(
      std::move(name), inputs, std::move(key),
      [outs = std::move(in.outputs), cfg = std::move(config.values), run](const StageInputs& si) {
        return std::apply(
            [&](const O&... o) {
              return std::apply([&](const C&... c) -> Result<T> { return run(si.get(o)..., c...); },
                                cfg);
            },
            outs);
      });
}

/// The stages every city has, generated or imported.
struct CityStages {
  StageOutput<terrain::Heightfield> terrain;
  StageOutput<layout::Output> layout;
  StageOutput<roads::Output> roads;
  StageOutput<freeway::Output> freeway;
  StageOutput<buildings::StyleLibrary> styles;
  StageOutput<lots::Output> lots;
  StageOutput<buildings::Output> buildings;
  StageOutput<rooftops::RooftopOutput> rooftops;
  StageOutput<dressing::Output> dressing;
};

StageOutput<roads::Output> add_roads(StageGraph& g, const CityConfig& c,
                                     const StageOutput<terrain::Heightfield>& ground,
                                     const StageOutput<layout::Output>& city);
StageOutput<buildings::StyleLibrary> add_styles(StageGraph& g, const CityConfig& c);
StageOutput<buildings::Output> add_buildings(StageGraph& g, const CityConfig& c,
                                             const CityStages& s);
StageOutput<rooftops::RooftopOutput> add_rooftops(StageGraph& g, const CityConfig& c,
                                                  const CityStages& s, const Ranks& ranks);
/// Set dressing on everything before it (and the mapped features of an import).
StageOutput<dressing::Output> add_dressing(
    StageGraph& g, const CityConfig& c, const CityStages& s, const Ranks& ranks,
    const std::optional<StageOutput<dressing::Mapped>>& mapped = std::nullopt);

/// The outputs of the city stages of a run.
CityResult city_result(const StageValues& values, const CityStages& s,
                       std::vector<StageStats> stats);

}  // namespace cityforge::pipeline::detail
