// SPDX-License-Identifier: Apache-2.0
#pragma once

// Private to the dressing module: where street dressing may not stand (junction surfaces,
// crosswalk bands, entrance exclusion boxes, carriageways, building footprints), where it may
// (sidewalks), and the frame along a curb that lights, trees, furniture and parking share.

#include <cstdint>
#include <vector>

#include "cityforge/core/polygon.hpp"
#include "cityforge/core/polygon_bands.hpp"
#include "cityforge/core/spatial_hash.hpp"
#include "cityforge/dressing/dressing.hpp"

namespace cityforge::dressing::detail {

/// Kinds of areas (bit flags).
enum AreaKind : std::uint32_t {
  kAreaJunction = 1U << 0U,     ///< Intersection surfaces.
  kAreaCrosswalk = 1U << 1U,    ///< Crosswalk lanes' polylines buffered by half their width.
  kAreaEntrance = 1U << 2U,     ///< Entrance exclusion boxes (+ Config::entrance_clear_m).
  kAreaCarriageway = 1U << 3U,  ///< Section surfaces, curb to curb.
  kAreaBuilding = 1U << 4U,     ///< Base volume footprints of buildings.
  kAreaSidewalk = 1U << 5U,     ///< roads::Output::sidewalks (where street items stand).
};
/// Where no street item may stand.
inline constexpr std::uint32_t kAreaForbidden =
    kAreaJunction | kAreaCrosswalk | kAreaEntrance | kAreaCarriageway | kAreaBuilding;

/// Parking spots span this far from the curb into the road (the spot centre is at half of it).
inline constexpr double kParkingSpotWidthM = 2.4;

/// An entrance exclusion box in plan.
struct EntranceBox {
  Vec2 centre;
  Vec2 along;  ///< Unit vector along the facade.
  Vec2 out;    ///< Unit vector away from the facade (toward the street).
  double half_along = 0.0;
  double half_out = 0.0;
  Ring ring() const;
};

/// The areas of a city, indexed for point, disc and polygon queries. Immutable after
/// construction; queries are thread safe.
class Areas {
 public:
  Areas(const Inputs& in, const Config& config);

  /// Distance from p to the nearest area of a kind in `mask` (0 inside), at most max_m.
  double distance(Vec2 p, std::uint32_t mask, double max_m) const;
  /// Distance from polygon `ring` to the nearest area of a kind in `mask`, at most max_m.
  double distance(const Ring& ring, std::uint32_t mask, double max_m) const;
  /// Whether the disc (p, radius_m) touches an area of a kind in `mask` (radius 0: p inside).
  bool hits(Vec2 p, double radius_m, std::uint32_t mask) const;
  /// Whether p lies inside an area of a kind in `mask`.
  bool inside(Vec2 p, std::uint32_t mask) const;
  /// Whether an entrance box lies in front of the stretch [-half_len_m, half_len_m] along
  /// `along` around p (widened by margin_m), between reach_back_m behind p (toward the road)
  /// and reach_m toward the block (`to_block`).
  bool entrance_in_front(Vec2 p, Vec2 along, Vec2 to_block, double half_len_m, double margin_m,
                         double reach_back_m, double reach_m) const;
  const std::vector<EntranceBox>& entrances() const { return m_entrances; }

 private:
  struct Area {
    PolygonBands shape;  ///< The polygon (shape.polygon()), banded for inside().
    Aabb2 box;
    std::uint32_t kind = 0;
  };
  void add(Polygon poly, std::uint32_t kind);

  std::vector<Area> m_areas;
  std::vector<EntranceBox> m_entrances;
  BoxIndex m_hash{16.0};
  SpatialHash m_entrance_hash{16.0};
};

/// A point beside a curb of a section.
struct CurbFrame {
  Vec2 p;
  Vec2 tangent;  ///< Unit, along the section's centre line (from the edge's `from` side).
  Vec2 to_road;  ///< Unit, across the curb toward the road centre.
};
/// The point at arc length s_m along the section's centre line, on side `side` (+1: left of the
/// centre line's direction, -1: right), `from_curb_m` beyond the curb onto the sidewalk
/// (negative: into the road). half_width_m = layout edge width / 2.
CurbFrame curb_frame(const Polyline& centre, int side, double half_width_m, double s_m,
                     double from_curb_m);
/// Light stations along a side: spacing/2 + k * spacing < length.
std::vector<double> light_stations(double length_m, double spacing_m);
/// Stations every `spacing_m` (from spacing/2) snapped to a light station + shift_m, in
/// [0, length), unique, ascending. Hydrants use +2 m, bins -2 m, benches and bus stops +half
/// a light spacing.
std::vector<double> snapped_stations(double length_m, double light_spacing_m, double spacing_m,
                                     double shift_m);
/// The hydrant stations of a side (used by furniture and, to keep trees clear, vegetation).
std::vector<double> hydrant_stations(double length_m, const Config& config,
                                     layout::RoadClass road_class);
/// Terrain + curb height at p (roads::Output::block_raise_m above the ground).
double sidewalk_z(const Inputs& in, Vec2 p);
/// The footprint of a parking spot (kParkingSpotWidthM across, from the curb into the road).
Ring parking_spot_ring(const ParkingSpot& spot);
/// Distance between two simple polygons (0 when they overlap).
double ring_distance(const Ring& a, const Ring& b);
/// Distance from p to a polygon (0 inside).
double point_polygon_distance(const Polygon& poly, Vec2 p);

}  // namespace cityforge::dressing::detail
