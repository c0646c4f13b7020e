// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cityforge/core/result.hpp"
#include "cityforge/core/rng.hpp"
#include "cityforge/sim/entities.hpp"
#include "cityforge/traffic/network.hpp"
#include "cityforge/traffic/partition.hpp"
#include "cityforge/traffic/recording.hpp"

namespace cityforge {
class Ranks;
}

/// Vehicles on the lane graph, on the sim entity system (docs/traffic.md).
namespace cityforge::traffic {

/// Vehicle types; the values equal EntityKind's.
enum class VehicleType : std::uint8_t { car = 0, van = 1, bus = 2, truck = 3 };
inline constexpr std::size_t kVehicleTypes = 4;
const char* to_string(VehicleType t);

/// Intelligent Driver Model and MOBIL parameters of one vehicle type.
struct VehicleParams {
  float length_m = 4.5f;
  float width_m = 1.8f;
  float max_accel_mps2 = 1.5f;      ///< IDM a. [Limit: > 0]
  float comfort_decel_mps2 = 2.0f;  ///< IDM b. [Limit: > 0]
  float max_decel_mps2 = 8.0f;      ///< Hardest braking the vehicle can do. [>= comfort]
  float time_gap_s = 1.2f;          ///< IDM T. [Limit: >= 0]
  float min_gap_m = 2.0f;           ///< IDM s0, standstill gap. [Limit: > 0]
  float speed_factor = 1.0f;        ///< Desired speed = lane limit x this (x a per-driver draw).
  float politeness = 0.3f;          ///< MOBIL p. [Limit: 0..1]
};
/// Defaults: car 4.5 m, van 5.5 m, bus 12 m, truck 10 m (docs/traffic.md has the table).
VehicleParams default_params(VehicleType t);

/// Simulation settings.
struct Config {
  float dt_s = 0.1f;              ///< Fixed tick. [Limit: (0, 1]]
  std::uint32_t vehicles = 1000;  ///< Moving vehicles to keep in the network.
  /// Shares of car, van, bus, truck among moving vehicles (normalised). [>= 0, sum > 0]
  std::array<float, kVehicleTypes> type_share{0.82f, 0.10f, 0.03f, 0.05f};
  std::array<VehicleParams, kVehicleTypes> params{
      default_params(VehicleType::car), default_params(VehicleType::van),
      default_params(VehicleType::bus), default_params(VehicleType::truck)};
  /// Share of moving vehicles driving A* trips to destinations (the rest roam by density and
  /// drive indefinitely). A vehicle finishing its trip goes back to the pool and a pooled one
  /// starts a new trip elsewhere, so the count stays. [0..1]
  float trip_share = 0.3f;
  /// Trips go to destinations within this straight-line distance of where they start (the
  /// end of the lane they start on to the end of the destination lane), drawn by density among
  /// the spawn lanes there as anywhere else. 0: anywhere in the city, as for one town; a
  /// region's trips are mostly local (see docs/traffic.md, "Over MPI ranks"). Metres.
  /// [Limit: >= 0, finite]
  float trip_reach_m = 0.0f;
  /// Vehicles requested beyond this share of the spawn lanes' capacity are clamped (with a
  /// warning in Stats), so the network is never packed bumper to bumper. [(0, 1]]
  float max_fill = 0.45f;
  float driver_speed_jitter = 0.1f;     ///< Per-driver desired speed factor 1 +- this. [0..0.5]
  float look_ahead_s = 8.0f;            ///< Leaders and stop lines searched this many seconds...
  float look_ahead_min_m = 60.0f;       ///< ...but at least this far ahead. [> 0]
  float lane_change_interval_s = 1.0f;  ///< Each vehicle considers a change this often.
  float lane_change_duration_s = 3.0f;  ///< The lateral move (ghost slot held this long).
  float mobil_threshold_mps2 = 0.2f;    ///< MOBIL incentive threshold.
  float keep_right_bias_mps2 = 0.1f;    ///< Added to moves to the right.
  float safe_decel_mps2 = 4.0f;         ///< MOBIL safety: new follower brakes at most this.
  float yield_gap_s = 4.0f;          ///< Yielding movements need conflicting traffic this far away.
  float stop_dwell_s = 1.0f;         ///< Full stop at stop signs before going.
  float request_distance_m = 40.0f;  ///< Coordinator considers vehicles this close to the line.
  float route_density_weight = 6.0f;  ///< Successor weight 1 / (1 + w * occupancy).
  /// A front vehicle waiting this long at a line that is not red re-plans its way. [> 0]
  float replan_after_s = 30.0f;
  float walk_s = 7.0f;             ///< Walk interval of a green phase, then flashing.
  float record_interval_s = 0.1f;  ///< Frame interval of recordings.
  std::uint32_t pool = 0;          ///< Pooled vehicles kept spare; 0 = 2% of `vehicles` + 16.
  /// Vehicles at level of detail `off` (set_lod) are driven once every this many seconds
  /// (rounded to whole ticks, staggered by id) with that step, SUMO's default step length;
  /// between their steps they cost nothing in the driving processor and their samples are
  /// extrapolated. <= dt_s: every tick. [Limit: >= 0]
  float off_step_s = 1.0f;
  /// The initial trips are routed by share() (over ranks each rank routes those starting on
  /// its lanes: the set-up's A* is dealt out, not run on every rank) or, without it, before
  /// the first tick; not by create(). The same simulation either way.
  bool route_trips_later = false;
};

/// Weather as the live viewer names it (docs/traffic.md, "Weather").
enum class WeatherKind : std::uint8_t { clear, cloudy, rain, storm, fog };
inline constexpr std::size_t kWeatherKinds = 5;
/// "clear", "cloudy", "rain", "storm", "fog".
const char* to_string(WeatherKind k);
/// Parses the names to_string gives (exact, lower case).
Result<WeatherKind> parse_weather(std::string_view name);

/// How weather changes every driver: factors on the desired speed and the IDM parameters
/// b (comfort_decel_mps2), T (time_gap_s) and s0 (min_gap_m) of every vehicle type.
/// All 1: dry, clear.
struct WeatherEffect {
  float speed_factor = 1;          ///< x desired speed. [Limit: (0, 1.5], clamped]
  float comfort_decel_factor = 1;  ///< x IDM b: < 1 brakes earlier and gentler. [(0, 4]]
  float time_gap_factor = 1;       ///< x IDM T. [(0, 4], clamped]
  float min_gap_factor = 1;        ///< x IDM s0. [(0, 4], clamped]
  friend bool operator==(const WeatherEffect&, const WeatherEffect&) = default;
};

/// The effect of a weather kind, with `fog` (fog over any kind) combined as the worse of each
/// factor (lower speed and braking factors, higher gap factors). Table and sources in
/// docs/traffic.md: clear and cloudy 1; rain 0.90 speed, 0.80 b, 1.20 T, 1.10 s0; storm 0.80,
/// 0.65, 1.40, 1.25; fog 0.85, 0.90, 1.30, 1.20.
WeatherEffect weather_effect(WeatherKind kind, bool fog = false);

/// An obstacle as the simulation holds it (Simulation::obstacles()).
struct ObstacleView {
  std::uint32_t id = 0;
  LaneId lane = kNoLane;
  float s_m = 0;       ///< Front along the lane; the obstacle occupies [s - length, s].
  float length_m = 0;  ///< Rear at s_m - length_m (may be < 0: it reaches back over the start).
  float speed_mps = 0;
};

/// A parked vehicle (static: never ticked).
struct ParkedVehicle {
  Vec3 position;
  double heading_rad = 0;
  VehicleType type = VehicleType::car;
};

/// Run counters (docs/traffic.md, sim_stats.json).
struct Stats {
  std::uint64_t ticks = 0;
  std::uint64_t vehicle_updates = 0;  ///< Moving vehicles simulated, summed over ticks.
  /// Of vehicle_updates, the ones the driving model ran for (all but `off` vehicles between
  /// their coarse steps, Config::off_step_s).
  std::uint64_t vehicles_driven = 0;
  std::uint32_t vehicles_requested = 0;
  std::uint32_t vehicles_moving = 0;  ///< In the network now.
  std::uint32_t vehicles_parked = 0;
  std::uint32_t vehicles_pooled = 0;
  std::uint32_t capacity = 0;  ///< Spawn lane capacity at Config::max_fill.
  std::uint64_t trips_completed = 0;
  std::uint64_t trips_started = 0;
  std::uint64_t reroutes = 0;
  std::uint64_t lane_changes = 0;          ///< Completed.
  std::uint64_t lane_changes_aborted = 0;  ///< Ghost slot refused or lane end reached.
  std::uint64_t stops = 0;                 ///< Transitions from moving (> 1 m/s) to stopped.
  std::uint64_t junction_entries = 0;
  std::uint64_t entries_on_yellow = 0;
  std::uint64_t red_violations = 0;
  /// Vehicles granted a path through two close junctions (joined by a short link) that reach
  /// the second one's connector after it turned red: they clear the junction cluster they
  /// entered on green; counted apart from red_violations.
  std::uint64_t clearing_on_red = 0;  ///< Entries into a red connector (must stay 0).
  std::uint64_t emergency_stops = 0;  ///< Hard clamps at a lane end or leader (rare).
  double mean_speed_mps = 0;          ///< Over moving vehicles, last tick.
  double distance_km = 0;             ///< Driven by all vehicles.
  std::vector<std::string> warnings;
};

/// What partitioning the traffic over ranks did (Simulation::share); one rank: ranks 1, the
/// rest 0. The cut, `updates`, `exchanges` and `halo_lanes` are the same on every rank; the
/// bytes, hand-overs and times are this rank's (`cityforge simulate` gathers them on rank 0).
struct ShareStats {
  std::uint32_t ranks = 1;
  std::uint32_t cut_lanes = 0;         ///< Lanes with a successor driven by another rank.
  std::uint32_t cut_links = 0;         ///< Lane-to-successor links between ranks.
  std::vector<double> part_weight;     ///< Per rank: expected vehicles of its lanes.
  std::vector<std::uint64_t> updates;  ///< Per rank: vehicle updates it ran, summed over ticks.
  std::vector<std::uint64_t> bytes;    ///< [this rank]: bytes it sent, summed over ticks.
  std::uint64_t migrations = 0;        ///< Vehicles this rank handed over to another (whole).
  std::uint64_t exchanges = 0;         ///< Ticks exchanged.
  /// Ticks whose halo exchange passed over every moving vehicle's row to find this rank's (the
  /// first, and the first after each gather_state()); the others find them from the vehicles
  /// the rank drove in the tick before and placed since.
  std::uint64_t row_passes = 0;
  std::uint32_t halo_lanes = 0;  ///< Lanes in some other rank's halo.
  std::uint64_t halo_bytes = 0;  ///< This rank's bytes of halo and handed-over vehicles.
  double exchange_s = 0;         ///< This rank's wall time in exchanges (waits included).
  double pack_s = 0;             ///< Of exchange_s: writing this rank's messages.
  double transfer_s = 0;         ///< Of exchange_s: the halo's all-to-all (waits included).
};

/// Per-vehicle view for tests, tools and recordings.
struct VehicleView {
  sim::Entity entity;
  VehicleType type = VehicleType::car;
  LaneId lane = kNoLane;
  LaneId next = kNoLane;
  LaneId next2 = kNoLane;  ///< Planned after `next`.
  LaneId next3 = kNoLane;  ///< Planned after `next2`.
  /// Lane-change target: requested this tick (progress 0, the next tick's queues confirm or
  /// refuse the ghost slot) or held (progress > 0).
  LaneId change_target = kNoLane;
  float change_progress = 0;
  float s_m = 0;
  float speed_mps = 0;
  float accel_mps2 = 0;
  float length_m = 0;
  float stopped_s = 0;  ///< Time stopped without interruption.
  bool on_trip = false;
  LaneId destination = kNoLane;  ///< The trip's destination lane (on_trip), else kNoLane.
};

/// Bits of QueueEntry::flags.
enum QueueFlag : std::uint32_t {
  kQueueGhost = 1U << 0U,     ///< A lane-change reservation, not the vehicle's own lane.
  kQueueOnTrip = 1U << 1U,    ///< The vehicle drives a trip.
  kQueueChanging = 1U << 2U,  ///< The vehicle is in a lateral move (own entry or ghost).
  kQueueGhostNew = 1U << 3U,  ///< A ghost reserved in the previous tick, confirmed in this one.
};
/// QueueEntry::flags >> kQueueTypeShift & 0xff is the VehicleType.
inline constexpr std::uint32_t kQueueTypeShift = 8;

/// One entry of a lane queue, front (largest s) first. Built at the start of every tick from
/// the vehicles' components; everything in a tick reads it, nothing writes it.
struct QueueEntry {
  float s_m = 0;       ///< Front of the vehicle along the lane.
  float length_m = 0;  ///< Rear at s_m - length_m.
  float speed_mps = 0;
  float accel_mps2 = 0;      ///< Of the previous tick.
  float stopped_s = 0;       ///< Time stopped without interruption.
  std::uint32_t entity = 0;  ///< Entity index.
  LaneId next = kNoLane;     ///< Planned next lane.
  LaneId next2 = kNoLane;    ///< Planned lane after `next`.
  LaneId next3 = kNoLane;    ///< Planned lane after `next2`.
  LaneId prev = kNoLane;     ///< Lane it came from (connector clearing).
  std::uint32_t flags = 0;   ///< QueueFlag bits.
};

class Simulation {
 public:
  /// Builds the world, registers components and processors, spawns the moving vehicles by
  /// density (downtown lanes denser), the pool and the parked vehicles. Requests above the
  /// capacity are clamped (Stats::warnings says so).
  static Result<std::unique_ptr<Simulation>> create(Network net, const Config& config,
                                                    std::vector<ParkedVehicle> parked, Seed seed);
  /// Partitions the traffic over `ranks` from the next tick (docs/traffic.md, "Over MPI
  /// ranks"): each rank drives the vehicles on its part's lanes (`partition.lane_part`, one part
  /// per rank) and serves its part's junctions and merges; it keeps its own vehicles' state and
  /// its halo's (the vehicles on other ranks' lanes that its own see within a tick), and hands
  /// a vehicle over whole when it crosses onto another rank's lane. From then on tick() is
  /// collective, and the other ranks' vehicles read as they are only after gather_state().
  /// Call once, on every rank, before the first tick. Errors (invalid_input): parts != ranks,
  /// or a partition of another network.
  Status share(const Ranks& ranks, const Partition& partition);
  const ShareStats& share_stats() const;
  /// Collective while partitioned (share()): every rank's vehicles into every rank's world, so
  /// that samples(), vehicles(), queue-free views and state_hash() read the whole state, the
  /// same, bit for bit, as one process holds it after the same ticks. Changes nothing of the
  /// simulation. Without share(), nothing to do.
  void gather_state();
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  /// One fixed tick. Uses the calling task arena's threads (oneTBB).
  void tick();
  double time_s() const;

  const Network& network() const;
  const Config& config() const;
  const Stats& stats() const;
  sim::World& world();
  std::uint64_t state_hash() const;

  /// Vehicles in the network, by entity index.
  std::vector<VehicleView> vehicles() const;
  /// The lane queues built at the start of the last tick (ghosts included), front first.
  std::span<const QueueEntry> queue(LaneId lane) const;
  /// Signal state of a connector (off when its junction has no signal) and of a crosswalk.
  LightState light(LaneId connector) const;
  WalkState walk(LaneId crosswalk) const;
  /// Pedestrians on a crosswalk (set by the crowd simulation); turning vehicles yield to them.
  void set_crosswalk_occupancy(LaneId crosswalk, std::uint32_t pedestrians);
  /// An obstacle (crash, breakdown, an external vehicle such as the live viewer's car)
  /// occupying [s - length, s] of a lane and moving along it at speed_mps (0: stopped; it is
  /// not moved by the simulation, the caller moves it). Vehicles treat it as a leader with that
  /// speed in IDM: the ones behind it on its lane, the front vehicles of the lanes leading to it
  /// (up to the look-ahead), vehicles changing onto its lane, and lane changes and respawns
  /// keep clear of it. Changes apply from the next tick. Returns its id (ids are not reused).
  std::uint32_t add_obstacle(LaneId lane, float s_m, float length_m, float speed_mps = 0);
  /// Moves an obstacle and sets it stopped (speed 0). Unknown ids are ignored.
  void move_obstacle(std::uint32_t id, LaneId lane, float s_m);
  /// Moves an obstacle that moves on at speed_mps (>= 0; negative counts as 0) along `lane`.
  void move_obstacle(std::uint32_t id, LaneId lane, float s_m, float speed_mps);
  void remove_obstacle(std::uint32_t id);
  /// Obstacles present, by id.
  std::vector<ObstacleView> obstacles() const;
  /// Weather for every vehicle from the next tick: desired speeds x speed_factor, IDM b, T and
  /// s0 of every type x their factors (b at most max_decel_mps2). Factors are clamped to their
  /// limits (non-finite ones count as 1). Deterministic: part of state_hash().
  void set_weather(const WeatherEffect& effect);
  const WeatherEffect& weather() const;
  /// Levels of detail by entity index (0 high, 1 medium, 2 low, 3 off; crowd::LodAssigner
  /// with the viewer): discretionary lane changes are weighed 1, 1/2, 1/4, 1/8 as often, and
  /// `off` vehicles are driven once every Config::off_step_s with that step (a vehicle whose
  /// level rises is driven at once over the time it is behind, so none gains or loses time).
  /// Indices beyond the span are high.
  void set_lod(std::span<const std::uint8_t> levels);
  /// Levels of detail for a few vehicles (ids[k] at levels[k]), every other vehicle off (those
  /// spawned since, with indices past the entities, high until the next call): what a viewer's
  /// levels need, in work of the vehicles listed and the last call's, not of every vehicle.
  void set_lod_near(std::span<const std::uint32_t> ids, std::span<const std::uint8_t> levels);
  /// Changes the number of moving vehicles (spawned from / returned to the pool).
  void set_vehicle_count(std::uint32_t n);

  /// Samples for a recording frame: moving vehicles, then (when `parked`) the parked ones.
  std::vector<VehicleSample> samples(bool parked = false) const;
  /// samples(false) for one process to stream or record, without gather_state(): while shared
  /// over ranks (share()), a collective call after the same tick; each rank samples the vehicles
  /// it holds and sends them to rank 0, which returns them all (the same, bit for bit, as one
  /// process's samples(false)); the other ranks return none. Not shared: samples(false).
  std::vector<VehicleSample> samples_on_rank0() const;
  /// The moving vehicles' samples with id, kind and position only (heading, speed and flags
  /// left 0), the same positions as samples(): what levels of detail are assigned from, without
  /// a heading's atan2 per vehicle. While shared over ranks (share()), each rank places the
  /// vehicles on its lanes and the ranks exchange them: then a collective call (every rank
  /// calls it after the same tick).
  std::vector<VehicleSample> positions() const;
  /// The moving vehicles within radius_m of `centre` (id order, as positions() has them): what
  /// levels of detail whose farthest distance is within radius_m need, for any rank count the
  /// same. Only the lanes near `centre` are looked at and, over ranks (collective), each rank
  /// passes over the vehicles it holds only; only the near ones are exchanged.
  std::vector<VehicleSample> positions(const Vec3& centre, double radius_m) const;
  /// Recording set-up (quantisation box over the network, signal and crosswalk lanes).
  RecordingInfo recording_info(std::uint64_t seed) const;
  void lights(std::span<const LaneId> lanes, std::vector<LightState>& out) const;
  void walks(std::span<const LaneId> lanes, std::vector<WalkState>& out) const;

  struct Impl;

 private:
  explicit Simulation(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> m_impl;
};

/// Invariants a test or `simulate --audit` checks after a tick.
struct Audit {
  /// Consecutive vehicles (ghost slots included) and obstacles on a lane with gap < -1 mm.
  std::uint64_t overlaps = 0;
  std::uint64_t conflicts = 0;      ///< Conflicting connectors occupied at once.
  std::uint64_t bad_positions = 0;  ///< s outside [0, lane length], NaN, negative speed.
  float min_gap_m = 1e9f;
};
Audit audit(const Simulation& sim);

}  // namespace cityforge::traffic
