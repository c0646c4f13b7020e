// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <cmath>

#include "cityforge/terrain/heightfield.hpp"

namespace cityforge::terrain {
namespace {

const Aabb2 kArea{{0, 0}, {1000, 600}};

TEST(TerrainRun, FlatWhenAmplitudeIsZero) {
  Config c;
  c.amplitude_m = 0;
  const Heightfield hf = *run(kArea, c, 3);
  for (float h : hf.heights)
    ASSERT_EQ(h, 0.0f);
  EXPECT_TRUE(hf.bounds().contains({0, 0}));
  EXPECT_TRUE(hf.bounds().contains({1000, 600}));
}

TEST(TerrainRun, HillsStayWithinAmplitudeAndVary) {
  Config c;
  c.amplitude_m = 20;
  c.scale_m = 300;
  const Heightfield hf = *run(kArea, c, 3);
  float lo = 1e9f;
  float hi = -1e9f;
  for (float h : hf.heights) {
    lo = std::min(lo, h);
    hi = std::max(hi, h);
  }
  EXPECT_LE(hi, 20.5f);
  EXPECT_GE(lo, -20.5f);
  EXPECT_GT(hi - lo, 5.0f) << "terrain is nearly flat";
  EXPECT_GT(hf.slope({500, 300}), 0.0);
}

TEST(TerrainRun, DeterministicAcrossThreadsAndSeedSensitive) {
  Config c;
  auto make = [&](int threads, Seed seed) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
    return run(kArea, c, seed)->heights;
  };
  EXPECT_EQ(make(1, 5), make(2, 5));
  EXPECT_NE(make(2, 5), make(2, 6));
}

TEST(TerrainRun, RejectsBadConfig) {
  Config c;
  c.octaves = 0;
  EXPECT_EQ(run(kArea, c, 1).error().where, "terrain.octaves");
  c = Config{};
  c.amplitude_m = -1;
  EXPECT_EQ(run(kArea, c, 1).error().where, "terrain.amplitude_m");
}

TEST(TerrainSample, BilinearBetweenSamples) {
  Heightfield hf;
  hf.cell_m = 10;
  hf.nx = 2;
  hf.ny = 2;
  hf.heights = {0, 10, 20, 30};
  EXPECT_DOUBLE_EQ(hf.sample({5, 0}), 5.0);
  EXPECT_DOUBLE_EQ(hf.sample({5, 5}), 15.0);
  EXPECT_DOUBLE_EQ(hf.sample({-50, 100}), 20.0) << "clamped to the grid";
}

TEST(TerrainMeshChunks, CoverEveryCellOnceInChunkOrder) {
  Config c;
  const Heightfield hf = *run(kArea, c, 1);
  const std::vector<TerrainChunk> chunks = mesh_chunks(hf, 100.0);
  std::size_t tris = 0;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    tris += chunks[i].mesh.triangle_count();
    ASSERT_EQ(chunks[i].mesh.positions.size(), chunks[i].mesh.normals.size());
    for (const auto& p : chunks[i].mesh.positions) {
      // A chunk's vertices lie within it (its far edge included).
      EXPECT_GE(p[0], chunks[i].cx * 100.0 - 1e-3);
      EXPECT_LE(p[0], (chunks[i].cx + 1) * 100.0 + 1e-3);
    }
    if (i > 0) {
      EXPECT_TRUE(std::make_pair(chunks[i - 1].cy, chunks[i - 1].cx) <
                  std::make_pair(chunks[i].cy, chunks[i].cx));
    }
  }
  EXPECT_EQ(tris, 2U * (hf.nx - 1) * (hf.ny - 1));
}

}  // namespace
}  // namespace cityforge::terrain
