// SPDX-License-Identifier: Apache-2.0
// Mesh concatenation and the metre-scale planar texture coordinates of meshes without their own.
#include "cityforge/core/mesh.hpp"

#include <cmath>

namespace cityforge {
namespace {

using Uv = std::array<float, 2>;
using F3 = std::array<float, 3>;

constexpr double kTopViewSine = 0.17364817766693033;  // sin(10 degrees)

/// Planar coordinates of p on a face of normal n (see planar_uvs, rule faces).
Uv face_uv(const F3& p, const F3& n) {
  const double nx = n[0];
  const double ny = n[1];
  const double nz = n[2];
  const double h = std::sqrt(nx * nx + ny * ny);
  // Within 10 degrees of horizontal: the top view (a crown or a drainage fall must not turn
  // the texture; the stretch is under 1.6 %).
  if (h < kTopViewSine) return {p[0], -p[1]};
  // t = up x n / |.| = (-ny, nx, 0) / h; b = n x t.
  const double tx = -ny / h;
  const double ty = nx / h;
  const double bx = -nz * ty;
  const double by = nz * tx;
  const double bz = nx * ty - ny * tx;
  const double u = p[0] * tx + p[1] * ty;
  const double v = -(p[0] * bx + p[1] * by + p[2] * bz);
  return {static_cast<float>(u), static_cast<float>(v)};
}

}  // namespace

Uv ground_uv(const F3& p, const F3& n) {
  if (n[2] >= 0.5f) return {p[0], -p[1]};
  if (std::fabs(n[0]) >= std::fabs(n[1])) {
    // Facing +-x: right seen from outside is +-y.
    return {n[0] >= 0.0f ? p[1] : -p[1], -p[2]};
  }
  return {n[1] >= 0.0f ? -p[0] : p[0], -p[2]};
}

UvRule uv_rule(const Mesh& mesh) {
  for (std::size_t t = 0; t + 2 < mesh.indices.size(); t += 3) {
    const F3& a = mesh.normals[mesh.indices[t]];
    if (a != mesh.normals[mesh.indices[t + 1]] || a != mesh.normals[mesh.indices[t + 2]]) {
      return UvRule::ground;
    }
  }
  return UvRule::faces;
}

std::vector<std::array<float, 2>> planar_uvs(const Mesh& mesh) {
  std::vector<Uv> uvs(mesh.positions.size());
  const bool faces = uv_rule(mesh) == UvRule::faces;
  for (std::size_t i = 0; i < uvs.size(); ++i) {
    const F3 n = i < mesh.normals.size() ? mesh.normals[i] : F3{0.0f, 0.0f, 1.0f};
    uvs[i] = faces ? face_uv(mesh.positions[i], n) : ground_uv(mesh.positions[i], n);
  }
  return uvs;
}

void Mesh::append(const Mesh& other) {
  const auto base = static_cast<std::uint32_t>(positions.size());
  if (uvs.empty() && !other.uvs.empty() && base > 0) uvs = planar_uvs(*this);
  if (!uvs.empty() || (base == 0 && !other.uvs.empty())) {
    const std::vector<Uv> theirs = other.uvs.empty() ? planar_uvs(other) : other.uvs;
    uvs.insert(uvs.end(), theirs.begin(), theirs.end());
  }
  positions.insert(positions.end(), other.positions.begin(), other.positions.end());
  normals.insert(normals.end(), other.normals.begin(), other.normals.end());
  indices.reserve(indices.size() + other.indices.size());
  for (const std::uint32_t i : other.indices) {
    indices.push_back(base + i);
  }
}

}  // namespace cityforge
