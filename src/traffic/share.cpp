// SPDX-License-Identifier: Apache-2.0
// The driving model shared over ranks (Simulation::share, docs/traffic.md "Over MPI ranks").
// Every rank holds the whole world and runs the tick's other processors (queues, signals,
// coordinator, respawn) itself, from the same state, so they agree; only the driving, where a
// tick's vehicles are updated and rerouted, is split: a rank drives the vehicles that start the
// tick on its part's lanes and notes per row what they did. Then every rank sends the rows it
// drove (components, last driven tick, route when rewritten, the row's note) and its counters,
// and writes the others' rows into its own world. The chunk sums are then taken over the notes
// in row order, as one process takes them while driving, so the figures, the commands applied at
// the tick's end and the state are the same for any rank count, bit for bit.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cityforge/core/rng.hpp"
#include "traffic/detail/processors.hpp"

namespace cityforge::traffic {

using namespace detail;

namespace {

/// Stream of the commands written for the rows another rank drove (beyond any chunk ordinal;
/// commands apply by entity index first, so the stream does not change their order).
constexpr std::uint32_t kShareStream = 0xffffffffU;

std::array<std::uint64_t, kCounters> read_counters(const Counters& c) {
  return {c.lane_changes.load(),      c.stops.load(),           c.junction_entries.load(),
          c.entries_on_yellow.load(), c.red_violations.load(),  c.clearing_on_red.load(),
          c.emergency_stops.load(),   c.trips_completed.load(), c.reroutes.load()};
}

void add_counters(Counters& c, const std::array<std::uint64_t, kCounters>& d) {
  c.lane_changes += d[0];
  c.stops += d[1];
  c.junction_entries += d[2];
  c.entries_on_yellow += d[3];
  c.red_violations += d[4];
  c.clearing_on_red += d[5];
  c.emergency_stops += d[6];
  c.trips_completed += d[7];
  c.reroutes += d[8];
}

struct RowRecord {
  std::uint32_t row = 0;
  std::uint32_t entity = 0;
  LaneState lane;
  Driver driver;
  LaneChange change;
  Trip trip;
  std::uint32_t moved_tick = 0;
  RowNote note;
};

[[noreturn]] void fail(const Simulation::Impl& m, const std::string& what) {
  std::fprintf(stderr, "error: rank %d: traffic exchange: %s\n", m.ranks->rank(), what.c_str());
  m.ranks->abort(3);
  std::abort();  // Not reached: Ranks::abort ends the job.
}

}  // namespace

namespace detail {

std::array<std::uint64_t, kCounters> begin_shared_drive(Simulation::Impl& m) {
  m.notes.assign(m.chunk_base.empty() ? 0 : m.chunk_base.back(), RowNote{});
  return read_counters(m.counters);
}

void exchange_driven(Simulation::Impl& m, const sim::TickContext& ctx,
                     const std::array<std::uint64_t, kCounters>& before) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<sim::ChunkView> chunks = ctx.world.chunks(moving_query(ctx.world));
  const bool coarse = !m.moved_tick.empty();
  const std::uint32_t rows = m.chunk_base.empty() ? 0 : m.chunk_base.back();

  // 1. This rank's rows.
  ByteWriter w;
  std::array<std::uint64_t, kCounters> delta = read_counters(m.counters);
  for (std::size_t k = 0; k < kCounters; ++k)
    delta[k] -= before[k];
  w.put(delta);
  std::uint64_t mine = 0;
  for (std::uint32_t r = 0; r < rows; ++r)
    mine += m.notes[r].mine;
  w.put(mine);
  std::uint64_t migrations = 0;
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    const sim::ChunkView& chunk = chunks[c];
    const auto ents = chunk.entities();
    const auto ls = chunk.read<LaneState>();
    const auto dr = chunk.read<Driver>();
    const auto lc = chunk.read<LaneChange>();
    const bool has_trip = chunk.has<Trip>();
    const std::uint32_t base = m.chunk_base[chunk.ordinal()];
    for (std::size_t i = 0; i < ents.size(); ++i) {
      const std::uint32_t row = base + static_cast<std::uint32_t>(i);
      const RowNote& note = m.notes[row];
      if (note.mine == 0U) continue;
      RowRecord rec;
      rec.row = row;
      rec.entity = ents[i].index;
      rec.lane = ls[i];
      rec.driver = dr[i];
      rec.change = lc[i];
      if (has_trip) rec.trip = chunk.read<Trip>()[i];
      if (coarse) rec.moved_tick = m.moved_tick[rec.entity];
      rec.note = note;
      w.put(rec);
      if (note.rerouted != 0U) w.put_vector(m.routes[rec.entity]);
      if (m.lane_part[rec.lane.lane] != m.part) ++migrations;
    }
  }
  w.put(migrations);

  // 2. Everybody's.
  const std::vector<std::string> all = all_gather(*m.ranks, w.bytes());
  ShareStats& st = m.share_stats;
  for (std::size_t r = 0; r < all.size(); ++r) {
    st.bytes[r] += all[r].size();
    if (static_cast<int>(r) == m.ranks->rank()) {
      st.updates[r] += mine;
      st.migrations += migrations;
      continue;
    }
    ByteReader in(all[r], "traffic exchange");
    std::array<std::uint64_t, kCounters> theirs{};
    std::uint64_t count = 0;
    if (!in.get(theirs) || !in.get(count)) fail(m, "short message from rank " + std::to_string(r));
    add_counters(m.counters, theirs);
    st.updates[r] += count;
    for (std::uint64_t k = 0; k < count; ++k) {
      RowRecord rec;
      if (!in.get(rec) || rec.row >= rows) fail(m, "bad row from rank " + std::to_string(r));
      const auto c = static_cast<std::size_t>(
          std::upper_bound(m.chunk_base.begin(), m.chunk_base.end(), rec.row) -
          m.chunk_base.begin() - 1);
      const sim::ChunkView& chunk = chunks[c];
      const std::size_t i = rec.row - m.chunk_base[c];
      if (chunk.entities()[i].index != rec.entity) {
        fail(m, "rank " + std::to_string(r) + " drove row " + std::to_string(rec.row) +
                    " as another vehicle: the ranks' worlds differ");
      }
      if (m.notes[rec.row].claimed != 0U) {
        fail(m, "vehicle " + std::to_string(rec.entity) + " was driven by two ranks");
      }
      chunk.write<LaneState>()[i] = rec.lane;
      chunk.write<Driver>()[i] = rec.driver;
      chunk.write<LaneChange>()[i] = rec.change;
      if (chunk.has<Trip>()) chunk.write<Trip>()[i] = rec.trip;
      if (coarse) m.moved_tick[rec.entity] = rec.moved_tick;
      if (rec.note.rerouted != 0U && !in.get_vector(m.routes[rec.entity])) {
        fail(m, "short route from rank " + std::to_string(r));
      }
      rec.note.mine = 0;
      m.notes[rec.row] = rec.note;
    }
    std::uint64_t theirs_migrated = 0;
    if (!in.get(theirs_migrated) || !in.done()) {
      fail(m, "message from rank " + std::to_string(r) + " does not read back whole");
    }
    st.migrations += theirs_migrated;
  }
  // Every moving vehicle driven by exactly one rank: none twice (above), none lost.
  for (std::uint32_t r = 0; r < rows; ++r) {
    if (m.notes[r].claimed == 0U) {
      fail(m, "row " + std::to_string(r) + " was driven by no rank: a vehicle was lost");
    }
  }
  ++st.exchanges;

  // 3. Sums in row order (as drive_chunk takes them) and the others' pooled vehicles.
  sim::CommandWriter out = ctx.writer(kShareStream);
  for (const sim::ChunkView& chunk : chunks) {
    const std::uint32_t o = chunk.ordinal();
    const auto ents = chunk.entities();
    double distance = 0;
    double speed = 0;
    std::uint32_t driven = 0;
    for (std::size_t i = 0; i < ents.size(); ++i) {
      const RowNote& note = m.notes[m.chunk_base[o] + i];
      if (note.driven != 0U) {
        distance += note.distance;
        ++driven;
      }
      speed += note.speed;
      if (note.pooled != 0U && note.mine == 0U) out.add(ents[i], Pooled{});
    }
    m.chunk_distance[o] = distance;
    m.chunk_speed[o] = speed;
    m.chunk_driven[o] = driven;
  }
  st.exchange_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace detail

Status Simulation::share(const Ranks& ranks, const Partition& partition) {
  Impl& m = *m_impl;
  if (partition.parts != static_cast<std::uint32_t>(ranks.size())) {
    return Error::invalid_input("ranks", "a partition into " + std::to_string(partition.parts) +
                                             " parts for " + std::to_string(ranks.size()) +
                                             " ranks");
  }
  if (partition.lane_part.size() != m.net.lane_count()) {
    return Error::invalid_input("ranks", "the partition is of another network");
  }
  ShareStats& st = m.share_stats;
  st = ShareStats{};
  st.ranks = partition.parts;
  st.cut_lanes = partition.cut_lanes;
  st.cut_links = partition.cut_links;
  st.part_weight = partition.part_weight;
  st.updates.assign(partition.parts, 0);
  st.bytes.assign(partition.parts, 0);
  if (ranks.size() == 1) return Ok{};  // One rank drives everything: nothing to exchange.
  // Collective: every rank must drive by the same partition (METIS is deterministic for one
  // build and input, but ranks may run different builds, and it is not thread-safe).
  const std::uint64_t mine =
      hash_bytes(partition.lane_part.data(), partition.lane_part.size() * sizeof(std::uint16_t), 0);
  for (const std::string& theirs : all_gather(ranks, std::to_string(mine))) {
    if (theirs != std::to_string(mine)) {
      return Error::internal("ranks", "the ranks hold different partitions of the lane graph");
    }
  }
  m.ranks = &ranks;
  m.lane_part = partition.lane_part;
  m.part = static_cast<std::uint16_t>(ranks.rank());
  return Ok{};
}

const ShareStats& Simulation::share_stats() const { return m_impl->share_stats; }

}  // namespace cityforge::traffic
