// SPDX-License-Identifier: Apache-2.0
// The crowd: spawning by density, the tick (events, reactions, LOD and pool updates, the
// full-fidelity agents, the low ones' positions into the spatial hash, crosswalk occupancy
// for traffic), views, samples and the state hash (docs/crowd.md).
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numeric>

#include "cityforge/core/assert.hpp"
#include "cityforge/traffic/traffic.hpp"
#include "crowd/detail/state.hpp"

namespace cityforge::crowd {

const char* to_string(Behaviour b) {
  switch (b) {
    case Behaviour::walk:
      return "walk";
    case Behaviour::idle:
      return "idle";
    case Behaviour::wait_crossing:
      return "wait_crossing";
    case Behaviour::look_around:
      return "look_around";
    case Behaviour::flee:
      return "flee";
    case Behaviour::resume:
      return "resume";
    case Behaviour::down:
      return "down";
  }
  return "?";
}

namespace {

std::uint32_t pool_size(const Config& c, std::uint32_t total) {
  if (!c.lod.enabled) return std::max(1U, total);
  if (c.pool_slots > 0) return c.pool_slots;
  return std::max(1U, c.lod.budget_high + c.lod.budget_medium);
}

std::uint32_t buckets_for(std::uint32_t n) { return std::max(1024U, n); }

Error bad(const std::string& what) { return Error::invalid_input("crowd config", what); }

std::optional<Error> validate(const Config& c) {
  if (!(c.dt_s > 0 && c.dt_s <= 1)) return bad("dt_s must be in (0, 1]");
  if (!(c.speed_mps > 0.1f && c.speed_mps < 5)) return bad("speed_mps must be in (0.1, 5)");
  if (!(c.speed_jitter >= 0 && c.speed_jitter <= 0.5f)) return bad("speed_jitter must be 0..0.5");
  if (!(c.radius_m > 0 && c.radius_m < 1)) return bad("radius_m must be in (0, 1)");
  if (!(c.jaywalk_probability >= 0 && c.jaywalk_probability <= 1))
    return bad("jaywalk_probability must be 0..1");
  if (!(c.idle_probability >= 0 && c.look_around_probability >= 0 &&
        c.idle_probability + c.look_around_probability <= 1))
    return bad("idle_probability + look_around_probability must be 0..1");
  if (!(c.pause_min_s >= 0 && c.pause_max_s >= c.pause_min_s))
    return bad("pause_min_s <= pause_max_s, both >= 0");
  if (!(c.avoid_radius_m > 2 * c.radius_m)) return bad("avoid_radius_m must exceed 2 x radius_m");
  if (!(c.relax_s > 0)) return bad("relax_s must be > 0");
  if (c.medium_interval == 0) return bad("medium_interval must be >= 1");
  if (!(c.lod_interval_s > 0)) return bad("lod_interval_s must be > 0");
  if (c.variants == 0 || c.variants > 256) return bad("variants must be 1..256");
  if (c.pool_changes_per_tick == 0) return bad("pool_changes_per_tick must be >= 1");
  if (!(c.flee_speed_mps > 0)) return bad("flee_speed_mps must be > 0");
  if (!(c.env_transition_s >= 0)) return bad("env_transition_s must be >= 0");
  if (!(c.hazard_min_speed_mps >= 0 && c.hazard_look_ahead_s >= 0 && c.hazard_reach_min_m >= 0 &&
        c.hazard_reach_max_m >= c.hazard_reach_min_m && c.hazard_margin_m >= 0 &&
        c.hazard_flee_s > 0 && c.hazard_step_m >= 0))
    return bad("hazard settings must be >= 0 (flee > 0, reach_max >= reach_min)");
  return std::nullopt;
}

}  // namespace

Crowd::Impl::Impl(const traffic::Network& n, const Config& c, Seed s, std::uint32_t total,
                  const std::vector<Footprint>& buildings)
    : net(n),
      frames(n),
      config(c),
      seed(s),
      walk(build_walk_network(n, buildings)),
      lod(c.lod),
      pool(pool_size(c, total), c.variants, c.pool_changes_per_tick),
      hash(c.avoid_radius_m, std::max(1U, total) + 16, buckets_for(total)) {}

Crowd::Crowd(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
Crowd::~Crowd() = default;

Result<std::unique_ptr<Crowd>> Crowd::create(const traffic::Network& net, const Config& config,
                                             Seed seed, Inputs inputs) {
  if (auto e = validate(config)) return *e;
  const auto groups = static_cast<std::uint32_t>(std::accumulate(
      inputs.shepherds.groups.begin(), inputs.shepherds.groups.end(), std::size_t{0},
      [](std::size_t n, const ShepherdGroup& g) { return n + g.members.size(); }));
  const auto walkers = static_cast<std::uint32_t>(inputs.shepherds.walkers.size());
  const std::uint32_t total = config.pedestrians + groups + walkers;
  auto impl = std::make_unique<Impl>(net, config, seed, total, inputs.buildings);
  Impl& m = *impl;
  // Spawn lanes: sidewalks, weighted by length x (0.15 + pedestrian density).
  std::vector<LaneId> lanes;
  std::vector<double> cumulative;
  double weight_total = 0;
  for (const LaneId l : m.walk.lanes) {
    if (m.walk.crosswalk(l) || net.length_m[l] < 1.0f) continue;
    weight_total += net.length_m[l] * (0.15 + net.pedestrian_density[l]);
    lanes.push_back(l);
    cumulative.push_back(weight_total);
  }
  m.goal_lanes = lanes;
  m.goal_cumulative = cumulative;
  if (lanes.empty()) {
    return Error::invalid_input("lanes", "no sidewalk lanes to walk on (tags \"sidewalk\")");
  }
  m.agents.resize(total);
  m.occupancy.assign(net.lane_count(), 0);
  for (const LaneId l : m.walk.lanes) {
    if (m.walk.crosswalk(l)) m.crosswalks.push_back(l);
  }
  m.occupancy_sent.assign(net.lane_count(), 0);
  m.walk_s = 7.0f;
  if (config.navigation == Navigation::goals) {
    m.routes.resize(total);
    m.goals.resize(total);
    m.goals_drawn.assign(total, 0);
  }
  const double region_m = 300.0;
  for (std::uint32_t id = 0; id < config.pedestrians; ++id) {
    Agent& a = m.agents[id];
    Rng r(seed, Stage::crowd, id, 0);
    const auto k = static_cast<std::size_t>(
        std::upper_bound(cumulative.begin(), cumulative.end(), r.uniform01() * weight_total) -
        cumulative.begin());
    a.lane = lanes[std::min(k, lanes.size() - 1)];
    a.s0 = static_cast<float>(r.uniform(0.0, net.length_m[a.lane]));
    a.dir = r.chance(0.5) ? 1 : -1;
    a.speed = config.speed_mps * static_cast<float>(1.0 + config.speed_jitter * r.uniform(-1, 1));
    const float hw = 0.5f * (m.walk.band_hi[a.lane] - m.walk.band_lo[a.lane]);
    a.lateral = clamp_lateral(m, a.lane, a.dir, static_cast<float>(r.uniform(-0.8, 0.4)) * hw);
    // Appearance: each 300 m region favours one variant (half of its people), so the mix
    // around the viewer changes as it moves (the pool follows it).
    const Frame f = frame_at(net, a.lane, a.s0, 0);
    const std::uint64_t region = hash_combine(
        static_cast<std::uint64_t>(static_cast<std::int64_t>(std::floor(f.p.x / region_m))),
        static_cast<std::uint64_t>(static_cast<std::int64_t>(std::floor(f.p.y / region_m))));
    const auto favourite = static_cast<std::uint16_t>(mix64(region ^ seed) % config.variants);
    a.variant = r.chance(0.5) ? favourite : static_cast<std::uint16_t>(r.below(config.variants));
    a.lod = config.lod.enabled ? Lod::off : Lod::high;
  }
  // Shepherds: group members stand where the file puts them; walkers follow their paths.
  std::uint32_t next_id = config.pedestrians;
  for (const ShepherdGroup& g : inputs.shepherds.groups) {
    for (const ShepherdMember& mb : g.members) {
      Agent& a = m.agents[next_id];
      Rng r(seed, Stage::crowd, next_id, 0);
      a.lane = mb.at.lane;
      a.s0 = mb.at.s_m;
      a.dir = mb.at.dir;
      a.lateral = mb.lateral_m;
      a.speed = config.speed_mps * static_cast<float>(1.0 + config.speed_jitter * r.uniform(-1, 1));
      a.behaviour =
          g.spec.behaviour == ShepherdBehaviour::idle ? Behaviour::idle : Behaviour::look_around;
      a.until = std::numeric_limits<float>::infinity();
      a.paused = 1;
      a.variant = static_cast<std::uint16_t>(mb.variant % config.variants);
      a.flags = kPedShepherd;
      a.lod = config.lod.enabled ? Lod::off : Lod::high;
      ++next_id;
    }
  }
  m.shepherds = std::move(inputs.shepherds);
  for (std::uint32_t w = 0; w < walkers; ++w, ++next_id) {
    Agent& a = m.agents[next_id];
    a.step = w;
    a.flags = kPedWandering;
    a.speed = m.shepherds.walkers[w].speed_mps;
    a.variant = static_cast<std::uint16_t>(m.shepherds.walkers[w].variant % config.variants);
    a.lod = config.lod.enabled ? Lod::off : Lod::high;
    wander_sync(m, a, 0.0);
  }
  init_outdoor_order(m);
  m.stats.shepherd_members = groups;
  m.stats.wandering_members = walkers;
  if (config.navigation == Navigation::goals) {
    tbb::parallel_for(tbb::blocked_range<std::uint32_t>(0, config.pedestrians, 32),
                      [&](const tbb::blocked_range<std::uint32_t>& range) {
                        for (std::uint32_t i = range.begin(); i != range.end(); ++i)
                          plan_goal(m, i);
                      });
  }
  // Static obstacles: one map, filled once; queries read it after the swap.
  m.obstacles = std::make_unique<sim::SpatialHash>(
      2.0f, static_cast<std::uint32_t>(inputs.obstacles.size()) + 1,
      buckets_for(static_cast<std::uint32_t>(inputs.obstacles.size())));
  // In 32 m tiles, row by row: items that are near each other in space are near in memory.
  std::vector<Obstacle> obs = inputs.obstacles;
  const auto tile = [](const Obstacle& o) {
    return std::make_pair(std::floor(o.position.y / 32.0), std::floor(o.position.x / 32.0));
  };
  std::stable_sort(obs.begin(), obs.end(),
                   [&](const Obstacle& a, const Obstacle& b) { return tile(a) < tile(b); });
  for (std::uint32_t i = 0; i < obs.size(); ++i) {
    m.obstacles->insert(i, obs[i].position);
    m.obstacle_radius.push_back(obs[i].radius_m);
    m.obstacle_pos.push_back(obs[i].position);
  }
  m.obstacles->swap();
  if (config.lod.enabled) {
    for (std::uint32_t id = 0; id < total; ++id)
      schedule(m, id);
  } else {
    std::vector<PoolCandidate> all(total);
    std::vector<double> target(config.variants, 0.0);
    for (std::uint32_t id = 0; id < total; ++id) {
      all[id] = {id, m.agents[id].variant, 0.0f};
      target[m.agents[id].variant] += 1;
    }
    m.pool.update(all, target);
    m.slots.resize(m.pool.slots());
    m.frame_cache.resize(m.slots.size());
    for (std::uint32_t id = 0; id < total; ++id) {
      const Agent& a = m.agents[id];
      const std::uint32_t slot = m.pool.slot_of(id);
      const Frame f = frame_at(net, a.lane, a.s0, 0);
      m.slots[slot] = {static_cast<float>(f.t.x * a.dir * a.speed),
                       static_cast<float>(f.t.y * a.dir * a.speed), 0, 0};
      m.active.emplace_back(id, slot);
    }
    m.stats.per_lod[static_cast<std::size_t>(Lod::high)] = total;
    m.stats.per_lod_max = m.stats.per_lod;
  }
  m.slots.resize(m.pool.slots());
  m.frame_cache.resize(m.slots.size());
  m.stats.pedestrians = total;
  m.stats.obstacles = static_cast<std::uint32_t>(inputs.obstacles.size());
  m.stats.bytes = m.agents.size() * sizeof(Agent) + m.wheel.size() * sizeof(Scheduled) +
                  m.slots.size() * sizeof(SlotState);
  m.stats.memory_per_off_agent_bytes = static_cast<double>(sizeof(Agent) + sizeof(Scheduled));
  return std::unique_ptr<Crowd>(new Crowd(std::move(impl)));
}

namespace {

double view_distance(const Viewer& v, Vec2 p) {
  return distance(Vec2{v.position.x, v.position.y}, p);
}

void update_lod(Crowd::Impl& m) {
  const std::size_t n = m.agents.size();
  std::vector<Vec3> pos(n);
  std::vector<Lod> levels(n);
  const double now = m.time_s;
  tbb::parallel_for(
      tbb::blocked_range<std::size_t>(0, n, 256), [&](const tbb::blocked_range<std::size_t>& r) {
        for (std::size_t id = r.begin(); id != r.end(); ++id) {
          Agent& a = m.agents[id];
          levels[id] = a.lod;
          if (indoors(a)) {  // Far away: no level, no budget.
            pos[id] = Vec3{1e9, 1e9, 0};
            continue;
          }
          if (wandering(a)) wander_sync(m, a, now);
          const bool active = a.lod == Lod::high || a.lod == Lod::medium;
          const Frame f = active
                              ? frame_at(m.frames, a.lane, a.s0, a.dir > 0 ? a.lateral : -a.lateral)
                              : position_at(m, a, now);
          pos[id] = Vec3{f.p.x, f.p.y, f.z};
          levels[id] = a.lod;
        }
      });
  m.lod.assign(pos, m.viewer, levels);
  // Apply the changes.
  for (std::uint32_t id = 0; id < n; ++id) {
    Agent& a = m.agents[id];
    if (indoors(a)) levels[id] = Lod::off;
    const Lod from = a.lod;
    const Lod to = levels[id];
    if (from == to) continue;
    m.stats.lod_changes += 1;
    const bool was_active = from == Lod::high || from == Lod::medium;
    const bool now_active = to == Lod::high || to == Lod::medium;
    a.lod = to;
    if (was_active && !now_active) {
      schedule(m, id);  // Record is current (s0 at t0 = now).
    } else if (!was_active && now_active) {
      a.s0 = s_at(m, a, now);
      a.t0 = now;
      a.stamp += 1;  // Its scheduled event is stale: the full-fidelity tick takes over.
    }
  }
  // The pool: slots to the high and medium agents, nearest first; its mix follows the variants
  // of the agents around the viewer.
  std::vector<PoolCandidate> candidates;
  std::vector<double> target(m.config.variants, 0.0);
  const double r = m.config.pool_stats_radius_m;
  for (std::uint32_t id = 0; id < n; ++id) {
    const Vec2 p{pos[id].x, pos[id].y};
    const double d = view_distance(m.viewer, p);
    if (d <= r) target[m.agents[id].variant] += 1;
    if (m.agents[id].lod == Lod::high || m.agents[id].lod == Lod::medium)
      candidates.push_back({id, m.agents[id].variant, static_cast<float>(d)});
  }
  const std::uint64_t mismatches = m.pool.mismatches();
  m.pool.update(candidates, target);
  m.stats.pool_mismatches += m.pool.mismatches() - mismatches;
  m.local_mix = target;
  // Agents that held a slot before: a new slot (or a first one) starts from lane following.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> before;
  before.swap(m.active);
  for (const PoolCandidate& c : candidates) {
    Agent& a = m.agents[c.id];
    const std::uint32_t slot = m.pool.slot_of(c.id);
    if (slot == AgentPool::kFree) {  // No slot left: lane following only.
      a.lod = Lod::low;
      schedule(m, c.id);
      continue;
    }
    const auto it =
        std::lower_bound(before.begin(), before.end(), std::make_pair(c.id, std::uint32_t{0}));
    if (it == before.end() || it->first != c.id || it->second != slot) {
      const Frame f = frame_at(m.frames, a.lane, a.s0, 0);
      const float v = move_speed(m, a);
      m.slots[slot] = {static_cast<float>(f.t.x * a.dir * v), static_cast<float>(f.t.y * a.dir * v),
                       0, 0};
    }
    m.active.emplace_back(c.id, slot);
  }
  std::sort(m.active.begin(), m.active.end());
  m.sweep.clear();  // Re-sorted by the next tick.
  m.sweep_stale = true;
  m.low.clear();
  for (std::uint32_t id = 0; id < n; ++id) {
    const Agent& a = m.agents[id];
    if (a.lod == Lod::low && !indoors(a)) m.low.push_back(id);
  }
  count_levels(m);
}

void insert_low(Crowd::Impl& m) {
  const double now = m.time_s;
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, m.low.size(), 256),
                    [&](const tbb::blocked_range<std::size_t>& r) {
                      thread_local InsertBatch batch;
                      for (std::size_t k = r.begin(); k != r.end(); ++k) {
                        const std::uint32_t id = m.low[k];
                        Agent& a = m.agents[id];
                        if (wandering(a)) wander_sync(m, a, now);
                        const Frame f = position_at(m, a, now);
                        const float speed =
                            wandering(a) ? m.shepherds.walkers[a.step].speed_mps : move_speed(m, a);
                        batch.add(id, f.p, f.t * static_cast<double>(a.dir * speed));
                      }
                      batch.flush(m.hash);
                    });
  m.stats.updates += m.low.size();
}

}  // namespace

void Crowd::set_viewer(const Viewer& viewer) {
  m_impl->viewer = viewer;
  m_impl->has_viewer = true;
}

void Crowd::add_event(const Event& event) {
  Impl& m = *m_impl;
  m.events.push_back(event);
  // Keep the not-yet-started ones sorted by time (stable: equal times keep their order).
  std::stable_sort(m.events.begin() + static_cast<std::ptrdiff_t>(m.next_event), m.events.end(),
                   [](const Event& a, const Event& b) { return a.time_s < b.time_s; });
}

void Crowd::tick(traffic::Simulation* traffic) {
  Impl& m = *m_impl;
  // Over ranks: a tick that runs steps on every agent's record (or the whole map) starts from
  // the crowd made whole; then last tick's map is swapped in (a whole exchange adds to it).
  if (!m.whole && whole_needed(m)) sync_whole(m);
  if (m.swap_pending) {
    // A copy of the neighbour map per thread that ticks the agents (spatial_hash.hpp).
    m.hash.set_read_copies(ticking_threads());
    m.hash.swap();
    m.swap_pending = false;
  }
  m.tick += 1;
  m.time_s = static_cast<double>(m.tick) * m.config.dt_s;
  if (traffic != nullptr) {
    m.walk_s = traffic->config().walk_s;
    m.signal_lag = m.time_s - (traffic->time_s() - traffic->config().dt_s);
  }
  run_events(m);
  start_events(m);
  update_outdoors(m);
  react_to_hazards(m);
  if (m.config.lod.enabled && m.time_s + 1e-9 >= m.next_lod_s) {
    update_lod(m);
    m.next_lod_s = m.time_s + m.config.lod_interval_s;
  }
  tick_active(m);
  insert_low(m);
  m.swap_pending = true;
  if (traffic != nullptr) {
    for (const LaneId l : m.crosswalks) {
      if (m.occupancy[l] != m.occupancy_sent[l]) {
        traffic->set_crosswalk_occupancy(l, m.occupancy[l]);
        m.occupancy_sent[l] = m.occupancy[l];
      }
    }
  }
  m.stats.ticks = m.tick;
  m.stats.neighbour_queries = m.queries.load(std::memory_order_relaxed);
  m.stats.goals_reached = m.goals_reached.load(std::memory_order_relaxed);
}

void Crowd::gather() {
  if (!m_impl->whole) sync_whole(*m_impl);
}

bool Crowd::whole() const { return m_impl->whole; }

void Crowd::keep_whole(bool on) { m_impl->keep_whole = on; }

double Crowd::time_s() const { return m_impl->time_s; }
const WalkNetwork& Crowd::walk_network() const { return m_impl->walk; }
const Config& Crowd::config() const { return m_impl->config; }
const Stats& Crowd::stats() const {
  Impl& m = *m_impl;  // Behaviour counts are taken when asked for, not every tick.
  m.stats.per_behaviour = {};
  for (const Agent& a : m.agents)
    m.stats.per_behaviour[static_cast<std::size_t>(a.behaviour)] += 1;
  return m.stats;
}
std::uint32_t Crowd::size() const { return static_cast<std::uint32_t>(m_impl->agents.size()); }
const AgentPool& Crowd::pool() const { return m_impl->pool; }

std::vector<double> Crowd::local_mix() const {
  std::vector<double> mix = m_impl->local_mix;
  double total = 0;
  for (double x : mix)
    total += x;
  for (double& x : mix)
    x = total > 0 ? x / total : 0;
  return mix;
}

std::uint64_t Crowd::state_hash() const {
  const Impl& m = *m_impl;
  CF_ASSERT(m.whole, "over ranks, gather() before reading the agents");
  std::uint64_t h = hash_combine(m.tick, m.agents.size());
  for (std::uint32_t id = 0; id < m.agents.size(); ++id) {
    const Agent& a = m.agents[id];
    h = hash_bytes(&a, sizeof(Agent), h);
  }
  for (const auto& [id, slot] : m.active) {
    h = hash_combine(h, id);
    h = hash_bytes(&m.slots[slot], sizeof(SlotState), h);
  }
  if (m.config.navigation == Navigation::goals) {  // Goals and the routes to them, by field.
    const auto dir_bits = [](std::int8_t d) { return static_cast<std::uint64_t>(d + 1); };
    for (std::uint32_t id = 0; id < m.agents.size(); ++id) {
      const WalkPoint& g = m.goals[id];
      h = hash_combine(h, g.lane);
      h = hash_combine(h, std::bit_cast<std::uint32_t>(g.s_m));
      h = hash_combine(h, dir_bits(g.dir));
      h = hash_combine(h, m.goals_drawn[id]);
      h = hash_combine(h, m.routes[id].size());
      for (const WalkStep& step : m.routes[id])
        h = hash_combine(hash_combine(h, step.lane), dir_bits(step.dir));
    }
  }
  return h;
}

PedestrianView Crowd::view(std::uint32_t id) const {
  const Impl& m = *m_impl;
  CF_ASSERT(m.whole, "over ranks, gather() before reading the agents");
  Agent a = m.agents[id];
  if (wandering(a)) wander_sync(m, a, m.time_s);  // The copy: a function of time.
  const bool active = a.lod == Lod::high || a.lod == Lod::medium;
  PedestrianView v;
  v.id = id;
  v.lane = a.lane;
  v.s_m = active || indoors(a) ? a.s0 : s_at(m, a, m.time_s);
  v.lateral_m = a.lateral;
  v.dir = a.dir;
  const Frame f = frame_at(m.frames, a.lane, v.s_m, a.dir > 0 ? a.lateral : -a.lateral);
  v.position = Vec3{f.p.x, f.p.y, f.z};
  Vec2 vel = f.t * static_cast<double>(a.dir * (indoors(a) ? 0.0f : move_speed(m, a)));
  if (active) {
    const auto it = std::lower_bound(m.active.begin(), m.active.end(), std::make_pair(id, 0U));
    if (it != m.active.end() && it->first == id) {
      const SlotState& st = m.slots[it->second];
      vel = Vec2{st.vx, st.vy};
    }
  }
  v.speed_mps = static_cast<float>(std::sqrt(dot(vel, vel)));
  const Vec2 facing = v.speed_mps > 0.05f ? vel : f.t * static_cast<double>(a.dir);
  v.heading_rad = std::atan2(facing.y, facing.x);
  v.behaviour = a.behaviour;
  v.lod = a.lod;
  v.variant = a.variant;
  v.flags = a.flags;
  return v;
}

std::vector<PedestrianView> Crowd::views() const {
  std::vector<PedestrianView> out(m_impl->agents.size());
  for (std::uint32_t id = 0; id < out.size(); ++id)
    out[id] = view(id);
  return out;
}

std::vector<traffic::VehicleSample> Crowd::samples() const {
  const Impl& m = *m_impl;
  CF_ASSERT(m.whole, "over ranks, gather() before reading the agents");
  const auto n = static_cast<std::uint32_t>(m.agents.size());
  // Each agent's sample depends on it alone (view() only reads): made in parallel, then the
  // shown ones moved up in id order.
  std::vector<traffic::VehicleSample> out(n);
  std::vector<std::uint8_t> shown(n, 0);
  tbb::parallel_for(tbb::blocked_range<std::uint32_t>(0, n, 512),
                    [&](const tbb::blocked_range<std::uint32_t>& r) {
                      for (std::uint32_t id = r.begin(); id != r.end(); ++id) {
                        if (indoors(m.agents[id]) && !down(m.agents[id])) continue;
                        const PedestrianView v = view(id);
                        traffic::VehicleSample& s = out[id];
                        s.id = id;
                        s.kind = traffic::EntityKind::pedestrian;
                        if (v.speed_mps < 0.05f) s.flags = traffic::kSampleWaiting;
                        s.position = v.position;
                        s.heading_rad = v.heading_rad;
                        s.speed_mps = v.speed_mps;
                        s.lod = static_cast<std::uint8_t>(v.lod);
                        s.state = static_cast<std::uint8_t>(v.behaviour);
                        s.variant = v.variant;
                        shown[id] = 1;
                      }
                    });
  std::size_t kept = 0;
  for (std::uint32_t id = 0; id < n; ++id) {
    if (shown[id] != 0U) out[kept++] = out[id];
  }
  out.resize(kept);
  return out;
}

}  // namespace cityforge::crowd
