// SPDX-License-Identifier: Apache-2.0
// Ground cover: every block minus its building footprints (base volumes) and sidewalks gets a
// "ground_tile" per ground_tile_m cell of a grid aligned with the block's longest edge, only
// where the whole cell lies inside that area (a tile never pokes onto a building).
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>

#include "cityforge/core/polygon_bands.hpp"
#include "cityforge/core/spatial_hash.hpp"
#include "dressing/detail.hpp"

namespace cityforge::dressing::detail {
namespace {

bool segments_cross(Vec2 a, Vec2 b, Vec2 c, Vec2 d) {
  const double d1 = cross(b - a, c - a);
  const double d2 = cross(b - a, d - a);
  const double d3 = cross(d - c, a - c);
  const double d4 = cross(d - c, b - c);
  return ((d1 > 0.0 && d2 < 0.0) || (d1 < 0.0 && d2 > 0.0)) &&
         ((d3 > 0.0 && d4 < 0.0) || (d3 < 0.0 && d4 > 0.0));
}

/// The cells [i, i+1] x [j, j+1] (times cell) of the polygon's frame wholly inside it.
void cells_inside(const Polygon& poly, double cell, std::vector<std::array<std::int64_t, 2>>& out) {
  struct Edge {
    Vec2 a, b;
  };
  std::vector<Edge> edges;
  auto add_ring = [&](const Ring& r) {
    for (std::size_t i = 0; i < r.size(); ++i)
      edges.push_back({r[i], r[(i + 1) % r.size()]});
  };
  add_ring(poly.outer);
  for (const Ring& h : poly.holes)
    add_ring(h);
  const Aabb2 box = ring_bounds(poly.outer);
  const auto j0 = static_cast<std::int64_t>(std::floor(box.min.y / cell));
  const auto j1 = static_cast<std::int64_t>(std::ceil(box.max.y / cell));
  const auto i0 = static_cast<std::int64_t>(std::floor(box.min.x / cell));
  const auto i1 = static_cast<std::int64_t>(std::ceil(box.max.x / cell));
  std::vector<const Edge*> row;
  const PolygonBands bands{poly};  // Four corners per cell, against rings with many holes.
  for (std::int64_t j = j0; j < j1; ++j) {
    const double y0 = j * cell;
    const double y1 = y0 + cell;
    row.clear();
    for (const Edge& e : edges) {
      if (std::max(e.a.y, e.b.y) < y0 || std::min(e.a.y, e.b.y) > y1) continue;
      row.push_back(&e);
    }
    for (std::int64_t i = i0; i < i1; ++i) {
      const double x0 = i * cell;
      const double x1 = x0 + cell;
      const Vec2 c[4] = {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}};
      bool inside = true;
      for (const Vec2& p : c)
        inside = inside && bands.contains(p);
      if (!inside) continue;
      for (const Edge* e : row) {
        if (std::max(e->a.x, e->b.x) < x0 || std::min(e->a.x, e->b.x) > x1) continue;
        // A vertex strictly inside the cell, or an edge crossing one of its sides.
        if ((e->a.x > x0 && e->a.x < x1 && e->a.y > y0 && e->a.y < y1) ||
            (e->b.x > x0 && e->b.x < x1 && e->b.y > y0 && e->b.y < y1)) {
          inside = false;
          break;
        }
        for (int k = 0; k < 4 && inside; ++k) {
          if (segments_cross(e->a, e->b, c[k], c[(k + 1) % 4])) inside = false;
        }
        if (!inside) break;
      }
      if (inside) out.push_back({i, j});
    }
  }
}

}  // namespace

void ground_cover(const Inputs& in, const Config& config, Seed seed, std::vector<Item>& out) {
  const std::int32_t prop = find_prop("ground_tile");
  if (prop < 0 || !(config.ground_tile_m > 0.0)) return;
  const double cell = config.ground_tile_m;
  const auto& blocks = in.city.blocks;
  // 1. What covers the ground: building base footprints and sidewalks, hashed by box.
  std::vector<const Polygon*> covers;
  for (const buildings::Building& b : in.buildings.buildings) {
    if (!b.volumes.empty() && b.volumes[0].footprint.outer.size() >= 3)
      covers.push_back(&b.volumes[0].footprint);
  }
  for (const Polygon& s : in.roads.sidewalks) {
    if (s.outer.size() >= 3) covers.push_back(&s);
  }
  SpatialHash hash(32.0);
  std::vector<Aabb2> boxes;
  boxes.reserve(covers.size());
  for (std::size_t i = 0; i < covers.size(); ++i) {
    boxes.push_back(ring_bounds(covers[i]->outer));
    hash.insert(static_cast<std::uint32_t>(i), boxes.back());
  }

  // 2. Per block: the remaining area, tiled on its longest edge's grid.
  std::vector<std::vector<Item>> slots(blocks.size());
  tbb::parallel_for(std::size_t{0}, blocks.size(), [&](std::size_t b) {
    const Polygon& area = blocks[b].area;
    const Ring& ring = area.outer;
    if (ring.size() < 3) return;
    std::size_t longest = 0;
    double longest_m = -1.0;
    for (std::size_t i = 0; i < ring.size(); ++i) {
      const double len = distance(ring[i], ring[(i + 1) % ring.size()]);
      if (len > longest_m + 1e-9) {
        longest_m = len;
        longest = i;
      }
    }
    const Vec2 origin = ring[longest];
    const Vec2 ux = normalize(ring[(longest + 1) % ring.size()] - origin);
    const Vec2 uy = perp(ux);
    // The covers that can touch the block: the hash answers by 32 m cell, and more than half
    // of its answers lie clear of the block's box (cutting them out changed no point of the
    // area, and GEOS validated and merged each one).
    const Aabb2 block_box = ring_bounds(ring);
    std::vector<std::uint32_t> ids;
    hash.query(block_box, ids);
    std::vector<Polygon> cuts;
    for (std::uint32_t id : ids) {
      if (boxes[id].overlaps(block_box)) cuts.push_back(*covers[id]);
    }
    const std::vector<Polygon> rest =
        cuts.empty() ? std::vector<Polygon>{area} : polygon_difference(area, cuts);
    auto to_local = [&](Vec2 p) { return Vec2{dot(p - origin, ux), dot(p - origin, uy)}; };
    std::vector<std::array<std::int64_t, 2>> cells;
    for (const Polygon& piece : rest) {
      Polygon local;
      for (Vec2 p : piece.outer)
        local.outer.push_back(to_local(p));
      for (const Ring& h : piece.holes) {
        Ring lh;
        for (Vec2 p : h)
          lh.push_back(to_local(p));
        local.holes.push_back(std::move(lh));
      }
      cells_inside(local, cell, cells);
    }
    std::sort(cells.begin(), cells.end());
    const float yaw = static_cast<float>(std::atan2(ux.y, ux.x));
    const std::uint32_t variants = std::clamp<std::uint32_t>(config.tile_variants, 1, 256);
    for (const auto& c : cells) {
      const Vec2 p = origin + ux * (static_cast<double>(c[0]) * cell) +
                     uy * (static_cast<double>(c[1]) * cell);
      Rng rng{seed, Stage::dressing,
              hash_combine(hash_combine(hash_combine(0x67726f756e64ULL, b),
                                        static_cast<std::uint64_t>(c[0])),
                           static_cast<std::uint64_t>(c[1])),
              2};
      Item item;
      item.prop = static_cast<std::uint32_t>(prop);
      item.position = {static_cast<float>(p.x), static_cast<float>(p.y),
                       static_cast<float>(in.ground.sample(p) + in.roads.block_raise_m)};
      item.yaw_rad = yaw;
      item.scale_x = static_cast<float>(cell);
      item.scale_y = static_cast<float>(cell);
      item.owner = static_cast<std::uint32_t>(b);
      item.variant = static_cast<std::uint8_t>(rng.below(variants));
      slots[b].push_back(item);
    }
  });
  for (auto& s : slots)
    out.insert(out.end(), s.begin(), s.end());
}

}  // namespace cityforge::dressing::detail
