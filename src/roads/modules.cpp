// SPDX-License-Identifier: Apache-2.0
// Road modules ("9 bricks for 3 classes"): each section is filled greedily with the 20, 10 and
// 5 m modules of its class, and at most one module, always a 5 m one placed last, is scaled to
// absorb the remainder. With k whole 5 m units in the length L and r = L - 5 k:
//   r == 0:  greedy fill of 5 k, nothing scaled;
//   else the candidates are stretching a last 5 m module to 5 + r (greedy fill of 5 (k - 1)
//   before it; needs k >= 1) or adding a last 5 m module shrunk to r (greedy fill of 5 k before
//   it); the candidate within [min_module_scale, max_module_scale] closest to scale 1 wins
//   (defaults: stretch for r < 2.5 m, shrink for r >= 2.5 m), or the one nearer the bounds.
// Sections shorter than min_module_scale * 5 m get a single 5 m module scaled below the bound.
// Junctions are filled with one module per leg, pivot at the junction centre, scaled to the
// distance to the leg mouth.
#include <algorithm>
#include <cmath>

#include "roads/detail/geometry.hpp"

namespace cityforge::roads {

namespace {

struct Piece {
  std::uint8_t size;
  double scale;
};

// Greedy fill of `length` with the module lengths, longest first; what is left over is ignored
// (nothing when the longer modules are multiples of the shortest).
void greedy(double length, const Config& config, std::vector<Piece>& out) {
  for (std::uint8_t s = 0; s < 3; ++s) {
    const double m = config.module_lengths_m[s];
    while (length >= m - 1e-9) {
      out.push_back({s, 1.0});
      length -= m;
    }
  }
}

double fill_length(const std::vector<Piece>& pieces, const Config& config) {
  double total = 0.0;
  for (const Piece& p : pieces)
    total += config.module_lengths_m[p.size] * p.scale;
  return total;
}

// Distance of a scale from the allowed range (0 inside), then from 1.
double badness(double scale, const Config& config) {
  const double out =
      std::max({0.0, config.min_module_scale - scale, scale - config.max_module_scale});
  return out * 1e6 + std::abs(std::log(std::max(scale, 1e-12)));
}

std::vector<Piece> fit_length(double len, const Config& config) {
  std::vector<Piece> best;
  const double unit = config.module_lengths_m[2];
  if (len <= 1e-6 || unit <= 0.0) return best;
  const auto k = static_cast<long>(std::floor(len / unit + 1e-9));
  const double r = len - static_cast<double>(k) * unit;
  if (r <= 1e-6 && k >= 1) {
    greedy(static_cast<double>(k) * unit, config, best);
    const double left = len - fill_length(best, config);
    if (std::abs(left) > 1e-6) best.push_back({2, left / unit});
    return best;
  }
  // Candidate A: stretch a last 5 m module; candidate B: add a shrunk one.
  std::vector<Piece> stretch;
  if (k >= 1) {
    greedy(static_cast<double>(k - 1) * unit, config, stretch);
    stretch.push_back({2, (len - fill_length(stretch, config)) / unit});
  }
  std::vector<Piece> shrink;
  greedy(static_cast<double>(k) * unit, config, shrink);
  shrink.push_back({2, (len - fill_length(shrink, config)) / unit});
  if (stretch.empty()) return shrink;
  return badness(stretch.back().scale, config) <= badness(shrink.back().scale, config) ? stretch
                                                                                       : shrink;
}

}  // namespace

std::vector<ModuleInstance> fit_modules(const layout::Output& city, const Output& geometry,
                                        const terrain::Heightfield& ground, const Config& config) {
  std::vector<ModuleInstance> out;
  // 1. Sections, in section order, modules from the `from` end.
  for (std::size_t si = 0; si < geometry.sections.size(); ++si) {
    const Section& sec = geometry.sections[si];
    const layout::RoadEdge& edge = city.network.edges[sec.edge];
    if (edge.tunnel) continue;  // Underground (imported places): not drawn.
    const double len = polyline_length(sec.centre);
    double s = 0.0;
    for (const Piece& p : fit_length(len, config)) {
      ModuleInstance m;
      m.road_class = static_cast<std::uint8_t>(edge.road_class);
      m.size = p.size;
      m.scale = p.scale;
      const Vec2 at = polyline_point_at(sec.centre, s);
      const Vec2 dir = polyline_tangent_at(sec.centre, std::min(s + 1e-6, len));
      m.position = {at.x, at.y, ground.sample(at)};
      m.yaw_rad = std::atan2(dir.y, dir.x);
      m.owner = static_cast<std::uint32_t>(si);
      out.push_back(m);
      s += config.module_lengths_m[p.size] * p.scale;
    }
  }
  // 2. Junctions with a surface: one module per leg, centre to mouth, the size nearest the
  // distance so the scale stays near 1.
  for (std::size_t xi = 0; xi < geometry.intersections.size(); ++xi) {
    const Intersection& x = geometry.intersections[xi];
    if (x.surface.outer.empty()) continue;
    const Vec2 c = city.network.nodes[x.node].pos;
    for (const Leg& leg : x.legs) {
      if (leg.trim_m <= 1e-6 || city.network.edges[leg.edge].tunnel) continue;
      std::uint8_t size = 0;
      for (std::uint8_t s = 1; s < 3; ++s) {
        if (std::abs(std::log(leg.trim_m / config.module_lengths_m[s])) <
            std::abs(std::log(leg.trim_m / config.module_lengths_m[size]))) {
          size = s;
        }
      }
      ModuleInstance m;
      m.road_class = static_cast<std::uint8_t>(city.network.edges[leg.edge].road_class);
      m.size = size;
      m.scale = leg.trim_m / config.module_lengths_m[size];
      m.position = {c.x, c.y, ground.sample(c)};
      m.yaw_rad = std::atan2(leg.direction.y, leg.direction.x);
      m.owner = static_cast<std::uint32_t>(xi);
      m.in_intersection = true;
      out.push_back(m);
    }
  }
  return out;
}

}  // namespace cityforge::roads
