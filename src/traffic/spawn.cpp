// SPDX-License-Identifier: Apache-2.0
// Population and density: the initial vehicles are spread over the spawn lanes in proportion to
// length x (0.25 + layout traffic density), so downtown starts denser than the suburbs, spaced
// evenly on each lane within max_fill of its capacity. Vehicles are never destroyed: arrivals go
// to a pool (a tag, no memory freed) and the respawn processor puts pooled vehicles back on
// density-drawn lanes where the start-of-tick queues show room, so a busy frame's spawns are
// component writes, not allocations. Route choice at lane ends weights each successor by
// 1 / (1 + w x occupancy of the lane it leads to), so traffic spreads instead of piling up.
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>

#include "traffic/detail/processors.hpp"

namespace cityforge::traffic::detail {
namespace {

constexpr float kSpacingM = 7.5f;  // Mean road length per queued car (capacity unit).

std::uint32_t draw_spawn_lane(const Simulation::Impl& m, double u) {
  const auto& cdf = m.spawn_weight_cdf;
  const double x = u * cdf.back();
  const auto it = std::upper_bound(cdf.begin(), cdf.end(), x);
  return static_cast<std::uint32_t>(std::min<std::size_t>(it - cdf.begin(), cdf.size() - 1));
}

VehicleType draw_type(const Config& cfg, double u) {
  float total = 0;
  for (const float w : cfg.type_share)
    total += std::max(w, 0.0f);
  double acc = 0;
  for (std::size_t t = 0; t < kVehicleTypes; ++t) {
    acc += std::max(cfg.type_share[t], 0.0f) / total;
    if (u < acc) return static_cast<VehicleType>(t);
  }
  return VehicleType::car;
}

}  // namespace

sim::Query moving_query(const sim::World& world) {
  return world.query<LaneState, Driver, LaneChange>().without(world.id<Pooled>());
}

LaneId choose_next(const Simulation::Impl& m, LaneId lane, std::uint32_t entity,
                   std::uint64_t salt) {
  const Network& net = m.net;
  const std::uint32_t b = net.succ_begin[lane];
  const std::uint32_t e = net.succ_begin[lane + 1];
  if (b == e) return kNoLane;
  if (e - b == 1) return net.succ[b];
  float weights[16];
  float total = 0;
  const std::uint32_t n = std::min<std::uint32_t>(e - b, 16);
  for (std::uint32_t k = 0; k < n; ++k) {
    const LaneId c = net.succ[b + k];
    LaneId d = c;
    if (net.is(c, roads::kIntersection) && net.succ_begin[c + 1] - net.succ_begin[c] == 1) {
      d = net.succ[net.succ_begin[c]];
    }
    const float occupancy = static_cast<float>(queue_size(m, d)) * kSpacingM / net.length_m[d];
    float w = 1.0f / (1.0f + m.config.route_density_weight * occupancy);
    if (net.turn[c] == roads::Turn::u_turn) w *= 0.05f;
    weights[k] = w;
    total += w;
  }
  Rng rng(m.seed, Stage::sim, hash_combine(hash_combine(entity, salt), lane), 1);
  float x = static_cast<float>(rng.uniform01()) * total;
  for (std::uint32_t k = 0; k < n; ++k) {
    x -= weights[k];
    if (x < 0) return net.succ[b + k];
  }
  return net.succ[b + n - 1];
}

void plan_ahead(const Simulation::Impl& m, LaneState& st, const Trip* trip, std::uint32_t entity,
                std::uint64_t salt) {
  if (trip != nullptr) {
    const auto& route = m.routes[entity];
    const auto follow = [&](std::size_t k) {
      return k < route.size() && route[k].kind == StepKind::follow ? route[k].lane : kNoLane;
    };
    st.next = follow(trip->step + 1);
    st.next2 = st.next != kNoLane ? follow(trip->step + 2) : kNoLane;
    st.next3 = st.next2 != kNoLane ? follow(trip->step + 3) : kNoLane;
    // Past a lane change or the destination the route says nothing: guess by density, so
    // paths through close junctions can still be requested whole (a wrong guess reroutes).
    if (st.next2 != kNoLane && st.next3 == kNoLane) {
      st.next3 = choose_next(m, st.next2, entity, salt + 2);
    }
    return;
  }
  st.next = choose_next(m, st.lane, entity, salt);
  st.next2 = st.next != kNoLane ? choose_next(m, st.next, entity, salt + 1) : kNoLane;
  st.next3 = st.next2 != kNoLane ? choose_next(m, st.next2, entity, salt + 2) : kNoLane;
}

void shift_plan(const Simulation::Impl& m, LaneState& st, const Trip* trip, std::uint32_t entity,
                std::uint64_t salt) {
  if (trip != nullptr || st.next2 == kNoLane || st.next3 == kNoLane) {
    plan_ahead(m, st, trip, entity, salt);
    return;
  }
  st.next = st.next2;
  st.next2 = st.next3;
  st.next3 = choose_next(m, st.next2, entity, salt + 2);
}

bool plan_trip(Simulation::Impl& m, Router& router, std::uint32_t entity, LaneId from,
               std::uint64_t salt, Trip& trip) {
  Rng rng(m.seed, Stage::sim, hash_combine(entity, salt), 2);
  const Network& net = m.net;
  const double reach = m.config.trip_reach_m;
  const Vec3 start = lane_end_point(net, from);
  const auto beyond_reach = [&](LaneId to) {
    if (reach <= 0) return false;
    const Vec3 d = lane_end_point(net, to) - start;
    return d.x * d.x + d.y * d.y > reach * reach;
  };
  // Within reach, the density draw is repeated until a lane is (rejection keeps the density
  // weights among the lanes within reach); where 3 % of the city's spawn weight is within
  // reach, all 256 draws miss once in 2,500.
  constexpr int kReachDraws = 256;
  for (int attempt = 0; attempt < 8; ++attempt) {
    LaneId to = net.spawn_lanes[draw_spawn_lane(m, rng.uniform01())];
    for (int k = 1; k < kReachDraws && beyond_reach(to); ++k)
      to = net.spawn_lanes[draw_spawn_lane(m, rng.uniform01())];
    if (beyond_reach(to)) continue;
    // Destinations are streets long enough to arrive on, not links between close junctions.
    if (to == from || m.net.length_m[to] < 30.0f) continue;
    std::vector<RouteStep> route = router.route(from, to);
    if (route.size() < 2) continue;
    m.routes[entity] = std::move(route);
    trip = Trip{to, 0};
    return true;
  }
  return false;
}

void populate(Simulation::Impl& m, const std::vector<ParkedVehicle>& parked) {
  const Network& net = m.net;
  const Config& cfg = m.config;
  sim::World& w = m.world;
  // 1. Vehicles per lane: drawn by weight, each lane holding at most max_fill of its capacity.
  std::vector<std::uint32_t> cap(net.spawn_lanes.size());
  for (std::size_t k = 0; k < cap.size(); ++k) {
    const float len = net.length_m[net.spawn_lanes[k]];
    cap[k] = len < 16.0f ? 0U : static_cast<std::uint32_t>(len * cfg.max_fill / kSpacingM);
  }
  std::vector<std::uint32_t> on_lane(cap.size(), 0);
  std::uint32_t placed = 0;
  for (std::uint32_t i = 0; i < m.target_vehicles; ++i) {
    Rng rng(m.seed, Stage::sim, i, 3);
    std::uint32_t k = draw_spawn_lane(m, rng.uniform01());
    for (std::size_t probe = 0; probe < cap.size() && on_lane[k] >= cap[k]; ++probe) {
      k = static_cast<std::uint32_t>((k + 1) % cap.size());
    }
    if (on_lane[k] >= cap[k]) break;
    ++on_lane[k];
    ++placed;
  }
  m.target_vehicles = placed;

  // 2. Spawn them evenly spaced, front vehicle first, lanes in order.
  std::vector<std::pair<sim::Entity, LaneId>> trip_vehicles;
  std::uint32_t serial = 0;
  for (std::size_t k = 0; k < cap.size(); ++k) {
    const LaneId lane = net.spawn_lanes[k];
    const float len = net.length_m[lane];
    const std::uint32_t n = on_lane[k];
    if (n == 0) continue;
    const float spacing = len / static_cast<float>(n);
    for (std::uint32_t j = 0; j < n; ++j, ++serial) {
      Rng rng(m.seed, Stage::sim, serial, 4);
      const VehicleType type = draw_type(cfg, rng.uniform01());
      const VehicleParams& p = cfg.params[static_cast<std::size_t>(type)];
      const float slack = std::max(0.0f, spacing - p.length_m - p.min_gap_m);
      const float front = len - 1.0f - static_cast<float>(j) * spacing -
                          static_cast<float>(rng.uniform(0.0, 0.5)) * slack;
      LaneState st;
      st.lane = lane;
      st.s_m = std::clamp(front, p.length_m, len - 1.0f);
      Driver d;
      d.type = static_cast<std::uint8_t>(type);
      d.speed_factor =
          p.speed_factor *
          static_cast<float>(1.0 + rng.uniform(-cfg.driver_speed_jitter, cfg.driver_speed_jitter));
      const sim::Entity e = w.spawn(st, d, LaneChange{});
      if (rng.chance(cfg.trip_share)) trip_vehicles.emplace_back(e, lane);
    }
  }
  // 3-4. Trips and next lanes, now or when the ranks are known (finish_populate).
  m.routes.resize(w.entity_count() + 1);
  m.pending_trips = std::move(trip_vehicles);
  m.trips_pending = true;
  if (!cfg.route_trips_later) finish_populate(m);
  // 5. The pool and the parked vehicles.
  const std::uint32_t pool = cfg.pool != 0 ? cfg.pool : m.target_vehicles / 50 + 16;
  for (std::uint32_t i = 0; i < pool; ++i) {
    Rng rng(m.seed, Stage::sim, i, 5);
    Driver d;
    const VehicleType type = draw_type(cfg, rng.uniform01());
    d.type = static_cast<std::uint8_t>(type);
    d.speed_factor =
        cfg.params[d.type].speed_factor *
        static_cast<float>(1.0 + rng.uniform(-cfg.driver_speed_jitter, cfg.driver_speed_jitter));
    w.spawn(LaneState{}, d, LaneChange{}, Pooled{});
  }
  for (const ParkedVehicle& p : parked) {
    Parked q;
    q.x = static_cast<float>(p.position.x);
    q.y = static_cast<float>(p.position.y);
    q.z = static_cast<float>(p.position.z);
    q.heading = static_cast<float>(p.heading_rad);
    q.type = static_cast<std::uint32_t>(p.type);
    w.spawn(q);
  }
  m.routes.resize(w.entity_count() + 1);
}

void finish_populate(Simulation::Impl& m) {
  if (!m.trips_pending) return;
  m.trips_pending = false;
  const Network& net = m.net;
  sim::World& w = m.world;
  const std::vector<std::pair<sim::Entity, LaneId>> trip_vehicles = std::move(m.pending_trips);
  m.pending_trips.clear();
  // 3. Trips, routed in parallel (each route depends only on its vehicle); over ranks each rank
  // routes the vehicles on its lanes, and the others learn whether a route was found.
  const bool shared = m.ranks != nullptr;
  std::vector<Trip> trips(trip_vehicles.size());
  std::vector<std::uint8_t> ok(trip_vehicles.size(), 0);
  tbb::parallel_for(std::size_t{0}, trip_vehicles.size(), [&](std::size_t i) {
    if (shared && m.lane_part[trip_vehicles[i].second] != m.part) return;
    Router& router = m.routers.local();
    ok[i] = plan_trip(m, router, trip_vehicles[i].first.index, trip_vehicles[i].second, 0, trips[i])
                ? 1
                : 0;
  });
  if (shared) ok = or_over_ranks(m, std::move(ok));
  for (std::size_t i = 0; i < trip_vehicles.size(); ++i) {
    if (ok[i] != 0U) {
      w.add(trip_vehicles[i].first, trips[i]);
      ++m.stats.trips_started;
    }
  }
  // 4. Next lanes, once every vehicle is known (trip vehicles follow their route; over ranks,
  // the plans of another rank's vehicles are its to make, and come with them).
  // The density-weighted choices read the lanes' vehicle counts (queue sizes; no queue entries
  // exist yet), cleared after: the first tick's queues are built from nothing.
  const std::uint32_t lanes = net.lane_count();
  m.lane_begin.assign(lanes, 0);
  m.lane_end.assign(lanes, 0);
  for (const sim::ChunkView& c : w.chunks(moving_query(w))) {
    for (const LaneState& st : c.read<LaneState>())
      ++m.lane_end[st.lane];
  }
  for (const sim::ChunkView& c : w.chunks(moving_query(w))) {
    const auto ents = c.entities();
    const auto ls = c.write<LaneState>();
    const bool trip = c.has<Trip>();
    const Trip* trip_rows = trip ? c.read<Trip>().data() : nullptr;
    for (std::size_t i = 0; i < ls.size(); ++i) {
      plan_ahead(m, ls[i], trip_rows != nullptr ? trip_rows + i : nullptr, ents[i].index, 0);
    }
  }
  m.lane_end.assign(lanes, 0);
}

void respawn(Simulation::Impl& m, const sim::TickContext& ctx) {
  const Network& net = m.net;
  const Config& cfg = m.config;
  sim::World& w = m.world;
  const std::uint64_t arrived = m.counters.trips_completed.load() - m.arrivals_seen;
  m.arrivals_seen = m.counters.trips_completed.load();
  const std::int64_t moving =
      static_cast<std::int64_t>(m.chunk_base.empty() ? 0 : m.chunk_base.back()) -
      static_cast<std::int64_t>(arrived);
  std::int64_t deficit = static_cast<std::int64_t>(m.target_vehicles) - moving;
  sim::CommandWriter out = ctx.writer(0);
  if (deficit < 0) {
    // 1. Too many: pool the highest entity indices (over ranks, with every rank's vehicles as
    // they are, so that the pool is the same everywhere).
    if (m.ranks != nullptr) gather_state(m);
    std::vector<sim::Entity> all;
    for (const sim::ChunkView& c : w.chunks(moving_query(w))) {
      for (const sim::Entity e : c.entities())
        all.push_back(e);
    }
    std::sort(all.begin(), all.end(),
              [](sim::Entity a, sim::Entity b) { return a.index > b.index; });
    for (std::int64_t k = 0; k < -deficit && k < static_cast<std::int64_t>(all.size()); ++k) {
      out.add(all[static_cast<std::size_t>(k)], Pooled{});
    }
    return;
  }
  if (deficit == 0) return;
  // 2. Too few: pooled vehicles go where the start-of-tick queues (and this tick's spawns) show
  // room.
  const bool shared = m.ranks != nullptr;
  // Trips keep their share of the moving vehicles: an arrival is replaced by a new trip.
  std::int64_t trips_now = -static_cast<std::int64_t>(arrived);
  for (const sim::ChunkView& c : w.chunks(moving_query(w))) {
    if (c.has<Trip>()) trips_now += static_cast<std::int64_t>(c.entities().size());
  }
  std::int64_t trips_wanted =
      std::llround(cfg.trip_share * static_cast<double>(m.target_vehicles)) - trips_now;
  // An attempt's draws: its lane first, then (by vehicle length) where on it.
  const auto attempt_rng = [&](std::uint32_t attempt) {
    return Rng(m.seed, Stage::sim, hash_combine(ctx.tick, attempt), 6);
  };
  const auto draw_lane = [&](Rng& rng) {
    return net.spawn_lanes[draw_spawn_lane(m, rng.uniform01())];
  };
  // Whether the lane's queue leaves room for a vehicle between front and rear.
  const auto queue_room = [&](LaneId lane, float front, float rear) {
    for (std::uint32_t q = m.lane_begin[lane]; q < m.lane_end[lane]; ++q) {
      const QueueEntry& x = m.entries[q];
      const bool free = x.s_m >= front ? x.s_m - x.length_m - front >= 10.0f  // leader ahead
                                       : rear - x.s_m >= 2.0f * x.speed_mps + 12.0f;  // follower
      if (!free) return false;
    }
    return true;
  };
  // Over ranks a lane's queue is whole on its rank only: attempts are weighed there for every
  // vehicle type, a batch at a time, and the batches or-ed over the ranks, so that every rank
  // then makes the same choices in the same order (all reach a batch's end together).
  std::vector<std::uint8_t> room;  // attempt x type
  const auto room_at = [&](std::uint32_t attempt, std::uint8_t type, LaneId lane, float front,
                           float rear) {
    if (!shared) return queue_room(lane, front, rear);
    while (attempt >= room.size() / kVehicleTypes) {
      const auto first = static_cast<std::uint32_t>(room.size() / kVehicleTypes);
      const std::uint32_t batch =
          8U * static_cast<std::uint32_t>(std::clamp<std::int64_t>(deficit, 1, 4096));
      std::vector<std::uint8_t> bits(std::size_t{batch} * kVehicleTypes, 0);
      for (std::uint32_t a = 0; a < batch; ++a) {
        Rng rng = attempt_rng(first + a);
        const LaneId l = draw_lane(rng);
        if (m.lane_part[l] != m.part) continue;
        const float len = net.length_m[l];
        for (std::size_t t = 0; t < kVehicleTypes; ++t) {
          const VehicleParams& p = cfg.params[t];
          if (len < p.length_m + 25.0f) continue;
          Rng r = rng;
          const float f = static_cast<float>(r.uniform(p.length_m + 2.0, len - 20.0));
          bits[std::size_t{a} * kVehicleTypes + t] = queue_room(l, f, f - p.length_m) ? 1 : 0;
        }
      }
      bits = or_over_ranks(m, std::move(bits));
      room.insert(room.end(), bits.begin(), bits.end());
    }
    return room[std::size_t{attempt} * kVehicleTypes + type] != 0U;
  };
  struct Placed {
    sim::Entity entity;
    bool had_trip;
    Driver driver;
    LaneId lane;
    float front, rear;
  };
  std::vector<Placed> placed;
  std::uint32_t attempt = 0;
  for (const sim::ChunkView& c : w.chunks(w.query<Driver, Pooled>())) {
    const auto ents = c.entities();
    const auto dr = c.read<Driver>();
    for (std::size_t i = 0; i < ents.size() && deficit > 0; ++i) {
      const VehicleParams& p = cfg.params[dr[i].type];
      bool done = false;
      for (int tries = 0; tries < 8 && !done; ++tries, ++attempt) {
        Rng rng = attempt_rng(attempt);
        const LaneId lane = draw_lane(rng);
        const float len = net.length_m[lane];
        if (len < p.length_m + 25.0f) continue;
        const float front = static_cast<float>(rng.uniform(p.length_m + 2.0, len - 20.0));
        const float rear = front - p.length_m;
        bool free = room_at(attempt, dr[i].type, lane, front, rear);
        for (const Placed& o : placed) {
          if (o.lane == lane && !(o.rear - front >= 10.0f || rear - o.front >= 12.0f)) {
            free = false;
          }
        }
        for (const Obstacle& ob : m.obstacles) {
          // Clear of obstacles as of other vehicles (moving ones need room to brake for us).
          if (ob.alive && ob.lane == lane &&
              !(ob.s_m - ob.length_m - front >= 10.0f ||
                rear - ob.s_m >= 2.0f * ob.speed_mps + 12.0f)) {
            free = false;
          }
        }
        if (!free) continue;
        placed.push_back(Placed{ents[i], c.has<Trip>(), dr[i], lane, front, rear});
        --deficit;
        done = true;
      }
    }
    if (deficit == 0) break;
  }
  // 3. Trips for the placed vehicles, in order, while trips are wanted. Over ranks, the rank of
  // a vehicle's lane routes it (a batch at a time, as above) and the others learn whether a
  // route was found.
  Router& router = m.routers.local();
  std::vector<Trip> trips(placed.size());
  std::vector<std::uint8_t> routed;  // per placed vehicle, over ranks
  const auto route_at = [&](std::size_t k) {
    if (!shared)
      return plan_trip(m, router, placed[k].entity.index, placed[k].lane, ctx.tick + 1, trips[k]);
    while (k >= routed.size()) {
      const std::size_t first = routed.size();
      const std::size_t end = std::min(
          placed.size(), first + static_cast<std::size_t>(std::max<std::int64_t>(trips_wanted, 1)));
      std::vector<std::uint8_t> bits(end - first, 0);
      for (std::size_t q = first; q < end; ++q) {
        if (m.lane_part[placed[q].lane] != m.part) continue;
        bits[q - first] =
            plan_trip(m, router, placed[q].entity.index, placed[q].lane, ctx.tick + 1, trips[q])
                ? 1
                : 0;
      }
      bits = or_over_ranks(m, std::move(bits));
      routed.insert(routed.end(), bits.begin(), bits.end());
    }
    return routed[k] != 0U;
  };
  for (std::size_t k = 0; k < placed.size(); ++k) {
    const Placed& pl = placed[k];
    const sim::Entity ent = pl.entity;
    // Over ranks only the rank of the lane holds the vehicle's state from now on; the others
    // keep its row (same rows everywhere) on that lane.
    const bool here = !shared || m.lane_part[pl.lane] == m.part;
    LaneState st;
    st.lane = pl.lane;
    st.s_m = pl.front;
    st.speed_mps = 0.5f * net.speed_limit_mps[pl.lane];
    const bool on_trip = trips_wanted > 0 && route_at(k);
    trips_wanted -= on_trip ? 1 : 0;
    if (here) plan_ahead(m, st, on_trip ? &trips[k] : nullptr, ent.index, ctx.tick);
    if (on_trip) {
      out.add(ent, trips[k]);
      ++m.stats.trips_started;
    } else if (pl.had_trip) {
      out.remove<Trip>(ent);
    }
    Driver fresh = pl.driver;
    fresh.stopped_s = 0;
    fresh.blocked_s = 0;
    fresh.flags = 0;
    out.add(ent, st);
    out.add(ent, fresh);
    out.add(ent, LaneChange{});
    out.remove<Pooled>(ent);
    // Its state is new at the end of this tick.
    if (!m.moved_tick.empty()) m.moved_tick[ent.index] = static_cast<std::uint32_t>(ctx.tick + 1);
    if (shared) {  // Moving from this tick's end; the rank of its lane holds it (share.cpp).
      m.moving_ids_change += held_id(ent.index);
      if (here) m.placed_here.push_back(ent.index);
    }
  }
}

}  // namespace cityforge::traffic::detail
