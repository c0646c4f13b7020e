// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <vector>

#include "cityforge/core/mesh.hpp"
#include "cityforge/core/result.hpp"
#include "cityforge/core/rng.hpp"
#include "cityforge/core/vec.hpp"

namespace cityforge::terrain {

/// A regular grid of ground heights in metres. Sample (i, j) sits at
/// origin + (i * cell_m, j * cell_m); i runs east, j north. Every later stage samples it.
struct Heightfield {
  Vec2 origin;
  double cell_m = 10.0;
  std::uint32_t nx = 0;        ///< Samples along x (>= 2).
  std::uint32_t ny = 0;        ///< Samples along y (>= 2).
  std::vector<float> heights;  ///< nx * ny, row-major by j then i.
  /// sample() interpolates on the two triangles per cell that mesh_chunks() draws (split along
  /// (i, j)-(i+1, j+1)) instead of bilinearly, so what drapes on the ground lies exactly on the
  /// drawn terrain at its vertices. Imported places set it: their cut-and-fill ground is not
  /// planar within a cell where a road crosses it. Generated cities keep bilinear.
  bool mesh_exact = false;

  float at(std::uint32_t i, std::uint32_t j) const { return heights[std::size_t{j} * nx + i]; }
  /// Height at p (bilinear, or on the mesh's triangles with mesh_exact), clamped to the grid.
  double sample(Vec2 p) const;
  /// Gradient magnitude (rise over run, 0.1 = 10 %) at p, by central differences.
  double slope(Vec2 p) const;
  Aabb2 bounds() const;
};

/// Procedural terrain: fractal gradient noise. Flat (all zeros) when amplitude_m is 0.
struct Config {
  double amplitude_m = 12.0;  ///< Peak deviation from 0. [Limit: >= 0, <= 2000]
  double scale_m = 900.0;     ///< Wavelength of the first octave. [Limit: > 0]
  int octaves = 4;            ///< [Limit: 1..12]
  double persistence = 0.5;   ///< Amplitude factor per octave. [Limit: (0, 1)]
  double cell_m = 10.0;       ///< Grid spacing. [Limit: >= 1]
  double margin_m = 50.0;     ///< Extra ground around the city's bounds. [Limit: >= 0]
};

/// Generates the heightfield covering `area` (plus the margin). Deterministic for a seed at any
/// thread count (rows are computed in parallel into their own slots).
Result<Heightfield> run(const Aabb2& area, const Config& config, Seed seed);

/// Fails (invalid_input, where "terrain" or "terrain.heights[i]") unless the grid has >= 2 x 2
/// samples, nx * ny heights, all finite, a finite origin and a finite cell_m > 0: what every
/// consumer that samples or meshes a heightfield it did not make checks first.
Status validate(const Heightfield& hf);

/// One chunk of terrain mesh: the grid cells whose lower-left sample falls inside the chunk.
struct TerrainChunk {
  std::int32_t cx = 0;  ///< Chunk column: floor(x / chunk_m).
  std::int32_t cy = 0;  ///< Chunk row: floor(y / chunk_m).
  Mesh mesh;
};

/// Cuts the heightfield into triangle meshes per chunk_m x chunk_m chunk, with smooth normals.
/// Chunks are ordered by (cy, cx).
std::vector<TerrainChunk> mesh_chunks(const Heightfield& hf, double chunk_m);

}  // namespace cityforge::terrain
