// SPDX-License-Identifier: Apache-2.0
// Driving: each moving vehicle, independently and in parallel by chunk, reads the start-of-tick
// lane queues and computes its Intelligent Driver Model acceleration against the closest of its
// constraints: the vehicle ahead on its lane, or for the front vehicle the tail of the lanes
// ahead (across successors up to the look-ahead), a closed or ungranted lane end, a merge
// claimant, an obstacle, the leader on its lane-change target (the ghost slot), and a lower
// speed limit ahead. Positions are then clamped to the leaders' start-of-tick rears (leaders
// never move back, so gaps stay >= 0 whatever the tick length). Lane ends are crossed into
// the planned lane; a new one is planned (density-weighted or from the trip's route). Every
// lane_change_interval_s a vehicle weighs MOBIL lane changes; a chosen change reserves a ghost
// slot that the next tick's queues confirm or refuse.
// Based on: Treiber, Hennecke, Helbing (2000), "Congested traffic states in empirical
// observations and microscopic simulations" (IDM); Kesting, Treiber, Helbing (2007), "General
// lane-changing model MOBIL for car-following models".
#include <algorithm>
#include <cmath>
#include <limits>

#include "cityforge/core/assert.hpp"
#include "traffic/detail/processors.hpp"

namespace cityforge::traffic::detail {

float free_accel(const VehicleParams& p, float v, float v0) {
  const float r = v / std::max(v0, 0.1f);
  const float r2 = r * r;
  return p.max_accel_mps2 * (1.0f - r2 * r2);
}

float idm_accel(const VehicleParams& p, float v, float v0, float gap_m, float v_lead) {
  const float dv = v - v_lead;
  const float dyn =
      v * p.time_gap_s + v * dv / (2.0f * std::sqrt(p.max_accel_mps2 * p.comfort_decel_mps2));
  const float s_star = p.min_gap_m + std::max(0.0f, dyn);
  const float g = std::max(gap_m, 0.01f);
  const float q = s_star / g;
  return free_accel(p, v, v0) - p.max_accel_mps2 * q * q;
}

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

bool requires_grant(const Simulation::Impl& m, LaneId from, LaneId to) {
  return m.needs_grant[to] != 0U || (m.net.merge[to] != 0U && m.yields_into_merge[from] != 0U);
}

bool granted(const Simulation::Impl& m, LaneId lane, std::uint32_t self, LaneId to) {
  const Grant& g = m.grant[lane];
  return g.entity == self + 1 && g.lane == to;
}

/// The closest constraint ahead: IDM acceleration and the farthest the front may go.
struct Constraints {
  const VehicleParams& p;
  float v;
  float v0;
  float accel;
  float free_a = accel;  ///< The free-road acceleration it started from.
  float hard = kInf;     ///< In the vehicle's lane coordinates.
  float hard_speed = 0;

  void leader(float gap, float v_lead, float limit) {
    accel = std::min(accel, idm_accel(p, v, v0, gap, v_lead));
    if (limit < hard) {
      hard = limit;
      hard_speed = v_lead;
    }
  }
};

/// Obstacles on `lane` whose rear is ahead of s, as leaders moving at their speed; `off` is
/// where `lane` starts in the vehicle's lane coordinates. One reaching back past the vehicle's
/// front (put there, or reversing into it) holds the vehicle where it is.
void obstacles_ahead(const Simulation::Impl& m, LaneId lane, float off, float s,
                     Constraints& cons) {
  for (const Obstacle& ob : m.obstacles) {
    if (!ob.alive || ob.lane != lane) continue;
    const float rear = off + ob.s_m - ob.length_m;
    if (rear >= s - 0.01f) {
      cons.leader(rear - s, ob.speed_mps, rear);
    } else if (off + ob.s_m >= s) {
      cons.leader(0.0f, 0.0f, s);
    }
  }
}

struct Local {
  std::uint64_t lane_changes = 0;
  std::uint64_t stops = 0;
  std::uint64_t entries = 0;
  std::uint64_t yellow = 0;
  std::uint64_t red = 0;
  std::uint64_t clearing_red = 0;
  std::uint64_t emergency = 0;
  std::uint64_t trips = 0;
  std::uint64_t reroutes = 0;
  std::int64_t distance = 0;  ///< fixed20
  std::int64_t speed = 0;     ///< fixed20
  std::uint32_t own = 0;      ///< Rows on this rank's lanes.
};

}  // namespace

void drive_chunk(Simulation::Impl& m, const sim::TickContext& ctx, const sim::ChunkView& chunk) {
  const Network& net = m.net;
  const Config& cfg = m.config;
  const float tick_dt = cfg.dt_s;
  const auto ents = chunk.entities();
  const auto ls = chunk.write<LaneState>();
  const auto dr = chunk.write<Driver>();
  const auto lcs = chunk.write<LaneChange>();
  const std::span<Trip> trips = chunk.has<Trip>() ? chunk.write<Trip>() : std::span<Trip>{};
  const std::uint32_t base = m.chunk_base[chunk.ordinal()];
  const auto interval =
      std::max<std::uint64_t>(1, static_cast<std::uint64_t>(cfg.lane_change_interval_s / tick_dt));
  // Levels of detail: an `off` vehicle is driven on every off_every-th tick (staggered by id),
  // over all the ticks since it was last driven, as is a vehicle whose level rose meanwhile.
  // It is driven every tick near its lane's end, so lane ends, junctions and merges are met
  // at the tick's resolution: off-step driving happens only between them.
  const bool coarse = !m.moved_tick.empty();
  const auto tick32 = static_cast<std::uint32_t>(ctx.tick);
  const float step_s = tick_dt * static_cast<float>(m.off_every);
  std::uint32_t driven = 0;
  const float weather_speed = m.weather.speed_factor;
  Local local;
  sim::CommandWriter out = ctx.writer(chunk.ordinal());
  // Partitioned over ranks (share.cpp): only the vehicles on this rank's lanes are driven here
  // (the others' rows are the halo, or out of date), from the queues' list of them.
  const bool shared = m.ranks != nullptr;
  const std::vector<std::uint32_t>* own_rows =
      shared ? &m.chunk_own_rows[chunk.ordinal()] : nullptr;
  const std::size_t rows = shared ? own_rows->size() : ls.size();
  std::vector<std::uint32_t>& pooled = m.chunk_pooled[chunk.ordinal()];
  pooled.clear();

  for (std::size_t k = 0; k < rows; ++k) {
    const std::size_t i = shared ? (*own_rows)[k] : k;
    LaneState& st = ls[i];
    Driver& drv = dr[i];
    LaneChange& lc = lcs[i];
    Trip* trip = trips.empty() ? nullptr : &trips[i];
    const VehicleParams& P = m.params[drv.type];
    const std::uint32_t self = ents[i].index;
    const std::uint32_t row = base + static_cast<std::uint32_t>(i);
    const std::uint32_t slot = m.row_slot[row];
    CF_ASSERT(!shared || m.lane_part[st.lane] == m.part, "drive: a row not on this rank's lanes");
    ++local.own;
    // Ticks this step covers (1 but for a vehicle driven at level off, or just raised from it).
    std::uint32_t behind = 1;
    if (coarse) {
      behind = tick32 + 1U - m.moved_tick[self];  // Unsigned: correct across wrap-around.
      if (behind < m.off_every && (tick32 + self) % m.off_every != 0 && self < m.lod.size() &&
          m.lod[self] >= 3 && lc.target == kNoLane) {
        // Skipped only while nothing is within what it could drive in one off step: neither its
        // lane's end nor the rear of the vehicle ahead (its state is as of its last step).
        const float reach =
            st.speed_mps * step_s + 0.5f * P.max_accel_mps2 * step_s * step_s + P.min_gap_m + 2.0f;
        float room = net.length_m[st.lane] - st.s_m;
        bool held = false;  // Standing, and what holds it still stands.
        if (slot > m.lane_begin[st.lane]) {
          const QueueEntry& e = m.entries[slot - 1];
          room = std::min(room, e.s_m - e.length_m - st.s_m);
          held = e.speed_mps == 0 && e.accel_mps2 <= 0;
        } else {
          held = st.next == kNoLane ||
                 (requires_grant(m, st.lane, st.next) && !granted(m, st.lane, self, st.next));
        }
        for (const Obstacle& ob : m.obstacles) {  // An external vehicle ahead (live viewers').
          if (ob.alive && ob.lane == st.lane && ob.s_m >= st.s_m) {
            room = std::min(room, ob.s_m - ob.length_m - st.s_m);
            held = false;
          }
        }
        // A standing vehicle whose leader (or closed line) stands is driven again the tick that
        // changes, or at its next step; one that moves, while the road ahead is clear.
        if (room > reach || (held && st.speed_mps == 0 && st.accel_mps2 <= 0)) {
          local.speed += fixed20(st.speed_mps);
          continue;
        }
      }
      m.moved_tick[self] = tick32 + 1U;
    }
    ++driven;
    const float dt = tick_dt * static_cast<float>(behind);
    const LaneId start_lane = st.lane;
    LaneId lane = start_lane;
    float len = net.length_m[lane];
    const float s = st.s_m;
    const float v = st.speed_mps;

    // 1. Desired speed (weather included), lowered ahead of a slower next lane.
    const float speed_factor = drv.speed_factor * weather_speed;
    float v0 = net.speed_limit_mps[lane] * speed_factor;
    const float dist_end = len - s;
    if (st.next != kNoLane) {
      const float vn = net.speed_limit_mps[st.next] * speed_factor;
      v0 =
          std::min(v0, std::sqrt(vn * vn + 2.0f * P.comfort_decel_mps2 * std::max(dist_end, 0.0f)));
    }
    Constraints cons{P, v, v0, free_accel(P, v, v0)};

    // 2. The vehicle ahead, or for the front vehicle the lanes ahead.
    if (slot > m.lane_begin[lane]) {
      const QueueEntry& e = m.entries[slot - 1];
      const float rear = e.s_m - e.length_m;
      cons.leader(rear - s, e.speed_mps, rear);
    } else {
      const float look = std::max(cfg.look_ahead_min_m, v * cfg.look_ahead_s);
      const LaneId nx = st.next;
      // An obstacle on the next lane may reach back over this lane's end (closer than the line).
      if (nx != kNoLane) obstacles_ahead(m, nx, len, s, cons);
      if (nx == kNoLane || (requires_grant(m, lane, nx) && !granted(m, lane, self, nx))) {
        cons.leader(dist_end, 0.0f, len);
      } else {
        float off = len;
        LaneId cur = nx;
        for (int depth = 0; depth < 4; ++depth) {
          if (depth > 0) obstacles_ahead(m, cur, off, s, cons);
          if (net.merge[cur] != 0U && m.claim[cur].entity != 0 && m.claim[cur].entity != self + 1) {
            const float claimant_front = off - m.claim_dist_m[cur];
            if (claimant_front > s) {
              const float rear = claimant_front - m.claim_length_m[cur];
              cons.leader(rear - s, 0.0f, std::max(rear, s));
            }
          }
          if (queue_size(m, cur) > 0) {
            const QueueEntry& tail = m.entries[m.lane_end[cur] - 1];
            const float rear = off + tail.s_m - tail.length_m;
            cons.leader(rear - s, tail.speed_mps, rear);
            break;
          }
          off += net.length_m[cur];
          if (off - s > look) break;
          // The lane after: the planned next2 after next, else the only successor.
          LaneId n2 = kNoLane;
          if (depth == 0) {
            n2 = st.next2;
          } else if (net.succ_begin[cur + 1] - net.succ_begin[cur] == 1) {
            n2 = net.succ[net.succ_begin[cur]];
          }
          if (n2 == kNoLane) {
            if (depth == 0) cons.leader(off - s, 0.0f, off);  // Nothing planned: stop there.
            break;
          }
          if (requires_grant(m, cur, n2) && !granted(m, cur, self, n2)) {
            cons.leader(off - s, 0.0f, off);
            break;
          }
          cur = n2;
        }
      }
    }
    // 3. The leader on the lane-change target (the ghost slot's predecessor).
    if (lc.target != kNoLane) {
      const std::uint32_t gs = m.row_ghost[row];
      const float ratio = net.length_m[lc.target] / len;
      if (gs != kNone && gs > m.lane_begin[lc.target]) {
        const QueueEntry& e = m.entries[gs - 1];
        const float rear = (e.s_m - e.length_m) / ratio;
        cons.leader(rear - s, e.speed_mps, rear);
      }
      for (const Obstacle& ob : m.obstacles) {
        if (!ob.alive || ob.lane != lc.target) continue;
        const float rear = (ob.s_m - ob.length_m) / ratio;
        if (rear >= s - 0.01f) cons.leader(rear - s, ob.speed_mps, rear);
      }
    }
    // 4. Obstacles on this lane (those on the lanes ahead were met with the lanes ahead).
    obstacles_ahead(m, lane, 0.0f, s, cons);

    // 5. Integrate; never past a leader's start-of-tick rear. A step of several ticks on a free
    // road takes the free acceleration at its midpoint speed (IDM's falls with speed, so the
    // start's would overshoot); one of a tick is the plain ballistic update.
    if (behind > 1 && cons.accel == cons.free_a) {
      cons.accel = free_accel(P, std::max(v + 0.5f * cons.accel * dt, 0.0f), v0);
    }
    const float acc = std::max(cons.accel, -P.max_decel_mps2);
    float v_new = v + acc * dt;
    float s_new = 0;
    if (v_new < 0) {
      s_new = s - v * v / (2.0f * acc);
      v_new = 0;
    } else {
      s_new = s + 0.5f * (v + v_new) * dt;
    }
    if (s_new > cons.hard) {
      if (s_new - cons.hard > 0.25f) ++local.emergency;
      s_new = std::max(s, cons.hard);
      v_new = std::min(v_new, cons.hard_speed);
    }
    local.distance += fixed20(s_new - s);
    st.accel_mps2 = (v_new - v) / dt;

    // 6. Finish a lane change (also when the lane end comes first).
    if (lc.target != kNoLane) {
      lc.progress += dt / cfg.lane_change_duration_s;
      if (lc.progress >= 1.0f || s_new >= len) {
        const LaneId target = lc.target;
        s_new *= net.length_m[target] / len;
        lane = target;
        len = net.length_m[lane];
        lc = LaneChange{};
        ++local.lane_changes;
        if (trip != nullptr) {
          const auto& route = m.routes[self];
          if (trip->step + 1 < route.size() && route[trip->step + 1].lane == lane) ++trip->step;
        }
        st.lane = lane;
        plan_ahead(m, st, trip, self, ctx.tick);
      }
    }

    // 7. Cross lane ends into the planned lane.
    while (s_new > len) {
      const LaneId nx = st.next;
      if (nx == kNoLane || (requires_grant(m, lane, nx) && !granted(m, lane, self, nx))) {
        s_new = len;
        v_new = 0;
        ++local.emergency;
        break;
      }
      if (net.is(nx, roads::kIntersection)) {
        ++local.entries;
        // From a short link the vehicle is already inside a junction cluster (granted the
        // whole path at its entry): it clears, it does not enter.
        const bool clearing = m.short_link[lane] != 0U && !link_holds(m, lane, P.length_m);
        if (m.light[nx] == LightState::red) ++(clearing ? local.clearing_red : local.red);
        if (m.light[nx] == LightState::yellow) ++local.yellow;
      }
      s_new -= len;
      st.prev = lane;
      lane = nx;
      len = net.length_m[lane];
      st.lane = lane;
      if (trip != nullptr) {
        const auto& route = m.routes[self];
        if (trip->step + 1 < route.size() && route[trip->step + 1].lane == lane) {
          ++trip->step;
          plan_ahead(m, st, trip, self, ctx.tick);
        } else {
          drv.flags |= kDriverReroute;
          plan_ahead(m, st, nullptr, self, ctx.tick);
        }
      } else {
        shift_plan(m, st, nullptr, self, ctx.tick);
      }
    }
    st.lane = lane;
    st.s_m = s_new;
    st.speed_mps = v_new;
    // Onto another rank's lane: it goes there, whole, at the next tick's start (share.cpp; one
    // whose trip ends below is pooled on every rank instead).
    if (shared && m.lane_part[lane] != m.part) m.migrant[self] = 1;

    // 8. Stops and waiting.
    if (v_new < 0.1f) {
      drv.stopped_s += dt;
      if ((drv.flags & kDriverWasMoving) != 0U) {
        ++local.stops;
        drv.flags &= static_cast<std::uint8_t>(~kDriverWasMoving);
      }
    } else {
      drv.stopped_s = 0;
      if (v_new > 1.0f) drv.flags |= kDriverWasMoving;
    }
    local.speed += fixed20(v_new);

    // 9. A front vehicle kept waiting at a line that is not red (no room, no gap, a close next
    // junction out of phase) gives up on its plan after replan_after_s: roamers pick again,
    // trips reroute from another successor.
    if (drv.stopped_s > cfg.replan_after_s && lc.target == kNoLane && st.next != kNoLane &&
        lane == start_lane && slot == m.lane_begin[lane] && len - s_new < 6.0f &&
        m.light[st.next] != LightState::red && (ctx.tick + self) % 50 < behind &&
        !granted(m, lane, self, st.next)) {
      if (trip == nullptr) {
        plan_ahead(m, st, nullptr, self, ctx.tick * 7 + 3);
      } else {
        st.next = choose_next(m, lane, self, ctx.tick * 7 + 3);
        st.next2 = kNoLane;
        st.next3 = kNoLane;
        drv.flags |= kDriverReroute;
      }
    }

    // 10. Trips: arrival pools the vehicle; a blocked mandatory change gives up and reroutes.
    if (trip != nullptr) {
      const auto& route = m.routes[self];
      if (trip->step + 1 >= route.size() && lane == trip->destination && s_new >= 0.5f * len) {
        out.add(ents[i], Pooled{});
        if (shared) pooled.push_back(row);
        ++local.trips;
        continue;
      }
      const bool must_change = st.next == kNoLane && trip->step + 1 < route.size();
      if (must_change && lc.target == kNoLane && v_new < 0.1f && len - s_new < 15.0f) {
        drv.blocked_s += dt;
        if (drv.blocked_s > 20.0f) {
          drv.blocked_s = 0;
          drv.flags |= kDriverReroute;
          st.next = choose_next(m, lane, self, ctx.tick);
          st.next2 = kNoLane;
          st.next3 = kNoLane;
        }
      } else {
        drv.blocked_s = 0;
      }
      if ((drv.flags & kDriverReroute) != 0U) {
        drv.flags &= static_cast<std::uint8_t>(~kDriverReroute);
        ++local.reroutes;
        // Continue by density to the next lane, then follow a new route from there.
        Router& router = m.routers.local();
        std::vector<RouteStep> fresh;
        if (st.next != kNoLane) fresh = router.route(st.next, trip->destination);
        auto& r = m.routes[self];
        r.clear();
        r.push_back(RouteStep{lane, StepKind::start});
        if (!fresh.empty()) {
          fresh.front().kind = StepKind::follow;
          r.insert(r.end(), fresh.begin(), fresh.end());
        }
        trip->step = 0;
        if (fresh.empty()) {  // The destination cannot be reached from here: end the trip.
          out.add(ents[i], Pooled{});
          if (shared) pooled.push_back(row);
          continue;
        }
        plan_ahead(m, st, trip, self, ctx.tick);
      }
    }

    // 11. Lane changes (MOBIL): mandatory ones for trips, discretionary ones for roamers.
    if (lc.target != kNoLane || net.is(lane, roads::kIntersection)) continue;
    LaneId must = kNoLane;
    if (trip != nullptr && trip->step + 1 < m.routes[self].size()) {
      const RouteStep& nx = m.routes[self][trip->step + 1];
      if (nx.kind == StepKind::change_left || nx.kind == StepKind::change_right) must = nx.lane;
    }
    const std::uint64_t every =
        interval << (self < m.lod.size() ? std::min<std::uint8_t>(m.lod[self], 3) : 0U);
    const bool due = (ctx.tick + self) % every < behind;  // Came round in the ticks covered.
    if (must == kNoLane && (trip != nullptr || !due)) continue;
    const float remaining = len - s_new;
    if (must == kNoLane && remaining < v_new * cfg.lane_change_duration_s + 15.0f) continue;
    if (must != kNoLane && remaining < 0.5f) continue;
    // Needs the start-of-tick queues of the target: only valid while still on the same lane.
    if (lane != start_lane) continue;
    LaneId best = kNoLane;
    float best_gain = -kInf;
    for (const LaneId cand : {net.left[lane], net.right[lane]}) {
      if (cand == kNoLane || (must != kNoLane && cand != must)) continue;
      if (!net.is(cand, roads::kVehicle)) continue;
      const float sb = mapped_s(net, lane, cand, s_new);
      if (sb > net.length_m[cand] - 1.0f) continue;
      const std::uint32_t b = m.lane_begin[cand];
      const std::uint32_t e = m.lane_end[cand];
      const QueueEntry* first = m.entries.data() + b;
      const QueueEntry* last = m.entries.data() + e;
      const QueueEntry* pos =
          std::partition_point(first, last, [sb](const QueueEntry& q) { return q.s_m >= sb; });
      const QueueEntry* lead = pos > first ? pos - 1 : nullptr;
      const QueueEntry* fol = pos < last ? pos : nullptr;
      const float v0b = net.speed_limit_mps[cand] * speed_factor;
      float a_new = free_accel(P, v_new, v0b);
      if (lead != nullptr) {
        const float gap = lead->s_m - lead->length_m - sb;
        if (gap < 2.0f) continue;
        a_new = std::min(a_new, idm_accel(P, v_new, v0b, gap, lead->speed_mps));
      }
      // Obstacles on the target lane: none in the slot, the one ahead a leader like any other.
      bool blocked = false;
      for (const Obstacle& ob : m.obstacles) {
        if (!ob.alive || ob.lane != cand) continue;
        const float rear = ob.s_m - ob.length_m;
        if (rear >= sb) {
          if (rear - sb < 2.0f) blocked = true;
          a_new = std::min(a_new, idm_accel(P, v_new, v0b, rear - sb, ob.speed_mps));
        } else if (sb - P.length_m - ob.s_m < 2.0f + ob.speed_mps) {
          blocked = true;  // Alongside, or close behind with no time to brake for us.
        }
      }
      if (blocked) continue;
      float follower_gain = 0;
      if (fol != nullptr) {
        const float gap = sb - P.length_m - fol->s_m;
        if (gap < 2.0f) continue;
        const VehicleParams& pf = m.params[(fol->flags >> kQueueTypeShift) & 0xffU];
        const float af = idm_accel(pf, fol->speed_mps, net.speed_limit_mps[cand], gap, v_new);
        if (af < -cfg.safe_decel_mps2) continue;
        follower_gain = af - fol->accel_mps2;
      }
      const float bias =
          cand == net.right[lane] ? cfg.keep_right_bias_mps2 : -cfg.keep_right_bias_mps2;
      const float gain = a_new - acc + P.politeness * follower_gain + bias;
      if (must == kNoLane && gain <= cfg.mobil_threshold_mps2) continue;
      if (gain > best_gain) {
        best_gain = gain;
        best = cand;
      }
    }
    if (best != kNoLane) lc = LaneChange{best, 0.0f};
  }

  const std::uint32_t o = chunk.ordinal();
  m.chunk_distance[o] = local.distance;
  m.chunk_speed[o] = local.speed;
  m.chunk_driven[o] = driven;
  m.chunk_own[o] = local.own;
  m.counters.lane_changes += local.lane_changes;
  m.counters.stops += local.stops;
  m.counters.junction_entries += local.entries;
  m.counters.entries_on_yellow += local.yellow;
  m.counters.red_violations += local.red;
  m.counters.clearing_on_red += local.clearing_red;
  m.counters.emergency_stops += local.emergency;
  m.counters.trips_completed += local.trips;
  m.counters.reroutes += local.reroutes;
}

}  // namespace cityforge::traffic::detail
