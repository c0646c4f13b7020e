// SPDX-License-Identifier: Apache-2.0
// The crowd's environment (docs/crowd.md, "Weather, density and hazards"): weather (the share of
// roaming pedestrians outdoors and their walking speed), the active count (density control:
// pedestrians beyond it wait indoors, untouched, and come out where they went in) and hazards
// (moving vehicles: pedestrians in their path step aside and flee briefly).
// The weather values are judgement calls (docs/crowd.md gives the reasoning).
#include <algorithm>
#include <cmath>

#include "cityforge/core/assert.hpp"
#include "crowd/detail/state.hpp"

namespace cityforge::crowd {

WeatherEffect weather_effect(traffic::WeatherKind kind, bool fog) {
  WeatherEffect e;
  switch (kind) {
    case traffic::WeatherKind::clear:
      break;
    case traffic::WeatherKind::cloudy:
      e.outdoor_share = 0.95f;
      break;
    case traffic::WeatherKind::rain:
      e.outdoor_share = 0.6f;
      e.speed_factor = 1.15f;
      break;
    case traffic::WeatherKind::storm:
      e.outdoor_share = 0.3f;
      e.speed_factor = 1.25f;
      break;
    case traffic::WeatherKind::fog:
      e.outdoor_share = 0.85f;
      break;
  }
  if (fog) e.outdoor_share = std::min(e.outdoor_share, 0.85f);
  return e;
}

void init_outdoor_order(Crowd::Impl& m) {
  const std::uint32_t n = m.config.pedestrians;
  m.order.resize(n);
  std::vector<std::uint64_t> rank(n);
  for (std::uint32_t id = 0; id < n; ++id) {
    m.order[id] = id;
    rank[id] = mix64(hash_combine(m.seed ^ 0x1d00f5ULL, id));
  }
  std::sort(m.order.begin(), m.order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return rank[a] != rank[b] ? rank[a] < rank[b] : a < b;
  });
  m.outdoors = n;
}

namespace {

constexpr double kOnPathM = 0.25;  // Closer to a hazard's path centre line counts as on it.

bool active(const Agent& a) { return a.lod == Lod::high || a.lod == Lod::medium; }

void go_indoors(Crowd::Impl& m, std::uint32_t id) {
  Agent& a = m.agents[id];
  if (down(a)) return;  // Lies where it fell.
  const double now = m.time_s;
  a.s0 = active(a) ? a.s0 : s_at(m, a, now);
  a.t0 = now;
  if (m.walk.crosswalk(a.lane) && m.occupancy[a.lane] > 0) m.occupancy[a.lane] -= 1;
  a.flags = static_cast<std::uint8_t>(a.flags | kPedIndoors);
  a.stamp += 1;  // Its scheduled event is stale: nothing happens to it indoors.
  a.lod = Lod::off;
}

void come_out(Crowd::Impl& m, std::uint32_t id) {
  Agent& a = m.agents[id];
  if (down(a)) return;
  a.flags = static_cast<std::uint8_t>(a.flags & ~kPedIndoors);
  a.t0 = m.time_s;  // Where it went in; timers that ended meanwhile end at once.
  if (m.walk.crosswalk(a.lane)) m.occupancy[a.lane] += 1;
  if (m.config.lod.enabled) {
    a.lod = Lod::off;  // The next LOD update places it.
    schedule(m, id);
  } else {
    a.lod = Lod::high;
    const std::uint32_t slot = m.pool.slot_of(id);
    const Frame f = frame_at(m.frames, a.lane, a.s0, 0);
    const float v = move_speed(m, a);
    m.slots[slot] = {static_cast<float>(f.t.x * a.dir * v), static_cast<float>(f.t.y * a.dir * v),
                     0, 0};
  }
}

}  // namespace

void count_levels(Crowd::Impl& m) {
  m.stats.per_lod = {};
  m.stats.indoors = 0;
  m.stats.down = 0;
  for (const Agent& a : m.agents) {
    if (down(a)) {
      m.stats.down += 1;
    } else if (indoors(a)) {
      m.stats.indoors += 1;
    } else {
      m.stats.per_lod[static_cast<std::size_t>(a.lod)] += 1;
    }
  }
  for (std::size_t k = 0; k < kLods; ++k)
    m.stats.per_lod_max[k] = std::max(m.stats.per_lod_max[k], m.stats.per_lod[k]);
}

std::uint32_t outdoor_target(const Crowd::Impl& m) {
  const std::uint32_t n = std::min(m.active_count, m.config.pedestrians);
  const double share = std::clamp(static_cast<double>(m.weather.outdoor_share), 0.0, 1.0);
  return static_cast<std::uint32_t>(std::llround(n * share));
}

void update_outdoors(Crowd::Impl& m) {
  const std::uint32_t target = outdoor_target(m);
  if (target == m.outdoors) return;
  std::uint32_t step = target > m.outdoors ? target - m.outdoors : m.outdoors - target;
  if (m.config.env_transition_s > 0) {
    const double per_tick =
        std::ceil(m.config.pedestrians * m.config.dt_s / m.config.env_transition_s - 1e-6);
    step = std::min(step, static_cast<std::uint32_t>(std::max(1.0, per_tick)));
  }
  if (target < m.outdoors) {
    for (std::uint32_t k = m.outdoors - step; k < m.outdoors; ++k)
      go_indoors(m, m.order[k]);
    m.outdoors -= step;
  } else {
    for (std::uint32_t k = m.outdoors; k < m.outdoors + step; ++k)
      come_out(m, m.order[k]);
    m.outdoors += step;
  }
  refresh_lists(m);
}

void refresh_lists(Crowd::Impl& m) {
  // The full-fidelity and low lists without the ones indoors (and with the ones out, when every
  // agent is high); the sweep order is rebuilt by the next tick.
  const auto in = [&](const auto& e) { return indoors(m.agents[e.first]); };
  if (m.config.lod.enabled) {
    m.active.erase(std::remove_if(m.active.begin(), m.active.end(), in), m.active.end());
    m.low.erase(std::remove_if(m.low.begin(), m.low.end(),
                               [&](std::uint32_t id) { return indoors(m.agents[id]); }),
                m.low.end());
  } else {
    m.active.clear();
    for (std::uint32_t id = 0; id < m.agents.size(); ++id) {
      if (!indoors(m.agents[id])) m.active.emplace_back(id, m.pool.slot_of(id));
    }
  }
  m.sweep.clear();
  m.sweep_stale = true;
  count_levels(m);
}

void react_to_hazards(Crowd::Impl& m) {
  if (m.hazards.empty()) return;
  const Config& c = m.config;
  const double now = m.time_s;
  std::vector<std::uint32_t> found;
  std::vector<std::uint32_t> ids;
  for (const Hazard& h : m.hazards) {
    const double speed = std::sqrt(dot(h.velocity, h.velocity));
    if (!(speed > c.hazard_min_speed_mps)) continue;
    const Vec2 ahead = h.velocity / speed;
    const Vec2 left{-ahead.y, ahead.x};
    const double reach =
        std::clamp(speed * c.hazard_look_ahead_s, static_cast<double>(c.hazard_reach_min_m),
                   static_cast<double>(c.hazard_reach_max_m));
    const double half = h.radius_m + c.hazard_margin_m;
    const Vec2 origin{h.position.x, h.position.y};
    // 1. Candidates: the spatial hash (every ticked agent, last tick) along the path.
    ids.clear();
    const int samples = static_cast<int>(std::ceil(reach / half)) + 1;
    for (int k = 0; k < samples; ++k) {
      const Vec2 p = origin + ahead * std::min(reach, k * half);
      m.hash.query(p, static_cast<float>(half * std::sqrt(2.0)), found);
      ids.insert(ids.end(), found.begin(), found.end());
    }
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    // 2. Those in the corridor now react, in id order.
    for (const std::uint32_t id : ids) {
      if (id >= m.agents.size()) continue;
      Agent& a = m.agents[id];
      if (indoors(a) || a.lod == Lod::off || a.behaviour == Behaviour::flee) continue;
      if (wandering(a)) wander_sync(m, a, now);
      const float s = active(a) ? a.s0 : s_at(m, a, now);
      const Frame f = frame_at(m.frames, a.lane, s, a.dir > 0 ? a.lateral : -a.lateral);
      const Vec2 rel = f.p - origin;
      const double along = dot(rel, ahead);
      const double side = dot(rel, left);
      if (along < -h.radius_m || along > reach || std::abs(side) > half) continue;
      // Away from the path: to the side it is on; right on it, on in the direction it walks
      // (across the path), or, walking along the path, to the side with more room.
      const Vec2 walk = f.t * static_cast<double>(a.dir);
      double sign = side > 0 ? 1.0 : -1.0;
      if (std::abs(side) < kOnPathM) {
        const double across = dot(walk, left);
        if (std::abs(across) > 0.2) {
          sign = across > 0 ? 1.0 : -1.0;
        } else {
          const double room_left = m.walk.band_hi[a.lane] - (a.dir > 0 ? a.lateral : -a.lateral);
          const double room_right = (a.dir > 0 ? a.lateral : -a.lateral) - m.walk.band_lo[a.lane];
          const bool lane_left_is_path_left = dot(f.t, ahead) > 0;
          const bool go_lane_left = room_left >= room_right;
          sign = go_lane_left == lane_left_is_path_left ? 1.0 : -1.0;
        }
      }
      const Vec2 away = left * sign;
      a.s0 = s;
      a.t0 = now;
      a.behaviour = Behaviour::flee;
      a.until = static_cast<float>(now + c.hazard_flee_s);
      a.event = 0;
      a.flags = static_cast<std::uint8_t>(a.flags & ~(kPedHurry | kPedWandering));
      if (dot(walk, away) < -0.2) {
        a.dir = static_cast<std::int8_t>(-a.dir);
        a.lateral = -a.lateral;
      }
      // A step aside, to the side away from the path, within the lane's band.
      const Vec2 walk_now = f.t * static_cast<double>(a.dir);
      const Vec2 left_walk{-walk_now.y, walk_now.x};
      const double lateral_away = dot(left_walk, away);
      if (std::abs(lateral_away) > 0.2) {
        const float step = lateral_away > 0 ? c.hazard_step_m : -c.hazard_step_m;
        a.lateral = clamp_lateral(m, a.lane, a.dir, a.lateral + step);
      }
      m.stats.hazard_reactions += 1;
      if (!active(a)) schedule(m, id);
    }
  }
}

void Crowd::set_weather(const WeatherEffect& effect) {
  Impl& m = *m_impl;
  WeatherEffect e;
  e.outdoor_share =
      std::isfinite(effect.outdoor_share) ? std::clamp(effect.outdoor_share, 0.0f, 1.0f) : 1.0f;
  e.speed_factor =
      std::isfinite(effect.speed_factor) ? std::clamp(effect.speed_factor, 0.5f, 2.0f) : 1.0f;
  if (e.speed_factor != m.speed_factor) {
    // Lane following between events is a function of time at the old speed: re-base every
    // event-driven agent now, then schedule it again at the new speed.
    const double now = m.time_s;
    for (std::uint32_t id = 0; id < m.agents.size(); ++id) {
      Agent& a = m.agents[id];
      if (active(a) || indoors(a) || wandering(a)) continue;
      a.s0 = s_at(m, a, now);
      a.t0 = now;
    }
    m.speed_factor = e.speed_factor;
    for (std::uint32_t id = 0; id < m.agents.size(); ++id) {
      const Agent& a = m.agents[id];
      if (!active(a) && !indoors(a) && !wandering(a)) schedule(m, id);
    }
  }
  m.weather = e;
}

const WeatherEffect& Crowd::weather() const { return m_impl->weather; }

void Crowd::set_active_count(std::uint32_t n) { m_impl->active_count = n; }
std::uint32_t Crowd::active_count() const {
  return std::min(m_impl->active_count, m_impl->config.pedestrians);
}

void Crowd::set_hazards(std::span<const Hazard> hazards) {
  m_impl->hazards.assign(hazards.begin(), hazards.end());
}

bool Crowd::knock_down(std::uint32_t id) {
  Impl& m = *m_impl;
  CF_ASSERT(m.whole, "over ranks, gather() before knocking a pedestrian down");
  if (id >= m.agents.size() || indoors(m.agents[id])) return false;
  Agent& a = m.agents[id];
  if (wandering(a)) wander_sync(m, a, m.time_s);  // Its record at its path's point now.
  const PedestrianView v = view(id);
  a.s0 = v.s_m;
  a.t0 = m.time_s;
  // Its crosswalk's occupancy stays counted: a body on the crossing holds turning traffic.
  a.flags = static_cast<std::uint8_t>((a.flags | kPedIndoors | kPedDown) & ~kPedWandering);
  a.behaviour = Behaviour::down;
  a.stamp += 1;  // Its scheduled event is stale.
  a.lod = Lod::off;
  a.until = 0;
  refresh_lists(m);
  Event e;
  e.position = Vec2{v.position.x, v.position.y};
  e.time_s = m.time_s;
  e.radius_m = m.config.flee_radius_m;
  e.duration_s = m.config.flee_duration_s;
  add_event(e);
  return true;
}

}  // namespace cityforge::crowd
