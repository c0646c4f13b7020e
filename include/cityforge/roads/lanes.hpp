// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <vector>

#include "cityforge/core/vec.hpp"

/// Lane geometry shared by every stage that builds lanes (the junction connectors of the roads
/// stage, the freeway's lanes and ramps).
namespace cityforge::roads {

/// A cubic Bezier from p0 (leaving along unit tangent t0) to p3 (arriving along unit tangent
/// t3), control points handle_m along the tangents. Sampled at most spacing_m apart in arc
/// length, plus one sample very close to each end so the polyline's end segments follow the
/// tangents within 0.25 degrees. z is interpolated linearly between the ends. Deterministic.
std::vector<Vec3> bezier_connector(Vec3 p0, Vec2 t0, Vec3 p3, Vec2 t3, double handle_m,
                                   double spacing_m);

/// Length of a 3D polyline in metres.
double polyline3_length(const std::vector<Vec3>& points);

}  // namespace cityforge::roads
