// SPDX-License-Identifier: Apache-2.0
// Positions on lanes (binary search on the cumulative arc length) and spawn lane capacity.
#include <algorithm>
#include <cmath>

#include "cityforge/traffic/network.hpp"

namespace cityforge::traffic {

namespace {

/// Where s_m falls on the lane's polyline: the segment [k - 1, k] and the share t along it.
struct Along {
  std::uint32_t k = 0;
  double t = 0.0;
};

Along along(const Network& net, std::uint32_t b, std::uint32_t e, double s_m) {
  const double s = std::clamp(s_m, 0.0, static_cast<double>(net.point_s[e - 1]));
  // The segment [k - 1, k] holding s: the first point past s, kept inside the polyline.
  const auto first = net.point_s.begin() + b;
  const auto last = net.point_s.begin() + e;
  auto k = static_cast<std::uint32_t>(std::upper_bound(first, last, static_cast<float>(s)) -
                                      net.point_s.begin());
  k = std::clamp(k, b + 1, e - 1);
  const double s0 = net.point_s[k - 1];
  const double s1 = net.point_s[k];
  return {k, s1 > s0 ? std::clamp((s - s0) / (s1 - s0), 0.0, 1.0) : 0.0};
}

}  // namespace

LanePose lane_pose(const Network& net, LaneId lane, double s_m, double lateral_m) {
  const std::uint32_t b = net.point_begin[lane];
  const std::uint32_t e = net.point_begin[lane + 1];
  LanePose pose;
  if (e == b) return pose;
  if (e - b == 1) {
    pose.position = net.points[b];
    return pose;
  }
  const auto [k, t] = along(net, b, e, s_m);
  const Vec3 p0 = net.points[k - 1];
  const Vec3 p1 = net.points[k];
  // Heading from the nearest segment with a plan direction (vertical segments have none).
  Vec2 dir{p1.x - p0.x, p1.y - p0.y};
  // dot > 1e-24 first: the common case without hypot (this runs for every vehicle sample).
  for (std::uint32_t j = 1; !(dot(dir, dir) > 1e-24) && length(dir) <= 1e-12 && j < e - b; ++j) {
    const std::uint32_t m = std::min(k + j, e - 1);
    const std::uint32_t m0 = k - 1 >= b + j ? k - 1 - j : b;
    dir = Vec2{net.points[m].x - net.points[m0].x, net.points[m].y - net.points[m0].y};
  }
  pose.position = p0 + (p1 - p0) * t;
  if (lateral_m != 0.0) {
    const Vec2 left = perp(normalize(dir));
    pose.position.x += left.x * lateral_m;
    pose.position.y += left.y * lateral_m;
  }
  pose.heading_rad = std::atan2(dir.y, dir.x);
  return pose;
}

Vec3 lane_point(const Network& net, LaneId lane, double s_m) {
  const std::uint32_t b = net.point_begin[lane];
  const std::uint32_t e = net.point_begin[lane + 1];
  if (e == b) return {};
  if (e - b == 1) return net.points[b];
  const auto [k, t] = along(net, b, e, s_m);
  const Vec3 p0 = net.points[k - 1];
  const Vec3 p1 = net.points[k];
  return p0 + (p1 - p0) * t;
}

std::uint64_t lane_capacity(const Network& net, double vehicle_length_m, double min_gap_m) {
  const double slot = vehicle_length_m + min_gap_m;
  if (!(slot > 0.0) || !std::isfinite(slot)) return 0;
  std::uint64_t total = 0;
  for (LaneId lane : net.spawn_lanes)
    total += static_cast<std::uint64_t>(std::floor(net.length_m[lane] / slot));
  return total;
}

}  // namespace cityforge::traffic
