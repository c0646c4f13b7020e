// SPDX-License-Identifier: Apache-2.0
// Rounded corners of polylines: the arcs that round a road's centre line, shared by the roads
// stage (which samples them) and the OpenDRIVE writer (which writes them as arcs), so lanes,
// meshes and the map follow one curve.
#pragma once

#include <vector>

#include "cityforge/core/polyline.hpp"
#include "cityforge/core/vec.hpp"

namespace cityforge {

/// The corners of `line` (consecutive duplicates dropped): its ends and the ends of its runs of
/// points that all lie within 1 mm of one chord.
Polyline polyline_corners(const Polyline& line);

/// The rounding of the corner before -> node -> after by an arc tangent to both lines: where it
/// leaves the first line (a), its middle (m), where it meets the second (b), the headings at a
/// and m, its signed curvature (positive turns left) and the length of each half. Its tangent
/// length r * tan(theta / 2) is capped at half of either line, which shrinks the radius.
/// ok = false for r <= 0, a straight corner or no room: the corner stays sharp.
struct CornerFillet {
  Vec2 a, m, b;
  double hdg_a = 0.0;
  double hdg_m = 0.0;
  double curvature = 0.0;
  double half_length = 0.0;
  bool ok = false;
};
CornerFillet corner_fillet(Vec2 before, Vec2 node, Vec2 after, double r);

/// The same rounding with tangent length `tangent_m` (radius tangent_m / tan(theta / 2)), which
/// the caller keeps within both lines.
CornerFillet fillet_with_tangent(Vec2 before, Vec2 node, Vec2 after, double tangent_m);

/// Point on the arc of `f` at arc length u from a (0 <= u <= 2 half_length).
Vec2 fillet_point(const CornerFillet& f, double u);

/// A line's end shared with the next line at a bend without a junction: the corner between the
/// two is rounded like an inner corner and the rounding cut at its middle, each line taking its
/// half, so both end at the same point with the same heading. `node` is the shared end point,
/// `other` the other line's corner next to it (polyline_corners), `radius_m` the same on both
/// sides.
struct CornerJoin {
  bool present = false;
  Vec2 node;
  Vec2 other;
  double radius_m = 0.0;
};

/// The roundings of a line of `corners` (polyline_corners): [0] the start join's, [1, n - 2]
/// the inner corners' with radius `radius_m`, [n - 1] the end join's (ok = false where there
/// is none). A join takes at most half of either line next to it (corner_fillet), the same
/// seen from both lines. An inner corner takes what it needs, r tan(theta / 2), of each line
/// next to it, and where that is not there, what its neighbour at the other end of the line
/// leaves: at least half, or all but what the neighbour needs when that is less (less than
/// the join's share at a joined end), so neighbouring arcs never overlap.
std::vector<CornerFillet> line_fillets(const Polyline& corners, double radius_m,
                                       const CornerJoin& start = {}, const CornerJoin& end = {});

/// `corners` without the inner corners whose rounding (line_fillets, no joins) would be
/// tighter than radius reach_m, so that a lane border up to reach_m from the line would loop
/// inside the corner, where dropping the corner moves the line by at most max_shift_m (its
/// distance from the chord of its neighbours); the corner moving the line least first, until
/// none is left. Corners tighter than that stay (line_fillets rounds them as it can).
Polyline corners_for_rounding(const Polyline& corners, double radius_m, double reach_m,
                              double max_shift_m);

/// Largest distance (metres) of a chord of a sampled rounding from its arc, at the radius of
/// the arc plus the rounding radius (the outermost border offset from the line).
inline constexpr double kFilletChordErrorM = 0.003;

/// `corners` (polyline_corners) with every inner corner rounded with radius `radius_m`
/// (corner_fillet) and the ends joined by `start` and `end`, the arcs sampled so that chords
/// at offsets up to radius_m depart from the arcs by at most kFilletChordErrorM. Lines
/// between the arcs are kept as single segments. Fewer than 2 corners: returned as is.
Polyline round_corners(const Polyline& corners, double radius_m, const CornerJoin& start = {},
                       const CornerJoin& end = {});

/// `line` with every segment longer than max_spacing_m split evenly; keeps every point.
/// [Limit: max_spacing_m > 0]
Polyline polyline_densify(const Polyline& line, double max_spacing_m);

}  // namespace cityforge
