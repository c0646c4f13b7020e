// SPDX-License-Identifier: Apache-2.0
#pragma once
// The crowd's state (crowd.hpp's Crowd::Impl) and the functions of its tick, split over
// crowd.cpp (set-up, LOD, API), motion.cpp (lane following, events, transitions) and
// avoid.cpp (full-fidelity ticks with avoidance).

#include <tbb/partitioner.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <queue>
#include <vector>

#include "cityforge/crowd/crowd.hpp"
#include "cityforge/sim/spatial_hash.hpp"

namespace cityforge::crowd {

/// One pedestrian at every level of detail: 48 bytes. Between events its position is a pure
/// function of time: s(t) = s0 + dir * v * (t - t0) while it moves (walk, flee, resume), s0
/// while it stands (idle, look_around, wait_crossing).
struct Agent {
  double t0 = 0;        ///< Time s0 refers to.
  float s0 = 0;         ///< Arc length along `lane` at t0.
  float lateral = 0;    ///< Offset left of the walking direction (metres).
  float speed = 1.35f;  ///< Preferred walking speed (m/s).
  float until = 0;      ///< End of the current timed behaviour (seconds).
  LaneId lane = kNoLane;
  std::uint32_t step = 0;   ///< Lanes entered so far: keys every draw of the route.
  std::uint32_t stamp = 0;  ///< Bumped when a scheduled event becomes stale.
  std::int8_t dir = 1;
  Behaviour behaviour = Behaviour::walk;
  Lod lod = Lod::off;
  std::uint8_t flags = 0;  ///< PedFlag bits.
  std::uint16_t variant = 0;
  std::uint16_t event = 0;  ///< 1 + index of the event it reacts or reacted to, or 0.
  std::uint8_t paused = 0;  ///< 1 when this lane's planned pause has happened.
  std::uint8_t pad[3] = {0, 0, 0};
};
static_assert(sizeof(Agent) == 48);

/// A scheduled event of a low / off agent: at tick `tick` its lane following reaches a lane
/// end, a pause point or a timer's end. Stale when `stamp` differs from the agent's.
struct Scheduled {
  std::uint32_t tick = 0;
  std::uint32_t agent = 0;
  std::uint32_t stamp = 0;
  friend bool operator>(const Scheduled& a, const Scheduled& b) {
    return a.tick != b.tick ? a.tick > b.tick : a.agent > b.agent;
  }
};

/// Full-fidelity state of a pool slot (high and medium agents).
struct SlotState {
  float vx = 0, vy = 0;    ///< Velocity.
  float ax = 0, ay = 0;    ///< Avoidance acceleration (medium: reused between updates).
  std::uint32_t hint = 0;  ///< Polyline segment of the last position (frame_at).
  /// Static obstacles within reach, refreshed every kObstacleRefresh ticks (they do not move;
  /// the agent moves less than the extra reach in between). kNoObstacle: none.
  std::array<std::uint32_t, 4> near{kNoObstacle, kNoObstacle, kNoObstacle, kNoObstacle};
  static constexpr std::uint32_t kNoObstacle = 0xffffffffU;
};
inline constexpr std::uint32_t kObstacleRefresh = 8;

/// A position with the walking frame there.
struct Frame {
  Vec2 p;  ///< Plan position.
  float z = 0;
  Vec2 t;  ///< Unit tangent of the lane (start -> end).
};

/// What frame_at computes from the geometry alone for a polyline segment: its unit tangent and
/// the blended normals at its two ends. LaneFrames keeps them per segment of the walkable lanes
/// (computed once by the same code, so a frame from it is bit-identical to one computed afresh)
/// and spares the crowd's hottest loop five square roots per lookup.
struct SegmentFrame {
  Vec2 t;   ///< Unit tangent (start -> end), or +x for a segment of no length.
  Vec2 n0;  ///< Left normal at the segment's start, blended with the previous segment's.
  Vec2 n1;  ///< Same at its end, with the next segment's.
};
struct LaneFrames {
  explicit LaneFrames(const traffic::Network& n);
  const traffic::Network& net;
  /// Per lane + 1: where its points' entries start in `seg` (the entry of point k of lane l,
  /// for the segment that ends at k, is seg[begin[l] + k - net.point_begin[l]]); lanes that are
  /// neither sidewalks nor crosswalks have none.
  std::vector<std::uint32_t> begin;
  std::vector<SegmentFrame> seg;
};

/// A block's hash inserts, gathered and added with one atomic add (SpatialHash::insert).
struct InsertBatch {
  std::vector<std::uint32_t> ids;
  std::vector<Vec2> p;
  std::vector<Vec2> v;
  void add(std::uint32_t id, Vec2 position, Vec2 velocity) {
    ids.push_back(id);
    p.push_back(position);
    v.push_back(velocity);
  }
  void flush(sim::SpatialHash& hash) {
    hash.insert(ids, p, v);
    ids.clear();
    p.clear();
    v.clear();
  }
};

struct Crowd::Impl {
  const traffic::Network& net;
  LaneFrames frames;  ///< frame_at's per-segment geometry of the walkable lanes.
  Config config;
  Seed seed = 0;
  WalkNetwork walk;
  std::vector<Agent> agents;
  double time_s = 0;
  std::uint64_t tick = 0;
  Stats stats;
  // Events of low / off agents.
  std::priority_queue<Scheduled, std::vector<Scheduled>, std::greater<>> wheel;
  // Levels of detail and the pool.
  Viewer viewer;
  bool has_viewer = false;
  LodAssigner lod;
  AgentPool pool;
  std::vector<SlotState> slots;
  /// Per position in the sweep: the frame the agent there was last inserted at and where that
  /// was (lane, s, signed lateral), so the next tick's start reuses it instead of computing the
  /// same frame again (frame_at is a pure function of those three; a key that differs bit for
  /// bit is computed, so an entry left by another agent after a re-sort is only a miss). Kept by
  /// sweep position rather than by slot, so each thread writes entries of its own stretch.
  struct FrameCache {
    LaneId lane = traffic::kNoLane;
    float s = 0;
    float lateral = 0;
    Frame frame;
  };
  std::vector<FrameCache> frame_cache;
  /// High and medium agents with their pool slot, ascending by agent (no per-agent slot array:
  /// an off agent costs its Agent record and one scheduled event, nothing else).
  std::vector<std::pair<std::uint32_t, std::uint32_t>> active;
  /// `active` in update order (over ranks: the ones on this rank's lanes).
  std::vector<std::pair<std::uint32_t, std::uint32_t>> sweep;
  bool sweep_stale = true;         ///< `active` changed: the next tick builds the sweep again.
  std::vector<std::uint32_t> low;  ///< Low agents, ascending.
  std::vector<double> local_mix;
  double next_lod_s = 0;
  static constexpr std::uint32_t kNoSlot = 0xffffffffU;
  // Neighbours and obstacles.
  sim::SpatialHash hash;
  std::unique_ptr<sim::SpatialHash> obstacles;  ///< Static: filled once, swapped once.
  std::vector<float> obstacle_radius;           ///< By obstacle id (ids in spatial order).
  std::vector<Vec2> obstacle_pos;
  // Flee events, sorted by time; next one to start.
  std::vector<Event> events;
  std::size_t next_event = 0;
  // Crosswalks: pedestrians on each (per lane id; 0 elsewhere) and what traffic last got.
  std::vector<LaneId> crosswalks;  ///< Crosswalk lanes, ascending.
  std::vector<std::uint32_t> occupancy;
  std::vector<std::uint32_t> occupancy_sent;
  float walk_s = 7.0f;  ///< Walk interval of a green (the traffic config's when coupled).
  /// Crowd time minus the time the coupled traffic's signals show (its signals are set at the
  /// start of its tick, so they lag its clock by one traffic tick); 0 without traffic.
  double signal_lag = 0;
  // Goals navigation: per agent its remaining route (next step first) and goal.
  std::vector<std::vector<WalkStep>> routes;
  std::vector<WalkPoint> goals;
  std::vector<std::uint32_t> goals_drawn;
  std::vector<LaneId> goal_lanes;       ///< Sidewalks goals are drawn on (the spawn lanes)...
  std::vector<double> goal_cumulative;  ///< ...with their cumulative weights.
  // Shepherds: the file, and per wandering agent (flag kPedWandering) its walker index in
  // Agent::step.
  ShepherdsFile shepherds;
  // Shared over ranks (Crowd::share; share.cpp): null alone. share_seen: per agent, the last
  // tick whose update or exchange put it into this rank's map (each once a tick).
  const Ranks* ranks = nullptr;
  /// Per network lane: the rank whose full-fidelity update takes the agents on it (the
  /// traffic partition's part, which keeps a block's sidewalks together); empty alone.
  std::vector<std::uint16_t> lane_rank;
  /// This tick's agents another rank handed over (their new lane is this rank's), with slots.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> share_arrivals;
  /// Per network lane: the ranks with a pedestrian lane within the avoidance radius of it
  /// (bodies' reach included), halo_ranks[halo_begin[l] .. halo_begin[l + 1]): an agent
  /// inserted on lane l goes into those ranks' maps.
  std::vector<std::uint32_t> halo_begin;
  std::vector<std::uint16_t> halo_ranks;
  /// Whether every rank's copy of every agent is current (after a whole exchange, sync_whole);
  /// between them each rank's copies of the others' agents are as they last saw them.
  bool whole = true;
  bool swap_pending = false;  ///< This tick's map is swapped in at the next tick's start.
  bool keep_whole = false;    ///< Every update whole to every rank (Crowd::keep_whole).
  struct Point {
    float x = 0;
    float y = 0;
  };
  /// Per agent: the point it inserted into the map at its last update this rank saw.
  std::vector<Point> share_point;
  /// Per agent: goals_drawn at the last whole exchange (a route redrawn since goes whole).
  std::vector<std::uint32_t> sync_drawn;
  std::vector<std::uint64_t> sync_seen;  ///< Per agent: the last whole exchange that brought it.
  std::uint64_t syncs = 0;
  /// This tick's lane changes of this rank's agents: from, to, jaywalker (for the others'
  /// crosswalk occupancy and counts).
  std::vector<std::array<std::uint32_t, 3>> share_transitions;
  /// Per rank: this tick's map items (id, point, velocity, as inserted) for it.
  std::vector<std::vector<sim::SpatialHash::Hit>> share_items;
  CrowdShareStats share_stats;
  std::vector<std::uint64_t> share_seen;
  InsertBatch share_batch;
  // Counters written from parallel loops.
  std::atomic<std::uint64_t> queries{0};
  std::atomic<std::uint64_t> goals_reached{0};
  std::vector<LaneId> scratch_lane;
  std::vector<LaneId> scratch_lane_after;
  tbb::affinity_partitioner sweep_affinity;  ///< tick_active's blocks to the same threads.
  // Environment (environment.cpp): weather, the active count and hazards.
  WeatherEffect weather;
  float speed_factor = 1.0f;  ///< weather.speed_factor, read by move_speed.
  std::uint32_t active_count = 0xffffffffU;
  /// Roaming pedestrians in the order they come out (the first `outdoors` are out).
  std::vector<std::uint32_t> order;
  std::uint32_t outdoors = 0;
  std::vector<Hazard> hazards;

  Impl(const traffic::Network& n, const Config& c, Seed s, std::uint32_t total,
       const std::vector<Footprint>& buildings);
};

// -- motion.cpp -----------------------------------------------------------------------------
/// Speed the agent's lane following uses in its current behaviour.
float move_speed(const Crowd::Impl& m, const Agent& a);
/// Arc length at time t from the agent's segment (clamped to the lane).
float s_at(const Crowd::Impl& m, const Agent& a, double t);
/// Plan frame on `lane` at s (unit tangent start -> end) moved `lateral_lane` to the left.
Frame frame_at(const traffic::Network& net, LaneId lane, float s, float lateral_lane);
/// Same, starting from the segment `hint` found last time (updated): O(1) when the agent
/// moved little since.
Frame frame_at(const traffic::Network& net, LaneId lane, float s, float lateral_lane,
               std::uint32_t* hint);
/// Same, with the segment geometry from `frames` where it has the lane (bit-identical).
Frame frame_at(const LaneFrames& frames, LaneId lane, float s, float lateral_lane,
               std::uint32_t* hint);
Frame frame_at(const LaneFrames& frames, LaneId lane, float s, float lateral_lane);
/// The frames across a lane at one s: at(lateral) is frame_at(net, lane, s, lateral) bit for bit,
/// with the segment found and its geometry and normal computed once for every offset (the walk
/// network tests dozens of offsets per sample along a sidewalk).
class FramesAcross {
 public:
  FramesAcross(const traffic::Network& net, LaneId lane, float s);
  Frame at(float lateral_lane) const {
    Frame f = m_centre;
    if (lateral_lane != 0.0f) f.p += m_normal * static_cast<double>(lateral_lane);
    return f;
  }

 private:
  Frame m_centre;
  Vec2 m_normal;
};
/// World position of the agent at time t (between its events).
Frame position_at(const Crowd::Impl& m, const Agent& a, double t);
/// Walk signal of a crosswalk at time t from its junction's plan: walk, flashing, dont_walk or
/// off (no signal).
traffic::WalkState walk_state(const Crowd::Impl& m, LaneId crosswalk, double t);
/// First time >= t at which the crosswalk shows walk (t itself when it does now).
double next_walk(const Crowd::Impl& m, LaneId crosswalk, double t);
/// The way on the agent takes at the end of its lane (deterministic in (id, step, state)).
/// {kNoLane, 0}: a dead end (turn round).
WalkStep choose_exit(Crowd::Impl& m, std::uint32_t id, const Agent& a);
/// At the lane end at time t: enter the next lane, or wait for walk, or turn round. Returns
/// the lane left (for occupancy), or kNoLane when the agent stays.
LaneId at_lane_end(Crowd::Impl& m, std::uint32_t id, Agent& a, double t);
/// Lane entered: occupancy, counters (serial).
void entered(Crowd::Impl& m, const Agent& a, LaneId from);
/// The same for a lane change known by its lanes (another rank's agent, over ranks).
void entered_lane(Crowd::Impl& m, LaneId from, LaneId to, bool jaywalker);
/// Advances a low / off agent's event-driven lane following to time t (processing every event
/// up to t) and schedules its next event. Serial.
void advance(Crowd::Impl& m, std::uint32_t id, double t);
/// Schedules the next event of a low / off agent from its current segment.
void schedule(Crowd::Impl& m, std::uint32_t id);
/// Processes the events due by the current time.
void run_events(Crowd::Impl& m);
/// Starts flee reactions of events that began by now.
void start_events(Crowd::Impl& m);
/// Pause planned on the agent's current lane: kind (idle / look_around / walk = none), where
/// (walked distance from the lane entry) and how long.
struct Pause {
  Behaviour kind = Behaviour::walk;
  float at_m = 0;
  float duration_s = 0;
};
Pause planned_pause(const Crowd::Impl& m, std::uint32_t id, const Agent& a);
/// Goals navigation: draws the agent's next goal and plans its route from its lane.
void plan_goal(Crowd::Impl& m, std::uint32_t id);

/// A lateral offset (left of the walking direction `dir`) clamped into the lane's clear strip
/// (WalkNetwork::band_lo / band_hi, narrowed further for bodies wider than kBodyRadiusM).
inline float clamp_lateral(const Crowd::Impl& m, LaneId lane, int dir, float lateral) {
  const float extra = std::max(0.0f, m.config.radius_m - static_cast<float>(kBodyRadiusM));
  float lo = m.walk.band_lo[lane] + extra;
  float hi = m.walk.band_hi[lane] - extra;
  if (hi < lo) lo = hi = 0.5f * (lo + hi);
  const float lane_lateral = std::clamp(dir > 0 ? lateral : -lateral, lo, hi);
  return dir > 0 ? lane_lateral : -lane_lateral;
}

/// A wandering member's record set from its path at time t (pure function of t).
void wander_sync(const Crowd::Impl& m, Agent& a, double t);
inline bool wandering(const Agent& a) { return (a.flags & kPedWandering) != 0U; }

// -- environment.cpp ------------------------------------------------------------------------
/// Indoors, or knocked down (kPedDown sets kPedIndoors too: neither is ticked).
inline bool indoors(const Agent& a) { return (a.flags & kPedIndoors) != 0U; }
inline bool down(const Agent& a) { return (a.flags & kPedDown) != 0U; }
/// The fixed order roaming pedestrians come out in (set-up).
void init_outdoor_order(Crowd::Impl& m);
/// Moves pedestrians indoors / outdoors towards the target of the active count and weather, at
/// most the transition's share per tick (serial, at the start of a tick).
void update_outdoors(Crowd::Impl& m);
/// The full-fidelity and low lists rebuilt without the agents indoors or down (serial).
void refresh_lists(Crowd::Impl& m);
/// Pedestrians in the way of a hazard react (serial, ids ascending).
void react_to_hazards(Crowd::Impl& m);
/// Agents per level (indoors left out) into the stats, and their maxima.
void count_levels(Crowd::Impl& m);

// -- avoid.cpp ------------------------------------------------------------------------------
/// The full-fidelity tick of the active (high, medium) agents, parallel.
void tick_active(Crowd::Impl& m);
/// Shared over ranks: whether this rank updates the agents on `lane` at full fidelity.
inline bool owns_lane(const Crowd::Impl& m, LaneId lane) {
  return m.ranks == nullptr || m.ranks->size() == 1 ||
         static_cast<int>(m.lane_rank[lane]) == m.ranks->rank();
}
/// Shared over ranks, after tick_active, one personalised exchange (share.cpp): every agent this
/// rank updated goes, as the point and velocity it inserted into this tick's map, to the ranks
/// whose agents may query it (the halo of its lane); one that walked onto another rank's lane
/// goes to that rank whole (record, slot state, goal and route); every rank's lane changes and
/// counts go to all. Each rank inserts what it got into its map, counts the others' crosswalk
/// entries and keeps the sweep to the agents on its lanes (those that left dropped, those
/// handed over appended). The others' records are then no longer current (`whole` false).
/// With keep_whole every update goes whole to every rank instead, and the crowd stays whole.
void exchange_halo(Crowd::Impl& m, std::uint64_t queries, std::uint64_t goals_reached);
/// Shared over ranks, collective: every rank sends its agents' records to all (a whole
/// exchange), inserts into the map not yet swapped in those it had not got this tick, and the
/// crowd is one process's on every rank again (`whole`).
void sync_whole(Crowd::Impl& m);
/// Whether the next tick runs a step on every agent's record or the whole map (levels of
/// detail, an event starting, hazards, people going in or coming out): then the crowd is made
/// whole first. The same on every rank (replicated inputs only).
bool whole_needed(const Crowd::Impl& m);
/// The outdoor count the active count and weather ask for (environment.cpp).
std::uint32_t outdoor_target(const Crowd::Impl& m);
/// Threads a tick's parallel loops may run on now (TBB's arena and global_control limit): the
/// sweep's runs of ids and the neighbour map's copies are one per thread.
std::uint32_t ticking_threads();

}  // namespace cityforge::crowd
