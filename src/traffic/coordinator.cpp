// SPDX-License-Identifier: Apache-2.0
// The intersection coordinator (seeds/000, minutes 47-50). The front vehicle of an approach
// lane may enter a junction connector only with a grant. A grant is given when the signal
// allows it (green; yellow only to a vehicle too close to stop comfortably), no conflicting
// connector is occupied, granted or still being cleared by a vehicle's rear, no pedestrian is on
// a crosswalk it crosses, the exit lane has room for the vehicle (no blocking the box), a
// yielding movement (permissive turn, minor road) sees no priority traffic within yield_gap_s,
// and at stop signs the vehicle has stood at the line for stop_dwell_s. Grants are sticky until
// the vehicle enters, except that red revokes them and yellow revokes those that can still stop.
// Candidates are served in priority order: non-yielding first, then the longest waiting, then
// the closest, then by entity index. Merges outside junctions (on-ramps) work the same way with
// one claim per merge lane; priority vehicles keep a gap behind the claimant.
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>

#include "traffic/detail/processors.hpp"

namespace cityforge::traffic::detail {
namespace {

const VehicleParams& params_of(const Simulation::Impl& m, const QueueEntry& e) {
  return m.config.params[(e.flags >> kQueueTypeShift) & 0xffU];
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
  const QueueEntry& tail = m.entries[m.lane_begin[lane + 1] - 1];
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

struct Candidate {
  LaneId approach;
  const QueueEntry* e;
  float dist;
  bool yield;
};

void coordinate_junction(Simulation::Impl& m, std::uint32_t j) {
  const Network& net = m.net;
  const Config& cfg = m.config;
  const std::uint32_t cb = net.connector_begin[j];
  const std::uint32_t ce = net.connector_begin[j + 1];
  // 1. Occupied connectors and the space their vehicles will take on the exit lanes.
  for (std::uint32_t k = cb; k < ce; ++k) {
    const LaneId c = net.connectors[k];
    m.busy[c] = queue_size(m, c) > 0 ? 1 : 0;
    m.reserved_m[net.succ[net.succ_begin[c]]] = 0;
  }
  for (std::uint32_t k = cb; k < ce; ++k) {
    const LaneId c = net.connectors[k];
    const LaneId d = net.succ[net.succ_begin[c]];
    for (std::uint32_t q = m.lane_begin[c]; q < m.lane_begin[c + 1]; ++q) {
      const QueueEntry& e = m.entries[q];
      m.reserved_m[d] += e.length_m + params_of(m, e).min_gap_m;
    }
    // Rears still inside the junction keep their connector busy.
    for (std::uint32_t q = m.lane_begin[d + 1]; q > m.lane_begin[d]; --q) {
      const QueueEntry& e = m.entries[q - 1];
      if (e.s_m - e.length_m >= 0) break;
      if (e.prev != kNoLane && e.prev < net.lane_count() &&
          net.intersection[e.prev] == static_cast<std::int32_t>(j)) {
        m.busy[e.prev] = 1;
      }
    }
  }
  const auto room = [&](LaneId c, const QueueEntry& e) {
    const LaneId d = net.succ[net.succ_begin[c]];
    const float need = e.length_m + params_of(m, e).min_gap_m;
    if (net.length_m[d] < need) return queue_size(m, d) == 0 && m.reserved_m[d] == 0;
    return free_at_start(m, d) - m.reserved_m[d] >= need;
  };
  const auto take = [&](LaneId approach, const QueueEntry& e, LaneId c) {
    m.grant[approach] = Grant{e.entity + 1, c};
    m.busy[c] = 1;
    m.reserved_m[net.succ[net.succ_begin[c]]] += e.length_m + params_of(m, e).min_gap_m;
  };

  // 2. Existing grants stay while their vehicle is still the front one heading there and the
  // light allows it.
  std::vector<Candidate> candidates;
  for (std::uint32_t k = m.approach_begin[j]; k < m.approach_begin[j + 1]; ++k) {
    const LaneId a = m.approaches[k];
    const QueueEntry* e = front(m, a);
    Grant& g = m.grant[a];
    const float dist = e != nullptr ? net.length_m[a] - e->s_m : 0;
    if (g.entity != 0) {
      if (e != nullptr && g.entity == e->entity + 1 && g.lane == e->next &&
          light_allows(m, g.lane, *e, dist)) {
        m.busy[g.lane] = 1;
        m.reserved_m[net.succ[net.succ_begin[g.lane]]] += e->length_m + params_of(m, *e).min_gap_m;
        continue;
      }
      g = Grant{};
    }
    if (e == nullptr || e->next == kNoLane ||
        net.intersection[e->next] != static_cast<std::int32_t>(j)) {
      continue;
    }
    const bool yield = net.is(e->next, roads::kYield);
    const float reach = yield ? 15.0f : cfg.request_distance_m;
    const float braking =
        e->speed_mps * e->speed_mps / (2.0f * params_of(m, *e).comfort_decel_mps2);
    if (dist > std::max(reach, braking + 5.0f)) continue;
    candidates.push_back(Candidate{a, e, dist, yield});
  }
  // 3. Serve the candidates in priority order.
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& x, const Candidate& y) {
    if (x.yield != y.yield) return !x.yield;
    if (x.e->stopped_s != y.e->stopped_s) return x.e->stopped_s > y.e->stopped_s;
    if (x.dist != y.dist) return x.dist < y.dist;
    return x.e->entity < y.e->entity;
  });
  const bool stop_sign = net.control[j] == roads::Control::stop;
  for (const Candidate& cand : candidates) {
    const QueueEntry& e = *cand.e;
    const LaneId c = e.next;
    if (!light_allows(m, c, e, cand.dist)) continue;
    if (stop_sign && cand.yield && (e.stopped_s < cfg.stop_dwell_s || cand.dist > 5.0f)) continue;
    bool ok = true;
    for (std::uint32_t q = net.conflict_begin[c]; ok && q < net.conflict_begin[c + 1]; ++q) {
      ok = m.busy[net.conflicts[q]] == 0;
    }
    for (std::uint32_t q = net.crosswalk_begin[c]; ok && q < net.crosswalk_begin[c + 1]; ++q) {
      ok = m.crosswalk_busy[net.crosswalks[q]] == 0;
    }
    if (ok && cand.yield) {
      // Priority traffic heading into a conflicting movement must be far enough away.
      for (std::uint32_t q = net.conflict_begin[c]; ok && q < net.conflict_begin[c + 1]; ++q) {
        const LaneId c2 = net.conflicts[q];
        if (net.is(c2, roads::kYield) || m.light[c2] == LightState::red) continue;
        const LaneId a2 = net.pred[net.pred_begin[c2]];
        const QueueEntry* f = front(m, a2);
        if (f == nullptr || f->next != c2) continue;
        const float d2 = net.length_m[a2] - f->s_m;
        ok = d2 > 60.0f || (d2 > 3.0f && d2 / std::max(f->speed_mps, 0.5f) >= cfg.yield_gap_s);
      }
    }
    if (ok && room(c, e)) take(cand.approach, e, c);
  }
}

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
  const std::uint32_t junctions = m.net.intersection_count();
  tbb::parallel_for(std::uint32_t{0}, junctions, [&](std::uint32_t j) {
    if (m.coordinated[j] != 0U) {
      coordinate_junction(m, j);
    }
  });
  for (std::size_t k = 0; k < m.merge_lanes.size(); ++k)
    coordinate_merge(m, k);
}

}  // namespace cityforge::traffic::detail
