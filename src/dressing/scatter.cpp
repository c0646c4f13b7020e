// SPDX-License-Identifier: Apache-2.0
// The packing scatterer: each leftover zone gets one biome of its kind (a seeded draw by weight;
// when the drawn biome fits nowhere in the zone the next draw without replacement is tried),
// stamped on a grid aligned with the zone's longest edge or across it, the grid origin chosen
// among a few offsets for the most stamps. A stamp's box lies wholly inside the zone and the
// grid pitch (size + spacing) keeps stamps apart, so with parts disjoint inside a biome no two
// scattered props overlap. A biome that fits no zone of its kind is reported once.
// Based on: the packing scatterer (seeds/000, minutes 19-21).
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "cityforge/core/format.hpp"
#include "cityforge/core/polygon_bands.hpp"
#include "cityforge/rooftops/rooftops.hpp"
#include "dressing/detail.hpp"

namespace cityforge::dressing::detail {
namespace {

constexpr double kEps = 1e-6;
constexpr int kOffsetSteps = 6;         ///< Grid origin shifts: k / 6 of the pitch, k = 0..5.
constexpr std::size_t kEdgeAngles = 3;  ///< Grid directions: the longest distinct edges.

/// A stamp: the box centre and its x axis angle.
struct Stamp {
  Vec2 centre;
  double angle = 0.0;
};

double cross(Vec2 a, Vec2 b, Vec2 c) {
  return (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
}

/// Segments ab and cd cross properly (interiors meet at one point).
bool segments_cross(Vec2 a, Vec2 b, Vec2 c, Vec2 d) {
  const double d1 = cross(a, b, c);
  const double d2 = cross(a, b, d);
  const double d3 = cross(c, d, a);
  const double d4 = cross(c, d, b);
  return ((d1 > kEps && d2 < -kEps) || (d1 < -kEps && d2 > kEps)) &&
         ((d3 > kEps && d4 < -kEps) || (d3 < -kEps && d4 > kEps));
}

/// The box (4 corners, counter-clockwise) lies wholly inside the polygon: its corners are inside,
/// no ring edge crosses a box edge and no ring vertex lies strictly inside the box. Only the
/// edges near the box can do either (a proper crossing or a vertex inside means the edge's
/// bounds meet the box's, the 1 mm margin being far above the rounding of these products), so
/// the zone's bands hand over those alone.
bool box_inside(const std::array<Vec2, 4>& box, const PolygonBands& zone) {
  for (const Vec2 c : box) {
    if (!zone.contains(c)) return false;
  }
  Aabb2 near;
  for (const Vec2 c : box)
    near.add(c);
  near.min = near.min - Vec2{1e-3, 1e-3};
  near.max = near.max + Vec2{1e-3, 1e-3};
  const Polygon& poly = zone.polygon();
  return !zone.any_edge(near, [&](std::size_t r, std::size_t i) {
    const Ring& ring = r == 0 ? poly.outer : poly.holes[r - 1];
    const Vec2 a = ring[i];
    const Vec2 b = ring[(i + 1) % ring.size()];
    bool strictly_inside = true;
    for (std::size_t k = 0; k < 4; ++k) {
      const Vec2 c = box[k];
      const Vec2 d = box[(k + 1) % 4];
      if (segments_cross(a, b, c, d)) return true;
      if (cross(c, d, a) <= kEps) strictly_inside = false;
    }
    return strictly_inside;
  });
}

std::array<Vec2, 4> stamp_box(const Stamp& s, double sx, double sy) {
  const double c = std::cos(s.angle);
  const double n = std::sin(s.angle);
  const Vec2 u{c * 0.5 * sx, n * 0.5 * sx};
  const Vec2 v{-n * 0.5 * sy, c * 0.5 * sy};
  const Vec2 o = s.centre;
  return {Vec2{o.x - u.x - v.x, o.y - u.y - v.y}, Vec2{o.x + u.x - v.x, o.y + u.y - v.y},
          Vec2{o.x + u.x + v.x, o.y + u.y + v.y}, Vec2{o.x - u.x + v.x, o.y - u.y + v.y}};
}

/// Bounds of the ring in the frame rotated by `angle` (u along it, v across).
void frame_bounds(const Ring& ring, double angle, double& u0, double& u1, double& v0, double& v1) {
  const Aabb2 b = ring_bounds_rotated(ring, angle);
  u0 = b.min.x;
  u1 = b.max.x;
  v0 = b.min.y;
  v1 = b.max.y;
}

/// Candidate grid angles: the zone's reference angle, then the directions of the next longest
/// outer edges not within 5 degrees of one already taken (modulo 90 degrees); each also turned by
/// 90 degrees.
std::vector<double> candidate_angles(const LeftoverZone& zone) {
  std::vector<double> base{zone.angle_rad};
  const Ring& ring = zone.area.outer;
  std::vector<std::pair<double, double>> edges;  // (-length, angle)
  for (std::size_t i = 0; i < ring.size(); ++i) {
    const Vec2 a = ring[i];
    const Vec2 b = ring[(i + 1) % ring.size()];
    edges.emplace_back(-std::hypot(b.x - a.x, b.y - a.y), std::atan2(b.y - a.y, b.x - a.x));
  }
  std::sort(edges.begin(), edges.end());
  const double quarter = 0.5 * std::numbers::pi;
  for (const auto& [neg_len, angle] : edges) {
    if (base.size() >= kEdgeAngles) break;
    bool distinct = true;
    for (double t : base) {
      const double d = std::remainder(angle - t, quarter);
      if (std::abs(d) < 5.0 * std::numbers::pi / 180.0) distinct = false;
    }
    if (distinct) base.push_back(angle);
  }
  std::vector<double> out;
  for (double a : base) {
    out.push_back(a);
    out.push_back(a + quarter);
  }
  return out;
}

/// The best grid of `b` over `zone`: most stamps among the candidate angles and origins.
std::vector<Stamp> best_pattern(const Biome& b, const LeftoverZone& zone,
                                const PolygonBands& area) {
  std::vector<Stamp> best;
  const double px = b.size_x_m + b.spacing_m;
  const double py = b.size_y_m + b.spacing_m;
  for (const double angle : candidate_angles(zone)) {
    double u0, u1, v0, v1;
    frame_bounds(zone.area.outer, angle, u0, u1, v0, v1);
    if (u1 - u0 < b.size_x_m - kEps || v1 - v0 < b.size_y_m - kEps) continue;
    const double c = std::cos(angle);
    const double s = std::sin(angle);
    // Origin shifts: a share of the pitch, plus the one centring the grid in the bounds.
    const auto nu = static_cast<int>(std::floor((u1 - u0 - b.size_x_m) / px + kEps)) + 1;
    const auto nv = static_cast<int>(std::floor((v1 - v0 - b.size_y_m) / py + kEps)) + 1;
    std::vector<double> su, sv;
    su.push_back(0.5 * (u1 - u0 - b.size_x_m - (nu - 1) * px));
    sv.push_back(0.5 * (v1 - v0 - b.size_y_m - (nv - 1) * py));
    for (int k = 0; k < kOffsetSteps; ++k) {
      su.push_back(k * px / kOffsetSteps);
      sv.push_back(k * py / kOffsetSteps);
    }
    // Bounded: a grid whose stamps, all inside, could not outnumber the best so far (ties keep
    // the first) is not tested, nor the rest of one that can no longer; the result is the same.
    std::vector<double> us, vs;
    for (double ou : su) {
      us.clear();
      for (double u = u0 + ou + 0.5 * b.size_x_m; u + 0.5 * b.size_x_m <= u1 + kEps; u += px)
        us.push_back(u);
      for (double ov : sv) {
        vs.clear();
        for (double v = v0 + ov + 0.5 * b.size_y_m; v + 0.5 * b.size_y_m <= v1 + kEps; v += py)
          vs.push_back(v);
        std::size_t left = us.size() * vs.size();
        if (left <= best.size()) continue;
        std::vector<Stamp> stamps;
        for (const double u : us) {
          for (const double v : vs) {
            const Stamp st{Vec2{u * c - v * s, u * s + v * c}, angle};
            if (box_inside(stamp_box(st, b.size_x_m, b.size_y_m), area)) stamps.push_back(st);
            --left;
          }
          if (stamps.size() + left <= best.size()) break;
        }
        if (stamps.size() > best.size()) best = std::move(stamps);
      }
    }
  }
  return best;
}

struct ZoneResult {
  std::vector<Item> items;
  std::uint32_t stamps = 0;
  std::vector<char> fits;  ///< Per biome index: placed at least one stamp when tried.
};

}  // namespace

void scatter_biomes(std::vector<LeftoverZone>& zones, const std::vector<Biome>& biomes,
                    const Inputs& in, const Config& /*config*/, Seed seed, std::vector<Item>& out,
                    std::vector<std::string>& warnings) {
  std::vector<ZoneResult> results(zones.size());
  // 1. Per zone (independent jobs): draw biomes by weight until one fits, stamp its best grid.
  tbb::parallel_for(std::size_t{0}, zones.size(), [&](std::size_t zi) {
    LeftoverZone& zone = zones[zi];
    ZoneResult& res = results[zi];
    res.fits.assign(biomes.size(), 0);
    std::vector<std::size_t> pool;
    for (std::size_t i = 0; i < biomes.size(); ++i) {
      if (biomes[i].zone == zone.kind && biomes[i].weight > 0.0) pool.push_back(i);
    }
    Rng rng{seed, Stage::dressing, zi, 0x5ca7};
    const PolygonBands area{zone.area};
    while (!pool.empty()) {
      double total = 0.0;
      for (std::size_t i : pool)
        total += biomes[i].weight;
      double pick = rng.uniform01() * total;
      std::size_t k = 0;
      for (; k + 1 < pool.size(); ++k) {
        pick -= biomes[pool[k]].weight;
        if (pick < 0.0) break;
      }
      const Biome& b = biomes[pool[k]];
      std::vector<Stamp> stamps = best_pattern(b, zone, area);
      if (stamps.empty()) {
        pool.erase(pool.begin() + static_cast<std::ptrdiff_t>(k));
        continue;
      }
      res.fits[pool[k]] = 1;
      if (b.fill < 1.0) {
        // Keep a seeded share of the stamps (at least one), in their pattern order.
        const auto keep = static_cast<std::size_t>(
            std::max(1.0, std::round(b.fill * static_cast<double>(stamps.size()))));
        std::vector<std::pair<std::uint32_t, std::size_t>> order;
        for (std::size_t i = 0; i < stamps.size(); ++i)
          order.emplace_back(rng.next_u32(), i);
        std::sort(order.begin(), order.end());
        order.resize(std::min(keep, order.size()));
        std::sort(order.begin(), order.end(),
                  [](const auto& a, const auto& c) { return a.second < c.second; });
        std::vector<Stamp> kept;
        for (const auto& [key, i] : order)
          kept.push_back(stamps[i]);
        stamps = std::move(kept);
      }
      res.stamps = static_cast<std::uint32_t>(stamps.size());
      for (const Stamp& st : stamps) {
        const double c = std::cos(st.angle);
        const double s = std::sin(st.angle);
        for (const BiomePart& part : b.parts) {
          const Vec2 p{st.centre.x + part.offset.x * c - part.offset.y * s,
                       st.centre.y + part.offset.x * s + part.offset.y * c};
          double z = zone.z_m;
          if (zone.kind != ZoneKind::rooftop) z = in.ground.sample(p) + in.roads.block_raise_m;
          Item item;
          item.prop = part.prop;
          item.position = {static_cast<float>(p.x), static_cast<float>(p.y), static_cast<float>(z)};
          double yaw = std::remainder(st.angle + part.yaw_rad, 2.0 * std::numbers::pi);
          item.yaw_rad = static_cast<float>(yaw);
          item.owner = static_cast<std::uint32_t>(zi);
          res.items.push_back(item);
        }
      }
      break;
    }
  });
  // 2. Merge in zone order.
  std::vector<char> fits(biomes.size(), 0);
  for (std::size_t zi = 0; zi < zones.size(); ++zi) {
    zones[zi].stamps = results[zi].stamps;
    out.insert(out.end(), results[zi].items.begin(), results[zi].items.end());
    for (std::size_t i = 0; i < biomes.size(); ++i)
      fits[i] |= results[zi].fits[i];
  }
  // 3. A biome never placed although zones of its kind exist: does it fit any of them at all?
  //    With WFC rooftops the open roofs are theirs and only the rings left around upper tiers
  //    are rooftop zones: a rooftop biome fitting none of those says nothing about the biome.
  const bool wfc_roofs = std::any_of(in.rooftops.rooftops.begin(), in.rooftops.rooftops.end(),
                                     [](const rooftops::Rooftop& r) { return r.solved; });
  for (std::size_t i = 0; i < biomes.size(); ++i) {
    if (fits[i] != 0) continue;
    const Biome& b = biomes[i];
    if (b.zone == ZoneKind::rooftop && wfc_roofs) continue;
    const LeftoverZone* largest = nullptr;
    bool fits_somewhere = false;
    for (const LeftoverZone& z : zones) {
      if (z.kind != b.zone) continue;
      if (largest == nullptr || polygon_area(z.area) > polygon_area(largest->area)) largest = &z;
    }
    if (largest == nullptr) continue;
    for (const LeftoverZone& z : zones) {
      if (z.kind == b.zone && !best_pattern(b, z, PolygonBands{z.area}).empty()) {
        fits_somewhere = true;
        break;
      }
    }
    if (fits_somewhere) continue;  // Only never drawn; not a problem of the biome.
    double u0, u1, v0, v1;
    frame_bounds(largest->area.outer, largest->angle_rad, u0, u1, v0, v1);
    warnings.push_back(b.file + ": biome '" + b.name + "' (" + format_g9(b.size_x_m) + " x " +
                       format_g9(b.size_y_m) + " m) fits no " + to_string(b.zone) +
                       " zone; the largest is " + format_g9(std::round((u1 - u0) * 10) / 10) +
                       " x " + format_g9(std::round((v1 - v0) * 10) / 10) + " m");
  }
}

}  // namespace cityforge::dressing::detail
