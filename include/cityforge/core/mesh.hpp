// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace cityforge {

/// An indexed triangle mesh in engine coordinates (metres, x east, y north, z up), single
/// precision as it goes to the GPU. Triangles are counter-clockwise seen from outside.
struct Mesh {
  std::vector<std::array<float, 3>> positions;
  std::vector<std::array<float, 3>> normals;  ///< Unit length, one per position.
  std::vector<std::uint32_t> indices;         ///< Three per triangle.

  std::size_t triangle_count() const { return indices.size() / 3; }
  bool empty() const { return indices.empty(); }
  /// Appends another mesh, offsetting its indices.
  void append(const Mesh& other);
};

}  // namespace cityforge
