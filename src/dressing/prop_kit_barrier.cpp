// SPDX-License-Identifier: Apache-2.0
// The built-in prop kit: barrier segments of imported places (see prop_kit.cpp). Each is one
// metre long along x, centred on the origin (x in [-0.5, 0.5]), so the dressing scales it along x
// to fit each piece of a mapped barrier's polyline and sets the pieces end to end.
#include "cityforge/dressing/dressing.hpp"
#include "dressing/detail/prop_geometry.hpp"
#include "dressing/detail/prop_kit.hpp"

namespace cityforge::dressing::detail {

void build_barrier_wall(PropMesh& out) {
  Mesh& concrete = part(out, PropMaterial::concrete);
  add_box(concrete, {-0.5, -0.13, 0.0}, {0.5, 0.13, 1.92}, kNoBottom);
  // A coping slightly wider than the wall.
  add_box(concrete, {-0.5, -0.15, 1.92}, {0.5, 0.15, 2.0}, kAllFaces);
}

void build_barrier_fence(PropMesh& out) {
  Mesh& metal = part(out, PropMaterial::metal);
  // One post at the start of the piece (the next piece brings the next post), two rails and a
  // mesh panel between them.
  add_box(metal, {-0.5, -0.025, 0.0}, {-0.45, 0.025, 1.5}, kNoBottom);
  add_box(metal, {-0.45, -0.015, 0.3}, {0.5, 0.015, 0.34}, kAllFaces);
  add_box(metal, {-0.45, -0.015, 1.36}, {0.5, 0.015, 1.4}, kAllFaces);
  add_box(metal, {-0.45, -0.005, 0.08}, {0.5, 0.005, 1.45}, kAllFaces);
}

void build_barrier_hedge(PropMesh& out) {
  Mesh& leaves = part(out, PropMaterial::foliage);
  add_box(leaves, {-0.5, -0.4, 0.0}, {0.5, 0.4, 1.0}, kNoBottom);
  // A narrower, rounded-off top.
  add_hex(leaves,
          {{{-0.5, -0.4, 1.0},
            {0.5, -0.4, 1.0},
            {-0.5, 0.4, 1.0},
            {0.5, 0.4, 1.0},
            {-0.5, -0.25, 1.2},
            {0.5, -0.25, 1.2},
            {-0.5, 0.25, 1.2},
            {0.5, 0.25, 1.2}}},
          kNoBottom);
}

void build_guard_rail(PropMesh& out) {
  Mesh& metal = part(out, PropMaterial::metal);
  // A post in the middle of the piece, the rail on its road side (+y).
  add_box(metal, {-0.04, -0.04, 0.0}, {0.04, 0.04, 0.72}, kNoBottom);
  add_box(metal, {-0.5, 0.04, 0.45}, {0.5, 0.16, 0.75}, kAllFaces);
}

void build_kerb_stone(PropMesh& out) {
  add_box(part(out, PropMaterial::concrete), {-0.5, -0.075, 0.0}, {0.5, 0.075, 0.15}, kNoBottom);
}

}  // namespace cityforge::dressing::detail
