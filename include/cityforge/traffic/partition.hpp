// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <vector>

#include "cityforge/core/result.hpp"
#include "cityforge/traffic/network.hpp"

/// The lane graph cut into parts, one per MPI rank of `mpirun -np N cityforge simulate`
/// (docs/traffic.md, "Over MPI ranks"). METIS (Karypis and Kumar, multilevel k-way) cuts a graph
/// whose vertices are units of lanes that must stay together: a junction with its connectors,
/// crosswalks and approach lanes (so the junction coordinator's inputs lie on one rank), and
/// same-direction neighbours (so lane changes stay inside a part). A unit weighs the vehicles
/// it is expected to hold (length x (0.25 + layout density), what spawning draws by); an edge
/// between units weighs the lane links between them. The cuts thus fall between one junction's
/// exits and the next one's approaches, or inside chains of link lanes, never in a junction.
namespace cityforge::traffic {

struct Partition {
  std::uint32_t parts = 1;
  std::vector<std::uint16_t> lane_part;  ///< Per lane: its part, 0 .. parts - 1.
  std::vector<double> part_weight;       ///< Per part: expected vehicles (sum of lane weights).
  /// Per part: expected pedestrians (pedestrian_weight of its sidewalks), METIS's second
  /// constraint; zeros when the network has none.
  std::vector<double> part_pedestrians;
  std::uint32_t units = 0;      ///< Vertices of the graph METIS cut.
  std::uint32_t cut_links = 0;  ///< Lane-to-successor links between parts.
  std::uint32_t cut_lanes = 0;  ///< Lanes with a successor in another part.
  /// max(part_weight) / mean(part_weight): 1 is perfect balance.
  [[nodiscard]] double imbalance() const;
};

/// Cuts `net` into `parts` (1 .. 1024). A junction goes whole to one part with its connectors,
/// crosswalks and approaches, and a block (its sidewalks joined end to end) whole to one part,
/// linked to the parts of the vehicle lanes nearest its sidewalks; the expected vehicles and, with
/// sidewalks, the expected pedestrians are balanced (two METIS constraints). Deterministic: the
/// same network, part count and seed give the same partition on every machine of one build
/// (METIS is seeded and single-threaded). Fewer units than parts: the units are dealt in turn.
/// Errors (internal): METIS failed.
Result<Partition> partition_network(const Network& net, std::uint32_t parts, std::uint64_t seed);

/// The expected vehicles on a lane, in the unit partition_network weighs by (0 for lanes
/// vehicles do not use).
double lane_weight(const Network& net, LaneId lane);

/// The expected pedestrians on a lane: a sidewalk's length x its pedestrian density (0 for other
/// lanes), partition_network's second weight.
double pedestrian_weight(const Network& net, LaneId lane);

/// Per lane: for a sidewalk, the vehicle lane nearest the point half way along it (ties: the
/// lower id); kNoLane for every other lane, and for all when the network has no vehicle lane.
/// partition_network links each block to the units of its sidewalks' nearest lanes.
std::vector<LaneId> nearest_vehicle_lanes(const Network& net);

}  // namespace cityforge::traffic
