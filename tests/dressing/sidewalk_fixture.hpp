// SPDX-License-Identifier: Apache-2.0
// Sidewalk and ground cover tiles' shapes and coverage, for the sidewalk tests (unit and city).
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "cityforge/core/spatial_hash.hpp"
#include "cityforge/dressing/dressing.hpp"
#include "dressing/detail.hpp"

namespace cityforge::dressing::testing {

/// The item's footprint in the plane: its unit shape scaled, rotated and moved.
inline Ring item_shape(const Item& it) {
  const std::string& id = prop_catalog()[it.prop].id;
  Ring unit;
  if (id == "sidewalk_corner_out") {
    unit = {{0, 0}, {1, -0.5}, {1, 0.5}};
  } else if (id == "sidewalk_corner_in") {
    unit = {{0, 0}, {1, 0}, {0, 1}};
  } else {
    unit = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
  }
  const double c = std::cos(it.yaw_rad), s = std::sin(it.yaw_rad);
  Ring out;
  for (Vec2 p : unit) {
    const Vec2 q{p.x * it.scale_x, p.y * it.scale_y};
    out.push_back({it.position[0] + c * q.x - s * q.y, it.position[1] + s * q.x + c * q.y});
  }
  return out;
}

/// Item footprints with a hash for point queries.
struct Cover {
  std::vector<Ring> shapes;
  SpatialHash hash{4.0};
  explicit Cover(const std::vector<Item>& items) {
    for (const Item& it : items) {
      shapes.push_back(item_shape(it));
      hash.insert(static_cast<std::uint32_t>(shapes.size() - 1), ring_bounds(shapes.back()));
    }
  }
  bool covers(Vec2 p, std::vector<std::uint32_t>& ids) const {
    hash.query(Aabb2{p, p}, ids);
    for (std::uint32_t id : ids)
      if (ring_contains(shapes[id], p)) return true;
    return false;
  }
};

/// Samples of a polygon on a grid of `step` metres.
inline std::vector<Vec2> samples(const Polygon& poly, double step) {
  std::vector<Vec2> out;
  const Aabb2 b = ring_bounds(poly.outer);
  for (double y = b.min.y + 0.5 * step; y < b.max.y; y += step)
    for (double x = b.min.x + 0.5 * step; x < b.max.x; x += step)
      if (polygon_contains(poly, {x, y})) out.push_back({x, y});
  return out;
}

struct Tiled {
  std::vector<Item> items;
  std::vector<detail::TileRun> runs;
  double length_m = 0.0;
};

inline Tiled tile(const Inputs& in, Seed seed = 3) {
  Tiled t;
  t.length_m = detail::sidewalk_tiles(in, Config{}, seed, t.items, &t.runs);
  return t;
}

/// True when the square item lies inside the polygon (corners inside, no ring vertex within).
inline bool square_inside(const Ring& sq, const Polygon& poly) {
  // Inset by 1 cm: corners and ring vertices on the square's sides do not count.
  const Vec2 c = ring_centroid(sq);
  Ring inset;
  for (Vec2 p : sq)
    inset.push_back(p + normalize(c - p) * 0.01);
  for (Vec2 p : inset)
    if (!polygon_contains(poly, p)) return false;
  auto none_in = [&](const Ring& r) {
    return std::none_of(r.begin(), r.end(), [&](Vec2 v) { return ring_contains(inset, v); });
  };
  if (!none_in(poly.outer)) return false;
  for (const Ring& h : poly.holes)
    if (!none_in(h)) return false;
  return true;
}

}  // namespace cityforge::dressing::testing
