// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <vector>

#include "cityforge/core/vec.hpp"
#include "cityforge/roads/roads.hpp"

/// Private helpers of the lane graph: connector curves and signal plans.
namespace cityforge::roads::detail {

/// A cubic Bezier from p0 (leaving along unit tangent t0) to p3 (arriving along unit tangent
/// t3), control points handle_m along the tangents. Sampled at most spacing_m apart in arc
/// length, plus one sample very close to each end so the polyline's end segments follow the
/// tangents within 0.25 degrees. z is interpolated linearly between the ends.
std::vector<Vec3> bezier_connector(Vec3 p0, Vec2 t0, Vec3 p3, Vec2 t3, double handle_m,
                                   double spacing_m);

/// Length of a 3D polyline in metres.
double polyline3_length(const std::vector<Vec3>& points);

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
