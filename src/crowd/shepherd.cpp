// SPDX-License-Identifier: Apache-2.0
// Shepherds (seeds/002, the bulk system): static groups whose members are placed
// deterministically on the sidewalks inside a designer's polygon, and snapping a point to the
// walk network. The wandering shepherd is in wandering.cpp, shepherds.json in
// shepherds_json.cpp.
#include "cityforge/crowd/shepherd.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <unordered_map>

#include "cityforge/core/polygon.hpp"

namespace cityforge::crowd {
namespace {

constexpr double kPi = std::numbers::pi;

Vec2 xy(const Vec3& v) { return {v.x, v.y}; }

// A stretch of a lane's centre line inside the polygon, with its walkable area.
struct Interval {
  LaneId lane = kNoLane;
  double s0 = 0;
  double s1 = 0;
};

// Axis-aligned bounds of a lane's points.
Aabb2 lane_bounds(const traffic::Network& net, LaneId lane) {
  Aabb2 b{{1e300, 1e300}, {-1e300, -1e300}};
  for (std::uint32_t i = net.point_begin[lane]; i < net.point_begin[lane + 1]; ++i) {
    b.min.x = std::min(b.min.x, net.points[i].x);
    b.min.y = std::min(b.min.y, net.points[i].y);
    b.max.x = std::max(b.max.x, net.points[i].x);
    b.max.y = std::max(b.max.y, net.points[i].y);
  }
  return b;
}

bool overlaps(const Aabb2& a, const Aabb2& b, double pad) {
  return a.min.x - pad <= b.max.x && b.min.x <= a.max.x + pad && a.min.y - pad <= b.max.y &&
         b.min.y <= a.max.y + pad;
}

// Members' positions hashed by cell for the spacing test.
class SpacingGrid {
 public:
  explicit SpacingGrid(double spacing_m) : m_spacing(spacing_m), m_cell(std::max(spacing_m, 0.1)) {}
  bool free(Vec2 p) const {
    const std::int64_t cx = cell(p.x);
    const std::int64_t cy = cell(p.y);
    for (std::int64_t dy = -1; dy <= 1; ++dy) {
      for (std::int64_t dx = -1; dx <= 1; ++dx) {
        const auto it = m_cells.find(key(cx + dx, cy + dy));
        if (it == m_cells.end()) continue;
        for (Vec2 q : it->second) {
          if (distance(p, q) < m_spacing) return false;
        }
      }
    }
    return true;
  }
  void add(Vec2 p) { m_cells[key(cell(p.x), cell(p.y))].push_back(p); }

 private:
  std::int64_t cell(double v) const { return static_cast<std::int64_t>(std::floor(v / m_cell)); }
  static std::uint64_t key(std::int64_t x, std::int64_t y) {
    return (static_cast<std::uint64_t>(x) << 32U) ^ (static_cast<std::uint64_t>(y) & 0xffffffffU);
  }
  double m_spacing;
  double m_cell;
  std::unordered_map<std::uint64_t, std::vector<Vec2>> m_cells;  // Lookups only: order unused.
};

// The stretches of pedestrian lanes whose centre line is inside `ring`, sampled every ~step.
std::vector<Interval> intervals_inside(const WalkNetwork& walk, const Ring& ring, double step,
                                       bool crosswalks, double* area_m2) {
  const traffic::Network& net = *walk.net;
  const Aabb2 box = ring_bounds(ring);
  std::vector<Interval> out;
  *area_m2 = 0;
  for (const LaneId lane : walk.lanes) {
    if ((!crosswalks && walk.crosswalk(lane)) || !walk.centre_clear(lane)) continue;
    if (!overlaps(box, lane_bounds(net, lane), net.width_m[lane])) continue;
    const double len = net.length_m[lane];
    const int n = std::max(1, static_cast<int>(std::ceil(len / step)));
    const double ds = len / n;
    bool open = false;
    for (int k = 0; k < n; ++k) {
      const double s = (k + 0.5) * ds;
      const bool in = ring_contains(ring, xy(traffic::lane_pose(net, lane, s).position));
      if (in && !open) out.push_back({lane, k * ds, k * ds});
      if (in) {
        out.back().s1 = (k + 1) * ds;
        *area_m2 += net.width_m[lane] * ds;
      }
      open = in;
    }
  }
  return out;
}

}  // namespace

float lateral_limit(const WalkNetwork& walk, LaneId lane) {
  return std::max(0.0f, std::min(walk.band_m.empty() ? 1e9f : walk.band_m[lane],
                                 walk.half_width(lane) - kEdgeMarginM));
}

traffic::LanePose walk_pose(const WalkNetwork& walk, WalkPoint p, double lateral_m) {
  traffic::LanePose pose =
      traffic::lane_pose(*walk.net, p.lane, p.s_m, p.dir > 0 ? lateral_m : -lateral_m);
  if (p.dir < 0) {
    pose.heading_rad += pose.heading_rad > 0 ? -kPi : kPi;
  }
  return pose;
}

const char* to_string(ShepherdBehaviour b) {
  return b == ShepherdBehaviour::look_around ? "look_around" : "idle";
}

bool shepherd_behaviour_from_string(std::string_view name, ShepherdBehaviour* out) {
  for (const auto b : {ShepherdBehaviour::idle, ShepherdBehaviour::look_around}) {
    if (name == to_string(b)) {
      *out = b;
      return true;
    }
  }
  return false;
}

bool operator==(const ShepherdMember& a, const ShepherdMember& b) {
  return a.at.lane == b.at.lane && a.at.s_m == b.at.s_m && a.at.dir == b.at.dir &&
         a.lateral_m == b.lateral_m && a.heading_rad == b.heading_rad && a.variant == b.variant;
}

bool operator==(const WanderingMember& a, const WanderingMember& b) {
  return a.path == b.path && a.phase_m == b.phase_m && a.speed_mps == b.speed_mps &&
         a.lateral_m == b.lateral_m && a.variant == b.variant;
}

Result<ShepherdGroup> place_shepherds(const WalkNetwork& walk, const ShepherdSpec& spec, Seed seed,
                                      const PlaceOptions& options, PlaceReport* report) {
  const std::string where = "shepherd '" + spec.name + "'";
  // 1. Check the spec.
  if (spec.polygon.size() < 3) {
    return Error::invalid_input(
        where, "polygon needs >= 3 points, got " + std::to_string(spec.polygon.size()));
  }
  for (Vec2 p : spec.polygon) {
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) {
      return Error::invalid_input(where, "polygon has a non-finite coordinate");
    }
  }
  if (!std::isfinite(spec.density_per_m2) || spec.density_per_m2 < 0) {
    return Error::invalid_input(where, "density must be a finite number >= 0");
  }
  std::vector<double> mix_cum;
  for (double w : spec.variant_mix) {
    if (!std::isfinite(w) || w < 0) {
      return Error::invalid_input(where, "variant_mix weights must be finite and >= 0");
    }
    mix_cum.push_back((mix_cum.empty() ? 0.0 : mix_cum.back()) + w);
  }
  if (!mix_cum.empty() && mix_cum.back() <= 0) {
    return Error::invalid_input(where, "variant_mix needs a positive weight");
  }
  // 2. Walkable stretches inside and the member count.
  PlaceReport rep;
  const std::vector<Interval> inside =
      intervals_inside(walk, spec.polygon, std::max(0.05, double{options.sample_step_m}),
                       options.crosswalks, &rep.walkable_area_m2);
  rep.wanted = spec.count;
  if (spec.density_per_m2 > 0) {
    const double cap = std::floor(spec.density_per_m2 * rep.walkable_area_m2);
    rep.wanted = static_cast<std::uint32_t>(std::min<double>(spec.count, cap));
  }
  if (inside.empty()) rep.wanted = 0;
  std::vector<double> cum;  // Cumulative walkable area per interval.
  for (const Interval& iv : inside) {
    cum.push_back((cum.empty() ? 0.0 : cum.back()) + walk.net->width_m[iv.lane] * (iv.s1 - iv.s0));
  }
  // 3. Draw candidates until enough are placed or the tries run out.
  ShepherdGroup g;
  g.spec = spec;
  g.members.reserve(rep.wanted);
  Rng rng(seed, Stage::crowd, hash_string(spec.name));
  SpacingGrid grid(options.min_spacing_m);
  const std::uint64_t max_tries = std::uint64_t{options.tries_per_member} * rep.wanted;
  const std::uint16_t variants = std::max<std::uint16_t>(options.variants, 1);
  while (g.members.size() < rep.wanted && rep.tries < max_tries) {
    ++rep.tries;
    const double u = rng.uniform(0.0, cum.back());
    const auto k = std::min<std::size_t>(
        static_cast<std::size_t>(std::upper_bound(cum.begin(), cum.end(), u) - cum.begin()),
        inside.size() - 1);
    const Interval& iv = inside[k];
    ShepherdMember m;
    m.at.lane = iv.lane;
    m.at.s_m = static_cast<float>(rng.uniform(iv.s0, iv.s1));
    m.at.dir = rng.chance(0.5) ? 1 : -1;
    const float lim = lateral_limit(walk, iv.lane);
    m.lateral_m = static_cast<float>(rng.uniform(-lim, lim));
    m.heading_rad = static_cast<float>(rng.uniform(-kPi, kPi));
    if (mix_cum.empty()) {
      m.variant = static_cast<std::uint16_t>(rng.below(variants));
    } else {
      const double v = rng.uniform(0.0, mix_cum.back());
      std::size_t idx = static_cast<std::size_t>(
          std::upper_bound(mix_cum.begin(), mix_cum.end(), v) - mix_cum.begin());
      while (idx >= mix_cum.size() || spec.variant_mix[idx] <= 0) {
        idx = idx >= mix_cum.size() ? 0 : idx + 1;  // Rounding at the top: first non-zero.
      }
      m.variant = static_cast<std::uint16_t>(idx);
    }
    const Vec2 p = xy(walk_pose(walk, m.at, m.lateral_m).position);
    if (!ring_contains(spec.polygon, p) || !grid.free(p)) continue;
    grid.add(p);
    g.members.push_back(m);
  }
  rep.placed = static_cast<std::uint32_t>(g.members.size());
  if (report != nullptr) *report = rep;
  return g;
}

bool snap_to_walk(const WalkNetwork& walk, Vec2 p, bool crosswalks, WalkPoint* at,
                  float* lateral_m) {
  const traffic::Network& net = *walk.net;
  double best = std::numeric_limits<double>::infinity();
  LaneId best_lane = kNoLane;
  double best_s = 0;
  double best_side = 0;
  for (const LaneId lane : walk.lanes) {
    if ((!crosswalks && walk.crosswalk(lane)) || !walk.centre_clear(lane)) continue;
    for (std::uint32_t i = net.point_begin[lane]; i + 1 < net.point_begin[lane + 1]; ++i) {
      const Vec2 a = xy(net.points[i]);
      const Vec2 d = xy(net.points[i + 1]) - a;
      const double l2 = dot(d, d);
      const double t = l2 > 0 ? std::clamp(dot(p - a, d) / l2, 0.0, 1.0) : 0.0;
      const Vec2 q = a + d * t;
      const double dist = distance(p, q);
      if (dist < best) {
        best = dist;
        best_lane = lane;
        best_s = net.point_s[i] + t * (net.point_s[i + 1] - net.point_s[i]);
        best_side = l2 > 0 ? cross(d, p - a) / std::sqrt(l2) : 0.0;
      }
    }
  }
  if (best_lane == kNoLane) return false;
  at->lane = best_lane;
  at->s_m = static_cast<float>(std::clamp(best_s, 0.0, double{net.length_m[best_lane]}));
  at->dir = 1;
  const float lim = lateral_limit(walk, best_lane);
  *lateral_m = std::clamp(static_cast<float>(best_side), -lim, lim);
  return true;
}

}  // namespace cityforge::crowd
