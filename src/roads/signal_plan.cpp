// SPDX-License-Identifier: Apache-2.0
// Fixed-time signal plans: legs are paired into axes by opposite directions; each axis gets a
// phase for its through and right movements (lefts permissive, tagged kYield), artery-artery
// crossings get a protected left phase per axis first. Conflicts are checked on the connector
// geometry: a movement that crosses a green non-yield movement either yields (turns) or moves
// to an extra phase (through movements). Pedestrians walk across the legs outside the axis,
// with turns across them tagged kYield.
// Based on: FHWA Traffic Signal Timing Manual (2008), ch. 4-5 (phasing, clearance intervals).
#include <algorithm>

#include "roads/detail/lanes.hpp"

namespace cityforge::roads::detail {
namespace {

struct PhaseBuild {
  std::vector<std::uint32_t> axis_legs;  ///< Legs whose crosswalks stay closed (empty: none).
  bool walk = false;                     ///< Whether pedestrians may cross other legs.
  std::vector<const Movement*> movements;
};

bool conflicts(LaneId c, const std::vector<LaneId>& green, const std::vector<Lane>& lanes) {
  for (LaneId g : green) {
    if ((lanes[g].tags & kYield) != 0U) continue;
    if (lanes_cross(lanes[c].points, lanes[g].points)) return true;
  }
  return false;
}

/// The path a movement's vehicles take near the junction: the last metres of the incoming
/// lane, the connector, the first metres of the outgoing lane (across both crosswalks).
std::vector<Vec3> approach_path(const std::vector<Lane>& lanes, const Lane& c) {
  constexpr double kApproachM = 10.0;
  std::vector<Vec3> path;
  if (!c.predecessors.empty()) {
    const auto& in = lanes[c.predecessors[0]].points;
    std::size_t first = in.size() - 1;
    for (double acc = 0.0; first > 0 && acc < kApproachM; --first) {
      acc += length(in[first] - in[first - 1]);
    }
    path.insert(path.end(), in.begin() + static_cast<std::ptrdiff_t>(first), in.end() - 1);
  }
  path.insert(path.end(), c.points.begin(), c.points.end());
  if (!c.successors.empty()) {
    const auto& out = lanes[c.successors[0]].points;
    double acc = 0.0;
    for (std::size_t i = 1; i < out.size() && acc < kApproachM; ++i) {
      acc += length(out[i] - out[i - 1]);
      path.push_back(out[i]);
    }
  }
  return path;
}

int turn_rank(Turn t) { return t == Turn::through ? 0 : t == Turn::right ? 1 : 2; }

}  // namespace

SignalPlan build_signal_plan(std::uint32_t index, const Intersection& junction,
                             const JunctionLanes& jl, const layout::Output& city,
                             const Config& config, std::vector<Lane>& lanes) {
  const std::size_t nl = junction.legs.size();
  const auto& edges = city.network.edges;
  // 1. Axes: pair the most opposite legs first (> ~135 degrees apart); the rest stand alone.
  struct Pair {
    double dot;
    std::uint32_t a, b;
  };
  std::vector<Pair> cands;
  for (std::uint32_t a = 0; a < nl; ++a) {
    for (std::uint32_t b = a + 1; b < nl; ++b) {
      const double d = dot(junction.legs[a].direction, junction.legs[b].direction);
      if (d < -0.7) cands.push_back({d, a, b});
    }
  }
  std::sort(cands.begin(), cands.end(), [](const Pair& x, const Pair& y) {
    return x.dot != y.dot ? x.dot < y.dot : std::pair(x.a, x.b) < std::pair(y.a, y.b);
  });
  std::vector<std::int32_t> axis_of(nl, -1);
  std::vector<std::vector<std::uint32_t>> axes;
  for (const Pair& p : cands) {
    if (axis_of[p.a] >= 0 || axis_of[p.b] >= 0) continue;
    axis_of[p.a] = axis_of[p.b] = static_cast<std::int32_t>(axes.size());
    axes.push_back({p.a, p.b});
  }
  for (std::uint32_t a = 0; a < nl; ++a) {
    if (axis_of[a] < 0) {
      axis_of[a] = static_cast<std::int32_t>(axes.size());
      axes.push_back({a});
    }
  }
  std::sort(axes.begin(), axes.end());
  for (std::size_t k = 0; k < axes.size(); ++k) {
    for (std::uint32_t l : axes[k])
      axis_of[l] = static_cast<std::int32_t>(k);
  }
  // 2. Protected lefts where two axes carry an artery.
  std::size_t artery_axes = 0;
  for (const auto& axis : axes) {
    const bool artery = std::any_of(axis.begin(), axis.end(), [&](std::uint32_t l) {
      return edges[junction.legs[l].edge].road_class == layout::RoadClass::artery;
    });
    if (artery) ++artery_axes;
  }
  const bool protected_lefts = artery_axes >= 2;
  std::vector<PhaseBuild> builds;
  for (const auto& axis : axes) {
    PhaseBuild left{axis, false, {}};
    PhaseBuild main{axis, true, {}};
    for (const Movement& mv : jl.movements) {
      if (axis_of[mv.from_leg] != axis_of[axis[0]]) continue;
      (protected_lefts && mv.turn == Turn::left ? left : main).movements.push_back(&mv);
    }
    if (!left.movements.empty()) builds.push_back(std::move(left));
    if (!main.movements.empty()) builds.push_back(std::move(main));
  }
  // 3. Greens: throughs first, then rights, then lefts; conflicting turns yield, conflicting
  // throughs wait for an extra phase.
  std::vector<std::vector<LaneId>> greens(builds.size());
  std::vector<LaneId> deferred;
  for (std::size_t p = 0; p < builds.size(); ++p) {
    auto mvs = builds[p].movements;
    std::stable_sort(mvs.begin(), mvs.end(), [](const Movement* x, const Movement* y) {
      return turn_rank(x->turn) < turn_rank(y->turn);
    });
    for (const Movement* mv : mvs) {
      for (LaneId c : mv->connectors) {
        if (mv->turn == Turn::left && builds[p].walk) {
          lanes[c].tags |= kYield;  // Permissive left beside the opposing through traffic.
        } else if (conflicts(c, greens[p], lanes)) {
          if (mv->turn == Turn::through) {
            deferred.push_back(c);
            continue;
          }
          lanes[c].tags |= kYield;
        }
        greens[p].push_back(c);
      }
    }
  }
  std::sort(deferred.begin(), deferred.end());
  for (LaneId c : deferred) {
    std::size_t p = builds.size();
    for (std::size_t q = 0; q < builds.size(); ++q) {
      if (builds[q].axis_legs.empty() && !conflicts(c, greens[q], lanes)) {
        p = q;
        break;
      }
    }
    if (p == builds.size()) {
      builds.push_back(PhaseBuild{});
      greens.emplace_back();
    }
    greens[p].push_back(c);
  }
  // 4. Walk: crosswalks of legs outside the phase's axis; turns across them yield, a green
  // through movement across one keeps it closed.
  SignalPlan plan;
  plan.intersection = index;
  for (std::size_t p = 0; p < builds.size(); ++p) {
    Phase phase;
    phase.green = greens[p];
    std::sort(phase.green.begin(), phase.green.end());
    double density = 0.0;
    for (LaneId c : phase.green)
      density = std::max(density, lanes[c].traffic_density);
    if (builds[p].walk) {
      for (std::uint32_t l = 0; l < nl; ++l) {
        const LaneId cw = jl.crosswalks[l];
        const auto& axis = builds[p].axis_legs;
        if (cw == kNoLane || std::find(axis.begin(), axis.end(), l) != axis.end()) continue;
        bool blocked = false;
        std::vector<LaneId> crossing;
        for (const Movement& mv : jl.movements) {
          for (LaneId c : mv.connectors) {
            if (!std::binary_search(phase.green.begin(), phase.green.end(), c)) continue;
            const bool touches = mv.from_leg == l || mv.to_leg == l ||
                                 lanes_cross(approach_path(lanes, lanes[c]), lanes[cw].points);
            if (!touches) continue;
            if (mv.turn == Turn::through) blocked = true;
            crossing.push_back(c);
          }
        }
        if (blocked) continue;
        for (LaneId c : crossing)
          lanes[c].tags |= kYield;
        phase.walk.push_back(cw);
      }
    }
    phase.green_s = config.min_green_s * (1.0 + density);
    if (!phase.walk.empty()) phase.green_s = std::max(phase.green_s, config.pedestrian_walk_s);
    phase.yellow_s = config.yellow_s;
    phase.all_red_s = config.all_red_s;
    plan.phases.push_back(std::move(phase));
  }
  return plan;
}

}  // namespace cityforge::roads::detail
