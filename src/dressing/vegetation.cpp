// SPDX-License-Identifier: Apache-2.0
// Street trees in pits between the lights, park trees and bushes by Poisson-disk sampling.
// Based on: R. Bridson, Fast Poisson Disk Sampling in Arbitrary Dimensions, SIGGRAPH 2007.
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "cityforge/core/polyline.hpp"
#include "dressing/detail.hpp"
#include "dressing/detail/exclusions.hpp"

namespace cityforge::dressing::detail {
namespace {

constexpr double kClearOfLightsM = 3.0;  // Trees keep this far (along the curb) from lights...
constexpr double kWalkingStripM = 1.5;   // ...and off the inner strip next to the block.
constexpr double kMinTreeSidewalkM = 3.0;
constexpr double kParkEdgeM = 1.5;  // Park plants keep this far inside their block.
constexpr int kBridsonTries = 30;
constexpr int kReseedTries = 40;
constexpr std::uint32_t kVariants = 4;

Item make_item(std::int32_t prop, Vec2 p, double z, double yaw, std::uint32_t owner,
               std::uint8_t variant) {
  Item item;
  item.prop = static_cast<std::uint32_t>(prop);
  item.position = {static_cast<float>(p.x), static_cast<float>(p.y), static_cast<float>(z)};
  item.yaw_rad = static_cast<float>(yaw);
  item.owner = owner;
  item.variant = variant;
  return item;
}

double boundary_distance(const Polygon& poly, Vec2 p) {
  double best = 1e18;
  auto ring_d = [&](const Ring& r) {
    for (std::size_t i = 0; i < r.size(); ++i)
      best = std::min(best, segment_distance(r[i], r[(i + 1) % r.size()], p));
  };
  ring_d(poly.outer);
  for (const Ring& h : poly.holes)
    ring_d(h);
  return best;
}

// Tree stations of one side: each interval between two light stations split into n equal
// parts (n = light spacing / tree spacing, rounded), a tree in the middle of each part; so the
// middle tree of an odd n stands midway between the lights.
std::vector<double> tree_stations(double length_m, double light_spacing_m, double tree_spacing_m) {
  std::vector<double> out;
  const int n = std::max(1, static_cast<int>(std::lround(light_spacing_m / tree_spacing_m)));
  const double step = light_spacing_m / n;
  for (double light = -light_spacing_m * 0.5; light < length_m; light += light_spacing_m) {
    for (int k = 0; k < n; ++k) {
      const double s = light + (k + 0.5) * step;
      if (s >= 0.0 && s < length_m) out.push_back(s);
    }
  }
  return out;
}

// Lights and hydrants of every section (trees keep clear of them, also around corners).
struct Fixtures {
  std::vector<Vec2> points;
  SpatialHash hash{8.0};
  bool near(Vec2 p, double r) const {
    std::vector<std::uint32_t> ids;
    hash.query_radius(p, r, ids);
    return std::any_of(ids.begin(), ids.end(),
                       [&](std::uint32_t id) { return distance(points[id], p) < r; });
  }
};

void street_trees(const Inputs& in, const Config& config, Seed seed, const Areas& areas,
                  const Fixtures& fixtures, std::size_t i, std::vector<Item>& out) {
  static const std::int32_t prop = find_prop("street_tree");
  const roads::Section& sec = in.roads.sections[i];
  const layout::RoadEdge& edge = in.city.network.edges[sec.edge];
  const double sw = edge.sidewalk_width_m;
  if (prop < 0 || sw <= kMinTreeSidewalkM || sec.centre.size() < 2) return;
  const double radius = prop_catalog()[static_cast<std::size_t>(prop)].radius_m;
  const double length = polyline_length(sec.centre);
  const double light_spacing = config.light_spacing_m[static_cast<int>(edge.road_class)];
  const std::vector<double> hydrants = hydrant_stations(length, config, edge.road_class);
  // About a third of the way across, never on the walking strip.
  const double lateral = std::min(sw / 3.0, sw - kWalkingStripM - radius);
  if (lateral < radius) return;
  for (int side : {1, -1}) {
    Rng rng{seed, Stage::dressing, sec.edge, side > 0 ? 2U : 3U};
    for (double s : tree_stations(length, light_spacing, config.tree_spacing_m)) {
      const std::uint8_t variant = static_cast<std::uint8_t>(rng.next_u32() % kVariants);
      const double to_light = std::fmod(std::abs(s - light_spacing * 0.5), light_spacing);
      if (std::min(to_light, light_spacing - to_light) < kClearOfLightsM) continue;
      const bool near_hydrant = std::any_of(hydrants.begin(), hydrants.end(), [&](double h) {
        return std::abs(h - s) < kClearOfLightsM;
      });
      if (near_hydrant) continue;
      const CurbFrame f = curb_frame(sec.centre, side, edge.width_m * 0.5, s, lateral);
      if (fixtures.near(f.p, kClearOfLightsM)) continue;
      if (areas.hits(f.p, radius, kAreaForbidden) || !areas.inside(f.p, kAreaSidewalk)) continue;
      const double yaw = std::atan2(f.to_road.y, f.to_road.x);
      out.push_back(make_item(prop, f.p, sidewalk_z(in, f.p), yaw, sec.edge, variant));
    }
  }
}

// Bridson's sampler over a polygon: seeds from random points, grows by annulus candidates,
// reseeds until kReseedTries random points in a row are rejected (disconnected parts).
// `accept` tests a candidate against everything but the other samples.
template <class Accept>
std::vector<Vec2> poisson_disk(const Polygon& area, double r, Rng& rng, const Accept& accept) {
  const Aabb2 box = ring_bounds(area.outer);
  const double cell = r / std::numbers::sqrt2;
  const auto nx = static_cast<std::int64_t>(std::ceil((box.max.x - box.min.x) / cell)) + 1;
  const auto ny = static_cast<std::int64_t>(std::ceil((box.max.y - box.min.y) / cell)) + 1;
  if (nx * ny > 4'000'000) return {};
  std::vector<std::int32_t> grid(static_cast<std::size_t>(nx * ny), -1);
  std::vector<Vec2> pts;
  std::vector<std::size_t> active;
  auto cell_of = [&](Vec2 p) {
    return std::pair{static_cast<std::int64_t>((p.x - box.min.x) / cell),
                     static_cast<std::int64_t>((p.y - box.min.y) / cell)};
  };
  auto fits = [&](Vec2 p) {
    if (p.x < box.min.x || p.y < box.min.y || p.x > box.max.x || p.y > box.max.y) return false;
    const auto [cx, cy] = cell_of(p);
    for (std::int64_t y = std::max<std::int64_t>(0, cy - 2); y <= std::min(ny - 1, cy + 2); ++y) {
      for (std::int64_t x = std::max<std::int64_t>(0, cx - 2); x <= std::min(nx - 1, cx + 2); ++x) {
        const std::int32_t id = grid[static_cast<std::size_t>(y * nx + x)];
        if (id >= 0 && distance(pts[static_cast<std::size_t>(id)], p) < r) return false;
      }
    }
    return accept(p);
  };
  auto add = [&](Vec2 p) {
    const auto [cx, cy] = cell_of(p);
    grid[static_cast<std::size_t>(cy * nx + cx)] = static_cast<std::int32_t>(pts.size());
    active.push_back(pts.size());
    pts.push_back(p);
  };
  for (int misses = 0; misses < kReseedTries;) {
    const Vec2 p{rng.uniform(box.min.x, box.max.x), rng.uniform(box.min.y, box.max.y)};
    if (!fits(p)) {
      ++misses;
      continue;
    }
    misses = 0;
    add(p);
    while (!active.empty()) {
      const std::size_t k = rng.next_u32() % active.size();
      const Vec2 c = pts[active[k]];
      bool found = false;
      for (int t = 0; t < kBridsonTries && !found; ++t) {
        const double a = rng.uniform(0.0, 2.0 * std::numbers::pi);
        const double d = r * std::sqrt(rng.uniform(1.0, 4.0));
        const Vec2 q = c + Vec2{std::cos(a), std::sin(a)} * d;
        if (fits(q)) {
          add(q);
          found = true;
        }
      }
      if (!found) {
        active[k] = active.back();
        active.pop_back();
      }
    }
  }
  return pts;
}

void park_plants(const Inputs& in, const Config& config, Seed seed, const Areas& areas,
                 std::size_t b, std::vector<Item>& out) {
  static const std::int32_t tree = find_prop("park_tree");
  static const std::int32_t bush = find_prop("bush");
  const layout::Block& block = in.city.blocks[b];
  if (block.zone != layout::ZoneKind::park || tree < 0 || bush < 0) return;
  const double tree_r = prop_catalog()[static_cast<std::size_t>(tree)].radius_m;
  const double bush_r = prop_catalog()[static_cast<std::size_t>(bush)].radius_m;
  // Everything keyed by the block id alone: the same block always gets the same plants.
  Rng rng{seed, Stage::dressing, block.id, 4};
  auto clear = [&](Vec2 p, double radius) {
    return polygon_contains(block.area, p) && boundary_distance(block.area, p) >= kParkEdgeM &&
           !areas.hits(p, radius, kAreaForbidden | kAreaSidewalk);
  };
  const std::vector<Vec2> trees = poisson_disk(block.area, config.park_tree_spacing_m, rng,
                                               [&](Vec2 p) { return clear(p, tree_r); });
  // Bushes: a denser disk, clear of the trunks, then thinned to clumps.
  const double bush_spacing = config.park_tree_spacing_m * 0.5;
  const double trunk_gap = tree_r + bush_r + 1.0;
  const std::vector<Vec2> bushes = poisson_disk(block.area, bush_spacing, rng, [&](Vec2 p) {
    for (const Vec2& t : trees)
      if (distance(t, p) < trunk_gap) return false;
    return clear(p, bush_r);
  });
  for (const Vec2& p : trees) {
    const double yaw = rng.uniform(0.0, 2.0 * std::numbers::pi);
    const auto variant = static_cast<std::uint8_t>(rng.next_u32() % kVariants);
    out.push_back(make_item(tree, p, in.ground.sample(p), yaw, block.id, variant));
  }
  for (const Vec2& p : bushes) {
    const double yaw = rng.uniform(0.0, 2.0 * std::numbers::pi);
    const auto variant = static_cast<std::uint8_t>(rng.next_u32() % kVariants);
    if (!rng.chance(0.5)) continue;
    out.push_back(make_item(bush, p, in.ground.sample(p), yaw, block.id, variant));
  }
}

}  // namespace

std::vector<Vec2> poisson_points(const Polygon& area, double spacing_m, Rng& rng,
                                 const std::function<bool(Vec2)>& accept) {
  return poisson_disk(area, spacing_m, rng, accept);
}

void vegetation(const Inputs& in, const Config& config, Seed seed, const std::vector<Item>& placed,
                std::vector<Item>& out) {
  const Areas areas(in, config);
  Fixtures fixtures;
  {
    const std::int32_t light = find_prop("street_light");
    const std::int32_t hydrant = find_prop("hydrant");
    for (const Item& item : placed) {
      if (item.prop != static_cast<std::uint32_t>(light) &&
          item.prop != static_cast<std::uint32_t>(hydrant))
        continue;
      const Vec2 p{item.position[0], item.position[1]};
      fixtures.hash.insert(static_cast<std::uint32_t>(fixtures.points.size()), p);
      fixtures.points.push_back(p);
    }
  }
  const std::size_t ns = in.roads.sections.size();
  const std::size_t nb = in.city.blocks.size();
  std::vector<std::vector<Item>> slots(ns + nb);
  tbb::parallel_for(std::size_t{0}, ns + nb, [&](std::size_t i) {
    if (i < ns) {
      street_trees(in, config, seed, areas, fixtures, i, slots[i]);
    } else {
      park_plants(in, config, seed, areas, i - ns, slots[i]);
    }
  });
  for (const auto& slot : slots)
    out.insert(out.end(), slot.begin(), slot.end());
}

}  // namespace cityforge::dressing::detail
