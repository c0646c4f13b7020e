// SPDX-License-Identifier: Apache-2.0
// Small helpers on the island mesh shared by the passes that read its faces.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cityforge/core/vec.hpp"
#include "cityforge/islands/island.hpp"

namespace cityforge::islands {

/// Triangle t's normal, not normalised: its length is twice the triangle's area (counter-
/// clockwise from outside, so it points out of the land).
inline Vec3 face_normal(const IslandMesh& mesh, std::size_t t) {
  const auto& tri = mesh.triangles[t];
  const Vec3 p0 = mesh.positions[tri[0]];
  return cross(mesh.positions[tri[1]] - p0, mesh.positions[tri[2]] - p0);
}

/// Every vertex's triangle corners (t * 3 + k), ascending: those of vertex v are
/// corners[start[v] .. start[v + 1]) (compressed rows), so also its triangles in ascending order.
struct VertexCorners {
  std::vector<std::uint32_t> start;    ///< positions.size() + 1 offsets.
  std::vector<std::uint32_t> corners;  ///< t * 3 + k.
};
inline VertexCorners vertex_corners(const IslandMesh& mesh) {
  const std::size_t n = mesh.positions.size();
  VertexCorners out;
  out.start.assign(n + 1, 0);
  for (const auto& t : mesh.triangles)
    for (const std::uint32_t v : t)
      ++out.start[v + 1];
  for (std::size_t v = 0; v < n; ++v)
    out.start[v + 1] += out.start[v];
  out.corners.resize(out.start[n]);
  std::vector<std::uint32_t> fill(out.start.begin(), out.start.end() - 1);
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t)
    for (std::uint32_t k = 0; k < 3; ++k)
      out.corners[fill[mesh.triangles[t][k]]++] = static_cast<std::uint32_t>(t * 3 + k);
  return out;
}

}  // namespace cityforge::islands
