// SPDX-License-Identifier: Apache-2.0
// The traffic simulation's components, shared tables and processors (internal).
#pragma once

#include <tbb/enumerable_thread_specific.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "cityforge/core/ranks.hpp"
#include "cityforge/core/spatial_hash.hpp"
#include "cityforge/traffic/routing.hpp"
#include "cityforge/traffic/traffic.hpp"

namespace cityforge::traffic::detail {

// -- Components ---------------------------------------------------------------------------------

/// Where a vehicle is: lane, front position, speed. The hot component.
struct LaneState {
  LaneId lane = kNoLane;
  LaneId next = kNoLane;   ///< Planned successor (kNoLane: none chosen / must change lanes).
  LaneId prev = kNoLane;   ///< Lane it came from.
  LaneId next2 = kNoLane;  ///< Planned lane after `next` (coordinators see one lane further).
  LaneId next3 = kNoLane;  ///< And after that (paths through close junctions are granted whole).
  float s_m = 0;           ///< Front of the vehicle, arc length along `lane`.
  float speed_mps = 0;
  float accel_mps2 = 0;
};

/// Who drives: type and character.
struct Driver {
  float speed_factor = 1;  ///< Desired speed = lane limit x this.
  float stopped_s = 0;     ///< Time stopped without interruption.
  std::uint8_t type = 0;   ///< VehicleType.
  std::uint8_t flags = 0;  ///< DriverFlag bits.
  std::uint16_t pad = 0;
  float blocked_s = 0;  ///< Time waiting at a lane end for a mandatory lane change.
};
enum DriverFlag : std::uint8_t {
  kDriverReroute = 1U << 0U,  ///< Left its route; the trips processor routes it again.
  kDriverWasMoving = 1U << 1U,
};

/// A lateral move in progress (target kNoLane when none): the ghost slot on `target`.
struct LaneChange {
  LaneId target = kNoLane;
  float progress = 0;  ///< 0 at the start (ghost not yet confirmed), 1 when done.
};

/// A trip to a destination along routes[entity index].
struct Trip {
  LaneId destination = kNoLane;
  std::uint32_t step = 0;  ///< Index of `lane` in the route.
};

/// A parked vehicle (static).
struct Parked {
  float x = 0, y = 0, z = 0, heading = 0;
  std::uint32_t type = 0;
};

/// In the pool: kept alive, not in the network.
struct Pooled {
  std::uint32_t reserved = 0;
};

// -- Resources (Processor::resource_* bits) ------------------------------------------------------
enum Resource : std::uint64_t {
  kResQueues = 1U << 0U,
  kResLights = 1U << 1U,
  kResGrants = 1U << 2U,
  kResRoutes = 1U << 3U,
  kResStats = 1U << 4U,
  kResObstacles = 1U << 5U,
};

/// Permission to enter a controlled lane (a junction connector, or a merge lane from a yielding
/// predecessor), held by the front vehicle of an approach lane.
struct Grant {
  std::uint32_t entity = 0;  ///< Entity index + 1; 0 = none.
  LaneId lane = kNoLane;     ///< The lane it may enter.
};

struct Obstacle {
  LaneId lane = kNoLane;
  float s_m = 0;
  float length_m = 0;
  float speed_mps = 0;
  bool alive = false;
};

/// Sums of floats over vehicles in fixed point (2^-20 units; a float is exact in a double and
/// the product by a power of two too, the truncation the same everywhere): integer sums do not
/// depend on the order they are taken in, so the tick's figures are the same for any thread
/// and rank count.
inline std::int64_t fixed20(float x) {
  return static_cast<std::int64_t>(static_cast<double>(x) * 1048576.0);
}
inline double from_fixed20(std::int64_t x) { return static_cast<double>(x) / 1048576.0; }

/// Counters summed over threads (sums commute, so they are deterministic).
struct Counters {
  std::atomic<std::uint64_t> lane_changes{0};
  std::atomic<std::uint64_t> lane_changes_aborted{0};
  std::atomic<std::uint64_t> stops{0};
  std::atomic<std::uint64_t> junction_entries{0};
  std::atomic<std::uint64_t> entries_on_yellow{0};
  std::atomic<std::uint64_t> red_violations{0};
  std::atomic<std::uint64_t> clearing_on_red{0};
  std::atomic<std::uint64_t> emergency_stops{0};
  std::atomic<std::uint64_t> trips_completed{0};
  std::atomic<std::uint64_t> reroutes{0};
};

}  // namespace cityforge::traffic::detail

namespace cityforge::traffic {

/// Everything a Simulation owns.
struct Simulation::Impl {
  Network net;
  Config config;
  /// Per vehicle type: config.params with the weather applied (what driving reads).
  std::array<VehicleParams, kVehicleTypes> params;
  WeatherEffect weather;
  Seed seed = 0;
  sim::World world;
  Stats stats;
  detail::Counters counters;
  std::uint32_t target_vehicles = 0;

  // Per-lane tables fixed at creation.
  std::vector<std::uint8_t> needs_grant;  ///< Entering this lane needs a grant (per lane).
  std::vector<std::uint8_t> coordinated;  ///< Per intersection: the coordinator serves it.
  /// Per lane: a link between two coordinated junctions too short to hold a bus.
  std::vector<std::uint8_t> short_link;
  /// Coordinated junctions grouped by short links (each group is served as one), CSR.
  std::vector<std::uint32_t> cluster_begin;
  std::vector<std::uint32_t> cluster_junctions;
  std::vector<std::uint32_t> approach_begin;  ///< Per intersection: lanes feeding its connectors.
  std::vector<LaneId> approaches;
  std::vector<LaneId> merge_lanes;              ///< Lanes with net.merge set.
  std::vector<std::uint8_t> yields_into_merge;  ///< Per lane: its entry into a merge yields.
  std::vector<LaneId> signal_lanes;             ///< Connectors of signalised junctions, ascending.
  std::vector<LaneId> crosswalk_lanes;          ///< Crosswalks of signalised junctions, ascending.
  std::vector<std::vector<LaneId>> crosswalks_of_signal;  ///< Per signal plan: walk lanes.
  /// Per merge lane: its predecessors that have priority (the others yield).
  std::vector<std::vector<LaneId>> merge_priority;
  std::vector<std::vector<LaneId>> merge_yielding;
  std::vector<double> spawn_weight_cdf;  ///< Over net.spawn_lanes.
  float max_speed_mps = 1;

  // Queues (rebuilt each tick).
  /// Per lane: its queue is entries[lane_begin .. lane_end) (lanes this rank builds no queue
  /// for, over ranks, stay empty).
  std::vector<std::uint32_t> lane_begin;
  std::vector<std::uint32_t> lane_end;
  /// Over ranks (share()): the lanes whose queues this rank builds, ascending (its own and its
  /// halo's: every queued vehicle and ghost is on one), with a flag per lane, and a cursor per
  /// lane for the scatter (the others' untouched).
  std::vector<LaneId> queue_lanes;
  std::vector<std::uint8_t> queue_lane;
  std::vector<std::uint32_t> queue_cursor;
  std::vector<QueueEntry> entries;
  std::vector<std::uint32_t> chunk_base;  ///< Per moving chunk ordinal: first global row.
  std::vector<std::uint32_t> row_slot;    ///< Per global row: own entry slot.
  std::vector<std::uint32_t> row_ghost;   ///< Per global row: ghost slot or ~0.

  // Signals and the coordinator.
  std::vector<LightState> light;  ///< Per lane (off for all but signalised connectors).
  std::vector<WalkState> walk;    ///< Per lane (off for all but signalised crosswalks).
  /// Level of detail per entity index (crowd::Lod values, set by the app from the viewer):
  /// discretionary lane changes are weighed every interval x 1, 2, 4, 8 at high, medium, low,
  /// off. Empty: every vehicle high.
  std::vector<std::uint8_t> lod;
  /// With set_lod_near(): the entities it gave a level (the others are off).
  std::vector<std::uint32_t> lod_listed;
  bool lod_near = false;  ///< The last levels came from set_lod_near().
  /// Per entity index, once levels of detail were set: the first tick its state does not yet
  /// cover (the tick after it was last driven). Empty: every vehicle is driven every tick.
  std::vector<std::uint32_t> moved_tick;
  std::uint32_t off_every = 1;                ///< Ticks between the steps of an `off` vehicle.
  std::vector<std::uint16_t> crosswalk_busy;  ///< Pedestrians per crosswalk lane.
  std::vector<detail::Grant> grant;           ///< Per approach lane.
  std::vector<detail::Grant> claim;           ///< Per merge lane: the yielding vehicle let in.
  /// Per junction cluster: the one vehicle let into a short link it does not fit (its rear
  /// left in the first junction) after waiting for a whole path too long; lane = its connector.
  std::vector<detail::Grant> hanger;
  std::vector<float> claim_dist_m;    ///< Its distance to the merge lane's start.
  std::vector<float> claim_length_m;  ///< Its length.
  std::vector<std::uint8_t> busy;     ///< Scratch per lane: connector occupied or granted.
  std::vector<float> reserved_m;      ///< Scratch per lane: space promised on an exit lane.

  // Trips.
  std::vector<std::vector<RouteStep>> routes;       ///< Per entity index.
  std::shared_ptr<const Landmarks> landmarks;       ///< ALT tables when trips are on.
  tbb::enumerable_thread_specific<Router> routers;  ///< One A* workspace per thread.
  std::uint64_t arrivals_seen = 0;
  /// Initial trip vehicles and their lanes, while their trips are not yet routed.
  std::vector<std::pair<sim::Entity, LaneId>> pending_trips;
  bool trips_pending = false;

  // Per moving chunk of the last tick (fixed20 sums), and their totals over every rank.
  std::vector<std::int64_t> chunk_distance;
  std::vector<std::int64_t> chunk_speed;
  std::vector<std::uint32_t> chunk_driven;
  std::vector<std::uint32_t> chunk_own;  ///< Rows on this rank's lanes (all without ranks).
  /// Per chunk: rows whose trip ended this tick (pooled at its end), this rank's.
  std::vector<std::vector<std::uint32_t>> chunk_pooled;
  /// Over ranks: per moving chunk, its rows on this rank's lanes, ascending (build_queues);
  /// drive_chunk drives those rather than passing over every row.
  std::vector<std::vector<std::uint32_t>> chunk_own_rows;
  /// Over ranks: per moving chunk, its rows this rank queues (its own and its halo's).
  std::vector<std::vector<std::uint32_t>> chunk_queued_rows;
  std::int64_t sum_distance = 0;
  std::int64_t sum_speed = 0;
  std::uint64_t sum_driven = 0;

  std::vector<detail::Obstacle> obstacles;
  /// Per lane, once positions(centre, radius) was asked: the box of its points, an index of
  /// those boxes, and scratch flags (all 0 between calls).
  std::vector<Vec3> lane_box_lo;
  std::vector<Vec3> lane_box_hi;
  std::unique_ptr<BoxIndex> lane_index;
  std::vector<std::uint8_t> near_lane;

  // Partitioned over ranks (share.cpp); null: every vehicle is driven here.
  const Ranks* ranks = nullptr;
  std::vector<std::uint16_t> lane_part;     ///< Per lane: the rank that drives its vehicles.
  std::uint16_t part = 0;                   ///< This rank.
  std::vector<std::uint16_t> cluster_part;  ///< Per junction cluster: the rank serving it.
  /// Per lane, CSR: the other ranks whose vehicles may see this lane's queue within a tick
  /// (their halo): its vehicles go to them at every tick's start.
  std::vector<std::uint32_t> halo_begin;
  std::vector<std::uint16_t> halo_ranks;
  /// Per entity: driven here last tick onto another rank's lane (sent to it at the next start).
  std::vector<std::uint8_t> migrant;
  /// Per entity: 1 + the tick whose queues called its lane change off (a change to its row
  /// besides driving, which its halo's holders must be sent).
  std::vector<std::uint32_t> touched;
  /// Entity indices: the vehicles this rank drove in the last tick (on its lanes at its
  /// queues), and those the last respawn placed on its lanes. The next halo exchange finds the
  /// rows this rank holds from these instead of passing over every vehicle's row.
  std::vector<std::uint32_t> held;
  std::vector<std::uint32_t> placed_here;
  /// Whether `held` and `placed_here` are known (not after share() or gather_state(), which
  /// change rows wholesale: the next halo exchange then passes over every row once).
  bool held_known = false;
  /// This tick's queued rows (global, ascending): this rank's vehicles and its halo's.
  std::vector<std::uint32_t> queued_rows;
  /// The hashed ids of the moving vehicles at this tick's start, summed (what the ids of the
  /// vehicles the ranks held must add up to), and what this tick's pools and respawns change
  /// that by (applied at the next tick's start).
  std::uint64_t moving_ids = 0;
  std::uint64_t moving_ids_change = 0;
  std::uint32_t halo_stamp = 0;   ///< 1 + this tick (`touched`'s value for it).
  std::uint64_t own_aborted = 0;  ///< Lane changes called off this tick on this rank's rows.
  ShareStats share_stats;

  std::uint64_t tick = 0;
  double time_s = 0;
  double speed_sum = 0;  ///< Of the last tick.

  Impl(Network network, const Config& cfg, Seed s)
      : net(std::move(network)),
        config(cfg),
        params(cfg.params),
        seed(s),
        world(sim::WorldConfig{cfg.dt_s}),
        landmarks(cfg.trip_share > 0 ? build_landmarks(net) : nullptr),
        routers([this] { return Router(net, landmarks); }) {}

  float length_of(std::uint8_t type) const { return config.params[type].length_m; }
};

}  // namespace cityforge::traffic
