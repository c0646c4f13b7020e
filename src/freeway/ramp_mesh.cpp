// SPDX-License-Identifier: Apache-2.0
// Ramp geometry along each ramp lane's centre line. The lane is split into runs by its height
// above the terrain: a slab (the deck's prism, ramp width and thickness) where the top is at
// least ramp_ground_m up, a top-only ribbon at the lane's height below that. Barriers line
// both sides where the top is more than ramp_barrier_above_m up and the ramp has left its
// deck (on the deck the deck's own barriers apply); pillars come from the deck's placement
// with a rule: ramp underside more than ramp_pillar_above_m up, never on the deck or a road.
#include <algorithm>
#include <functional>

#include "cityforge/core/polyline.hpp"
#include "freeway/detail.hpp"

namespace cityforge::freeway::detail {
namespace {

// The lane as a station line: stations are plan arc lengths; repeated points are dropped.
StationLine lane_station_line(const std::vector<Vec3>& points) {
  StationLine l;
  for (const Vec3& p : points) {
    const Vec2 xy{p.x, p.y};
    if (!l.xy.empty() && distance(l.xy.back(), xy) < 1e-6) continue;
    l.s.push_back(l.xy.empty() ? 0.0 : l.s.back() + distance(l.xy.back(), xy));
    l.xy.push_back(xy);
    l.z.push_back(p.z);
  }
  l.length_m = l.s.empty() ? 0.0 : l.s.back();
  return l;
}

// Points a..b (inclusive) of a station line.
StationLine slice(const StationLine& l, std::size_t a, std::size_t b) {
  StationLine out;
  out.xy.assign(l.xy.begin() + static_cast<std::ptrdiff_t>(a),
                l.xy.begin() + static_cast<std::ptrdiff_t>(b + 1));
  out.s.assign(l.s.begin() + static_cast<std::ptrdiff_t>(a),
               l.s.begin() + static_cast<std::ptrdiff_t>(b + 1));
  out.z.assign(l.z.begin() + static_cast<std::ptrdiff_t>(a),
               l.z.begin() + static_cast<std::ptrdiff_t>(b + 1));
  out.length_m = out.s.back() - out.s.front();
  return out;
}

// Calls f(a, b, value) for each maximal run of segments [a, b] (point indices) sharing
// keep(k), for the n - 1 segments of an n-point line.
void for_runs(std::size_t n, const std::function<bool(std::size_t)>& keep,
              const std::function<void(std::size_t, std::size_t, bool)>& f) {
  std::size_t start = 0;
  for (std::size_t k = 0; k + 1 < n; ++k) {
    if (k + 2 == n || keep(k + 1) != keep(k)) {
      f(start, k + 1, keep(k));
      start = k + 1;
    }
  }
}

}  // namespace

RampGeometry ramp_geometry(const Ramp& ramp, const roads::Lane& lane, const CentreLine& deck,
                           const layout::Output& city, const terrain::Heightfield& ground,
                           const Config& config) {
  RampGeometry out;
  const StationLine line = lane_station_line(lane.points);
  const std::size_t n = line.xy.size();
  if (n < 2) return out;
  // 1. Height of the top above the terrain and whether the point is on the deck, per point.
  std::vector<double> above(n);
  std::vector<bool> on_deck(n);
  for (std::size_t k = 0; k < n; ++k) {
    above[k] = line.z[k] - ground.sample(line.xy[k]);
    on_deck[k] = polyline_distance(deck.line.xy, line.xy[k]) < deck.half_width_m;
  }
  const double half = lane.width_m / 2.0 + config.ramp_shoulder_m;
  // 2. Slab where either end of a segment is up, ribbon elsewhere; elevated runs in the
  //    footprint.
  for_runs(
      n, [&](std::size_t k) { return std::max(above[k], above[k + 1]) >= config.ramp_ground_m; },
      [&](std::size_t a, std::size_t b, bool up) {
        const StationLine run = slice(line, a, b);
        ribbon(run, half, -half, out.deck);
        if (!up) return;
        prism(run, half, -half, -config.ramp_thickness_m, 0.0, out.deck, false);
        for (Polygon& p : polyline_buffer(run.xy, half))
          out.footprint.push_back(std::move(p));
      });
  // 3. Barriers on both sides where both segment ends are high and off the deck.
  const double w = config.barrier_width_m;
  const double bh = config.barrier_height_m;
  for_runs(
      n,
      [&](std::size_t k) {
        return std::min(above[k], above[k + 1]) > config.ramp_barrier_above_m && !on_deck[k] &&
               !on_deck[k + 1];
      },
      [&](std::size_t a, std::size_t b, bool high) {
        if (!high) return;
        const StationLine run = slice(line, a, b);
        prism(run, half, half - w, 0.0, bh, out.barriers);
        prism(run, -half + w, -half, 0.0, bh, out.barriers);
      });
  // 4. Pillars: the deck's placement, under the ramp underside, off the deck.
  PillarRule rule;
  rule.thickness_m = config.ramp_thickness_m;
  rule.min_height_m = config.ramp_pillar_above_m;
  rule.keep_off = &deck;
  out.pillars = place_pillars(ramp.freeway, line, rule, city, ground, config);
  return out;
}

}  // namespace cityforge::freeway::detail
