// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstdint>

#include "cityforge/core/mesh.hpp"
#include "cityforge/core/vec.hpp"

/// Mesh-building primitives shared by the procedural kits (facade modules, props): flat-shaded
/// triangles and quads, axis-aligned boxes, general hexahedra and beams. All emit
/// counter-clockwise triangles seen from outside with one unit normal per face; degenerate input
/// (thinner than kMinExtent) emits nothing.
namespace cityforge::meshing {

/// Faces and solids thinner than this (metres) are dropped instead of emitting slivers.
inline constexpr double kMinExtent = 1e-3;

/// Face bits for add_box / add_hex, named by their outward normal in the local frame.
enum BoxFace : std::uint32_t {
  kNegX = 1U << 0U,
  kPosX = 1U << 1U,
  kNegY = 1U << 2U,
  kPosY = 1U << 3U,
  kNegZ = 1U << 4U,
  kPosZ = 1U << 5U,
};
inline constexpr std::uint32_t kAllFaces = 0x3FU;

/// Appends triangle a b c (counter-clockwise seen from the side its normal points to); skips
/// (near) degenerate triangles.
void add_tri(Mesh& mesh, Vec3 a, Vec3 b, Vec3 c);

/// Appends the planar quad p0 p1 p2 p3 (counter-clockwise seen from the side its normal points
/// to) as two triangles with one flat normal. Skips quads with (near) zero area.
void add_quad(Mesh& mesh, Vec3 p0, Vec3 p1, Vec3 p2, Vec3 p3);

/// Appends the faces in `faces` of the hexahedron with corners c[i], where bit 0 of i steps
/// along the local u axis, bit 1 along v and bit 2 along w, and (u, v, w) is right-handed.
/// Face bits name the local axes (kNegX = the u = 0 face, and so on).
void add_hex(Mesh& mesh, const std::array<Vec3, 8>& c, std::uint32_t faces = kAllFaces);

/// Appends the axis-aligned box [lo, hi]; nothing when any side is below kMinExtent.
void add_box(Mesh& mesh, Vec3 lo, Vec3 hi, std::uint32_t faces = kAllFaces);

/// Appends a beam of rectangular section (2 half_w by 2 half_h) from a to b; the half_h side
/// lies in the vertical plane through a and b (the x axis when the beam is vertical).
void add_beam(Mesh& mesh, Vec3 a, Vec3 b, double half_w, double half_h,
              std::uint32_t faces = kAllFaces);

}  // namespace cityforge::meshing
