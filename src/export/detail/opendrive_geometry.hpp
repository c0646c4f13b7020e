// SPDX-License-Identifier: Apache-2.0
// The geometry of the OpenDRIVE writer: reference lines as planView primitives and profiles as
// cubic pieces.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cityforge/core/fillet.hpp"
#include "cityforge/core/polyline.hpp"
#include "cityforge/core/vec.hpp"
#include "export/detail/xml_text.hpp"

namespace cityforge::exporter::detail {

/// Profiles (elevation, roll) are fitted within this many metres of what they follow...
inline constexpr double kElevationToleranceM = 0.01;
/// ...in pieces no shorter than this (metres).
inline constexpr double kMinPieceM = 1.0;

/// One planView primitive: a line, an arc of signed curvature (positive turns left), or a
/// paramPoly3 with pRange "normalized" (p in [0, 1]) in the frame at (x, y) turned by hdg.
struct OdrGeometry {
  enum class Kind { line, arc, param_poly3 };
  Kind kind = Kind::line;
  double curvature = 0.0;  ///< Arcs only.
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

/// The corners `line` (polyline_corners; consecutive duplicates dropped) as a G1 reference
/// line: lines between them, and
/// each inner corner rounded by the arc of corner_fillet with radius `radius_m`, the joins with
/// the neighbouring roads by `start` and `end`: the arcs that round_corners samples for the
/// roads stage's centre lines, written exactly. radius_m = 0: lines only, through every point.
/// Empty for fewer than 2 distinct points.
std::vector<OdrGeometry> polyline_geometry(const Polyline& line, double radius_m = 0.0,
                                           const CornerJoin& start = {},
                                           const CornerJoin& end = {});

/// A cubic Bezier through the samples of a connector (the curve of roads::bezier_connector):
/// its end points are the first and last samples, its inner control points lie along the end
/// segments' directions, their distances fitted by least squares with the samples' curve
/// parameters refined by projection. One paramPoly3 exactly on that curve; `max_error_m` gets
/// the largest distance of a sample from it. Fewer than 3 samples: nullopt-like empty vector.
std::vector<OdrGeometry> bezier_geometry(const std::vector<Vec2>& samples, double* max_error_m);

/// One paramPoly3 on the cubic Bezier a, b, c, d; `max_error_m` gets the largest distance of
/// `samples` from it (a check that they sample that curve).
std::vector<OdrGeometry> bezier_curve(Vec2 a, Vec2 b, Vec2 c, Vec2 d,
                                      const std::vector<Vec2>& samples, double* max_error_m);

/// Point and unit heading of the reference line at s (clamped to its length).
Vec2 geometry_point(const std::vector<OdrGeometry>& geo, double s, Vec2* heading = nullptr);

/// (s, t) of the point of the reference line closest to p: s along it, t left of it (found on
/// samples 0.1 m apart, then on the chord between the best sample's neighbours).
Vec2 geometry_project(const std::vector<OdrGeometry>& geo, Vec2 p);

/// Total length of the primitives.
double geometry_length(const std::vector<OdrGeometry>& geo);

/// Piecewise cubic Hermite pieces fitted to f on [0, length]: each piece matches f and its
/// slope (central differences) at its ends; a piece is halved while f departs from it by more
/// than tolerance at one of 8 inner samples and it is longer than min_piece_m. C1 continuous.
std::vector<Poly3> fit_profile(const std::function<double(double)>& f, double length,
                               double tolerance, double min_piece_m);

/// One lateralProfile <shape> record: height a + b dt + c dt^2 + d dt^3, dt = t - t, at s.
struct ShapeRecord {
  double s = 0.0;
  double t = 0.0;
  double a = 0.0, b = 0.0, c = 0.0, d = 0.0;
};

/// Shape records for the height `residual(s, t)` that the rest of the profile misses: at each
/// station one least-squares cubic per interval between consecutive `breaks` (ascending t),
/// from 9 samples each. Stations at 0 and length; an interval between stations is halved while
/// its middle (9 samples per t interval) departs from the two stations' records, interpolated
/// linearly in s as the standard says, by more than tolerance, down to min_piece_m. Empty when
/// no sample departs from 0 by more than tolerance.
std::vector<ShapeRecord> fit_shape(const std::function<double(double, double)>& residual,
                                   double length, const std::vector<double>& breaks,
                                   double tolerance, double min_piece_m);

/// `<planView>` with one `<geometry>` per primitive; numbers name `where` in errors.
void write_plan_view(XmlText& x, const std::vector<OdrGeometry>& geo, const std::string& where);

/// One record per piece: `open` (e.g. "      <elevation"), then `s_name` (s or sOffset) and
/// a, b, c, d times `scale`.
void write_records(XmlText& x, const char* open, const char* s_name,
                   const std::vector<Poly3>& pieces, double scale, const std::string& where);

/// Value of pieces at s (the last piece with s0 <= s).
double profile_at(const std::vector<Poly3>& pieces, double s);

}  // namespace cityforge::exporter::detail
