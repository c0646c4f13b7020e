// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cityforge/core/ranks.hpp"
#include "cityforge/core/result.hpp"
#include "cityforge/core/rng.hpp"
#include "cityforge/crowd/lod.hpp"
#include "cityforge/crowd/shepherd.hpp"
#include "cityforge/crowd/walk_network.hpp"
#include "cityforge/traffic/network.hpp"
#include "cityforge/traffic/recording.hpp"
#include "cityforge/traffic/traffic.hpp"

namespace cityforge::crowd {

/// Behaviour states (a compact state tree evaluated top-down each high-LOD tick, by events
/// otherwise; docs/crowd.md): flee > wait_crossing > idle / look_around > resume > walk.
/// `down`: knocked down by the player's car (Crowd::knock_down), for the rest of the run.
enum class Behaviour : std::uint8_t { walk, idle, wait_crossing, look_around, flee, resume, down };
inline constexpr std::size_t kBehaviours = 7;
const char* to_string(Behaviour b);

/// How pedestrians pick their way. roam: at each lane end a way on, weighted by the lanes'
/// pedestrian density (like traffic's route choice); goals: each walks the shortest way to a
/// goal point on the walk network, then draws another (the DetourCrowd comparison).
enum class Navigation : std::uint8_t { roam, goals };

/// Crowd settings (docs/crowd.md has the table and the sources of the defaults).
struct Config {
  float dt_s = 1.0f / 30.0f;         ///< Fixed tick. [Limit: (0, 1]]
  std::uint32_t pedestrians = 5000;  ///< Roaming pedestrians spawned by density.
  Navigation navigation = Navigation::roam;
  float speed_mps = 1.35f;     ///< Mean preferred walking speed.
  float speed_jitter = 0.15f;  ///< Per-agent factor 1 +- this. [0..0.5]
  float radius_m = 0.25f;      ///< Body radius.
  /// Probability that a pedestrian arriving at a signalised crosswalk showing don't-walk
  /// crosses anyway (tagged jaywalker), then hurries. [0..1]
  float jaywalk_probability = 0.05f;
  float hurry_factor = 1.6f;              ///< Speed factor of jaywalkers and late crossers.
  float idle_probability = 0.08f;         ///< Per sidewalk lane walked: stop and stand a while.
  float look_around_probability = 0.05f;  ///< Per sidewalk lane walked: stop and look around.
  float pause_min_s = 3.0f;               ///< Idle / look-around duration range.
  float pause_max_s = 15.0f;
  float resume_s = 2.0f;  ///< After fleeing: walk slowly this long.
  // Avoidance (high and medium LOD).
  float avoid_radius_m = 1.5f;        ///< Neighbour query radius.
  float avoid_strength = 2.0f;        ///< Separation acceleration scale (m/s^2).
  float anticipation_s = 1.0f;        ///< Look-ahead of the closest-approach term.
  float obstacle_strength = 3.0f;     ///< Static obstacle push (m/s^2).
  float relax_s = 0.5f;               ///< Velocity relaxation time towards desired.
  std::uint32_t medium_interval = 4;  ///< Medium LOD: avoidance every this many ticks.
  float lod_interval_s = 0.25f;       ///< LOD levels re-assigned this often.
  LodConfig lod = pedestrian_lod();
  /// Pool of full-fidelity slots (high + medium agents); 0 = budget_high + budget_medium
  /// (all pedestrians when LOD is disabled).
  std::uint32_t pool_slots = 0;
  std::uint32_t pool_changes_per_tick = 1;  ///< K: slots re-dressed per tick at most.
  std::uint32_t variants = 8;               ///< Appearance variants.
  /// Pool target mix: variants of the agents within this distance of the viewer.
  float pool_stats_radius_m = 80.0f;
  // Flee events.
  float flee_speed_mps = 3.2f;
  float flee_radius_m = 30.0f;    ///< Default radius of an injected event.
  float flee_duration_s = 20.0f;  ///< Default duration.
  // Environment (set_weather, set_active_count).
  /// Pedestrians going indoors or coming out after a change are spread over this long. 0: all at
  /// the next tick. [>= 0]
  float env_transition_s = 10.0f;
  // Hazards (set_hazards): moving vehicles pedestrians get out of the way of.
  float hazard_min_speed_mps = 2.0f;  ///< Slower hazards are ignored.
  float hazard_look_ahead_s = 2.5f;   ///< The path ahead checked: speed x this...
  float hazard_reach_min_m = 5.0f;    ///< ...at least this far...
  float hazard_reach_max_m = 30.0f;   ///< ...at most this far.
  float hazard_margin_m = 1.0f;       ///< Beside the hazard's radius either side of the path.
  float hazard_flee_s = 1.5f;         ///< Flee this long (then resume as after an event).
  float hazard_step_m = 1.0f;         ///< Lateral step away from the path (within the band).
};

/// How weather changes the crowd: the share of the roaming pedestrians outdoors and a factor on
/// walking speed (docs/crowd.md, "Weather").
struct WeatherEffect {
  float outdoor_share = 1;  ///< [0..1]
  float speed_factor = 1;   ///< x preferred walking speed. [0.5..2, clamped]
  friend bool operator==(const WeatherEffect&, const WeatherEffect&) = default;
};
/// clear 1 / 1, cloudy 0.95 / 1, rain 0.6 / 1.15, storm 0.3 / 1.25, fog 0.85 / 1. `fog` over
/// any kind: the lower share, the higher speed factor.
WeatherEffect weather_effect(traffic::WeatherKind kind, bool fog = false);

/// A moving vehicle pedestrians react to (the live viewer's car): those within radius_m +
/// Config::hazard_margin_m of its path over the next hazard_look_ahead_s (between
/// hazard_reach_min_m and hazard_reach_max_m ahead) step aside and flee briefly, away from the
/// path. Hazards slower than hazard_min_speed_mps are ignored.
struct Hazard {
  Vec3 position;
  Vec2 velocity;  ///< m/s in plan.
  float radius_m = 2.0f;
};

/// A static obstacle on or beside the walkable lanes (street furniture, trees, poles).
struct Obstacle {
  Vec2 position;
  float radius_m = 0.3f;
};

/// An event pedestrians react to: agents within radius_m of `position` at time_s flee until
/// time_s + duration_s, then resume.
struct Event {
  Vec2 position;
  double time_s = 0;
  float radius_m = 30.0f;
  float duration_s = 20.0f;
};

/// Bits of Pedestrian::flags.
enum PedFlag : std::uint8_t {
  kPedJaywalker = 1U << 0U,  ///< Crossed (or is crossing) against don't-walk.
  kPedHurry = 1U << 1U,      ///< Walks at hurry_factor x its speed.
  kPedWandering = 1U << 2U,  ///< A wandering shepherd's member (position a function of time).
  kPedShepherd = 1U << 3U,   ///< A static shepherd group's member.
  kPedCrossing = 1U << 4U,   ///< On a crosswalk lane.
  kPedIndoors = 1U << 5U,    ///< Indoors (set_active_count, weather): not ticked, not shown.
  /// Knocked down (knock_down): not ticked like one indoors (kPedIndoors is set too) but shown,
  /// lying where it fell, with behaviour down.
  kPedDown = 1U << 6U,
};

/// Per-pedestrian view for tests, tools and recordings.
struct PedestrianView {
  std::uint32_t id = 0;  ///< Stable for the run (never reused).
  Vec3 position;
  double heading_rad = 0;
  float speed_mps = 0;
  LaneId lane = kNoLane;
  float s_m = 0;
  float lateral_m = 0;  ///< Left of the walking direction.
  std::int8_t dir = 1;
  Behaviour behaviour = Behaviour::walk;
  Lod lod = Lod::off;
  std::uint16_t variant = 0;
  std::uint8_t flags = 0;  ///< PedFlag bits.
};

/// Run counters (sim_stats.json "crowd").
struct Stats {
  std::uint64_t ticks = 0;
  std::uint32_t pedestrians = 0;
  std::uint64_t updates = 0;  ///< Agent updates done (high + medium + low per tick, plus events).
  std::array<std::uint32_t, kLods> per_lod{};      ///< Now.
  std::array<std::uint32_t, kLods> per_lod_max{};  ///< Most at once since the start.
  std::array<std::uint32_t, kBehaviours> per_behaviour{};
  std::uint64_t crossings = 0;  ///< Crosswalks entered.
  std::uint64_t jaywalks = 0;   ///< Of which against don't-walk.
  std::uint64_t lane_transitions = 0;
  std::uint64_t goals_reached = 0;
  std::uint64_t flee_reactions = 0;
  std::uint64_t hazard_reactions = 0;  ///< Pedestrians that got out of a hazard's way.
  /// Roaming pedestrians indoors now (set_active_count, weather); per_lod counts the others
  /// that are not down, so per_lod sums to pedestrians - indoors - down.
  std::uint32_t indoors = 0;
  /// Pedestrians knocked down by a driven car (knock_down), neither indoors nor at a level.
  std::uint32_t down = 0;
  std::uint64_t lod_changes = 0;
  std::uint64_t pool_mismatches = 0;
  std::uint64_t neighbour_queries = 0;
  std::uint64_t bytes = 0;              ///< Memory of the crowd's agent state (all levels).
  std::uint32_t obstacles = 0;          ///< Static obstacles avoided.
  std::uint32_t shepherd_members = 0;   ///< Static group members.
  std::uint32_t wandering_members = 0;  ///< Wandering shepherd members.
  double memory_per_off_agent_bytes = 0;
  std::vector<std::string> warnings;
};

/// What a crowd is built from besides the network.
struct Inputs {
  std::vector<Obstacle> obstacles;
  /// Building footprints (load_building_footprints of layout.geojson): sidewalk bands are
  /// narrowed clear of them (build_walk_network).
  std::vector<Footprint> buildings;
  /// Shepherds (shepherds.json): static groups' members stand (idle or look around) where the
  /// file puts them; the wandering shepherd's members walk their closed paths, their position a
  /// pure function of time at every level of detail (they do not avoid; others avoid them)
  /// until an event makes them flee, after which they walk on as roaming pedestrians. Their ids
  /// follow the roaming pedestrians': group members in file order, then the walkers.
  ShepherdsFile shepherds;
};

/// One rank's part in a crowd shared over ranks (Crowd::share).
struct CrowdShareStats {
  std::uint64_t exchanges = 0;   ///< Ticks that exchanged.
  std::uint64_t updated = 0;     ///< Full-fidelity agent updates this rank ran.
  std::uint64_t sent_bytes = 0;  ///< Bytes this rank sent.
  std::uint64_t arrived = 0;     ///< Agents another rank handed to this one (lane changes).
  std::uint64_t halo_items = 0;  ///< Agents' map points sent to the ranks that may query them.
  std::uint64_t syncs = 0;       ///< Whole exchanges (every agent's record to every rank).
  double exchange_s = 0;         ///< Packing, the all-gather (waits included), writing back.
};

class Crowd {
 public:
  /// Spawns config.pedestrians on sidewalk lanes by pedestrian density. `net` must outlive the
  /// crowd. Errors: no walkable lanes, bad config values (named).
  static Result<std::unique_ptr<Crowd>> create(const traffic::Network& net, const Config& config,
                                               Seed seed, Inputs inputs = {});
  ~Crowd();
  Crowd(const Crowd&) = delete;
  Crowd& operator=(const Crowd&) = delete;

  /// The viewer for LOD (none set: every agent low or off by distance from the origin...
  /// set one). With config.lod.enabled false the viewer is ignored.
  void set_viewer(const Viewer& viewer);
  /// Schedules an event (any time, past times apply at the next tick).
  void add_event(const Event& event);
  /// Weather from the next tick: walking speeds x speed_factor (walk, hurry, resume; not flee,
  /// not the wandering shepherds, whose paths are functions of time), and the roaming
  /// pedestrians outdoors limited to outdoor_share of the active count. Positions stay
  /// continuous. Deterministic.
  void set_weather(const WeatherEffect& effect);
  const WeatherEffect& weather() const;
  /// Roaming pedestrians out at most (default: all; more than config.pedestrians counts as
  /// all). The ones out are the first round(min(n, pedestrians) x outdoor_share) of a fixed
  /// order drawn from the seed (the same ones go in first and come out last, whatever the
  /// history). The others are indoors: not ticked, not in the spatial hash, no LOD level, left
  /// out of samples() and flagged kPedIndoors in view() / views() (which stay indexed by id);
  /// they come out where they went in. Changes spread over config.env_transition_s.
  /// Shepherd members stay out.
  void set_active_count(std::uint32_t n);
  std::uint32_t active_count() const;
  /// Moving vehicles for this and the following ticks (replaces the previous set; empty: none).
  void set_hazards(std::span<const Hazard> hazards);
  /// A pedestrian hit by a driven car (the live server's player): it falls where it is now and
  /// stays down for the rest of the run (behaviour down, speed 0, flags kPedDown and
  /// kPedIndoors: not ticked, not in the neighbour hash, no level of detail, still in
  /// samples() and views()). A crosswalk it lies on stays occupied, so turning traffic keeps
  /// holding. The pedestrians within config.flee_radius_m flee from there for
  /// config.flee_duration_s (an event at the current time). Returns false, changing nothing,
  /// for an id out of range, one indoors or one already down. Deterministic.
  bool knock_down(std::uint32_t id);

  /// One fixed tick at the calling task arena's threads. Walk signals follow the junctions'
  /// plans (a pure function of time, so off-LOD agents know when walk comes). With `traffic`
  /// (ticked just before, same network) they are evaluated at the time its signals show, and
  /// crosswalk occupancy is written to it (turning vehicles yield); without, at the crowd's
  /// own clock.
  void tick(traffic::Simulation* traffic = nullptr);
  double time_s() const;

  /// Shares the full-fidelity agents' updates over `ranks` (`mpirun cityforge simulate`;
  /// docs/crowd.md "Over MPI ranks"): every rank holds the whole crowd and runs the tick's
  /// other steps itself; the agents updated at full fidelity (the tick's costly part: the
  /// avoidance queries) are dealt out by geography: each is updated by the rank of the
  /// pedestrian lane it is on (its part in `lane_part`, the traffic's partition, which puts a
  /// block's sidewalks on one rank and a crosswalk with its junction),
  /// and each rank sends the agents it updated to the ranks that need them (see gather), so the
  /// state is the same as one process's, bit for bit. From then on tick() is collective: every rank
  /// must call it in step. `ranks` must outlive the crowd; `lane_part` has a part below
  /// ranks.size() per lane.
  void share(const Ranks& ranks, std::span<const std::uint16_t> lane_part);
  /// Shared over ranks, collective: makes every rank's copy of every agent current (a whole
  /// exchange). Between whole exchanges each rank sends an agent's update only to the ranks
  /// whose agents may meet it (its halo) and, when it walks onto another rank's lane, to that
  /// rank; a tick that needs every agent (levels of detail, events, hazards, people going in or
  /// coming out) makes the crowd whole itself first. Call it before reading agents from
  /// outside (samples, views, view, state_hash, knock_down): a recording frame, the end of a
  /// run. Alone, or already whole: nothing to do.
  void gather();
  /// Whether every agent's record on this rank is current (always, alone).
  bool whole() const;
  /// Shared over ranks: true sends every update whole to every rank in each tick's one
  /// exchange, so the crowd is whole after every tick without a second collective (for a caller
  /// that reads every agent every tick: the live server). False (the default): halo exchanges.
  void keep_whole(bool on);
  const CrowdShareStats& share_stats() const;

  const WalkNetwork& walk_network() const;
  const Config& config() const;
  const Stats& stats() const;
  std::uint64_t state_hash() const;

  std::uint32_t size() const;
  /// One pedestrian now (off-LOD ones evaluated from their analytic path).
  PedestrianView view(std::uint32_t id) const;
  std::vector<PedestrianView> views() const;
  /// Recording samples of every pedestrian outdoors (kind pedestrian, lod and state bytes set),
  /// by id.
  std::vector<traffic::VehicleSample> samples() const;
  /// The pool of full-fidelity slots.
  const AgentPool& pool() const;
  /// Target mix of the pool (variant shares of the agents near the viewer), last update.
  std::vector<double> local_mix() const;

  struct Impl;

 private:
  explicit Crowd(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> m_impl;
};

}  // namespace cityforge::crowd
