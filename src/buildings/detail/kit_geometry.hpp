// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstdint>

#include "cityforge/core/mesh.hpp"
#include "cityforge/core/vec.hpp"

/// Mesh-building primitives shared by every generator of the built-in module kit: flat-shaded
/// quads, axis-aligned boxes, general hexahedra and beams. All emit counter-clockwise triangles
/// seen from outside with unit normals; degenerate input (thinner than kMinExtent) emits nothing.
namespace cityforge::buildings::detail {

/// Boxes and quads thinner than this (metres) are dropped instead of emitting slivers.
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
/// Every face except the back (-y), which rests against the facade or the glass.
inline constexpr std::uint32_t kNoBack = kAllFaces & ~kNegY;

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

/// A rectangular opening in a facade panel (module frame, metres).
struct Opening {
  double x0 = 0.0;
  double x1 = 0.0;
  double z0 = 0.0;
  double z1 = 0.0;
  bool valid() const { return x1 - x0 >= kMinExtent && z1 - z0 >= kMinExtent; }
};

/// Appends a wall panel [0, width] x [-depth, 0] x [0, height] with `hole` cut through its
/// front: the facade face around the hole, reveal faces from y = 0 back to y = -reveal_m
/// (the bottom reveal only when `bottom_reveal`), and the outer side, top and bottom faces.
/// The back face (y = -depth) is left out, so nothing covers the hole. An invalid hole gives
/// the plain panel (still without a back face).
void add_panel(Mesh& mesh, double width, double height, double depth, const Opening& hole,
               double reveal_m, bool bottom_reveal);

/// Appends a frame ring of bar width `bar` around the inside of `o`, with its back at y = y0
/// and its front at y = y1 (the bottom bar only when `bottom`).
void add_frame_ring(Mesh& mesh, const Opening& o, double bar, double y0, double y1, bool bottom);

/// Appends `nx` vertical and `ny` horizontal glazing bars of width `bar`, evenly spaced inside
/// `o`, with backs at y = y0; vertical bars reach y1 and horizontal ones slightly less so
/// crossings do not z-fight. Counts are reduced until the bars fill at most half the opening.
void add_glazing_bars(Mesh& mesh, const Opening& o, std::uint32_t nx, std::uint32_t ny, double bar,
                      double y0, double y1);

}  // namespace cityforge::buildings::detail
