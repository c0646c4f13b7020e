// SPDX-License-Identifier: Apache-2.0
// Conflict points: for each pair of conflicting connectors, the arc length along each where
// their centre lines cross (the last crossing, if they cross more than once). Movements that
// merge into one lane without crossing meet at the end. The coordinator frees a movement for
// conflicting traffic once the vehicles on it have cleared this point, so a vehicle queued at
// the far end of a connector (waiting at a close next junction) no longer locks the junction.
#include "traffic/detail/conflict_points.hpp"

#include <tbb/parallel_for.h>

#include <algorithm>

namespace cityforge::traffic::detail {
namespace {

/// Parameter t on segment a0-a1 where it crosses b0-b1, or -1.
double cross_t(Vec2 a0, Vec2 a1, Vec2 b0, Vec2 b1) {
  const Vec2 r = a1 - a0;
  const Vec2 q = b1 - b0;
  const double den = r.x * q.y - r.y * q.x;
  if (den == 0.0) return -1.0;
  const Vec2 w = b0 - a0;
  const double t = (w.x * q.y - w.y * q.x) / den;
  const double u = (w.x * r.y - w.y * r.x) / den;
  return t >= 0.0 && t <= 1.0 && u >= 0.0 && u <= 1.0 ? t : -1.0;
}

float last_crossing(const Network& net, LaneId a, LaneId b) {
  float best = -1.0f;
  for (std::uint32_t i = net.point_begin[a]; i + 1 < net.point_begin[a + 1]; ++i) {
    const Vec2 a0{net.points[i].x, net.points[i].y};
    const Vec2 a1{net.points[i + 1].x, net.points[i + 1].y};
    for (std::uint32_t k = net.point_begin[b]; k + 1 < net.point_begin[b + 1]; ++k) {
      const double t = cross_t(a0, a1, Vec2{net.points[k].x, net.points[k].y},
                               Vec2{net.points[k + 1].x, net.points[k + 1].y});
      if (t < 0.0) continue;
      const double s = net.point_s[i] + t * (net.point_s[i + 1] - net.point_s[i]);
      best = std::max(best, static_cast<float>(s));
    }
  }
  return best;
}

}  // namespace

void compute_conflict_points(Network& net) {
  net.conflict_s.assign(net.conflicts.size(), 0.0f);
  tbb::parallel_for(std::uint32_t{0}, net.lane_count(), [&](std::uint32_t c) {
    for (std::uint32_t q = net.conflict_begin[c]; q < net.conflict_begin[c + 1]; ++q) {
      const float s = last_crossing(net, c, net.conflicts[q]);
      net.conflict_s[q] = s < 0.0f ? net.length_m[c] : s;
    }
  });
}

float conflict_point(const Network& net, LaneId lane, LaneId other) {
  const auto b = net.conflicts.begin() + net.conflict_begin[lane];
  const auto e = net.conflicts.begin() + net.conflict_begin[lane + 1];
  const auto it = std::lower_bound(b, e, other);
  if (it == e || *it != other) return net.length_m[lane];
  return net.conflict_s[static_cast<std::size_t>(it - net.conflicts.begin())];
}

}  // namespace cityforge::traffic::detail
