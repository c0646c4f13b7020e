// SPDX-License-Identifier: Apache-2.0
// Mesh concatenation.
#include "cityforge/core/mesh.hpp"

namespace cityforge {

void Mesh::append(const Mesh& other) {
  const auto base = static_cast<std::uint32_t>(positions.size());
  positions.insert(positions.end(), other.positions.begin(), other.positions.end());
  normals.insert(normals.end(), other.normals.begin(), other.normals.end());
  indices.reserve(indices.size() + other.indices.size());
  for (const std::uint32_t i : other.indices) {
    indices.push_back(base + i);
  }
}

}  // namespace cityforge
