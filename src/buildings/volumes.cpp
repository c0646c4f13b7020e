// SPDX-License-Identifier: Apache-2.0
// Building volumes from the DNA: base, shaft tiers (staggered or cubified) and crown.

#include <algorithm>
#include <cmath>
#include <limits>

#include "buildings/detail/gen_internal.hpp"

namespace cityforge::buildings {
namespace {

constexpr double kMinWallM = 3.0;  // Crown inset only when walls stay at least this long.
constexpr double kMinTierAreaM2 = 4.0;

Vec2 to_world(const lots::BuildingDNA& dna, Vec2 local) {
  return dna.centre + rotate(local, dna.angle_rad);
}

// A box [x0, x1] x [y0, y1] of the local frame, placed in engine coordinates (CCW).
Polygon local_box(const lots::BuildingDNA& dna, double x0, double y0, double x1, double y1) {
  Polygon p;
  p.outer = {to_world(dna, {x0, y0}), to_world(dna, {x1, y0}), to_world(dna, {x1, y1}),
             to_world(dna, {x0, y1})};
  return p;
}

double shortest_edge(const Polygon& poly) {
  double best = std::numeric_limits<double>::infinity();
  auto walk = [&](const Ring& r) {
    for (std::size_t i = 0; i < r.size(); ++i) {
      best = std::min(best, distance(r[i], r[(i + 1) % r.size()]));
    }
  };
  walk(poly.outer);
  for (const Ring& h : poly.holes) {
    walk(h);
  }
  return best;
}

Polygon simplified(Polygon p) {
  p.outer = detail::simplify_ring(p.outer);
  std::vector<Ring> holes;
  for (const Ring& h : p.holes) {
    Ring s = detail::simplify_ring(h);
    if (s.size() >= 3) {
      holes.push_back(std::move(s));
    }
  }
  p.holes = std::move(holes);
  return p;
}

// Largest piece of a boolean result (ties: first), simplified; empty outer if none is usable.
Polygon largest(const std::vector<Polygon>& pieces) {
  Polygon best;
  double best_area = kMinTierAreaM2;
  for (const Polygon& p : pieces) {
    const double a = polygon_area(p);
    if (a > best_area) {
      best_area = a;
      best = p;
    }
  }
  if (best.outer.empty()) {
    return best;
  }
  Polygon s = simplified(best);
  if (s.outer.size() < 3) {
    return Polygon{};
  }
  return s;
}

// Deterministic corner order for cubified massing, from the DNA's numbers only.
std::array<int, 4> corner_order(const lots::BuildingDNA& dna) {
  std::uint64_t h = hash_combine(static_cast<std::uint64_t>(dna.shape),
                                 static_cast<std::uint64_t>(std::llround(dna.size_x_m * 100.0)));
  h = hash_combine(h, static_cast<std::uint64_t>(std::llround(dna.size_y_m * 100.0)));
  h = hash_combine(h, static_cast<std::uint64_t>(std::llround(dna.centre.x * 100.0)));
  h = hash_combine(h, static_cast<std::uint64_t>(std::llround(dna.centre.y * 100.0)));
  const int first = static_cast<int>(h % 4U);
  const int turn = (h >> 8U) % 2U == 0U ? 1 : 3;
  // First corner, then its neighbour, then the opposite one, then the last.
  return {first, (first + turn) % 4, (first + 2) % 4, (first + 4 - turn) % 4};
}

}  // namespace

namespace detail {

Ring simplify_ring(const Ring& ring) { return ring_remove_degenerate(ring, 1e-6, 1e-6); }

}  // namespace detail

std::vector<Volume> building_volumes(const lots::BuildingDNA& dna) {
  std::vector<Volume> out;
  if (!dna.imported.empty()) {
    // Mapped volumes as they are: walls from min_height to the roof's eaves.
    for (const lots::ImportedVolume& iv : dna.imported) {
      Polygon fp = simplified(iv.footprint);
      if (fp.outer.size() < 3 || !(iv.height_m > iv.min_height_m)) {
        continue;
      }
      Volume v;
      v.footprint = std::move(fp);
      v.z0_m = std::max(0.0, iv.min_height_m);
      const double roof_h =
          iv.roof == lots::RoofShape::flat ? 0.0 : std::max(0.0, iv.roof_height_m);
      v.z1_m = std::max(v.z0_m, iv.height_m - roof_h);
      v.layer = v.z0_m > 0.0 ? 1 : 0;
      v.roof = iv.roof;
      v.roof_height_m = iv.height_m - v.z1_m;
      v.roof_direction_rad = iv.roof_direction_rad;
      if (v.roof == lots::RoofShape::flat) {
        v.roof_height_m = 0.0;
        v.z1_m = std::max(v.z0_m, iv.height_m);
      }
      out.push_back(std::move(v));
    }
    return out;
  }
  const Polygon footprint = simplified(lots::footprint_polygon(dna));
  if (footprint.outer.size() < 3 || dna.base_m <= 0.0) {
    return out;
  }

  // 1. Base layer on the full footprint.
  out.push_back(Volume{footprint, 0.0, dna.base_m, 0});
  double z = dna.base_m;

  // 2. The shaft footprint: podium towers stand on an inner box of 60 % size.
  Polygon shaft = footprint;
  if (dna.shape == lots::FootprintShape::podium_tower && (dna.shaft_m > 0.0 || dna.crown_m > 0.0)) {
    const double hx = dna.size_x_m * 0.3;
    const double hy = dna.size_y_m * 0.3;
    shaft = local_box(dna, -hx, -hy, hx, hy);
  }

  // 3. Shaft tiers.
  if (dna.shaft_m > 0.0) {
    const std::uint32_t tiers =
        dna.massing == lots::Massing::plain ? 1U : std::max<std::uint32_t>(1U, dna.setback_steps);
    const double tier_h = dna.shaft_m / static_cast<double>(tiers);
    const bool podium = dna.shape == lots::FootprintShape::podium_tower;
    const std::array<int, 4> order = corner_order(dna);
    Polygon prev = shaft;
    for (std::uint32_t k = 0; k < tiers; ++k) {
      Polygon tier = k == 0 ? shaft : prev;
      if (dna.massing == lots::Massing::staggered && dna.setback_m > 0.0) {
        const double inset = dna.setback_m * static_cast<double>(k + (podium ? 0U : 1U));
        if (inset > 0.0) {
          Polygon t = largest(polygon_offset(shaft, -inset));
          if (!t.outer.empty()) {
            tier = std::move(t);
          }
        }
      } else if (dna.massing == lots::Massing::cubified && k < 4) {
        // Drop corner block k (40 % of each side of the shaft's box) from the tier below.
        const double sx = podium ? dna.size_x_m * 0.6 : dna.size_x_m;
        const double sy = podium ? dna.size_y_m * 0.6 : dna.size_y_m;
        const int c = order[k];
        const double bx = sx * 0.4;
        const double by = sy * 0.4;
        const double x0 = (c == 0 || c == 3) ? -sx : sx * 0.5 - bx;
        const double x1 = (c == 0 || c == 3) ? -sx * 0.5 + bx : sx;
        const double y0 = (c == 0 || c == 1) ? -sy : sy * 0.5 - by;
        const double y1 = (c == 0 || c == 1) ? -sy * 0.5 + by : sy;
        Polygon t = largest(polygon_difference(prev, {local_box(dna, x0, y0, x1, y1)}));
        if (!t.outer.empty()) {
          tier = std::move(t);
        }
      }
      // A tier whose inset failed keeps the footprint below: extend that volume instead.
      const Volume& below = out.back();
      const bool same = out.size() > 1 && below.layer == 1 && below.footprint.outer == tier.outer &&
                        below.footprint.holes == tier.holes;
      if (same) {
        out.back().z1_m = z + tier_h;
      } else {
        out.push_back(Volume{tier, z, z + tier_h, 1});
      }
      z += tier_h;
      prev = out.back().footprint;
    }
  }

  // 4. Crown: inset by setback_m when its walls stay long enough.
  if (dna.crown_m > 0.0) {
    Polygon crown = dna.shaft_m > 0.0 ? out.back().footprint : shaft;
    if (dna.setback_m > 0.0) {
      Polygon t = largest(polygon_offset(crown, -dna.setback_m));
      if (!t.outer.empty() && shortest_edge(t) >= kMinWallM) {
        crown = std::move(t);
      }
    }
    out.push_back(Volume{crown, z, z + dna.crown_m, 2});
  }
  return out;
}

}  // namespace cityforge::buildings
