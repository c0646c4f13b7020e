// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstdint>

#include "cityforge/core/mesh.hpp"
#include "cityforge/core/vec.hpp"

/// Mesh-building primitives of the built-in prop kit: flat-shaded triangles and quads, boxes,
/// general hexahedra, beams, n-gon prisms and frustums along any axis (cylinders, cones,
/// octagonal signs), and low-poly blobs (scaled icosahedra). All emit counter-clockwise triangles
/// seen from outside with one unit normal per face; degenerate input (thinner than kMinExtent)
/// emits nothing.
namespace cityforge::dressing::detail {

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
/// Every face except the bottom, which rests on the ground or on another part.
inline constexpr std::uint32_t kNoBottom = kAllFaces & ~kNegZ;

/// Appends triangle a b c (counter-clockwise seen from the side its normal points to); skips
/// (near) degenerate triangles.
void add_tri(Mesh& mesh, Vec3 a, Vec3 b, Vec3 c);

/// Appends the planar quad p0 p1 p2 p3 (counter-clockwise seen from outside) as two triangles.
void add_quad(Mesh& mesh, Vec3 p0, Vec3 p1, Vec3 p2, Vec3 p3);

/// Appends the faces in `faces` of the hexahedron with corners c[i], where bit 0 of i steps
/// along the local u axis, bit 1 along v and bit 2 along w, and (u, v, w) is right-handed.
void add_hex(Mesh& mesh, const std::array<Vec3, 8>& c, std::uint32_t faces = kAllFaces);

/// Appends the axis-aligned box [lo, hi]; nothing when any side is below kMinExtent.
void add_box(Mesh& mesh, Vec3 lo, Vec3 hi, std::uint32_t faces = kAllFaces);

/// Appends a beam of rectangular section (2 half_w by 2 half_h) from a to b; the half_h side
/// lies in the vertical plane through a and b (the x axis when the beam is vertical).
void add_beam(Mesh& mesh, Vec3 a, Vec3 b, double half_w, double half_h,
              std::uint32_t faces = kAllFaces);

/// Cap bits of add_frustum.
enum Cap : std::uint32_t { kCapStart = 1U << 0U, kCapEnd = 1U << 1U, kCapsBoth = 3U };

/// Appends a frustum of `sides` flat faces from a (radius r0) to b (radius r1), with the caps in
/// `caps`: a prism when r0 == r1, a cone when r1 == 0. The polygon's first corner lies at angle
/// `phase_rad` from the frame's u axis: u = +x, v = +y for a vertical axis, u = +y, v = +z for an
/// axis along +x, else u = normalize(z x axis); (u, v, axis) is right-handed.
void add_frustum(Mesh& mesh, Vec3 a, Vec3 b, double r0, double r1, std::uint32_t sides,
                 std::uint32_t caps = kCapsBoth, double phase_rad = 0.0);

/// A vertical prism of `sides` faces centred on (x, y) from z0 to z1 (both caps).
void add_cylinder(Mesh& mesh, double x, double y, double z0, double z1, double radius,
                  std::uint32_t sides, std::uint32_t caps = kCapsBoth);

/// Appends a flat regular polygon of `sides` corners (circumradius `radius`) centred on `centre`
/// and facing `axis` (only that side), its first corner at `phase_rad` in add_frustum's frame.
void add_ngon(Mesh& mesh, Vec3 centre, Vec3 axis, double radius, std::uint32_t sides,
              double phase_rad = 0.0);

/// Appends a vertical tube wall from z0 to z1 around (x, y): outer faces at r_out, inner faces
/// (facing the axis) at r_in and the top annulus; no bottom.
void add_tube(Mesh& mesh, double x, double y, double z0, double z1, double r_in, double r_out,
              std::uint32_t sides);

/// Appends a low-poly blob: an icosahedron (20 faces; 80 with `subdivide`, its new corners
/// pushed onto the sphere) scaled by `radii` around `centre` and turned by `yaw_rad` about +z.
/// Faces point away from the centre.
void add_blob(Mesh& mesh, Vec3 centre, Vec3 radii, double yaw_rad = 0.0, bool subdivide = false);

/// Appends the convex profile `ring` (points (y, z), counter-clockwise seen from +x, at least 3)
/// extruded along x from x0 to x1, with both end caps.
void add_extrusion_x(Mesh& mesh, const Vec2* ring, std::size_t count, double x0, double x1);

/// Appends a flat convex polygon slab from z0 to z1 whose corners `ring` (counter-clockwise seen
/// from +z, at least 3) are given in the plane; the bottom face only when `bottom`.
void add_slab(Mesh& mesh, const Vec2* ring, std::size_t count, double z0, double z1, bool bottom);

}  // namespace cityforge::dressing::detail
