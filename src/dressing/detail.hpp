// SPDX-License-Identifier: Apache-2.0
#pragma once

// Private to the dressing module: the generators run() calls, one file each.

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "cityforge/core/ranks.hpp"
#include "cityforge/dressing/dressing.hpp"

namespace cityforge::dressing::detail {

// ---- Sidewalks, ground, audio (sidewalk_tiles.cpp, ground_cover.cpp, audio.cpp) -------------

/// How tiles cover one straight run of a sidewalk (for tests): [t0, t1] along the run.
struct TileRun {
  std::uint32_t sidewalk = 0;  ///< Index in roads::Output::sidewalks.
  std::uint32_t run = 0;       ///< Straight run index within that sidewalk.
  double length_m = 0.0;
  std::vector<std::array<double, 2>> spans;  ///< Sorted; corner pieces included.
  Vec2 start;          ///< The run's first block corner; t runs from here along `direction`.
  Vec2 direction;      ///< Unit; the curb lies to its right (blocks are counter-clockwise).
  double width_m = 0;  ///< Typical sidewalk width across the run (0: no sidewalk found).
};
/// Tiles along every sidewalk: the right number of tiles per straight run (stretched to fit,
/// like road modules), seeded variants, outside corners (fan pieces around curb returns) and
/// inside corners (two triangular pieces scaled non-uniformly). Appends to `out`; returns the
/// curb length tiled in metres. `runs` (optional) receives the coverage per run.
double sidewalk_tiles(const Inputs& in, const Config& config, Seed seed, std::vector<Item>& out,
                      std::vector<TileRun>* runs);
/// Ground tiles (a point per ground_tile_m cell) over every block minus building footprints.
void ground_cover(const Inputs& in, const Config& config, Seed seed, std::vector<Item>& out);
/// The audio metadata grid over the walkable surface (roads, sidewalks, plazas, parks, ground).
std::vector<AudioPoint> audio_grid(const Inputs& in, const Config& config);

// ---- Leftover zones and biomes (zones.cpp, scatter.cpp) ---------------------------------------

/// Block ground with neither sidewalk nor building, classified as plaza, parking or
/// freeway_underside, plus the flat roofs of buildings (rooftop), each with its longest-edge
/// direction. Zones under min_zone_area_m2 are dropped.
std::vector<LeftoverZone> leftover_zones(const Inputs& in, const Config& config);
/// The packing scatterer: per zone, biomes of its kind are stamped on a grid aligned with the
/// zone's longest edge (the pattern origin and angle chosen among a few candidates for the most
/// stamps), each stamp wholly inside the zone and clear of the others. Appends the parts to
/// `out`; counts stamps in each zone; a biome that fits no zone of its kind gets one warning.
void scatter_biomes(std::vector<LeftoverZone>& zones, const std::vector<Biome>& biomes,
                    const Inputs& in, const Config& config, Seed seed, std::vector<Item>& out,
                    std::vector<std::string>& warnings);

// ---- Streets (lights.cpp, vegetation.cpp, furniture.cpp, parking.cpp, overlaps.cpp) -----------

/// Street lights on both sides of every lit section (RoadEdge::lit), class spacing, curb side of
/// the sidewalk; none inside a junction, on a crosswalk or in an entrance exclusion. state = 1.
void street_lights(const Inputs& in, const Config& config, Seed seed, std::vector<Item>& out);
/// Street trees in tree pits (sidewalks wide enough), park trees and bushes (Poisson disk),
/// seeded per zone / block so the same place always gets the same trees.
/// `placed` holds the lights and furniture already placed: trees keep clear of lights and
/// hydrants.
void vegetation(const Inputs& in, const Config& config, Seed seed, const std::vector<Item>& placed,
                std::vector<Item>& out);
/// Benches, bins, hydrants, bus stops; signal poles and heads at signalised junctions (one head
/// per approach leg); stop / yield signs at stop / yield junctions. None in entrance exclusions.
void furniture(const Inputs& in, const Config& config, Seed seed, std::vector<Item>& out);
/// Parking spots along the curb lanes of sections, clear of crosswalks, hydrants (from
/// `placed`), junction surfaces and entrances by the documented distances.
std::vector<ParkingSpot> parking_spots(const Inputs& in, const Config& config,
                                       const std::vector<Item>& placed);
/// Decals (decals.cpp; dressing.hpp, "Decals"): grime at the foot of a share of the ground-floor
/// wall and window modules (owner: building), tyre marks in a share of the approach lanes of
/// signal and stop junctions before the stop line (owner: lane), oil stains in a share of the
/// parking spots (owner: spot index), cracks on carriageways and sidewalks (owner: section).
/// Appended in that order (each kind in object order); counts[kind] is how many of each.
void decals(const Inputs& in, const Config& config, Seed seed,
            const std::vector<ParkingSpot>& parking, std::vector<Item>& out,
            std::array<std::size_t, 4>& counts);
/// Drops items whose footprint disc overlaps an earlier kept one (by priority order of the
/// categories, then input order); surfaces (radius 0) are never dropped. Returns the number
/// dropped.
std::size_t resolve_overlaps(std::vector<Item>& items);
/// The rank resolve_overlaps keeps items by (lower first): signal_pole, signal_head, stop_sign,
/// yield_sign; street_light, parking_lamp; hydrant, bus_stop, bench, bin, bike_rack, bollard,
/// picnic_table; street_tree, park_tree, planter, bush; biome props. -1 for surfaces (radius 0,
/// sidewalk and ground tiles): never dropped, never blocking.
int overlap_priority(std::uint32_t prop);

/// Bridson's Poisson-disk sampler over a polygon (vegetation.cpp): points at least spacing_m
/// apart that `accept` takes, drawn from `rng`; empty when the polygon's box holds more than 4 M
/// grid cells.
std::vector<Vec2> poisson_points(const Polygon& area, double spacing_m, Rng& rng,
                                 const std::function<bool(Vec2)>& accept);

// ---- Imported places (mapped.cpp; only when Inputs::mapped is set) ----------------------------

/// The mapped ground areas and path strips (polylines buffered by half their width), clipped
/// off carriageways (bridges and tunnels excepted), junction surfaces, sidewalks and building
/// footprints; land areas also off water areas. Areas first (Mapped order), then paths. Water
/// gets z_m = the lowest ground on its outline.
std::vector<GroundPatch> mapped_ground(const Inputs& in);
/// Trees scattered in parks (sparse) and forests (dense), bushes in scrub, over the patches,
/// seeded per patch, clear of the mapped props.
void mapped_plants(const Inputs& in, const Config& config, Seed seed,
                   const std::vector<GroundPatch>& patches, std::vector<Item>& out);
/// The mapped props where they are mapped (on the sidewalk when mapped on a carriageway), on the
/// ground / sidewalk surface, facing the nearest road when asked.
void mapped_props(const Inputs& in, const Config& config, std::vector<Item>& out);
/// Barrier segment instances along every mapped barrier, one piece per at most 3 m of each
/// polyline segment, each at the ground height of its middle; none on carriageways or junctions
/// (gates and crossings) except kerbs. Adds the pieces per kind to `pieces`.
void mapped_barriers(const Inputs& in, const Config& config, std::vector<Item>& out,
                     std::array<std::size_t, kBarrierKindCount>& pieces);
/// Drops the items (not surfaces) whose footprint disc meets one of `fixed` on the same level;
/// returns how many.
std::size_t drop_overlapping(std::vector<Item>& items, const std::vector<Item>& fixed);
/// Imported places: drops the ground zones (not rooftops) that are no plaza or parking: larger
/// than kMaxMappedZoneM2 (the leftover of a mountain block, whose scatter would also take
/// minutes), or whose centroid lies on a mapped land or water patch (not pavement).
inline constexpr double kMaxMappedZoneM2 = 40000.0;
void drop_wild_zones(std::vector<LeftoverZone>& zones, const std::vector<GroundPatch>& patches);
/// Drops the items (not surfaces) standing in a water patch; returns how many.
std::size_t drop_in_water(std::vector<Item>& items, const std::vector<GroundPatch>& patches);

/// share_results over the ranks in `in.ranks` (one rank when none). The generators have no
/// error channel: a message from another rank that does not read back (the same binary on every
/// rank; it cannot happen short of memory corruption) aborts the job.
template <class T, class Cost, class Job, class Put, class Get>
std::vector<T> shared_jobs(const Inputs& in, std::size_t n, const char* what, Cost&& cost,
                           Job&& job, Put&& put, Get&& get) {
  const Ranks& ranks = in.ranks != nullptr ? *in.ranks : single_rank();
  Result<std::vector<T>> out = share_results<T>(ranks, n, what, cost, job, put, get);
  if (!out) ranks.abort(3);
  return std::move(*out);
}

/// A polygon (outer ring, then its holes) for shared_jobs' messages.
void put_polygon(ByteWriter& w, const Polygon& p);
Status get_polygon(ByteReader& r, Polygon& p);

}  // namespace cityforge::dressing::detail
