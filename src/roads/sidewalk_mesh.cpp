// SPDX-License-Identifier: Apache-2.0
// Sidewalk areas of the road stage: a surface at curb height (block_raise_m) and the curb faces
// down to just below the road around it, cut along the terrain's creases.
#include <utility>

#include "cityforge/core/polygon.hpp"
#include "cityforge/core/polyline.hpp"
#include "cityforge/roads/meshes.hpp"
#include "roads/detail/drape.hpp"

namespace cityforge::roads {
namespace {

using detail::add_vertex;
using detail::Float3;
using detail::split_at_terrain_edges;
using detail::to_float3;

/// The curb faces stop this far below road_raise_m, so no gap shows under them.
constexpr double kCurbBelowRoadM = 0.05;

/// Curb faces: vertical walls around a sidewalk area, from its top down to just below the road,
/// draped on the ground point by point (long edges split to the drape spacing). Rings are
/// canonical (outer counter-clockwise, holes clockwise), so the walls face away from the walk.
void add_curbs(Mesh& m, const Polygon& walk, const terrain::Heightfield& g, double top_raise_m,
               double bottom_raise_m) {
  auto ring_walls = [&](const Ring& ring) {
    for (std::size_t i = 0; i < ring.size(); ++i) {
      const Polyline edge = split_at_terrain_edges(
          polyline_resample(Polyline{ring[i], ring[(i + 1) % ring.size()]}, kDrapeSpacingM), g);
      const Vec2 out = normalize(-perp(edge.back() - edge.front()));
      if (out == Vec2{} || edge.size() < 2) continue;
      const Float3 n = to_float3(out.x, out.y, 0.0);
      for (std::size_t k = 0; k + 1 < edge.size(); ++k) {
        const Vec2 a = edge[k];
        const Vec2 b = edge[k + 1];
        const auto v = static_cast<std::uint32_t>(m.positions.size());
        add_vertex(m, a, g.sample(a) + bottom_raise_m, n);
        add_vertex(m, b, g.sample(b) + bottom_raise_m, n);
        add_vertex(m, b, g.sample(b) + top_raise_m, n);
        add_vertex(m, a, g.sample(a) + top_raise_m, n);
        m.indices.insert(m.indices.end(), {v, v + 1, v + 2, v, v + 2, v + 3});
      }
    }
  };
  const Polygon canonical = polygon_canonical(walk);
  ring_walls(canonical.outer);
  for (const Ring& h : canonical.holes)
    ring_walls(h);
}

}  // namespace

namespace detail {

Mesh sidewalk_mesh(const Polygon& walk, const terrain::Heightfield& ground, const Config& config) {
  Mesh m = draped_surface(walk, ground, config.block_raise_m);
  add_curbs(m, walk, ground, config.block_raise_m, config.road_raise_m - kCurbBelowRoadM);
  return cut_along_terrain_edges(std::move(m), ground);
}

}  // namespace detail
}  // namespace cityforge::roads
