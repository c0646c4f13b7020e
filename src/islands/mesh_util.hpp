// SPDX-License-Identifier: Apache-2.0
// Small helpers on the island mesh shared by the passes that read its faces.
#pragma once

#include <cstddef>

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

}  // namespace cityforge::islands
