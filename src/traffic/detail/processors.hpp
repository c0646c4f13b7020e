// SPDX-License-Identifier: Apache-2.0
// The traffic processors, in tick order (internal). Each is a function over the Impl; the
// Simulation registers them with the sim schedule with their component and resource sets.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "cityforge/core/rng.hpp"
#include "traffic/detail/state.hpp"

namespace cityforge::traffic::detail {

inline constexpr std::uint32_t kNone = 0xffffffffU;

/// Moving vehicles: LaneState, Driver, LaneChange, not Pooled.
sim::Query moving_query(const sim::World& world);

/// Arc length on `to` beside arc length s on the parallel lane `from` (by length ratio).
inline float mapped_s(const Network& net, LaneId from, LaneId to, float s) {
  return s * net.length_m[to] / net.length_m[from];
}

/// Over ranks: whether this rank holds a vehicle's current state (it is on this rank's lanes,
/// or this rank drove it onto another's this tick and hands it over at the next tick's start).
inline bool holds(const Simulation::Impl& m, std::uint32_t entity, LaneId lane) {
  return m.lane_part[lane] == m.part || m.migrant[entity] != 0U;
}

/// A vehicle's id hashed, for the sums that show every moving vehicle held by one rank.
inline std::uint64_t held_id(std::uint32_t entity) { return hash_combine(0x5eed, entity); }

/// Global rows (ascending) split into per-chunk lists of rows within the chunk; `base` holds
/// each chunk's first global row, chunks + 1 of them (`out` is resized to the chunks).
inline void rows_by_chunk(const std::vector<std::uint32_t>& rows,
                          const std::vector<std::uint32_t>& base,
                          std::vector<std::vector<std::uint32_t>>& out) {
  out.resize(base.size() - 1);
  for (auto& q : out)
    q.clear();
  std::size_t c = 0;
  for (const std::uint32_t row : rows) {
    while (base[c + 1] <= row)
      ++c;
    out[c].push_back(row - base[c]);
  }
}

/// Number of queue entries of a lane.
inline std::uint32_t queue_size(const Simulation::Impl& m, LaneId lane) {
  return m.lane_end[lane] - m.lane_begin[lane];
}

/// Whether a vehicle of this length can wait on short link `d` between two junctions of a
/// cluster, clear of both (else it may enter the link only with the next movement granted too).
inline bool link_holds(const Simulation::Impl& m, LaneId d, float vehicle_length_m) {
  return m.net.length_m[d] >= vehicle_length_m + 1.0f;
}

/// Where a fixed-time plan is at a time: its phase and the seconds since that phase began
/// (the first phase starts at offset_s). Phase is kNone for a plan without a positive cycle.
struct PlanClock {
  std::uint32_t phase = kNone;
  double t_s = 0;
};
PlanClock plan_clock(const roads::SignalPlan& plan, double time_s);

/// A vehicle's lane state now: as driven, or for an `off` vehicle not driven
/// since an earlier tick (Config::off_step_s), moved on at its last speed and acceleration
/// (stopping at 0 m/s, not past its lane's end) over the time since: what its followers, the
/// queues, samples and views see. Skipped vehicles have room for that (drive.cpp).
inline LaneState extrapolated(const Simulation::Impl& m, std::uint32_t entity, LaneState st) {
  if (m.moved_tick.empty()) return st;
  const std::uint32_t behind = static_cast<std::uint32_t>(m.tick) - m.moved_tick[entity];
  if (behind == 0 || behind >= m.off_every) return st;
  const float tau = m.config.dt_s * static_cast<float>(behind);
  const float v = st.speed_mps;
  const float a = st.accel_mps2;
  float ds = v * tau + 0.5f * a * tau * tau;
  if (v + a * tau < 0) {
    ds = a < 0 ? -v * v / (2.0f * a) : 0.0f;
    st.speed_mps = 0;
  } else {
    st.speed_mps = v + a * tau;
  }
  st.s_m = std::min(st.s_m + std::max(ds, 0.0f), m.net.length_m[st.lane]);
  return st;
}

/// The time a standing vehicle (`now` from extrapolated) has stood since it was last driven,
/// to add to Driver::stopped_s (stop-sign dwell and waiting read it); 0 for the others.
inline float waited_s(const Simulation::Impl& m, std::uint32_t entity, const LaneState& now) {
  if (m.moved_tick.empty() || now.speed_mps > 0) return 0.0f;
  const std::uint32_t behind = static_cast<std::uint32_t>(m.tick) - m.moved_tick[entity];
  return behind < m.off_every ? m.config.dt_s * static_cast<float>(behind) : 0.0f;
}

/// 0. Partitioned over ranks (share.cpp): this rank's vehicles go to the ranks whose halo holds
/// their lane, and the vehicles it drove onto another rank's lanes to that rank, whole; the
/// others' are written into place, and the rows this tick's queues hold listed (queued_rows).
void exchange_halo(Simulation::Impl& m, const sim::TickContext& ctx);
/// 1. Lane queues from the components (queues.cpp). Writes LaneChange (refused ghosts). Over
/// ranks, only this rank's vehicles and its halo's are queued.
void build_queues(Simulation::Impl& m);
/// 2. Signal and walk states of the signalised junctions at m.time_s (signals.cpp).
void update_signals(Simulation::Impl& m);
/// 3. Grants to enter junction connectors and merges (coordinator.cpp).
void coordinate(Simulation::Impl& m);
/// 3a. Coordination over ranks (share.cpp): sends the grants and hanger slots of the junction
/// clusters and the claims of the merges this rank served, writes the other ranks'.
void exchange_grants(Simulation::Impl& m);
/// 4. Car following, lane ends, lane changes, trips (drive.cpp); one chunk.
void drive_chunk(Simulation::Impl& m, const sim::TickContext& ctx, const sim::ChunkView& chunk);
/// Counters the drive adds to (Counters' order, lane_changes_aborted aside).
inline constexpr std::size_t kCounters = 9;
/// 4a. Driving over ranks (share.cpp): begin_shared_drive returns the counters before the
/// chunks; exchange_driven then sends this rank's counters, sums and the vehicles whose trip
/// ended here, adds the others', pools theirs and checks that every moving vehicle was held by
/// exactly one rank.
std::array<std::uint64_t, kCounters> begin_shared_drive(Simulation::Impl& m);
void exchange_driven(Simulation::Impl& m, const sim::TickContext& ctx,
                     const std::array<std::uint64_t, kCounters>& before);
/// Positions over ranks (share.cpp): `out` holds this rank's vehicles' positions where
/// mine[k] != 0 (in id order); sends them, writes the other ranks' into place (every vehicle
/// must come from exactly one rank).
void exchange_positions(Simulation::Impl& m, const std::vector<std::uint8_t>& mine,
                        std::vector<VehicleSample>& out);
/// Over ranks, between ticks (share.cpp): the global rows (moving_query's chunks in order) of
/// the vehicles this rank holds, ascending; found from the vehicles it drove in the last tick
/// and placed since, or by a pass over every row when those are not known.
std::vector<std::uint32_t> held_rows(Simulation::Impl& m);
/// Over ranks (share.cpp): every rank's `near` (samples of vehicles it holds) on every rank,
/// in id order; a vehicle sent by two ranks stops the job.
void gather_near(Simulation::Impl& m, std::vector<VehicleSample>& near);
/// Samples over ranks (share.cpp): `out` holds this rank's vehicles' full samples where
/// mine[k] != 0 (in id order); sends them to rank 0, which writes the others' into place and
/// checks that every vehicle came from exactly one rank. The other ranks' `out` is emptied.
void gather_samples(Simulation::Impl& m, const std::vector<std::uint8_t>& mine,
                    std::vector<VehicleSample>& out);
/// Over ranks (share.cpp): every rank's `bits` or-ed together, on every rank.
std::vector<std::uint8_t> or_over_ranks(Simulation::Impl& m, std::vector<std::uint8_t> bits);
/// Over ranks (share.cpp): every rank's vehicles into every rank's world.
void gather_state(Simulation::Impl& m);
/// 5. Keeps the moving count: pooled vehicles are spawned where there is room, surplus
/// vehicles are pooled (spawn.cpp).
void respawn(Simulation::Impl& m, const sim::TickContext& ctx);

/// The successor a vehicle picks at the start of `lane` (spawn.cpp): weighted by downstream
/// occupancy, drawn from (seed, tick, entity).
LaneId choose_next(const Simulation::Impl& m, LaneId lane, std::uint32_t entity,
                   std::uint64_t salt);
/// Plans st.next and st.next2 from st.lane: from the trip's route (trip->step is st.lane's
/// step) or by choose_next (spawn.cpp).
void plan_ahead(const Simulation::Impl& m, LaneState& st, const Trip* trip, std::uint32_t entity,
                std::uint64_t salt);
/// After entering st.next: the old next2 becomes next, a new next2 is planned.
void shift_plan(const Simulation::Impl& m, LaneState& st, const Trip* trip, std::uint32_t entity,
                std::uint64_t salt);
/// Initial vehicles, pool and parked vehicles (spawn.cpp); their trips and plans by
/// finish_populate, at once or, with Config::route_trips_later, when share() or the first tick
/// calls it (over ranks each rank routes the trips starting on its lanes).
void finish_populate(Simulation::Impl& m);
/// Initial vehicles, pool and parked vehicles (spawn.cpp).
void populate(Simulation::Impl& m, const std::vector<ParkedVehicle>& parked);
/// Plans a trip from `from` for a vehicle (spawn.cpp): a destination drawn by density and an
/// A* route; false when no destination was reachable.
bool plan_trip(Simulation::Impl& m, Router& router, std::uint32_t entity, LaneId from,
               std::uint64_t salt, Trip& trip);

/// IDM acceleration for a gap (bumper to bumper, metres) to a leader moving at v_lead.
float idm_accel(const VehicleParams& p, float v, float v0, float gap_m, float v_lead);
/// IDM acceleration on a free road.
float free_accel(const VehicleParams& p, float v, float v0);

}  // namespace cityforge::traffic::detail
