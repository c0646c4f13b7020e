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
  /// Texture coordinates in metres (TEXCOORD_0), one per position, or empty: the writers then
  /// take planar_uvs(*this). Set by the meshes whose surface has a natural direction (road
  /// ribbons: u along the road, v across it).
  std::vector<std::array<float, 2>> uvs;

  std::size_t triangle_count() const { return indices.size() / 3; }
  bool empty() const { return indices.empty(); }
  /// Appends another mesh, offsetting its indices. Where one side has uvs and the other not,
  /// the other's are planar_uvs, so the result has one per position or none.
  void append(const Mesh& other);
};

/// How planar_uvs maps a mesh: `faces` when every triangle's three normals are equal (a
/// flat-shaded mesh: buildings, roofs, props, kit modules), else `ground` (smooth meshes:
/// terrain, ground, islands).
enum class UvRule : std::uint8_t { faces, ground };
UvRule uv_rule(const Mesh& mesh);

/// One metre-scale texture coordinate per position (1 unit = 1 m; glTF's v runs down the
/// image, so v = minus the height on walls and texture images stand upright):
/// - faces: each face is mapped by its own plane, without stretch: u along the face's
///   horizontal direction, left to right seen from outside (t = normalize(up x n)), v down its
///   steepest line (v = -p . (n x t)); faces within 10 degrees of horizontal take the top
///   view, u = x, v = -y (so a road crown does not turn the texture). Neighbouring
///   coplanar faces (the modules of one facade, baked) meet with the same coordinates.
/// - ground: vertices whose normal is within 60 degrees of up take the top view (u = x,
///   v = -y); steeper ones the side view along the nearest horizontal axis (u = +-y or +-x,
///   left to right seen from outside, v = -z), so a smooth surface is never torn.
std::vector<std::array<float, 2>> planar_uvs(const Mesh& mesh);

/// The ground rule of planar_uvs for one vertex (engine frame): for writers of smooth meshes
/// that do not go through Mesh (the islands).
std::array<float, 2> ground_uv(const std::array<float, 3>& p, const std::array<float, 3>& n);

}  // namespace cityforge
