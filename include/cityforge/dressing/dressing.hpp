// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cityforge/buildings/buildings.hpp"
#include "cityforge/core/mesh.hpp"
#include "cityforge/core/polygon.hpp"
#include "cityforge/core/ranks.hpp"
#include "cityforge/core/result.hpp"
#include "cityforge/core/rng.hpp"
#include "cityforge/freeway/freeway.hpp"
#include "cityforge/layout/layout.hpp"
#include "cityforge/lots/lots.hpp"
#include "cityforge/roads/roads.hpp"
#include "cityforge/terrain/heightfield.hpp"

/// Set dressing (seeds/000, minutes 16-23; seeds/004): sidewalk tiles with solved corners,
/// ground cover, leftover zones filled with biomes by a packing scatterer (and rooftops), street
/// lights with a day / night state, street and park trees, furniture, signals and signs,
/// parking spots and the audio metadata grid. Everything is instances of the built-in prop kit.
namespace cityforge::rooftops {
struct RooftopOutput;
}  // namespace cityforge::rooftops

namespace cityforge::dressing {

// ---- Props: the built-in kit -------------------------------------------------------------------

/// What a prop is for; city.glb groups instances by category, then chunk.
enum class Category : std::uint8_t {
  sidewalk,    ///< Sidewalk tiles and corner pieces.
  ground,      ///< Ground cover tiles of blocks.
  lighting,    ///< Street and parking lamps.
  vegetation,  ///< Trees, bushes, planters with plants.
  furniture,   ///< Benches, bins, hydrants, bus stops, bollards.
  signals,     ///< Signal poles and heads, stop and yield signs.
  biome,       ///< Props placed by biomes (plazas, parking, freeway undersides, rooftops).
  decal,       ///< Grime, tyre marks, oil stains and cracks: transparent quads on surfaces.
};
inline constexpr std::size_t kCategoryCount = 8;
const char* to_string(Category c);

/// Materials of the prop kit; the exporter gives each a fixed colour. The last four are the
/// decals' (exported as "decal.<name>" with their transparent procedural images, not as
/// "prop.<name>"; see is_decal).
enum class PropMaterial : std::uint8_t {
  concrete,
  paving,
  metal,
  paint,
  wood,
  foliage,
  bark,
  glass,
  light,
  sign,
  rubber,
  grime,
  tyre_marks,
  oil,
  crack
};
inline constexpr std::size_t kPropMaterialCount = 15;
const char* to_string(PropMaterial m);
/// True for the decal materials (grime, tyre_marks, oil, crack): their names are the
/// materials::Decal names.
inline bool is_decal(PropMaterial m) { return m >= PropMaterial::grime; }

/// One prop of the catalogue. Its mesh frame: origin at the centre of its base on the ground,
/// +x its facing direction, +z up; tiles span x in [0, length] and y in [0, width] instead
/// (their origin is a corner) so they can be scaled to fit.
struct PropDef {
  std::string id;  ///< "street_light", "tree_oak", "bench", ... (unique).
  Category category = Category::furniture;
  double radius_m = 0.5;  ///< Footprint disc for overlap tests (0: a surface, never tested).
  double height_m = 1.0;
  double length_m = 1.0;  ///< Tiles: natural size along x and y (Item scales stretch it).
  double width_m = 1.0;
};

/// The built-in catalogue, in a fixed order (instances refer to the index).
const std::vector<PropDef>& prop_catalog();
/// Index of the prop with `id`, or -1.
std::int32_t find_prop(std::string_view id);

/// A prop mesh split by material (parts[PropMaterial]).
struct PropMesh {
  std::array<Mesh, kPropMaterialCount> parts;
  std::size_t triangle_count() const;
};
/// The mesh of catalogue prop `prop` (deterministic, low poly: most props < 300 triangles).
PropMesh build_prop_mesh(std::uint32_t prop);

// Props other than tiles: length_m x width_m x height_m is the extent of their mesh along x, y
// and z (within 5 % + 5 cm), centred on the origin in x and y up to overhanging arms and
// heads; radius_m is a disc holding every part of the prop lower than 0.25 m. Benches, bus
// stops and kiosks open toward +x (a bench's back is at -x), cars drive toward +x.

/// Tiles ("sidewalk_*", "ground_tile") are open slabs this thick: top face at z = this, sides
/// down to z = 0, no bottom. "parking_line" is a painted stripe 0.01 m thick centred on its
/// origin (x in [-2.5, 2.5], y in [-0.06, 0.06]), not a corner-origin tile.
inline constexpr double kTileThicknessM = 0.02;
/// "street_light": the lamp head's centre lies this far along +x from the pole, its glowing
/// face (PropMaterial::light) about 7.7 m above the base.
inline constexpr double kStreetLightReachM = 2.0;
/// "signal_pole": the underside of its mast arm above the base and the arm's reach along +x.
/// A "signal_head" hangs under the arm with its base at z = kSignalArmHeightM - its height_m
/// (one per approach), anywhere from x = 1.5 m to kSignalArmReachM.
inline constexpr double kSignalArmHeightM = 5.8;
inline constexpr double kSignalArmReachM = 4.5;

/// Decals ("decal_grime", "decal_tyre_marks", "decal_oil", "decal_crack"; Category::decal,
/// radius 0: surfaces, never overlap-tested) are unit quads with texture coordinates 0..1 over
/// them, scaled by their Item to their size. decal_grime stands upright: x in [-0.5, 0.5],
/// z in [0, 1] in the plane y = 0, facing +y (u left to right seen from the front, v = 1 at its
/// foot). The others lie flat: x and y in [-0.5, 0.5] at z = 0, facing up (u = x + 0.5, v =
/// 0.5 - y; tyre marks run along +x, the travel direction). Flat decals lie kDecalLiftM above
/// the surface under them (road markings lie 0.01 m above the road); grime stands
/// kGrimeOffsetM in front of its facade plane, its foot at the facade's foot.
inline constexpr double kDecalLiftM = 0.015;
inline constexpr double kGrimeOffsetM = 0.03;

// ---- Biomes: pre-assembled packages of props (data/biomes/*.json) -------------------------------

/// The leftover zones biomes are made for.
enum class ZoneKind : std::uint8_t { plaza, parking, freeway_underside, rooftop };
inline constexpr std::size_t kZoneKindCount = 4;
const char* to_string(ZoneKind k);

struct BiomePart {
  std::uint32_t prop = 0;  ///< Catalogue index.
  Vec2 offset;             ///< In the biome's frame: x along the zone's longest edge.
  double yaw_rad = 0.0;
};

/// A biome: a box of size_x x size_y metres (centred on its origin) holding parts that never
/// overlap each other, stamped on a pattern over its zones.
struct Biome {
  std::string name;
  std::string file;  ///< Where it was read from (for messages).
  ZoneKind zone = ZoneKind::plaza;
  double size_x_m = 4.0;
  double size_y_m = 4.0;
  double spacing_m = 0.5;  ///< Extra gap between stamps.
  double weight = 1.0;     ///< Share among the biomes of its zone kind.
  /// Share of the best pattern's stamps kept (seeded per zone), in (0, 1]: 1 packs the zone
  /// (plazas, parking); a roof holds a few units, not a field of them.
  double fill = 1.0;
  std::vector<BiomePart> parts;
};

/// Parses one biome JSON: {"name", "zone", "size_m": [x, y], "spacing_m", "weight",
/// "parts": [{"prop", "x", "y", "yaw_deg"}]}. Errors name the file and JSON pointer: unknown
/// keys, an unknown prop id, parts outside the box, parts whose footprint discs overlap.
Result<Biome> parse_biome(std::string_view json_text, std::string_view file);
/// The built-in biomes (data/biomes/*.json embedded at build time), as (file name, JSON text).
std::vector<std::pair<std::string, std::string>> builtin_biome_sources();

// ---- Outputs
// -------------------------------------------------------------------------------------

/// One placed prop.
struct Item {
  std::uint32_t prop = 0;           ///< Catalogue index.
  std::array<float, 3> position{};  ///< Engine metres (z on the ground / roof).
  float yaw_rad = 0.0f;
  float scale_x = 1.0f;  ///< Tiles stretch to fit (inside corners scale non-uniformly).
  float scale_y = 1.0f;
  float scale_z = 1.0f;
  std::uint32_t owner = 0;   ///< Block, edge, node or zone index, by kind (see docs/dressing.md).
  std::uint8_t variant = 0;  ///< Seeded variant (tiles, trees).
  std::uint8_t state = 0;    ///< Lights: 1 = switches on at night.
};

// ---- Mapped features (imported places) ------------------------------------------------------

/// What a mapped ground area is (OSM landuse / natural / leisure / amenity areas, water).
enum class GroundKind : std::uint8_t {
  grass,     ///< landuse=grass|meadow|village_green, leisure=garden|pitch|playground...
  park,      ///< leisure=park: grass with scattered trees.
  forest,    ///< landuse=forest, natural=wood: dense trees.
  scrub,     ///< natural=scrub|heath: bushes.
  farmland,  ///< landuse=farmland|orchard|vineyard|allotments.
  sand,      ///< natural=sand|beach.
  bare,      ///< natural=bare_rock|scree, landuse=quarry|construction|brownfield.
  water,     ///< natural=water, waterway=riverbank, landuse=reservoir|basin: flat surface.
  pavement,  ///< highway=pedestrian areas, place=square, amenity=parking...: paved.
  cemetery,  ///< landuse=cemetery.
};
inline constexpr std::size_t kGroundKindCount = 10;
const char* to_string(GroundKind k);

struct GroundArea {
  GroundKind kind = GroundKind::grass;
  Polygon area;  ///< Engine metres.
  std::int64_t osm_id = 0;
};

/// A mapped prop (amenity=bench|waste_basket|bicycle_parking, highway=street_lamp|bus_stop,
/// emergency=fire_hydrant, natural=tree).
struct MappedProp {
  std::uint32_t prop = 0;  ///< Catalogue index.
  Vec2 position;
  double yaw_rad = 0.0;
  bool face_road = true;  ///< Turn to face the nearest road (yaw_rad ignored).
  std::int64_t osm_id = 0;
};

enum class BarrierKind : std::uint8_t { wall, fence, hedge, guard_rail, kerb };
inline constexpr std::size_t kBarrierKindCount = 5;
const char* to_string(BarrierKind k);

struct Barrier {
  BarrierKind kind = BarrierKind::fence;
  Polyline points;
  double height_m = 0.0;  ///< 0 = the kind's default.
  std::int64_t osm_id = 0;
};

/// A footway, cycleway, path or steps, drawn as a paved strip (not part of the road network).
struct MappedPath {
  Polyline points;
  double width_m = 2.0;
  bool steps = false;
  bool cycleway = false;
  std::int64_t osm_id = 0;
};

/// Everything mapped in an imported place that the set dressing places where it is mapped.
struct Mapped {
  std::vector<GroundArea> areas;
  std::vector<MappedProp> props;
  std::vector<Barrier> barriers;
  std::vector<MappedPath> paths;
  /// Also place procedural benches, bins, hydrants and bus stops (off for imported places:
  /// only what is mapped). Street lights follow roads with RoadEdge::lit either way.
  bool procedural_furniture = false;
};

/// A drawn ground patch (from a mapped area or path), clipped off road and sidewalk surfaces and
/// building footprints; ground_patch_mesh triangulates and drapes it (water stays flat at z_m).
struct GroundPatch {
  GroundKind kind = GroundKind::grass;
  bool path = false;  ///< A path strip (drawn paved, above the ground areas).
  Polygon area;
  double z_m = 0.0;  ///< Water: the surface height (lowest ground on its shore); else unused.
};

/// Ground patches (of areas) stand this far above the block surfaces (roads::Output::
/// block_raise_m), paths this far; water lies flat at its GroundPatch::z_m + block_raise_m +
/// kWaterRaiseM.
inline constexpr double kGroundPatchRaiseM = 0.03;
inline constexpr double kPathRaiseM = 0.06;
inline constexpr double kWaterRaiseM = 0.02;

/// A ground patch's mesh: triangulated and draped on the ground like a block surface
/// (roads::draped_surface: triangles bisected down to two terrain cells) kGroundPatchRaiseM above
/// block_raise_m, paths kPathRaiseM; water flat (normals up). Empty for areas of < 3 points.
Mesh ground_patch_mesh(const GroundPatch& patch, const terrain::Heightfield& ground,
                       double block_raise_m);

/// Fails (invalid_input, "dressing.ground[i]...") on a non-finite point or water height: the set
/// dressing checks its patches so that each can be drawn later (ground_patch_mesh).
Status check_ground_patches(const std::vector<GroundPatch>& patches);

/// ground_patch_mesh of every patch, in order (in parallel, identical at any thread count);
/// check_ground_patches' errors.
Result<std::vector<Mesh>> ground_patch_meshes(const std::vector<GroundPatch>& patches,
                                              const terrain::Heightfield& ground,
                                              double block_raise_m);

/// A leftover zone: block ground with neither sidewalk nor building (or a flat roof).
struct LeftoverZone {
  ZoneKind kind = ZoneKind::plaza;
  Polygon area;
  double z_m = 0.0;          ///< Roof height for rooftops; ground zones follow the terrain.
  double angle_rad = 0.0;    ///< Direction of the longest edge (the scatter's reference).
  std::uint32_t owner = 0;   ///< Block (ground zones) or building (rooftops).
  std::uint32_t stamps = 0;  ///< Biomes placed in it.
};

/// A parking spot along a curb; the simulation spawns parked cars there.
struct ParkingSpot {
  std::array<float, 3> position{};  ///< Centre of the spot on the road surface.
  float yaw_rad = 0.0f;             ///< Along the curb, in the travel direction of the lane.
  float length_m = 6.0f;
  std::uint32_t edge = 0;               ///< layout edge.
  roads::LaneId lane = roads::kNoLane;  ///< The curb lane it lies beside.
};

/// What the ground is made of at an audio point.
enum class Surface : std::uint8_t { road, sidewalk, plaza, park, ground, water };
const char* to_string(Surface s);

/// A point of the audio metadata grid (seeds/000, minute 22).
struct AudioPoint {
  std::array<float, 3> position{};
  Surface surface = Surface::ground;
  float reverb = 0.0f;  ///< Share of horizontal rays hitting a building within the radius.
};

struct Config {
  double tile_m = 1.5;                             ///< Sidewalk tile length along the curb. [> 0]
  std::uint32_t tile_variants = 4;                 ///< Seeded tile variants. [>= 1]
  double ground_tile_m = 2.0;                      ///< Ground cover point spacing. [> 0]
  double light_spacing_m[3] = {28.0, 32.0, 38.0};  ///< Per layout::RoadClass. [> 0]
  double light_curb_offset_m = 0.6;  ///< Lights stand this far from the curb on the sidewalk.
  double tree_spacing_m = 9.0;       ///< Street trees in pits along sidewalks wider than 3 m.
  double park_tree_spacing_m = 7.0;  ///< Minimum distance between park trees (Poisson disk).
  double hydrant_spacing_m = 90.0;
  double bin_spacing_m = 60.0;
  double bench_spacing_m = 80.0;
  double bus_stop_spacing_m = 400.0;           ///< Along arteries and main roads.
  double parking_spot_m = 6.0;                 ///< Spot length along the curb. [> 0]
  double parking_clear_crosswalk_m = 6.0;      ///< No spot this close to a crosswalk.
  double parking_clear_hydrant_m = 4.5;        ///< ... to a hydrant.
  double parking_clear_intersection_m = 10.0;  ///< ... to a junction surface.
  double entrance_clear_m = 0.0;               ///< Extra margin around entrance exclusion boxes.
  double min_zone_area_m2 = 120.0;             ///< Smaller leftovers get ground cover only.
  double audio_grid_m = 3.0;                   ///< Audio point spacing. [> 0]
  double audio_radius_m = 40.0;                ///< Ray length for the reverb estimate. [> 0]
  std::uint32_t audio_rays = 16;               ///< Horizontal rays per point. [>= 4]
  /// Decals (docs/dressing.md, "Decals"): the share of wall pieces (about 2.5 m of a building's
  /// base footprint edge, party walls and doors left out) with grime at their foot. [0, 1]
  double grime_share = 0.25;
  /// The share of approach lanes of signal and stop junctions with tyre marks before their
  /// stop line. [0, 1]
  double tyre_mark_share = 0.8;
  double oil_share = 0.3;  ///< The share of parking spots with an oil stain. [0, 1]
  /// One crack per this many metres of sidewalk (each side of a section) and of carriageway
  /// (each section), on average. [> 0]
  double crack_spacing_m = 45.0;
};

struct Stats {
  std::array<std::size_t, kCategoryCount> items_by_category{};
  std::vector<std::size_t> items_by_prop;  ///< Index = catalogue index.
  std::array<std::size_t, kZoneKindCount> zones_by_kind{};
  std::size_t biome_stamps = 0;
  std::size_t lights = 0;
  std::size_t parking_spots = 0;
  std::size_t audio_points = 0;
  double furnished_sidewalk_km = 0.0;  ///< Curb length that got tiles.
  std::size_t removed_overlaps = 0;    ///< Items dropped because a prior item stood there.
  // Imported places (Inputs::mapped) only; zero for generated cities.
  std::array<std::size_t, kGroundKindCount> patches_by_kind{};  ///< Area patches (not paths).
  std::size_t path_patches = 0;                                 ///< Path strip patches.
  std::size_t mapped_props = 0;   ///< Mapped props placed (trees included).
  std::size_t mapped_plants = 0;  ///< Trees and bushes scattered in parks, forests, scrub
                                  ///< (before overlaps were resolved).
  std::array<std::size_t, kBarrierKindCount> barrier_pieces{};  ///< Segment instances by kind.
  /// Decals by kind: grime, tyre marks, oil stains, cracks.
  std::array<std::size_t, 4> decals{};
};

struct Output {
  std::vector<Item> items;  ///< Sorted by category (enum order), then placement order.
  std::vector<LeftoverZone> zones;
  std::vector<ParkingSpot> parking;
  std::vector<AudioPoint> audio;
  std::vector<GroundPatch> ground;  ///< Mapped areas and paths (imported places only).
  /// The block surfaces' raise (roads::Output::block_raise_m) the patches stand on: patch i is
  /// drawn as ground_patch_mesh(ground[i], terrain, ground_raise_m), made where it is drawn (a
  /// valley's meshes were 60 MB held by every rank).
  double ground_raise_m = 0.0;
  /// Problems that did not stop the city (a biome larger than every zone of its kind...),
  /// each naming the file and what was expected.
  std::vector<std::string> warnings;
  Stats stats;
  /// Wall seconds of each step of run(), in order ("street", "zones", "biomes", ...): where
  /// the stage's time goes (stats.json "timings"."dressing_steps_s"). Not an output: not cached,
  /// not shared between ranks.
  std::vector<std::pair<std::string, double>> step_seconds;
};

/// The outputs of the stages before dressing, as the pipeline hands them (all must outlive the
/// call). An empty output stands for none: no freeway, no rooftops, no styles.
struct Inputs {
  const layout::Output& city;
  /// Props, tiles and ground cover stand on its surfaces (roads::Output::block_raise_m).
  const roads::Output& roads;
  const freeway::Output& freeway;
  const lots::Output& lots;
  const buildings::Output& buildings;
  const terrain::Heightfield& ground;
  /// The buildings' styles: rooftop zones are inset by the style's parapet width + 0.5 m (a
  /// building whose style is not in the library by 0.3 + 0.5 m).
  const buildings::StyleLibrary& styles;
  /// The WFC rooftops; roof tiers with a solved rooftop get no rooftop biome zone.
  const rooftops::RooftopOutput& rooftops;
  /// Mapped features of an imported place (ground areas, water, paths, props, barriers),
  /// placed where mapped; null for a generated city.
  const Mapped* mapped = nullptr;
  /// The processes sharing the work (the audio grid's rows); null: this one alone. The output
  /// is the same for any rank count.
  const Ranks* ranks = nullptr;
};

/// Dresses the city. Each block / edge / zone is an independent job; items are merged in a
/// fixed order and overlapping discs are resolved by priority (signals, lights, hydrants, bus
/// stops, trees, benches, bins, biome props). Same inputs and seed give byte-identical output at
/// any thread count.
Result<Output> run(const Inputs& in, const std::vector<Biome>& biomes, const Config& config,
                   Seed seed);

}  // namespace cityforge::dressing
