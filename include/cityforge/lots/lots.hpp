// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "cityforge/core/polygon.hpp"
#include "cityforge/core/result.hpp"
#include "cityforge/core/rng.hpp"
#include "cityforge/core/vec.hpp"
#include "cityforge/layout/layout.hpp"

/// Lots and Building DNA (seeds/000, minutes 14-17): blocks minus the freeway footprint are
/// cleaned, subdivided by weighing target height against surface, filtered, and every parcel
/// gets a BuildingDNA: one of 17 footprint shapes, its size, position and orientation, three
/// height layers, a massing (plain, cubified or staggered) and a style.
namespace cityforge::lots {

using LotId = std::uint32_t;

/// The 17 footprint shapes every building is made from. Outlines: see footprint_outline().
enum class FootprintShape : std::uint8_t {
  rectangle,     ///< The whole size_x x size_y box.
  l_shape,       ///< Box minus one corner quadrant.
  u_shape,       ///< Box minus a notch in the middle of the back side (open away from x axis).
  t_shape,       ///< Full-width bar along the front, narrower stem to the back.
  h_shape,       ///< Two wings joined by a middle bar; notches front and back.
  c_shape,       ///< Box minus a notch in the middle of one short side.
  courtyard,     ///< Ring: box with a rectangular hole (light well).
  plus,          ///< Cross: box minus its four corner squares.
  z_shape,       ///< Two offset bars joined in the middle.
  chamfered,     ///< Box with 45-degree cut corners.
  rounded,       ///< Box with quarter-round corners (4 segments per corner).
  wedge,         ///< Triangle-ish: front full width, back narrowed to a short wall.
  trapezoid,     ///< Front full width, back narrower by a random share.
  stepped,       ///< Box whose back half steps in on one side.
  e_shape,       ///< Spine along the back with three wings to the front.
  podium_tower,  ///< Box footprint; the DNA's shaft and crown stand on a smaller inner box.
  cylinder,      ///< Regular 12-gon inscribed in the box (ellipse-ish when stretched).
};
inline constexpr std::size_t kFootprintShapeCount = 17;
const char* to_string(FootprintShape s);
/// Parses a name as printed by to_string ("rectangle", "l_shape", ...); false if unknown.
bool footprint_shape_from_string(std::string_view name, FootprintShape* out);

/// How the shaft and crown step back (seeds/000, 16:03).
enum class Massing : std::uint8_t {
  plain,      ///< Straight extrusion of the footprint.
  cubified,   ///< Upper tiers drop whole corner blocks of the footprint (boxy, asymmetric).
  staggered,  ///< Upper tiers are inset uniformly, Empire State style "wedding cake".
};
const char* to_string(Massing m);

/// Roof shapes of imported buildings (OSM roof:shape); generated buildings are flat.
enum class RoofShape : std::uint8_t { flat, gabled, hipped, pyramidal, skillion, dome };
inline constexpr std::size_t kRoofShapeCount = 6;
const char* to_string(RoofShape s);
/// Parses an OSM roof:shape value ("flat", "gabled", "hipped", "pyramidal", "skillion", "dome",
/// and their common aliases); false if unknown.
bool roof_shape_from_string(std::string_view name, RoofShape* out);

/// One mapped volume of an imported building (the building itself, or a building:part).
struct ImportedVolume {
  Polygon footprint;           ///< Engine metres; outer ring counter-clockwise, holes clockwise.
  double min_height_m = 0.0;   ///< Bottom above the building's base (min_height).
  double height_m = 0.0;       ///< Top of the walls + roof above the base (height). [> min]
  double roof_height_m = 0.0;  ///< Of height_m, the part the roof takes (0 for flat).
  RoofShape roof = RoofShape::flat;
  double roof_direction_rad = 0.0;  ///< Skillion: the direction the roof falls towards;
                                    ///< gabled: ridge direction (NaN = along the longest axis).
};

/// The DNA of one building. The footprint outline is footprint_outline(shape, size, params)
/// in the building's local frame (x along `front`), placed at `centre` rotated by `angle_rad`.
struct BuildingDNA {
  FootprintShape shape = FootprintShape::rectangle;
  double size_x_m = 10.0;    ///< Along the front (street) side. [> 0]
  double size_y_m = 10.0;    ///< Depth, away from the street. [> 0]
  double shape_param = 0.5;  ///< Shape-specific proportion in [0.2, 0.8] (notch, wing, cut...).
  Vec2 centre;               ///< Centre of the size_x x size_y box, engine metres.
  double angle_rad = 0.0;    ///< Local +x direction; local +y points away from the street.
  /// The outline mirrored across its local y axis (x -> -x), so a notch or step on one side
  /// opens on the other: the lots stage turns it away from a neighbour's party wall.
  bool mirrored = false;
  double base_m = 4.0;   ///< Height of the base layer (ground floor / podium). [> 0]
  double shaft_m = 0.0;  ///< Height of the shaft layer. [>= 0]
  double crown_m = 0.0;  ///< Height of the crown layer. [>= 0]
  Massing massing = Massing::plain;
  std::uint32_t setback_steps = 0;  ///< Staggered / cubified tiers in the shaft.
  double setback_m = 0.0;           ///< Inset per tier (staggered) or crown inset. [>= 0]
  std::uint32_t style = 0;          ///< Index into the style rules given to run().
  /// Imported places: the mapped volumes (the footprint with its parts); when non-empty they
  /// replace footprint_outline() and the base / shaft / crown massing, and base_m + shaft_m +
  /// crown_m is the tallest volume's height.
  std::vector<ImportedVolume> imported;
  std::int64_t osm_id = 0;  ///< Imported places: the building's way (> 0) or relation (< 0).
  double height_m() const { return base_m + shaft_m + crown_m; }
};

/// The footprint outline of `shape` in the local frame: the size_x x size_y box centred at the
/// origin, x along the front (y = -size_y/2 is the street side). Outer ring counter-clockwise,
/// holes clockwise, no repeated or collinear points. Deterministic, no randomness.
Polygon footprint_outline(FootprintShape shape, double size_x_m, double size_y_m,
                          double shape_param);
/// The outline placed in engine coordinates (mirrored when dna.mirrored, rotated by
/// dna.angle_rad, moved to dna.centre).
Polygon footprint_polygon(const BuildingDNA& dna);
/// `outline` mirrored across its local y axis (x -> -x), rings kept counter-clockwise (outer)
/// and clockwise (holes).
Polygon mirrored_outline(Polygon outline);
/// Length of the shortest edge of the outline (what the style's minimum wall length limits).
double shortest_wall_m(FootprintShape shape, double size_x_m, double size_y_m, double shape_param);
/// Length of the shortest edge of an outline (its outer ring and holes).
double shortest_wall_m(const Polygon& outline);

/// What the lots stage knows of a building style (the buildings module owns the full BDF).
struct StyleRule {
  std::string name;
  std::string source;              ///< Where the rule came from, for errors ("file: /min_wall_m").
  double min_wall_m = 3.0;         ///< No footprint edge may be shorter. [> 0]
  std::uint32_t zone_mask = 0x1F;  ///< Bit i: allowed in layout::ZoneKind i.
  double min_height_m = 0.0;       ///< Target-height band the style is picked in.
  double max_height_m = 1e9;
  double weight = 1.0;          ///< Relative share among eligible styles. [> 0]
  double ground_floor_m = 4.0;  ///< Base layer is a whole number of floors of these heights.
  double floor_m = 3.2;
  double cubified_share = 0.0;  ///< Share of buildings above 30 m with this massing. [0, 1]
  double staggered_share = 0.0;
  std::uint32_t shape_mask = (1U << kFootprintShapeCount) - 1U;  ///< Bit i: shape i allowed.
};

/// Why a lot got no building from subdivision.
enum class LotStatus : std::uint8_t {
  buildable,   ///< Subdivided into parcels with buildings.
  replaced,    ///< Unsuitable shape; a library footprint was fitted inside it instead.
  sliver,      ///< Too thin for its area (compactness); left to dressing.
  too_narrow,  ///< Narrower than every eligible style's minimum wall length; left to dressing.
  bad_aspect,  ///< Oriented box aspect ratio too extreme; left to dressing.
  too_small,   ///< Under Config::min_lot_area_m2; left to dressing.
};
const char* to_string(LotStatus s);

/// One building site inside a lot. Parcels of a lot tile it (up to cleaning); buildings of the
/// same lot may touch (New York rows), buildings of neighbouring lots keep Config::lot_gap_m
/// apart (0 by default: they may share a party wall).
struct Parcel {
  Polygon area;
  /// Per edge i (outer[i] -> outer[i+1]) of area.outer: true where the edge lies on the block's
  /// street side (within Config::frontage_tolerance_m of a block edge that faces a road).
  std::vector<std::uint8_t> frontage;
  bool has_building = true;
  BuildingDNA dna;
};

/// A lot: a piece of a block after subdivision (one job for the building generator).
struct Lot {
  LotId id = 0;  ///< Index in Output::lots.
  layout::BlockId block = 0;
  Polygon area;
  LotStatus status = LotStatus::buildable;
  bool narrow = false;  ///< Cut into New York style staggered narrow parcels.
  layout::ZoneKind zone = layout::ZoneKind::residential;
  double target_height_m = 0.0;  ///< Zoning height field at the lot's centroid.
  double density = 0.0;
  std::vector<Parcel> parcels;  ///< Empty when the lot is left to dressing.
};

struct Config {
  double min_lot_area_m2 = 80.0;      ///< Smaller pieces are too_small. [> 0]
  double max_lot_depth_m = 45.0;      ///< Deeper blocks are split back to back first. [> 0]
  double base_lot_area_m2 = 2500.0;   ///< Largest lot for a 10 m building. [> 0]
  double area_per_height_m = 120.0;   ///< Extra lot area allowed per metre of height. [>= 0]
  double area_jitter = 0.35;          ///< +- share of random variation in lot size. [0, 0.9]
  double narrow_height_m = 14.0;      ///< Lots under this target height may become NY rows,
  double narrow_share = 0.35;         ///< this share of them (seeded per lot). [0, 1]
  double narrow_min_width_m = 7.0;    ///< NY parcel frontage range. [> 0]
  double narrow_max_width_m = 14.0;   ///< [>= narrow_min_width_m]
  double max_aspect = 5.0;            ///< Oriented box aspect above this is bad_aspect. [> 1]
  double min_compactness = 0.25;      ///< 4*pi*A/P^2 below this is a sliver. (0, 1)
  double frontage_tolerance_m = 0.5;  ///< Distance for a parcel edge to count as frontage.
  double building_gap_m = 0.0;        ///< Inset of footprints from the parcel edges. [>= 0]
  /// Distance kept between buildings of neighbouring lots (each lot is inset by half). 0: they
  /// may share party walls, as street walls of a block do. [>= 0]
  double lot_gap_m = 0.0;
  double height_jitter = 0.2;  ///< +- share of noise on the target height. [0, 0.9]
  /// Wanted share of each footprint shape (index = FootprintShape); normalised by run().
  std::array<double, kFootprintShapeCount> footprint_mix{0.30, 0.10, 0.05, 0.05, 0.03, 0.05,
                                                         0.06, 0.02, 0.03, 0.06, 0.04, 0.03,
                                                         0.05, 0.04, 0.02, 0.05, 0.02};
};

struct Stats {
  std::size_t lots = 0;
  std::size_t parcels = 0;
  std::size_t buildings = 0;
  std::size_t narrow_lots = 0;                  ///< Lots cut into New York style parcels.
  std::array<std::size_t, 6> lots_by_status{};  ///< Index = LotStatus.
  std::array<std::size_t, kFootprintShapeCount> footprints_by_shape{};
};

struct Output {
  std::vector<Lot> lots;  ///< Sorted by (block, position along the block); id = index.
  Stats stats;
};

/// Checks the config (limits above) and the style rules (non-empty, positive walls and weights).
Status validate(const Config& config, const std::vector<StyleRule>& styles);

/// Splits every block (minus `keep_out`, e.g. the freeway footprints) into lots and parcels and
/// writes a BuildingDNA per parcel: footprint inside the parcel (shrunk by building_gap_m), no
/// wall shorter than its style's min_wall_m, heights from the zoning field. Each block is an
/// independent job. Same inputs and seed give identical output at any thread count.
/// Fails (invalid_input, where = the rule's `source`) when a style's min_wall_m is longer than
/// the shortest side of the largest lot of the city: no building could ever use that style.
Result<Output> run(const layout::Output& city, const std::vector<Polygon>& keep_out,
                   const std::vector<StyleRule>& styles, const Config& config, Seed seed);

}  // namespace cityforge::lots
