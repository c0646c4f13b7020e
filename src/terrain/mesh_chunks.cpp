// SPDX-License-Identifier: Apache-2.0
// Cuts a heightfield into per-chunk triangle meshes with smooth (central difference) normals.
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "cityforge/terrain/heightfield.hpp"

namespace cityforge::terrain {
namespace {

std::array<float, 3> grid_normal(const Heightfield& hf, std::uint32_t i, std::uint32_t j) {
  const std::uint32_t i0 = i > 0 ? i - 1 : i;
  const std::uint32_t i1 = i + 1 < hf.nx ? i + 1 : i;
  const std::uint32_t j0 = j > 0 ? j - 1 : j;
  const std::uint32_t j1 = j + 1 < hf.ny ? j + 1 : j;
  const double dx = (hf.at(i1, j) - hf.at(i0, j)) / (hf.cell_m * (i1 - i0));
  const double dy = (hf.at(i, j1) - hf.at(i, j0)) / (hf.cell_m * (j1 - j0));
  const Vec3 n = normalize(Vec3{-dx, -dy, 1.0});
  return {static_cast<float>(n.x), static_cast<float>(n.y), static_cast<float>(n.z)};
}

}  // namespace

std::vector<TerrainChunk> mesh_chunks(const Heightfield& hf, double chunk_m) {
  std::vector<TerrainChunk> chunks;
  if (hf.nx < 2 || hf.ny < 2 || !(chunk_m > 0)) {
    return chunks;
  }
  // 1. Which chunks exist, in (cy, cx) order, and the cell range each one owns.
  auto chunk_of = [&](double v) { return static_cast<std::int32_t>(std::floor(v / chunk_m)); };
  std::map<std::pair<std::int32_t, std::int32_t>, std::size_t> index;  // (cy, cx) -> slot
  for (std::uint32_t j = 0; j + 1 < hf.ny; ++j) {
    const std::int32_t cy = chunk_of(hf.origin.y + j * hf.cell_m);
    for (std::uint32_t i = 0; i + 1 < hf.nx; ++i) {
      index.emplace(std::make_pair(cy, chunk_of(hf.origin.x + i * hf.cell_m)), 0);
    }
  }
  chunks.resize(index.size());
  std::size_t slot = 0;
  for (auto& [key, s] : index) {
    s = slot;
    chunks[slot].cy = key.first;
    chunks[slot].cx = key.second;
    ++slot;
  }
  // 2. Mesh each chunk independently (own slot, so any thread count gives the same result).
  tbb::parallel_for(std::size_t{0}, chunks.size(), [&](std::size_t c) {
    TerrainChunk& chunk = chunks[c];
    const double x0 = chunk.cx * chunk_m;
    const double y0 = chunk.cy * chunk_m;
    // Cells whose lower-left sample lies in [x0, x0 + chunk_m).
    auto first = [&](double edge, double origin) {
      return static_cast<std::int64_t>(std::ceil((edge - origin) / hf.cell_m - 1e-9));
    };
    const std::int64_t i_begin = std::max<std::int64_t>(0, first(x0, hf.origin.x));
    const std::int64_t i_end = std::min<std::int64_t>(hf.nx - 1, first(x0 + chunk_m, hf.origin.x));
    const std::int64_t j_begin = std::max<std::int64_t>(0, first(y0, hf.origin.y));
    const std::int64_t j_end = std::min<std::int64_t>(hf.ny - 1, first(y0 + chunk_m, hf.origin.y));
    if (i_begin >= i_end || j_begin >= j_end) {
      return;
    }
    const auto w = static_cast<std::uint32_t>(i_end - i_begin + 1);
    Mesh& m = chunk.mesh;
    for (std::int64_t j = j_begin; j <= j_end; ++j) {
      for (std::int64_t i = i_begin; i <= i_end; ++i) {
        const auto ui = static_cast<std::uint32_t>(i);
        const auto uj = static_cast<std::uint32_t>(j);
        m.positions.push_back({static_cast<float>(hf.origin.x + i * hf.cell_m),
                               static_cast<float>(hf.origin.y + j * hf.cell_m), hf.at(ui, uj)});
        m.normals.push_back(grid_normal(hf, ui, uj));
      }
    }
    for (std::uint32_t j = 0; j + 1 < static_cast<std::uint32_t>(j_end - j_begin + 1); ++j) {
      for (std::uint32_t i = 0; i + 1 < w; ++i) {
        const std::uint32_t a = j * w + i;
        const std::uint32_t b = a + 1;
        const std::uint32_t c2 = a + w;
        const std::uint32_t d = c2 + 1;
        m.indices.insert(m.indices.end(), {a, b, d, a, d, c2});
      }
    }
  });
  std::erase_if(chunks, [](const TerrainChunk& c) { return c.mesh.empty(); });
  return chunks;
}

}  // namespace cityforge::terrain
