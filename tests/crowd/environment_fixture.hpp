// SPDX-License-Identifier: Apache-2.0
// A 3 x 3 block grid of streets and sidewalks and a crowd on it, for the crowd environment tests
// (unit and city).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <numbers>
#include <vector>

#include "cityforge/crowd/crowd.hpp"
#include "traffic/net_fixture.hpp"

namespace cityforge::crowd::test {

using traffic::testing::NetBuilder;

inline constexpr double kPitch = 80.0;  // Block pitch: 60 m blocks, 20 m roads.
inline constexpr double kSide = 60.0;
inline constexpr double kCorner = 3.0;
inline constexpr int kBlocks = 3;

inline std::vector<Vec3> line(Vec2 a, Vec2 b) {
  const int n = std::max(1, static_cast<int>(std::ceil(distance(a, b) / 10.0)));
  std::vector<Vec3> p;
  for (int i = 0; i <= n; ++i) {
    const Vec2 q = a + (b - a) * (static_cast<double>(i) / n);
    p.push_back({q.x, q.y, 0.0});
  }
  return p;
}

inline std::vector<Vec3> arc(Vec2 centre, double a0, double a1) {
  std::vector<Vec3> p;
  for (int i = 0; i <= 4; ++i) {
    const double a = (a0 + (a1 - a0) * i / 4.0) * std::numbers::pi / 180.0;
    p.push_back({centre.x + kCorner * std::cos(a), centre.y + kCorner * std::sin(a), 0.0});
  }
  return p;
}

/// 3 x 3 blocks with sidewalks round each and crosswalks between neighbours (no signals), a
/// vehicle lane down the first road and, with `roads`, one down each of the other three.
inline traffic::Network* make_grid(bool roads) {
  {
    NetBuilder b;
    std::vector<LaneId> all;
    auto add = [&](std::vector<Vec3> pts, std::uint32_t tags) {
      const LaneId id = b.add_lane(std::move(pts), 1.4f, tags);
      all.push_back(id);
      return id;
    };
    for (int j = 0; j < kBlocks; ++j) {
      for (int i = 0; i < kBlocks; ++i) {
        const double x0 = i * kPitch;
        const double y0 = j * kPitch;
        const double x1 = x0 + kSide;
        const double y1 = y0 + kSide;
        const double c = kCorner;
        add(line({x0 + c, y0}, {x1 - c, y0}), roads::kSidewalk);
        add(arc({x1 - c, y0 + c}, -90, 0), roads::kSidewalk);
        add(line({x1, y0 + c}, {x1, y1 - c}), roads::kSidewalk);
        add(arc({x1 - c, y1 - c}, 0, 90), roads::kSidewalk);
        add(line({x1 - c, y1}, {x0 + c, y1}), roads::kSidewalk);
        add(arc({x0 + c, y1 - c}, 90, 180), roads::kSidewalk);
        add(line({x0, y1 - c}, {x0, y0 + c}), roads::kSidewalk);
        add(arc({x0 + c, y0 + c}, 180, 270), roads::kSidewalk);
      }
    }
    for (int j = 0; j < kBlocks; ++j) {
      for (int i = 0; i < kBlocks; ++i) {
        const double x1 = i * kPitch + kSide;
        const double y1 = j * kPitch + kSide;
        if (i + 1 < kBlocks) {
          add(line({x1, j * kPitch + kCorner}, {x1 + 20, j * kPitch + kCorner}), roads::kCrosswalk);
        }
        if (j + 1 < kBlocks) {
          add(line({i * kPitch + kCorner, y1}, {i * kPitch + kCorner, y1 + 20}), roads::kCrosswalk);
        }
      }
    }
    for (const LaneId a : all) {
      for (const LaneId c : all) {
        if (a != c) b.link(a, c);
      }
    }
    b.add_straight({70, -10, 0}, {70, 250, 0});  // A vehicle lane down the first road.
    if (roads) {
      b.add_straight({150, -10, 0}, {150, 250, 0});
      b.add_straight({-10, 70, 0}, {250, 70, 0});
      b.add_straight({-10, 150, 0}, {250, 150, 0});
    }
    auto* out = new traffic::Network(b.finish());
    const std::uint32_t n = out->lane_count();
    out->width_m.assign(n, 3.0f);
    out->pedestrian_density.assign(n, 0.5f);
    return out;
  }
}

inline const traffic::Network& grid() {
  static const traffic::Network* net = make_grid(false);
  return *net;
}

/// The grid with a vehicle lane down each of its four roads (the crowd over ranks: blocks
/// take the rank of the roads round them).
inline const traffic::Network& grid_with_roads() {
  static const traffic::Network* net = make_grid(true);
  return *net;
}

inline std::unique_ptr<Crowd> make(std::uint32_t pedestrians, bool lod, Seed seed = 3,
                                   float transition_s = 10.0f) {
  Config c;
  c.pedestrians = pedestrians;
  c.lod.enabled = lod;
  c.env_transition_s = transition_s;
  Result<std::unique_ptr<Crowd>> made = Crowd::create(grid(), c, seed);
  EXPECT_TRUE(made.ok()) << made.error().to_string();
  return std::move(*made);
}

inline void run(Crowd& c, int ticks) {
  for (int t = 0; t < ticks; ++t)
    c.tick();
}

inline std::uint32_t outdoors(const Crowd& c) {
  std::uint32_t n = 0;
  for (const PedestrianView& v : c.views())
    n += (v.flags & kPedIndoors) == 0U ? 1U : 0U;
  return n;
}

inline std::uint32_t lod_sum(const Stats& s) {
  std::uint32_t n = 0;
  for (const std::uint32_t k : s.per_lod)
    n += k;
  return n;
}

/// Mean speed of the pedestrians out walking (not hurrying, fleeing or standing).
inline double mean_walking_speed(const Crowd& c) {
  double sum = 0;
  int n = 0;
  for (const PedestrianView& v : c.views()) {
    if ((v.flags & (kPedIndoors | kPedHurry)) != 0U || v.behaviour != Behaviour::walk) continue;
    sum += v.speed_mps;
    ++n;
  }
  return n > 0 ? sum / n : 0.0;
}

}  // namespace cityforge::crowd::test
