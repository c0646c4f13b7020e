// SPDX-License-Identifier: Apache-2.0
// Pillar meshes: a box under the deck at every pillar instance.
#include "cityforge/freeway/freeway.hpp"
#include "cityforge/roads/meshes.hpp"

namespace cityforge::freeway {

Mesh pillar_mesh(const Pillar& p) {
  Mesh m;
  const double half = 1.0;
  Ring ring;
  for (const Vec2 c :
       {Vec2{-half, -half}, Vec2{half, -half}, Vec2{half, half}, Vec2{-half, half}}) {
    ring.push_back(Vec2{p.base.x, p.base.y} + rotate(c, p.yaw_rad));
  }
  // The base sinks half a metre so it never floats on a slope.
  roads::add_ring_walls(m, ring, p.base.z - 0.5, p.base.z + p.height_m);
  return m;
}

}  // namespace cityforge::freeway
