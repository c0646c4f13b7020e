// SPDX-License-Identifier: Apache-2.0
#pragma once

// Working data shared by the phases of the building generator (generator*.cpp, volumes.cpp,
// facade.cpp, occlusion.cpp, rooms.cpp, roofs.cpp, run.cpp). Not a public header.

#include <array>
#include <cstdint>
#include <vector>

#include "cityforge/buildings/buildings.hpp"

namespace cityforge::buildings::detail {

/// Which level of the style's level dictionary a floor uses.
enum class LevelKind : std::uint8_t { ground, typical, top };

/// One floor slice of one volume, metres above the building base.
struct Floor {
  std::uint32_t index = 0;  ///< Building-global floor number (0 = ground floor).
  std::uint32_t volume = 0;
  double z0_m = 0.0;
  double z1_m = 0.0;
  LevelKind level = LevelKind::typical;
};

/// Slices every volume into floors (generator_floors.cpp).
std::vector<Floor> slice_floors(const std::vector<Volume>& volumes, const Style& style);
const Level& level_of(const Style& style, LevelKind kind);

/// Corner type of a ring vertex (generator_corners.cpp).
enum class CornerKind : std::uint8_t { convex, concave, split };

/// Classifies each vertex i of a ring whose solid lies left of the edge direction (outer ring
/// counter-clockwise, holes clockwise): split when the edges are collinear within tol_deg.
std::vector<CornerKind> classify_corners(const Ring& ring, double tol_deg);

/// Corner modules of a ring: per vertex the module (-1 none), per edge the length consumed at
/// its start (vertex i) and end (vertex i+1).
struct RingCorners {
  std::vector<CornerKind> kind;
  std::vector<std::int32_t> module;
  std::vector<double> start_m;
  std::vector<double> end_m;
};
RingCorners ring_corners(const Ring& ring, const Style& style);

/// One floor of one ring edge of one volume.
struct Facade {
  std::uint32_t volume = 0;
  std::uint32_t floor = 0;  ///< Index into BuildingWork::floors.
  std::uint32_t ring = 0;
  std::uint32_t edge = 0;
  Vec2 a;       ///< Edge start.
  Vec2 dir;     ///< Unit direction.
  Vec2 normal;  ///< Outward unit normal (right of dir).
  double length_m = 0.0;
  double z0_m = 0.0;  ///< Above the building base.
  double z1_m = 0.0;
  std::int32_t grammar = -1;
  bool fits = true;
  std::uint32_t first = 0;  ///< Range in BuildingWork::placed.
  std::uint32_t count = 0;
};

/// A facade module placed on [t0, t1] along its facade edge.
struct Placed {
  std::uint32_t module = 0;  ///< Style-local module index.
  std::uint32_t facade = 0;
  double t0 = 0.0;
  double t1 = 0.0;
  bool corner = false;
  bool removed = false;  ///< Occluded.
  std::uint32_t room = kNoRoom;
};

/// A building being generated (one per parcel with a building).
struct BuildingWork {
  Building building;
  const Style* style = nullptr;
  std::uint32_t local = 0;  ///< Index of the building within its lot.
  double base_z_m = 0.0;
  std::vector<Floor> floors;
  std::vector<Facade> facades;
  std::vector<Placed> placed;
  std::vector<Instance> props;      ///< Signs and fire escapes, positions above the building base.
  std::vector<Entrance> entrances;  ///< Positions above the building base.
  std::size_t fallbacks = 0;
  bool imported = false;  ///< Volumes are mapped parts: walls between them are occluded too.
};

/// Mesh height a module's instances scale from.
double mesh_height(const Style& style, const ModuleDef& m);
/// Facade yaw: module +x runs against the edge direction so +y points out of the building.
double facade_yaw(Vec2 dir);

/// A volume of a building of a neighbouring lot, in absolute coordinates: read-only context for
/// occlusion, derived from that lot's DNA alone so every lot stays an independent job.
struct NeighbourSolid {
  Polygon footprint;
  Aabb2 bounds;
  double z0 = 0.0;
  double z1 = 0.0;
  double parapet_m = 0.0;  ///< parapet_hides_m of the volume.
};

/// How far above `volume`'s top its parapet hides a wall lying against the volume's outline
/// (roofs.cpp builds the parapets): the style's parapet height on a flat top whose parapet is
/// at least `push_m` thick, else 0 (pitched tops, no parapet).
double parapet_hides_m(const Style& style, const Volume& volume, double push_m);

/// Two walls lie against each other when parallel within 1 degree (|sin| below this): party
/// walls cut facades (party_walls.cpp) and occlusion hides walls (occlusion.cpp) by the same test.
inline constexpr double kAgainstSin = 0.0175;

/// A volume that may hide walls: of a building of the lot (`building` its index in the works)
/// or of a neighbouring lot (`building` = the number of works). Points into what made it.
struct LotSolid {
  std::uint32_t building = 0;
  std::uint32_t volume = 0;
  const Polygon* footprint = nullptr;
  Aabb2 bounds;
  double z0 = 0.0;  ///< Absolute heights.
  double z1 = 0.0;
  double parapet_m = 0.0;  ///< Its parapet hides walls up to z1 + parapet_m (parapet_hides_m).
};

/// The volumes of every building of `works` and the `neighbours` (occlusion.cpp); `push_m`
/// decides which parapets hide (parapet_hides_m).
std::vector<LotSolid> lot_solids(const std::vector<BuildingWork>& works,
                                 const std::vector<NeighbourSolid>& neighbours, double push_m);

/// Another building's wall lying against a facade edge: the solids, the push that counts as
/// touching and the shortest wall piece a party wall may leave (the style's minimum wall).
struct PartyWalls {
  const std::vector<LotSolid>* solids = nullptr;
  std::uint32_t self = 0;  ///< This building's index among the solids.
  bool imported = false;   ///< Its volumes are mapped parts that may hide each other's walls.
  double push_m = 0.05;
};

/// Where other buildings' walls lying against the edge a -> b of volume `volume` (absolute
/// heights z0..z1) begin or end, as distances from a inside (from, to), every piece between
/// them at least min_m long (party_walls.cpp). Empty when nothing lies against it.
std::vector<double> party_wall_breaks(const PartyWalls& walls, std::uint32_t volume, Vec2 a, Vec2 b,
                                      double z0, double z1, double from, double to, double min_m);

/// Slices floors, finds corners and fits grammars to every facade (facade.cpp); with `walls`,
/// an edge against which another building stands is fitted piece by piece between the ends of
/// that building's wall, the same pieces on every floor, so occlusion can take the pieces the
/// other building hides whole.
void place_facades(BuildingWork& work, const PartyWalls* walls);

/// Removes modules on walls touching other buildings of the lot or of adjacent lots (`solids`
/// from lot_solids), where every point of the module is hidden by those buildings, their
/// parapets or the `ground` (optional) below them (occlusion.cpp). Returns the number removed.
std::size_t occlude_lot(std::vector<BuildingWork>& works, double push_m,
                        const std::vector<LotSolid>& solids, const terrain::Heightfield* ground);
/// Entrances on street facades (generator_entrances.cpp).
void place_entrances(BuildingWork& work, const lots::Parcel& parcel, const Config& config);
/// Rooms along window runs (rooms.cpp); returns the rooms made.
std::uint32_t assign_rooms(BuildingWork& work, Seed seed, std::uint32_t lot);
/// Signs near entrances (generator_signage.cpp).
void place_signage(BuildingWork& work, const std::vector<TagVolume>& tags, std::uint32_t lot,
                   std::uint32_t first_module);
/// Fire escapes on facades inside "fire_escape" tag volumes (generator_overrides.cpp).
void place_fire_escapes(BuildingWork& work, const std::vector<TagVolume>& tags,
                        std::uint32_t first_module);
/// Flat roofs with parapets over every exposed tier top (roofs.cpp), z above the base.
std::array<Mesh, kMaterialCount> build_roofs(const std::vector<Volume>& volumes, const Style& style,
                                             std::size_t* triangles);

/// One trapezoid swept by a wavefront edge of the straight skeleton between two events: the
/// edge's segment a0 -> b0 at time t0 and a1 <- b1 at time t1 (straight_skeleton.cpp). The face of
/// original edge `edge` (outer ring edges first, then each hole's) is the union of its quads.
struct SkeletonQuad {
  std::uint32_t edge = 0;
  Vec2 a0;
  Vec2 b0;
  Vec2 b1;
  Vec2 a1;
  double t0 = 0.0;
  double t1 = 0.0;
};
/// The straight skeleton of a polygon with holes as swept trapezoids; false when the wavefront
/// simulation does not settle (degenerate input).
bool skeleton_quads(const Polygon& footprint, std::vector<SkeletonQuad>* quads);
/// The pitched roof of an imported volume (vol.roof != flat, roof_height_m > 0) on its wall top:
/// roof triangles, and wall triangles filling gable ends and skillion sides up to the roof.
/// False when nothing could be built (the caller draws a flat roof).
bool build_shaped_roof(const Volume& vol, std::array<Mesh, kMaterialCount>& parts);
/// A plinth around the footprint from bottom_z up to top_z (trim), absolute heights.
void build_plinth(const Polygon& footprint, double bottom_z, double top_z, Mesh& trim);

/// The whole lot with per-parcel base heights (generator.cpp). base_z may be empty (all 0).
/// `footing` (optional, per parcel): the lowest ground under the walls where an imported
/// building stands on sloped ground (NaN: none); a plinth then reaches down to it.
/// `volumes` (optional): building_volumes of each parcel, already made; moved from.
/// `ground` (optional): the terrain, which hides what lies under it (occlude_lot).
Result<Output> generate_lot_at(const lots::Lot& lot, const StyleLibrary& library,
                               const std::vector<TagVolume>& tags, const Config& config, Seed seed,
                               const std::vector<double>& base_z,
                               const std::vector<NeighbourSolid>& neighbours,
                               std::vector<std::vector<Volume>>* volumes = nullptr,
                               const std::vector<double>* footing = nullptr,
                               const terrain::Heightfield* ground = nullptr);

/// Removes consecutive duplicate and collinear points from a ring.
Ring simplify_ring(const Ring& ring);

}  // namespace cityforge::buildings::detail
