// SPDX-License-Identifier: Apache-2.0
// SPDX-License-Identifier: Apache-2.0
// The crowd shared over ranks (Crowd::share; docs/crowd.md "Over MPI ranks"). Every rank holds
// the whole crowd and runs the tick's cheap, order-sensitive steps itself (events, weather,
// hazards, levels of detail, the low agents, the neighbour map's swap), from the same state, so
// they agree. The full-fidelity update (behaviour, avoidance queries, motion: the tick's costly
// part) is split by geography: each agent is updated by the rank of the pedestrian lane it is
// on, and the pedestrian lanes follow their block's rank (traffic::partition_network). Each agent's
// update reads last tick's neighbour map and writes only its own record, pool slot, goal and
// route, so a rank needs nothing from the others during it. Then each rank sends each agent it
// updated, as the point it inserted into this tick's map, to the ranks whose agents may meet it
// (the halo of its lane), and an agent that walked onto another rank's lane whole to that rank,
// which updates it from the next tick. The others' records are made current on every rank (a
// whole exchange, sync_whole) only before a tick that needs every agent, or when the caller
// gathers (a recording frame). The map sorts every query's answer by id, so the order in which
// a rank inserted the items changes nothing: the state is the same for any rank count, bit for
// bit.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cityforge/core/polyline.hpp"
#include "cityforge/core/spatial_hash.hpp"
#include "crowd/detail/state.hpp"

namespace cityforge::crowd {

namespace {

/// The fixed part of one updated agent's message.
struct AgentRecord {
  std::uint32_t id = 0;
  std::uint32_t slot = 0;
  Agent agent;
  SlotState state;
  float x = 0;  // What it inserted into this tick's neighbour map (the map keeps floats).
  float y = 0;
};

/// With goals: the goal, and the route either whole (redrawn this tick) or as its new length
/// (steps only leave its front).
struct GoalRecord {
  WalkPoint goal;
  std::uint32_t drawn = 0;
  std::uint32_t route_size = 0;
  std::uint32_t whole = 0;
};

[[noreturn]] void fail(const Crowd::Impl& m, const std::string& what) {
  std::fprintf(stderr, "error: rank %d: crowd exchange: %s\n", m.ranks->rank(), what.c_str());
  m.ranks->abort(3);
  std::abort();  // Not reached: Ranks::abort ends the job.
}

/// The received agents (share_batch) into this tick's map.
void insert_received(Crowd::Impl& m) {
  InsertBatch& batch = m.share_batch;
  if (m.hash.insert(batch.ids, batch.p, batch.v) != batch.ids.size())
    fail(m, "the neighbour map is full");
  batch.ids.clear();
  batch.p.clear();
  batch.v.clear();
}

void add_count(Crowd::Impl& m, std::uint64_t queries, std::uint64_t reached) {
  m.queries.fetch_add(queries, std::memory_order_relaxed);
  m.goals_reached.fetch_add(reached, std::memory_order_relaxed);
}

/// Writes a received agent's record (and with goals its goal and route) into this rank's crowd.
void write_record(Crowd::Impl& m, const AgentRecord& rec) {
  m.agents[rec.id] = rec.agent;
  m.slots[rec.slot] = rec.state;
  m.share_point[rec.id] = {rec.x, rec.y};
}

void read_goal(Crowd::Impl& m, ByteReader& in, std::uint32_t id, int from,
               std::vector<WalkStep>& steps) {
  GoalRecord g;
  if (!in.get(g)) fail(m, "a short goal record from rank " + std::to_string(from));
  m.goals[id] = g.goal;
  m.goals_drawn[id] = g.drawn;
  std::vector<WalkStep>& route = m.routes[id];
  if (g.whole != 0U) {
    if (!in.get_vector(steps)) fail(m, "a short route from rank " + std::to_string(from));
    route = steps;
  } else if (g.route_size <= route.size()) {
    route.erase(route.begin(),
                route.begin() + static_cast<std::ptrdiff_t>(route.size() - g.route_size));
  } else {
    fail(m, "agent " + std::to_string(id) + "'s route is longer on rank " + std::to_string(from) +
                " without a goal drawn");
  }
}

void check_record(const Crowd::Impl& m, const AgentRecord& rec, int from, int lane_rank) {
  if (rec.id >= m.agents.size() || rec.slot >= m.slots.size() ||
      rec.agent.lane >= m.lane_rank.size() || m.pool.slot_of(rec.id) != rec.slot ||
      m.lane_rank[rec.agent.lane] != lane_rank) {
    fail(m, "agent " + std::to_string(rec.id) + " from rank " + std::to_string(from) +
                " is not an active agent on rank " + std::to_string(lane_rank) + "'s lanes");
  }
}

}  // namespace

void exchange_halo(Crowd::Impl& m, std::uint64_t queries, std::uint64_t goals_reached) {
  const auto t0 = std::chrono::steady_clock::now();
  const bool goals = m.config.navigation == Navigation::goals;
  const int me = m.ranks->rank();
  const auto ranks = static_cast<std::size_t>(m.ranks->size());
  const std::vector<LaneId>& before = m.scratch_lane;
  const std::vector<LaneId>& after = m.scratch_lane_after;
  // What every rank gets: the counts and this rank's lane changes (entered() ran for them here).
  m.share_transitions.clear();
  std::vector<std::uint64_t> migrants(ranks, 0);
  for (std::size_t k = 0; k < m.sweep.size(); ++k) {
    const std::uint32_t id = m.sweep[k].first;
    if (after[k] != before[k]) {
      const bool jay = (m.agents[id].flags & kPedJaywalker) != 0U;
      m.share_transitions.push_back({before[k], after[k], jay ? 1U : 0U});
    }
    const int owner = m.lane_rank[after[k]];
    if (owner != me) migrants[static_cast<std::size_t>(owner)] += 1;
  }
  if (m.keep_whole) std::fill(migrants.begin(), migrants.end(), m.sweep.size());
  std::vector<ByteWriter> to(ranks);
  for (std::size_t r = 0; r < ranks; ++r) {
    if (static_cast<int>(r) == me) continue;
    to[r].put<std::uint64_t>(queries);
    to[r].put<std::uint64_t>(goals_reached);
    to[r].put<std::uint64_t>(m.sweep.size());
    to[r].put_vector(m.share_transitions);
    to[r].put<std::uint64_t>(migrants[r]);
  }
  // Migrants whole to their new rank; every update's point to the ranks that may query it.
  std::vector<std::vector<sim::SpatialHash::Hit>>& items = m.share_items;
  items.resize(ranks);
  for (std::vector<sim::SpatialHash::Hit>& v : items)
    v.clear();
  for (std::size_t k = 0; k < m.sweep.size(); ++k) {
    const auto [id, slot] = m.sweep[k];
    const Agent& a = m.agents[id];
    // Where it was inserted: the frame cache's point, or a wanderer's path point (which the
    // cache does not keep; events and hazards end wandering before the update, never during).
    Vec2 p = m.frame_cache[k].frame.p;
    if (wandering(a)) p = frame_at(m.frames, a.lane, a.s0, a.dir > 0 ? a.lateral : -a.lateral).p;
    const Crowd::Impl::Point point{static_cast<float>(p.x), static_cast<float>(p.y)};
    m.share_point[id] = point;
    const LaneId lane = after[k];
    const int owner = m.lane_rank[lane];
    // A record whole: to its new rank (a hand-over, with its whole route), or with keep_whole to
    // every rank (the route whole only when redrawn since the last exchange, else its length).
    const auto put_record = [&](ByteWriter& w, bool whole_route) {
      w.put(AgentRecord{id, slot, a, m.slots[slot], point.x, point.y});
      if (!goals) return;
      const std::vector<WalkStep>& route = m.routes[id];
      w.put(GoalRecord{m.goals[id], m.goals_drawn[id], static_cast<std::uint32_t>(route.size()),
                       whole_route ? 1U : 0U});
      if (whole_route) w.put_vector(route);
    };
    if (m.keep_whole) {
      const bool redrawn = goals && m.goals_drawn[id] != m.sync_drawn[id];
      for (std::size_t r = 0; r < ranks; ++r) {
        if (static_cast<int>(r) != me) put_record(to[r], redrawn);
      }
      if (goals) m.sync_drawn[id] = m.goals_drawn[id];
      continue;  // Every rank has its point in the record.
    }
    if (owner != me) put_record(to[static_cast<std::size_t>(owner)], true);
    const SlotState& st = m.slots[slot];
    for (std::uint32_t h = m.halo_begin[lane]; h < m.halo_begin[lane + 1]; ++h) {
      const int q = m.halo_ranks[h];
      if (q != me && q != owner) {
        items[static_cast<std::size_t>(q)].push_back({id, point.x, point.y, st.vx, st.vy});
      }
    }
  }
  std::uint64_t sent = 0;
  std::vector<std::string> out(ranks);
  for (std::size_t r = 0; r < ranks; ++r) {
    if (static_cast<int>(r) == me) continue;
    to[r].put_vector(items[r]);
    m.share_stats.halo_items += items[r].size();
    out[r] = to[r].take();
    sent += out[r].size();
  }
  m.share_stats.sent_bytes += sent;
  const std::vector<std::string> all = m.ranks->all_to_all(out);
  // Each agent once a tick: this rank's own, then what the others sent.
  m.share_seen.resize(m.agents.size(), 0);
  for (const auto& [id, slot] : m.sweep)
    m.share_seen[id] = m.tick;
  const auto seen_once = [&](std::uint32_t id, std::size_t r) {
    if (id >= m.agents.size() || m.share_seen[id] == m.tick)
      fail(m, "agent " + std::to_string(id) + " from rank " + std::to_string(r) +
                  " came twice this tick or is no agent");
    m.share_seen[id] = m.tick;
  };
  std::size_t updated = m.sweep.size();
  const std::size_t active = m.active.size();
  m.share_arrivals.clear();
  InsertBatch& batch = m.share_batch;
  std::vector<WalkStep> steps;
  std::vector<std::array<std::uint32_t, 3>> transitions;
  std::vector<sim::SpatialHash::Hit> got;
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (static_cast<int>(r) == me) continue;
    ByteReader in(all[r], "crowd exchange");
    std::uint64_t q = 0;
    std::uint64_t reached = 0;
    std::uint64_t n = 0;
    std::uint64_t n_migrants = 0;
    if (!in.get(q) || !in.get(reached) || !in.get(n) || !in.get_vector(transitions) ||
        !in.get(n_migrants) || n > active || n_migrants > n) {
      fail(m, "a short or impossible message from rank " + std::to_string(r));
    }
    updated += n;
    add_count(m, q, reached);
    for (const auto& [from, lane, jay] : transitions) {
      if (from >= m.lane_rank.size() || lane >= m.lane_rank.size())
        fail(m, "a lane change from rank " + std::to_string(r) + " names no lane");
      entered_lane(m, from, lane, jay != 0U);
    }
    for (std::uint64_t i = 0; i < n_migrants; ++i) {
      AgentRecord rec;
      if (!in.get(rec)) fail(m, "a short agent record from rank " + std::to_string(r));
      if (m.keep_whole) {
        // Every update: it was on the sender's lanes (this rank's copy is last tick's).
        if (rec.id >= m.agents.size() || m.lane_rank[m.agents[rec.id].lane] != r)
          fail(m, "agent " + std::to_string(rec.id) + " from rank " + std::to_string(r) +
                      " was not on that rank's lanes");
        check_record(m, rec, static_cast<int>(r), m.lane_rank[rec.agent.lane]);
      } else {
        check_record(m, rec, static_cast<int>(r), me);  // A hand-over to this rank.
      }
      seen_once(rec.id, r);
      write_record(m, rec);
      if (goals) {
        read_goal(m, in, rec.id, static_cast<int>(r), steps);
        if (m.keep_whole) m.sync_drawn[rec.id] = m.goals_drawn[rec.id];
      }
      batch.add(rec.id, Vec2{rec.x, rec.y}, Vec2{rec.state.vx, rec.state.vy});
      if (owns_lane(m, rec.agent.lane)) m.share_arrivals.emplace_back(rec.id, rec.slot);
    }
    if (!in.get_vector(got)) fail(m, "a short list of points from rank " + std::to_string(r));
    for (const sim::SpatialHash::Hit& h : got) {
      seen_once(h.id, r);
      batch.add(h.id, Vec2{h.x, h.y}, Vec2{h.vx, h.vy});
    }
    if (!in.done())
      fail(m, "a message from rank " + std::to_string(r) + " is longer than its agents");
  }
  insert_received(m);
  // Every active agent updated by exactly one rank.
  if (updated != active)
    fail(m, std::to_string(updated) + " agents updated, " + std::to_string(active) + " active");
  // The sweep keeps the agents still on this rank's lanes (with their frame cache entries, in
  // order) and takes those handed over at its end, until the next re-sort.
  std::size_t kept = 0;
  for (std::size_t k = 0; k < m.sweep.size(); ++k) {
    if (!owns_lane(m, after[k])) continue;
    if (kept != k) {
      m.sweep[kept] = m.sweep[k];
      m.frame_cache[kept] = m.frame_cache[k];
    }
    ++kept;
  }
  m.sweep.resize(kept);
  m.sweep.insert(m.sweep.end(), m.share_arrivals.begin(), m.share_arrivals.end());
  if (m.frame_cache.size() < m.sweep.size()) m.frame_cache.resize(m.sweep.size());
  m.share_stats.arrived += m.share_arrivals.size();
  m.whole = m.keep_whole;
  m.share_stats.exchanges += 1;
  m.share_stats.exchange_s +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void sync_whole(Crowd::Impl& m) {
  const auto t0 = std::chrono::steady_clock::now();
  const bool goals = m.config.navigation == Navigation::goals;
  const int me = m.ranks->rank();
  // This rank's agents (the sweep: the active ones on its lanes), with the points they last
  // inserted; a route redrawn since the last whole exchange goes whole, else its length.
  ByteWriter w;
  w.put<std::uint64_t>(m.sweep.size());
  for (const auto& [id, slot] : m.sweep) {
    const Crowd::Impl::Point p = m.share_point[id];
    w.put(AgentRecord{id, slot, m.agents[id], m.slots[slot], p.x, p.y});
    if (!goals) continue;
    const std::vector<WalkStep>& route = m.routes[id];
    const bool redrawn = m.goals_drawn[id] != m.sync_drawn[id];
    w.put(GoalRecord{m.goals[id], m.goals_drawn[id], static_cast<std::uint32_t>(route.size()),
                     redrawn ? 1U : 0U});
    if (redrawn) w.put_vector(route);
  }
  m.share_stats.sent_bytes += w.bytes().size();
  const std::vector<std::string> all = m.ranks->all_gather(w.bytes());
  m.syncs += 1;
  m.sync_seen.resize(m.agents.size(), 0);
  for (const auto& [id, slot] : m.sweep)
    m.sync_seen[id] = m.syncs;
  std::size_t total = m.sweep.size();
  InsertBatch& batch = m.share_batch;
  std::vector<WalkStep> steps;
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (static_cast<int>(r) == me) continue;
    ByteReader in(all[r], "crowd exchange");
    std::uint64_t n = 0;
    if (!in.get(n) || n > m.active.size())
      fail(m, "a short message from rank " + std::to_string(r));
    total += n;
    for (std::uint64_t i = 0; i < n; ++i) {
      AgentRecord rec;
      if (!in.get(rec)) fail(m, "a short agent record from rank " + std::to_string(r));
      check_record(m, rec, static_cast<int>(r), static_cast<int>(r));
      if (m.sync_seen[rec.id] == m.syncs)
        fail(m, "agent " + std::to_string(rec.id) + " sent twice (again by rank " +
                    std::to_string(r) + ")");
      m.sync_seen[rec.id] = m.syncs;
      write_record(m, rec);
      if (goals) read_goal(m, in, rec.id, static_cast<int>(r), steps);
      // Into the map not yet swapped in, unless this rank got it this tick.
      if (m.share_seen[rec.id] != m.tick) {
        m.share_seen[rec.id] = m.tick;
        batch.add(rec.id, Vec2{rec.x, rec.y}, Vec2{rec.state.vx, rec.state.vy});
      }
    }
    if (!in.done())
      fail(m, "a message from rank " + std::to_string(r) + " is longer than its agents");
  }
  insert_received(m);
  if (total != m.active.size())
    fail(m, std::to_string(total) + " agents sent whole, " + std::to_string(m.active.size()) +
                " active");
  if (goals) m.sync_drawn = m.goals_drawn;
  m.whole = true;
  m.share_stats.syncs += 1;
  m.share_stats.exchange_s +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

bool whole_needed(const Crowd::Impl& m) {
  const double next = static_cast<double>(m.tick + 1) * m.config.dt_s;
  return (m.config.lod.enabled && next + 1e-9 >= m.next_lod_s) ||
         (m.next_event < m.events.size() && m.events[m.next_event].time_s <= next) ||
         !m.hazards.empty() || outdoor_target(m) != m.outdoors;
}

namespace {

/// Distance between segments ab and cd (0 when they meet).
double segments_distance(Vec2 a, Vec2 b, Vec2 c, Vec2 d) {
  Vec2 at;
  if (segment_intersection(a, b, c, d, &at)) return 0.0;
  return std::min({segment_distance(c, d, a), segment_distance(c, d, b), segment_distance(a, b, c),
                   segment_distance(a, b, d)});
}

/// The halo of every pedestrian lane (Crowd::Impl::halo_begin): the ranks owning a pedestrian
/// lane whose bodies may come within the avoidance radius of a body on it. A body's centre
/// keeps within its lane's half width (the walking band lies inside it) plus a margin.
void halo_of_lanes(Crowd::Impl& m) {
  const traffic::Network& net = m.net;
  const std::uint32_t lanes = net.lane_count();
  constexpr double kMarginM = 1.0;
  constexpr double kCellM = 16.0;
  const auto reach = [&](LaneId l) {
    return std::max({0.5 * static_cast<double>(net.width_m[l]), std::abs(double{m.walk.band_lo[l]}),
                     std::abs(double{m.walk.band_hi[l]})}) +
           kMarginM;
  };
  const auto pedestrian = [&](LaneId l) {
    return net.is(l, roads::kSidewalk) || net.is(l, roads::kCrosswalk);
  };
  double widest = 0;
  BoxIndex segments(kCellM);  // The pedestrian lanes' segments, by their first point's index.
  std::vector<LaneId> point_lane(net.points.size(), traffic::kNoLane);
  const auto segment_box = [&](std::uint32_t k, double grow) {
    Aabb2 box;
    box.add(Vec2{net.points[k].x, net.points[k].y});
    box.add(Vec2{net.points[k + 1].x, net.points[k + 1].y});
    return Aabb2{{box.min.x - grow, box.min.y - grow}, {box.max.x + grow, box.max.y + grow}};
  };
  for (LaneId l = 0; l < lanes; ++l) {
    if (!pedestrian(l)) continue;
    widest = std::max(widest, reach(l));
    for (std::uint32_t k = net.point_begin[l]; k + 1 < net.point_begin[l + 1]; ++k) {
      point_lane[k] = l;
      segments.insert(k, segment_box(k, 0));
    }
  }
  const double radius = m.config.avoid_radius_m;
  m.halo_begin.assign(lanes + 1, 0);
  m.halo_ranks.clear();
  std::vector<std::uint16_t> found;
  std::vector<std::uint32_t> near;
  for (LaneId l = 0; l < lanes; ++l) {
    m.halo_begin[l] = static_cast<std::uint32_t>(m.halo_ranks.size());
    if (!pedestrian(l)) continue;
    found.clear();
    for (std::uint32_t k = net.point_begin[l]; k + 1 < net.point_begin[l + 1]; ++k) {
      const Vec2 a{net.points[k].x, net.points[k].y};
      const Vec2 b{net.points[k + 1].x, net.points[k + 1].y};
      segments.query(segment_box(k, radius + reach(l) + widest), near);
      for (const std::uint32_t j : near) {
        const LaneId o = point_lane[j];
        const std::uint16_t q = m.lane_rank[o];
        if (std::find(found.begin(), found.end(), q) != found.end()) continue;
        const Vec2 c{net.points[j].x, net.points[j].y};
        const Vec2 d{net.points[j + 1].x, net.points[j + 1].y};
        if (segments_distance(a, b, c, d) <= radius + reach(l) + reach(o)) found.push_back(q);
      }
    }
    std::sort(found.begin(), found.end());
    m.halo_ranks.insert(m.halo_ranks.end(), found.begin(), found.end());
  }
  m.halo_begin[lanes] = static_cast<std::uint32_t>(m.halo_ranks.size());
}

}  // namespace

void Crowd::share(const Ranks& ranks, std::span<const std::uint16_t> lane_part) {
  Impl& m = *m_impl;
  m.ranks = &ranks;
  m.lane_rank.assign(lane_part.begin(), lane_part.end());
  if (m.lane_rank.size() != m.net.lane_count()) {
    fail(m, "the partition has " + std::to_string(m.lane_rank.size()) + " lanes, the network " +
                std::to_string(m.net.lane_count()));
  }
  for (const std::uint16_t r : m.lane_rank) {
    if (static_cast<int>(r) >= ranks.size()) {
      fail(m, "the partition has a part " + std::to_string(r) + " for " +
                  std::to_string(ranks.size()) + " ranks");
    }
  }
  halo_of_lanes(m);
  m.share_point.assign(m.agents.size(), {});
  m.sync_drawn = m.goals_drawn;
  m.share_seen.assign(m.agents.size(), 0);
  m.whole = true;
  m.sweep.clear();  // This rank's agents only, from the next tick.
  m.sweep_stale = true;
}

const CrowdShareStats& Crowd::share_stats() const { return m_impl->share_stats; }

}  // namespace cityforge::crowd
