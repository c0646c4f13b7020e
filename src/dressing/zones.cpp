// SPDX-License-Identifier: Apache-2.0
// Leftover zones: block ground with neither sidewalk nor building, opened so no sliver thinner
// than kMinWidthM survives, classified as freeway_underside (under a deck), parking (big regular
// pieces of commercial, industrial and residential blocks) or plaza; and the flat roof tops of
// building tiers not covered by a tier above (rooftop). Each zone carries the direction of its
// longest edge, the packing scatterer's reference. Parks are left to the vegetation.
// Based on: leftover zones and the packing scatterer (seeds/000, minutes 19-21).
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "cityforge/core/spatial_hash.hpp"
#include "cityforge/rooftops/rooftops.hpp"
#include "dressing/detail.hpp"

namespace cityforge::dressing::detail {
namespace {

constexpr double kFootprintBufferM = 0.3;  ///< Ground kept clear around building bases.
constexpr double kMinWidthM = 4.0;         ///< Opening width: thinner leftovers are dropped.
constexpr double kDefaultParapetM = 0.3;   ///< Parapet width without a style library.
constexpr double kRoofClearM = 0.5;        ///< Kept clear inside the parapet.
constexpr double kPillarClearM = 1.5;      ///< Half side of the square kept clear at a pillar.
constexpr double kParkingMinAreaM2 = 300.0;
constexpr double kParkingMinRegularity = 0.75;  ///< Area / oriented bounding box area.

/// Direction of the longest edge of the outer ring.
double longest_edge_angle(const Ring& ring) {
  double best = -1.0;
  double angle = 0.0;
  for (std::size_t i = 0; i < ring.size(); ++i) {
    const Vec2 a = ring[i];
    const Vec2 b = ring[(i + 1) % ring.size()];
    const double len = std::hypot(b.x - a.x, b.y - a.y);
    if (len > best + 1e-9) {
      best = len;
      angle = std::atan2(b.y - a.y, b.x - a.x);
    }
  }
  return angle;
}

/// Area of the bounding box of the ring in the frame rotated by `angle`.
double oriented_box_area(const Ring& ring, double angle) {
  const Aabb2 b = ring_bounds_rotated(ring, angle);
  return (b.max.x - b.min.x) * (b.max.y - b.min.y);
}

/// Morphological opening (inset then outset by half the width), clipped back to the piece.
std::vector<Polygon> open_piece(const Polygon& piece, double min_area) {
  std::vector<Polygon> out;
  if (polygon_area(piece) < min_area) return out;
  std::vector<Polygon> grown;
  for (const Polygon& core : polygon_offset(piece, -0.5 * kMinWidthM)) {
    for (Polygon& g : polygon_offset(core, 0.5 * kMinWidthM))
      grown.push_back(std::move(g));
  }
  // The piece made valid once for all its grown cores (a mountain block's piece has hundreds of
  // holes and as many cores: validating it per core was most of an import's set dressing).
  for (std::vector<Polygon>& clipped : polygon_intersections(grown, piece)) {
    for (Polygon& p : clipped) {
      if (polygon_area(p) >= min_area) out.push_back(polygon_canonical(std::move(p)));
    }
  }
  return out;
}

Polygon pillar_square(const freeway::Pillar& p) {
  const double c = std::cos(p.yaw_rad) * kPillarClearM;
  const double s = std::sin(p.yaw_rad) * kPillarClearM;
  const Vec2 o{p.base.x, p.base.y};
  return Polygon{{{o.x - c + s, o.y - s - c},
                  {o.x + c + s, o.y + s - c},
                  {o.x + c - s, o.y + s + c},
                  {o.x - c - s, o.y - s + c}},
                 {}};
}

void sort_pieces(std::vector<LeftoverZone>& zones) {
  std::stable_sort(zones.begin(), zones.end(), [](const LeftoverZone& a, const LeftoverZone& b) {
    const Aabb2 ba = ring_bounds(a.area.outer);
    const Aabb2 bb = ring_bounds(b.area.outer);
    if (ba.min.x != bb.min.x) return ba.min.x < bb.min.x;
    return ba.min.y < bb.min.y;
  });
}

/// The building bases (first volume's footprint) by building index, with their boxes, indexed
/// once for every block (each block looked at every building: 10 M boxes in the 4x5 km city).
struct Bases {
  std::vector<Aabb2> box;  ///< Per building; empty where it has no base.
  BoxIndex index{32.0};

  explicit Bases(const Inputs& in) {
    const auto& bs = in.buildings.buildings;
    box.assign(bs.size(), Aabb2{});
    tbb::parallel_for(std::size_t{0}, bs.size(), [&](std::size_t i) {
      if (!bs[i].volumes.empty() && bs[i].volumes[0].footprint.outer.size() >= 3)
        box[i] = ring_bounds(bs[i].volumes[0].footprint.outer);
    });
    for (std::size_t i = 0; i < box.size(); ++i) {
      if (!box[i].empty()) index.insert(static_cast<std::uint32_t>(i), box[i]);
    }
  }
  /// Indices of the bases whose boxes overlap `b`, ascending.
  std::vector<std::uint32_t> overlapping(const Aabb2& b) const {
    std::vector<std::uint32_t> ids;
    index.query(b, ids);
    std::erase_if(ids, [&](std::uint32_t i) { return !b.overlaps(box[i]); });
    return ids;
  }
};

/// The ground zones of one block.
std::vector<LeftoverZone> block_zones(const layout::Block& block, const Inputs& in,
                                      const Config& config, const Bases& bases) {
  std::vector<LeftoverZone> zones;
  if (block.zone == layout::ZoneKind::park || block.area.outer.size() < 3) return zones;
  const Aabb2 bounds = ring_bounds(block.area.outer);
  // 1. Block minus the (buffered) building bases standing on it, in building order.
  std::vector<Polygon> cut;
  for (const std::uint32_t i : bases.overlapping(bounds)) {
    for (Polygon& p :
         polygon_offset(in.buildings.buildings[i].volumes[0].footprint, kFootprintBufferM))
      cut.push_back(std::move(p));
  }
  std::vector<Polygon> pieces =
      cut.empty() ? std::vector<Polygon>{block.area} : polygon_difference(block.area, cut);
  // 2. Split off what lies under a freeway deck (minus the pillars).
  std::vector<Polygon> under_fp;
  std::vector<Polygon> pillars;
  for (const Polygon& fp : in.freeway.footprints) {
    if (fp.outer.size() >= 3 && bounds.overlaps(ring_bounds(fp.outer))) under_fp.push_back(fp);
  }
  for (const freeway::Pillar& p : in.freeway.pillars) {
    const Vec2 o{p.base.x, p.base.y};
    if (o.x >= bounds.min.x - 5 && o.x <= bounds.max.x + 5 && o.y >= bounds.min.y - 5 &&
        o.y <= bounds.max.y + 5) {
      pillars.push_back(pillar_square(p));
    }
  }
  const double min_area = config.min_zone_area_m2;
  auto add = [&](const Polygon& piece, bool under) {
    for (Polygon& p : open_piece(piece, min_area)) {
      LeftoverZone z;
      z.area = std::move(p);
      z.owner = block.id;
      z.angle_rad = longest_edge_angle(z.area.outer);
      if (under) {
        z.kind = ZoneKind::freeway_underside;
      } else {
        const bool parking_zone = block.zone == layout::ZoneKind::commercial ||
                                  block.zone == layout::ZoneKind::industrial ||
                                  block.zone == layout::ZoneKind::residential;
        const double area = polygon_area(z.area);
        const double regular = area / std::max(1e-9, oriented_box_area(z.area.outer, z.angle_rad));
        z.kind = parking_zone && area >= kParkingMinAreaM2 && regular >= kParkingMinRegularity
                     ? ZoneKind::parking
                     : ZoneKind::plaza;
      }
      zones.push_back(std::move(z));
    }
  };
  const std::vector<Polygon> deck = polygon_union(under_fp);
  for (const Polygon& piece : pieces) {
    if (deck.empty()) {
      add(piece, false);
      continue;
    }
    std::vector<Polygon> under;
    for (const Polygon& d : deck) {
      for (Polygon& p : polygon_intersection(piece, d))
        under.push_back(std::move(p));
    }
    for (const Polygon& p : under) {
      if (pillars.empty()) {
        add(p, true);
      } else {
        for (const Polygon& q : polygon_difference(p, pillars))
          add(q, true);
      }
    }
    for (const Polygon& p : polygon_difference(piece, deck))
      add(p, false);
  }
  sort_pieces(zones);
  return zones;
}

/// (building, tier) of every roof that got a solved WFC rooftop, sorted.
using SolvedRoofs = std::vector<std::pair<buildings::BuildingId, std::uint32_t>>;

SolvedRoofs solved_roofs(const Inputs& in) {
  SolvedRoofs out;
  for (const rooftops::Rooftop& r : in.rooftops.rooftops) {
    if (r.solved) out.emplace_back(r.building, r.volume);
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// The uncovered flat tops of one building's tiers; tiers with a WFC rooftop are left to it.
std::vector<LeftoverZone> roof_zones(const buildings::Building& b, const Inputs& in,
                                     const Config& config, const SolvedRoofs& solved) {
  double parapet = kDefaultParapetM;
  if (b.style < in.styles.styles.size()) parapet = in.styles.styles[b.style].parapet_width_m;
  const double inset = parapet + kRoofClearM;
  std::vector<LeftoverZone> zones;
  for (std::size_t i = 0; i < b.volumes.size(); ++i) {
    const buildings::Volume& v = b.volumes[i];
    if (v.footprint.outer.size() < 3 || v.z1_m <= v.z0_m) continue;
    if (std::binary_search(
            solved.begin(), solved.end(),
            std::pair<buildings::BuildingId, std::uint32_t>{b.id, static_cast<std::uint32_t>(i)})) {
      continue;
    }
    std::vector<Polygon> above;
    for (std::size_t j = 0; j < b.volumes.size(); ++j) {
      if (j != i && b.volumes[j].z1_m > v.z1_m + 1e-6 && b.volumes[j].z0_m <= v.z1_m + 1e-6)
        above.push_back(b.volumes[j].footprint);
    }
    std::vector<Polygon> tops =
        above.empty() ? std::vector<Polygon>{v.footprint} : polygon_difference(v.footprint, above);
    std::vector<LeftoverZone> mine;
    for (const Polygon& top : tops) {
      for (Polygon& p : polygon_offset(top, -inset)) {
        if (polygon_area(p) < config.min_zone_area_m2) continue;
        LeftoverZone z;
        z.kind = ZoneKind::rooftop;
        z.area = polygon_canonical(std::move(p));
        z.z_m = b.base_z_m + v.z1_m;
        z.angle_rad = longest_edge_angle(z.area.outer);
        z.owner = b.id;
        mine.push_back(std::move(z));
      }
    }
    sort_pieces(mine);
    for (LeftoverZone& z : mine)
      zones.push_back(std::move(z));
  }
  return zones;
}

}  // namespace

std::vector<LeftoverZone> leftover_zones(const Inputs& in, const Config& config) {
  std::vector<LeftoverZone> out;
  const auto& blocks = in.city.blocks;
  // The blocks' pieces (cutting the buildings out: most of an imported valley's set dressing)
  // are shared between the ranks, costed by the points they clip: the block's outline and the
  // building bases on it.
  const Bases bases(in);
  std::vector<double> cost(blocks.size(), 1.0);
  if (in.ranks != nullptr && in.ranks->size() > 1) {
    const auto& bs = in.buildings.buildings;
    tbb::parallel_for(std::size_t{0}, blocks.size(), [&](std::size_t i) {
      cost[i] += static_cast<double>(blocks[i].area.outer.size());
      for (const std::uint32_t b : bases.overlapping(ring_bounds(blocks[i].area.outer)))
        cost[i] += static_cast<double>(bs[b].volumes[0].footprint.outer.size());
    });
  }
  std::vector<std::vector<LeftoverZone>> ground = shared_jobs<std::vector<LeftoverZone>>(
      in, blocks.size(), "leftover zones from another rank", [&](std::size_t i) { return cost[i]; },
      [&](std::size_t i) { return block_zones(blocks[i], in, config, bases); },
      [](ByteWriter& w, const std::vector<LeftoverZone>& zones) {
        w.put<std::uint64_t>(zones.size());
        for (const LeftoverZone& z : zones) {
          w.put(z.kind);
          put_polygon(w, z.area);
          w.put(z.z_m);
          w.put(z.angle_rad);
          w.put(z.owner);
          w.put(z.stamps);
        }
      },
      [](ByteReader& r, std::vector<LeftoverZone>& zones) -> Status {
        std::uint64_t n = 0;
        if (Status s = r.get(n); !s) return s;
        for (std::uint64_t k = 0; k < n; ++k) {
          LeftoverZone z;
          Status s = r.get(z.kind);
          if (s) s = get_polygon(r, z.area);
          if (s) s = r.get(z.z_m);
          if (s) s = r.get(z.angle_rad);
          if (s) s = r.get(z.owner);
          if (s) s = r.get(z.stamps);
          if (!s) return s;
          zones.push_back(std::move(z));
        }
        return Ok{};
      });
  for (auto& g : ground) {
    for (LeftoverZone& z : g)
      out.push_back(std::move(z));
  }
  const auto& bs = in.buildings.buildings;
  const SolvedRoofs solved = solved_roofs(in);
  std::vector<std::vector<LeftoverZone>> roofs(bs.size());
  tbb::parallel_for(std::size_t{0}, bs.size(),
                    [&](std::size_t i) { roofs[i] = roof_zones(bs[i], in, config, solved); });
  for (auto& r : roofs) {
    for (LeftoverZone& z : r)
      out.push_back(std::move(z));
  }
  return out;
}

void put_polygon(ByteWriter& w, const Polygon& p) {
  w.put_vector(p.outer);
  w.put<std::uint64_t>(p.holes.size());
  for (const Ring& h : p.holes)
    w.put_vector(h);
}

Status get_polygon(ByteReader& r, Polygon& p) {
  if (Status s = r.get_vector(p.outer); !s) return s;
  std::uint64_t n = 0;
  if (Status s = r.get(n); !s) return s;
  p.holes.clear();
  for (std::uint64_t k = 0; k < n; ++k) {
    Ring h;
    if (Status s = r.get_vector(h); !s) return s;
    p.holes.push_back(std::move(h));
  }
  return Ok{};
}

}  // namespace cityforge::dressing::detail
