// SPDX-License-Identifier: Apache-2.0
// Private helpers of the road and block meshes (surface_mesh.cpp, sidewalk_mesh.cpp,
// block_mesh.cpp, terrain_cut.cpp): vertices draped on the terrain and the input checks.
#pragma once

#include <array>
#include <cstdint>

#include "cityforge/core/mesh.hpp"
#include "cityforge/core/polygon.hpp"
#include "cityforge/core/polyline.hpp"
#include "cityforge/core/result.hpp"
#include "cityforge/core/vec.hpp"
#include "cityforge/layout/layout.hpp"
#include "cityforge/roads/roads.hpp"
#include "cityforge/terrain/heightfield.hpp"

namespace cityforge::roads::detail {

using Float3 = std::array<float, 3>;

inline Float3 to_float3(double x, double y, double z) {
  return {static_cast<float>(x), static_cast<float>(y), static_cast<float>(z)};
}

/// Unit normal of the terrain surface at p, by central differences over one cell.
inline Float3 ground_normal(const terrain::Heightfield& g, Vec2 p) {
  const double h = g.cell_m;
  const double dx = (g.sample({p.x + h, p.y}) - g.sample({p.x - h, p.y})) / (2.0 * h);
  const double dy = (g.sample({p.x, p.y + h}) - g.sample({p.x, p.y - h})) / (2.0 * h);
  const Vec3 n = normalize(Vec3{-dx, -dy, 1.0});
  return to_float3(n.x, n.y, n.z);
}

inline void add_vertex(Mesh& m, Vec2 p, double z, Float3 normal) {
  m.positions.push_back(to_float3(p.x, p.y, z));
  m.normals.push_back(normal);
}

/// Adds triangle (a, b, c) counter-clockwise seen from above (+z), whatever its input order.
inline void add_triangle_up(Mesh& m, std::uint32_t a, std::uint32_t b, std::uint32_t c) {
  const auto& pa = m.positions[a];
  const auto& pb = m.positions[b];
  const auto& pc = m.positions[c];
  const double turn = cross(Vec2{double{pb[0]} - pa[0], double{pb[1]} - pa[1]},
                            Vec2{double{pc[0]} - pa[0], double{pc[1]} - pa[1]});
  if (turn >= 0.0) {
    m.indices.insert(m.indices.end(), {a, b, c});
  } else {
    m.indices.insert(m.indices.end(), {a, c, b});
  }
}

/// The line with long stretches cut where it crosses a terrain mesh edge (grid lines and cell
/// diagonals), so what hangs from it (skirts, curbs) follows the creased ground. Unchanged on
/// ground that is not mesh_exact. (terrain_cut.cpp)
Polyline split_at_terrain_edges(const Polyline& line, const terrain::Heightfield& g);

/// A sidewalk area of the road stage: its surface at block_raise_m, the curb faces around it
/// down to 5 cm below road_raise_m, cut along the terrain's creases. (sidewalk_mesh.cpp)
Mesh sidewalk_mesh(const Polygon& walk, const terrain::Heightfield& ground, const Config& config);

/// What every road and block mesh reads, checked once: a valid ground grid, finite edge points
/// and widths >= 0, finite block areas and heights, finite raises. (mesh_checks.cpp)
Status check_mesh_inputs(const layout::Output& city, const terrain::Heightfield& ground,
                         const Config& config);

}  // namespace cityforge::roads::detail
