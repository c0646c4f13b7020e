// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "cityforge/freeway/freeway.hpp"

/// Private pieces of the freeway stage, one algorithm per file.
namespace cityforge::freeway::detail {

/// A line along the deck with stations: the centre line, or a lane line in travel order.
struct StationLine {
  std::vector<Vec2> xy;
  std::vector<double> s;  ///< Station (arc length of the centre line) of each point.
  std::vector<double> z;  ///< Deck top.
  double length_m = 0;    ///< Last station.
};

/// The rounded, resampled centre line of one curve.
struct CentreLine {
  StationLine line;
  std::vector<std::uint32_t> source_point;  ///< Nearest input point of each sample.
  double half_width_m = 0;
};

/// "freeways[i]" and "freeways[i].points[j]".
std::string where(std::size_t curve, std::int64_t point = -1);

/// Checks one curve and rounds its corners with the largest arcs that fit (centre_line.cpp).
Result<CentreLine> build_centre_line(const FreewayCurve& curve, std::size_t index,
                                     const terrain::Heightfield& ground, const Config& config);

/// Deck clearance over the ground and roads, and plan overlaps between decks (validate.cpp).
Status check_clearance(const FreewayCurve& curve, std::size_t index, const CentreLine& c,
                       const layout::Output& city, const terrain::Heightfield& ground,
                       const Config& config);
Status check_overlaps(const std::vector<FreewayCurve>& curves,
                      const std::vector<CentreLine>& centres);

/// A triangle with its face normal.
struct Triangle {
  std::array<Vec3, 3> p;
  Vec3 n;
};

/// Deck slab and barriers as closed prisms along the centre line (deck_mesh.cpp).
void deck_triangles(const CentreLine& c, const Config& config, std::vector<Triangle>& deck,
                    std::vector<Triangle>& barriers);
/// A closed prism between two offset lines (left_m > right_m, positive = left of travel),
/// from z + lo_m to z + hi_m (without its top face unless `top`); and a top-only ribbon at z
/// that holds the line's z exactly along the line (deck_mesh.cpp).
void prism(const StationLine& line, double left_m, double right_m, double lo_m, double hi_m,
           std::vector<Triangle>& out, bool top = true);
void ribbon(const StationLine& line, double left_m, double right_m, std::vector<Triangle>& out);
/// Clips triangles to square chunks; chunks by (cy, cx), triangles in input order.
std::vector<MeshChunk> chunk_triangles(const std::vector<Triangle>& tris, double chunk_m);

/// Which pillar spots are allowed under a line (deck or ramp).
struct PillarRule {
  double thickness_m = 0;                ///< Top of the line to the underside the pillar carries.
  double min_height_m = -1e300;          ///< Spots with a shorter pillar are not allowed.
  const CentreLine* keep_off = nullptr;  ///< Spots on this deck (in plan) are not allowed.
};
/// Pillars every pillar_spacing_m along `line`, nudged off roads and disallowed spots
/// (pillars.cpp).
std::vector<Pillar> place_pillars(std::uint32_t freeway, const StationLine& line,
                                  const PillarRule& rule, const layout::Output& city,
                                  const terrain::Heightfield& ground, const Config& config);

/// Mesh, barriers, pillars and elevated footprint of one ramp (ramp_mesh.cpp).
struct RampGeometry {
  std::vector<Triangle> deck, barriers;
  std::vector<Pillar> pillars;
  std::vector<Polygon> footprint;
};
RampGeometry ramp_geometry(const Ramp& ramp, const roads::Lane& lane, const CentreLine& deck,
                           const layout::Output& city, const terrain::Heightfield& ground,
                           const Config& config);

/// Point, tangent and interpolated sub-line of a station line (station_line.cpp).
Vec3 point_at(const StationLine& l, double s);
Vec2 tangent_at(const StationLine& l, double s);
std::vector<Vec3> cut(const StationLine& l, double a, double b);
/// The line offset sideways (positive = left), in travel order: backward lines are reversed
/// and their stations become length - s.
StationLine lane_line(const StationLine& centre, double offset_m, bool forward);

/// Freeway lanes and ramps of every curve (lanes.cpp, ramps.cpp).
struct RampPlan {
  bool forward = true;
  double diverge_t = 0;  ///< Off-ramp leaves the curb lane here (travel station).
  double merge_t = 0;    ///< On-ramp joins it here.
  std::vector<Vec3> off_points;
  std::vector<Vec3> on_points;
  std::array<Vec2, 2> off_handles{};  ///< Inner control points of the ramps' Bezier curves.
  std::array<Vec2, 2> on_handles{};
  roads::LaneId artery_in = 0;   ///< The off-ramp leads into this lane's start.
  roads::LaneId artery_out = 0;  ///< The on-ramp leaves this lane's end.
  std::uint32_t section = 0;
};
/// Ramp sites every uniform(interval) metres (seeded per curve); warnings for skipped sites.
/// Error when no site of the curve has an artery within reach.
Result<std::vector<RampPlan>> plan_ramps(const FreewayCurve& curve, std::size_t index,
                                         const CentreLine& c, const layout::Output& city,
                                         const roads::Output& roads, const Config& config,
                                         Seed seed, std::vector<std::string>& warnings);
/// Appends the lanes of one freeway (and its ramps) to `out`.
void build_lanes(std::uint32_t freeway, const FreewayCurve& curve, const CentreLine& c,
                 const std::vector<RampPlan>& ramps, const Config& config, Output& out);

}  // namespace cityforge::freeway::detail
