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
  // The columns of every chunk, looked up once (rows come and go in row order).
  struct Columns {
    std::span<const sim::Entity> ents;
    std::span<LaneState> lane;
    std::span<Driver> driver;
    std::span<LaneChange> change;
    std::span<Trip> trip;
  };
  std::vector<Columns> cols;
  cols.reserve(chunks.size());
  for (const sim::ChunkView& chunk : chunks) {
    cols.push_back(Columns{chunk.entities(), chunk.write<LaneState>(), chunk.write<Driver>(),
                           chunk.write<LaneChange>(),
                           chunk.has<Trip>() ? chunk.write<Trip>() : std::span<Trip>{}});
  }
  const bool coarse = !m.moved_tick.empty();
  const std::uint32_t rows = m.chunk_base.empty() ? 0 : m.chunk_base.back();

  // 1. This rank's rows.
  ByteWriter w;
  std::array<std::uint64_t, kCounters> delta = read_counters(m.counters);
  for (std::size_t k = 0; k < kCounters; ++k)
    delta[k] -= before[k];
  w.put(delta);
  // Rows this rank left undriven (an `off` vehicle between its steps) changed nothing the
  // others do not hold: their row numbers say they were seen. The driven ones go whole.
  std::vector<std::uint32_t> skipped;
  std::uint64_t sent = 0;
  for (std::uint32_t r = 0; r < rows; ++r) {
    if (m.notes[r].mine == 0U) continue;
    if (m.notes[r].driven == 0U) {
      skipped.push_back(r);
    } else {
      ++sent;
    }
  }
  w.put_vector(skipped);
  w.put(sent);
  std::uint64_t migrations = 0;
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    const Columns& col = cols[c];
    const std::uint32_t base = m.chunk_base[chunks[c].ordinal()];
    for (std::size_t i = 0; i < col.ents.size(); ++i) {
      const std::uint32_t row = base + static_cast<std::uint32_t>(i);
      const RowNote& note = m.notes[row];
      if (note.mine == 0U || note.driven == 0U) continue;
      RowRecord rec;
      rec.row = row;
      rec.entity = col.ents[i].index;
      rec.lane = col.lane[i];
      rec.driver = col.driver[i];
      rec.change = col.change[i];
      if (!col.trip.empty()) rec.trip = col.trip[i];
      if (coarse) rec.moved_tick = m.moved_tick[rec.entity];
      rec.note = note;
      w.put(rec);
      if (note.rerouted != 0U) w.put_vector(m.routes[rec.entity]);
      if (m.lane_part[rec.lane.lane] != m.part) ++migrations;
    }
  }
  w.put(migrations);

  // 2. Everybody's.
  const auto t1 = std::chrono::steady_clock::now();
  const std::vector<std::string> all = all_gather(*m.ranks, w.bytes());
  const auto t2 = std::chrono::steady_clock::now();
  ShareStats& st = m.share_stats;
  st.pack_s += std::chrono::duration<double>(t1 - t0).count();
  st.transfer_s += std::chrono::duration<double>(t2 - t1).count();
  // Rows come in ascending order from each rank: the chunk search starts where the last ended.
  std::size_t hint = 0;
  const auto chunk_of = [&](std::uint32_t row) {
    if (hint >= chunks.size() || row < m.chunk_base[hint]) hint = 0;
    while (hint + 1 < chunks.size() && m.chunk_base[hint + 1] <= row)
      ++hint;
    return hint;
  };
  const auto claim = [&](std::size_t r, std::uint32_t row) {
    if (row >= rows) fail(m, "rank " + std::to_string(r) + " sent a row past the last one");
    if (m.notes[row].claimed != 0U) {
      fail(m, "row " + std::to_string(row) + " (a vehicle) was driven by two ranks");
    }
  };
  for (std::size_t r = 0; r < all.size(); ++r) {
    st.bytes[r] += all[r].size();
    if (static_cast<int>(r) == m.ranks->rank()) {
      st.updates[r] += skipped.size() + sent;
      st.migrations += migrations;
      continue;
    }
    ByteReader in(all[r], "traffic exchange");
    std::array<std::uint64_t, kCounters> theirs{};
    std::vector<std::uint32_t> their_skipped;
    std::uint64_t count = 0;
    if (!in.get(theirs) || !in.get_vector(their_skipped) || !in.get(count)) {
      fail(m, "short message from rank " + std::to_string(r));
    }
    add_counters(m.counters, theirs);
    st.updates[r] += their_skipped.size() + count;
    for (const std::uint32_t row : their_skipped) {
      claim(r, row);
      const std::size_t c = chunk_of(row);
      RowNote& note = m.notes[row];
      note.claimed = 1;
      note.speed = cols[c].lane[row - m.chunk_base[c]].speed_mps;
    }
    for (std::uint64_t k = 0; k < count; ++k) {
      RowRecord rec;
      if (!in.get(rec)) fail(m, "short row from rank " + std::to_string(r));
      claim(r, rec.row);
      const std::size_t c = chunk_of(rec.row);
      const Columns& col = cols[c];
      const std::size_t i = rec.row - m.chunk_base[c];
      if (col.ents[i].index != rec.entity) {
        fail(m, "rank " + std::to_string(r) + " drove row " + std::to_string(rec.row) +
                    " as another vehicle: the ranks' worlds differ");
      }
      col.lane[i] = rec.lane;
      col.driver[i] = rec.driver;
      col.change[i] = rec.change;
      if (!col.trip.empty()) col.trip[i] = rec.trip;
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
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    const std::uint32_t o = chunks[c].ordinal();
    const auto ents = cols[c].ents;
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

/// All-gathers this rank's `mine` and hands every other rank's message to read(rank, reader);
/// counts the bytes and the time; a message that does not read back whole stops the job.
template <class Read>
void swap_messages(Simulation::Impl& m, const std::string& mine, const char* what, Read&& read) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<std::string> all = all_gather(*m.ranks, mine);
  ShareStats& st = m.share_stats;
  for (std::size_t r = 0; r < all.size(); ++r) {
    st.bytes[r] += all[r].size();
    if (static_cast<int>(r) == m.ranks->rank()) continue;
    ByteReader in(all[r], what);
    read(static_cast<std::uint16_t>(r), in);
    if (!in.done()) fail(m, std::string(what) + ": rank " + std::to_string(r) + "'s is too long");
  }
  st.exchange_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void exchange_grants(Simulation::Impl& m) {
  const auto clusters = static_cast<std::uint32_t>(m.cluster_begin.size() - 1);
  // Per cluster, in order: its hanger slot, then the grant of every approach of its junctions.
  const auto each_slot = [&](std::uint32_t k, auto&& f) {
    f(m.hanger[k]);
    for (std::uint32_t q = m.cluster_begin[k]; q < m.cluster_begin[k + 1]; ++q) {
      const std::uint32_t j = m.cluster_junctions[q];
      for (std::uint32_t a = m.approach_begin[j]; a < m.approach_begin[j + 1]; ++a)
        f(m.grant[m.approaches[a]]);
    }
  };
  ByteWriter w;
  for (std::uint32_t k = 0; k < clusters; ++k) {
    if (m.cluster_part[k] == m.part) each_slot(k, [&](const Grant& g) { w.put(g); });
  }
  swap_messages(m, w.bytes(), "grant exchange", [&](std::uint16_t r, ByteReader& in) {
    for (std::uint32_t k = 0; k < clusters; ++k) {
      if (m.cluster_part[k] != r) continue;
      each_slot(k, [&](Grant& g) {
        if (!in.get(g)) fail(m, "short grant message from rank " + std::to_string(r));
      });
    }
  });
}

void exchange_positions(Simulation::Impl& m, const std::vector<std::uint16_t>& owner,
                        std::vector<VehicleSample>& out) {
  ByteWriter w;
  for (std::size_t k = 0; k < out.size(); ++k) {
    if (owner[k] == m.part) w.put(out[k].position);
  }
  swap_messages(m, w.bytes(), "position exchange", [&](std::uint16_t r, ByteReader& in) {
    for (std::size_t k = 0; k < out.size(); ++k) {
      if (owner[k] == r && !in.get(out[k].position)) {
        fail(m, "short position message from rank " + std::to_string(r));
      }
    }
  });
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
  // A junction cluster is served by the rank of its first junction's connectors (the partition
  // keeps junctions joined by short links together, so that is the rank of all of them).
  const auto clusters = static_cast<std::uint32_t>(m.cluster_begin.size() - 1);
  m.cluster_part.assign(clusters, 0);
  for (std::uint32_t k = 0; k < clusters; ++k) {
    const std::uint32_t j = m.cluster_junctions[m.cluster_begin[k]];
    if (m.net.connector_begin[j] != m.net.connector_begin[j + 1]) {
      m.cluster_part[k] = m.lane_part[m.net.connectors[m.net.connector_begin[j]]];
    }
  }
  return Ok{};
}

const ShareStats& Simulation::share_stats() const { return m_impl->share_stats; }

}  // namespace cityforge::traffic
