// SPDX-License-Identifier: Apache-2.0
// WFC benches (issue 10): the 2D tiled model (data/wfc/city_blocks.json) on 32x32, 64x64 and
// 128x128 grids, a new seed per solve (solves/s, cells/s, contradiction rate), and the rooftop
// model on every flat roof of the 4x5 km example (target: < 2 s on 2 cores). The example's
// buildings are built once through the stages before the buildings; each iteration times only
// build_rooftops. Rates are per wall second (the rooftops run on every core). They never assert.
//   build/release/bench/cityforge_bench --benchmark_filter=Wfc
#include <benchmark/benchmark.h>

#include <fstream>
#include <memory>
#include <sstream>

#include "cityforge/pipeline/city_config.hpp"
#include "cityforge/pipeline/city_pipeline.hpp"
#include "cityforge/rooftops/rooftops.hpp"
#include "cityforge/wfc/wfc.hpp"

using namespace cityforge;

namespace {

const wfc::Model& city_blocks() {
  static const wfc::Model model = [] {
    for (const auto& [file, text] : wfc::builtin_model_sources()) {
      if (file == "wfc/city_blocks.json") {
        auto m = wfc::parse_model(text, file);
        if (!m) std::abort();
        return *m;
      }
    }
    std::abort();
  }();
  return model;
}

// One solve per iteration, seed = iteration; a failed solve (no solution within the budget)
// counts as a contradiction, as do solves that needed backtracking.
void solve_2d(benchmark::State& state, std::uint32_t block) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  // Compiled once, as the rooftops do: the iterations time the solves.
  auto model = wfc::compile_model(city_blocks());
  if (!model) std::abort();
  const wfc::Grid grid = wfc::square_grid(n, n, 1);
  wfc::SolveOptions opt;
  opt.block_size = block;
  std::uint64_t solves = 0;
  std::uint64_t failed = 0;
  std::uint64_t contradicted = 0;
  std::uint64_t backtracks = 0;
  for (auto _ : state) {
    opt.seed = ++solves;
    auto sol = wfc::solve(*model, grid, {}, opt);
    if (!sol) {
      ++failed;
      continue;
    }
    contradicted += sol->stats.contradictions > 0 ? 1 : 0;
    backtracks += sol->stats.backtracks;
    benchmark::DoNotOptimize(sol);
  }
  const double cells = static_cast<double>(n) * n;
  state.counters["cells_per_s"] =
      benchmark::Counter(cells, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["solves_per_s"] =
      benchmark::Counter(1.0, benchmark::Counter::kIsIterationInvariantRate);
  const auto total = static_cast<double>(solves);
  state.counters["failed_rate"] = static_cast<double>(failed) / total;
  state.counters["contradiction_rate"] = static_cast<double>(failed + contradicted) / total;
  state.counters["backtracks_per_solve"] = static_cast<double>(backtracks) / total;
}

void BM_WfcTiled2D(benchmark::State& state) { solve_2d(state, 0); }
BENCHMARK(BM_WfcTiled2D)->Arg(32)->Arg(64)->Arg(128)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same grids solved in 32 x 32 blocks with local repair.
void BM_WfcTiled2DBlocks(benchmark::State& state) { solve_2d(state, 32); }
BENCHMARK(BM_WfcTiled2DBlocks)->Arg(64)->Arg(128)->Unit(benchmark::kMillisecond)->UseRealTime();

struct Metropolis {
  pipeline::CityConfig config;
  buildings::Output buildings;
};

// The 4x5 km example's buildings through the stages before them (no dressing, no rooftops).
const Metropolis& metropolis() {
  static std::unique_ptr<Metropolis> slot;
  if (!slot) {
    const char* file = "data/examples/metropolis-4x5km.json";
    std::ifstream f(std::string(CITYFORGE_SOURCE_DIR) + "/" + file);
    std::ostringstream ss;
    ss << f.rdbuf();
    auto cfg = pipeline::parse_city_config(ss.str(), file);
    if (!cfg) std::abort();
    const Seed seed = cfg->seed;
    auto ground = terrain::run(ring_bounds(cfg->inputs.boundary.outer), cfg->terrain, seed);
    auto zoning = layout::build_zoning(cfg->inputs, cfg->layout, seed);
    if (!ground || !zoning) std::abort();
    auto city = layout::run(cfg->inputs, *ground, *zoning, cfg->layout, seed);
    if (!city) std::abort();
    auto roads = roads::run(*city, *ground, cfg->roads, seed);
    if (!roads) std::abort();
    auto fw = freeway::run(cfg->freeways, *city, *roads, *ground, freeway::Config{}, seed);
    auto styles = pipeline::load_styles(cfg->buildings.style_sources);
    if (!fw || !styles) std::abort();
    auto lots =
        lots::run(*city, fw->footprints, buildings::lot_style_rules(*styles), cfg->lots, seed);
    if (!lots) std::abort();
    auto built = buildings::run(*lots, *styles, cfg->buildings.tag_volumes, *ground,
                                cfg->buildings.generator, seed);
    if (!built) std::abort();
    slot = std::make_unique<Metropolis>(Metropolis{*cfg, std::move(*built)});
  }
  return *slot;
}

void BM_WfcRooftopsMetropolis(benchmark::State& state) {
  const Metropolis& m = metropolis();
  auto model = rooftops::builtin_rooftop_model();
  if (!model) std::abort();
  rooftops::RooftopStats stats;
  for (auto _ : state) {
    auto out = rooftops::build_rooftops(m.buildings, *model, m.config.rooftops, m.config.seed);
    if (!out) std::abort();
    stats = out->stats;
    benchmark::DoNotOptimize(out);
  }
  state.counters["buildings"] = static_cast<double>(m.buildings.buildings.size());
  state.counters["roofs"] = static_cast<double>(stats.roofs_considered);
  state.counters["rooftops"] = static_cast<double>(stats.rooftops);
  state.counters["failed"] = static_cast<double>(stats.failed);
  state.counters["cells"] = static_cast<double>(stats.cells);
  state.counters["instances"] = static_cast<double>(stats.instances + stats.props);
  state.counters["constraints"] = static_cast<double>(stats.constraints);
  state.counters["contradictions"] = static_cast<double>(stats.contradictions);
  state.counters["cells_per_s"] = benchmark::Counter(static_cast<double>(stats.cells),
                                                     benchmark::Counter::kIsIterationInvariantRate);
  state.counters["rooftops_per_s"] = benchmark::Counter(
      static_cast<double>(stats.rooftops), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_WfcRooftopsMetropolis)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

}  // namespace
