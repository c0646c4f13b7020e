// SPDX-License-Identifier: Apache-2.0
// Checks the layout inputs before any work, so bad input fails early with a precise message.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "cityforge/core/format.hpp"
#include "cityforge/layout/layout.hpp"

namespace cityforge::layout {
namespace {

constexpr double kMaxCoordinate_m = 1e7;  // 10,000 km: anything beyond is a unit mistake.

std::string fmt(double v) { return format_g9(v); }
std::string fmt(Vec2 p) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "(%.9g, %.9g)", p.x, p.y);
  return buf;
}

Status check_points(const std::vector<Vec2>& pts, const std::string& where) {
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const Vec2 p = pts[i];
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) {
      return Error::invalid_input(where + "[" + std::to_string(i) + "]",
                                  "expected a finite coordinate, got " + fmt(p));
    }
    if (std::fabs(p.x) > kMaxCoordinate_m || std::fabs(p.y) > kMaxCoordinate_m) {
      return Error::invalid_input(where + "[" + std::to_string(i) + "]",
                                  "coordinate " + fmt(p) +
                                      " is beyond +-1e7 m; coordinates are "
                                      "metres in a local frame");
    }
  }
  return Ok{};
}

Status check_ring(const Ring& ring, const std::string& where) {
  if (Status s = check_points(ring, where); !s) {
    return s;
  }
  if (ring.size() < 3) {
    return Error::invalid_input(where,
                                "a polygon needs >= 3 points, got " + std::to_string(ring.size()));
  }
  // All points on one line: say so (a degenerate ring also overlaps itself).
  double spread = 0.0;
  const Vec2 dir = normalize(ring[1] - ring[0]);
  for (Vec2 p : ring)
    spread = std::max(spread, std::fabs(cross(dir, p - ring[0])));
  if (spread < 0.5) {
    return Error::invalid_input(where, "polygon has zero area (points are collinear or repeated)");
  }
  const std::vector<RingDefect> defects = ring_self_intersections(ring);
  if (!defects.empty()) {
    const RingDefect& d = defects.front();
    return Error::invalid_input(where, "polygon is self-intersecting: edge " +
                                           std::to_string(d.edge_a) + " and edge " +
                                           std::to_string(d.edge_b) + " meet at " + fmt(d.at));
  }
  if (std::fabs(ring_signed_area(ring)) < 1.0) {
    return Error::invalid_input(where, "polygon has zero area (points are collinear or repeated)");
  }
  return Ok{};
}

Status check_class(const RoadClassSpec& c, const std::string& where) {
  auto bad = [&](const char* key, double v, const char* expected) {
    return Error::invalid_input(where + "." + key,
                                std::string("expected ") + expected + ", got " + fmt(v));
  };
  if (!(c.width_m > 0 && c.width_m <= 200)) return bad("width_m", c.width_m, "0 < width <= 200 m");
  if (c.lanes_per_direction < 1 || c.lanes_per_direction > 6) {
    return bad("lanes_per_direction", c.lanes_per_direction, "1..6");
  }
  if (!(c.sidewalk_width_m >= 0 && c.sidewalk_width_m <= 50)) {
    return bad("sidewalk_width_m", c.sidewalk_width_m, "0..50 m");
  }
  if (!(c.speed_limit_kmh > 0 && c.speed_limit_kmh <= 300)) {
    return bad("speed_limit_kmh", c.speed_limit_kmh, "0 < speed <= 300 km/h");
  }
  return Ok{};
}

Status check_config(const Config& c) {
  for (std::size_t i = 0; i < kRoadClassCount; ++i) {
    const std::string where = std::string("layout.classes.") + to_string(static_cast<RoadClass>(i));
    if (Status s = check_class(c.classes[i], where); !s) return s;
  }
  auto bad = [](const char* key, double v, const char* expected) {
    return Error::invalid_input(std::string("layout.") + key,
                                std::string("expected ") + expected + ", got " + fmt(v));
  };
  if (!(c.block_short_m > 10 && c.block_short_m <= 2000)) {
    return bad("block_short_m", c.block_short_m, "10 < value <= 2000 m");
  }
  if (!(c.block_long_m >= c.block_short_m && c.block_long_m <= 5000)) {
    return bad("block_long_m", c.block_long_m, "block_short_m <= value <= 5000 m");
  }
  if (!(c.block_size_tolerance >= 0 && c.block_size_tolerance <= 0.9)) {
    return bad("block_size_tolerance", c.block_size_tolerance, "0..0.9");
  }
  if (c.main_road_every < 1) return bad("main_road_every", c.main_road_every, ">= 1");
  if (!(c.corridor_m > 0 && c.corridor_m <= 5000))
    return bad("corridor_m", c.corridor_m, "0 < value <= 5000 m");
  if (!(c.artery_to_limit_m >= 0 && c.artery_to_limit_m <= 5000))
    return bad("artery_to_limit_m", c.artery_to_limit_m, "0..5000 m");
  if (!(c.cost_cell_m >= 2 && c.cost_cell_m <= 200))
    return bad("cost_cell_m", c.cost_cell_m, "2..200 m");
  if (!(c.slope_weight >= 0 && std::isfinite(c.slope_weight)))
    return bad("slope_weight", c.slope_weight, ">= 0");
  if (!(c.curve_weight >= 0 && std::isfinite(c.curve_weight)))
    return bad("curve_weight", c.curve_weight, ">= 0");
  if (!(c.merge_distance_m >= 0 && c.merge_distance_m <= 100))
    return bad("merge_distance_m", c.merge_distance_m, "0..100 m");
  if (!(c.min_dangling_m >= 0 && c.min_dangling_m <= 1000))
    return bad("min_dangling_m", c.min_dangling_m, "0..1000 m");
  if (!(c.min_block_area_m2 > 0 && std::isfinite(c.min_block_area_m2)))
    return bad("min_block_area_m2", c.min_block_area_m2, "> 0");
  if (!(c.zoning_cell_m >= 1 && c.zoning_cell_m <= 1000))
    return bad("zoning_cell_m", c.zoning_cell_m, "1..1000 m");
  if (!(c.default_height_m >= 0 && c.default_height_m <= 1000))
    return bad("default_height_m", c.default_height_m, "0..1000 m");
  if (!(c.default_density >= 0 && c.default_density <= 1))
    return bad("default_density", c.default_density, "0..1");
  return Ok{};
}

}  // namespace

Status validate(const Inputs& in, const Config& config) {
  if (Status s = check_config(config); !s) return s;
  // 1. Boundary: a simple polygon of sensible size.
  if (in.boundary.outer.empty()) {
    return Error::invalid_input("boundary", "a boundary polygon is required, got none");
  }
  if (Status s = check_ring(in.boundary.outer, "boundary"); !s) return s;
  const Aabb2 box = ring_bounds(in.boundary.outer);
  if (box.size().x > 100000 || box.size().y > 100000) {
    return Error::invalid_input("boundary", "the city spans " + fmt(box.size().x) + " x " +
                                                fmt(box.size().y) + " m; at most 100 km a side");
  }
  if (std::fabs(ring_signed_area(in.boundary.outer)) < 10000) {
    return Error::invalid_input("boundary",
                                "the city is smaller than 1 ha (" +
                                    fmt(std::fabs(ring_signed_area(in.boundary.outer))) + " m2)");
  }
  // 2. Arteries: two or more points, all inside the boundary (1 m tolerance for points drawn
  //    on the edge).
  for (std::size_t a = 0; a < in.arteries.size(); ++a) {
    const std::string where = "arteries[" + std::to_string(a) + "].points";
    const Polyline& pts = in.arteries[a].points;
    if (Status s = check_points(pts, where); !s) return s;
    if (pts.size() < 2 || polyline_length(pts) < 1.0) {
      return Error::invalid_input(
          where, "an artery needs >= 2 distinct points, got " + std::to_string(pts.size()));
    }
    for (std::size_t i = 0; i < pts.size(); ++i) {
      Ring ring = in.boundary.outer;
      ring.push_back(ring.front());
      if (!ring_contains(in.boundary.outer, pts[i]) && polyline_distance(ring, pts[i]) > 1.0) {
        return Error::invalid_input(where + "[" + std::to_string(i) + "]",
                                    "artery point " + fmt(pts[i]) + " lies outside the boundary");
      }
    }
  }
  // 3. Zoning: at least one zone; each a simple polygon with a sane height range and density.
  if (in.zones.empty()) {
    return Error::invalid_input("zones",
                                "zoning is empty: expected at least one zone (a "
                                "residential zone covering the city gives uniform zoning)");
  }
  for (std::size_t z = 0; z < in.zones.size(); ++z) {
    const Zone& zone = in.zones[z];
    const std::string where = "zones[" + std::to_string(z) + "]";
    if (zone.area.outer.empty()) {
      return Error::invalid_input(where + ".polygon", "zone polygon is empty");
    }
    if (Status s = check_ring(zone.area.outer, where + ".polygon"); !s) return s;
    if (!(zone.min_height_m >= 0 && zone.max_height_m >= zone.min_height_m &&
          zone.max_height_m <= 1000)) {
      return Error::invalid_input(where + ".height_m", "expected 0 <= min <= max <= 1000, got [" +
                                                           fmt(zone.min_height_m) + ", " +
                                                           fmt(zone.max_height_m) + "]");
    }
    if (!(zone.density >= 0 && zone.density <= 1)) {
      return Error::invalid_input(where + ".density", "expected 0..1, got " + fmt(zone.density));
    }
  }
  for (std::size_t w = 0; w < in.water.size(); ++w) {
    if (Status s = check_ring(in.water[w].outer, "water[" + std::to_string(w) + "]"); !s) return s;
  }
  return Ok{};
}

}  // namespace cityforge::layout
