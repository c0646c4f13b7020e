// SPDX-License-Identifier: Apache-2.0
// Occlusion of modules on walls touching other buildings of the same lot (seeds/000,
// 29:14-30:30). Conservative: a module goes only if, on the vertical lines through its ends
// (and its middle for corner pieces) pushed out of the wall, every height from its bottom to
// its top is hidden, and so is its centre: inside another building of the lot or of an
// adjacent lot of the same block (whose volumes come from its DNA, so lots stay independent
// jobs) whose wall lies against this one (parallel within a degree, or the wall deeper inside
// it than the push), or within that building's parapet above its roof, or under the ground
// below such a building.
// Walls meeting at an angle leave a wedge-shaped crack open to the street, and a module at
// its narrow end is seen through it, however close the walls come.

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "buildings/detail/gen_internal.hpp"
#include "cityforge/core/polyline.hpp"

namespace cityforge::buildings::detail {
namespace {

constexpr double kInsetM = 0.01;
// A point this far under the ground counts as hidden by it (the street-level check casts its
// lines a little way out of the wall before it asks the ground).
constexpr double kBuriedM = 0.05;

// Whether the wall through `wall` with direction `dir` lies against the boundary of `poly`
// (which holds the point pushed `push_m` out of it): its nearest edge is parallel, or it is
// no nearer than the push.
bool lies_against(const Polygon& poly, Vec2 wall, Vec2 dir, double push_m) {
  double best = std::numeric_limits<double>::infinity();
  Vec2 edge{1.0, 0.0};
  for (std::size_t r = 0; r <= poly.holes.size(); ++r) {
    const Ring& ring = r == 0 ? poly.outer : poly.holes[r - 1];
    for (std::size_t i = 0; i < ring.size(); ++i) {
      const Vec2 a = ring[i];
      const Vec2 b = ring[(i + 1) % ring.size()];
      const double d = segment_distance(a, b, wall);
      if (d < best) {
        best = d;
        edge = b - a;
      }
    }
  }
  if (best >= push_m) return true;
  const double len = length(edge);
  return len > 0.0 && std::fabs(cross(dir, edge)) < kAgainstSin * len;
}

}  // namespace

std::vector<LotSolid> lot_solids(const std::vector<BuildingWork>& works,
                                 const std::vector<NeighbourSolid>& neighbours, double push_m) {
  std::vector<LotSolid> solids;
  for (std::size_t b = 0; b < works.size(); ++b) {
    for (std::size_t vi = 0; vi < works[b].building.volumes.size(); ++vi) {
      const Volume& v = works[b].building.volumes[vi];
      LotSolid s;
      s.volume = static_cast<std::uint32_t>(vi);
      s.building = static_cast<std::uint32_t>(b);
      s.footprint = &v.footprint;
      s.bounds = ring_bounds(v.footprint.outer);
      s.z0 = works[b].base_z_m + v.z0_m;
      s.z1 = works[b].base_z_m + v.z1_m;
      s.parapet_m = parapet_hides_m(*works[b].style, v, push_m);
      solids.push_back(s);
    }
  }
  // Buildings of adjacent lots hide walls too (street walls share party walls across lots).
  const auto outside = static_cast<std::uint32_t>(works.size());
  for (const NeighbourSolid& n : neighbours) {
    solids.push_back(LotSolid{outside, 0, &n.footprint, n.bounds, n.z0, n.z1, n.parapet_m});
  }
  return solids;
}

std::size_t occlude_lot(std::vector<BuildingWork>& works, double push_m,
                        const std::vector<LotSolid>& solids, const terrain::Heightfield* ground) {
  bool parts = false;  // An imported building whose mapped parts may hide each other's walls.
  for (const BuildingWork& w : works) {
    parts = parts || (w.imported && w.building.volumes.size() > 1);
  }
  bool others = false;
  for (const LotSolid& s : solids) {
    others = others || s.building != solids.front().building;
  }
  if ((!others && !parts) || works.empty()) {
    return 0;
  }
  // Whether every height from z0 to z1 on the vertical line through `wall`, pushed out of it,
  // is hidden: inside another building lying against the wall (imported parts also hide walls
  // of other parts) or its parapet, or under the ground below it. Only walls against another
  // building: a wall the ground alone hides (on a steep slope) stays.
  std::vector<std::pair<double, double>> spans;
  auto hidden = [&](std::uint32_t self, const Facade& f, Vec2 wall, double z0, double z1) {
    const Vec2 p = wall + f.normal * push_m;
    spans.clear();
    for (const LotSolid& s : solids) {
      const bool own = s.building == self && (!works[self].imported || s.volume == f.volume);
      if (own || z1 < s.z0 || z0 > s.z1 + s.parapet_m || !s.bounds.contains(p)) {
        continue;
      }
      if (polygon_contains(*s.footprint, p) && lies_against(*s.footprint, wall, f.dir, push_m)) {
        spans.emplace_back(s.z0, s.z1 + s.parapet_m);
      }
    }
    if (spans.empty()) return false;
    // Hidden from below up to here (z0 itself needs cover too: a point is a line of no length).
    double up_to = -std::numeric_limits<double>::infinity();
    if (ground != nullptr) {
      up_to = ground->sample(p) - kBuriedM;
    }
    if (up_to >= z1) return true;
    std::sort(spans.begin(), spans.end());
    for (const auto& [lo, hi] : spans) {
      if (lo > std::max(up_to, z0)) return false;  // A gap: seen through it.
      up_to = std::max(up_to, hi);
      if (up_to >= z1) return true;
    }
    return false;
  };

  // 2. Test every module.
  std::size_t removed = 0;
  std::vector<double> ts;
  for (std::size_t b = 0; b < works.size(); ++b) {
    BuildingWork& w = works[b];
    const auto self = static_cast<std::uint32_t>(b);
    for (Placed& p : w.placed) {
      const Facade& f = w.facades[p.facade];
      const double z0 = w.base_z_m + f.z0_m;
      const double z1 = w.base_z_m + f.z1_m;
      const double tm = 0.5 * (p.t0 + p.t1);
      const double zm = 0.5 * (z0 + z1);
      const double ta = std::min(p.t0 + kInsetM, tm);
      const double tb = std::max(p.t1 - kInsetM, tm);
      const double za = std::min(z0 + kInsetM, zm);
      const double zb = std::max(z1 - kInsetM, zm);
      ts.clear();
      if (p.corner) {
        ts = {ta, tm, tb};
      } else {
        ts = {ta, tb};
      }
      bool all = hidden(self, f, f.a + f.dir * tm, zm, zm);
      for (std::size_t i = 0; all && i < ts.size(); ++i) {
        all = hidden(self, f, f.a + f.dir * ts[i], za, zb);
      }
      if (all) {
        p.removed = true;
        ++removed;
      }
    }
  }
  return removed;
}

}  // namespace cityforge::buildings::detail
