// SPDX-License-Identifier: Apache-2.0
// Google Benchmark stage benches for lots + buildings and set dressing, on the default city (0)
// and the 4x5 km example (1). Upstream stages run once through the pipeline; each iteration
// times only the stage. They never assert.
//   build/release/bench/cityforge_bench --benchmark_filter='Lots|Dressing'
#include <benchmark/benchmark.h>

#include <fstream>
#include <memory>
#include <sstream>

#include "cityforge/materials/decals.hpp"
#include "cityforge/materials/textures.hpp"
#include "cityforge/pipeline/city_config.hpp"
#include "cityforge/pipeline/city_pipeline.hpp"

using namespace cityforge;

namespace {

const char* kStageCities[] = {"data/default-city.json", "data/examples/metropolis-4x5km.json"};

struct Prepared {
  pipeline::CityConfig config;
  pipeline::CityResult city;
};

const Prepared& prepared(std::int64_t which) {
  static std::unique_ptr<Prepared> cache[2];
  auto& slot = cache[which];
  if (!slot) {
    std::ifstream f(std::string(CITYFORGE_SOURCE_DIR) + "/" + kStageCities[which]);
    std::ostringstream ss;
    ss << f.rdbuf();
    auto cfg = pipeline::parse_city_config(ss.str(), kStageCities[which]);
    if (!cfg) std::abort();
    pipeline::CityPipeline pipe;
    auto city = pipe.run(*cfg);
    if (!city) std::abort();
    slot = std::make_unique<Prepared>(Prepared{*cfg, *city});
  }
  return *slot;
}

// Lots + DNA + buildings; target for the 4x5 km example: under 10 s on 2 cores.
void BM_LotsAndBuildings(benchmark::State& state) {
  const Prepared& p = prepared(state.range(0));
  const auto rules = buildings::lot_style_rules(*p.city.styles);
  std::size_t buildings = 0;
  std::size_t instances = 0;
  for (auto _ : state) {
    auto lots =
        lots::run(*p.city.layout, p.city.freeway->footprints, rules, p.config.lots, p.config.seed);
    auto out = buildings::run(*lots, *p.city.styles, p.config.buildings.tag_volumes,
                              *p.city.terrain, p.config.buildings.generator, p.config.seed);
    buildings = out->buildings.size();
    instances = out->instances.size();
    benchmark::DoNotOptimize(out);
  }
  state.counters["buildings"] = static_cast<double>(buildings);
  state.counters["instances"] = static_cast<double>(instances);
  state.counters["instances_per_s"] = benchmark::Counter(
      static_cast<double>(instances), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_LotsAndBuildings)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_Dressing(benchmark::State& state) {
  const Prepared& p = prepared(state.range(0));
  std::vector<dressing::Biome> biomes;
  for (const auto& [file, text] : p.config.dressing.biome_sources) {
    auto b = dressing::parse_biome(text, file);
    if (b) biomes.push_back(std::move(*b));
  }
  const dressing::Inputs in{.city = *p.city.layout,
                            .roads = *p.city.roads,
                            .freeway = *p.city.freeway,
                            .lots = *p.city.lots,
                            .buildings = *p.city.buildings,
                            .ground = *p.city.terrain,
                            .styles = *p.city.styles,
                            .rooftops = *p.city.rooftops};
  std::size_t items = 0;
  for (auto _ : state) {
    auto out = dressing::run(in, biomes, p.config.dressing.rules, p.config.seed);
    items = out->items.size();
    benchmark::DoNotOptimize(out);
  }
  state.counters["props"] = static_cast<double>(items);
}
BENCHMARK(BM_Dressing)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

/// The whole procedural texture set (12 surfaces x base colour, normal and metallic-roughness,
/// made and PNG-encoded) at Arg pixels: what city.glb's export adds (docs/materials.md).
void BM_TextureSet(benchmark::State& state) {
  const auto px = static_cast<std::uint32_t>(state.range(0));
  std::size_t bytes = 0;
  for (auto _ : state) {
    bytes = 0;
    for (std::size_t s = 0; s < materials::kSurfaceCount; ++s) {
      auto t = materials::make_textures(static_cast<materials::Surface>(s), px, "bench");
      for (const materials::Image* img : {&t->base_colour, &t->normal, &t->metallic_roughness})
        bytes += materials::encode_png(*img, "bench")->size();
    }
  }
  state.counters["png_MB"] = static_cast<double>(bytes) / 1e6;
}
BENCHMARK(BM_TextureSet)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond);

/// The four decal pictures (RGBA base colour, the crack's normal map), made and PNG-encoded at
/// Arg pixels (docs/materials.md, "Decals").
void BM_DecalSet(benchmark::State& state) {
  const auto px = static_cast<std::uint32_t>(state.range(0));
  std::size_t bytes = 0;
  for (auto _ : state) {
    bytes = 0;
    for (std::size_t d = 0; d < materials::kDecalCount; ++d) {
      auto t = materials::make_decal(static_cast<materials::Decal>(d), px, "bench");
      bytes += materials::encode_png(t->base_colour, "bench")->size();
      if (t->has_normal) bytes += materials::encode_png(t->normal, "bench")->size();
    }
  }
  state.counters["png_MB"] = static_cast<double>(bytes) / 1e6;
}
BENCHMARK(BM_DecalSet)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond);

}  // namespace
