// SPDX-License-Identifier: Apache-2.0
// Hand-built traffic::Network values for tests: a builder that fills every per-lane array and
// CSR table the way build_network documents them, and a Manhattan grid on top of it. Tests use
// these instead of build_network so they do not depend on the lane graph importer.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "cityforge/core/vec.hpp"
#include "cityforge/roads/roads.hpp"
#include "cityforge/traffic/network.hpp"

namespace cityforge::traffic::testing {

/// Collects lanes and links, then fills a Network (finish()).
class NetBuilder {
 public:
  struct LaneSpec {
    std::vector<Vec3> points;
    float speed_limit_mps = 13.9f;
    std::uint32_t tags = roads::kVehicle;
    std::int32_t intersection = -1;
    roads::Turn turn = roads::Turn::none;
    float traffic_density = 0.5f;
    LaneId left = kNoLane;
    LaneId right = kNoLane;
  };

  /// A lane along `points` (>= 2). Returns its id (ids are dense, in call order).
  LaneId add_lane(std::vector<Vec3> points, float speed_limit_mps = 13.9f,
                  std::uint32_t tags = roads::kVehicle, std::int32_t intersection = -1,
                  roads::Turn turn = roads::Turn::none) {
    LaneSpec s;
    s.points = std::move(points);
    s.speed_limit_mps = speed_limit_mps;
    s.tags = tags;
    s.intersection = intersection;
    s.turn = turn;
    m_lanes.push_back(std::move(s));
    return static_cast<LaneId>(m_lanes.size() - 1);
  }
  /// A straight two-point lane from a to b.
  LaneId add_straight(Vec3 a, Vec3 b, float speed_limit_mps = 13.9f,
                      std::uint32_t tags = roads::kVehicle) {
    return add_lane({a, b}, speed_limit_mps, tags);
  }
  /// `to` is a successor of `from` (and `from` a predecessor of `to`).
  void link(LaneId from, LaneId to) { m_links.emplace_back(from, to); }
  /// `left_lane` is the left neighbour of `right_lane` and `right_lane` its right neighbour.
  void neighbours(LaneId left_lane, LaneId right_lane) {
    m_lanes[right_lane].left = left_lane;
    m_lanes[left_lane].right = right_lane;
  }
  LaneSpec& lane(LaneId id) { return m_lanes[id]; }
  std::uint32_t lane_count() const { return static_cast<std::uint32_t>(m_lanes.size()); }
  /// Junction controls, one per intersection index used (default: none).
  void set_controls(std::vector<roads::Control> controls) { m_controls = std::move(controls); }

  /// Fills every array of the Network: per-lane values, sorted CSR successor / predecessor
  /// lists, geometry with 3D arc lengths, per-junction connector lists, empty conflict and
  /// crosswalk tables, no signals, merges and spawn lanes derived as network.hpp describes.
  Network finish() const {
    Network net;
    const auto n = static_cast<std::uint32_t>(m_lanes.size());
    // 1. Per lane values and geometry.
    net.point_begin.push_back(0);
    std::int32_t max_junction = -1;
    for (const LaneSpec& s : m_lanes) {
      double len = 0.0;
      for (std::size_t i = 0; i < s.points.size(); ++i) {
        if (i > 0) {
          len += length(s.points[i] - s.points[i - 1]);
        }
        net.points.push_back(s.points[i]);
        net.point_s.push_back(static_cast<float>(len));
      }
      net.point_begin.push_back(static_cast<std::uint32_t>(net.points.size()));
      net.length_m.push_back(static_cast<float>(len));
      net.speed_limit_mps.push_back(s.speed_limit_mps);
      net.tags.push_back(s.tags);
      net.intersection.push_back(s.intersection);
      net.left.push_back(s.left);
      net.right.push_back(s.right);
      net.traffic_density.push_back(s.traffic_density);
      net.turn.push_back(s.turn);
      max_junction = std::max(max_junction, s.intersection);
    }
    // 2. CSR successor / predecessor lists, sorted and without duplicates.
    std::vector<std::vector<LaneId>> succ(n);
    std::vector<std::vector<LaneId>> pred(n);
    for (const auto& [a, b] : m_links) {
      succ[a].push_back(b);
      pred[b].push_back(a);
    }
    auto flatten = [](std::vector<std::vector<LaneId>>& lists, std::vector<std::uint32_t>& begin,
                      std::vector<LaneId>& flat) {
      begin.assign(1, 0);
      for (auto& l : lists) {
        std::sort(l.begin(), l.end());
        l.erase(std::unique(l.begin(), l.end()), l.end());
        flat.insert(flat.end(), l.begin(), l.end());
        begin.push_back(static_cast<std::uint32_t>(flat.size()));
      }
    };
    flatten(succ, net.succ_begin, net.succ);
    flatten(pred, net.pred_begin, net.pred);
    // 3. Junctions: controls and their vehicle connectors; no conflicts, crosswalks or signals.
    const auto junctions = static_cast<std::uint32_t>(max_junction + 1);
    net.control = m_controls;
    net.control.resize(std::max<std::size_t>(junctions, m_controls.size()), roads::Control::none);
    std::vector<std::vector<LaneId>> conn(net.control.size());
    for (LaneId l = 0; l < n; ++l) {
      const std::uint32_t t = m_lanes[l].tags;
      if ((t & roads::kVehicle) != 0U && (t & roads::kIntersection) != 0U &&
          m_lanes[l].intersection >= 0) {
        conn[static_cast<std::size_t>(m_lanes[l].intersection)].push_back(l);
      }
    }
    flatten(conn, net.connector_begin, net.connectors);
    net.conflict_begin.assign(n + 1, 0);
    net.crosswalk_begin.assign(n + 1, 0);
    net.signal_of.assign(net.control.size(), -1);
    // 4. Merges and spawn lanes.
    net.merge.assign(n, 0);
    for (LaneId l = 0; l < n; ++l) {
      const bool connector = (m_lanes[l].tags & roads::kIntersection) != 0U;
      std::uint32_t plain_preds = 0;
      for (LaneId p : pred[l]) {
        plain_preds += (m_lanes[p].tags & roads::kIntersection) == 0U ? 1U : 0U;
      }
      net.merge[l] = (!connector && plain_preds >= 1 && pred[l].size() >= 2) ? 1 : 0;
      const std::uint32_t t = m_lanes[l].tags;
      if ((t & roads::kVehicle) != 0U && (t & (roads::kIntersection | roads::kRamp)) == 0U) {
        net.spawn_lanes.push_back(l);
      }
    }
    return net;
  }

 private:
  std::vector<LaneSpec> m_lanes;
  std::vector<std::pair<LaneId, LaneId>> m_links;
  std::vector<roads::Control> m_controls;
};

/// A Manhattan grid of two-way streets: nx * ny junctions block_m apart, `lanes` lanes per
/// direction (lane_width_m apart, right-hand traffic), section lanes trimmed junction_m at
/// each end, and straight connectors at every junction: through lane k -> lane k, right turns
/// from the curb lane to the curb lane, left turns from the innermost lane to the innermost
/// lane. No u-turns.
struct GridSpec {
  int nx = 4;
  int ny = 4;
  double block_m = 100.0;
  int lanes = 1;
  double lane_width_m = 3.5;
  double junction_m = 10.0;
  float speed_mps = 13.9f;
};

struct Grid {
  Network net;
  GridSpec spec;
  /// (from junction, to junction, lane index 0 = curb) -> section lane.
  std::map<std::tuple<int, int, int>, LaneId> street;
  int node(int i, int j) const { return j * spec.nx + i; }
  /// Section lane from junction (i0, j0) to the adjacent junction (i1, j1), lane index k.
  LaneId lane(int i0, int j0, int i1, int j1, int k = 0) const {
    const auto it = street.find({node(i0, j0), node(i1, j1), k});
    return it == street.end() ? kNoLane : it->second;
  }
};

inline Grid make_grid(const GridSpec& spec) {
  Grid g;
  g.spec = spec;
  NetBuilder b;
  auto pos = [&](int node) {
    return Vec3{(node % spec.nx) * spec.block_m, (node / spec.nx) * spec.block_m, 0.0};
  };
  // 1. Section lanes, both directions of every street, with neighbours.
  std::vector<std::vector<std::pair<int, int>>> out(static_cast<std::size_t>(spec.nx * spec.ny));
  for (int j = 0; j < spec.ny; ++j) {
    for (int i = 0; i < spec.nx; ++i) {
      const int a = g.node(i, j);
      const int nbr[2] = {i + 1 < spec.nx ? g.node(i + 1, j) : -1,
                          j + 1 < spec.ny ? g.node(i, j + 1) : -1};
      for (int bnode : nbr) {
        if (bnode < 0) {
          continue;
        }
        for (const auto& [from, to] : {std::pair{a, bnode}, std::pair{bnode, a}}) {
          const Vec3 p0 = pos(from);
          const Vec3 p1 = pos(to);
          const Vec3 dir = normalize(p1 - p0);
          const Vec3 right{dir.y, -dir.x, 0.0};
          LaneId prev = kNoLane;
          for (int k = 0; k < spec.lanes; ++k) {
            const double off = (spec.lanes - k - 0.5) * spec.lane_width_m;
            const Vec3 s = p0 + dir * spec.junction_m + right * off;
            const Vec3 e = p1 - dir * spec.junction_m + right * off;
            const LaneId id = b.add_straight(s, e, spec.speed_mps);
            g.street[{from, to, k}] = id;
            if (prev != kNoLane) {
              b.neighbours(id, prev);
            }
            prev = id;
          }
          out[static_cast<std::size_t>(from)].emplace_back(from, to);
        }
      }
    }
  }
  // 2. Connectors: every incoming street to every outgoing street of the junction.
  for (int node = 0; node < spec.nx * spec.ny; ++node) {
    // Streets are two-way: every street leaving the junction also arrives at it.
    const auto& legs = out[static_cast<std::size_t>(node)];
    for (const auto& in_leg : legs) {
      const int in_from = in_leg.second;
      for (const auto& out_leg : legs) {
        const int out_to = out_leg.second;
        if (out_to == in_from) {
          continue;  // no u-turns
        }
        const Vec3 din = normalize(pos(node) - pos(in_from));
        const Vec3 dout = normalize(pos(out_to) - pos(node));
        const double c = din.x * dout.y - din.y * dout.x;
        const roads::Turn turn = std::abs(c) < 1e-9 ? roads::Turn::through
                                 : c > 0.0          ? roads::Turn::left
                                                    : roads::Turn::right;
        std::vector<std::pair<int, int>> pairs;
        if (turn == roads::Turn::through) {
          for (int k = 0; k < spec.lanes; ++k) {
            pairs.emplace_back(k, k);
          }
        } else if (turn == roads::Turn::right) {
          pairs.emplace_back(0, 0);
        } else {
          pairs.emplace_back(spec.lanes - 1, spec.lanes - 1);
        }
        for (const auto& [kin, kout] : pairs) {
          const LaneId lin = g.street[{in_from, node, kin}];
          const LaneId lout = g.street[{node, out_to, kout}];
          const Vec3 s = b.lane(lin).points.back();
          const Vec3 e = b.lane(lout).points.front();
          const LaneId id = b.add_lane({s, e}, spec.speed_mps,
                                       roads::kVehicle | roads::kIntersection, node, turn);
          b.link(lin, id);
          b.link(id, lout);
        }
      }
    }
  }
  b.set_controls(std::vector<roads::Control>(static_cast<std::size_t>(spec.nx * spec.ny),
                                             roads::Control::none));
  g.net = b.finish();
  return g;
}

}  // namespace cityforge::traffic::testing
