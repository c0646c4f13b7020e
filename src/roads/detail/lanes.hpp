// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "cityforge/core/vec.hpp"
#include "cityforge/roads/lanes.hpp"
#include "cityforge/roads/roads.hpp"

/// Private helpers of the lane graph: crossing tests and signal plans (the connector curves are
/// public: cityforge/roads/lanes.hpp).
namespace cityforge::roads::detail {

/// Whether two lane polylines cross in the plane. Touching at an end point that both lines
/// share (a diverge or a merge, within 5 cm) does not count.
bool lanes_cross(const std::vector<Vec3>& a, const std::vector<Vec3>& b);

/// One movement of a junction: the connectors from one leg to another.
struct Movement {
  std::uint32_t from_leg = 0;
  std::uint32_t to_leg = 0;
  Turn turn = Turn::none;
  std::vector<LaneId> connectors;  ///< Ascending.
};

/// What the signal planner needs to know about a junction's lanes.
struct JunctionLanes {
  std::vector<Movement> movements;  ///< By from leg, then to leg.
  std::vector<LaneId> crosswalks;   ///< Per leg; kNoLane where the leg has none.
};

/// The fixed-time plan of a signalised junction: one phase per axis (opposite legs paired),
/// protected left phases at artery-artery crossings, permissive lefts and right turns across a
/// walking crosswalk tagged kYield in `lanes`, extra phases for movements that conflict with
/// every axis phase. Deterministic.
SignalPlan build_signal_plan(std::uint32_t index, const Intersection& junction,
                             const JunctionLanes& jl, const layout::Output& city,
                             const Config& config, std::vector<Lane>& lanes);

/// Signalised junctions joined by links too short to queue in (under 15 m) share one cycle,
/// and their offsets give every path through such a link a window where both movements are
/// green. Deterministic.
void coordinate_signal_plans(std::vector<SignalPlan>& plans, const std::vector<Lane>& lanes);

}  // namespace cityforge::roads::detail

namespace cityforge::roads::detail {

/// A lane point in plan (its height dropped).
inline Vec2 plan_xy(Vec3 p) { return {p.x, p.y}; }

/// Whether an edge has as many lanes each way (every generated road): its lanes keep the
/// symmetric layout, width / (2 n) each, mirrored about the centre line.
inline bool symmetric_lanes(const layout::RoadEdge& e) {
  return e.lanes_backward < 0 || e.lanes_backward == e.lanes_per_direction;
}
/// Lanes along from -> to (>= 1) and against it (0 on one-way edges).
inline int lanes_forward(const layout::RoadEdge& e) { return std::max(1, e.lanes_per_direction); }
inline int lanes_backward(const layout::RoadEdge& e) {
  return symmetric_lanes(e) ? lanes_forward(e) : std::max(0, e.lanes_backward);
}
/// Width of each driving lane: the carriageway shared by all lanes of both directions.
inline double lane_width(const layout::RoadEdge& e) {
  if (symmetric_lanes(e)) return e.width_m / (2.0 * lanes_forward(e));
  return e.width_m / (lanes_forward(e) + lanes_backward(e));
}
/// Lateral position (left of the from -> to centre line positive) of the middle of driving
/// lane `index` (0 = curb lane) of one direction. Forward lanes lie right of the divider,
/// backward lanes left of it; one-way edges fill the carriageway.
inline double lane_lateral(const layout::RoadEdge& e, bool forward, int index) {
  const double w = lane_width(e);
  if (symmetric_lanes(e)) {
    const double off = (lanes_forward(e) - 1 - index + 0.5) * w;
    return forward ? -off : off;
  }
  const double half = 0.5 * e.width_m;
  return forward ? -half + (index + 0.5) * w : half - (index + 0.5) * w;
}
/// Lateral position of the line between the two directions (0 for symmetric edges; the left
/// curb for one-way edges).
inline double divider_lateral(const layout::RoadEdge& e) {
  if (symmetric_lanes(e)) return 0.0;
  return 0.5 * e.width_m - lanes_backward(e) * lane_width(e);
}

}  // namespace cityforge::roads::detail
