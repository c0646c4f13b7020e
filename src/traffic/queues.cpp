// SPDX-License-Identifier: Apache-2.0
// Lane queues: at the start of each tick every moving vehicle is put on its lane's queue (and,
// during a lane change, as a ghost on the target lane), front first. Everything else in the tick
// reads these queues, so every vehicle sees the same start-of-tick state whatever the thread
// count. New ghosts are checked against their neighbours here: a lane change whose slot is not
// free is called off before the ghost exists.
#include <tbb/parallel_for.h>

#include <algorithm>

#include "traffic/detail/processors.hpp"

namespace cityforge::traffic::detail {
namespace {

constexpr float kGhostMarginM = 0.5f;  // Free space a new ghost needs on both sides.

bool before(const QueueEntry& a, const QueueEntry& b) {
  if (a.s_m != b.s_m) return a.s_m > b.s_m;
  if (a.entity != b.entity) return a.entity < b.entity;
  return (a.flags & kQueueGhost) < (b.flags & kQueueGhost);
}

}  // namespace

void build_queues(Simulation::Impl& m) {
  const Network& net = m.net;
  const std::uint32_t lanes = net.lane_count();
  std::vector<sim::ChunkView> chunks = m.world.chunks(moving_query(m.world));

  // 1. Global rows and per-lane counts.
  m.chunk_base.assign(chunks.size() + 1, 0);
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    m.chunk_base[c + 1] = m.chunk_base[c] + static_cast<std::uint32_t>(chunks[c].size());
  }
  const std::uint32_t rows = m.chunk_base.back();
  // Over ranks, only this rank's vehicles and its halo's, the rows the halo exchange listed
  // (share.cpp): the other rows are out of date, and no queue this rank reads holds them.
  const bool shared = m.ranks != nullptr;
  m.own_aborted = 0;
  // The lanes whose queues are built: over ranks this rank's and its halo's (share()), whose
  // count, order and placing cost that many, not the region's lanes; else every lane.
  const auto listed = shared ? static_cast<std::uint32_t>(m.queue_lanes.size()) : lanes;
  const auto lane_at = [&](std::uint32_t k) { return shared ? m.queue_lanes[k] : k; };
  if (m.lane_end.size() != lanes) {
    m.lane_begin.assign(lanes, 0);
    m.lane_end.assign(lanes, 0);
  }
  // Over ranks, the queued rows by chunk (ascending), so the scatter passes over those only.
  if (shared) rows_by_chunk(m.queued_rows, m.chunk_base, m.chunk_queued_rows);
  // Per-lane counts (in lane_end), then each lane's range, lanes in ascending order.
  for (std::uint32_t k = 0; k < listed; ++k)
    m.lane_end[lane_at(k)] = 0;
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    const auto ls = chunks[c].read<LaneState>();
    const auto lc = chunks[c].read<LaneChange>();
    const std::size_t n = shared ? m.chunk_queued_rows[c].size() : ls.size();
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = shared ? m.chunk_queued_rows[c][k] : k;
      CF_ASSERT(!shared || (m.queue_lane[ls[i].lane] != 0U &&
                            (lc[i].target == kNoLane || m.queue_lane[lc[i].target] != 0U)),
                "queues: a queued vehicle outside this rank's lanes and halo");
      ++m.lane_end[ls[i].lane];
      if (lc[i].target != kNoLane) ++m.lane_end[lc[i].target];
    }
  }
  std::uint32_t total = 0;
  for (std::uint32_t k = 0; k < listed; ++k) {
    const LaneId l = lane_at(k);
    m.lane_begin[l] = total;
    total += m.lane_end[l];
    m.lane_end[l] = total;
  }

  // 2. Scatter (rows in canonical order), remembering each entry's row.
  m.entries.resize(total);
  std::vector<std::uint32_t> entry_row(m.entries.size());
  std::vector<std::uint32_t>& cursor = m.queue_cursor;
  if (cursor.size() != lanes) cursor.assign(lanes, 0);
  for (std::uint32_t k = 0; k < listed; ++k)
    cursor[lane_at(k)] = m.lane_begin[lane_at(k)];
  // Every queued row's slot is written below (over ranks, only those are read: the others'
  // are left as they were rather than all reset).
  if (shared) {
    m.row_slot.resize(rows);
    m.row_ghost.resize(rows);
  } else {
    m.row_slot.assign(rows, kNone);
    m.row_ghost.assign(rows, kNone);
  }
  if (shared) m.chunk_own_rows.resize(chunks.size());
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    const auto ents = chunks[c].entities();
    const auto ls = chunks[c].read<LaneState>();
    const auto dr = chunks[c].read<Driver>();
    const auto lc = chunks[c].read<LaneChange>();
    const bool trip = chunks[c].has<Trip>();
    if (shared) m.chunk_own_rows[c].clear();
    const std::size_t n = shared ? m.chunk_queued_rows[c].size() : ls.size();
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = shared ? m.chunk_queued_rows[c][k] : k;
      // Nothing moves a vehicle to another lane before the drive (the halo came first).
      if (shared && m.lane_part[ls[i].lane] == m.part)
        m.chunk_own_rows[c].push_back(static_cast<std::uint32_t>(i));
      const std::uint32_t row = m.chunk_base[c] + static_cast<std::uint32_t>(i);
      if (shared) m.row_ghost[row] = kNone;
      const LaneState now = extrapolated(m, ents[i].index, ls[i]);
      QueueEntry e;
      e.s_m = now.s_m;
      e.length_m = m.length_of(dr[i].type);
      e.speed_mps = now.speed_mps;
      e.accel_mps2 = ls[i].accel_mps2;
      e.stopped_s = dr[i].stopped_s + waited_s(m, ents[i].index, now);
      e.entity = ents[i].index;
      e.next = ls[i].next;
      e.next2 = ls[i].next2;
      e.next3 = ls[i].next3;
      e.prev = ls[i].prev;
      e.flags = (trip ? kQueueOnTrip : 0U) | (lc[i].target != kNoLane ? kQueueChanging : 0U) |
                (static_cast<std::uint32_t>(dr[i].type) << kQueueTypeShift);
      const std::uint32_t slot = cursor[ls[i].lane]++;
      m.entries[slot] = e;
      entry_row[slot] = row;
      if (lc[i].target != kNoLane) {
        QueueEntry g = e;
        g.s_m = mapped_s(net, ls[i].lane, lc[i].target, ls[i].s_m);
        g.next = kNoLane;
        g.next2 = kNoLane;
        g.next3 = kNoLane;
        g.flags |= kQueueGhost | (lc[i].progress == 0.0f ? kQueueGhostNew : 0U);
        const std::uint32_t gslot = cursor[lc[i].target]++;
        m.entries[gslot] = g;
        entry_row[gslot] = row;
      }
    }
  }

  // 3. Sort each lane front first (insertion sort: queues are short and nearly sorted), blocks
  // of lanes in parallel (each lane touches only its own range).
  const auto sort_lane = [&](std::uint32_t l) {
    const std::uint32_t b = m.lane_begin[l];
    const std::uint32_t e = m.lane_end[l];
    for (std::uint32_t k = b + 1; k < e; ++k) {
      if (!before(m.entries[k], m.entries[k - 1])) continue;
      const QueueEntry x = m.entries[k];
      const std::uint32_t xr = entry_row[k];
      std::uint32_t j = k;
      while (j > b && before(x, m.entries[j - 1])) {
        m.entries[j] = m.entries[j - 1];
        entry_row[j] = entry_row[j - 1];
        --j;
      }
      m.entries[j] = x;
      entry_row[j] = xr;
    }
  };
  constexpr std::uint32_t kLanesPerTask = 2048;
  tbb::parallel_for(std::uint32_t{0}, (listed + kLanesPerTask - 1) / kLanesPerTask,
                    [&](std::uint32_t task) {
                      const std::uint32_t end = std::min(listed, (task + 1) * kLanesPerTask);
                      for (std::uint32_t k = task * kLanesPerTask; k < end; ++k)
                        sort_lane(lane_at(k));
                    });

  // 4. New ghosts (progress 0) need free space on both sides, else the change is called off.
  std::vector<std::uint32_t> cancelled;  // rows
  for (std::uint32_t q = 0; q < listed; ++q) {
    const LaneId l = lane_at(q);
    const std::uint32_t b = m.lane_begin[l];
    const std::uint32_t e = m.lane_end[l];
    for (std::uint32_t k = b; k < e; ++k) {
      const QueueEntry& x = m.entries[k];
      if ((x.flags & kQueueGhost) == 0U) continue;
      const std::uint32_t row = entry_row[k];
      if ((x.flags & kQueueGhostNew) == 0U) continue;
      bool ok = x.s_m <= net.length_m[l] && x.s_m - x.length_m >= -kGhostMarginM;
      if (ok && k > b) {
        const QueueEntry& f = m.entries[k - 1];
        ok = f.s_m - f.length_m - x.s_m >= kGhostMarginM;
      }
      if (ok && k + 1 < e) {
        const QueueEntry& r = m.entries[k + 1];
        ok = x.s_m - x.length_m - r.s_m >= kGhostMarginM;
      }
      // Two new ghosts too close to each other both give up (they retry later, at different
      // times since each vehicle considers changes on its own clock).
      if (!ok) cancelled.push_back(row);
    }
  }
  if (!cancelled.empty()) {
    std::sort(cancelled.begin(), cancelled.end());
    cancelled.erase(std::unique(cancelled.begin(), cancelled.end()), cancelled.end());
    std::uint64_t own = 0;  // Over ranks, each rank counts its own (summed in share.cpp).
    for (const std::uint32_t row : cancelled) {
      const std::size_t c =
          static_cast<std::size_t>(std::upper_bound(m.chunk_base.begin(), m.chunk_base.end(), row) -
                                   m.chunk_base.begin() - 1);
      chunks[c].write<LaneChange>()[row - m.chunk_base[c]] = LaneChange{};
      if (shared) {
        m.touched[chunks[c].entities()[row - m.chunk_base[c]].index] = m.halo_stamp;
        if (m.lane_part[chunks[c].read<LaneState>()[row - m.chunk_base[c]].lane] == m.part) ++own;
      }
    }
    if (shared) {
      m.own_aborted = own;
    } else {
      m.counters.lane_changes_aborted += cancelled.size();
    }
    // Drop the cancelled ghosts and close the gaps (lanes in ascending order, so a lane's
    // entries move down only, past those already placed).
    std::uint32_t out = 0;
    for (std::uint32_t q = 0; q < listed; ++q) {
      const LaneId l = lane_at(q);
      const std::uint32_t b = m.lane_begin[l];
      const std::uint32_t e = m.lane_end[l];
      m.lane_begin[l] = out;
      for (std::uint32_t k = b; k < e; ++k) {
        if ((m.entries[k].flags & kQueueGhost) != 0U &&
            std::binary_search(cancelled.begin(), cancelled.end(), entry_row[k])) {
          continue;
        }
        m.entries[out] = m.entries[k];
        entry_row[out] = entry_row[k];
        ++out;
      }
      m.lane_end[l] = out;
    }
    m.entries.resize(out);
    entry_row.resize(out);
  }

  // 5. Each row's own slot and ghost slot (every entry writes its own row's).
  constexpr std::uint32_t kEntriesPerTask = 16384;
  const auto entries = static_cast<std::uint32_t>(m.entries.size());
  tbb::parallel_for(std::uint32_t{0}, (entries + kEntriesPerTask - 1) / kEntriesPerTask,
                    [&](std::uint32_t task) {
                      const std::uint32_t end = std::min(entries, (task + 1) * kEntriesPerTask);
                      for (std::uint32_t k = task * kEntriesPerTask; k < end; ++k) {
                        if ((m.entries[k].flags & kQueueGhost) != 0U) {
                          m.row_ghost[entry_row[k]] = k;
                        } else {
                          m.row_slot[entry_row[k]] = k;
                        }
                      }
                    });
}

}  // namespace cityforge::traffic::detail
