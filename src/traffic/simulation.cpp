// SPDX-License-Identifier: Apache-2.0
// The Simulation: registers the traffic components and processors on a sim::World, derives the
// coordinator's tables from the network, and exposes views for tests, tools and recordings.
// Tick order: queues and signals (one phase, in parallel), coordinator, drive (chunks in
// parallel), respawn; then the world applies the commands (arrivals pooled, respawns).
#include <tbb/parallel_for.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numbers>

#include "traffic/detail/processors.hpp"

namespace cityforge::traffic {

using namespace detail;

VehicleParams default_params(VehicleType t) {
  VehicleParams p;
  switch (t) {
    case VehicleType::car:
      break;
    case VehicleType::van:
      p.length_m = 5.5f;
      p.width_m = 2.0f;
      p.max_accel_mps2 = 1.2f;
      p.time_gap_s = 1.4f;
      p.speed_factor = 0.95f;
      break;
    case VehicleType::bus:
      p.length_m = 12.0f;
      p.width_m = 2.55f;
      p.max_accel_mps2 = 1.0f;
      p.comfort_decel_mps2 = 1.5f;
      p.max_decel_mps2 = 6.0f;
      p.time_gap_s = 1.6f;
      p.min_gap_m = 2.5f;
      p.speed_factor = 0.9f;
      p.politeness = 0.5f;
      break;
    case VehicleType::truck:
      p.length_m = 10.0f;
      p.width_m = 2.5f;
      p.max_accel_mps2 = 0.8f;
      p.comfort_decel_mps2 = 1.5f;
      p.max_decel_mps2 = 6.0f;
      p.time_gap_s = 1.7f;
      p.min_gap_m = 2.5f;
      p.speed_factor = 0.85f;
      p.politeness = 0.5f;
      break;
  }
  return p;
}

namespace {

Status check_config(const Config& c) {
  const auto bad = [](const std::string& where, const std::string& what) {
    return Error::invalid_input(where, what);
  };
  if (!(c.dt_s > 0 && c.dt_s <= 1)) return bad("dt_s", "expected a tick in (0, 1] seconds");
  float share = 0;
  for (const float s : c.type_share) {
    if (!(s >= 0)) return bad("type_share", "expected shares >= 0");
    share += s;
  }
  if (!(share > 0)) return bad("type_share", "expected at least one share > 0");
  if (!(c.trip_share >= 0 && c.trip_share <= 1)) return bad("trip_share", "expected 0..1");
  if (!(c.trip_reach_m >= 0 && std::isfinite(c.trip_reach_m))) {
    return bad("trip_reach_m", "expected a distance >= 0 metres");
  }
  if (!(c.max_fill > 0 && c.max_fill <= 1)) return bad("max_fill", "expected (0, 1]");
  for (std::size_t t = 0; t < kVehicleTypes; ++t) {
    const VehicleParams& p = c.params[t];
    const std::string where = std::string("params.") + to_string(static_cast<VehicleType>(t));
    if (!(p.length_m > 0 && p.max_accel_mps2 > 0 && p.comfort_decel_mps2 > 0 &&
          p.max_decel_mps2 >= p.comfort_decel_mps2 && p.time_gap_s >= 0 && p.min_gap_m > 0 &&
          p.speed_factor > 0)) {
      return bad(where,
                 "expected length, accelerations, min gap and speed factor > 0 and "
                 "max_decel >= comfort_decel");
    }
  }
  if (!(c.lane_change_duration_s > 0 && c.lane_change_interval_s > 0 && c.look_ahead_min_m > 0)) {
    return bad("lane_change", "expected positive lane change duration, interval and look-ahead");
  }
  if (!(c.off_step_s >= 0 && c.off_step_s <= 60)) {
    return bad("off_step_s", "expected 0..60 seconds");
  }
  return Ok{};
}

void derive_tables(Simulation::Impl& m) {
  const Network& net = m.net;
  const std::uint32_t lanes = net.lane_count();
  const std::uint32_t junctions = net.intersection_count();
  m.needs_grant.assign(lanes, 0);
  m.coordinated.assign(junctions, 0);
  m.approach_begin.assign(junctions + 1, 0);
  m.approaches.clear();
  for (std::uint32_t j = 0; j < junctions; ++j) {
    std::vector<LaneId> feed;
    // Junctions with a control, and uncontrolled ones whose movements conflict (a lane drop at
    // a bend merges two connectors into one lane), are coordinated.
    bool coordinated = net.control[j] != roads::Control::none;
    for (std::uint32_t k = net.connector_begin[j]; k < net.connector_begin[j + 1]; ++k) {
      const LaneId c = net.connectors[k];
      coordinated = coordinated || net.conflict_begin[c] != net.conflict_begin[c + 1];
    }
    m.coordinated[j] = coordinated ? 1 : 0;
    if (coordinated) {
      for (std::uint32_t k = net.connector_begin[j]; k < net.connector_begin[j + 1]; ++k) {
        const LaneId c = net.connectors[k];
        m.needs_grant[c] = 1;
        for (std::uint32_t q = net.pred_begin[c]; q < net.pred_begin[c + 1]; ++q) {
          feed.push_back(net.pred[q]);
        }
      }
    }
    std::sort(feed.begin(), feed.end());
    feed.erase(std::unique(feed.begin(), feed.end()), feed.end());
    m.approaches.insert(m.approaches.end(), feed.begin(), feed.end());
    m.approach_begin[j + 1] = static_cast<std::uint32_t>(m.approaches.size());
  }
  // Short links join junctions into clusters served as one (union-find, smallest index root).
  constexpr auto kShortLinkMf = static_cast<float>(roads::kShortLinkM);
  m.short_link.assign(lanes, 0);
  std::vector<std::uint32_t> root(junctions);
  for (std::uint32_t j = 0; j < junctions; ++j)
    root[j] = j;
  const auto find = [&](std::uint32_t x) {
    while (root[x] != x)
      x = root[x] = root[root[x]];
    return x;
  };
  for (std::uint32_t j = 0; j < junctions; ++j) {
    if (m.coordinated[j] == 0U) continue;
    for (std::uint32_t k = net.connector_begin[j]; k < net.connector_begin[j + 1]; ++k) {
      const LaneId c = net.connectors[k];
      if (net.succ_begin[c + 1] == net.succ_begin[c]) continue;
      const LaneId d = net.succ[net.succ_begin[c]];
      if (net.length_m[d] >= kShortLinkMf) continue;
      for (std::uint32_t q = net.succ_begin[d]; q < net.succ_begin[d + 1]; ++q) {
        const std::int32_t b = net.intersection[net.succ[q]];
        if (b < 0 || static_cast<std::uint32_t>(b) == j || m.coordinated[b] == 0U) continue;
        m.short_link[d] = 1;
        const std::uint32_t x = find(j);
        const std::uint32_t y = find(static_cast<std::uint32_t>(b));
        root[std::max(x, y)] = std::min(x, y);
      }
    }
  }
  std::vector<std::vector<std::uint32_t>> groups(junctions);
  for (std::uint32_t j = 0; j < junctions; ++j) {
    if (m.coordinated[j] != 0U) groups[find(j)].push_back(j);
  }
  m.cluster_begin.assign(1, 0);
  for (const auto& g : groups) {
    if (g.empty()) continue;
    m.cluster_junctions.insert(m.cluster_junctions.end(), g.begin(), g.end());
    m.cluster_begin.push_back(static_cast<std::uint32_t>(m.cluster_junctions.size()));
  }
  // Merges: ramps and slower lanes yield; among equals all but the lowest id yield.
  m.yields_into_merge.assign(lanes, 0);
  for (LaneId l = 0; l < lanes; ++l) {
    if (net.merge[l] == 0U) continue;
    std::vector<LaneId> plain;
    std::vector<LaneId> priority;
    for (std::uint32_t q = net.pred_begin[l]; q < net.pred_begin[l + 1]; ++q) {
      const LaneId p = net.pred[q];
      (net.is(p, roads::kIntersection) ? priority : plain).push_back(p);
    }
    if (plain.empty()) continue;
    // The fastest non-ramp lane keeps priority (lowest id among equals); the others yield.
    LaneId keep = kNoLane;
    for (const LaneId p : plain) {
      if (!net.is(p, roads::kRamp) &&
          (keep == kNoLane || net.speed_limit_mps[p] > net.speed_limit_mps[keep])) {
        keep = p;
      }
    }
    if (keep != kNoLane) priority.push_back(keep);
    std::vector<LaneId> yielding;
    for (const LaneId p : plain) {
      if (p != keep) yielding.push_back(p);
    }
    if (priority.empty() && !yielding.empty()) {
      priority.push_back(yielding.front());
      yielding.erase(yielding.begin());
    }
    if (yielding.empty()) continue;
    for (const LaneId y : yielding)
      m.yields_into_merge[y] = 1;
    m.merge_lanes.push_back(l);
    m.merge_priority.push_back(std::move(priority));
    m.merge_yielding.push_back(std::move(yielding));
  }
  // Signals.
  m.light.assign(lanes, LightState::off);
  m.walk.assign(lanes, WalkState::off);
  for (const roads::SignalPlan& plan : net.signals) {
    const std::uint32_t j = plan.intersection;
    for (std::uint32_t k = net.connector_begin[j]; k < net.connector_begin[j + 1]; ++k) {
      m.signal_lanes.push_back(net.connectors[k]);
      m.light[net.connectors[k]] = LightState::red;
    }
    std::vector<LaneId> xs;
    for (const roads::Phase& p : plan.phases)
      xs.insert(xs.end(), p.walk.begin(), p.walk.end());
    std::sort(xs.begin(), xs.end());
    xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
    for (const LaneId x : xs)
      m.walk[x] = WalkState::dont_walk;
    m.crosswalk_lanes.insert(m.crosswalk_lanes.end(), xs.begin(), xs.end());
    m.crosswalks_of_signal.push_back(std::move(xs));
  }
  std::sort(m.signal_lanes.begin(), m.signal_lanes.end());
  m.signal_lanes.erase(std::unique(m.signal_lanes.begin(), m.signal_lanes.end()),
                       m.signal_lanes.end());
  std::sort(m.crosswalk_lanes.begin(), m.crosswalk_lanes.end());
  m.crosswalk_lanes.erase(std::unique(m.crosswalk_lanes.begin(), m.crosswalk_lanes.end()),
                          m.crosswalk_lanes.end());
  // Spawning weights and scratch.
  double acc = 0;
  for (const LaneId l : net.spawn_lanes) {
    acc += net.length_m[l] * (0.25 + net.traffic_density[l]);
    m.spawn_weight_cdf.push_back(acc);
  }
  for (const float v : net.speed_limit_mps)
    m.max_speed_mps = std::max(m.max_speed_mps, v);
  m.crosswalk_busy.assign(lanes, 0);
  m.grant.assign(lanes, Grant{});
  m.claim.assign(lanes, Grant{});
  m.hanger.assign(m.cluster_begin.size() - 1, Grant{});
  m.claim_dist_m.assign(lanes, 0);
  m.claim_length_m.assign(lanes, 0);
  m.busy.assign(lanes, 0);
  m.reserved_m.assign(lanes, 0);
  m.lane_begin.assign(lanes, 0);
  m.lane_end.assign(lanes, 0);
}

std::uint32_t spawn_capacity(const Simulation::Impl& m) {
  std::uint64_t cap = 0;
  for (const LaneId l : m.net.spawn_lanes) {
    const float len = m.net.length_m[l];
    if (len >= 16.0f) cap += static_cast<std::uint64_t>(len * m.config.max_fill / 7.5f);
  }
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(cap, 0xffffffffU));
}

void add_processors(Simulation::Impl& m) {
  sim::World& w = m.world;
  Simulation::Impl* self = &m;
  sim::Processor halo;  // Only over ranks (share.cpp).
  halo.name = "halo";
  halo.writes = w.mask<LaneState, Driver, LaneChange, Trip>();
  halo.resource_writes = kResRoutes;
  halo.run = [self](const sim::TickContext& ctx) {
    if (self->ranks != nullptr) exchange_halo(*self, ctx);
  };
  w.schedule().add(std::move(halo));

  sim::Processor queues;
  queues.name = "queues";
  queues.reads = w.mask<LaneState, Driver, Trip>();
  queues.writes = w.mask<LaneChange>();
  queues.resource_writes = kResQueues;
  queues.run = [self](const sim::TickContext&) {
    build_queues(*self);
    const std::size_t chunks = self->chunk_base.size() - 1;
    self->chunk_distance.assign(chunks, 0);
    self->chunk_speed.assign(chunks, 0);
    self->chunk_driven.assign(chunks, 0);
    self->chunk_own.assign(chunks, 0);
    self->chunk_pooled.resize(chunks);
  };
  w.schedule().add(std::move(queues));

  sim::Processor signals;
  signals.name = "signals";
  signals.resource_writes = kResLights;
  signals.run = [self](const sim::TickContext&) { update_signals(*self); };
  w.schedule().add(std::move(signals));

  sim::Processor coordinator;
  coordinator.name = "coordinator";
  coordinator.resource_reads = kResQueues | kResLights;
  coordinator.resource_writes = kResGrants;
  coordinator.run = [self](const sim::TickContext&) { coordinate(*self); };
  w.schedule().add(std::move(coordinator));

  sim::Processor drive;
  drive.name = "drive";
  drive.reads = w.mask<LaneState, Driver, LaneChange, Trip>();
  drive.writes = w.mask<LaneState, Driver, LaneChange, Trip>();
  drive.resource_reads = kResQueues | kResLights | kResGrants | kResObstacles;
  drive.resource_writes = kResRoutes | kResStats;
  drive.run = [self](const sim::TickContext& ctx) {
    std::array<std::uint64_t, kCounters> before{};
    if (self->ranks != nullptr) before = begin_shared_drive(*self);
    ctx.world.parallel_for_each_chunk(moving_query(ctx.world),
                                      [&](const sim::ChunkView& c) { drive_chunk(*self, ctx, c); });
    // Integer sums: the same in any order, over chunks here and over ranks in the exchange.
    self->sum_distance = 0;
    self->sum_speed = 0;
    self->sum_driven = 0;
    for (std::size_t c = 0; c < self->chunk_distance.size(); ++c) {
      self->sum_distance += self->chunk_distance[c];
      self->sum_speed += self->chunk_speed[c];
      self->sum_driven += self->chunk_driven[c];
    }
    if (self->ranks != nullptr) exchange_driven(*self, ctx, before);
  };
  w.schedule().add(std::move(drive));

  sim::Processor spawn;
  spawn.name = "respawn";
  spawn.reads = w.mask<Driver, Pooled, LaneState>();
  spawn.resource_reads = kResQueues;
  spawn.resource_writes = kResRoutes | kResStats;
  spawn.run = [self](const sim::TickContext& ctx) { respawn(*self, ctx); };
  w.schedule().add(std::move(spawn));
}

double smoothstep(double t) {
  t = std::clamp(t, 0.0, 1.0);
  return t * t * (3.0 - 2.0 * t);
}

/// Parked vehicles as recording samples, by entity order.
void append_parked(Simulation::Impl& m, std::vector<VehicleSample>& out) {
  for (const sim::ChunkView& c : m.world.chunks(m.world.query<Parked>())) {
    const auto ents = c.entities();
    const auto pk = c.read<Parked>();
    for (std::size_t i = 0; i < ents.size(); ++i) {
      VehicleSample s;
      s.id = ents[i].index;
      s.kind = static_cast<EntityKind>(pk[i].type);
      s.position = Vec3{pk[i].x, pk[i].y, pk[i].z};
      s.heading_rad = pk[i].heading;
      out.push_back(s);
    }
  }
}

}  // namespace

Simulation::Simulation(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
Simulation::~Simulation() = default;

Result<std::unique_ptr<Simulation>> Simulation::create(Network net, const Config& config,
                                                       std::vector<ParkedVehicle> parked,
                                                       Seed seed) {
  if (Status s = check_config(config); !s) return s.error();
  if (net.spawn_lanes.empty()) {
    return Error::invalid_input("lanes",
                                "no vehicle lane to spawn on (expected kVehicle lanes "
                                "that are not connectors or ramps)");
  }
  auto impl = std::make_unique<Impl>(std::move(net), config, seed);
  Impl& m = *impl;
  sim::World& w = m.world;
  w.register_component<LaneState>("LaneState");
  w.register_component<Driver>("Driver");
  w.register_component<LaneChange>("LaneChange");
  w.register_component<Trip>("Trip");
  w.register_component<Parked>("Parked");
  w.register_component<Pooled>("Pooled");
  derive_tables(m);
  m.stats.vehicles_requested = config.vehicles;
  m.stats.capacity = spawn_capacity(m);
  m.target_vehicles = config.vehicles;
  if (config.vehicles > m.stats.capacity) {
    m.target_vehicles = m.stats.capacity;
    m.stats.warnings.push_back(
        "requested " + std::to_string(config.vehicles) + " vehicles but the spawn lanes hold " +
        std::to_string(m.stats.capacity) + " at max_fill " + std::to_string(config.max_fill) +
        " (7.5 m of lane per vehicle); clamped to " + std::to_string(m.stats.capacity));
  }
  populate(m, parked);
  if (m.target_vehicles < std::min(config.vehicles, m.stats.capacity)) {
    m.stats.warnings.push_back("placed " + std::to_string(m.target_vehicles) + " of " +
                               std::to_string(config.vehicles) + " vehicles");
  }
  m.off_every = static_cast<std::uint32_t>(
      std::max(1.0, std::round(static_cast<double>(config.off_step_s / config.dt_s))));
  add_processors(m);
  m.stats.vehicles_moving = static_cast<std::uint32_t>(w.count(moving_query(w)));
  m.stats.vehicles_parked = static_cast<std::uint32_t>(w.count(w.query<Parked>()));
  m.stats.vehicles_pooled = static_cast<std::uint32_t>(w.count(w.query<Pooled>()));
  return std::unique_ptr<Simulation>(new Simulation(std::move(impl)));
}

void Simulation::tick() {
  Impl& m = *m_impl;
  finish_populate(m);  // With Config::route_trips_later and no share(): now.
  m.world.tick();
  const std::uint32_t rows = m.chunk_base.empty() ? 0 : m.chunk_base.back();
  const double distance = from_fixed20(m.sum_distance);
  const double speed = from_fixed20(m.sum_speed);
  const std::uint64_t driven = m.sum_driven;
  ++m.tick;
  m.time_s = static_cast<double>(m.tick) * m.config.dt_s;
  Stats& s = m.stats;
  s.ticks = m.tick;
  s.vehicle_updates += rows;
  s.vehicles_driven += driven;
  s.distance_km += distance / 1000.0;
  s.mean_speed_mps = rows > 0 ? speed / rows : 0.0;
  s.lane_changes = m.counters.lane_changes;
  s.lane_changes_aborted = m.counters.lane_changes_aborted;
  s.stops = m.counters.stops;
  s.junction_entries = m.counters.junction_entries;
  s.entries_on_yellow = m.counters.entries_on_yellow;
  s.red_violations = m.counters.red_violations;
  s.clearing_on_red = m.counters.clearing_on_red;
  s.emergency_stops = m.counters.emergency_stops;
  s.trips_completed = m.counters.trips_completed;
  s.reroutes = m.counters.reroutes;
  s.vehicles_moving = static_cast<std::uint32_t>(m.world.count(moving_query(m.world)));
  s.vehicles_pooled = static_cast<std::uint32_t>(m.world.count(m.world.query<Pooled>()));
}

double Simulation::time_s() const { return m_impl->time_s; }
const Network& Simulation::network() const { return m_impl->net; }
const Config& Simulation::config() const { return m_impl->config; }
const Stats& Simulation::stats() const { return m_impl->stats; }
sim::World& Simulation::world() { return m_impl->world; }

std::uint64_t Simulation::state_hash() const {
  const Impl& m = *m_impl;
  std::uint64_t h = hash_combine(m.world.state_hash(), m.tick);
  // Weather other than dry and clear (so hashes of runs without weather stay as they were).
  const WeatherEffect& w = m.weather;
  if (!(w == WeatherEffect{})) {
    for (const float f :
         {w.speed_factor, w.comfort_decel_factor, w.time_gap_factor, w.min_gap_factor}) {
      h = hash_combine(h, std::bit_cast<std::uint32_t>(f));
    }
  }
  // Where levels of detail made vehicles lag (runs without them hash as they did).
  for (const std::uint32_t t : m.moved_tick)
    h = hash_combine(h, t);
  for (std::size_t l = 0; l < m.grant.size(); ++l) {
    if (m.grant[l].entity != 0) h = hash_combine(h, (l << 32U) ^ m.grant[l].entity);
    if (m.claim[l].entity != 0) h = hash_combine(h, (l << 33U) ^ m.claim[l].entity);
  }
  return h;
}

std::vector<VehicleView> Simulation::vehicles() const {
  Impl& m = *m_impl;
  std::vector<VehicleView> out;
  for (const sim::ChunkView& c : m.world.chunks(moving_query(m.world))) {
    const auto ents = c.entities();
    const auto ls = c.read<LaneState>();
    const auto dr = c.read<Driver>();
    const auto lc = c.read<LaneChange>();
    const bool trip = c.has<Trip>();
    const auto trips = trip ? c.read<Trip>() : std::span<const Trip>{};
    for (std::size_t i = 0; i < ents.size(); ++i) {
      VehicleView v;
      if (trip) v.destination = trips[i].destination;
      v.entity = ents[i];
      v.type = static_cast<VehicleType>(dr[i].type);
      v.lane = ls[i].lane;
      v.next = ls[i].next;
      v.next2 = ls[i].next2;
      v.next3 = ls[i].next3;
      v.change_target = lc[i].target;
      v.change_progress = lc[i].progress;
      const LaneState now = extrapolated(m, ents[i].index, ls[i]);
      v.s_m = now.s_m;
      v.speed_mps = now.speed_mps;
      v.accel_mps2 = ls[i].accel_mps2;
      v.length_m = m.length_of(dr[i].type);
      v.stopped_s = dr[i].stopped_s + waited_s(m, ents[i].index, now);
      v.on_trip = trip;
      out.push_back(v);
    }
  }
  std::sort(out.begin(), out.end(), [](const VehicleView& a, const VehicleView& b) {
    return a.entity.index < b.entity.index;
  });
  return out;
}

std::span<const QueueEntry> Simulation::queue(LaneId lane) const {
  const Impl& m = *m_impl;
  if (lane >= m.lane_end.size()) return {};
  return {m.entries.data() + m.lane_begin[lane], queue_size(m, lane)};
}

LightState Simulation::light(LaneId connector) const {
  return connector < m_impl->light.size() ? m_impl->light[connector] : LightState::off;
}
WalkState Simulation::walk(LaneId crosswalk) const {
  return crosswalk < m_impl->walk.size() ? m_impl->walk[crosswalk] : WalkState::off;
}

namespace {

/// From the first levels on, every vehicle's last driven tick is kept: its state covers up to
/// the coming tick now.
void keep_moved_ticks(Simulation::Impl& m) {
  if (m.moved_tick.empty() && m.off_every > 1) {
    m.moved_tick.assign(m.world.entity_count() + 1, static_cast<std::uint32_t>(m.tick));
  }
}

}  // namespace

void Simulation::set_lod(std::span<const std::uint8_t> levels) {
  Impl& m = *m_impl;
  m.lod.assign(levels.begin(), levels.end());
  m.lod_near = false;
  keep_moved_ticks(m);
}

void Simulation::set_lod_near(std::span<const std::uint32_t> ids,
                              std::span<const std::uint8_t> levels) {
  Impl& m = *m_impl;
  constexpr std::uint8_t kOff = 3;
  const std::size_t n = m.world.entity_count() + 1;
  if (!m.lod_near) {  // Levels from set_lod before: every one off to start from.
    m.lod.assign(n, kOff);
    m.lod_listed.clear();
    m.lod_near = true;
  }
  if (m.lod.size() < n) m.lod.resize(n, kOff);
  for (const std::uint32_t e : m.lod_listed)
    m.lod[e] = kOff;
  m.lod_listed.clear();
  for (std::size_t k = 0; k < ids.size() && k < levels.size(); ++k) {
    if (ids[k] >= m.lod.size()) continue;
    m.lod[ids[k]] = levels[k];
    if (levels[k] != kOff) m.lod_listed.push_back(ids[k]);
  }
  keep_moved_ticks(m);
}

void Simulation::set_crosswalk_occupancy(LaneId crosswalk, std::uint32_t pedestrians) {
  if (crosswalk < m_impl->crosswalk_busy.size()) {
    m_impl->crosswalk_busy[crosswalk] =
        static_cast<std::uint16_t>(std::min<std::uint32_t>(pedestrians, 0xffffU));
  }
}

std::uint32_t Simulation::add_obstacle(LaneId lane, float s_m, float length_m, float speed_mps) {
  m_impl->obstacles.push_back(Obstacle{lane, s_m, length_m, 0.0f, true});
  const auto id = static_cast<std::uint32_t>(m_impl->obstacles.size() - 1);
  move_obstacle(id, lane, s_m, speed_mps);
  return id;
}
void Simulation::move_obstacle(std::uint32_t id, LaneId lane, float s_m) {
  move_obstacle(id, lane, s_m, 0.0f);
}
void Simulation::move_obstacle(std::uint32_t id, LaneId lane, float s_m, float speed_mps) {
  if (id >= m_impl->obstacles.size()) return;
  Obstacle& ob = m_impl->obstacles[id];
  ob.lane = lane;
  ob.s_m = s_m;
  // Drivers never take a leader for faster than they could know (and never backwards).
  ob.speed_mps = std::isfinite(speed_mps) ? std::max(speed_mps, 0.0f) : 0.0f;
}
void Simulation::remove_obstacle(std::uint32_t id) {
  if (id < m_impl->obstacles.size()) m_impl->obstacles[id].alive = false;
}
std::vector<ObstacleView> Simulation::obstacles() const {
  std::vector<ObstacleView> out;
  for (std::size_t i = 0; i < m_impl->obstacles.size(); ++i) {
    const Obstacle& ob = m_impl->obstacles[i];
    if (ob.alive) {
      out.push_back(
          ObstacleView{static_cast<std::uint32_t>(i), ob.lane, ob.s_m, ob.length_m, ob.speed_mps});
    }
  }
  return out;
}

void Simulation::set_vehicle_count(std::uint32_t n) {
  Impl& m = *m_impl;
  m.target_vehicles = std::min(n, m.stats.capacity);
  // Top the pool up now, outside the tick, so the respawns later cost no allocation.
  const std::size_t moving = m.world.count(moving_query(m.world));
  const std::size_t pooled = m.world.count(m.world.query<Pooled>());
  const std::size_t want = m.target_vehicles > moving ? m.target_vehicles - moving : 0;
  for (std::size_t k = pooled; k < want; ++k) {
    Rng rng(m.seed, Stage::sim, k, 7);
    Driver d;
    d.type = 0;
    d.speed_factor = m.config.params[0].speed_factor *
                     static_cast<float>(1.0 + rng.uniform(-m.config.driver_speed_jitter,
                                                          m.config.driver_speed_jitter));
    m.world.spawn(LaneState{}, d, LaneChange{}, Pooled{});
  }
  m.routes.resize(m.world.entity_count() + 1);
  if (m.ranks != nullptr) {
    m.migrant.resize(m.routes.size(), 0);
    m.touched.resize(m.routes.size(), 0);
  }
  if (!m.moved_tick.empty()) {
    m.moved_tick.resize(m.world.entity_count() + 1, static_cast<std::uint32_t>(m.tick));
  }
}

namespace {

/// Where positions() puts the vehicles beyond its radius.
constexpr double kFar = std::numeric_limits<double>::infinity();

/// Where a vehicle's sample is (its centre on its lane, between two lanes while changing),
/// `centre_s` its centre's arc length (< 0: still on the lane it came from).
Vec3 sample_point(const Network& net, const LaneState& st, const LaneChange& lc, double centre_s) {
  Vec3 p = centre_s < 0 && st.prev != kNoLane
               ? lane_point(net, st.prev, net.length_m[st.prev] + centre_s)
               : lane_point(net, st.lane, std::max(centre_s, 0.0));
  if (lc.target != kNoLane) {
    const Vec3 b =
        lane_point(net, lc.target,
                   mapped_s(net, st.lane, lc.target, static_cast<float>(std::max(centre_s, 0.0))));
    p = p + (b - p) * smoothstep(lc.progress);
  }
  return p;
}

/// The moving vehicles' samples in id order; without `full`, id, kind and position only.
/// `on_rank0` (with `full`): over ranks, each rank samples the vehicles it holds, for rank 0.
std::vector<VehicleSample> moving_samples(Simulation::Impl& m, bool full, bool on_rank0 = false) {
  const Network& net = m.net;
  const std::vector<sim::ChunkView> chunks = m.world.chunks(moving_query(m.world));
  // Each vehicle's place in id order (ids are distinct entity indices): counted, not sorted,
  // so the chunks can be sampled in parallel straight into place.
  std::uint32_t rows = 0;
  std::uint32_t max_id = 0;
  for (const sim::ChunkView& c : chunks) {
    rows += static_cast<std::uint32_t>(c.size());
    for (const sim::Entity e : c.entities())
      max_id = std::max(max_id, e.index);
  }
  std::vector<std::uint32_t> place(rows > 0 ? std::size_t{max_id} + 2 : 0, 0);
  for (const sim::ChunkView& c : chunks) {
    for (const sim::Entity e : c.entities())
      place[e.index + 1] = 1;
  }
  for (std::size_t i = 1; i < place.size(); ++i)
    place[i] += place[i - 1];
  std::vector<VehicleSample> out(rows);
  // Positions shared over ranks: each rank places the vehicles on its lanes (share.cpp).
  const bool shared = (!full || on_rank0) && m.ranks != nullptr;
  std::vector<std::uint8_t> mine(shared ? rows : 0);
  tbb::parallel_for(std::size_t{0}, chunks.size(), [&](std::size_t k) {
    const sim::ChunkView& c = chunks[k];
    const auto ents = c.entities();
    const auto ls = c.read<LaneState>();
    const auto dr = c.read<Driver>();
    const auto lc = c.read<LaneChange>();
    for (std::size_t i = 0; i < ents.size(); ++i) {
      if (!full) {
        VehicleSample& s = out[place[ents[i].index]];
        s.id = ents[i].index;
        s.kind = static_cast<EntityKind>(dr[i].type);
        if (shared && !holds(m, ents[i].index, ls[i].lane)) {
          s.position = Vec3{kFar, kFar, kFar};  // Until a rank's position comes.
          continue;
        }
      } else if (shared) {
        if (!holds(m, ents[i].index, ls[i].lane)) continue;  // Its rank sends it to rank 0.
      }
      if (shared) mine[place[ents[i].index]] = 1;
      const LaneState st = extrapolated(m, ents[i].index, ls[i]);
      const float len = m.length_of(dr[i].type);
      const double centre = st.s_m - 0.5 * len;
      if (!full) {
        out[place[ents[i].index]].position = sample_point(net, st, lc[i], centre);
        continue;
      }
      LanePose pose = centre < 0 && st.prev != kNoLane
                          ? lane_pose(net, st.prev, net.length_m[st.prev] + centre)
                          : lane_pose(net, st.lane, std::max(centre, 0.0));
      std::uint8_t flags = 0;
      if (lc[i].target != kNoLane) {
        const LanePose b = lane_pose(
            net, lc[i].target,
            mapped_s(net, st.lane, lc[i].target, static_cast<float>(std::max(centre, 0.0))));
        const double t = smoothstep(lc[i].progress);
        pose.position = pose.position + (b.position - pose.position) * t;
        double dh = b.heading_rad - pose.heading_rad;
        dh = std::remainder(dh, 2.0 * std::numbers::pi);
        pose.heading_rad += dh * t;
        flags |= kSampleLaneChange;
        flags |= lc[i].target == net.left[st.lane] ? kSampleIndicateLeft : kSampleIndicateRight;
      } else if (st.next != kNoLane && net.length_m[st.lane] - st.s_m < 30.0f) {
        if (net.turn[st.next] == roads::Turn::left) flags |= kSampleIndicateLeft;
        if (net.turn[st.next] == roads::Turn::right) flags |= kSampleIndicateRight;
      }
      if (st.accel_mps2 < -1.0f) flags |= kSampleBraking;
      if (st.speed_mps < 0.1f && dr[i].stopped_s > 0) flags |= kSampleWaiting;
      VehicleSample& s = out[place[ents[i].index]];
      s.id = ents[i].index;
      s.kind = static_cast<EntityKind>(dr[i].type);
      s.flags = flags;
      s.position = pose.position;
      s.heading_rad = pose.heading_rad;
      s.speed_mps = st.speed_mps;
    }
  });
  if (shared && full) {
    gather_samples(m, mine, out);
  } else if (shared) {
    exchange_positions(m, mine, out);
  }
  return out;
}

/// The moving vehicles within radius_m of `centre`, id order, with id, kind and position (as
/// moving_samples places them). Only the lanes near it are looked at (an index of the lanes'
/// boxes), and over ranks only the rows this rank holds (held_rows), so the work is that of
/// this rank's vehicles, not of the region's.
std::vector<VehicleSample> near_samples(Simulation::Impl& m, const Vec3& centre, double radius_m) {
  const Network& net = m.net;
  const std::uint32_t lanes = net.lane_count();
  if (m.lane_index == nullptr) {
    m.lane_box_lo.assign(lanes, Vec3{});
    m.lane_box_hi.assign(lanes, Vec3{});
    m.lane_index = std::make_unique<BoxIndex>(64.0);
    for (LaneId l = 0; l < lanes; ++l) {
      const std::uint32_t b = net.point_begin[l];
      const std::uint32_t e = net.point_begin[l + 1];
      Vec3 lo{kFar, kFar, kFar};
      Vec3 hi{-kFar, -kFar, -kFar};
      for (std::uint32_t q = b; q < e; ++q) {
        const Vec3 p = net.points[q];
        lo = Vec3{std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
        hi = Vec3{std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
      }
      if (e == b) lo = hi = Vec3{};  // lane_point gives the origin for a lane without points
      m.lane_box_lo[l] = lo;
      m.lane_box_hi[l] = hi;
      m.lane_index->insert(l, Aabb2{{lo.x, lo.y}, {hi.x, hi.y}});
    }
    m.near_lane.assign(lanes, 0);
  }
  // A lane whose points' box is farther than the radius (and a margin for rounding) holds no
  // near vehicle (a point between two of a lane's points, or between two lanes' such points,
  // lies in their boxes).
  std::vector<std::uint32_t> candidates;
  m.lane_index->query_radius(Vec2{centre.x, centre.y}, radius_m + 1.0, candidates);
  for (const std::uint32_t l : candidates) {
    const Vec3 lo = m.lane_box_lo[l];
    const Vec3 hi = m.lane_box_hi[l];
    const Vec3 d{std::max({lo.x - centre.x, 0.0, centre.x - hi.x}),
                 std::max({lo.y - centre.y, 0.0, centre.y - hi.y}),
                 std::max({lo.z - centre.z, 0.0, centre.z - hi.z})};
    m.near_lane[l] = length(d) > radius_m + 1.0 ? 0 : 1;
  }
  const std::vector<sim::ChunkView> chunks = m.world.chunks(moving_query(m.world));
  const bool shared = m.ranks != nullptr;
  // Over ranks, the rows this rank holds, by chunk.
  std::vector<std::vector<std::uint32_t>> chunk_rows;
  if (shared) {
    std::vector<std::uint32_t> base(chunks.size() + 1, 0);
    for (std::size_t c = 0; c < chunks.size(); ++c)
      base[c + 1] = base[c] + static_cast<std::uint32_t>(chunks[c].size());
    rows_by_chunk(held_rows(m), base, chunk_rows);
  }
  std::vector<std::vector<VehicleSample>> found(chunks.size());
  tbb::parallel_for(std::size_t{0}, chunks.size(), [&](std::size_t k) {
    const sim::ChunkView& c = chunks[k];
    const auto ents = c.entities();
    const auto ls = c.read<LaneState>();
    const auto dr = c.read<Driver>();
    const auto lc = c.read<LaneChange>();
    const std::size_t n = shared ? chunk_rows[k].size() : ents.size();
    for (std::size_t q = 0; q < n; ++q) {
      const std::size_t i = shared ? chunk_rows[k][q] : q;
      const LaneState st = extrapolated(m, ents[i].index, ls[i]);
      const double centre_s = st.s_m - 0.5 * m.length_of(dr[i].type);
      const LaneId on = centre_s < 0 && st.prev != kNoLane ? st.prev : st.lane;
      if (m.near_lane[on] == 0U && (lc[i].target == kNoLane || m.near_lane[lc[i].target] == 0U))
        continue;
      const Vec3 p = sample_point(net, st, lc[i], centre_s);
      if (length(p - centre) > radius_m) continue;
      VehicleSample s;
      s.id = ents[i].index;
      s.kind = static_cast<EntityKind>(dr[i].type);
      s.position = p;
      found[k].push_back(s);
    }
  });
  for (const std::uint32_t l : candidates)
    m.near_lane[l] = 0;
  std::vector<VehicleSample> out;
  for (const auto& f : found)
    out.insert(out.end(), f.begin(), f.end());
  std::sort(out.begin(), out.end(),
            [](const VehicleSample& a, const VehicleSample& b) { return a.id < b.id; });
  if (shared) gather_near(m, out);
  return out;
}

}  // namespace

std::vector<VehicleSample> Simulation::samples(bool parked) const {
  std::vector<VehicleSample> out = moving_samples(*m_impl, true);
  if (parked) append_parked(*m_impl, out);
  return out;
}

std::vector<VehicleSample> Simulation::samples_on_rank0() const {
  return moving_samples(*m_impl, true, true);
}

std::vector<VehicleSample> Simulation::positions() const { return moving_samples(*m_impl, false); }

std::vector<VehicleSample> Simulation::positions(const Vec3& centre, double radius_m) const {
  return near_samples(*m_impl, centre, radius_m);
}

RecordingInfo Simulation::recording_info(std::uint64_t seed) const {
  const Impl& m = *m_impl;
  RecordingInfo info;
  info.tick_s = m.config.dt_s;
  const double every =
      std::max(1.0, std::round(static_cast<double>(m.config.record_interval_s / m.config.dt_s)));
  info.frame_interval_s = every * m.config.dt_s;
  Vec3 lo{1e300, 1e300, 1e300};
  Vec3 hi{-1e300, -1e300, -1e300};
  for (const Vec3& p : m.net.points) {
    lo = Vec3{std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
    hi = Vec3{std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
  }
  if (m.net.points.empty()) lo = hi = Vec3{};
  const Vec3 margin{50, 50, 10};
  info.origin = lo - margin;
  info.extent = (hi + margin) - info.origin;
  info.seed = seed;
  info.signal_lanes = m.signal_lanes;
  info.crosswalk_lanes = m.crosswalk_lanes;
  append_parked(const_cast<Impl&>(m), info.parked);
  return info;
}

void Simulation::lights(std::span<const LaneId> lanes, std::vector<LightState>& out) const {
  out.resize(lanes.size());
  for (std::size_t i = 0; i < lanes.size(); ++i)
    out[i] = light(lanes[i]);
}
void Simulation::walks(std::span<const LaneId> lanes, std::vector<WalkState>& out) const {
  out.resize(lanes.size());
  for (std::size_t i = 0; i < lanes.size(); ++i)
    out[i] = walk(lanes[i]);
}

}  // namespace cityforge::traffic
