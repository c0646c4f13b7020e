// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstdint>

#include "cityforge/core/mesh.hpp"
#include "cityforge/core/mesh_build.hpp"
#include "cityforge/core/vec.hpp"

/// Mesh-building helpers of the built-in module kit: the shared primitives of
/// core/mesh_build.hpp plus facade panels with openings, frames and glazing bars.
namespace cityforge::buildings::detail {

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

/// Every face except the back (-y), which rests against the facade or the glass.
inline constexpr std::uint32_t kNoBack = kAllFaces & ~kNegY;

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
