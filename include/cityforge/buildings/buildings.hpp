// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "cityforge/buildings/style.hpp"
#include "cityforge/core/mesh.hpp"
#include "cityforge/core/polygon.hpp"
#include "cityforge/core/result.hpp"
#include "cityforge/core/rng.hpp"
#include "cityforge/lots/lots.hpp"
#include "cityforge/terrain/heightfield.hpp"

/// The building generator (seeds/000, 26:52-34:56): volumes from the Building DNA, floor
/// slicing from the style's level dictionary, corner types, facades by shape grammar, occlusion
/// of touching walls, entrances, rooms, signage, roofs and volume overrides.
namespace cityforge::buildings {

using BuildingId = std::uint32_t;
inline constexpr std::uint32_t kNoRoom = 0xFFFFFFFFU;

/// One extruded tier of a building: footprint (outer ring counter-clockwise, holes clockwise)
/// from z0_m to z1_m, metres above the building's base_z.
struct Volume {
  Polygon footprint;
  double z0_m = 0.0;
  double z1_m = 0.0;
  std::uint8_t layer = 0;  ///< 0 base, 1 shaft, 2 crown.
  /// Imported buildings: the roof standing on z1_m (flat: the parapet roof of generated
  /// buildings), rising roof_height_m above it; see lots::ImportedVolume.
  lots::RoofShape roof = lots::RoofShape::flat;
  double roof_height_m = 0.0;
  double roof_direction_rad = 0.0;  ///< NaN: along the footprint's longest axis.
};

/// Turns a DNA into stacked volumes: the base layer on the full footprint; the shaft on the
/// footprint (podium_tower: an inner box), split into `setback_steps` tiers for staggered
/// (each inset by setback_m more) or cubified (each drops one more corner block) massing; the
/// crown inset by setback_m when there is room. Volumes are ordered bottom-up; each stands
/// inside the one below it. Deterministic (no randomness beyond the DNA).
/// Imported DNA (dna.imported non-empty): one volume per ImportedVolume, in its order, from
/// min_height_m to the wall top height_m - roof_height_m, carrying its roof; parts need not
/// stand inside each other.
std::vector<Volume> building_volumes(const lots::BuildingDNA& dna);

/// A placed module: what the exporter instances. Facade modules: +y points out of the building,
/// so +x runs against the ring's walking direction (outer rings are counter-clockwise) and the
/// origin sits at the end of the module's span along the edge: yaw = atan2(-dir.y, -dir.x).
struct Instance {
  std::uint32_t module = 0;         ///< Global module number in the StyleLibrary.
  std::array<float, 3> position{};  ///< Engine metres of the module's origin (x=0,y=0,z=0).
  float yaw_rad = 0.0f;             ///< Rotation about +z; module +x runs along the facade edge.
  float scale_x = 1.0f;             ///< Width scale (grammar fitting).
  float scale_z = 1.0f;             ///< Height scale (floor height / mesh height).
  BuildingId building = 0;
  std::uint32_t lot = 0;
  std::uint16_t floor = 0;       ///< 0 = ground floor.
  std::uint16_t brand = 0;       ///< Index into the style's brands (props only).
  std::uint32_t room = kNoRoom;  ///< Room id within the building (window modules only).
  std::uint32_t tags = 0;        ///< ModuleTag bits of the module.
};

/// An entrance and the box street furniture must keep out of (seeds/000, 30:36): every door on
/// a ground-floor facade that faces the street (every ground-floor door of a building that has
/// no street facade). Doors on back and side walls are modules like any other.
struct Entrance {
  BuildingId building = 0;
  std::array<float, 3> position{};  ///< Centre of the door at ground level.
  float yaw_rad = 0.0f;             ///< Facade direction; the street is on the module's +y side.
  /// Exclusion box in front of the door: centre, half extents (along facade, outward, up), yaw.
  std::array<float, 3> exclusion_centre{};
  std::array<float, 3> exclusion_half{};
};

/// A tag volume from the config (seeds/000, 31:49): facades whose midpoint lies inside `area`
/// get its behaviour. Tags: "fire_escape" (hang the style's fire escape module on every floor
/// above the ground floor), "brand:<name>" (use that brand for props on those facades).
struct TagVolume {
  std::string tag;
  Polygon area;
  double z0_m = -1e9;
  double z1_m = 1e9;
};

struct Building {
  BuildingId id = 0;  ///< Index in Output::buildings.
  std::uint32_t lot = 0;
  std::uint32_t parcel = 0;  ///< Index in the lot's parcels.
  std::uint32_t style = 0;
  lots::FootprintShape shape = lots::FootprintShape::rectangle;
  double base_z_m = 0.0;  ///< Ground under the footprint (lowest terrain sample).
  double height_m = 0.0;
  std::uint32_t floors = 0;
  std::vector<Volume> volumes;
  std::uint32_t first_instance = 0;  ///< Its instances are a contiguous range.
  std::uint32_t instance_count = 0;
  std::uint32_t rooms = 0;
  bool faces_street = false;  ///< Its parcel has frontage.
};

/// Where modules stand along one floor edge of one facade (for coverage checks and tools).
struct FacadeSpan {
  BuildingId building = 0;
  std::uint32_t volume = 0;
  std::uint32_t floor = 0;  ///< Floor index within the building.
  std::uint32_t ring = 0;   ///< 0 outer, 1 + hole index.
  std::uint32_t edge = 0;   ///< Edge i: ring[i] -> ring[i+1].
  double length_m = 0.0;
  std::vector<std::array<double, 2>> spans;  ///< [t0, t1] along the edge, sorted, incl. corners.
  std::vector<std::uint8_t> removed;         ///< Per span: 1 where occlusion removed the module.
  double z0_m = 0.0;  ///< Floor bottom and top, engine metres (base included).
  double z1_m = 0.0;
  /// Chosen grammar index in the level (of the first piece when party walls cut the edge into
  /// pieces fitted apart), -1 if none needed.
  std::int32_t grammar = -1;
  bool fits = true;  ///< false: the fallback compressed a grammar.
};

struct Config {
  double occlusion_push_m = 0.05;  ///< Sample points are pushed this far out of the wall.
  double entrance_depth_m = 3.0;   ///< Exclusion box depth in front of an entrance.
  bool keep_facade_spans = false;  ///< Fill Output::spans (tests, debugging).
  /// false: Output::instances stays empty (its counts, entrances and rooms are kept) and
  /// whoever draws a building makes its modules again from its lot (instances_of): a tiled
  /// region's writer needs the modules of the tiles it writes, never the whole city's (3 M
  /// instances, 147 MB in the 4x5 km example). The command line sets it with --no-city-glb.
  bool keep_instances = true;
};

struct Stats {
  std::size_t buildings = 0;
  std::size_t floors = 0;
  std::size_t instances = 0;
  std::size_t modules_before_occlusion = 0;
  std::size_t modules_occluded = 0;
  std::array<std::size_t, kModuleTagCount> modules_by_tag{};  ///< After occlusion.
  std::array<std::size_t, lots::kFootprintShapeCount> buildings_by_shape{};
  std::size_t entrances = 0;
  std::size_t rooms = 0;
  std::size_t grammar_fallbacks = 0;  ///< Facades where no grammar fit.
  std::size_t roof_triangles = 0;
  double occlusion_reduction() const {
    return modules_before_occlusion == 0 ? 0.0
                                         : static_cast<double>(modules_occluded) /
                                               static_cast<double>(modules_before_occlusion);
  }
};

struct Output {
  std::vector<Building> buildings;  ///< In (lot, parcel) order.
  std::vector<Instance> instances;  ///< Grouped by building, in building order.
  std::vector<Entrance> entrances;  ///< By building.
  /// Roof meshes per building (engine coordinates): flat roofs with parapets at every tier top
  /// not covered by the tier above (split roofs between setbacks). Parts by Material (roof,
  /// trim for parapets). Imported buildings: gabled, hipped, pyramidal, skillion and dome roofs
  /// (roof), the gable and skillion walls up to the roof (wall), and on sloped ground a plinth
  /// (trim) around the footprint from below the lowest ground under its walls.
  std::vector<std::array<Mesh, kMaterialCount>> roofs;
  std::vector<FacadeSpan> spans;  ///< Only with Config::keep_facade_spans.
  Stats stats;
  /// Whether `instances` holds every building's modules (Config::keep_instances). Without them,
  /// each Building's first_instance and instance_count still number them as if it did.
  bool instances_kept = true;
  /// Without instances: the module numbers they use, ascending (the kit meshes to build).
  std::vector<std::uint32_t> modules_used;
};

/// Generates every building of every lot. Each lot is an independent job run in parallel;
/// occlusion works within a lot. Same inputs and seed give byte-identical output at any thread
/// count. `ground` gives base heights.
Result<Output> run(const lots::Output& lots, const StyleLibrary& library,
                   const std::vector<TagVolume>& tags, const terrain::Heightfield& ground,
                   const Config& config, Seed seed);

/// run()'s inputs, for making a building's modules again (instances_of) where they are drawn.
/// Pointers: the caller keeps what they point to alive.
struct LotInputs {
  const lots::Output* lots = nullptr;
  const StyleLibrary* library = nullptr;
  const std::vector<TagVolume>* tags = nullptr;
  const terrain::Heightfield* ground = nullptr;
  Config config;
  Seed seed{};
};

/// The instances of the buildings `ids` (ascending) of `out`, in that order: from
/// out.instances when it holds them, else made again from `inputs`, exactly as run() made
/// them: each lot among its block's neighbours alone (the cost is the blocks', not the city's).
/// Fails without instances and without inputs.
Result<std::vector<Instance>> instances_of(const Output& out, const std::vector<std::uint32_t>& ids,
                                           const LotInputs* inputs);

/// Generates one lot of buildings standing on flat ground at z = 0 (used by run() and by
/// `cityforge building`). `lot.id` seeds the draws.
Result<Output> generate_lot(const lots::Lot& lot, const StyleLibrary& library,
                            const std::vector<TagVolume>& tags, const Config& config, Seed seed);

/// What the lots stage needs to know of each style of `library`, in library order; `source`
/// names the style file and its /min_wall_m for errors.
std::vector<lots::StyleRule> lot_style_rules(const StyleLibrary& library);

}  // namespace cityforge::buildings
