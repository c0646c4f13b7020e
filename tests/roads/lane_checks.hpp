// SPDX-License-Identifier: Apache-2.0
// Invariant checks of the lane graph (issue 3 acceptance), shared by the roads and pipeline
// tests: connector continuity, strong connectivity, pedestrian connectivity, signal plans.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>
#include <vector>

#include "cityforge/roads/roads.hpp"

namespace cityforge::roads::test {

inline Vec2 xy(Vec3 p) { return {p.x, p.y}; }

inline double angle_deg(Vec2 a, Vec2 b) {
  return std::abs(std::atan2(cross(a, b), dot(a, b))) * 180.0 / std::numbers::pi;
}

inline bool seg_cross(Vec2 a, Vec2 b, Vec2 c, Vec2 d, Vec2* hit) {
  const Vec2 r = b - a;
  const Vec2 s = d - c;
  const double den = cross(r, s);
  if (std::abs(den) < 1e-12) return false;
  const double t = cross(c - a, s) / den;
  const double u = cross(c - a, r) / den;
  if (t < 0 || t > 1 || u < 0 || u > 1) return false;
  *hit = a + r * t;
  return true;
}

/// Whether two paths cross, not counting a shared start or end point (diverge / merge).
inline bool paths_cross(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
  const bool ss = distance(xy(a.front()), xy(b.front())) < 0.05;
  const bool ee = distance(xy(a.back()), xy(b.back())) < 0.05;
  for (std::size_t i = 1; i < a.size(); ++i) {
    for (std::size_t k = 1; k < b.size(); ++k) {
      Vec2 hit;
      if (!seg_cross(xy(a[i - 1]), xy(a[i]), xy(b[k - 1]), xy(b[k]), &hit)) continue;
      if (ss && distance(hit, xy(a.front())) < 0.05) continue;
      if (ee && distance(hit, xy(a.back())) < 0.05) continue;
      return true;
    }
  }
  return false;
}

/// The path a movement's vehicles drive near the junction: 8 m of the incoming lane, the
/// connector, 8 m of the outgoing lane (they cross the crosswalks on the way).
inline std::vector<Vec3> movement_path(const LaneGraph& g, const Lane& c) {
  const Lane& in = g.lanes[c.predecessors.at(0)];
  const Lane& out = g.lanes[c.successors.at(0)];
  std::vector<Vec3> path;
  double acc = 0.0;
  std::size_t first = in.points.size() - 1;
  while (first > 0 && acc < 8.0) {
    acc += length(in.points[first] - in.points[first - 1]);
    --first;
  }
  path.insert(path.end(), in.points.begin() + static_cast<std::ptrdiff_t>(first),
              in.points.end() - 1);
  path.insert(path.end(), c.points.begin(), c.points.end());
  acc = 0.0;
  for (std::size_t i = 1; i < out.points.size() && acc < 8.0; ++i) {
    acc += length(out.points[i] - out.points[i - 1]);
    path.push_back(out.points[i]);
  }
  return path;
}

/// Successors plus lane changes (both neighbours: a lane change is possible both ways).
inline std::vector<LaneId> forward_links(const Lane& l) {
  std::vector<LaneId> out = l.successors;
  if (l.left_neighbour != kNoLane) out.push_back(l.left_neighbour);
  if (l.right_neighbour != kNoLane) out.push_back(l.right_neighbour);
  return out;
}
inline std::vector<LaneId> backward_links(const Lane& l) {
  std::vector<LaneId> out = l.predecessors;
  if (l.left_neighbour != kNoLane) out.push_back(l.left_neighbour);
  if (l.right_neighbour != kNoLane) out.push_back(l.right_neighbour);
  return out;
}

/// Share of vehicle lanes in the largest strongly connected component (Kosaraju), counting
/// lane changes between neighbouring lanes of a section.
inline double largest_scc_share(const LaneGraph& g) {
  const std::size_t n = g.lanes.size();
  auto vehicle = [&](LaneId id) { return (g.lanes[id].tags & kVehicle) != 0U; };
  std::vector<char> seen(n, 0);
  std::vector<LaneId> order;
  for (LaneId s = 0; s < n; ++s) {
    if (!vehicle(s) || seen[s]) continue;
    std::vector<std::pair<LaneId, std::size_t>> stack{{s, 0}};
    seen[s] = 1;
    while (!stack.empty()) {
      auto& [v, k] = stack.back();
      const auto succ = forward_links(g.lanes[v]);
      if (k < succ.size()) {
        const LaneId w = succ[k++];
        if (vehicle(w) && !seen[w]) {
          seen[w] = 1;
          stack.push_back({w, 0});
        }
      } else {
        order.push_back(v);
        stack.pop_back();
      }
    }
  }
  std::vector<std::int64_t> comp(n, -1);
  std::size_t best = 0;
  std::size_t total = 0;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    if (comp[*it] >= 0) continue;
    std::size_t size = 0;
    std::vector<LaneId> stack{*it};
    comp[*it] = *it;
    while (!stack.empty()) {
      const LaneId v = stack.back();
      stack.pop_back();
      ++size;
      for (LaneId w : backward_links(g.lanes[v])) {
        if (vehicle(w) && comp[w] < 0) {
          comp[w] = *it;
          stack.push_back(w);
        }
      }
    }
    best = std::max(best, size);
    total += size;
  }
  return total == 0 ? 0.0 : static_cast<double>(best) / static_cast<double>(total);
}

struct Counts {
  std::size_t vehicle = 0, connectors = 0, sidewalks = 0, crosswalks = 0, yields = 0;
};

inline Counts count(const LaneGraph& g) {
  Counts c;
  for (const Lane& l : g.lanes) {
    if ((l.tags & kVehicle) && !(l.tags & kIntersection)) ++c.vehicle;
    if (l.tags & kIntersection) ++c.connectors;
    if (l.tags & kSidewalk) ++c.sidewalks;
    if (l.tags & kCrosswalk) ++c.crosswalks;
    if (l.tags & kYield) ++c.yields;
  }
  return c;
}

/// Every invariant of the acceptance criteria; `name` labels failures.
inline void check_graph(const layout::Output& city, const Output& geo, const LaneGraph& g,
                        const std::string& name, bool expect_signals) {
  SCOPED_TRACE(name);
  ASSERT_FALSE(g.lanes.empty());
  // 1. Ids, links sorted and consistent, lengths.
  for (std::size_t i = 0; i < g.lanes.size(); ++i) {
    const Lane& l = g.lanes[i];
    ASSERT_EQ(l.id, i);
    EXPECT_TRUE(std::is_sorted(l.successors.begin(), l.successors.end()));
    EXPECT_TRUE(std::is_sorted(l.predecessors.begin(), l.predecessors.end()));
    EXPECT_GT(l.length_m, 0.0);
    ASSERT_GE(l.points.size(), 2U);
    if (l.tags & kVehicle) {
      EXPECT_FALSE(l.successors.empty()) << "lane " << i << " is a dead end";
      for (LaneId s : l.successors) {
        const auto& p = g.lanes[s].predecessors;
        EXPECT_TRUE(std::binary_search(p.begin(), p.end(), l.id));
        EXPECT_LT(distance(xy(l.points.back()), xy(g.lanes[s].points.front())), 0.01)
            << "lane " << i << " -> " << s;
      }
    } else {
      for (LaneId s : l.successors) {
        const Lane& o = g.lanes[s];
        const double d = std::min(distance(xy(l.points.back()), xy(o.points.front())),
                                  distance(xy(l.points.back()), xy(o.points.back())));
        EXPECT_LT(d, 0.01) << "walk " << i << " -> " << s;
      }
    }
  }
  // 2. Connectors: position within 1 cm and tangent within 2 degrees at both ends.
  for (const Lane& c : g.lanes) {
    if (!(c.tags & kIntersection)) continue;
    ASSERT_EQ(c.predecessors.size(), 1U);
    ASSERT_EQ(c.successors.size(), 1U);
    const Lane& in = g.lanes[c.predecessors[0]];
    const Lane& out = g.lanes[c.successors[0]];
    EXPECT_LT(distance(xy(in.points.back()), xy(c.points.front())), 0.01);
    EXPECT_LT(distance(xy(c.points.back()), xy(out.points.front())), 0.01);
    const std::size_t n = c.points.size();
    const std::size_t m = in.points.size();
    EXPECT_LT(
        angle_deg(xy(in.points[m - 1]) - xy(in.points[m - 2]), xy(c.points[1]) - xy(c.points[0])),
        2.0)
        << "connector " << c.id;
    EXPECT_LT(
        angle_deg(xy(c.points[n - 1]) - xy(c.points[n - 2]), xy(out.points[1]) - xy(out.points[0])),
        2.0)
        << "connector " << c.id;
  }
  // 3. One strongly connected component.
  EXPECT_GE(largest_scc_share(g), 0.99);
  // 4. Pedestrian network: one connected component.
  {
    std::vector<int> comp(g.lanes.size(), -1);
    int comps = 0;
    for (const Lane& l : g.lanes) {
      if ((l.tags & kVehicle) || comp[l.id] >= 0) continue;
      ++comps;
      std::vector<LaneId> stack{l.id};
      comp[l.id] = comps;
      while (!stack.empty()) {
        const LaneId v = stack.back();
        stack.pop_back();
        for (const auto* list : {&g.lanes[v].successors, &g.lanes[v].predecessors}) {
          for (LaneId w : *list) {
            if (comp[w] < 0) {
              comp[w] = comps;
              stack.push_back(w);
            }
          }
        }
      }
    }
    EXPECT_EQ(comps, 1);
  }
  // 5. Signals.
  EXPECT_EQ(!g.signals.empty(), expect_signals);
  for (const SignalPlan& plan : g.signals) {
    SCOPED_TRACE("signal at intersection " + std::to_string(plan.intersection));
    EXPECT_GE(plan.phases.size(), 2U);
    EXPECT_GT(plan.cycle_s(), 0.0);
    std::vector<LaneId> greened;
    for (const Phase& ph : plan.phases) {
      EXPECT_GT(ph.yellow_s, 0.0);
      greened.insert(greened.end(), ph.green.begin(), ph.green.end());
      for (std::size_t a = 0; a < ph.green.size(); ++a) {
        const Lane& la = g.lanes[ph.green[a]];
        for (std::size_t b = a + 1; b < ph.green.size(); ++b) {
          const Lane& lb = g.lanes[ph.green[b]];
          if ((la.tags & kYield) || (lb.tags & kYield)) continue;
          EXPECT_FALSE(paths_cross(la.points, lb.points))
              << "green " << la.id << " crosses green " << lb.id;
        }
        if (la.tags & kYield) continue;
        const auto path = movement_path(g, la);
        for (LaneId w : ph.walk) {
          EXPECT_FALSE(paths_cross(path, g.lanes[w].points))
              << "green " << la.id << " crosses walking crosswalk " << w;
        }
      }
    }
    // Every connector of the junction gets green in some phase.
    std::sort(greened.begin(), greened.end());
    for (const Lane& l : g.lanes) {
      if (l.intersection == static_cast<std::int32_t>(plan.intersection) &&
          (l.tags & kIntersection)) {
        EXPECT_TRUE(std::binary_search(greened.begin(), greened.end(), l.id)) << l.id;
      }
    }
  }
  (void)city;
  (void)geo;
}

}  // namespace cityforge::roads::test
