// SPDX-License-Identifier: Apache-2.0
// Google Benchmark micro and stage benches. They never assert; they print figures.
//   build/release/bench/cityforge_bench --benchmark_filter=Layout
#include <benchmark/benchmark.h>
#include <tbb/global_control.h>

#include <fstream>
#include <sstream>

#include "cityforge/core/planar_graph.hpp"
#include "cityforge/core/rng.hpp"
#include "cityforge/export/export.hpp"
#include "cityforge/pipeline/city_config.hpp"

using namespace cityforge;

namespace {

pipeline::CityConfig load(const char* rel) {
  std::ifstream f(std::string(CITYFORGE_SOURCE_DIR) + "/" + rel);
  std::ostringstream ss;
  ss << f.rdbuf();
  auto r = pipeline::parse_city_config(ss.str(), rel);
  if (!r) std::abort();
  return *r;
}

const char* kCities[] = {"data/default-city.json", "data/examples/metropolis-4x5km.json"};

void BM_Terrain(benchmark::State& state) {
  const pipeline::CityConfig cfg = load(kCities[state.range(0)]);
  for (auto _ : state) {
    auto hf = terrain::run(ring_bounds(cfg.inputs.boundary.outer), cfg.terrain, cfg.seed);
    benchmark::DoNotOptimize(hf);
  }
}
BENCHMARK(BM_Terrain)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_LayoutRun(benchmark::State& state) {
  const pipeline::CityConfig cfg = load(kCities[state.range(0)]);
  const auto hf = *terrain::run(ring_bounds(cfg.inputs.boundary.outer), cfg.terrain, cfg.seed);
  std::size_t blocks = 0;
  for (auto _ : state) {
    auto out = layout::run(cfg.inputs, hf, cfg.layout, cfg.seed);
    blocks = out->blocks.size();
    benchmark::DoNotOptimize(out);
  }
  state.counters["blocks"] = static_cast<double>(blocks);
}
BENCHMARK(BM_LayoutRun)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// The road stage (junction geometry, modules, sidewalks, lane graph, signals); target for the
// 4x5 km example: under 2 s on 2 cores.
void BM_RoadsRun(benchmark::State& state) {
  const pipeline::CityConfig cfg = load(kCities[state.range(0)]);
  const auto hf = *terrain::run(ring_bounds(cfg.inputs.boundary.outer), cfg.terrain, cfg.seed);
  const auto city = *layout::run(cfg.inputs, hf, cfg.layout, cfg.seed);
  std::size_t lanes = 0;
  std::size_t modules = 0;
  for (auto _ : state) {
    auto out = roads::run(city, hf, cfg.roads, cfg.seed);
    lanes = out->lanes.lanes.size();
    modules = out->modules.size();
    benchmark::DoNotOptimize(out);
  }
  state.counters["lanes"] = static_cast<double>(lanes);
  state.counters["modules"] = static_cast<double>(modules);
}
BENCHMARK(BM_RoadsRun)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_ExportGlb(benchmark::State& state) {
  const pipeline::CityConfig cfg = load(kCities[state.range(0)]);
  const auto hf = *terrain::run(ring_bounds(cfg.inputs.boundary.outer), cfg.terrain, cfg.seed);
  const auto city = *layout::run(cfg.inputs, hf, cfg.layout, cfg.seed);
  const auto roads = *roads::run(city, hf, cfg.roads, cfg.seed);
  std::size_t bytes = 0;
  for (auto _ : state) {
    // Meshing (made as the chunks are cut) and writing, as this bench measured before.
    const roads::SectionMarkings markings(city, roads, hf, cfg.roads);
    const roads::SurfaceSource surfaces{
        .city = &city, .ground = &hf, .roads = &roads, .config = &cfg.roads, .markings = &markings};
    auto volumes = roads::build_block_volumes(city, hf, cfg.exports.volume_setback_m);
    auto glb = exporter::city_glb({.terrain = hf,
                                   .layout = city,
                                   .settings = cfg.exports,
                                   .roads = &roads,
                                   .road_surfaces = &surfaces,
                                   .block_volumes = &*volumes});
    bytes = glb->size();
    benchmark::DoNotOptimize(glb);
  }
  state.counters["MiB"] = static_cast<double>(bytes) / (1 << 20);
}
BENCHMARK(BM_ExportGlb)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// Noding a grid of n x n crossing lines (the heart of planarity).
void BM_PlanarGraph(benchmark::State& state) {
  const auto n = static_cast<int>(state.range(0));
  std::vector<TaggedSegment> segs;
  for (int i = 0; i < n; ++i) {
    const double c = i * 80.0;
    segs.push_back({{c, -10}, {c, n * 80.0}, 1});
    segs.push_back({{-10, c}, {n * 80.0, c}, 2});
  }
  for (auto _ : state) {
    auto g = build_planar_graph(segs, 1.0);
    benchmark::DoNotOptimize(g);
  }
  state.counters["segments"] = static_cast<double>(segs.size());
}
BENCHMARK(BM_PlanarGraph)->Arg(20)->Arg(60)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
