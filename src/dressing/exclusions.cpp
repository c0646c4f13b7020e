// SPDX-License-Identifier: Apache-2.0
// Where street dressing may and may not stand, and the curb frame shared by the street
// generators (lights, vegetation, furniture, parking).
#include "dressing/detail/exclusions.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cityforge/core/polyline.hpp"

namespace cityforge::dressing::detail {
namespace {

Aabb2 bounds_of(const Polygon& poly) { return ring_bounds(poly.outer); }

double ring_point_distance(const Ring& ring, Vec2 p) {
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < ring.size(); ++i)
    best = std::min(best, segment_distance(ring[i], ring[(i + 1) % ring.size()], p));
  return best;
}

bool rings_cross(const Ring& a, const Ring& b) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    for (std::size_t j = 0; j < b.size(); ++j) {
      Vec2 x;
      if (segment_intersection(a[i], a[(i + 1) % a.size()], b[j], b[(j + 1) % b.size()], &x))
        return true;
    }
  }
  return false;
}

Polygon rect(Vec2 a, Vec2 b, double half_width) {
  const Vec2 n = perp(normalize(b - a)) * half_width;
  Polygon poly;
  poly.outer = {a - n, b - n, b + n, a + n};
  if (ring_signed_area(poly.outer) < 0.0) std::reverse(poly.outer.begin(), poly.outer.end());
  return poly;
}

}  // namespace

Ring EntranceBox::ring() const {
  const Vec2 a = along * half_along;
  const Vec2 o = out * half_out;
  Ring r{centre - a - o, centre + a - o, centre + a + o, centre - a + o};
  if (ring_signed_area(r) < 0.0) std::reverse(r.begin(), r.end());
  return r;
}

double point_polygon_distance(const Polygon& poly, Vec2 p) {
  if (poly.outer.size() < 3) return std::numeric_limits<double>::infinity();
  if (polygon_contains(poly, p)) return 0.0;
  double best = ring_point_distance(poly.outer, p);
  for (const Ring& h : poly.holes)
    best = std::min(best, ring_point_distance(h, p));
  return best;
}

double ring_distance(const Ring& a, const Ring& b) {
  if (a.size() < 3 || b.size() < 3) return std::numeric_limits<double>::infinity();
  if (ring_contains(a, b.front()) || ring_contains(b, a.front()) || rings_cross(a, b)) return 0.0;
  double best = std::numeric_limits<double>::infinity();
  for (const Vec2& p : a)
    best = std::min(best, ring_point_distance(b, p));
  for (const Vec2& p : b)
    best = std::min(best, ring_point_distance(a, p));
  return best;
}

void Areas::add(Polygon poly, std::uint32_t kind) {
  if (poly.outer.size() < 3) return;
  const Aabb2 box = bounds_of(poly);
  m_hash.insert(static_cast<std::uint32_t>(m_areas.size()), box);
  m_areas.push_back(Area{PolygonBands{std::move(poly)}, box, kind});
}

Areas::Areas(const Inputs& in, const Config& config) {
  // 1. Junction surfaces and carriageways.
  for (const roads::Intersection& j : in.roads.intersections)
    add(j.surface, kAreaJunction);
  for (const roads::Section& s : in.roads.sections)
    add(s.surface, kAreaCarriageway);
  // 2. Crosswalk bands: each crosswalk lane's chord buffered by half its width (flat ends: the
  //    lanes run from sidewalk centre to sidewalk centre).
  for (const roads::Lane& lane : in.roads.lanes.lanes) {
    if ((lane.tags & roads::kCrosswalk) == 0U || lane.points.size() < 2) continue;
    const Vec2 a{lane.points.front().x, lane.points.front().y};
    const Vec2 b{lane.points.back().x, lane.points.back().y};
    if (cityforge::distance(a, b) < 1e-6) continue;
    add(rect(a, b, lane.width_m * 0.5), kAreaCrosswalk);
  }
  // 3. Entrance exclusion boxes.
  for (const buildings::Entrance& e : in.buildings.entrances) {
    EntranceBox box;
    box.centre = {e.exclusion_centre[0], e.exclusion_centre[1]};
    box.along = {std::cos(e.yaw_rad), std::sin(e.yaw_rad)};
    // The street is on the facade module's +y side.
    box.out = perp(box.along);
    box.half_along = e.exclusion_half[0] + config.entrance_clear_m;
    box.half_out = e.exclusion_half[1] + config.entrance_clear_m;
    Polygon poly;
    poly.outer = box.ring();
    m_entrance_hash.insert(static_cast<std::uint32_t>(m_entrances.size()), bounds_of(poly));
    m_entrances.push_back(box);
    add(std::move(poly), kAreaEntrance);
  }
  // 4. Building base footprints, then the sidewalks.
  for (const buildings::Building& b : in.buildings.buildings) {
    for (const buildings::Volume& v : b.volumes) {
      if (v.layer == 0) add(v.footprint, kAreaBuilding);
    }
  }
  for (const Polygon& s : in.roads.sidewalks)
    add(s, kAreaSidewalk);
}

double Areas::distance(Vec2 p, std::uint32_t mask, double max_m) const {
  std::vector<std::uint32_t> ids;
  m_hash.query_radius(p, max_m, ids);
  double best = max_m;
  for (std::uint32_t id : ids) {
    const Area& a = m_areas[id];
    if ((a.kind & mask) == 0U) continue;
    if (p.x < a.box.min.x - best || p.x > a.box.max.x + best || p.y < a.box.min.y - best ||
        p.y > a.box.max.y + best)
      continue;
    best = std::min(best, point_polygon_distance(a.shape.polygon(), p));
    if (best <= 0.0) return 0.0;
  }
  return best;
}

double Areas::distance(const Ring& ring, std::uint32_t mask, double max_m) const {
  const Aabb2 rb = ring_bounds(ring);
  std::vector<std::uint32_t> ids;
  m_hash.query(Aabb2{{rb.min.x - max_m, rb.min.y - max_m}, {rb.max.x + max_m, rb.max.y + max_m}},
               ids);
  double best = max_m;
  for (std::uint32_t id : ids) {
    const Area& a = m_areas[id];
    if ((a.kind & mask) == 0U) continue;
    // The boxes' gap bounds the rings' distance from below: an area boxed farther than `best`
    // (by more than any rounding of ring_distance) cannot lower it, nor hold the ring in a hole.
    const double gap_x = std::max({0.0, a.box.min.x - rb.max.x, rb.min.x - a.box.max.x});
    const double gap_y = std::max({0.0, a.box.min.y - rb.max.y, rb.min.y - a.box.max.y});
    const double beyond = best + 1e-6;
    if (gap_x * gap_x + gap_y * gap_y > beyond * beyond) continue;
    const Polygon& poly = a.shape.polygon();
    double d = ring_distance(ring, poly.outer);
    // Holes: the ring may sit inside a hole of the area.
    if (d == 0.0 && !poly.holes.empty()) {
      for (const Ring& h : poly.holes) {
        if (ring_contains(h, ring.front()) && !rings_cross(h, ring)) {
          d = std::numeric_limits<double>::infinity();
          for (const Vec2& q : ring)
            d = std::min(d, ring_point_distance(h, q));
        }
      }
    }
    best = std::min(best, d);
    if (best <= 0.0) return 0.0;
  }
  return best;
}

bool Areas::hits(Vec2 p, double radius_m, std::uint32_t mask) const {
  if (radius_m <= 0.0) return inside(p, mask);
  return distance(p, mask, radius_m) < radius_m;
}

bool Areas::inside(Vec2 p, std::uint32_t mask) const {
  std::vector<std::uint32_t> ids;
  m_hash.query(Aabb2{p, p}, ids);
  for (std::uint32_t id : ids) {
    const Area& a = m_areas[id];
    if ((a.kind & mask) != 0U && a.shape.contains(p)) return true;
  }
  return false;
}

bool Areas::entrance_in_front(Vec2 p, Vec2 along, Vec2 to_block, double half_len_m, double margin_m,
                              double reach_back_m, double reach_m) const {
  std::vector<std::uint32_t> ids;
  const double r = half_len_m + margin_m + std::max(reach_m, reach_back_m);
  m_entrance_hash.query_radius(p, r, ids);
  for (std::uint32_t id : ids) {
    double u0 = std::numeric_limits<double>::infinity();
    double u1 = -u0;
    double w0 = u0;
    double w1 = -u0;
    for (const Vec2& c : m_entrances[id].ring()) {
      const double u = dot(c - p, along);
      const double w = dot(c - p, to_block);
      u0 = std::min(u0, u);
      u1 = std::max(u1, u);
      w0 = std::min(w0, w);
      w1 = std::max(w1, w);
    }
    const double hl = half_len_m + margin_m;
    if (u1 > -hl && u0 < hl && w1 > -reach_back_m && w0 < reach_m) return true;
  }
  return false;
}

CurbFrame curb_frame(const Polyline& centre, int side, double half_width_m, double s_m,
                     double from_curb_m) {
  CurbFrame f;
  f.tangent = normalize(polyline_tangent_at(centre, s_m));
  const Vec2 n = perp(f.tangent) * static_cast<double>(side);
  f.p = polyline_point_at(centre, s_m) + n * (half_width_m + from_curb_m);
  f.to_road = -n;
  return f;
}

std::vector<double> light_stations(double length_m, double spacing_m) {
  std::vector<double> out;
  if (spacing_m <= 0.0) return out;
  for (double s = spacing_m * 0.5; s < length_m; s += spacing_m)
    out.push_back(s);
  return out;
}

std::vector<double> snapped_stations(double length_m, double light_spacing_m, double spacing_m,
                                     double shift_m) {
  std::vector<double> out;
  if (spacing_m <= 0.0 || light_spacing_m <= 0.0) return out;
  for (double target = spacing_m * 0.5; target < length_m; target += spacing_m) {
    const double k = std::max(0.0, std::round((target - light_spacing_m * 0.5) / light_spacing_m));
    const double s = light_spacing_m * (0.5 + k) + shift_m;
    if (s < 0.0 || s >= length_m) continue;
    if (!out.empty() && std::abs(out.back() - s) < 1e-9) continue;
    out.push_back(s);
  }
  return out;
}

std::vector<double> hydrant_stations(double length_m, const Config& config,
                                     layout::RoadClass road_class) {
  return snapped_stations(length_m, config.light_spacing_m[static_cast<int>(road_class)],
                          config.hydrant_spacing_m, 2.0);
}

double sidewalk_z(const Inputs& in, Vec2 p) { return in.ground.sample(p) + in.roads.block_raise_m; }

Ring parking_spot_ring(const ParkingSpot& spot) {
  const Vec2 c{spot.position[0], spot.position[1]};
  const Vec2 t{std::cos(spot.yaw_rad), std::sin(spot.yaw_rad)};
  const Vec2 a = t * (spot.length_m * 0.5);
  const Vec2 n = perp(t) * (kParkingSpotWidthM * 0.5);
  return {c - a - n, c + a - n, c + a + n, c - a + n};
}

}  // namespace cityforge::dressing::detail
