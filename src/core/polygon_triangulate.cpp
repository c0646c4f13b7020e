// SPDX-License-Identifier: Apache-2.0
// Constrained Delaunay triangulation of a polygon with holes, delegated to GEOS
// (GEOSConstrainedDelaunayTriangulation, GEOS >= 3.10), then checked and made counter-clockwise.
// Based on: M. Davis, GEOS / JTS tri package (ConstrainedDelaunayTriangulator).
#include <cstddef>
#include <map>
#include <utility>

#include "core/detail/geos.hpp"

namespace cityforge {

Triangulation triangulate(const Polygon& poly) {
  Triangulation out;
  detail::GeosContext ctx;
  GEOSContextHandle_t h = ctx.get();
  detail::GeomPtr g = detail::to_geos_valid(ctx, poly);
  if (!g) {
    return out;
  }
  detail::GeomPtr tris =
      detail::own(ctx, detail::geos().GEOSConstrainedDelaunayTriangulation_r(h, g.get()));
  if (!tris) {
    return out;
  }
  std::vector<Polygon> triangles;
  detail::collect_polygons(ctx, tris.get(), triangles);

  // Shared points are numbered in order of first use, so the output is deterministic.
  std::map<std::pair<double, double>, std::uint32_t> index_of;
  const auto index = [&](Vec2 p) {
    const auto [it, inserted] =
        index_of.try_emplace({p.x, p.y}, static_cast<std::uint32_t>(out.points.size()));
    if (inserted) {
      out.points.push_back(p);
    }
    return it->second;
  };
  const Polygon canonical = polygon_canonical(poly);
  for (const Polygon& tri : triangles) {
    // collect_polygons already made each ring counter-clockwise with non-zero area.
    if (tri.outer.size() != 3 || !tri.holes.empty()) {
      continue;
    }
    // The triangulation of a polygon with holes must not cover the holes; guard anyway.
    const Vec2 c = (tri.outer[0] + tri.outer[1] + tri.outer[2]) / 3.0;
    if (!polygon_contains(canonical, c)) {
      continue;
    }
    for (const Vec2& p : tri.outer) {
      out.indices.push_back(index(p));
    }
  }
  return out;
}

}  // namespace cityforge
