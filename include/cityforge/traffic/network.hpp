// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cityforge/core/result.hpp"
#include "cityforge/core/vec.hpp"
#include "cityforge/roads/roads.hpp"

/// The traffic simulation (seeds/000, minutes 45-59): vehicles on lane queues with a car
/// following model, signals and an intersection coordinator, lane changes with ghost slots,
/// density route choice and A* trips, parked cars. This header: the runtime lane graph.
namespace cityforge::traffic {

using LaneId = roads::LaneId;
inline constexpr LaneId kNoLane = roads::kNoLane;

/// A point on a lane with the lane's heading there.
struct LanePose {
  Vec3 position;           ///< Metres, x east, y north, z up.
  double heading_rad = 0;  ///< Direction of travel, counter-clockwise from +x.
};

/// The runtime lane graph: the roads::LaneGraph flattened into arrays for the tick loops, with
/// the tables the coordinator needs (conflicts, approaches, merges). Index = LaneId for every
/// per-lane array; CSR lists are `xs[x_begin[i] .. x_begin[i + 1])`.
struct Network {
  // -- Per lane --------------------------------------------------------------------------------
  std::vector<float> length_m;             ///< > 0 for every vehicle lane.
  std::vector<float> speed_limit_mps;      ///< > 0 for every vehicle lane.
  std::vector<std::uint32_t> tags;         ///< roads::LaneTag bits.
  std::vector<std::int32_t> intersection;  ///< Junction index of connectors / crosswalks, or -1.
  std::vector<LaneId> left;            ///< Same-direction neighbour towards the centre, or kNoLane.
  std::vector<LaneId> right;           ///< Same-direction neighbour towards the curb, or kNoLane.
  std::vector<float> traffic_density;  ///< Layout traffic density 0..1 (spawning, routing).
  std::vector<float> width_m;          ///< Lane width (sidewalks: the walkable band).
  std::vector<float> pedestrian_density;  ///< Layout pedestrian density 0..1 (crowd spawning).
  std::vector<roads::Turn> turn;
  std::vector<std::uint32_t> succ_begin;  ///< size lanes + 1.
  std::vector<LaneId> succ;               ///< Successors, sorted.
  std::vector<std::uint32_t> pred_begin;  ///< size lanes + 1.
  std::vector<LaneId> pred;               ///< Predecessors, sorted.

  // -- Geometry: polylines with cumulative arc length -------------------------------------------
  std::vector<std::uint32_t> point_begin;  ///< size lanes + 1.
  std::vector<Vec3> points;                ///< Centre lines, x y z.
  std::vector<float> point_s;              ///< Arc length (3D) of each point from its lane's start.

  // -- Junctions -------------------------------------------------------------------------------
  std::vector<roads::Control> control;  ///< Per intersection (junction index).
  /// Per intersection: its vehicle connector lanes (kVehicle | kIntersection), ascending.
  /// Connectors outside any junction (intersection -1: freeway turnarounds) are in no list.
  std::vector<std::uint32_t> connector_begin;  ///< size intersections + 1.
  std::vector<LaneId> connectors;
  /// Per lane (meaningful for connectors): the connectors of the same junction that may not
  /// carry vehicles at the same time as it. Two connectors conflict when their centre lines
  /// cross (outside a shared start: connectors leaving the same lane diverge, they do not
  /// cross) or when they end on the same lane (a merge). Symmetric, sorted, no self.
  std::vector<std::uint32_t> conflict_begin;  ///< size lanes + 1.
  std::vector<LaneId> conflicts;
  /// Per entry of `conflicts`: arc length along the lane of its last crossing with that
  /// connector (the lane's length for a merge). A vehicle whose rear is past it no longer
  /// blocks the other movement.
  std::vector<float> conflict_s;
  /// Per lane (meaningful for connectors): the crosswalk lanes of the same junction whose
  /// centre line its movement crosses: the connector, the last 10 m of its incoming lane or the
  /// first 10 m of its outgoing lane (crosswalks lie just outside the junction, so the lanes
  /// cross them, not the connector; the roads stage's signal plans use the same rule). Sorted.
  std::vector<std::uint32_t> crosswalk_begin;  ///< size lanes + 1.
  std::vector<LaneId> crosswalks;

  // -- Signals -----------------------------------------------------------------------------------
  std::vector<roads::SignalPlan> signals;  ///< Validated (see build_network).
  std::vector<std::int32_t> signal_of;     ///< Per intersection: index into signals, or -1.

  // -- Merges outside junctions ------------------------------------------------------------------
  /// Per lane: true when the lane is not a connector and has two or more predecessors that are
  /// not connectors either (a freeway on-ramp merge, an off-ramp joining an artery lane next to
  /// junction connectors counts too: any non-connector predecessor among >= 2). Entries from a
  /// predecessor tagged kRamp, or of a lower speed limit, yield to the others.
  std::vector<std::uint8_t> merge;

  // -- Convenience -------------------------------------------------------------------------------
  std::uint32_t lane_count() const { return static_cast<std::uint32_t>(length_m.size()); }
  std::uint32_t intersection_count() const { return static_cast<std::uint32_t>(control.size()); }
  bool is(LaneId lane, std::uint32_t tag) const { return (tags[lane] & tag) != 0U; }
  /// Vehicle lanes that are neither connectors nor ramps: where vehicles are spawned.
  std::vector<LaneId> spawn_lanes;
};

/// Options of build_network.
struct NetworkOptions {
  /// Connectors whose crossing point lies within this distance (metres, along both lines) of
  /// their shared start do not conflict (they diverge from one lane). [Limit: >= 0]
  double diverge_tolerance_m = 1.0;
};

/// Builds the runtime network from a lane graph and its junction controls (one per
/// intersection index used by the lanes; a lane's `intersection` beyond `controls` is an
/// error). Validates, each error naming the place as a JSON pointer into lanes.json
/// (`where`, e.g. "lanes[12].successors[1]") and what was expected:
/// - a successor, predecessor or neighbour id that is not a lane ("dangling successor");
/// - successor / predecessor lists of vehicle lanes that do not mirror each other (pedestrian
///   lanes are exempt: the roads stage links sidewalks and crosswalks both ways);
/// - a vehicle lane of length <= 1e-3 m or with fewer than 2 points, a speed limit <= 0,
///   a non-finite coordinate;
/// - a signal plan naming a lane that is not a connector of its intersection, a phase with a
///   negative or zero-length cycle, and a phase whose green lanes conflict (two non-yield
///   connectors that cross: "signals[3].phases[1].green: lanes 812 and 815 cross").
Result<Network> build_network(const roads::LaneGraph& graph,
                              const std::vector<roads::Control>& controls,
                              const NetworkOptions& options = {});

/// A lanes.json file as written by `cityforge generate` (docs/lanes.md), read back as a lane
/// graph and the controls of its intersections. Errors name the file and the JSON pointer
/// ("lanes.json: lanes[4].points[2]: expected [x, y, z] numbers").
struct LanesFile {
  roads::LaneGraph graph;
  std::vector<roads::Control> controls;  ///< Per intersection id.
};
Result<LanesFile> load_lanes_json(const std::string& path);
/// Same, from text; `name` is used in messages in place of the path.
Result<LanesFile> parse_lanes_json(const std::string& text, const std::string& name);

/// Position and heading on `lane` at arc length s_m (clamped to the lane), moved lateral_m to
/// the left of the centre line (right when negative). Binary search on point_s.
LanePose lane_pose(const Network& net, LaneId lane, double s_m, double lateral_m = 0.0);
/// lane_pose(net, lane, s_m).position, without the heading.
Vec3 lane_point(const Network& net, LaneId lane, double s_m);
/// The last point of a lane's centre line.
inline Vec3 lane_end_point(const Network& net, LaneId lane) {
  return net.points[net.point_begin[lane + 1] - 1];
}

/// How many vehicles of the given length (plus min_gap_m) fit end to end on the spawn lanes.
std::uint64_t lane_capacity(const Network& net, double vehicle_length_m, double min_gap_m);

}  // namespace cityforge::traffic
