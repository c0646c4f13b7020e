// SPDX-License-Identifier: Apache-2.0
// Lane following by events (low and off levels of detail, and the lane ends of every level):
// between two events a pedestrian's position is a pure function of time, so an off-LOD agent
// costs nothing per tick and is exactly where a ticked one would be. Events: the lane end (a
// way on is chosen, a crosswalk waited for or jaywalked), the planned pause on a sidewalk
// (idle or look around), the end of a timed behaviour (pause, flee, resume, wait for walk).
#include <algorithm>
#include <cmath>
#include <limits>

#include "crowd/detail/state.hpp"

namespace cityforge::crowd {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr float kResumeSpeed = 0.6f;  // Share of the walking speed while resuming.

enum class EventKind { none, lane_end, pause, timer };

struct Next {
  double time = kInf;
  EventKind kind = EventKind::none;
};

bool moving(Behaviour b) {
  return b == Behaviour::walk || b == Behaviour::flee || b == Behaviour::resume;
}

// Distance walked on the current lane since entering it, at arc length s.
float walked(const Crowd::Impl& m, const Agent& a, float s) {
  return a.dir > 0 ? s : m.net.length_m[a.lane] - s;
}

Next next_event(const Crowd::Impl& m, std::uint32_t id, const Agent& a) {
  Next n;
  if (!moving(a.behaviour)) {
    n = {a.until, EventKind::timer};
    return n;
  }
  const float v = move_speed(m, a);
  const float len = m.net.length_m[a.lane];
  if (v > 0) {
    const double left = a.dir > 0 ? len - a.s0 : a.s0;
    n = {a.t0 + std::max(0.0, left) / v, EventKind::lane_end};
    if (a.behaviour == Behaviour::walk && a.paused == 0) {
      const Pause p = planned_pause(m, id, a);
      const float done = walked(m, a, a.s0);
      if (p.kind != Behaviour::walk && done <= p.at_m) {
        const double tp = a.t0 + (p.at_m - done) / v;
        if (tp < n.time) n = {tp, EventKind::pause};
      }
    }
  }
  if ((a.behaviour == Behaviour::flee || a.behaviour == Behaviour::resume) && a.until < n.time)
    n = {a.until, EventKind::timer};
  return n;
}

std::uint64_t key(std::uint32_t step, std::uint32_t what) {
  return (static_cast<std::uint64_t>(step) << 4U) | what;
}

}  // namespace

void wander_sync(const Crowd::Impl& m, Agent& a, double t) {
  const WanderingMember& w = m.shepherds.walkers[a.step];
  const WanderingPose p = member_at(m.walk, m.shepherds.paths[w.path], w, t);
  a.lane = p.at.lane;
  a.s0 = p.at.s_m;
  a.dir = p.at.dir;
  a.t0 = t;
  a.lateral = p.lateral_m;
}

float move_speed(const Crowd::Impl& m, const Agent& a) {
  switch (a.behaviour) {
    case Behaviour::walk:  // Weather changes walking, not running.
      return (a.flags & kPedHurry) != 0U ? a.speed * m.speed_factor * m.config.hurry_factor
                                         : a.speed * m.speed_factor;
    case Behaviour::flee:
      return m.config.flee_speed_mps;
    case Behaviour::resume:
      return a.speed * m.speed_factor * kResumeSpeed;
    default:
      return 0.0f;
  }
}

float s_at(const Crowd::Impl& m, const Agent& a, double t) {
  const float len = m.net.length_m[a.lane];
  const double s = a.s0 + a.dir * static_cast<double>(move_speed(m, a)) * (t - a.t0);
  return static_cast<float>(std::clamp(s, 0.0, static_cast<double>(len)));
}

namespace {

Vec2 unit_or(Vec2 v, Vec2 fallback) {
  const double vl = std::sqrt(dot(v, v));
  return vl > 1e-9 ? v / vl : fallback;
}

// The geometry of segment (k - 1, k) of the polyline of points [b, e) that frame_at needs.
// Without `normals` only the tangent is filled (a frame on the centre line needs no more).
SegmentFrame segment_frame(const traffic::Network& net, std::uint32_t b, std::uint32_t e,
                           std::uint32_t k, bool normals = true) {
  const Vec3& p0 = net.points[k - 1];
  const Vec3& p1 = net.points[k];
  Vec2 t{p1.x - p0.x, p1.y - p0.y};
  const double l = std::sqrt(dot(t, t));
  t = l > 1e-9 ? t / l : Vec2{1, 0};
  // The offset follows a normal blended from vertex to vertex (each vertex's the mean of its
  // segments'), so an offset body moves continuously round the polyline's corners instead of
  // jumping where the segment normals change.
  const auto normal_of = [&](std::uint32_t j) {  // Left normal of segment (j - 1, j).
    const Vec2 d{net.points[j].x - net.points[j - 1].x, net.points[j].y - net.points[j - 1].y};
    const double dl = std::sqrt(dot(d, d));
    return dl > 1e-9 ? Vec2{-d.y / dl, d.x / dl} : Vec2{0, 0};
  };
  const Vec2 nk{-t.y, t.x};
  SegmentFrame g;
  g.t = t;
  if (!normals) return g;
  g.n0 = k - 1 > b ? unit_or(normal_of(k - 1) + nk, nk) : nk;
  g.n1 = k + 1 < e ? unit_or(nk + normal_of(k + 1), nk) : nk;
  return g;
}

// The segment whose end is the first point past s (kept inside the lane), trying the hint (the
// last call's) and the next one before a binary search.
std::uint32_t segment_of(const traffic::Network& net, std::uint32_t b, std::uint32_t e, float s,
                         std::uint32_t hint) {
  const auto holds = [&](std::uint32_t j) {
    return j > b && j < e && (net.point_s[j] > s || j == e - 1) &&
           (net.point_s[j - 1] <= s || j == b + 1);
  };
  if (holds(hint)) return hint;
  if (holds(hint + 1)) return hint + 1;
  const auto first = net.point_s.begin() + b;
  const auto last = net.point_s.begin() + e;
  const auto k = static_cast<std::uint32_t>(std::upper_bound(first, last, s) - net.point_s.begin());
  return std::clamp(k, b + 1, e - 1);
}

// Where s lies along segment (k - 1, k): 0 at its start, 1 at its end.
double segment_u(const traffic::Network& net, std::uint32_t k, float s) {
  const float s0 = net.point_s[k - 1];
  const float s1 = net.point_s[k];
  return s1 > s0 ? std::clamp(static_cast<double>(s - s0) / (s1 - s0), 0.0, 1.0) : 0.0;
}

// The left normal at u along the segment, blended from its ends' normals.
Vec2 normal_at(const SegmentFrame& g, double u) {
  const Vec2 nk{-g.t.y, g.t.x};
  return unit_or(g.n0 * (1.0 - u) + g.n1 * u, nk);
}

Frame frame_from(const traffic::Network& net, std::uint32_t k, const SegmentFrame& g, float s,
                 float lateral_lane) {
  const Vec3& p0 = net.points[k - 1];
  const Vec3& p1 = net.points[k];
  const double u = segment_u(net, k, s);
  Frame f;
  f.t = g.t;
  f.p = Vec2{p0.x + (p1.x - p0.x) * u, p0.y + (p1.y - p0.y) * u};
  f.z = static_cast<float>(p0.z + (p1.z - p0.z) * u);
  if (lateral_lane != 0.0f) f.p += normal_at(g, u) * static_cast<double>(lateral_lane);
  return f;
}

}  // namespace

LaneFrames::LaneFrames(const traffic::Network& n) : net(n) {
  const auto lanes = static_cast<std::uint32_t>(n.length_m.size());
  begin.assign(std::size_t{lanes} + 1, 0);
  std::uint32_t total = 0;
  for (LaneId l = 0; l < lanes; ++l) {
    begin[l] = total;
    const std::uint32_t b = n.point_begin[l];
    const std::uint32_t e = n.point_begin[l + 1];
    if ((n.tags[l] & (roads::kSidewalk | roads::kCrosswalk)) != 0U && e - b >= 2) total += e - b;
  }
  begin[lanes] = total;
  seg.resize(total);
  for (LaneId l = 0; l < lanes; ++l) {
    const std::uint32_t b = n.point_begin[l];
    const std::uint32_t e = n.point_begin[l + 1];
    if (begin[l + 1] == begin[l]) continue;
    for (std::uint32_t k = b + 1; k < e; ++k)
      seg[begin[l] + (k - b)] = segment_frame(n, b, e, k);
  }
}

Frame frame_at(const traffic::Network& net, LaneId lane, float s, float lateral_lane) {
  std::uint32_t hint = 0;
  return frame_at(net, lane, s, lateral_lane, &hint);
}

Frame frame_at(const traffic::Network& net, LaneId lane, float s, float lateral_lane,
               std::uint32_t* hint) {
  const std::uint32_t b = net.point_begin[lane];
  const std::uint32_t e = net.point_begin[lane + 1];
  const std::uint32_t k = segment_of(net, b, e, s, *hint);
  *hint = k;
  return frame_from(net, k, segment_frame(net, b, e, k, lateral_lane != 0.0f), s, lateral_lane);
}

FramesAcross::FramesAcross(const traffic::Network& net, LaneId lane, float s) {
  // frame_at's steps with a hint of 0 (the same segment), its normal taken once.
  const std::uint32_t b = net.point_begin[lane];
  const std::uint32_t e = net.point_begin[lane + 1];
  const std::uint32_t k = segment_of(net, b, e, s, 0);
  const SegmentFrame g = segment_frame(net, b, e, k, true);
  m_centre = frame_from(net, k, g, s, 0.0f);
  m_normal = normal_at(g, segment_u(net, k, s));
}

Frame frame_at(const LaneFrames& frames, LaneId lane, float s, float lateral_lane,
               std::uint32_t* hint) {
  const std::uint32_t first = frames.begin[lane];
  if (frames.begin[lane + 1] == first) return frame_at(frames.net, lane, s, lateral_lane, hint);
  const traffic::Network& net = frames.net;
  const std::uint32_t b = net.point_begin[lane];
  const std::uint32_t e = net.point_begin[lane + 1];
  const std::uint32_t k = segment_of(net, b, e, s, *hint);
  *hint = k;
  return frame_from(net, k, frames.seg[first + (k - b)], s, lateral_lane);
}

Frame frame_at(const LaneFrames& frames, LaneId lane, float s, float lateral_lane) {
  std::uint32_t hint = 0;
  return frame_at(frames, lane, s, lateral_lane, &hint);
}

Frame position_at(const Crowd::Impl& m, const Agent& a, double t) {
  return frame_at(m.frames, a.lane, s_at(m, a, t), a.dir > 0 ? a.lateral : -a.lateral);
}

traffic::WalkState walk_state(const Crowd::Impl& m, LaneId crosswalk, double t) {
  t -= m.signal_lag;  // The clock the traffic's signals show (docs/crowd.md).
  const std::int32_t j = m.net.intersection[crosswalk];
  if (j < 0) return traffic::WalkState::off;
  const std::int32_t sig = m.net.signal_of[static_cast<std::size_t>(j)];
  if (sig < 0) return traffic::WalkState::off;
  const roads::SignalPlan& plan = m.net.signals[static_cast<std::size_t>(sig)];
  const double cycle = plan.cycle_s();
  if (plan.phases.empty() || !(cycle > 0)) return traffic::WalkState::off;
  bool listed = false;
  for (const roads::Phase& p : plan.phases)
    listed = listed || std::binary_search(p.walk.begin(), p.walk.end(), crosswalk);
  if (!listed) return traffic::WalkState::off;  // Never walk: treated as unsignalised.
  double tau = std::fmod(t - plan.offset_s, cycle);
  if (tau < 0) tau += cycle;
  for (const roads::Phase& p : plan.phases) {
    const double len = p.green_s + p.yellow_s + p.all_red_s;
    if (tau < len || &p == &plan.phases.back()) {
      if (tau < p.green_s && std::binary_search(p.walk.begin(), p.walk.end(), crosswalk))
        return tau < m.walk_s ? traffic::WalkState::walk : traffic::WalkState::flashing;
      return traffic::WalkState::dont_walk;
    }
    tau -= len;
  }
  return traffic::WalkState::dont_walk;
}

double next_walk(const Crowd::Impl& m, LaneId crosswalk, double t) {
  if (walk_state(m, crosswalk, t) != traffic::WalkState::dont_walk &&
      walk_state(m, crosswalk, t) != traffic::WalkState::flashing)
    return t;
  const roads::SignalPlan& plan =
      m.net.signals[static_cast<std::size_t>(m.net.signal_of[m.net.intersection[crosswalk]])];
  const double cycle = plan.cycle_s();
  const double lag = m.signal_lag;
  t -= lag;  // In the signals' clock; results go back to the crowd's.
  double tau = std::fmod(t - plan.offset_s, cycle);
  if (tau < 0) tau += cycle;
  const double cycle_start = t - tau;
  for (int c = 0; c < 3; ++c) {
    double start = cycle_start + c * cycle;
    for (const roads::Phase& p : plan.phases) {
      if (start >= t && std::binary_search(p.walk.begin(), p.walk.end(), crosswalk))
        return start + lag + 1e-3;  // Just inside the walk interval.
      start += p.green_s + p.yellow_s + p.all_red_s;
    }
  }
  return t + lag + cycle;  // Unreachable for a listed crosswalk.
}

Pause planned_pause(const Crowd::Impl& m, std::uint32_t id, const Agent& a) {
  Pause p;
  if (m.config.navigation != Navigation::roam || m.walk.crosswalk(a.lane)) return p;
  Rng r(m.seed, Stage::crowd, id, key(a.step, 3));
  const double u = r.uniform01();
  const Config& c = m.config;
  if (u < c.idle_probability) {
    p.kind = Behaviour::idle;
  } else if (u < c.idle_probability + c.look_around_probability) {
    p.kind = Behaviour::look_around;
  } else {
    return p;
  }
  p.at_m = static_cast<float>(r.uniform(0.1, 0.9)) * m.net.length_m[a.lane];
  p.duration_s = static_cast<float>(r.uniform(c.pause_min_s, c.pause_max_s));
  return p;
}

WalkStep choose_exit(Crowd::Impl& m, std::uint32_t id, const Agent& a) {
  const auto [begin, end] = m.walk.exits_after(a.lane, a.dir);
  if (begin == end) return {kNoLane, 0};
  const traffic::Network& net = m.net;
  if (a.behaviour == Behaviour::flee && a.event > 0) {
    // Away from the event: the way on whose far end is farthest from it, sidewalks first.
    const Vec2 e = m.events[a.event - 1U].position;
    const WalkStep* best = nullptr;
    double best_score = -kInf;
    for (const WalkStep* x = begin; x != end; ++x) {
      const Vec3 far = x->dir > 0 ? net.points[net.point_begin[x->lane + 1] - 1]
                                  : net.points[net.point_begin[x->lane]];
      double score = distance(Vec2{far.x, far.y}, e);
      if (m.walk.crosswalk(x->lane)) score -= 1e4;
      if (score > best_score) {
        best_score = score;
        best = x;
      }
    }
    return *best;
  }
  if (m.config.navigation == Navigation::goals && !m.routes[id].empty()) {
    const WalkStep want = m.routes[id].front();
    for (const WalkStep* x = begin; x != end; ++x) {
      if (*x == want) return want;
    }
  }
  // Roam: weighted by the ways' pedestrian density.
  double total = 0;
  for (const WalkStep* x = begin; x != end; ++x)
    total += 0.2 + net.pedestrian_density[x->lane];
  Rng r(m.seed, Stage::crowd, id, key(a.step, 2));
  double pick = r.uniform01() * total;
  for (const WalkStep* x = begin; x != end; ++x) {
    pick -= 0.2 + net.pedestrian_density[x->lane];
    if (pick < 0) return *x;
  }
  return *(end - 1);
}

LaneId at_lane_end(Crowd::Impl& m, std::uint32_t id, Agent& a, double t) {
  if (m.config.navigation == Navigation::goals && m.routes[id].empty() &&
      a.behaviour != Behaviour::flee) {
    plan_goal(m, id);
  }
  const WalkStep ex = choose_exit(m, id, a);
  const float len = m.net.length_m[a.lane];
  if (ex.lane == kNoLane) {  // Dead end: turn round.
    a.dir = static_cast<std::int8_t>(-a.dir);
    a.lateral = -a.lateral;  // Same side of the lane in the world.
    a.s0 = a.dir > 0 ? 0.0f : len;
    a.t0 = t;
    a.step += 1;
    a.paused = 0;
    return kNoLane;
  }
  bool jaywalk = false;
  if (m.walk.crosswalk(ex.lane)) {
    const traffic::WalkState w = walk_state(m, ex.lane, t);
    if (w == traffic::WalkState::dont_walk || w == traffic::WalkState::flashing) {
      if (a.behaviour == Behaviour::flee) {
        jaywalk = true;  // Running from danger, against the signal.
      } else if (a.behaviour != Behaviour::wait_crossing &&
                 Rng(m.seed, Stage::crowd, id, key(a.step, 1))
                     .chance(m.config.jaywalk_probability)) {
        jaywalk = true;
      } else {
        a.behaviour = Behaviour::wait_crossing;
        a.until = static_cast<float>(next_walk(m, ex.lane, t));
        a.s0 = a.dir > 0 ? len : 0.0f;
        a.t0 = t;
        return kNoLane;
      }
    }
  }
  const LaneId from = a.lane;
  const Vec2 here = frame_at(m.net, a.lane, a.s0, a.dir > 0 ? a.lateral : -a.lateral).p;
  if (a.behaviour == Behaviour::wait_crossing) a.behaviour = Behaviour::walk;
  a.lane = ex.lane;
  a.dir = ex.dir;
  a.s0 = a.dir > 0 ? 0.0f : m.net.length_m[a.lane];
  a.t0 = t;
  a.step += 1;
  a.paused = 0;
  // Keep the body where it is: its offset across the new lane's entry (lanes meet at an
  // angle at crosswalks), within the new band.
  const Frame entry = frame_at(m.net, a.lane, a.s0, 0);
  const Vec2 left_walk = Vec2{-entry.t.y, entry.t.x} * static_cast<double>(a.dir);
  a.lateral = clamp_lateral(m, a.lane, a.dir, static_cast<float>(dot(here - entry.p, left_walk)));
  if (m.walk.crosswalk(a.lane)) {
    a.flags = static_cast<std::uint8_t>(a.flags | kPedCrossing);
    if (jaywalk) a.flags = static_cast<std::uint8_t>(a.flags | kPedJaywalker | kPedHurry);
  } else {
    a.flags = static_cast<std::uint8_t>(a.flags & ~(kPedCrossing | kPedJaywalker | kPedHurry));
  }
  if (m.config.navigation == Navigation::goals && !m.routes[id].empty() &&
      m.routes[id].front() == ex) {
    m.routes[id].erase(m.routes[id].begin());
  }
  return from;
}

void entered_lane(Crowd::Impl& m, LaneId from, LaneId to, bool jaywalker) {
  m.stats.lane_transitions += 1;
  if (from != kNoLane && m.walk.crosswalk(from) && m.occupancy[from] > 0) m.occupancy[from] -= 1;
  if (m.walk.crosswalk(to)) {
    m.occupancy[to] += 1;
    m.stats.crossings += 1;
    if (jaywalker) m.stats.jaywalks += 1;
  }
}

void entered(Crowd::Impl& m, const Agent& a, LaneId from) {
  entered_lane(m, from, a.lane, (a.flags & kPedJaywalker) != 0U);
}

void schedule(Crowd::Impl& m, std::uint32_t id) {
  Agent& a = m.agents[id];
  a.stamp += 1;
  if (wandering(a)) return;  // A pure function of time: no events.
  const Next n = next_event(m, id, a);
  if (n.kind == EventKind::none || !std::isfinite(n.time)) return;
  const double dt = m.config.dt_s;
  const double tick = std::max(static_cast<double>(m.tick + 1), std::ceil(n.time / dt - 1e-9));
  m.wheel.push({static_cast<std::uint32_t>(std::min(tick, 4.0e9)), id, a.stamp});
}

void advance(Crowd::Impl& m, std::uint32_t id, double t) {
  Agent& a = m.agents[id];
  for (int guard = 0; guard < 64; ++guard) {
    const Next n = next_event(m, id, a);
    if (n.kind == EventKind::none || n.time > t) break;
    const double te = std::max(n.time, a.t0);
    a.s0 = s_at(m, a, te);
    a.t0 = te;
    m.stats.updates += 1;
    if (n.kind == EventKind::lane_end) {
      const LaneId from = at_lane_end(m, id, a, te);
      if (from != kNoLane) entered(m, a, from);
    } else if (n.kind == EventKind::pause) {
      const Pause p = planned_pause(m, id, a);
      a.behaviour = p.kind;
      a.until = static_cast<float>(te + p.duration_s);
      a.paused = 1;
    } else {  // Timer.
      switch (a.behaviour) {
        case Behaviour::flee:
          a.behaviour = Behaviour::resume;
          a.until = static_cast<float>(te + m.config.resume_s);
          break;
        case Behaviour::wait_crossing: {
          const LaneId from = at_lane_end(m, id, a, te);
          if (from != kNoLane) entered(m, a, from);
          break;
        }
        default:
          a.behaviour = Behaviour::walk;
          break;
      }
    }
  }
  schedule(m, id);
}

void run_events(Crowd::Impl& m) {
  while (!m.wheel.empty() && m.wheel.top().tick <= m.tick) {
    const Scheduled e = m.wheel.top();
    m.wheel.pop();
    const Agent& a = m.agents[e.agent];
    if (e.stamp != a.stamp || a.lod == Lod::high || a.lod == Lod::medium) continue;
    advance(m, e.agent, m.time_s);
  }
}

void start_events(Crowd::Impl& m) {
  while (m.next_event < m.events.size() && m.events[m.next_event].time_s <= m.time_s) {
    const Event& e = m.events[m.next_event];
    const auto index = static_cast<std::uint16_t>(m.next_event + 1);
    m.next_event += 1;
    const double r2 = static_cast<double>(e.radius_m) * e.radius_m;
    for (std::uint32_t id = 0; id < m.agents.size(); ++id) {
      Agent& a = m.agents[id];
      if (indoors(a)) continue;  // Safe inside.
      const bool active = a.lod == Lod::high || a.lod == Lod::medium;
      const double now = m.time_s;
      if (wandering(a)) wander_sync(m, a, now);
      const float s = active ? a.s0 : s_at(m, a, now);
      const Frame f = frame_at(m.net, a.lane, s, a.dir > 0 ? a.lateral : -a.lateral);
      const Vec2 away = f.p - e.position;
      if (dot(away, away) > r2) continue;
      a.s0 = s;
      a.t0 = now;
      a.behaviour = Behaviour::flee;
      a.until = static_cast<float>(e.time_s + e.duration_s);
      a.event = index;
      // Wanderers leave their path (and shepherd members their group) for good.
      a.flags = static_cast<std::uint8_t>(a.flags & ~(kPedHurry | kPedWandering));
      if (dot(f.t * static_cast<double>(a.dir), away) < 0) {
        a.dir = static_cast<std::int8_t>(-a.dir);
        a.lateral = -a.lateral;
      }
      m.stats.flee_reactions += 1;
      if (!active) schedule(m, id);
    }
  }
}

}  // namespace cityforge::crowd
