// SPDX-License-Identifier: Apache-2.0
// Block surfaces (a polygon triangulated and draped on the ground) and placeholder block
// volumes (setback footprints extruded to the zoning height) for cities without buildings.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cityforge/core/polygon.hpp"
#include "cityforge/roads/meshes.hpp"
#include "roads/detail/drape.hpp"

namespace cityforge::roads {

using detail::add_triangle_up;
using detail::add_vertex;
using detail::Float3;
using detail::ground_normal;
using detail::to_float3;

// Bisection keeps slivers from the triangulation cheap (a 1-4 split would multiply them); the
// T-vertices it leaves between neighbours open cracks of the terrain's curvature over one cell
// (millimetres), not holes.
Mesh draped_surface(const Polygon& area, const terrain::Heightfield& g, double raise_m) {
  Mesh m;
  const Triangulation t = triangulate(area);
  const double max_edge = 2.0 * g.cell_m;
  std::map<std::pair<double, double>, std::uint32_t> index;  // one vertex per point
  auto vertex = [&](Vec2 p) {
    auto [it, added] =
        index.try_emplace({p.x, p.y}, static_cast<std::uint32_t>(m.positions.size()));
    if (added) add_vertex(m, p, g.sample(p) + raise_m, ground_normal(g, p));
    return it->second;
  };
  std::vector<std::array<Vec2, 3>> pending;
  for (std::size_t i = 0; i + 2 < t.indices.size(); i += 3) {
    pending.push_back(
        {t.points[t.indices[i]], t.points[t.indices[i + 1]], t.points[t.indices[i + 2]]});
  }
  while (!pending.empty()) {
    const std::array<Vec2, 3> tri = pending.back();
    pending.pop_back();
    // Edge k runs from tri[k] to tri[k+1].
    std::size_t k = 0;
    double longest = 0.0;
    for (std::size_t e = 0; e < 3; ++e) {
      const double len = distance(tri[e], tri[(e + 1) % 3]);
      if (len > longest) {
        longest = len;
        k = e;
      }
    }
    if (longest <= max_edge) {
      add_triangle_up(m, vertex(tri[0]), vertex(tri[1]), vertex(tri[2]));
      continue;
    }
    const Vec2 a = tri[k];
    const Vec2 b = tri[(k + 1) % 3];
    const Vec2 c = tri[(k + 2) % 3];
    const Vec2 mid = (a + b) * 0.5;
    pending.push_back({a, mid, c});
    pending.push_back({mid, b, c});
  }
  return m;
}

void add_ring_walls(Mesh& m, const Ring& ring, double base_z, double top_z) {
  for (std::size_t i = 0; i < ring.size(); ++i) {
    const Vec2 a = ring[i];
    const Vec2 b = ring[(i + 1) % ring.size()];
    const Vec2 out = normalize(-perp(b - a));
    if (out == Vec2{}) {
      continue;
    }
    const Float3 n = to_float3(out.x, out.y, 0.0);
    const auto v = static_cast<std::uint32_t>(m.positions.size());
    add_vertex(m, a, base_z, n);
    add_vertex(m, b, base_z, n);
    add_vertex(m, b, top_z, n);
    add_vertex(m, a, top_z, n);
    // Counter-clockwise seen from outside.
    m.indices.insert(m.indices.end(), {v, v + 1, v + 2, v, v + 2, v + 3});
  }
}

namespace {

/// Lowest ground under a footprint: its vertices and every grid sample inside it.
double lowest_ground(const Polygon& fp, const terrain::Heightfield& g) {
  double low = std::numeric_limits<double>::infinity();
  for (const Vec2 p : fp.outer) {
    low = std::min(low, g.sample(p));
  }
  const Aabb2 box = ring_bounds(fp.outer);
  const auto index_range = [&](double lo, double hi, double origin, std::uint32_t count) {
    const double first = std::ceil((lo - origin) / g.cell_m);
    const double last = std::floor((hi - origin) / g.cell_m);
    const double max_index = static_cast<double>(count) - 1.0;
    return std::pair<double, double>{std::max(first, 0.0), std::min(last, max_index)};
  };
  const auto [i0, i1] = index_range(box.min.x, box.max.x, g.origin.x, g.nx);
  const auto [j0, j1] = index_range(box.min.y, box.max.y, g.origin.y, g.ny);
  for (double j = j0; j <= j1; j += 1.0) {
    for (double i = i0; i <= i1; i += 1.0) {
      const Vec2 p{g.origin.x + i * g.cell_m, g.origin.y + j * g.cell_m};
      if (polygon_contains(fp, p)) {
        low = std::min(low, static_cast<double>(g.at(static_cast<std::uint32_t>(i),
                                                     static_cast<std::uint32_t>(j))));
      }
    }
  }
  return low;
}

/// The block inset by setback_m, extruded from the lowest ground under it to
/// block.target_height_m above that: walls and a flat roof (no floor). Empty in parks.
Mesh block_volume(const layout::Block& block, const terrain::Heightfield& g, double setback_m,
                  const std::vector<Polygon>& keep_out) {
  Mesh m;
  if (block.zone == layout::ZoneKind::park || block.target_height_m <= 0.0) {
    return m;
  }
  std::vector<Polygon> footprints = setback_m > 0.0
                                        ? polygon_offset(block.area, -setback_m)
                                        : std::vector<Polygon>{polygon_canonical(block.area)};
  // Nothing is built under a freeway deck.
  const Aabb2 box = ring_bounds(block.area.outer);
  std::vector<Polygon> near;
  for (const Polygon& k : keep_out) {
    if (box.overlaps(ring_bounds(k.outer))) near.push_back(k);
  }
  if (!near.empty()) {
    std::vector<Polygon> cut;
    for (const Polygon& fp : footprints) {
      for (Polygon& piece : polygon_difference(fp, near)) {
        if (polygon_area(piece) >= 20.0) cut.push_back(std::move(piece));
      }
    }
    footprints = std::move(cut);
  }
  for (const Polygon& fp : footprints) {
    if (fp.outer.size() < 3) {
      continue;
    }
    const double base_z = lowest_ground(fp, g);
    const double top_z = base_z + block.target_height_m;
    add_ring_walls(m, fp.outer, base_z, top_z);
    for (const Ring& hole : fp.holes) {
      add_ring_walls(m, hole, base_z, top_z);
    }
    const Triangulation roof = triangulate(fp);
    const auto first = static_cast<std::uint32_t>(m.positions.size());
    for (const Vec2 p : roof.points) {
      add_vertex(m, p, top_z, Float3{0.0f, 0.0f, 1.0f});
    }
    for (std::size_t i = 0; i + 2 < roof.indices.size(); i += 3) {
      add_triangle_up(m, first + roof.indices[i], first + roof.indices[i + 1],
                      first + roof.indices[i + 2]);
    }
  }
  return m;
}

}  // namespace

Result<std::vector<Mesh>> build_block_volumes(const layout::Output& city,
                                              const terrain::Heightfield& ground, double setback_m,
                                              const std::vector<Polygon>& keep_out) {
  if (!std::isfinite(setback_m) || setback_m < 0.0) {
    return Error::invalid_input("export.volume_setback_m",
                                "expected >= 0, got " + std::to_string(setback_m));
  }
  if (Status s = detail::check_mesh_inputs(city, ground, Config{}); !s) return s.error();
  const auto& blocks = city.blocks;
  std::vector<Mesh> out(blocks.size());
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, blocks.size()),
                    [&](const tbb::blocked_range<std::size_t>& range) {
                      for (std::size_t i = range.begin(); i != range.end(); ++i) {
                        out[i] = block_volume(blocks[i], ground, setback_m, keep_out);
                      }
                    });
  return out;
}

}  // namespace cityforge::roads
