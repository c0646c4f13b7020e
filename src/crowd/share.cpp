// SPDX-License-Identifier: Apache-2.0
// SPDX-License-Identifier: Apache-2.0
// The crowd shared over ranks (Crowd::share; docs/crowd.md "Over MPI ranks"). Every rank holds
// the whole crowd and runs the tick's cheap, order-sensitive steps itself (events, weather,
// hazards, levels of detail, the low agents, the neighbour map's swap), from the same state, so
// they agree. The full-fidelity update (behaviour, avoidance queries, motion: the tick's costly
// part) is split by geography: each agent is updated by the rank of the pedestrian lane it is
// on, and the pedestrian lanes follow their block's rank (pedestrian_lane_ranks). Each agent's
// update reads last tick's neighbour map and writes only its own record, pool slot, goal and
// route, so a rank needs nothing from the others during it. Then every rank sends what its
// agents wrote (and what they inserted into this tick's map) and writes the others' into its
// own crowd; an agent whose update took it onto another rank's lane is that rank's from the next
// tick. The map sorts every query's answer by id, so the order in which a rank inserted the
// items changes nothing: the state is the same for any rank count, bit for bit.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <unordered_map>

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
  // Each agent comes once a tick, from the rank whose lane it was on (own ones included).
  m.share_seen.resize(m.agents.size(), 0);
  for (const auto& [id, slot] : m.sweep)
    m.share_seen[id] = m.tick;
  const std::size_t active = m.active.size();
  m.share_arrivals.clear();
  for (std::size_t r = 0; r < all.size(); ++r) {
    ByteReader in(all[r], "crowd exchange");
    std::uint64_t q = 0;
    std::uint64_t reached = 0;
    std::uint64_t n = 0;
    if (!in.get(q) || !in.get(reached) || !in.get(n)) fail(m, "a short message");
    updated += n;
    if (static_cast<int>(r) == m.ranks->rank()) continue;
    if (n > active)
      fail(m, "rank " + std::to_string(r) + " updated " + std::to_string(n) + " agents, " +
                  std::to_string(active) + " are active");
    m.queries.fetch_add(q, std::memory_order_relaxed);
    m.goals_reached.fetch_add(reached, std::memory_order_relaxed);
    for (std::uint64_t i = 0; i < n; ++i) {
      AgentRecord rec;
      if (!in.get(rec)) fail(m, "a short agent record from rank " + std::to_string(r));
      if (rec.id >= m.agents.size() || rec.slot >= m.slots.size() ||
          m.lane_rank[m.agents[rec.id].lane] != r || m.pool.slot_of(rec.id) != rec.slot)
        fail(m, "agent " + std::to_string(rec.id) + " from rank " + std::to_string(r) +
                    " is not an active agent on that rank's lanes");
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
      if (rec.agent.lane != from) {
        entered(m, rec.agent, from);
        if (owns_lane(m, rec.agent.lane)) m.share_arrivals.emplace_back(rec.id, rec.slot);
      }
    }
    if (!in.done())
      fail(m, "a message from rank " + std::to_string(r) + " is longer than its agents");
  }
  const std::size_t inserted = batch.ids.size();
  if (m.hash.insert(batch.ids, batch.p, batch.v) != inserted) fail(m, "the neighbour map is full");
  batch.ids.clear();
  batch.p.clear();
  batch.v.clear();
  // Every active agent updated by exactly one rank: each from a lane of its sender's, none
  // twice, as many as are active.
  if (updated != active)
    fail(m, std::to_string(updated) + " agents updated, " + std::to_string(active) + " active");
  // The sweep keeps the agents still on this rank's lanes (with their frame cache entries, in
  // order) and takes those handed over at its end, until the next re-sort.
  const std::vector<LaneId>& after = m.scratch_lane_after;
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
  m.share_stats.exchanges += 1;
  m.share_stats.exchange_s +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

namespace {

/// Lane segments of the vehicle lanes in a grid of `kCellM` cells: each segment in every cell
/// its bounding box (grown by nothing) touches.
struct SegmentGrid {
  static constexpr double kCellM = 40.0;
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> cells;  // -> point index k.
  static std::uint64_t key(std::int64_t x, std::int64_t y) {
    return (static_cast<std::uint64_t>(x) << 32U) ^ (static_cast<std::uint64_t>(y) & 0xffffffffU);
  }
  static std::int64_t cell(double v) { return static_cast<std::int64_t>(std::floor(v / kCellM)); }
};

double segment_distance2(Vec2 p, Vec2 a, Vec2 b) {
  const Vec2 ab = b - a;
  const double len2 = dot(ab, ab);
  const double t = len2 > 0 ? std::clamp(dot(p - a, ab) / len2, 0.0, 1.0) : 0.0;
  const Vec2 d = p - (a + ab * t);
  return dot(d, d);
}

/// The point half way along `lane`.
Vec2 middle(const traffic::Network& net, LaneId lane) {
  const std::uint32_t b = net.point_begin[lane];
  const std::uint32_t e = net.point_begin[lane + 1];
  const float half = 0.5f * net.point_s[e - 1];
  for (std::uint32_t k = b; k + 1 < e; ++k) {
    if (net.point_s[k + 1] < half) continue;
    const float span = net.point_s[k + 1] - net.point_s[k];
    const double t = span > 0 ? (half - net.point_s[k]) / span : 0.0;
    const Vec3 p = net.points[k] + (net.points[k + 1] - net.points[k]) * t;
    return Vec2{p.x, p.y};
  }
  return Vec2{net.points[b].x, net.points[b].y};
}

}  // namespace

std::vector<std::uint16_t> pedestrian_lane_ranks(const traffic::Network& net,
                                                 const WalkNetwork& walk,
                                                 std::span<const std::uint16_t> lane_part) {
  std::vector<std::uint16_t> out(lane_part.begin(), lane_part.end());
  const std::uint32_t lanes = net.lane_count();
  out.resize(lanes, 0);
  // The vehicle lanes' segments, by cell; the part of the nearest to a sidewalk's middle.
  SegmentGrid grid;
  std::vector<LaneId> point_lane(net.points.size(), traffic::kNoLane);
  for (LaneId l = 0; l < lanes; ++l) {
    if (!net.is(l, roads::kVehicle)) continue;
    for (std::uint32_t k = net.point_begin[l]; k + 1 < net.point_begin[l + 1]; ++k) {
      point_lane[k] = l;
      const Vec3 a = net.points[k];
      const Vec3 b = net.points[k + 1];
      for (std::int64_t x = SegmentGrid::cell(std::min(a.x, b.x));
           x <= SegmentGrid::cell(std::max(a.x, b.x)); ++x) {
        for (std::int64_t y = SegmentGrid::cell(std::min(a.y, b.y));
             y <= SegmentGrid::cell(std::max(a.y, b.y)); ++y) {
          grid.cells[SegmentGrid::key(x, y)].push_back(k);
        }
      }
    }
  }
  if (grid.cells.empty()) return out;
  const auto nearest_part = [&](Vec2 p) -> std::uint16_t {
    const std::int64_t cx = SegmentGrid::cell(p.x);
    const std::int64_t cy = SegmentGrid::cell(p.y);
    double best = std::numeric_limits<double>::infinity();
    LaneId best_lane = traffic::kNoLane;
    // Rings of cells outwards until the nearest found cannot be beaten by the next ring.
    for (std::int64_t ring = 0; ring < 64; ++ring) {
      for (std::int64_t x = cx - ring; x <= cx + ring; ++x) {
        for (std::int64_t y = cy - ring; y <= cy + ring; ++y) {
          if (std::max(std::abs(x - cx), std::abs(y - cy)) != ring) continue;
          const auto it = grid.cells.find(SegmentGrid::key(x, y));
          if (it == grid.cells.end()) continue;
          for (const std::uint32_t k : it->second) {
            const double d = segment_distance2(p, Vec2{net.points[k].x, net.points[k].y},
                                               Vec2{net.points[k + 1].x, net.points[k + 1].y});
            if (d < best || (d == best && point_lane[k] < best_lane)) {
              best = d;
              best_lane = point_lane[k];
            }
          }
        }
      }
      const double reach = static_cast<double>(ring) * SegmentGrid::kCellM;
      if (best_lane != traffic::kNoLane && best <= reach * reach) break;
    }
    return best_lane == traffic::kNoLane ? 0 : out[best_lane];
  };
  // Blocks: sidewalks joined end to end, crosswalks left out (union-find, smallest roots).
  const auto n = static_cast<std::uint32_t>(walk.lanes.size());
  std::vector<std::uint32_t> root(n);
  for (std::uint32_t i = 0; i < n; ++i)
    root[i] = i;
  const auto find = [&](std::uint32_t x) {
    while (root[x] != x)
      x = root[x] = root[root[x]];
    return x;
  };
  for (std::uint32_t i = 0; i < n; ++i) {
    if (walk.crosswalk(walk.lanes[i])) continue;
    for (std::uint32_t q = walk.exit_begin[2 * i]; q < walk.exit_begin[2 * i + 2]; ++q) {
      const LaneId to = walk.exits[q].lane;
      if (walk.crosswalk(to) || !walk.walkable(to)) continue;
      const std::uint32_t a = find(i);
      const std::uint32_t b = find(walk.index[to]);
      root[std::max(a, b)] = std::min(a, b);
    }
  }
  // Each block's sidewalk length by the part of the vehicle lane nearest each sidewalk.
  std::unordered_map<std::uint32_t, std::vector<double>> length_by_part;
  const std::size_t parts =
      1 + (lane_part.empty() ? 0 : *std::max_element(lane_part.begin(), lane_part.end()));
  for (std::uint32_t i = 0; i < n; ++i) {
    const LaneId l = walk.lanes[i];
    if (walk.crosswalk(l)) continue;
    std::vector<double>& by_part = length_by_part[find(i)];
    by_part.resize(parts, 0.0);
    by_part[std::min<std::size_t>(nearest_part(middle(net, l)), parts - 1)] += net.length_m[l];
  }
  for (std::uint32_t i = 0; i < n; ++i) {
    const LaneId l = walk.lanes[i];
    if (walk.crosswalk(l)) continue;
    const std::vector<double>& by_part = length_by_part[find(i)];
    out[l] = static_cast<std::uint16_t>(std::max_element(by_part.begin(), by_part.end()) -
                                        by_part.begin());  // The first of equal ones.
  }
  return out;
}

void Crowd::share(const Ranks& ranks, std::span<const std::uint16_t> lane_part) {
  Impl& m = *m_impl;
  m.ranks = &ranks;
  m.lane_rank = pedestrian_lane_ranks(m.net, m.walk, lane_part);
  for (const std::uint16_t r : m.lane_rank) {
    if (static_cast<int>(r) >= ranks.size()) {
      fail(m, "the partition has a part " + std::to_string(r) + " for " +
                  std::to_string(ranks.size()) + " ranks");
    }
  }
  m.sweep.clear();  // This rank's agents only, from the next tick.
  m.sweep_stale = true;
}

const CrowdShareStats& Crowd::share_stats() const { return m_impl->share_stats; }

}  // namespace cityforge::crowd
