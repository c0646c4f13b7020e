// SPDX-License-Identifier: Apache-2.0
// The geometry of the OpenDRIVE writer: reference lines as planView primitives and profiles as
// cubic pieces.
#pragma once

#include <functional>
#include <vector>

#include "cityforge/core/polyline.hpp"
#include "cityforge/core/vec.hpp"

namespace cityforge::exporter::detail {

/// One planView primitive: a line, or a paramPoly3 with pRange "normalized" (p in [0, 1]) in
/// the frame at (x, y) turned by hdg.
struct OdrGeometry {
  bool line = true;
  double s = 0.0;
  double x = 0.0;
  double y = 0.0;
  double hdg = 0.0;
  double length = 0.0;
  double au = 0.0, bu = 0.0, cu = 0.0, du = 0.0;  ///< paramPoly3 only.
  double av = 0.0, bv = 0.0, cv = 0.0, dv = 0.0;
};

/// A cubic a + b ds + c ds^2 + d ds^3 from s on (elevation, superelevation, laneOffset).
struct Poly3 {
  double s = 0.0;
  double a = 0.0, b = 0.0, c = 0.0, d = 0.0;
};

/// Lines through the points of `line` (consecutive duplicates dropped), a run of points that
/// all lie within 1 mm of the chord from its first to its last point written as one line.
/// The reference line then passes through every point. Empty for fewer than 2 distinct points.
std::vector<OdrGeometry> polyline_geometry(const Polyline& line);

/// A cubic Bezier through the samples of a connector (the curve of roads::bezier_connector):
/// its end points are the first and last samples, its inner control points lie along the end
/// segments' directions, their distances fitted by least squares with the samples' curve
/// parameters refined by projection. One paramPoly3 exactly on that curve; `max_error_m` gets
/// the largest distance of a sample from it. Fewer than 3 samples: nullopt-like empty vector.
std::vector<OdrGeometry> bezier_geometry(const std::vector<Vec2>& samples, double* max_error_m);

/// Point and unit heading of the reference line at s (clamped to its length).
Vec2 geometry_point(const std::vector<OdrGeometry>& geo, double s, Vec2* heading = nullptr);

/// Total length of the primitives.
double geometry_length(const std::vector<OdrGeometry>& geo);

/// Piecewise cubic Hermite pieces fitted to f on [0, length]: each piece matches f and its
/// slope (central differences) at its ends; a piece is halved while f departs from it by more
/// than tolerance at one of 8 inner samples and it is longer than min_piece_m. C1 continuous.
std::vector<Poly3> fit_profile(const std::function<double(double)>& f, double length,
                               double tolerance, double min_piece_m);

/// Value of pieces at s (the last piece with s0 <= s).
double profile_at(const std::vector<Poly3>& pieces, double s);

}  // namespace cityforge::exporter::detail
