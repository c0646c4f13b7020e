// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cityforge/core/result.hpp"
#include "cityforge/core/vec.hpp"
#include "cityforge/traffic/network.hpp"

/// Pedestrians on the sidewalk and crosswalk lanes (seeds/002, seeds/000 minutes 50-56):
/// the walk network, behaviours, avoidance, levels of detail, the pool of full-fidelity agents
/// and shepherds (docs/crowd.md).
namespace cityforge::crowd {

using LaneId = traffic::LaneId;
inline constexpr LaneId kNoLane = traffic::kNoLane;

/// A way onto a pedestrian lane: entering it at its start walks it forward (+1), entering at
/// its end walks it backward (-1). Pedestrian lanes are walked both ways.
struct WalkStep {
  LaneId lane = kNoLane;
  std::int8_t dir = 1;  ///< +1: start -> end, -1: end -> start.
  friend bool operator==(const WalkStep&, const WalkStep&) = default;
};

/// The pedestrian lanes of a traffic::Network (tags kSidewalk or kCrosswalk) with, for each
/// lane end, the ways on from there. Geometry, lengths, widths and junctions are the
/// network's (index = LaneId); this adds only the walking topology.
struct WalkNetwork {
  const traffic::Network* net = nullptr;
  std::vector<LaneId> lanes;         ///< Pedestrian lanes, ascending.
  std::vector<std::uint32_t> index;  ///< Per network lane: position in `lanes`, or kNone.
  /// Per pedestrian lane i and end e (0 = start, 1 = end): exits[exit_begin[2i + e] ..
  /// exit_begin[2i + e + 1]) are the ways on from that end (the lane itself excluded), sorted by
  /// lane id. An exit entered at its start walks forward.
  std::vector<std::uint32_t> exit_begin;  ///< size 2 * lanes.size() + 1.
  std::vector<WalkStep> exits;
  /// Sidewalk lanes left out because their walking band runs over a carriageway (tightly
  /// clustered junctions can lead a short link's sidewalk across the other junction's
  /// connectors); nobody is spawned on, routed over or placed on them.
  std::vector<LaneId> excluded;
  /// Per network lane: where a body's centre may be, as offsets left of the lane's direction
  /// (metres): [band_lo, band_hi] within the half width less kBodyRadiusM, the widest strip
  /// clear of carriageways and buildings all along the lane.
  std::vector<float> band_lo;
  std::vector<float> band_hi;
  /// Per network lane: the symmetric band, min(-band_lo, band_hi), or -1 when the strip does
  /// not hold the centre line (a corner sidewalk whose centre line cuts a building's corner:
  /// the crowd walks its clear side; shepherds do not use it).
  std::vector<float> band_m;
  bool centre_clear(LaneId lane) const { return walkable(lane) && band_m[lane] >= 0; }
  static constexpr std::uint32_t kNone = 0xffffffffU;

  bool walkable(LaneId lane) const { return lane < index.size() && index[lane] != kNone; }
  bool crosswalk(LaneId lane) const { return net->is(lane, roads::kCrosswalk); }
  /// Ways on from the end reached when walking `lane` in direction `dir`.
  std::pair<const WalkStep*, const WalkStep*> exits_after(LaneId lane, int dir) const {
    const std::uint32_t k = 2 * index[lane] + (dir > 0 ? 1U : 0U);
    return {exits.data() + exit_begin[k], exits.data() + exit_begin[k + 1]};
  }
  /// Half the walkable width of a lane (metres).
  float half_width(LaneId lane) const { return 0.5f * net->width_m[lane]; }
};

/// A building footprint: rings of x y points, the first the outline, the others holes.
using Footprint = std::vector<std::vector<Vec2>>;

/// The building footprints of a `generate` output's layout.geojson (features with "layer":
/// "building", Polygon or MultiPolygon). Errors name the file and the place.
Result<std::vector<Footprint>> load_building_footprints(const std::string& layout_geojson);
/// The same for a layout.geojson held in memory; `name` stands for the file in errors.
Result<std::vector<Footprint>> parse_building_footprints(std::string_view text,
                                                         const std::string& name);

/// Body radius and tolerance of the clear-band test: a point of a sidewalk's band is blocked
/// when it lies within a vehicle lane's half width less kCarriagewayToleranceM of that lane (at
/// about its height) or inside a building footprint.
inline constexpr double kBodyRadiusM = 0.25;
inline constexpr double kCarriagewayToleranceM = 0.1;

/// Builds the walk network of `net`: exits join lane ends closer than `join_m` (the roads stage
/// joins sidewalks, corner sidewalks and crosswalks end to end). Each sidewalk's walking band
/// is narrowed to the widest strip clear of carriageways and `buildings` all along it (exact
/// distances when the whole band is clear, else offsets every 5 cm tested every 20 cm, 10 cm
/// kept from blocked sides); a sidewalk with no strip of 20 cm is left out (`excluded`). At tightly
/// clustered junctions the roads stage can lead a short link's sidewalk over the other junction's
/// connectors, and a corner sidewalk at a bend can cut a building's corner; the crowd walks round
/// both. `net` must outlive the result.
WalkNetwork build_walk_network(const traffic::Network& net,
                               const std::vector<Footprint>& buildings = {}, double join_m = 0.05);

/// A point on the walk network: lane, arc length from the lane's start, walking direction.
struct WalkPoint {
  LaneId lane = kNoLane;
  float s_m = 0;
  std::int8_t dir = 1;
};

}  // namespace cityforge::crowd
