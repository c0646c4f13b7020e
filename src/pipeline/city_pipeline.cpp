// SPDX-License-Identifier: Apache-2.0
// The city graph: which stage reads which, and which config slice each one hashes.
#include "cityforge/pipeline/city_pipeline.hpp"

namespace cityforge::pipeline {
namespace {

template <class T>
const T& as(const Value& v) {
  return *static_cast<const T*>(v.get());
}

}  // namespace

std::vector<std::string> CityPipeline::stage_names() {
  return {"terrain", "zoning", "layout", "roads", "freeway"};
}

Result<CityResult> CityPipeline::run(const CityConfig& config, Observer* observer) {
  const std::string seed = "seed=" + std::to_string(config.seed) + ";";
  std::vector<StageNode> nodes;
  // Terrain covers the city's bounds; it reads the terrain rules and the boundary's box only.
  const Aabb2 area = ring_bounds(config.inputs.boundary.outer);
  nodes.push_back(
      StageNode{"terrain",
                1,
                {},
                seed + config_slice(config, "terrain") + config_slice(config, "boundary_box"),
                [&config, area](const std::vector<Value>&) -> Result<Value> {
                  auto r = terrain::run(area, config.terrain, config.seed);
                  if (!r) return r.error();
                  return Value(std::make_shared<const terrain::Heightfield>(std::move(*r)));
                }});
  // Zoning needs no terrain: it runs beside it.
  nodes.push_back(StageNode{"zoning",
                            1,
                            {},
                            seed + config_slice(config, "zoning"),
                            [&config](const std::vector<Value>&) -> Result<Value> {
                              auto r =
                                  layout::build_zoning(config.inputs, config.layout, config.seed);
                              if (!r) return r.error();
                              return Value(std::make_shared<const layout::Zoning>(std::move(*r)));
                            }});
  nodes.push_back(StageNode{"layout",
                            1,
                            {0, 1},
                            seed + config_slice(config, "inputs") + config_slice(config, "layout"),
                            [&config](const std::vector<Value>& in) -> Result<Value> {
                              auto r = layout::run(config.inputs, as<terrain::Heightfield>(in[0]),
                                                   as<layout::Zoning>(in[1]), config.layout,
                                                   config.seed);
                              if (!r) return r.error();
                              return Value(std::make_shared<const layout::Output>(std::move(*r)));
                            }});
  nodes.push_back(StageNode{"roads",
                            1,
                            {0, 2},
                            seed + config_slice(config, "roads"),
                            [&config](const std::vector<Value>& in) -> Result<Value> {
                              auto r = roads::run(as<layout::Output>(in[1]),
                                                  as<terrain::Heightfield>(in[0]), config.roads,
                                                  config.seed);
                              if (!r) return r.error();
                              return Value(std::make_shared<const roads::Output>(std::move(*r)));
                            }});
  // Freeways join the roads (ramps reach artery lanes) and keep their own config slice.
  nodes.push_back(StageNode{
      "freeway",
      1,
      {0, 2, 3},
      seed + config_slice(config, "freeways"),
      [&config](const std::vector<Value>& in) -> Result<Value> {
        auto r = freeway::run(config.freeways, as<layout::Output>(in[1]), as<roads::Output>(in[2]),
                              as<terrain::Heightfield>(in[0]), freeway::Config{}, config.seed);
        if (!r) return r.error();
        return Value(std::make_shared<const freeway::Output>(std::move(*r)));
      }});
  std::vector<StageStats> stats;
  Result<std::vector<Value>> values = run_graph(nodes, m_cache, observer, &stats);
  if (!values) return values.error();
  CityResult out;
  out.terrain = std::static_pointer_cast<const terrain::Heightfield>((*values)[0]);
  out.layout = std::static_pointer_cast<const layout::Output>((*values)[2]);
  out.roads = std::static_pointer_cast<const roads::Output>((*values)[3]);
  out.freeway = std::static_pointer_cast<const freeway::Output>((*values)[4]);
  out.stages = std::move(stats);
  return out;
}

}  // namespace cityforge::pipeline
