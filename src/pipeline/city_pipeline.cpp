// SPDX-License-Identifier: Apache-2.0
// The city graph of a generated city: which stage reads which outputs and which config values.
// The config a stage is handed is its cache key (see city_stages.hpp).
#include "cityforge/pipeline/city_pipeline.hpp"

#include "pipeline/detail/city_stages.hpp"

namespace cityforge::pipeline {
namespace {

struct Generate {
  StageGraph graph;
  detail::CityStages city;
};

Generate generate_graph(const CityConfig& c, const Ranks& ranks = single_rank()) {
  using detail::add_stage;
  using detail::given;
  using detail::reads;
  Generate out;
  StageGraph& g = out.graph;
  detail::CityStages& s = out.city;
  // Terrain covers the city's bounds: it is handed the boundary's box, not the boundary.
  s.terrain = add_stage<terrain::Heightfield>(
      g, "terrain", reads(), given(c.terrain, ring_bounds(c.inputs.boundary.outer), c.seed),
      [](const terrain::Config& rules, const Aabb2& area, Seed seed) {
        return terrain::run(area, rules, seed);
      });
  // Zoning needs no terrain: it runs beside it (and checks the whole layout input and rules).
  const auto zoning =
      add_stage<layout::Zoning>(g, "zoning", reads(), given(c.inputs, c.layout, c.seed),
                                [](const layout::Inputs& in, const layout::Config& rules,
                                   Seed seed) { return layout::build_zoning(in, rules, seed); });
  s.layout = add_stage<layout::Output>(
      g, "layout", reads(s.terrain, zoning), given(c.inputs, c.layout, c.seed),
      [](const terrain::Heightfield& ground, const layout::Zoning& zones, const layout::Inputs& in,
         const layout::Config& rules,
         Seed seed) { return layout::run(in, ground, zones, rules, seed); });
  s.roads = detail::add_roads(g, c, s.terrain, s.layout);
  // Freeways join the roads (ramps reach artery lanes); their own rules are the stage's.
  s.freeway = add_stage<freeway::Output>(
      g, "freeway", reads(s.terrain, s.layout, s.roads), given(c.freeways, c.seed),
      [](const terrain::Heightfield& ground, const layout::Output& city, const roads::Output& rd,
         const std::vector<freeway::FreewayCurve>& curves,
         Seed seed) { return freeway::run(curves, city, rd, ground, freeway::Config{}, seed); });
  s.styles = detail::add_styles(g, c);
  // Lots keep out of the freeway's footprint (seeds/000, 14:45).
  s.lots = add_stage<lots::Output>(
      g, "lots", reads(s.layout, s.freeway, s.styles), given(c.lots, c.seed),
      [](const layout::Output& city, const freeway::Output& fw,
         const buildings::StyleLibrary& styles, const lots::Config& rules, Seed seed) {
        return lots::run(city, fw.footprints, buildings::lot_style_rules(styles), rules, seed);
      });
  s.buildings = detail::add_buildings(g, c, s);
  s.rooftops = detail::add_rooftops(g, c, s, ranks);
  s.dressing = detail::add_dressing(g, c, s, ranks);
  return out;
}

}  // namespace

std::vector<std::string> CityPipeline::stage_names() {
  const Generate gen = generate_graph(CityConfig{});
  std::vector<std::string> names;
  for (const StageNode& n : gen.graph.nodes())
    names.push_back(n.name);
  return names;
}

std::vector<std::pair<std::string, std::vector<std::string>>> CityPipeline::stage_inputs() {
  const Generate gen = generate_graph(CityConfig{});
  const std::vector<StageNode>& nodes = gen.graph.nodes();
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (const StageNode& n : nodes) {
    std::vector<std::string> inputs;
    for (std::size_t i : n.inputs)
      inputs.push_back(nodes[i].name);
    out.emplace_back(n.name, std::move(inputs));
  }
  return out;
}

Result<CityResult> CityPipeline::run(const CityConfig& config, Observer* observer) {
  const Generate gen = generate_graph(config, *m_ranks);
  std::vector<StageStats> stats;
  Result<StageValues> values = gen.graph.run(m_cache, observer, &stats);
  if (!values) return values.error();
  return detail::city_result(*values, gen.city, std::move(stats));
}

}  // namespace cityforge::pipeline
