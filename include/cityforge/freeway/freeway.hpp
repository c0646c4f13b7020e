// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cityforge/core/mesh.hpp"
#include "cityforge/core/polygon.hpp"
#include "cityforge/core/result.hpp"
#include "cityforge/core/rng.hpp"
#include "cityforge/core/vec.hpp"
#include "cityforge/layout/layout.hpp"
#include "cityforge/roads/roads.hpp"
#include "cityforge/terrain/heightfield.hpp"

/// The freeway tool (seeds/000, minutes 12:20-14:45): designer curves become an elevated deck
/// (a mesh cut into chunks), barriers, pillars down to the terrain, freeway lanes and on / off
/// ramps that join the arteries of the lane graph, and a footprint the lots keep clear of.
namespace cityforge::freeway {

/// A freeway drawn by the designer (the `freeways` array of the city JSON).
struct FreewayCurve {
  std::string name;
  /// x, y in metres and the deck top's height above the ground (z) at that point. The deck
  /// runs through the points, its corners rounded; heights are interpolated along it.
  std::vector<Vec3> points;
  int lanes_per_direction = 3;   ///< [Limit: 1..6]
  double design_speed_kmh = 90;  ///< Sets the smallest curve radius. [Limit: (0, 200]]
};

/// Freeway rules. Deck width = median_m + 2 * (lanes_per_direction * lane_width_m + shoulder_m).
struct Config {
  double lane_width_m = 3.6;       ///< [Limit: > 0]
  double shoulder_m = 2.5;         ///< Each outer side. [Limit: >= 0]
  double median_m = 2.0;           ///< Between the two directions, holds a barrier. [>= 0]
  double deck_thickness_m = 1.6;   ///< Deck top to underside. [Limit: > 0]
  double barrier_height_m = 1.1;   ///< Above the deck top. [Limit: > 0]
  double barrier_width_m = 0.4;    ///< [Limit: > 0]
  double pillar_spacing_m = 30.0;  ///< Along the centre line. [Limit: > 0]
  double sample_spacing_m = 5.0;   ///< Centre line resampling. [Limit: > 0]
  /// Smallest radius for design speed v (km/h): R = v^2 / (127 (e + f)), the AASHTO point-mass
  /// formula with superelevation e and side friction f (90 km/h -> 319 m).
  double superelevation = 0.08;
  double side_friction = 0.12;
  double road_clearance_m = 5.0;     ///< Deck underside above the ground where it spans a road.
  double min_ground_gap_m = 1.0;     ///< Deck underside above the ground anywhere else.
  double ramp_interval_min_m = 800;  ///< Ramp sites every uniform(min, max) metres, by seed.
  double ramp_interval_max_m = 1200;
  double ramp_reach_m = 400;       ///< Farthest artery section a ramp site may serve.
  double min_ramp_length_m = 120;  ///< Plan length of a ramp. [Limit: > 0]
  double max_ramp_grade = 0.06;    ///< Rise over plan run. [Limit: > 0]
  double ramp_speed_kmh = 50;
  double ramp_lane_width_m = 4.0;
  /// Ramp deck width = ramp_lane_width_m + 2 * ramp_shoulder_m. [Limit: >= 0]
  double ramp_shoulder_m = 1.0;
  double ramp_thickness_m = 1.2;  ///< Ramp deck top to underside. [Limit: > 0]
  /// A ramp whose top is less than this above the terrain is a road ribbon (top only) at the
  /// lane's height; higher, it is a slab with sides and underside.
  double ramp_ground_m = 0.5;
  double ramp_barrier_above_m = 1.0;  ///< Ramp barriers where the top is higher above terrain.
  double ramp_pillar_above_m = 3.0;   ///< Ramp pillars where the underside is higher.
  double chunk_m = 100.0;             ///< Side of the square mesh chunks. [Limit: > 0]
};

/// One square piece of a mesh: the triangles clipped to [cx, cx + 1) x [cy, cy + 1) * chunk_m.
struct MeshChunk {
  std::int32_t cx = 0;
  std::int32_t cy = 0;
  Mesh mesh;
};

/// A pillar instance: stands on the terrain at `base`, reaches up to the deck underside.
struct Pillar {
  std::uint32_t freeway = 0;
  Vec3 base;            ///< On the terrain.
  double height_m = 0;  ///< Deck underside minus base.z.
  double yaw_rad = 0;   ///< Heading of the deck there.
};

/// The resampled, rounded deck of one freeway.
struct Deck {
  std::string name;
  std::vector<Vec3> centre;  ///< Deck top centre line, about sample_spacing_m apart.
  double width_m = 0;
  double length_m = 0;
};

/// A ramp that was built.
struct Ramp {
  std::uint32_t freeway = 0;
  bool off = true;                ///< Off-ramp (freeway -> artery) or on-ramp.
  roads::LaneId lane = 0;         ///< The new ramp lane.
  roads::LaneId artery_lane = 0;  ///< The existing artery lane it joins.
  std::uint32_t section = 0;      ///< The artery's roads::Output section.
  double station_m = 0;           ///< Diverge / merge station along the deck centre line.
  double length_m = 0;            ///< Plan length.
  double grade = 0;               ///< Rise over plan run (constant along the ramp).
};

/// A link between an existing lane of the roads graph and a new lane of this stage. The new
/// lane already lists it; the caller adds `to` to `from`'s successors when `from` is existing,
/// or `from` to `to`'s predecessors when `to` is existing.
struct LaneLink {
  roads::LaneId from = 0;
  roads::LaneId to = 0;
};

/// Everything the freeway tool produces.
struct Output {
  std::vector<Deck> decks;  ///< One per input curve, same order.
  /// Deck and ramp slabs (top, sides, underside, end caps) and ramp ribbons near the ground;
  /// by (cy, cx), each chunk's triangles decks first (by freeway), then ramps (in `ramps`
  /// order).
  std::vector<MeshChunk> deck_chunks;
  /// Outer and median deck barriers, then ramp barriers (both sides, where the ramp is more
  /// than ramp_barrier_above_m above the terrain and off its deck); by (cy, cx).
  std::vector<MeshChunk> barrier_chunks;
  /// Deck pillars by freeway, then station; then ramp pillars (where the ramp underside is more
  /// than ramp_pillar_above_m above the terrain, off the deck) in `ramps` order, then station.
  std::vector<Pillar> pillars;
  std::vector<Mesh> pillar_meshes;  ///< pillar_mesh of each of `pillars`, same order.
  /// Deck outlines in plan by freeway, then the elevated ramp outlines in `ramps` order.
  std::vector<Polygon> footprints;
  roads::LaneId first_lane_id = 0;  ///< = the roads graph's lane count.
  /// Freeway lanes (kVehicle | kFreeway, cut at ramp diverges and merges) and ramp lanes
  /// (kVehicle | kRamp); lanes[i].id == first_lane_id + i.
  std::vector<roads::Lane> lanes;
  std::vector<Ramp> ramps;
  std::vector<LaneLink> links;        ///< Existing <-> new lane links to add.
  std::vector<std::string> warnings;  ///< Ramp sites skipped, and why.
};

/// A pillar as a 2 x 2 m box turned by its yaw, flat-shaded walls (no caps) from half a metre
/// below its base (so it never floats on a slope) up to the deck underside.
Mesh pillar_mesh(const Pillar& pillar);

/// Smallest curve radius in metres allowed at design speed v: v^2 / (127 (e + f)).
double min_radius_m(double design_speed_kmh, const Config& config);

/// Builds every freeway. Errors (invalid_input, `where` = "freeways[i]" or
/// "freeways[i].points[j]"): bad lane count or speed, fewer than 2 distinct points (zero-length
/// curve), a corner sharper than the design speed allows (the largest arc that fits between
/// the neighbouring points is smaller than min_radius_m), a deck underside closer than
/// road_clearance_m to the ground over a road or min_ground_gap_m elsewhere, two decks
/// overlapping in plan away from a shared end, and a freeway with no artery section within
/// ramp_reach_m of any of its ramp sites ("ramp cannot reach an artery"). A single site with no
/// artery in reach, or no grade-respecting ramp, is skipped with a warning.
/// Deterministic for a seed at any thread count.
Result<Output> run(const std::vector<FreewayCurve>& curves, const layout::Output& city,
                   const roads::Output& roads, const terrain::Heightfield& ground,
                   const Config& config, Seed seed);

/// The roads lane graph with this stage's freeway and ramp lanes appended and its links
/// applied (successor and predecessor lists stay sorted): the one graph a simulation drives.
roads::LaneGraph merged_lanes(const roads::LaneGraph& roads, const Output& freeway);

}  // namespace cityforge::freeway
