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

Result<buildings::StyleLibrary> load_styles(
    const std::vector<std::pair<std::string, std::string>>& sources) {
  std::vector<buildings::Style> styles;
  styles.reserve(sources.size());
  for (const auto& [file, text] : sources) {
    auto style = buildings::parse_style(text, file);
    if (!style) return style.error();
    styles.push_back(std::move(*style));
  }
  if (styles.empty()) return Error::invalid_input("buildings.styles", "no building style given");
  return buildings::make_library(std::move(styles));
}

std::vector<lots::StyleRule> lot_style_rules(const buildings::StyleLibrary& library) {
  std::vector<lots::StyleRule> rules;
  rules.reserve(library.styles.size());
  for (const buildings::Style& s : library.styles) {
    lots::StyleRule r;
    r.name = s.name;
    r.source = s.file + ": /min_wall_m";
    r.min_wall_m = s.min_wall_m;
    r.zone_mask = s.zone_mask;
    r.min_height_m = s.min_height_m;
    r.max_height_m = s.max_height_m;
    r.weight = s.weight;
    r.ground_floor_m = s.ground.height_m;
    r.floor_m = s.typical.height_m;
    r.cubified_share = s.cubified_share;
    r.staggered_share = s.staggered_share;
    if (!s.shapes.empty()) {
      r.shape_mask = 0;
      for (const std::string& name : s.shapes) {
        lots::FootprintShape shape{};
        if (lots::footprint_shape_from_string(name, &shape))
          r.shape_mask |= 1U << static_cast<unsigned>(shape);
      }
    }
    rules.push_back(std::move(r));
  }
  return rules;
}

Result<rooftops::RooftopOutput> build_city_rooftops(const buildings::Output& buildings,
                                                    const rooftops::RooftopConfig& config,
                                                    Seed seed) {
  rooftops::RooftopOutput out;
  if (config.enabled) {
    Result<wfc::Model> model = rooftops::builtin_rooftop_model();
    if (!model) return model.error();
    Result<rooftops::RooftopOutput> built =
        rooftops::build_rooftops(buildings, *model, config, seed);
    if (!built) return built.error();
    out = std::move(*built);
  }
  out.cell_m = config.cell_m;
  out.level_m = config.level_m;
  return out;
}

std::vector<std::string> CityPipeline::stage_names() {
  return {"terrain", "zoning", "layout",    "roads",    "road_meshes", "freeway",
          "styles",  "lots",   "buildings", "rooftops", "dressing"};
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
  // Styles are data: parsing them is its own stage, keyed by the texts.
  nodes.push_back(StageNode{"styles",
                            1,
                            {},
                            config_slice(config, "styles"),
                            [&config](const std::vector<Value>&) -> Result<Value> {
                              auto r = load_styles(config.buildings.style_sources);
                              if (!r) return r.error();
                              return Value(
                                  std::make_shared<const buildings::StyleLibrary>(std::move(*r)));
                            }});
  // Lots keep out of the freeway's footprint (seeds/000, 14:45).
  nodes.push_back(StageNode{
      "lots",
      1,
      {2, 4, 5},
      seed + config_slice(config, "lots"),
      [&config](const std::vector<Value>& in) -> Result<Value> {
        const auto rules = lot_style_rules(as<buildings::StyleLibrary>(in[2]));
        auto r = lots::run(as<layout::Output>(in[0]), as<freeway::Output>(in[1]).footprints, rules,
                           config.lots, config.seed);
        if (!r) return r.error();
        return Value(std::make_shared<const lots::Output>(std::move(*r)));
      }});
  nodes.push_back(StageNode{
      "buildings",
      1,
      {0, 5, 6},
      seed + config_slice(config, "buildings"),
      [&config](const std::vector<Value>& in) -> Result<Value> {
        auto r = buildings::run(as<lots::Output>(in[2]), as<buildings::StyleLibrary>(in[1]),
                                config.buildings.tag_volumes, as<terrain::Heightfield>(in[0]),
                                config.buildings.generator, config.seed);
        if (!r) return r.error();
        return Value(std::make_shared<const buildings::Output>(std::move(*r)));
      }});
  // WFC rooftops on the flat roofs (seeds/000, 43:01): each roof an independent solve.
  nodes.push_back(StageNode{
      "rooftops",
      1,
      {7},
      seed + config_slice(config, "rooftops"),
      [&config](const std::vector<Value>& in) -> Result<Value> {
        auto r = build_city_rooftops(as<buildings::Output>(in[0]), config.rooftops, config.seed);
        if (!r) return r.error();
        return Value(std::make_shared<const rooftops::RooftopOutput>(std::move(*r)));
      }});
  // Set dressing reads every stage before it; a bad biome is a warning, not a failure. Roof
  // tiers with a WFC rooftop get no rooftop biome.
  nodes.push_back(
      StageNode{"dressing",
                1,
                {0, 2, 3, 4, 5, 6, 7, 8},
                seed + config_slice(config, "dressing"),
                [&config](const std::vector<Value>& in) -> Result<Value> {
                  std::vector<dressing::Biome> biomes;
                  std::vector<std::string> warnings;
                  for (const auto& [file, text] : config.dressing.biome_sources) {
                    Result<dressing::Biome> b = dressing::parse_biome(text, file);
                    if (b) {
                      biomes.push_back(std::move(*b));
                    } else {
                      warnings.push_back(b.error().to_string() + " (biome skipped)");
                    }
                  }
                  dressing::Inputs inputs;
                  inputs.ground = &as<terrain::Heightfield>(in[0]);
                  inputs.city = &as<layout::Output>(in[1]);
                  inputs.roads = &as<roads::Output>(in[2]);
                  inputs.freeway = &as<freeway::Output>(in[3]);
                  inputs.styles = &as<buildings::StyleLibrary>(in[4]);
                  inputs.lots = &as<lots::Output>(in[5]);
                  inputs.buildings = &as<buildings::Output>(in[6]);
                  inputs.rooftops = &as<rooftops::RooftopOutput>(in[7]);
                  auto r = dressing::run(inputs, biomes, config.dressing.rules, config.seed);
                  if (!r) return r.error();
                  r->warnings.insert(r->warnings.begin(), warnings.begin(), warnings.end());
                  return Value(std::make_shared<const dressing::Output>(std::move(*r)));
                }});
  // The roads stage's surface meshes: their own node (appended, it runs beside the freeway) so
  // the road geometry and lane graph stay cheap to rebuild and a raise only re-meshes. It reads
  // the raises (export keys, copied into config.roads) as well as the road rules.
  nodes.push_back(StageNode{
      "road_meshes",
      1,
      {0, 2, 3},
      config_slice(config, "roads") + config_slice(config, "export"),
      [&config](const std::vector<Value>& in) -> Result<Value> {
        auto r =
            roads::build_surface_meshes(as<layout::Output>(in[1]), as<terrain::Heightfield>(in[0]),
                                        &as<roads::Output>(in[2]), config.roads);
        if (!r) return r.error();
        return Value(std::make_shared<const roads::SurfaceMeshes>(std::move(*r)));
      }});
  std::vector<StageStats> stats;
  Result<std::vector<Value>> values = run_graph(nodes, m_cache, observer, &stats);
  if (!values) return values.error();
  CityResult out;
  out.terrain = std::static_pointer_cast<const terrain::Heightfield>((*values)[0]);
  out.layout = std::static_pointer_cast<const layout::Output>((*values)[2]);
  out.roads = std::static_pointer_cast<const roads::Output>((*values)[3]);
  out.freeway = std::static_pointer_cast<const freeway::Output>((*values)[4]);
  out.styles = std::static_pointer_cast<const buildings::StyleLibrary>((*values)[5]);
  out.lots = std::static_pointer_cast<const lots::Output>((*values)[6]);
  out.buildings = std::static_pointer_cast<const buildings::Output>((*values)[7]);
  out.rooftops = std::static_pointer_cast<const rooftops::RooftopOutput>((*values)[8]);
  out.dressing = std::static_pointer_cast<const dressing::Output>((*values)[9]);
  out.road_meshes = std::static_pointer_cast<const roads::SurfaceMeshes>((*values)[10]);
  out.stages = std::move(stats);
  return out;
}

}  // namespace cityforge::pipeline
