// SPDX-License-Identifier: Apache-2.0
// Block cleaning and subdivision (seeds/000, 14:45-15:10): the block minus the freeway
// footprint, opened by half a metre, is split recursively across the longest side of its
// oriented box until each piece is no larger than a tall enough building can use.
// Based on: Parish & Mueller, Procedural Modeling of Cities, 2001 (recursive OBB splits).
#include <algorithm>
#include <cmath>

#include "lots/detail.hpp"

namespace cityforge::lots::detail {
namespace {

constexpr int kMaxDepth = 24;

struct Splitter {
  const layout::Output& city;
  const layout::Block& block;
  const StreetSide& side;
  const Config& config;
  Seed seed;
  std::vector<LotPiece>* out;

  double height_at(Vec2 p) const {
    return city.height_field.nx > 0 ? city.height_field.sample(p) : block.target_height_m;
  }
  double density_at(Vec2 p) const {
    return city.density_field.nx > 0 ? city.density_field.sample(p) : block.density;
  }
  bool has_frontage(const Polygon& p) const {
    const auto f = side.frontage(p.outer);
    return std::any_of(f.begin(), f.end(), [](std::uint8_t x) { return x != 0; });
  }

  // Both sides of the line through `at` along `dir`; false if either side is empty.
  bool cut(const Polygon& p, Vec2 at, Vec2 dir, std::vector<Polygon>* left,
           std::vector<Polygon>* right) const {
    *left = cut_half(p, at, dir, true);
    *right = cut_half(p, at, dir, false);
    return !left->empty() && !right->empty();
  }

  void emit(Polygon p) const {
    p.outer = remove_degenerate(std::move(p.outer));
    if (p.outer.size() < 3) return;
    for (Ring& h : p.holes)
      h = remove_degenerate(std::move(h));
    std::erase_if(p.holes, [](const Ring& h) { return h.size() < 3; });
    const Vec2 c = ring_centroid(p.outer);
    out->push_back({std::move(p), height_at(c), density_at(c)});
  }

  void split(const Polygon& p, std::uint64_t key, int depth) const {
    // 1. How large a lot the target height here can use, with some noise.
    Rng rng{seed, Stage::lots, hash_combine(block.id, key)};
    const double area = polygon_area(p);
    const double h = height_at(ring_centroid(p.outer));
    const double max_area =
        (config.base_lot_area_m2 + config.area_per_height_m * std::max(0.0, h - 10.0)) *
        (1.0 + config.area_jitter * rng.uniform(-1.0, 1.0));
    if (area <= max_area || area < 2.0 * config.min_lot_area_m2 || depth >= kMaxDepth) {
      emit(p);
      return;
    }
    // 2. Deep pieces split back to back, parallel to their street; others across the long side
    // of the oriented box at a random position, unless that leaves a child without street.
    const OrientedBox box = oriented_box(p.outer);
    const auto front = side.frontage(p.outer);
    const std::size_t e = main_edge(p.outer, front);
    const Vec2 fdir = normalize(p.outer[(e + 1) % p.outer.size()] - p.outer[e]);
    const bool street = std::any_of(front.begin(), front.end(), [](auto f) { return f != 0; });
    double d0 = INFINITY, d1 = -INFINITY;
    for (Vec2 q : p.outer) {
      d0 = std::min(d0, dot(q, perp(fdir)));
      d1 = std::max(d1, dot(q, perp(fdir)));
    }
    std::vector<Polygon> left;
    std::vector<Polygon> right;
    bool done = false;
    if (street && d1 - d0 > 2.0 * config.max_lot_depth_m) {
      const double t = rng.uniform(0.45, 0.55);
      const Vec2 at = fdir * dot(box.centre, fdir) + perp(fdir) * (d0 + t * (d1 - d0));
      done = cut(p, at, fdir, &left, &right);
    }
    const double t = rng.uniform(0.35, 0.65);
    if (!done) {
      const Vec2 at = box.centre + box.axis * ((t - 0.5) * box.long_m);
      done = cut(p, at, perp(box.axis), &left, &right);
      const auto no_street = [&](const std::vector<Polygon>& v) {
        return std::any_of(v.begin(), v.end(), [&](const Polygon& q) { return !has_frontage(q); });
      };
      if (done && street && (no_street(left) || no_street(right))) {
        std::vector<Polygon> l2;
        std::vector<Polygon> r2;
        const Vec2 at2 = box.centre + perp(box.axis) * ((t - 0.5) * box.short_m);
        if (cut(p, at2, box.axis, &l2, &r2) && !no_street(l2) && !no_street(r2)) {
          left = std::move(l2);
          right = std::move(r2);
        }
      }
    }
    if (!done) {
      emit(p);
      return;
    }
    // 3. Recurse; children keys extend the parent's path, so draws never depend on order.
    std::uint64_t k = 0;
    for (const auto* side_pieces : {&left, &right}) {
      for (const Polygon& q : *side_pieces)
        split(q, hash_combine(key, ++k), depth + 1);
    }
  }
};

}  // namespace

std::vector<LotPiece> subdivide_block(const layout::Output& city, const layout::Block& block,
                                      const std::vector<Polygon>& keep_out, const StreetSide& side,
                                      const Config& config, Seed seed) {
  // 1. The block minus the keep-out polygons near it.
  const Aabb2 bb = ring_bounds(block.area.outer);
  std::vector<Polygon> near;
  for (const Polygon& k : keep_out) {
    const Aabb2 kb = ring_bounds(k.outer);
    if (!(kb.min.x > bb.max.x || kb.max.x < bb.min.x || kb.min.y > bb.max.y ||
          kb.max.y < bb.min.y)) {
      near.push_back(k);
    }
  }
  std::vector<Polygon> pieces =
      near.empty() ? std::vector<Polygon>{block.area} : polygon_difference(block.area, near);

  // 2. Opening (inset then outset by half a metre, clipped to the piece) drops necks and
  // slivers; small leftovers go.
  std::vector<Polygon> clean;
  for (const Polygon& piece : pieces) {
    for (const Polygon& in : polygon_offset(piece, -0.5)) {
      for (const Polygon& grown : polygon_offset(in, 0.5)) {
        for (Polygon& q : polygon_intersection(grown, piece)) {
          q.outer = remove_degenerate(std::move(q.outer));
          if (q.outer.size() >= 3 && polygon_area(q) >= config.min_lot_area_m2)
            clean.push_back(std::move(q));
        }
      }
    }
  }

  // 3. Recursive subdivision of each clean piece.
  std::vector<LotPiece> lots;
  const Splitter splitter{city, block, side, config, seed, &lots};
  for (std::size_t i = 0; i < clean.size(); ++i)
    splitter.split(clean[i], hash_combine(0x10f5ULL, i), 0);
  return lots;
}

}  // namespace cityforge::lots::detail
