// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "cityforge/traffic/network.hpp"

/// Trips with destinations: A* over the lane graph with travel-time costs.
namespace cityforge::traffic {

/// How a route step is entered from the step before it.
enum class StepKind : std::uint8_t {
  start,         ///< The first step: the lane the vehicle is on.
  follow,        ///< A successor of the previous step's lane, entered at its end.
  change_left,   ///< The previous lane's left neighbour, entered by a lane change along it.
  change_right,  ///< The previous lane's right neighbour, entered by a lane change along it.
};

struct RouteStep {
  LaneId lane = kNoLane;
  StepKind kind = StepKind::start;
};

/// Costs of the router. Travel time of a lane = length / speed, where speed is
/// `lane_speed_mps[lane]` when that span is not empty (live or averaged speeds; values are
/// clamped below at min_speed_mps) and the speed limit otherwise.
///
/// Cost model: the cost of a route is the time from the start of its first lane to the end of
/// its last. The start step costs the first lane's travel time; a follow step costs the
/// entered lane's travel time, plus connector_extra_s when that lane is a junction connector
/// (kIntersection); a change step from lane A to its neighbour B costs
/// lane_change_s + max(0, travel(B) - travel(A)): A was already paid in full and B runs beside
/// it, so only a slower B adds time. Every step costs >= 0.
struct RouteCosts {
  std::span<const float> lane_speed_mps;
  double lane_change_s = 3.0;    ///< Added per lane change step. [Limit: >= 0]
  double min_speed_mps = 1.0;    ///< Floor on speeds, so jammed lanes stay finite. [> 0]
  double connector_extra_s = 0;  ///< Added per junction connector (signal delay). [>= 0]
};

/// Lane changes are only taken on lanes of at least 30 m (no room on shorter links).
/// Fastest route from the start of lane `from` (kVehicle, not a connector is not required) to
/// the end of lane `to`, over successors and lane changes between neighbours, by A* with an
/// admissible straight-line heuristic (distance / the network's highest speed limit). Only
/// kVehicle lanes are used. The first step is {from, start}, the last is `to`. Empty when `to`
/// cannot be reached (or a lane id is out of range). Ties break by lane id, so the route is
/// deterministic. `expanded` (optional) receives the number of lanes settled.
std::vector<RouteStep> find_route(const Network& net, LaneId from, LaneId to,
                                  const RouteCosts& costs = {}, std::uint32_t* expanded = nullptr);

/// Landmark distances for the ALT heuristic (Goldberg & Harrelson 2005): travel times (speed
/// limits, `lane_change_s` per lane change, no connector extra: a lower bound of every
/// RouteCosts without lane_speed_mps and with at least that lane change cost) from and to a few
/// lanes spread over the network. By the triangle inequality they bound the time left to the
/// goal far tighter than a straight line at the top speed limit, so A* settles a small part of
/// a city instead of most of it. Immutable; one set serves every Router of the network.
struct Landmarks {
  std::vector<LaneId> lanes;
  /// By lane, its 2 K times together (K = lanes.size()): [2K v + 2k] from landmark k to lane v,
  /// [2K v + 2k + 1] from v to landmark k (inf: unreachable). A heuristic reads one lane's,
  /// so they share a cache line or two instead of lying K lanes' tables apart.
  std::vector<double> times;
  /// The lane change cost the times include; queries with a lower one do not use them.
  double lane_change_s = 0;
};

/// Picks `count` landmarks by farthest-point selection (deterministic) and computes their
/// distances: 2 x count Dijkstra runs over the lane graph. `lane_change_s` is the lane change
/// cost of the queries they serve (RouteCosts' default, the simulation's trips): a route that
/// changes lanes five times costs 15 s more than its lanes, and bounds that know it settle a
/// third fewer lanes than bounds without it (measured on the examples; docs/traffic.md).
std::shared_ptr<const Landmarks> build_landmarks(const Network& net, std::uint32_t count = 8,
                                                 double lane_change_s = RouteCosts{}.lane_change_s);

/// Reusable A* buffers for many queries on one network (one per thread); find_route uses a
/// temporary one. With landmarks (of the same network), queries whose costs they bound (no
/// lane_speed_mps, min_speed_mps no higher than the slowest limit) use the ALT heuristic too.
class Router {
 public:
  explicit Router(const Network& net, std::shared_ptr<const Landmarks> landmarks = nullptr);
  std::vector<RouteStep> route(LaneId from, LaneId to, const RouteCosts& costs = {},
                               std::uint32_t* expanded = nullptr);

 private:
  struct OpenEntry {
    double f = 0;
    double g = 0;
    LaneId lane = kNoLane;
  };
  const Network* m_net;
  std::shared_ptr<const Landmarks> m_landmarks;
  double m_min_speed_mps = 0;  ///< Lowest speed limit of a vehicle lane.
  double m_max_speed_mps = 0;  ///< Highest speed limit of a vehicle lane.
  double m_max_change_m = 0;   ///< Farthest apart end points of two neighbour vehicle lanes.
  std::vector<OpenEntry> m_open;
  std::vector<Vec3> m_end;  ///< Each vehicle lane's end point (the straight-line heuristic's).
  std::vector<double> m_g;
  std::vector<LaneId> m_parent;
  std::vector<StepKind> m_parent_kind;
  std::vector<std::uint32_t> m_stamp;
  std::uint32_t m_epoch = 0;
};

/// Travel time of a route in seconds under `costs` (sum of its lanes' travel times and step
/// penalties).
double route_time_s(const Network& net, std::span<const RouteStep> route,
                    const RouteCosts& costs = {});

}  // namespace cityforge::traffic
