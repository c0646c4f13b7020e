// SPDX-License-Identifier: Apache-2.0
// Internal steps of the lots stage, one algorithm per file.
#pragma once

#include <vector>

#include "cityforge/lots/lots.hpp"

namespace cityforge::lots::detail {

/// Minimum-area oriented bounding box (rotating calipers over the convex hull).
struct OrientedBox {
  Vec2 centre;
  Vec2 axis;             ///< Unit direction of the long side.
  double long_m = 0.0;   ///< Full length along `axis`.
  double short_m = 0.0;  ///< Full length across it.
  double aspect() const { return short_m > 0.0 ? long_m / short_m : INFINITY; }
};
OrientedBox oriented_box(const Ring& ring);

/// Drops repeated and spike vertices (eps_m) and collinear ones (0.1 mm off the line).
Ring remove_degenerate(Ring ring, double eps_m = 0.01);

/// The parts of `poly` on the left (side > 0) or right of the line through `at` along `dir`.
std::vector<Polygon> cut_half(const Polygon& poly, Vec2 at, Vec2 dir, bool left);

/// Street-side segments of one block (block edges facing a road), and the keep-out rings near
/// it; frontage() flags the edges of a ring lying on them.
struct StreetSide {
  std::vector<std::pair<Vec2, Vec2>> street;
  std::vector<std::pair<Vec2, Vec2>> keep_out;
  double tolerance_m = 0.5;
  std::vector<std::uint8_t> frontage(const Ring& ring) const;
};
StreetSide street_side(const layout::Output& city, const layout::Block& block,
                       const std::vector<Polygon>& keep_out, double tolerance_m);

/// Index of the longest flagged edge, or of the longest edge when none is flagged.
std::size_t main_edge(const Ring& ring, const std::vector<std::uint8_t>& frontage);

/// The largest rectangle inside `poly` in the frame (origin, u, v = perp(u)), as local
/// [x0, x1] x [y0, y1]; false when none of positive size fits.
struct LocalBox {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  double w() const { return x1 - x0; }
  double h() const { return y1 - y0; }
};
bool largest_box(const Polygon& poly, Vec2 origin, Vec2 u, LocalBox* out);

/// Area of `inner` outside `outer` (GEOS).
double outside_area(const Polygon& inner, const Polygon& outer);

/// Step 1: one block minus keep_out, cleaned, subdivided into lot polygons (not yet filtered).
struct LotPiece {
  Polygon area;
  double target_height_m = 0.0;
  double density = 0.0;
};
std::vector<LotPiece> subdivide_block(const layout::Output& city, const layout::Block& block,
                                      const std::vector<Polygon>& keep_out, const StreetSide& side,
                                      const Config& config, Seed seed);

/// Step 2: shape filter. `min_wall_m` is the smallest wall of the styles eligible for the lot.
LotStatus classify(const Polygon& area, double min_wall_m, const Config& config);

/// Styles eligible for a zone and target height (nearest band when none contains it).
std::vector<std::uint32_t> eligible_styles(const std::vector<StyleRule>& styles,
                                           layout::ZoneKind zone, double height_m);

/// Step 3: New York style narrow parcels across the lot's street side; empty when the lot is
/// too short along its street for two parcels.
std::vector<Polygon> narrow_parcels(const Polygon& lot, const StreetSide& side,
                                    const Config& config, Rng& rng);

/// Step 4: the DNA of one parcel. Returns false (no building) when no footprint fits.
/// `depth_share` < 1 shortens the building from the back (staggered New York rear lines);
/// `min_box_area_m2` > 0 rejects smaller footprints (replacement of unsuitable lots).
struct DnaRequest {
  const Polygon* parcel = nullptr;
  const Polygon* fit = nullptr;  ///< Where the box may go (parcel minus gaps); null = parcel.
  const std::vector<std::uint8_t>* frontage = nullptr;
  double target_height_m = 0.0;
  layout::ZoneKind zone = layout::ZoneKind::residential;
  double depth_share = 1.0;
  double min_box_area_m2 = 0.0;
  double max_box_aspect = 1e9;
};
bool make_dna(const DnaRequest& req, const std::vector<StyleRule>& styles,
              const std::vector<std::uint32_t>& eligible, const Config& config, Rng& rng,
              BuildingDNA* out);

}  // namespace cityforge::lots::detail
