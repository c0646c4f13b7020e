// SPDX-License-Identifier: Apache-2.0
// The intersection coordinator (seeds/000, minutes 47-50). The first vehicle heading for the
// end of an approach lane may enter a junction connector only with a grant. A grant is given
// when the signal allows it (green; yellow only to a vehicle too close to stop comfortably), no
// conflicting movement is granted or still has a vehicle short of their crossing point, no
// pedestrian is on a crosswalk it crosses, the exit lane has room for the vehicle (no blocking
// the box), a yielding movement (permissive turn, minor road) sees no moving priority traffic
// within yield_gap_s, and at stop signs the vehicle has stood at the line for stop_dwell_s.
// Grants are sticky until the vehicle enters, except that red revokes them and yellow revokes
// those that can still stop. Candidates are served in priority order: non-yielding first, then
// the longest waiting, then the closest, then by entity index.
// Junctions joined by a link too short to hold a vehicle (double junctions where two roads
// cross close together) are coordinated as one cluster: a vehicle whose path runs through such
// a link is granted both movements at once or neither, so no vehicle ever waits inside one
// junction for the other (which would lock both). Merges outside junctions (on-ramps) work the
// same way with one claim per merge lane; priority vehicles keep a gap behind the claimant.
// Obstacles (the live viewer's car, a crash) standing on a connector, or with their rear still
// in it, block the movements that cross it like a vehicle there would: cross traffic is not let
// in, and a grant is withdrawn from a vehicle that can still stop. Without obstacles nothing
// here looks at them (runs without a player are unchanged).
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>

#include "traffic/detail/conflict_points.hpp"
#include "traffic/detail/processors.hpp"

namespace cityforge::traffic::detail {
namespace {

constexpr float kClearM = 2.0f;  // Past a crossing by this much, a rear no longer blocks it.

const VehicleParams& params_of(const Simulation::Impl& m, const QueueEntry& e) {
  return m.params[(e.flags >> kQueueTypeShift) & 0xffU];  // Weather applied.
}

/// The front entry of a lane, or null when empty or a ghost.
const QueueEntry* front(const Simulation::Impl& m, LaneId lane) {
  if (queue_size(m, lane) == 0) return nullptr;
  const QueueEntry& e = m.entries[m.lane_begin[lane]];
  return (e.flags & kQueueGhost) != 0U ? nullptr : &e;
}

/// Free length at the start of a lane: up to its last vehicle's rear, or the whole lane.
float free_at_start(const Simulation::Impl& m, LaneId lane) {
  const std::uint32_t n = queue_size(m, lane);
  if (n == 0) return m.net.length_m[lane];
  const QueueEntry& tail = m.entries[m.lane_end[lane] - 1];
  return tail.s_m - tail.length_m;
}

bool can_stop(const Simulation::Impl& m, const QueueEntry& e, float dist) {
  const float b = params_of(m, e).comfort_decel_mps2;
  return dist >= e.speed_mps * e.speed_mps / (2.0f * b) + 1.0f;
}

/// Whether the light lets this vehicle go now.
bool light_allows(const Simulation::Impl& m, LaneId c, const QueueEntry& e, float dist) {
  switch (m.light[c]) {
    case LightState::off:
    case LightState::green:
      return true;
    case LightState::yellow:
      return !can_stop(m, e, dist);
    case LightState::red:
      return false;
  }
  return false;
}

/// Seconds connector c stays green or yellow from now (a large number when it has no signal,
/// 0 when it is red).
double green_left_s(const Simulation::Impl& m, LaneId c) {
  const Network& net = m.net;
  const std::int32_t j = net.intersection[c];
  const std::int32_t k = j >= 0 ? net.signal_of[static_cast<std::uint32_t>(j)] : -1;
  if (k < 0 || m.light[c] == LightState::off) return 1e9;
  if (m.light[c] == LightState::red) return 0;
  const roads::SignalPlan& plan = net.signals[static_cast<std::size_t>(k)];
  const auto [i, t] = plan_clock(plan, m.time_s);
  if (i == kNone) return 0;
  // Walk forward while c stays green (a green continued into the next phase skips clearance).
  double left = -t;
  for (std::size_t n = 0; n < plan.phases.size(); ++n) {
    const roads::Phase& p = plan.phases[(i + n) % plan.phases.size()];
    if (!std::binary_search(p.green.begin(), p.green.end(), c)) break;
    const roads::Phase& q = plan.phases[(i + n + 1) % plan.phases.size()];
    const bool continues = std::binary_search(q.green.begin(), q.green.end(), c);
    left += p.green_s + (continues ? p.yellow_s + p.all_red_s : p.yellow_s);
    if (!continues) break;
  }
  return std::max(left, 0.0);
}

/// The first vehicle heading for the end of lane `a`: on it, or (when lanes are short) on a
/// lane feeding it (level 1) or feeding that one (level 2) with a plan through `a`.
struct Approach {
  const QueueEntry* e = nullptr;
  LaneId lane = kNoLane;  ///< Where the vehicle is.
  LaneId want = kNoLane;  ///< The lane it plans after `a`.
  float dist = 0;         ///< To a's end.
  int level = 0;
};

/// With `holder` (entity index + 1, as in a Grant), only that vehicle: several may be heading
/// for a lane from different lanes before it, and a grant stays with the one it was given to.
Approach approaching(const Simulation::Impl& m, LaneId a, std::uint32_t holder = 0) {
  const Network& net = m.net;
  const auto other = [&](const QueueEntry* f) { return holder != 0 && f->entity + 1 != holder; };
  Approach out;
  if (queue_size(m, a) > 0) {
    const QueueEntry& e = m.entries[m.lane_begin[a]];
    if ((e.flags & kQueueGhost) == 0U && !other(&e)) {
      out = Approach{&e, a, e.next, net.length_m[a] - e.s_m, 0};
    }
    return out;
  }
  for (std::uint32_t q = net.pred_begin[a]; q < net.pred_begin[a + 1]; ++q) {
    const LaneId p = net.pred[q];
    const QueueEntry* f = front(m, p);
    if (f == nullptr || f->next != a || other(f)) continue;
    const float d = net.length_m[a] + net.length_m[p] - f->s_m;
    if (out.e == nullptr || d < out.dist || (d == out.dist && f->entity < out.e->entity)) {
      out = Approach{f, p, f->next2, d, 1};
    }
  }
  if (out.e != nullptr) return out;
  for (std::uint32_t q = net.pred_begin[a]; q < net.pred_begin[a + 1]; ++q) {
    const LaneId p = net.pred[q];
    if (queue_size(m, p) > 0) continue;
    for (std::uint32_t r = net.pred_begin[p]; r < net.pred_begin[p + 1]; ++r) {
      const LaneId pp = net.pred[r];
      const QueueEntry* f = front(m, pp);
      if (f == nullptr || f->next != p || f->next2 != a || other(f)) continue;
      const float d = net.length_m[a] + net.length_m[p] + net.length_m[pp] - f->s_m;
      if (out.e == nullptr || d < out.dist || (d == out.dist && f->entity < out.e->entity)) {
        out = Approach{f, pp, f->next3, d, 2};
      }
    }
  }
  return out;
}

/// A request: connector c1 from approach a, and for a path through a short link d, connector
/// c2 of the next junction (else kNoLane).
struct Candidate {
  LaneId a;
  const QueueEntry* e;
  LaneId c1;
  LaneId d;
  LaneId c2;
  LaneId after;  ///< The lane planned after c1's exit (single movements), or kNoLane.
  float dist;
  bool yield;
};

class Cluster {
 public:
  Cluster(Simulation::Impl& m, std::uint32_t k) : m_(m), net_(m.net), k_(k) {}

  void run(std::span<const std::uint32_t> junctions) {
    release_hanger();
    // 1. Exit space taken by vehicles on the connectors; grants start empty.
    for (const std::uint32_t j : junctions) {
      for (std::uint32_t k = net_.connector_begin[j]; k < net_.connector_begin[j + 1]; ++k) {
        const LaneId c = net_.connectors[k];
        m_.busy[c] = 0;
        m_.reserved_m[exit_of(c)] = 0;
      }
    }
    for (const std::uint32_t j : junctions) {
      for (std::uint32_t k = net_.connector_begin[j]; k < net_.connector_begin[j + 1]; ++k) {
        const LaneId c = net_.connectors[k];
        for (std::uint32_t q = m_.lane_begin[c]; q < m_.lane_end[c]; ++q) {
          m_.reserved_m[exit_of(c)] += need(m_.entries[q]);
        }
      }
    }
    // 2. Existing grants: plain approaches first, then the short links, whose grants to a
    // vehicle still before the first junction live only as long as its first grant.
    std::vector<Candidate> candidates;
    for (const int pass : {0, 1}) {
      for (const std::uint32_t j : junctions) {
        for (std::uint32_t k = m_.approach_begin[j]; k < m_.approach_begin[j + 1]; ++k) {
          const LaneId a = m_.approaches[k];
          if ((m_.short_link[a] != 0U) != (pass == 1)) continue;
          keep_or_request(a, j, candidates);
        }
      }
    }
    // 3. Serve the requests in priority order.
    std::sort(candidates.begin(), candidates.end(), [](const Candidate& x, const Candidate& y) {
      if (x.yield != y.yield) return !x.yield;
      if (x.e->stopped_s != y.e->stopped_s) return x.e->stopped_s > y.e->stopped_s;
      if (x.dist != y.dist) return x.dist < y.dist;
      return x.e->entity < y.e->entity;
    });
    for (const Candidate& cand : candidates)
      serve(cand);
  }

 private:
  LaneId exit_of(LaneId c) const { return net_.succ[net_.succ_begin[c]]; }

  /// The hanger slot frees once its vehicle is neither granted its connector, nor on it, nor
  /// on the link after it.
  void release_hanger() {
    Grant& h = m_.hanger[k_];
    if (h.entity == 0) return;
    const auto on = [&](LaneId l) {
      for (std::uint32_t q = m_.lane_begin[l]; q < m_.lane_end[l]; ++q) {
        if (m_.entries[q].entity + 1 == h.entity) return true;
      }
      return false;
    };
    bool present = on(h.lane) || on(exit_of(h.lane));
    for (std::uint32_t q = net_.pred_begin[h.lane]; q < net_.pred_begin[h.lane + 1]; ++q) {
      const Grant& g = m_.grant[net_.pred[q]];
      present = present || (g.entity == h.entity && g.lane == h.lane);
    }
    if (!present) h = Grant{};
  }
  float need(const QueueEntry& e) const { return e.length_m + params_of(m_, e).min_gap_m; }

  void keep_or_request(LaneId a, std::uint32_t j, std::vector<Candidate>& candidates) {
    Grant& g = m_.grant[a];
    Approach ap = approaching(m_, a);
    if (g.entity != 0 && ap.e != nullptr && ap.e->entity + 1 != g.entity) {
      const Approach held = approaching(m_, a, g.entity);
      if (held.e != nullptr) ap = held;
    }
    if (g.entity != 0) {
      const bool mine = ap.e != nullptr && g.entity == ap.e->entity + 1 && g.lane == ap.want;
      // A vehicle already inside the first junction of a through path keeps its second grant.
      const bool committed = m_.short_link[a] != 0U && ap.level <= 1 && ap.e != nullptr &&
                             !link_holds(m_, a, ap.e->length_m);
      bool keep = mine && (committed || light_allows(m_, g.lane, *ap.e, ap.dist));
      // An obstacle moved across the movement (a player's car driving into the junction):
      // the grant goes when the vehicle can still stop before the line.
      if (keep && !committed && obstacle_across(g.lane) && can_stop(m_, *ap.e, ap.dist)) {
        keep = false;
      }
      if (keep && ap.level == 2) {  // A through path: only with its first movement.
        keep = m_.grant[ap.lane].entity == g.entity;
      }
      // The first movement of a through path holds only while the second one may go too.
      const LaneId link = keep ? exit_of(g.lane) : kNoLane;
      if (keep && m_.short_link[link] != 0U && m_.grant[link].entity == g.entity) {
        const float dist2 = ap.dist + net_.length_m[g.lane] + net_.length_m[link];
        if (!light_allows(m_, m_.grant[link].lane, *ap.e, dist2)) {
          keep = false;
          m_.grant[link] = Grant{};
        }
      }
      if (keep) {
        m_.busy[g.lane] = 1;
        m_.reserved_m[exit_of(g.lane)] += need(*ap.e);
        if (ap.level == 2) m_.reserved_m[a] += need(*ap.e);
        return;
      }
      g = Grant{};
    }
    if (ap.e == nullptr || ap.level == 2 || ap.want == kNoLane ||
        net_.intersection[ap.want] != static_cast<std::int32_t>(j)) {
      return;
    }
    const bool yield = net_.is(ap.want, roads::kYield);
    const float reach = yield ? 15.0f : m_.config.request_distance_m;
    const QueueEntry& e = *ap.e;
    const float braking = e.speed_mps * e.speed_mps / (2.0f * params_of(m_, e).comfort_decel_mps2);
    if (ap.dist > std::max(reach, braking + 5.0f)) return;
    const LaneId d = exit_of(ap.want);
    Candidate c{a, ap.e, ap.want, kNoLane, kNoLane, kNoLane, ap.dist, yield};
    if (ap.level == 0 && e.next2 == d) c.after = e.next3;
    // A path through a short link into the next junction is requested whole, unless the link
    // holds the vehicle and the next movement is red: it waits there for its green. (With the
    // next movement green it must get through both, or it could sit on the link into the red
    // and block the first junction's later movements into the link.)
    const bool through = m_.short_link[d] != 0U && e.next2 == d &&
                         (!link_holds(m_, d, e.length_m) ||
                          (e.next3 != kNoLane && m_.light[e.next3] != LightState::red));
    if (ap.level == 0 && through && e.next3 != kNoLane && m_.needs_grant[e.next3] != 0U) {
      c.d = d;
      c.c2 = e.next3;
    }
    // Into a short link only as a whole path (a vehicle never waits inside a junction).
    if (c.c2 == kNoLane && through) return;
    candidates.push_back(c);
  }

  /// Whether an obstacle stands on connector c2 (or on its exit lane with its rear still in
  /// the junction) short of arc length `cross` along c2.
  bool obstacle_on(LaneId c2, float cross) const {
    for (const Obstacle& ob : m_.obstacles) {
      if (!ob.alive) continue;
      const float rear = ob.s_m - ob.length_m;
      if (ob.lane == c2 && rear < cross) return true;
      if (rear < 0 && ob.lane == exit_of(c2) && net_.length_m[c2] + rear < cross) return true;
    }
    return false;
  }

  /// Whether an obstacle stands in the way of movement c: on a conflicting connector, short of
  /// their crossing.
  bool obstacle_across(LaneId c) const {
    if (m_.obstacles.empty()) return false;
    for (std::uint32_t q = net_.conflict_begin[c]; q < net_.conflict_begin[c + 1]; ++q) {
      const LaneId c2 = net_.conflicts[q];
      if (obstacle_on(c2, conflict_point(net_, c2, c) + kClearM)) return true;
    }
    return false;
  }

  /// A conflicting movement c2 blocks c while it is granted, or while a vehicle on it (or a
  /// rear still on it, the front already on its exit lane) or an obstacle has not cleared their
  /// crossing.
  bool blocked_by(LaneId c, LaneId c2) const {
    if (m_.busy[c2] != 0U) return true;
    const float cross = conflict_point(net_, c2, c) + kClearM;
    if (!m_.obstacles.empty() && obstacle_on(c2, cross)) return true;
    if (queue_size(m_, c2) > 0) {
      const QueueEntry& last = m_.entries[m_.lane_end[c2] - 1];
      if (last.s_m - last.length_m < cross) return true;
    }
    const LaneId d2 = exit_of(c2);
    for (std::uint32_t q = m_.lane_end[d2]; q > m_.lane_begin[d2]; --q) {
      const QueueEntry& e = m_.entries[q - 1];
      const float rear = e.s_m - e.length_m;
      if (rear >= 0) break;
      if (e.prev == c2 && net_.length_m[c2] + rear < cross) return true;
    }
    return false;
  }

  /// Whether movement c (of junction j) may start for vehicle e at `dist` from its line.
  bool movement_ok(LaneId c, const QueueEntry& e, float dist, bool stop_here) const {
    if (!light_allows(m_, c, e, dist)) return false;
    const auto j = static_cast<std::uint32_t>(net_.intersection[c]);
    const bool yield = net_.is(c, roads::kYield);
    if (stop_here && yield && net_.control[j] == roads::Control::stop &&
        (e.stopped_s < m_.config.stop_dwell_s || dist > 5.0f)) {
      return false;
    }
    for (std::uint32_t q = net_.conflict_begin[c]; q < net_.conflict_begin[c + 1]; ++q) {
      if (blocked_by(c, net_.conflicts[q])) return false;
    }
    for (std::uint32_t q = net_.crosswalk_begin[c]; q < net_.crosswalk_begin[c + 1]; ++q) {
      if (m_.crosswalk_busy[net_.crosswalks[q]] != 0U) return false;
    }
    if (!yield) return true;
    // Moving priority traffic heading into a conflicting movement must be far enough away. A
    // priority vehicle standing at its line without a grant cannot go before this one.
    for (std::uint32_t q = net_.conflict_begin[c]; q < net_.conflict_begin[c + 1]; ++q) {
      const LaneId c2 = net_.conflicts[q];
      if (net_.is(c2, roads::kYield) || m_.light[c2] == LightState::red) continue;
      const Approach f = approaching(m_, net_.pred[net_.pred_begin[c2]]);
      if (f.e == nullptr || f.want != c2) continue;
      if (f.e->speed_mps < 0.5f && f.dist < 6.0f) continue;
      if (f.dist <= 60.0f && f.dist / std::max(f.e->speed_mps, 0.5f) < m_.config.yield_gap_s) {
        return false;
      }
    }
    return true;
  }

  /// Whether exit lane d has room for the whole vehicle. A lane shorter than that (a stub
  /// before a dead end's turnaround) needs room on the lane after it too, when known and free
  /// of grants: else the vehicle would wait with its rear in the junction.
  bool room(LaneId d, const QueueEntry& e, LaneId after) const {
    const float n = need(e);
    if (net_.length_m[d] >= n) return free_at_start(m_, d) - m_.reserved_m[d] >= n;
    if (queue_size(m_, d) != 0 || m_.reserved_m[d] != 0) return false;
    return after == kNoLane || m_.needs_grant[after] != 0U ||
           free_at_start(m_, after) >= std::min(n - net_.length_m[d], net_.length_m[after]);
  }

  void serve(const Candidate& cand) {
    const QueueEntry& e = *cand.e;
    if (!movement_ok(cand.c1, e, cand.dist, true)) return;
    if (cand.c2 == kNoLane) {
      if (!room(exit_of(cand.c1), e, cand.after)) return;
    } else {
      if (queue_size(m_, cand.d) != 0 || m_.reserved_m[cand.d] != 0) return;
      if (!whole_path_ok(cand)) {
        // Last resort for a vehicle too long for the link whose path has no usable window
        // in the two plans: after waiting replan_after_s it may wait on the link with its rear
        // in this junction, one such vehicle per cluster at a time (two could block each
        // other's second movements for good).
        Grant& h = m_.hanger[k_];
        if (h.entity != 0 || e.stopped_s < m_.config.replan_after_s) return;
        h = Grant{e.entity + 1, cand.c1};
        m_.reserved_m[cand.d] += need(e);
      } else {
        m_.grant[cand.d] = Grant{e.entity + 1, cand.c2};
        m_.busy[cand.c2] = 1;
        m_.reserved_m[cand.d] += need(e);
        m_.reserved_m[exit_of(cand.c2)] += need(e);
      }
    }
    m_.grant[cand.a] = Grant{e.entity + 1, cand.c1};
    m_.busy[cand.c1] = 1;
    if (cand.c2 == kNoLane) m_.reserved_m[exit_of(cand.c1)] += need(e);
  }

  /// Whether both movements of a path through a short link may start now.
  bool whole_path_ok(const Candidate& cand) const {
    const QueueEntry& e = *cand.e;
    const float dist2 = cand.dist + net_.length_m[cand.c1] + net_.length_m[cand.d];
    if (!movement_ok(cand.c2, e, dist2, false) || !room(exit_of(cand.c2), e, kNoLane)) {
      return false;
    }
    // It must reach the second junction while its light still lets it in (accelerating
    // from its speed now, a second to spare).
    const float a = params_of(m_, e).max_accel_mps2;
    const double eta =
        (std::sqrt(e.speed_mps * e.speed_mps + 2.0f * a * dist2) - e.speed_mps) / a + 1.0;
    return green_left_s(m_, cand.c2) >= eta;
  }

  Simulation::Impl& m_;
  const Network& net_;
  std::uint32_t k_;  ///< Cluster index.
};

void coordinate_merge(Simulation::Impl& m, std::size_t k) {
  const Network& net = m.net;
  const LaneId d = m.merge_lanes[k];
  Grant& claim = m.claim[d];
  // 1. A claim holds until its vehicle is on the merge lane (or gave up on it).
  if (claim.entity != 0) {
    bool held = false;
    for (const LaneId y : m.merge_yielding[k]) {
      const QueueEntry* e = front(m, y);
      if (e != nullptr && e->entity + 1 == claim.entity && e->next == d) {
        held = true;
        m.claim_dist_m[d] = net.length_m[y] - e->s_m;
        m.grant[y] = Grant{claim.entity, d};
      }
    }
    if (held) return;
    for (const LaneId y : m.merge_yielding[k]) {
      if (m.grant[y].lane == d) m.grant[y] = Grant{};
    }
    claim = Grant{};
  }
  // 2. The closest yielding vehicle may go when the merge lane has room and priority traffic is
  // at least yield_gap_s from the merge point.
  const QueueEntry* best = nullptr;
  LaneId best_lane = kNoLane;
  float best_dist = 0;
  for (const LaneId y : m.merge_yielding[k]) {
    const QueueEntry* e = front(m, y);
    if (e == nullptr || e->next != d) continue;
    const float dist = net.length_m[y] - e->s_m;
    if (dist > m.config.request_distance_m) continue;
    if (best == nullptr || dist < best_dist || (dist == best_dist && e->entity < best->entity)) {
      best = e;
      best_lane = y;
      best_dist = dist;
    }
  }
  if (best == nullptr) return;
  const float need = best->length_m + params_of(m, *best).min_gap_m + 2.0f;
  if (free_at_start(m, d) < need) return;
  const float own_eta = best_dist / std::max(best->speed_mps, 1.0f);
  for (const LaneId p : m.merge_priority[k]) {
    // The nearest priority vehicle on p, or on a lane feeding p.
    float dist = -1;
    float speed = 0;
    if (const QueueEntry* f = front(m, p)) {
      dist = net.length_m[p] - f->s_m;
      speed = f->speed_mps;
    } else {
      for (std::uint32_t q = net.pred_begin[p]; q < net.pred_begin[p + 1]; ++q) {
        const LaneId pp = net.pred[q];
        const QueueEntry* f2 = front(m, pp);
        if (f2 == nullptr || f2->next != p) continue;
        const float d2 = net.length_m[pp] - f2->s_m + net.length_m[p];
        if (dist < 0 || d2 < dist) {
          dist = d2;
          speed = f2->speed_mps;
        }
      }
    }
    if (dist < 0) continue;
    if (dist / std::max(speed, 0.5f) < m.config.yield_gap_s + own_eta && dist < 150.0f) return;
  }
  claim = Grant{best->entity + 1, d};
  m.claim_dist_m[d] = best_dist;
  m.claim_length_m[d] = best->length_m;
  m.grant[best_lane] = Grant{best->entity + 1, d};
}

}  // namespace

void coordinate(Simulation::Impl& m) {
  const auto clusters = static_cast<std::uint32_t>(m.cluster_begin.size() - 1);
  const bool shared = m.ranks != nullptr;
  tbb::parallel_for(std::uint32_t{0}, clusters, [&](std::uint32_t k) {
    // Shared over ranks: each cluster is served by the rank of its junctions (share.cpp).
    if (shared && m.cluster_part[k] != m.part) return;
    Cluster(m, k).run(
        std::span<const std::uint32_t>(m.cluster_junctions.data() + m.cluster_begin[k],
                                       m.cluster_begin[k + 1] - m.cluster_begin[k]));
  });
  // Over ranks, a merge is served by the rank of its lanes (the partition keeps a merge lane, its
  // feeders and theirs together), then the ranks exchange what they granted.
  for (std::size_t k = 0; k < m.merge_lanes.size(); ++k) {
    if (!shared || m.lane_part[m.merge_lanes[k]] == m.part) coordinate_merge(m, k);
  }
  if (shared) exchange_grants(m);
}

}  // namespace cityforge::traffic::detail
