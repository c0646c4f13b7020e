// SPDX-License-Identifier: Apache-2.0
// The stages every city has, generated or imported: roads, styles, buildings, rooftops and set
// dressing, each handed exactly the config it reads.
#include "pipeline/detail/city_stages.hpp"

#include <filesystem>

namespace cityforge::pipeline {

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

Result<rooftops::RooftopOutput> build_city_rooftops(const buildings::Output& buildings,
                                                    const rooftops::RooftopConfig& config,
                                                    Seed seed, const Ranks& ranks) {
  rooftops::RooftopOutput out;
  if (config.enabled) {
    Result<wfc::Model> model = rooftops::builtin_rooftop_model();
    if (!model) return model.error();
    Result<rooftops::RooftopOutput> built =
        rooftops::build_rooftops(buildings, *model, config, seed, ranks);
    if (!built) return built.error();
    out = std::move(*built);
  }
  out.cell_m = config.cell_m;
  out.level_m = config.level_m;
  return out;
}

namespace detail {

SourceFile SourceFile::at(const std::string& path) {
  SourceFile f;
  f.path = path;
  std::error_code ec;
  if (path.empty()) return f;
  const auto bytes = std::filesystem::file_size(path, ec);
  if (!ec) f.bytes = bytes;
  const auto time = std::filesystem::last_write_time(path, ec);
  if (!ec) f.modified = static_cast<std::int64_t>(time.time_since_epoch().count());
  return f;
}

std::string config_text(const SourceFile& file) {
  return json{file.path, file.bytes, file.modified}.dump();
}

std::string config_text(const std::optional<osm::GeoBox>& box) {
  if (!box) return "bbox=none;";
  return json{box->min_lon, box->min_lat, box->max_lon, box->max_lat}.dump();
}

// Each binds every member: adding one to the struct fails to compile here until it is hashed.
std::string config_text(const osm::NetworkConfig& c) {
  const auto& [signal_snap_m, crossing_snap_m, min_edge_m] = c;
  return json{signal_snap_m, crossing_snap_m, min_edge_m}.dump();
}

std::string config_text(const osm::ConditionConfig& c) {
  const auto& [shoulder_m, blend_m, smooth_m, max_grade, max_node_shift_m] = c;
  return json{shoulder_m, blend_m, smooth_m, max_grade, max_node_shift_m}.dump();
}

std::string config_text(const osm::BuildingConfig& c) {
  const auto& [min_area_m2, level_m, ground_level_m] = c;
  return json{min_area_m2, level_m, ground_level_m}.dump();
}

std::string config_text(CellSize c) { return "cell_m=" + json(c.cell_m).dump() + ";"; }

StageOutput<roads::Output> add_roads(StageGraph& g, const CityConfig& c,
                                     const StageOutput<terrain::Heightfield>& ground,
                                     const StageOutput<layout::Output>& city) {
  return add_stage<roads::Output>(
      g, "roads", reads(city, ground), given(c.roads, c.seed),
      [](const layout::Output& in, const terrain::Heightfield& hf, const roads::Config& rules,
         Seed seed) { return roads::run(in, hf, rules, seed); });
}

// Styles are data: parsing them is its own stage, keyed by the texts.
StageOutput<buildings::StyleLibrary> add_styles(StageGraph& g, const CityConfig& c) {
  return add_stage<buildings::StyleLibrary>(
      g, "styles", reads(), given(c.buildings.style_sources),
      [](const std::vector<std::pair<std::string, std::string>>& sources) {
        return load_styles(sources);
      });
}

StageOutput<buildings::Output> add_buildings(StageGraph& g, const CityConfig& c,
                                             const CityStages& s) {
  return add_stage<buildings::Output>(
      g, "buildings", reads(s.lots, s.styles, s.terrain),
      given(c.buildings.tag_volumes, c.buildings.generator, c.seed),
      [](const lots::Output& lots, const buildings::StyleLibrary& styles,
         const terrain::Heightfield& ground, const std::vector<buildings::TagVolume>& volumes,
         const buildings::Config& rules,
         Seed seed) { return buildings::run(lots, styles, volumes, ground, rules, seed); });
}

// WFC rooftops on the flat roofs (seeds/000, 43:01): each roof an independent solve.
StageOutput<rooftops::RooftopOutput> add_rooftops(StageGraph& g, const CityConfig& c,
                                                  const CityStages& s, const Ranks& ranks) {
  return add_stage<rooftops::RooftopOutput>(
      g, "rooftops", reads(s.buildings), given(c.rooftops, c.seed, Sharing{&ranks}),
      [](const buildings::Output& built, const rooftops::RooftopConfig& rules, Seed seed,
         Sharing sharing) { return build_city_rooftops(built, rules, seed, *sharing.ranks); });
}

// Set dressing reads every stage before it; a bad biome is a warning, not a failure. Roof
// tiers with a WFC rooftop get no rooftop biome; props stand on the roads stage's surfaces.
StageOutput<dressing::Output> add_dressing(
    StageGraph& g, const CityConfig& c, const CityStages& s, const Ranks& ranks,
    const std::optional<StageOutput<dressing::Mapped>>& mapped) {
  return add_stage<dressing::Output>(
      g, "dressing",
      reads(s.terrain, s.layout, s.roads, s.freeway, s.styles, s.lots, s.buildings, s.rooftops,
            mapped),
      given(c.dressing, c.seed, Sharing{&ranks}),
      [](const terrain::Heightfield& ground, const layout::Output& city, const roads::Output& rd,
         const freeway::Output& fw, const buildings::StyleLibrary& styles, const lots::Output& lots,
         const buildings::Output& built, const rooftops::RooftopOutput& rooftops,
         const dressing::Mapped* features, const DressingSettings& rules, Seed seed,
         Sharing sharing) -> Result<dressing::Output> {
        std::vector<dressing::Biome> biomes;
        std::vector<std::string> warnings;
        for (const auto& [file, text] : rules.biome_sources) {
          Result<dressing::Biome> b = dressing::parse_biome(text, file);
          if (b) {
            biomes.push_back(std::move(*b));
          } else {
            warnings.push_back(b.error().to_string() + " (biome skipped)");
          }
        }
        const dressing::Inputs in{.city = city,
                                  .roads = rd,
                                  .freeway = fw,
                                  .lots = lots,
                                  .buildings = built,
                                  .ground = ground,
                                  .styles = styles,
                                  .rooftops = rooftops,
                                  .mapped = features,
                                  .ranks = sharing.ranks};
        Result<dressing::Output> r = dressing::run(in, biomes, rules.rules, seed);
        if (r) r->warnings.insert(r->warnings.begin(), warnings.begin(), warnings.end());
        return r;
      });
}

CityResult city_result(const StageValues& values, const CityStages& s,
                       std::vector<StageStats> stats) {
  CityResult out;
  out.terrain = values.get(s.terrain);
  out.layout = values.get(s.layout);
  out.roads = values.get(s.roads);
  out.freeway = values.get(s.freeway);
  out.styles = values.get(s.styles);
  out.lots = values.get(s.lots);
  out.buildings = values.get(s.buildings);
  out.rooftops = values.get(s.rooftops);
  out.dressing = values.get(s.dressing);
  out.stages = std::move(stats);
  return out;
}

}  // namespace detail
}  // namespace cityforge::pipeline
