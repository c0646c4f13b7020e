// SPDX-License-Identifier: Apache-2.0
// Full-fidelity ticks (high and medium LOD): the behaviour tree evaluated top-down, then
// force-based avoidance (separation, closest-approach anticipation, static obstacles, the
// flee push) integrated in the lane's frame, so the lateral clamp to the walkable band keeps
// everyone on the sidewalk or crosswalk. Neighbours come from last tick's spatial hash; each
// agent inserts its new position into this tick's map (lock-free) and writes only its own
// record and pool slot, so the result does not depend on the thread count.
#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "crowd/detail/state.hpp"

namespace cityforge::crowd {

namespace {

bool same_bits(float a, float b) {
  return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

float preferred_lateral(const Crowd::Impl& m, std::uint32_t id, LaneId lane, int dir) {
  const float hw = std::max(0.0f, 0.5f * (m.walk.band_hi[lane] - m.walk.band_lo[lane]));
  // Keep right a little: the preference lies in [-0.8, 0.4] of the strip's half width, then
  // inside the strip.
  const double u = static_cast<double>(mix64(m.seed ^ (std::uint64_t{id} * 0x9e37U)) >> 40U) /
                   static_cast<double>(1ULL << 24U);
  return clamp_lateral(m, lane, dir, static_cast<float>((-0.8 + 1.2 * u) * hw));
}

Vec2 avoidance(const Crowd::Impl& m, std::uint32_t id, const Agent& a, SlotState& st, Vec2 p,
               Vec2 v, std::vector<sim::SpatialHash::Hit>& hits) {
  const Config& c = m.config;
  Vec2 acc{0, 0};
  m.hash.query(p, c.avoid_radius_m, hits);
  const double contact = 2.0 * c.radius_m;
  for (const sim::SpatialHash::Hit& h : hits) {
    if (h.id == id) continue;
    Vec2 d{p.x - h.x, p.y - h.y};
    double dist = std::sqrt(dot(d, d));
    if (dist < 1e-4) {  // Same spot: split by id.
      d = (h.id < id) ? Vec2{1, 0} : Vec2{-1, 0};
      dist = 1e-4;
    }
    const Vec2 n = d / dist;
    // Separation: grows as the gap closes, hard inside contact.
    const double gap = std::max(0.0, (c.avoid_radius_m - dist) / (c.avoid_radius_m - contact));
    acc += n * (c.avoid_strength * gap * gap);
    if (dist < contact) acc += n * (c.avoid_strength * 4.0 * (contact - dist) / contact);
    // Anticipation: push away from the closest approach within anticipation_s.
    const Vec2 vr{v.x - h.vx, v.y - h.vy};
    const double vr2 = dot(vr, vr);
    if (vr2 > 1e-6) {
      const double tca = -dot(d, vr) / vr2;
      if (tca > 0 && tca < c.anticipation_s) {
        const Vec2 closest = d + vr * tca;
        const double dc = std::sqrt(dot(closest, closest));
        const double room = contact + 0.3;
        if (dc < room) {
          const Vec2 dir = dc > 1e-4 ? closest / dc : Vec2{-vr.y, vr.x} / std::sqrt(vr2);
          acc += dir * (c.avoid_strength * (1.0 - tca / c.anticipation_s) * (room - dc) / room);
        }
      }
    }
  }
  // Static obstacles: the nearest few within 2.5 m, looked up every kObstacleRefresh ticks.
  if ((m.tick + id) % kObstacleRefresh == 0 || st.near[0] == SlotState::kNoObstacle) {
    m.obstacles->query(p, 2.5f, hits);
    st.near.fill(SlotState::kNoObstacle);
    if (hits.size() > st.near.size()) {  // Keep the nearest (ties by id).
      std::sort(hits.begin(), hits.end(), [&](const auto& x, const auto& y) {
        const float dx = (x.x - static_cast<float>(p.x)) * (x.x - static_cast<float>(p.x)) +
                         (x.y - static_cast<float>(p.y)) * (x.y - static_cast<float>(p.y));
        const float dy = (y.x - static_cast<float>(p.x)) * (y.x - static_cast<float>(p.x)) +
                         (y.y - static_cast<float>(p.y)) * (y.y - static_cast<float>(p.y));
        return dx < dy || (dx == dy && x.id < y.id);
      });
    }
    for (std::size_t i = 0; i < std::min(hits.size(), st.near.size()); ++i)
      st.near[i] = hits[i].id;
    if (hits.empty()) st.near[0] = SlotState::kNoObstacle - 1;  // "None near", not "unknown".
  }
  for (const std::uint32_t o : st.near) {
    if (o >= m.obstacle_pos.size()) continue;
    const Vec2 d = p - m.obstacle_pos[o];
    const double dist = std::max(1e-4, std::sqrt(dot(d, d)));
    const double reach = m.obstacle_radius[o] + c.radius_m + 0.3;
    if (dist < reach) acc += d / dist * (c.obstacle_strength * (reach - dist) / reach);
  }
  if (a.behaviour == Behaviour::flee && a.event > 0) {
    const Vec2 d = p - m.events[a.event - 1U].position;
    const double dist = std::max(1.0, std::sqrt(dot(d, d)));
    acc += d / dist * 1.5;
  }
  return acc;
}

// Top-down behaviour evaluation of a full-fidelity agent (the event-driven path does the
// same at events): timers end, planned pauses start. Lane ends are handled by the motion.
void evaluate(Crowd::Impl& m, std::uint32_t id, Agent& a, double now) {
  switch (a.behaviour) {
    case Behaviour::flee:
      if (now >= a.until) {
        a.behaviour = Behaviour::resume;
        a.until = static_cast<float>(now + m.config.resume_s);
      }
      return;
    case Behaviour::resume:
    case Behaviour::idle:
    case Behaviour::look_around:
      if (now >= a.until) a.behaviour = Behaviour::walk;
      return;
    case Behaviour::wait_crossing:
      if (now >= a.until) a.behaviour = Behaviour::walk;  // Walk shows: go to the curb and on.
      return;
    case Behaviour::down:  // Never ticked (knock_down takes it out of the lists).
      return;
    case Behaviour::walk:
      if (a.paused == 0) {
        const Pause p = planned_pause(m, id, a);
        const float done = a.dir > 0 ? a.s0 : m.net.length_m[a.lane] - a.s0;
        if (p.kind != Behaviour::walk && done >= p.at_m) {
          a.behaviour = p.kind;
          a.until = static_cast<float>(now + p.duration_s);
          a.paused = 1;
        }
      }
      return;
  }
}

}  // namespace

std::uint32_t ticking_threads() {
  return static_cast<std::uint32_t>(std::max<std::size_t>(
      1, std::min<std::size_t>(
             static_cast<std::size_t>(tbb::this_task_arena::max_concurrency()),
             tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism))));
}

void tick_active(Crowd::Impl& m) {
  // Sweep order: by lane, so neighbours are updated (and inserted into the hash) together and
  // queries find their items in cache; first, though, by a run of ids per thread, so each
  // thread's stretch of the sweep writes agent records of its own (records of neighbouring ids
  // share cache lines, and two threads writing one line make it cross cores every tick). Any
  // order gives the same result (each agent reads last tick's map, sorted by id, and writes
  // only itself); refreshed about once a second.
  // Over ranks, the agents on this rank's lanes only (owns_lane; the exchange keeps the sweep
  // to them between re-sorts).
  const bool shared = m.ranks != nullptr && m.ranks->size() > 1;
  if (m.sweep_stale || m.tick % 32 == 0 || (!shared && m.sweep.size() != m.active.size())) {
    m.sweep_stale = false;
    if (shared) {
      m.sweep.clear();
      for (const auto& e : m.active) {
        if (owns_lane(m, m.agents[e.first].lane)) m.sweep.push_back(e);
      }
    } else {
      m.sweep = m.active;
    }
    const std::uint32_t threads = ticking_threads();
    const bool all = !shared || m.sweep.empty();
    const std::uint32_t base = all ? 0 : m.sweep.front().first;  // Ascending by id here.
    const auto n =
        static_cast<std::uint32_t>(all ? m.agents.size() : m.sweep.back().first + 1 - base);
    const std::uint32_t per_group = std::max<std::uint32_t>(1, (n + threads - 1) / threads);
    std::sort(m.sweep.begin(), m.sweep.end(), [&](const auto& x, const auto& y) {
      const std::uint32_t gx = (x.first - base) / per_group;
      const std::uint32_t gy = (y.first - base) / per_group;
      if (gx != gy) return gx < gy;
      const LaneId lx = m.agents[x.first].lane;
      const LaneId ly = m.agents[y.first].lane;
      return lx != ly ? lx < ly : x.first < y.first;
    });
  }
  const double now = m.time_s;
  const auto dt = static_cast<double>(m.config.dt_s);
  const Config& c = m.config;
  std::vector<LaneId>& before = m.scratch_lane;
  before.resize(m.sweep.size());
  // The lanes after the update too, so the transitions below read two arrays in sweep order
  // instead of every agent's record again: on one thread, reading the records the other thread
  // just wrote pulled every one of its cache lines across (issue 30).
  std::vector<LaneId>& after = m.scratch_lane_after;
  after.resize(m.sweep.size());
  if (m.frame_cache.size() < m.sweep.size()) m.frame_cache.resize(m.sweep.size());
  const std::uint64_t queries0 = m.queries.load(std::memory_order_relaxed);
  const std::uint64_t reached0 = m.goals_reached.load(std::memory_order_relaxed);
  tbb::parallel_for(
      tbb::blocked_range<std::size_t>(0, m.sweep.size(), 64),
      [&](const tbb::blocked_range<std::size_t>& range) {
        thread_local std::vector<sim::SpatialHash::Hit> hits;
        thread_local InsertBatch batch;
        std::uint64_t queries = 0;
        for (std::size_t k = range.begin(); k != range.end(); ++k) {
          const auto [id, slot] = m.sweep[k];
          Agent& a = m.agents[id];
          SlotState& st = m.slots[slot];
          before[k] = a.lane;
          if (wandering(a)) {  // On its path: a function of time; others avoid it.
            const LaneId lane = a.lane;
            wander_sync(m, a, now);
            const Frame g =
                frame_at(m.frames, a.lane, a.s0, a.dir > 0 ? a.lateral : -a.lateral, &st.hint);
            const Vec2 v = g.t * static_cast<double>(a.dir * m.shepherds.walkers[a.step].speed_mps);
            st.vx = static_cast<float>(v.x);
            st.vy = static_cast<float>(v.y);
            batch.add(id, g.p, v);
            before[k] = lane;
            after[k] = a.lane;
            continue;
          }
          evaluate(m, id, a, now);
          const float len = m.net.length_m[a.lane];
          Crowd::Impl::FrameCache& fc = m.frame_cache[k];
          const float lat0 = a.dir > 0 ? a.lateral : -a.lateral;
          const Frame f = fc.lane == a.lane && same_bits(fc.s, a.s0) && same_bits(fc.lateral, lat0)
                              ? fc.frame
                              : frame_at(m.frames, a.lane, a.s0, lat0, &st.hint);
          const Vec2 w = f.t * static_cast<double>(a.dir);  // Walking direction.
          const Vec2 left{-w.y, w.x};
          const double speed = move_speed(m, a);
          Vec2 v{st.vx, st.vy};
          const bool full = a.lod == Lod::high || (m.tick + id) % c.medium_interval == 0;
          if (full) {
            const Vec2 acc = avoidance(m, id, a, st, f.p, v, hits);
            st.ax = static_cast<float>(acc.x);
            st.ay = static_cast<float>(acc.y);
            queries += 1;
          }
          const float pref = preferred_lateral(m, id, a.lane, a.dir);
          const Vec2 desired = w * speed + left * (0.5 * (pref - a.lateral));
          const Vec2 acc{st.ax, st.ay};
          v += (acc + (desired - v) / static_cast<double>(c.relax_s)) * dt;
          const double vmax = std::max(0.3, speed * 1.3);
          const double vl = std::sqrt(dot(v, v));
          if (vl > vmax) v = v * (vmax / vl);
          // Move in the lane frame.
          double along = dot(v, w) * dt;
          const float lat = a.lateral + static_cast<float>(dot(v, left) * dt);
          a.lateral = clamp_lateral(m, a.lane, a.dir, lat);
          if (a.lateral != lat) v -= left * dot(v, left);  // Pressed against the edge.
          double walked = (a.dir > 0 ? a.s0 : len - a.s0) + along;
          if (walked < 0) {  // Pushed back past the lane's entry: stay on it.
            walked = 0;
            v -= w * dot(v, w);
          }
          a.t0 = now;
          if (walked >= len) {
            const double over = walked - len;
            a.s0 = a.dir > 0 ? len : 0.0f;
            const LaneId lane = a.lane;
            at_lane_end(m, id, a, now);
            if (a.lane != lane) {
              const float l2 = m.net.length_m[a.lane];
              const double s = std::min(over, static_cast<double>(l2));
              a.s0 = static_cast<float>(a.dir > 0 ? s : l2 - s);
            } else if (a.behaviour == Behaviour::wait_crossing) {
              v -= w * std::max(0.0, dot(v, w));  // Stand at the curb.
            }
          } else {
            a.s0 = static_cast<float>(a.dir > 0 ? walked : len - walked);
          }
          if (c.navigation == Navigation::goals && m.goals[id].lane == a.lane &&
              (a.dir > 0 ? a.s0 >= m.goals[id].s_m : a.s0 <= m.goals[id].s_m)) {
            m.goals_reached.fetch_add(1, std::memory_order_relaxed);
            plan_goal(m, id);
          }
          st.vx = static_cast<float>(v.x);
          st.vy = static_cast<float>(v.y);
          const float lat1 = a.dir > 0 ? a.lateral : -a.lateral;
          const Frame g = frame_at(m.frames, a.lane, a.s0, lat1, &st.hint);
          fc = Crowd::Impl::FrameCache{a.lane, a.s0, lat1, g};
          after[k] = a.lane;
          batch.add(id, g.p, v);
        }
        // One atomic add for the block's slots in this tick's map (lock-free, insert only).
        batch.flush(m.hash);
        m.queries.fetch_add(queries, std::memory_order_relaxed);
      },
      // The same stretches of the sweep to the same threads tick after tick (the sweep changes
      // little between re-sorts), so an agent's record and slot stay in one core's cache.
      m.sweep_affinity);
  for (std::size_t k = 0; k < m.sweep.size(); ++k) {
    if (after[k] != before[k]) entered(m, m.agents[m.sweep[k].first], before[k]);
  }
  m.share_stats.updated += m.sweep.size();
  if (shared) {
    exchange_halo(m, m.queries.load(std::memory_order_relaxed) - queries0,
                  m.goals_reached.load(std::memory_order_relaxed) - reached0);
  }
  m.stats.updates += m.active.size();
}

}  // namespace cityforge::crowd
