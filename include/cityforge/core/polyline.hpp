// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <vector>

#include "cityforge/core/vec.hpp"

namespace cityforge {

/// An open chain of points in metres. Consecutive duplicates are allowed as input and removed
/// by the functions that need distinct points.
using Polyline = std::vector<Vec2>;

/// Total length in metres (0 for fewer than 2 points).
double polyline_length(const Polyline& line);

/// Point at arc length s from the start, clamped to [0, length].
Vec2 polyline_point_at(const Polyline& line, double s);

/// Unit tangent at arc length s (direction of the segment containing s).
Vec2 polyline_tangent_at(const Polyline& line, double s);

/// Points spaced evenly along the line, at most spacing_m apart; keeps both end points.
/// [Limit: spacing_m > 0]
Polyline polyline_resample(const Polyline& line, double spacing_m);

/// The line offset sideways by distance_m (positive = left of the direction of travel), with
/// mitred joins limited to 4x the distance at sharp turns. Same point count as the input after
/// removing consecutive duplicates.
Polyline polyline_offset(const Polyline& line, double distance_m);

/// Douglas-Peucker simplification with tolerance tolerance_m; keeps both end points.
Polyline polyline_simplify(const Polyline& line, double tolerance_m);

/// Chaikin corner cutting, `iterations` times; keeps both end points.
Polyline polyline_smooth(const Polyline& line, int iterations);

/// Shortest distance from p to the line (infinite for an empty line).
double polyline_distance(const Polyline& line, Vec2 p);

/// Removes consecutive points closer than eps_m.
Polyline polyline_dedupe(const Polyline& line, double eps_m = 1e-9);

/// Shortest distance from p to segment ab.
double segment_distance(Vec2 a, Vec2 b, Vec2 p);

/// Whether segments ab and cd intersect (touching counts); if so and they are not collinear,
/// writes the intersection point. Collinear overlapping segments return true with *out = the
/// overlap's point closest to a.
bool segment_intersection(Vec2 a, Vec2 b, Vec2 c, Vec2 d, Vec2* out);

}  // namespace cityforge
