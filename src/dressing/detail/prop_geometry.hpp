// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstdint>

#include "cityforge/core/mesh.hpp"
#include "cityforge/core/mesh_build.hpp"
#include "cityforge/core/vec.hpp"

/// Mesh-building primitives of the built-in prop kit: flat-shaded triangles and quads, boxes,
/// general hexahedra, beams, n-gon prisms and frustums along any axis (cylinders, cones,
/// octagonal signs), and low-poly blobs (scaled icosahedra). All emit counter-clockwise triangles
/// seen from outside with one unit normal per face; degenerate input (thinner than kMinExtent)
/// emits nothing.
namespace cityforge::dressing::detail {

// The shared primitives (core/mesh_build.hpp), under their usual names here.
using meshing::add_beam;
using meshing::add_box;
using meshing::add_hex;
using meshing::add_quad;
using meshing::add_tri;
using meshing::kAllFaces;
using meshing::kMinExtent;
using meshing::kNegX;
using meshing::kNegY;
using meshing::kNegZ;
using meshing::kPosX;
using meshing::kPosY;
using meshing::kPosZ;

/// Every face except the bottom, which rests on the ground or on another part.
inline constexpr std::uint32_t kNoBottom = kAllFaces & ~kNegZ;

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
