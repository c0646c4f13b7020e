// SPDX-License-Identifier: Apache-2.0
// Crowd neighbour queries (seeds/002 quotes 1.5 microseconds per 1.5 m query).
#include <benchmark/benchmark.h>

#include <vector>

#include "cityforge/core/rng.hpp"
#include "cityforge/sim/spatial_hash.hpp"

namespace {

using cityforge::Rng;
using cityforge::Stage;
using cityforge::Vec2;
using cityforge::sim::SpatialHash;

// 20,000 agents on 120 m x 120 m (about 1.4 per square metre, a dense crowd).
std::vector<Vec2> crowd() {
  Rng rng(1, Stage::test, 2);
  std::vector<Vec2> pts(20000);
  for (Vec2& p : pts)
    p = Vec2{rng.uniform(0.0, 120.0), rng.uniform(0.0, 120.0)};
  return pts;
}

void BM_SpatialHashInsertTick(benchmark::State& state) {
  const auto pts = crowd();
  SpatialHash hash(1.5f, static_cast<std::uint32_t>(pts.size()), 32768);
  for (auto _ : state) {
    for (std::uint32_t i = 0; i < pts.size(); ++i)
      hash.insert(i, pts[i]);
    hash.swap();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(pts.size()));
}
BENCHMARK(BM_SpatialHashInsertTick);

void BM_SpatialHashQuery1p5m(benchmark::State& state) {
  const auto pts = crowd();
  SpatialHash hash(1.5f, static_cast<std::uint32_t>(pts.size()), 32768);
  for (std::uint32_t i = 0; i < pts.size(); ++i)
    hash.insert(i, pts[i]);
  hash.swap();
  std::vector<std::uint32_t> out;
  std::size_t k = 0;
  std::size_t found = 0;
  for (auto _ : state) {
    hash.query(pts[k], 1.5f, out);
    found += out.size();
    k = (k + 7919) % pts.size();
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["neighbours"] = static_cast<double>(found) /
                                 static_cast<double>(std::max<std::int64_t>(1, state.iterations()));
}
BENCHMARK(BM_SpatialHashQuery1p5m);

}  // namespace
