// SPDX-License-Identifier: Apache-2.0
// The crowd shared over ranks (Crowd::share; docs/crowd.md "Over MPI ranks"). Every rank holds
// the whole crowd and runs the tick's cheap, order-sensitive steps itself (events, weather,
// hazards, levels of detail, the low agents, the neighbour map's swap), from the same state, so
// they agree. The full-fidelity update (behaviour, avoidance queries, motion: the tick's costly
// part) is split: the active agents, by id, are cut into one run per rank, and each rank updates
// its run. Each agent's update reads last tick's neighbour map and writes only its own record,
// pool slot, goal and route, so a rank needs nothing from the others during it. Then every rank
// sends what its agents wrote (and what they inserted into this tick's map) and writes the
// others' into its own crowd. The map sorts every query's answer by id, so the order in which
// a rank inserted the items changes nothing: the state is the same for any rank count, bit for
// bit.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

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

}  // namespace

std::pair<std::size_t, std::size_t> owned_active(const Crowd::Impl& m) {
  const std::size_t n = m.active.size();
  if (m.ranks == nullptr || m.ranks->size() == 1) return {0, n};
  const auto r = static_cast<std::size_t>(m.ranks->rank());
  const auto size = static_cast<std::size_t>(m.ranks->size());
  return {n * r / size, n * (r + 1) / size};
}

void exchange_active(Crowd::Impl& m, std::uint64_t queries, std::uint64_t goals_reached) {
  const auto t0 = std::chrono::steady_clock::now();
  const bool goals = m.config.navigation == Navigation::goals;
  ByteWriter w;
  w.reserve(3 * sizeof(std::uint64_t) +
            m.sweep.size() * (sizeof(AgentRecord) + (goals ? sizeof(GoalRecord) : 0)));
  w.put<std::uint64_t>(queries);
  w.put<std::uint64_t>(goals_reached);
  w.put<std::uint64_t>(m.sweep.size());
  for (std::size_t k = 0; k < m.sweep.size(); ++k) {
    const auto [id, slot] = m.sweep[k];
    const Crowd::Impl::FrameCache& fc = m.frame_cache[k];  // Where it was inserted.
    AgentRecord rec{id,
                    slot,
                    m.agents[id],
                    m.slots[slot],
                    static_cast<float>(fc.frame.p.x),
                    static_cast<float>(fc.frame.p.y)};
    // A wanderer was inserted at its path's point, which the frame cache does not keep (events
    // and hazards end wandering before the update, never during it).
    if (wandering(m.agents[id])) {
      const Agent& a = m.agents[id];
      const Frame g = frame_at(m.frames, a.lane, a.s0, a.dir > 0 ? a.lateral : -a.lateral);
      rec.x = static_cast<float>(g.p.x);
      rec.y = static_cast<float>(g.p.y);
    }
    w.put(rec);
    if (!goals) continue;
    const std::vector<WalkStep>& route = m.routes[id];
    GoalRecord g{m.goals[id], m.goals_drawn[id], static_cast<std::uint32_t>(route.size()),
                 m.goals_drawn[id] != m.share_drawn[k] ? 1U : 0U};
    if (g.whole == 0 && route.size() > m.share_route[k])
      fail(m, "a route grew without a goal drawn");
    w.put(g);
    if (g.whole != 0U) w.put_vector(route);
  }
  m.share_stats.sent_bytes += w.bytes().size();
  const std::vector<std::string> all = m.ranks->all_gather(w.bytes());
  std::size_t updated = 0;
  std::vector<WalkStep> steps;
  InsertBatch& batch = m.share_batch;  // The others' agents, into this tick's map at once.
  // Each agent comes once a tick, from the rank whose run of ids holds it (own ones included).
  m.share_seen.resize(m.agents.size(), 0);
  for (const auto& [id, slot] : m.sweep)
    m.share_seen[id] = m.tick;
  const std::size_t active = m.active.size();
  const auto ranks = static_cast<std::size_t>(m.ranks->size());
  for (std::size_t r = 0; r < all.size(); ++r) {
    ByteReader in(all[r], "crowd exchange");
    std::uint64_t q = 0;
    std::uint64_t reached = 0;
    std::uint64_t n = 0;
    if (!in.get(q) || !in.get(reached) || !in.get(n)) fail(m, "a short message");
    updated += n;
    if (static_cast<int>(r) == m.ranks->rank()) continue;
    // Rank r's run of `active` (owned_active there): ids from `lo_id` to `hi_id`.
    const std::size_t lo = active * r / ranks;
    const std::size_t hi = active * (r + 1) / ranks;
    if (n != hi - lo)
      fail(m, "rank " + std::to_string(r) + " updated " + std::to_string(n) +
                  " agents, its run holds " + std::to_string(hi - lo));
    const std::uint32_t lo_id = n > 0 ? m.active[lo].first : 0;
    const std::uint32_t hi_id = n > 0 ? m.active[hi - 1].first : 0;
    m.queries.fetch_add(q, std::memory_order_relaxed);
    m.goals_reached.fetch_add(reached, std::memory_order_relaxed);
    for (std::uint64_t i = 0; i < n; ++i) {
      AgentRecord rec;
      if (!in.get(rec)) fail(m, "a short agent record from rank " + std::to_string(r));
      if (rec.id < lo_id || rec.id > hi_id || rec.slot >= m.slots.size())
        fail(m, "agent " + std::to_string(rec.id) + " from rank " + std::to_string(r) +
                    " is not in its run of active agents");
      if (m.share_seen[rec.id] == m.tick)
        fail(m, "agent " + std::to_string(rec.id) + " updated twice (again by rank " +
                    std::to_string(r) + ")");
      m.share_seen[rec.id] = m.tick;
      const LaneId from = m.agents[rec.id].lane;
      m.agents[rec.id] = rec.agent;
      m.slots[rec.slot] = rec.state;
      batch.add(rec.id, Vec2{rec.x, rec.y}, Vec2{rec.state.vx, rec.state.vy});
      if (goals) {
        GoalRecord g;
        if (!in.get(g)) fail(m, "a short goal record from rank " + std::to_string(r));
        m.goals[rec.id] = g.goal;
        m.goals_drawn[rec.id] = g.drawn;
        std::vector<WalkStep>& route = m.routes[rec.id];
        if (g.whole != 0U) {
          if (!in.get_vector(steps)) fail(m, "a short route from rank " + std::to_string(r));
          route = steps;
        } else if (g.route_size <= route.size()) {
          route.erase(route.begin(),
                      route.begin() + static_cast<std::ptrdiff_t>(route.size() - g.route_size));
        } else {
          fail(m, "agent " + std::to_string(rec.id) + "'s route is longer on rank " +
                      std::to_string(r) + " without a goal drawn");
        }
      }
      if (rec.agent.lane != from) entered(m, rec.agent, from);
    }
    if (!in.done())
      fail(m, "a message from rank " + std::to_string(r) + " is longer than its agents");
  }
  const std::size_t inserted = batch.ids.size();
  if (m.hash.insert(batch.ids, batch.p, batch.v) != inserted) fail(m, "the neighbour map is full");
  batch.ids.clear();
  batch.p.clear();
  batch.v.clear();
  // Every active agent updated by exactly one rank: each run as long as owned_active makes it,
  // its ids inside it, none twice.
  if (updated != active)
    fail(m, std::to_string(updated) + " agents updated, " + std::to_string(active) + " active");
  m.share_stats.exchanges += 1;
  m.share_stats.exchange_s +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void Crowd::share(const Ranks& ranks) {
  m_impl->ranks = &ranks;
  m_impl->sweep.clear();  // This rank's run only, from the next tick.
}

const CrowdShareStats& Crowd::share_stats() const { return m_impl->share_stats; }

}  // namespace cityforge::crowd
