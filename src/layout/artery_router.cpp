// SPDX-License-Identifier: Apache-2.0
// Arteries as least-cost paths over a cost grid, like the source's "find shortest path" node:
// the cost of a step grows with the slope climbed, with the distance from the artist's curve,
// and is infinite on water, outside the corridor and outside the city.
// Based on: P. E. Hart, N. J. Nilsson, B. Raphael, A Formal Basis for the Heuristic
// Determination of Minimum Cost Paths, 1968 (A*), on a 16-connected grid for smooth headings.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <queue>
#include <vector>

#include "layout/detail.hpp"

namespace cityforge::layout::detail {
namespace {

struct CostGrid {
  Vec2 origin;
  double cell = 10.0;
  int nx = 0;
  int ny = 0;
  std::vector<float> curve_dist;  // distance to the artist's curve, +inf far away
  std::vector<std::uint8_t> blocked;

  Vec2 center(int i, int j) const { return origin + Vec2{(i + 0.5) * cell, (j + 0.5) * cell}; }
  std::size_t at(int i, int j) const { return static_cast<std::size_t>(j) * nx + i; }
  bool inside(int i, int j) const { return i >= 0 && j >= 0 && i < nx && j < ny; }
};

// Distance to the curve for every cell near it: each segment updates the cells of its box.
void rasterize_curve(CostGrid& g, const Polyline& curve, double corridor_m) {
  for (std::size_t s = 0; s + 1 < curve.size(); ++s) {
    Aabb2 box;
    box.add(curve[s]);
    box.add(curve[s + 1]);
    const int i0 =
        std::max(0, static_cast<int>(std::floor((box.min.x - corridor_m - g.origin.x) / g.cell)));
    const int i1 = std::min(
        g.nx - 1, static_cast<int>(std::floor((box.max.x + corridor_m - g.origin.x) / g.cell)));
    const int j0 =
        std::max(0, static_cast<int>(std::floor((box.min.y - corridor_m - g.origin.y) / g.cell)));
    const int j1 = std::min(
        g.ny - 1, static_cast<int>(std::floor((box.max.y + corridor_m - g.origin.y) / g.cell)));
    for (int j = j0; j <= j1; ++j) {
      for (int i = i0; i <= i1; ++i) {
        const auto d = static_cast<float>(segment_distance(curve[s], curve[s + 1], g.center(i, j)));
        float& slot = g.curve_dist[g.at(i, j)];
        slot = std::min(slot, d);
      }
    }
  }
}

// The 16 moves: 8 neighbours plus the knight moves, so paths can hold headings in 22.5 deg steps.
constexpr int kMoves[16][2] = {{1, 0},   {1, 1},   {0, 1},  {-1, 1}, {-1, 0}, {-1, -1},
                               {0, -1},  {1, -1},  {2, 1},  {1, 2},  {-1, 2}, {-2, 1},
                               {-2, -1}, {-1, -2}, {1, -2}, {2, -1}};

}  // namespace

Result<Polyline> route_artery(const ArteryCurve& curve, std::size_t index, const Inputs& in,
                              const terrain::Heightfield& ground, const Config& config) {
  const std::string where = "arteries[" + std::to_string(index) + "]";
  // 1. The cost grid covers the curve's box plus the corridor.
  const Polyline dense = polyline_resample(curve.points, config.cost_cell_m);
  Aabb2 box;
  for (Vec2 p : dense)
    box.add(p);
  CostGrid g;
  g.cell = config.cost_cell_m;
  const double pad = config.corridor_m + 2 * g.cell;
  g.origin = {std::floor((box.min.x - pad) / g.cell) * g.cell,
              std::floor((box.min.y - pad) / g.cell) * g.cell};
  g.nx = static_cast<int>(std::ceil((box.max.x + pad - g.origin.x) / g.cell)) + 1;
  g.ny = static_cast<int>(std::ceil((box.max.y + pad - g.origin.y) / g.cell)) + 1;
  const std::size_t n = static_cast<std::size_t>(g.nx) * g.ny;
  g.curve_dist.assign(n, std::numeric_limits<float>::infinity());
  g.blocked.assign(n, 0);
  rasterize_curve(g, curve.points, config.corridor_m);

  // 2. Cells outside the corridor, outside the city, on water or closer to it than half the
  //    artery plus one cell (simplifying and smoothing the path may cut that much) are blocked.
  const double clearance =
      config.classes[static_cast<std::size_t>(RoadClass::artery)].width_m / 2 + g.cell;
  auto near_water = [&](const Polygon& w, Vec2 c) {
    if (polygon_contains(w, c)) return true;
    const Ring& r = w.outer;
    for (std::size_t i = 0; i < r.size(); ++i) {
      if (segment_distance(r[i], r[(i + 1) % r.size()], c) < clearance) return true;
    }
    return false;
  };
  std::vector<float> height(n, 0.0f);
  for (int j = 0; j < g.ny; ++j) {
    for (int i = 0; i < g.nx; ++i) {
      const std::size_t k = g.at(i, j);
      const Vec2 c = g.center(i, j);
      bool blocked =
          !(g.curve_dist[k] <= config.corridor_m) || !ring_contains(in.boundary.outer, c);
      for (const Polygon& w : in.water) {
        blocked = blocked || near_water(w, c);
      }
      g.blocked[k] = blocked ? 1 : 0;
      height[k] = static_cast<float>(ground.sample(c));
    }
  }
  auto cell_of = [&](Vec2 p) {
    return std::pair<int, int>{
        std::clamp(static_cast<int>(std::floor((p.x - g.origin.x) / g.cell)), 0, g.nx - 1),
        std::clamp(static_cast<int>(std::floor((p.y - g.origin.y) / g.cell)), 0, g.ny - 1)};
  };
  const auto [si, sj] = cell_of(curve.points.front());
  const auto [ti, tj] = cell_of(curve.points.back());
  g.blocked[g.at(si, sj)] = 0;  // the artist's end points are always reachable
  g.blocked[g.at(ti, tj)] = 0;

  // 3. A* from start to target. Step cost: length * (1 + slope penalty + drift penalty).
  std::vector<double> best(n, std::numeric_limits<double>::infinity());
  std::vector<std::int32_t> parent(n, -1);
  using Item = std::pair<double, std::uint32_t>;  // (f, cell); ties broken by cell index
  std::priority_queue<Item, std::vector<Item>, std::greater<>> open;
  const Vec2 target = g.center(ti, tj);
  auto heuristic = [&](int i, int j) { return distance(g.center(i, j), target); };
  const std::size_t start = g.at(si, sj);
  const std::size_t goal = g.at(ti, tj);
  best[start] = 0.0;
  open.emplace(heuristic(si, sj), static_cast<std::uint32_t>(start));
  while (!open.empty()) {
    const auto [f, k] = open.top();
    open.pop();
    if (k == goal) break;
    const int i = static_cast<int>(k % g.nx);
    const int j = static_cast<int>(k / g.nx);
    if (f > best[k] + heuristic(i, j) + 1e-9) continue;  // stale entry
    for (const auto& mv : kMoves) {
      const int a = i + mv[0];
      const int b = j + mv[1];
      if (!g.inside(a, b)) continue;
      const std::size_t q = g.at(a, b);
      if (g.blocked[q]) continue;
      const double step = g.cell * std::hypot(mv[0], mv[1]);
      const double slope = std::fabs(height[q] - height[k]) / step;
      const double drift =
          std::isfinite(g.curve_dist[q]) ? g.curve_dist[q] / config.corridor_m : 1.0;
      const double cost =
          step * (1.0 + config.slope_weight * slope * slope * 10.0 + config.slope_weight * slope +
                  config.curve_weight * drift * drift);
      const double nb = best[k] + cost;
      if (nb < best[q]) {
        best[q] = nb;
        parent[q] = static_cast<std::int32_t>(k);
        open.emplace(nb + heuristic(a, b), static_cast<std::uint32_t>(q));
      }
    }
  }
  if (!std::isfinite(best[goal])) {
    return Error::invalid_input(
        where, "no route within corridor_m = " + std::to_string(config.corridor_m) +
                   " m of the curve avoids water and stays in the city");
  }

  // 4. Walk back, put the artist's exact end points back, simplify and smooth.
  Polyline path;
  for (std::int64_t k = static_cast<std::int64_t>(goal); k >= 0;
       k = parent[static_cast<std::size_t>(k)]) {
    path.push_back(g.center(static_cast<int>(k % g.nx), static_cast<int>(k / g.nx)));
  }
  std::reverse(path.begin(), path.end());
  path.front() = curve.points.front();
  path.back() = curve.points.back();
  path = polyline_simplify(path, g.cell * 0.75);
  path = polyline_smooth(path, 3);
  return polyline_dedupe(path, 0.01);
}

}  // namespace cityforge::layout::detail
