// SPDX-License-Identifier: Apache-2.0
// The traffic partitioned over ranks (Simulation::share, docs/traffic.md "Over MPI ranks").
// A rank drives the vehicles on its part's lanes and serves its part's junctions and merges. Its
// world holds every vehicle's row (the rows, chunks and commands are the same on every rank),
// but only its own vehicles' rows and its halo's are kept current: at every tick's start each
// rank sends the vehicles on its lanes to the ranks whose halo holds their lane (the lanes
// another rank's vehicles and junctions read within a tick: up to kHaloAhead successors ahead,
// two predecessors behind, and their neighbours), and a vehicle it drove onto another rank's
// lane goes there whole (state, route, last driven tick). After the driving, the ranks
// exchange only counts and sums (integers, so their order does not matter) and the vehicles
// whose trip ended (pooled on every rank). gather_state() sends every rank's vehicles to every
// rank, so the whole state reads as one process holds it, bit for bit, for any rank count.
#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "cityforge/core/rng.hpp"
#include "traffic/detail/processors.hpp"

namespace cityforge::traffic {

using namespace detail;

namespace {

/// Stream of the commands written for the vehicles another rank pooled (beyond any chunk
/// ordinal; commands apply by entity index first, so the stream does not change their order).
constexpr std::uint32_t kShareStream = 0xffffffffU;

/// Successor steps ahead of a rank's lanes that its vehicles and junctions may read: the
/// look-ahead's four lanes, plans three lanes on from a lane crossed this tick, and the
/// density-weighted choice one connector beyond (drive.cpp, spawn.cpp).
constexpr int kHaloAhead = 8;
/// Predecessor steps behind: a junction sees the front vehicles up to two lanes before its
/// approaches (coordinator.cpp, approaching()).
constexpr int kHaloBehind = 2;

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

/// One vehicle's row as it travels between ranks.
struct RowRecord {
  std::uint32_t row = 0;
  std::uint32_t entity = 0;
  LaneState lane;
  Driver driver;
  LaneChange change;
  Trip trip;
  std::uint32_t moved_tick = 0;
  std::uint8_t migrant = 0;  ///< Now the receiver's: its route follows when it has a trip.
};

/// What another rank's halo needs of a vehicle: what its queue entry is made of (the type and
/// whether it is on a trip do not change, and every rank knows them).
struct HaloRecord {
  std::uint32_t row = 0;
  std::uint32_t entity = 0;
  LaneState lane;
  LaneChange change;
  float stopped_s = 0;
  std::uint32_t moved_tick = 0;
};

/// What a rank's driving adds to the tick's figures (counters, integer sums), and what it held.
struct TickSums {
  std::array<std::uint64_t, kCounters> counters{};
  std::uint64_t aborted = 0;  ///< Lane changes called off by its queues.
  std::int64_t distance = 0;  ///< fixed20
  std::int64_t speed = 0;     ///< fixed20
  std::uint64_t driven = 0;
  std::uint64_t own = 0;     ///< Moving vehicles it held.
  std::uint64_t ids = 0;     ///< Their hashed ids, summed.
  std::uint64_t pooled = 0;  ///< Pooled vehicles (records) following.
};

/// Kinds of the records of the halo exchange.
enum : std::uint8_t {
  kStillHere = 0,  ///< Not driven since it was last sent: the receiver's copy is current.
  kHalo = 1,       ///< A HaloRecord.
  kHandedOver = 2  ///< A RowRecord, then the route when it is on a trip.
};

[[noreturn]] void fail(const Simulation::Impl& m, const std::string& what) {
  std::fprintf(stderr, "error: rank %d: traffic exchange: %s\n", m.ranks->rank(), what.c_str());
  m.ranks->abort(3);
  std::abort();  // Not reached: Ranks::abort ends the job.
}

/// The moving vehicles' rows: chunks, columns and each chunk's first global row (the same on
/// every rank: the rows and their order are).
struct Rows {
  struct Columns {
    std::span<const sim::Entity> ents;
    std::span<LaneState> lane;
    std::span<Driver> driver;
    std::span<LaneChange> change;
    std::span<Trip> trip;
  };
  std::vector<sim::ChunkView> chunks;
  std::vector<Columns> cols;
  std::vector<std::uint32_t> base;  ///< chunks + 1

  explicit Rows(sim::World& w) : chunks(w.chunks(moving_query(w))) {
    cols.reserve(chunks.size());
    base.assign(chunks.size() + 1, 0);
    for (std::size_t c = 0; c < chunks.size(); ++c) {
      const sim::ChunkView& chunk = chunks[c];
      cols.push_back(Columns{chunk.entities(), chunk.write<LaneState>(), chunk.write<Driver>(),
                             chunk.write<LaneChange>(),
                             chunk.has<Trip>() ? chunk.write<Trip>() : std::span<Trip>{}});
      base[c + 1] = base[c] + static_cast<std::uint32_t>(chunk.size());
    }
  }
  std::uint32_t size() const { return base.back(); }
  /// The chunk holding a row (rows < size()).
  std::size_t chunk_of(std::uint32_t row) const {
    return static_cast<std::size_t>(std::upper_bound(base.begin(), base.end(), row) - base.begin() -
                                    1);
  }
  RowRecord record(const Simulation::Impl& m, std::size_t c, std::size_t i) const {
    const Columns& col = cols[c];
    RowRecord rec;
    rec.row = base[c] + static_cast<std::uint32_t>(i);
    rec.entity = col.ents[i].index;
    rec.lane = col.lane[i];
    rec.driver = col.driver[i];
    rec.change = col.change[i];
    if (!col.trip.empty()) rec.trip = col.trip[i];
    if (!m.moved_tick.empty()) rec.moved_tick = m.moved_tick[rec.entity];
    return rec;
  }
  /// Writes a record into its row; the row must hold the same vehicle (else the ranks' worlds
  /// differ and the job stops). Returns the chunk.
  /// Where a row another rank named lies: its chunk and index. A row past the last, one that
  /// holds another vehicle than `entity` (kNone: not checked) or a lane that is not one stops
  /// the job (the ranks' worlds differ, or the message is not ours).
  std::pair<std::size_t, std::size_t> locate(const Simulation::Impl& m, std::uint32_t row,
                                             std::uint32_t entity, LaneId lane,
                                             std::uint16_t from) const {
    if (row >= size()) fail(m, "rank " + std::to_string(from) + " sent a row past the last one");
    const std::size_t c = chunk_of(row);
    const std::size_t i = row - base[c];
    if (entity != kNone && cols[c].ents[i].index != entity) {
      fail(m, "rank " + std::to_string(from) + " sent row " + std::to_string(row) +
                  " as another vehicle: the ranks' worlds differ");
    }
    if (lane != kNone && lane >= m.net.lane_count()) {
      fail(m, "rank " + std::to_string(from) + " sent a vehicle on lane " + std::to_string(lane) +
                  ", past the last lane");
    }
    return {c, i};
  }
  /// Writes a record into its row (located as above). Returns the chunk.
  std::size_t write(Simulation::Impl& m, const RowRecord& rec, std::uint16_t from) const {
    const auto [c, i] = locate(m, rec.row, rec.entity, rec.lane.lane, from);
    const Columns& col = cols[c];
    col.lane[i] = rec.lane;
    col.driver[i] = rec.driver;
    col.change[i] = rec.change;
    if (!col.trip.empty()) col.trip[i] = rec.trip;
    if (!m.moved_tick.empty()) m.moved_tick[rec.entity] = rec.moved_tick;
    return c;
  }
};

/// A set of rows, each marked once or more, read back ascending (a bit per row: clearing and
/// reading it costs 1/64 of a pass over the rows).
class RowMarks {
 public:
  explicit RowMarks(std::uint32_t rows) : m_bits((rows + 63) / 64, 0) {}
  void mark(std::uint32_t row) { m_bits[row >> 6U] |= std::uint64_t{1} << (row & 63U); }
  template <class F>
  void each(F&& f) const {
    for (std::size_t w = 0; w < m_bits.size(); ++w) {
      for (std::uint64_t x = m_bits[w]; x != 0; x &= x - 1) {
        f(static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(std::countr_zero(x))));
      }
    }
  }

 private:
  std::vector<std::uint64_t> m_bits;
};

/// What one rank sent this one, read whole (a short or long message stops the job).
template <class Read>
void read_message(Simulation::Impl& m, const std::string& bytes, std::uint16_t from,
                  const char* what, Read&& read) {
  ByteReader in(bytes, what);
  read(in);
  if (!in.done()) fail(m, std::string(what) + ": rank " + std::to_string(from) + "'s is too long");
}

template <class T>
void get_or_fail(Simulation::Impl& m, ByteReader& in, T& v, std::uint16_t from, const char* what) {
  if (!in.get(v)) fail(m, std::string("short ") + what + " from rank " + std::to_string(from));
}

/// All-gathers this rank's `mine` and hands every other rank's message to read(rank, reader);
/// counts the bytes and the time.
template <class Read>
void swap_messages(Simulation::Impl& m, const std::string& mine, const char* what, Read&& read) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<std::string> all = all_gather(*m.ranks, mine);
  ShareStats& st = m.share_stats;
  st.bytes[m.part] += mine.size();
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (static_cast<int>(r) == m.ranks->rank()) continue;
    read_message(m, all[r], static_cast<std::uint16_t>(r), what,
                 [&](ByteReader& in) { read(static_cast<std::uint16_t>(r), in); });
  }
  st.exchange_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Marks the rows of the vehicles this rank may hold: those it drove in the last tick and
/// placed since, found by their ids (a vehicle pooled since is no longer a row), when known;
/// else (after share() and gather_state(), which change rows wholesale) every row it holds.
void mark_held(Simulation::Impl& m, const Rows& rows, RowMarks& marks) {
  if (m.held_known) {
    const std::vector<std::uint32_t> first = m.world.first_rows(moving_query(m.world));
    const auto mark = [&](std::uint32_t e) {
      const sim::World::Place at = m.world.place(e);
      if (at.archetype == sim::World::kNowhere || first[at.archetype] == sim::World::kNowhere)
        return;
      marks.mark(first[at.archetype] + at.row);
    };
    for (const std::uint32_t e : m.held)
      mark(e);
    for (const std::uint32_t e : m.placed_here)
      mark(e);
    return;
  }
  for (std::size_t c = 0; c < rows.chunks.size(); ++c) {
    const Rows::Columns& col = rows.cols[c];
    for (std::size_t i = 0; i < col.ents.size(); ++i) {
      if (holds(m, col.ents[i].index, col.lane[i].lane))
        marks.mark(rows.base[c] + static_cast<std::uint32_t>(i));
    }
  }
}

}  // namespace

namespace detail {

std::vector<std::uint32_t> held_rows(Simulation::Impl& m) {
  const Rows rows(m.world);
  RowMarks marks(rows.size());
  mark_held(m, rows, marks);
  std::vector<std::uint32_t> out;
  std::size_t c = 0;
  marks.each([&](std::uint32_t row) {
    while (rows.base[c + 1] <= row)
      ++c;
    const std::size_t i = row - rows.base[c];
    if (holds(m, rows.cols[c].ents[i].index, rows.cols[c].lane[i].lane)) out.push_back(row);
  });
  return out;
}

void gather_near(Simulation::Impl& m, std::vector<VehicleSample>& near) {
  ByteWriter w;
  w.reserve(sizeof(std::uint64_t) + near.size() * sizeof(VehicleSample));
  w.put(static_cast<std::uint64_t>(near.size()));
  for (const VehicleSample& s : near)
    w.put(s);
  swap_messages(m, w.bytes(), "position exchange", [&](std::uint16_t r, ByteReader& in) {
    std::uint64_t n = 0;
    get_or_fail(m, in, n, r, "position message");
    for (std::uint64_t k = 0; k < n; ++k) {
      VehicleSample s;
      get_or_fail(m, in, s, r, "position message");
      near.push_back(s);
    }
  });
  std::sort(near.begin(), near.end(),
            [](const VehicleSample& a, const VehicleSample& b) { return a.id < b.id; });
  for (std::size_t k = 1; k < near.size(); ++k) {
    if (near[k].id == near[k - 1].id)
      fail(m, "two ranks placed vehicle " + std::to_string(near[k].id));
  }
}

void exchange_halo(Simulation::Impl& m, const sim::TickContext& ctx) {
  const auto t0 = std::chrono::steady_clock::now();
  const Rows rows(m.world);
  const auto size = static_cast<std::size_t>(m.ranks->size());
  m.halo_stamp = static_cast<std::uint32_t>(ctx.tick + 1);
  std::vector<ByteWriter> to(size);
  std::vector<std::uint64_t> count(size, 0);
  // 1. The rows this rank holds (when the lists are not known, after every row was passed
  // over: the moving vehicles' ids are summed afresh too).
  RowMarks candidates(rows.size());
  mark_held(m, rows, candidates);
  if (m.held_known) {
    m.moving_ids += m.moving_ids_change;
  } else {
    ++m.share_stats.row_passes;
    m.moving_ids = 0;
    for (const Rows::Columns& col : rows.cols) {
      for (const sim::Entity e : col.ents)
        m.moving_ids += held_id(e.index);
    }
  }
  m.moving_ids_change = 0;
  m.held_known = true;
  m.held.clear();
  m.placed_here.clear();
  RowMarks queued(rows.size());  // This rank's rows and its halo's.
  // 2. Per rank, a count, then records (kind, then the record); the count is put in front at
  // the end.
  std::uint64_t migrated = 0;
  const bool coarse = !m.moved_tick.empty();
  const auto last = static_cast<std::uint32_t>(ctx.tick);  // moved_tick of one driven last tick
  std::size_t c = 0;
  candidates.each([&](std::uint32_t row) {
    while (rows.base[c + 1] <= row)
      ++c;
    const std::size_t i = row - rows.base[c];
    const Rows::Columns& col = rows.cols[c];
    const std::uint32_t e = col.ents[i].index;
    const LaneId lane = col.lane[i].lane;
    const bool migrant = m.migrant[e] != 0U;
    if (m.lane_part[lane] != m.part && !migrant) return;  // Not this rank's to send.
    if (migrant) {
      m.migrant[e] = 0;
      ++migrated;
      const std::uint16_t r = m.lane_part[lane];
      to[r].put(kHandedOver);
      to[r].put(rows.record(m, c, i));
      if (!col.trip.empty()) to[r].put_vector(m.routes[e]);
      ++count[r];
    } else {
      m.held.push_back(e);
      queued.mark(row);
    }
    if (m.halo_begin[lane] == m.halo_begin[lane + 1]) return;
    // A vehicle neither driven nor touched by the queues last tick is where it was: it sat
    // on this lane then too, held by this rank, and went to the same halos (an `off` vehicle
    // between its steps). Its row number says it is still there.
    const bool still = coarse && !migrant && m.moved_tick[e] != last && m.touched[e] != last;
    HaloRecord h;
    if (!still) {
      h.row = row;
      h.entity = e;
      h.lane = col.lane[i];
      h.change = col.change[i];
      h.stopped_s = col.driver[i].stopped_s;
      if (coarse) h.moved_tick = m.moved_tick[e];
    }
    for (std::uint32_t q = m.halo_begin[lane]; q < m.halo_begin[lane + 1]; ++q) {
      const std::uint16_t r = m.halo_ranks[q];
      if (r == m.part) {
        queued.mark(row);  // Driven here onto a lane of this rank's halo.
        continue;
      }
      if (still) {
        to[r].put(kStillHere);
        to[r].put(row);
      } else {
        to[r].put(kHalo);
        to[r].put(h);
      }
      ++count[r];
    }
  });
  std::vector<std::string> out(size);
  std::uint64_t sent = 0;
  for (std::size_t r = 0; r < size; ++r) {
    if (r == m.part) continue;
    ByteWriter w;
    w.reserve(sizeof(std::uint64_t) + to[r].bytes().size());
    w.put(count[r]);
    out[r] = w.take() + to[r].take();
    sent += out[r].size();
  }
  const auto t1 = std::chrono::steady_clock::now();
  const std::vector<std::string> got = m.ranks->all_to_all(out);
  const auto t2 = std::chrono::steady_clock::now();
  // 2. Write the others' vehicles into place: each row comes from one rank only (the one that
  // drove it last), so the order they are written in does not matter.
  for (std::size_t r = 0; r < size; ++r) {
    if (r == m.part) continue;
    const auto from = static_cast<std::uint16_t>(r);
    read_message(m, got[r], from, "halo exchange", [&](ByteReader& in) {
      std::uint64_t n = 0;
      get_or_fail(m, in, n, from, "halo message");
      for (std::uint64_t k = 0; k < n; ++k) {
        std::uint8_t kind = 0;
        get_or_fail(m, in, kind, from, "halo message");
        if (kind == kStillHere) {
          std::uint32_t row = 0;
          get_or_fail(m, in, row, from, "halo row");
          rows.locate(m, row, kNone, kNone, from);
          queued.mark(row);
        } else if (kind == kHalo) {
          HaloRecord h;
          get_or_fail(m, in, h, from, "halo row");
          const auto [hc, hi] = rows.locate(m, h.row, h.entity, h.lane.lane, from);
          const Rows::Columns& col = rows.cols[hc];
          col.lane[hi] = h.lane;
          col.change[hi] = h.change;
          col.driver[hi].stopped_s = h.stopped_s;
          if (!m.moved_tick.empty()) m.moved_tick[h.entity] = h.moved_tick;
          queued.mark(h.row);
        } else if (kind == kHandedOver) {
          RowRecord rec;
          get_or_fail(m, in, rec, from, "handed-over vehicle");
          const std::size_t hc = rows.write(m, rec, from);
          if (m.lane_part[rec.lane.lane] != m.part) {
            fail(m, "rank " + std::to_string(r) + " handed over a vehicle on another's lane");
          }
          if (!rows.cols[hc].trip.empty() && !in.get_vector(m.routes[rec.entity])) {
            fail(m, "short route from rank " + std::to_string(r));
          }
          m.held.push_back(rec.entity);
          queued.mark(rec.row);
        } else {
          fail(m, "rank " + std::to_string(r) + " sent a halo record of unknown kind");
        }
      }
    });
  }
  m.queued_rows.clear();
  queued.each([&](std::uint32_t row) { m.queued_rows.push_back(row); });
  ShareStats& st = m.share_stats;
  st.migrations += migrated;
  st.bytes[m.part] += sent;
  st.halo_bytes += sent;
  st.pack_s += std::chrono::duration<double>(t1 - t0).count();
  st.transfer_s += std::chrono::duration<double>(t2 - t1).count();
  st.exchange_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::array<std::uint64_t, kCounters> begin_shared_drive(Simulation::Impl& m) {
  return read_counters(m.counters);
}

void exchange_driven(Simulation::Impl& m, const sim::TickContext& ctx,
                     const std::array<std::uint64_t, kCounters>& before) {
  const auto t0 = std::chrono::steady_clock::now();
  const Rows rows(m.world);
  // 1. This rank's counters, sums and pooled vehicles (whole, so every rank's pool holds them
  // as they ended).
  ByteWriter w;
  std::array<std::uint64_t, kCounters> delta = read_counters(m.counters);
  for (std::size_t k = 0; k < kCounters; ++k)
    delta[k] -= before[k];
  std::uint64_t own = 0;
  for (const std::uint32_t n : m.chunk_own)
    own += n;
  // A sum of the hashed ids of the vehicles this rank held (those it drove, wherever they
  // ended: one driven onto another rank's lane is this rank's until handed over): with the
  // count, it shows a vehicle lost or held by two ranks, whatever the order of the sums. The
  // sum over every moving vehicle is kept as vehicles are pooled and placed (moving_ids).
  std::uint64_t ids = 0;
  for (std::size_t c = 0; c < rows.chunks.size(); ++c) {
    for (const std::uint32_t i : m.chunk_own_rows[rows.chunks[c].ordinal()])
      ids += held_id(rows.cols[c].ents[i].index);
  }
  TickSums mine{delta, m.own_aborted, m.sum_distance, m.sum_speed, m.sum_driven, own, ids, 0};
  for (const auto& p : m.chunk_pooled)
    mine.pooled += p.size();
  w.put(mine);
  for (std::size_t c = 0; c < rows.chunks.size(); ++c) {
    const std::uint32_t o = rows.chunks[c].ordinal();
    for (const std::uint32_t row : m.chunk_pooled[o]) {
      const std::uint32_t e = rows.cols[c].ents[row - rows.base[c]].index;
      w.put(rows.record(m, c, row - rows.base[c]));
      m.migrant[e] = 0;
      m.moving_ids_change -= held_id(e);
    }
  }
  m.counters.lane_changes_aborted += m.own_aborted;
  ShareStats& st = m.share_stats;
  st.updates[m.part] += own;
  std::uint64_t total_own = own;
  std::uint64_t total_ids = ids;
  sim::CommandWriter out = ctx.writer(kShareStream);
  const auto t1 = std::chrono::steady_clock::now();
  swap_messages(m, w.bytes(), "traffic exchange", [&](std::uint16_t r, ByteReader& in) {
    TickSums theirs;
    get_or_fail(m, in, theirs, r, "sums");
    add_counters(m.counters, theirs.counters);
    m.counters.lane_changes_aborted += theirs.aborted;
    m.sum_distance += theirs.distance;
    m.sum_speed += theirs.speed;
    m.sum_driven += theirs.driven;
    st.updates[r] += theirs.own;
    total_own += theirs.own;
    total_ids += theirs.ids;
    const std::uint64_t n = theirs.pooled;
    for (std::uint64_t k = 0; k < n; ++k) {
      RowRecord rec;
      get_or_fail(m, in, rec, r, "pooled vehicle");
      const std::size_t c = rows.write(m, rec, r);
      out.add(rows.cols[c].ents[rec.row - rows.base[c]], Pooled{});
      m.moving_ids_change -= held_id(rec.entity);
    }
  });
  // Every moving vehicle driven by exactly one rank: none lost, none held twice.
  if (total_own != rows.size() || total_ids != m.moving_ids) {
    fail(m, std::to_string(total_own) + " vehicles were held by the ranks this tick, of " +
                std::to_string(rows.size()) + " moving" +
                (total_own == rows.size() ? " (the same count, but not the same vehicles)" : "") +
                ": a vehicle was lost or held twice");
  }
  ++st.exchanges;
  st.pack_s += std::chrono::duration<double>(t1 - t0).count();
  st.exchange_s += std::chrono::duration<double>(t1 - t0).count();
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
  // Per merge, in order: its claim (vehicle, distance, length), then its yielding lanes' grants.
  const auto each_merge = [&](std::size_t k, auto&& grant, auto&& value) {
    const LaneId d = m.merge_lanes[k];
    grant(m.claim[d]);
    value(m.claim_dist_m[d]);
    value(m.claim_length_m[d]);
    for (const LaneId y : m.merge_yielding[k])
      grant(m.grant[y]);
  };
  ByteWriter w;
  const auto put = [&](const auto& v) { w.put(v); };
  for (std::uint32_t k = 0; k < clusters; ++k) {
    if (m.cluster_part[k] == m.part) each_slot(k, put);
  }
  for (std::size_t k = 0; k < m.merge_lanes.size(); ++k) {
    if (m.lane_part[m.merge_lanes[k]] == m.part) each_merge(k, put, put);
  }
  swap_messages(m, w.bytes(), "grant exchange", [&](std::uint16_t r, ByteReader& in) {
    const auto get = [&](auto& v) { get_or_fail(m, in, v, r, "grant message"); };
    for (std::uint32_t k = 0; k < clusters; ++k) {
      if (m.cluster_part[k] == r) each_slot(k, get);
    }
    for (std::size_t k = 0; k < m.merge_lanes.size(); ++k) {
      if (m.lane_part[m.merge_lanes[k]] == r) each_merge(k, get, get);
    }
  });
}

namespace {

/// How many vehicles of a sample vector this rank holds (mine[k] != 0).
std::uint64_t count_held(const std::vector<std::uint8_t>& mine) {
  std::uint64_t n = 0;
  for (const std::uint8_t x : mine)
    n += x;
  return n;
}

/// This rank's vehicles of `out` (where mine[k] != 0) for other ranks: their count, then each
/// one's place k and the `part` of its sample (part(sample) is a reference to it).
template <class Part>
std::string pack_held(const std::vector<std::uint8_t>& mine, std::vector<VehicleSample>& out,
                      Part part) {
  const std::uint64_t n = count_held(mine);
  ByteWriter w;
  w.reserve(sizeof n + n * (sizeof(std::uint32_t) + sizeof(part(out.front()))));
  w.put(n);
  for (std::size_t k = 0; k < out.size(); ++k) {
    if (mine[k] == 0U) continue;
    w.put(static_cast<std::uint32_t>(k));
    w.put(part(out[k]));
  }
  return w.take();
}

/// Rank `from`'s pack_held message into `out`: each place in range and not written before
/// (`placed` marks them, this rank's own first), else the job stops. Returns how many it sent.
template <class Part>
std::uint64_t unpack_held(Simulation::Impl& m, ByteReader& in, std::uint16_t from,
                          std::vector<std::uint8_t>& placed, std::vector<VehicleSample>& out,
                          Part part) {
  std::uint64_t count = 0;
  get_or_fail(m, in, count, from, "vehicle message");
  for (std::uint64_t q = 0; q < count; ++q) {
    std::uint32_t k = 0;
    get_or_fail(m, in, k, from, "vehicle message");
    if (k >= out.size() || placed[k] != 0U)
      fail(m, "rank " + std::to_string(from) + " sent a vehicle another rank sent too");
    placed[k] = 1;
    get_or_fail(m, in, part(out[k]), from, "vehicle message");
  }
  return count;
}

}  // namespace

void exchange_positions(Simulation::Impl& m, const std::vector<std::uint8_t>& mine,
                        std::vector<VehicleSample>& out) {
  const auto position = [](VehicleSample& s) -> Vec3& { return s.position; };
  std::vector<std::uint8_t> placed_by = mine;
  std::uint64_t placed = count_held(mine);
  swap_messages(m, pack_held(mine, out, position), "position exchange",
                [&](std::uint16_t r, ByteReader& in) {
                  placed += unpack_held(m, in, r, placed_by, out, position);
                });
  if (placed != out.size()) {
    fail(m, "the ranks placed " + std::to_string(placed) + " of " + std::to_string(out.size()) +
                " vehicles");
  }
}

void gather_samples(Simulation::Impl& m, const std::vector<std::uint8_t>& mine,
                    std::vector<VehicleSample>& out) {
  const auto whole = [](VehicleSample& s) -> VehicleSample& { return s; };
  const std::vector<std::string> all = m.ranks->gather(pack_held(mine, out, whole));
  if (m.ranks->rank() != 0) {
    out.clear();
    return;
  }
  std::vector<std::uint8_t> placed_by = mine;
  std::uint64_t placed = count_held(mine);
  for (std::size_t r = 1; r < all.size(); ++r) {
    const auto from = static_cast<std::uint16_t>(r);
    read_message(m, all[r], from, "sample gather", [&](ByteReader& in) {
      placed += unpack_held(m, in, from, placed_by, out, whole);
    });
  }
  if (placed != out.size()) {
    fail(m, "the ranks sampled " + std::to_string(placed) + " of " + std::to_string(out.size()) +
                " vehicles");
  }
}

std::vector<std::uint8_t> or_over_ranks(Simulation::Impl& m, std::vector<std::uint8_t> bits) {
  ByteWriter w;
  w.put_vector(bits);
  swap_messages(m, w.bytes(), "spawn exchange", [&](std::uint16_t r, ByteReader& in) {
    std::vector<std::uint8_t> theirs;
    if (!in.get_vector(theirs) || theirs.size() != bits.size()) {
      fail(m, "rank " + std::to_string(r) + " weighed other spawn attempts");
    }
    for (std::size_t k = 0; k < bits.size(); ++k)
      bits[k] |= theirs[k];
  });
  return bits;
}

void gather_state(Simulation::Impl& m) {
  const Rows rows(m.world);
  ByteWriter w;
  std::uint64_t n = 0;
  for (std::size_t c = 0; c < rows.chunks.size(); ++c) {
    const Rows::Columns& col = rows.cols[c];
    for (std::size_t i = 0; i < col.ents.size(); ++i)
      n += holds(m, col.ents[i].index, col.lane[i].lane) ? 1 : 0;
  }
  w.reserve(sizeof n + n * sizeof(RowRecord));
  w.put(n);
  // A vehicle driven onto another rank's lane is handed over here with its route: after the
  // gather that rank holds it (its lane is that rank's), so it is not handed over again.
  for (std::size_t c = 0; c < rows.chunks.size(); ++c) {
    const Rows::Columns& col = rows.cols[c];
    for (std::size_t i = 0; i < col.ents.size(); ++i) {
      const std::uint32_t e = col.ents[i].index;
      if (!holds(m, e, col.lane[i].lane)) continue;
      RowRecord rec = rows.record(m, c, i);
      rec.migrant = m.migrant[e];
      w.put(rec);
      if (rec.migrant != 0U) {
        if (!col.trip.empty()) w.put_vector(m.routes[e]);
        ++m.share_stats.migrations;  // Handed over here rather than at the next tick's start.
      }
      m.migrant[e] = 0;
    }
  }
  std::uint64_t total = n;
  swap_messages(m, w.bytes(), "state gather", [&](std::uint16_t r, ByteReader& in) {
    std::uint64_t count = 0;
    get_or_fail(m, in, count, r, "state message");
    for (std::uint64_t k = 0; k < count; ++k) {
      RowRecord rec;
      get_or_fail(m, in, rec, r, "state row");
      const std::size_t c = rows.write(m, rec, r);
      if (rec.migrant != 0U && !rows.cols[c].trip.empty()) {
        std::vector<RouteStep> route;
        if (!in.get_vector(route)) fail(m, "short route from rank " + std::to_string(r));
        if (m.lane_part[rec.lane.lane] == m.part) m.routes[rec.entity] = std::move(route);
      }
    }
    total += count;
  });
  if (total != rows.size()) {
    fail(m, "the ranks hold " + std::to_string(total) + " of " + std::to_string(rows.size()) +
                " moving vehicles");
  }
  m.held_known = false;  // Vehicles handed over here: the next tick finds its rows afresh.
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
  if (ranks.size() == 1) {  // One rank drives everything: nothing to exchange.
    finish_populate(m);
    return Ok{};
  }
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
  // The halos: per rank, the lanes of other ranks within kHaloAhead successors of its lanes or
  // kHaloBehind predecessors, with their same-direction neighbours (whose lane changes put
  // ghosts on them). Every rank works out every rank's, so each knows whom to send what.
  const Network& net = m.net;
  const std::uint32_t lanes = net.lane_count();
  std::vector<std::vector<std::uint16_t>> holders(lanes);
  std::vector<int> ahead(lanes);
  std::vector<int> behind(lanes);
  std::vector<std::uint8_t> in_halo(lanes);
  for (std::uint16_t r = 0; r < partition.parts; ++r) {
    std::fill(ahead.begin(), ahead.end(), -1);
    std::fill(behind.begin(), behind.end(), -1);
    std::fill(in_halo.begin(), in_halo.end(), 0);
    std::vector<LaneId> front;
    for (LaneId l = 0; l < lanes; ++l) {
      if (m.lane_part[l] == r) {
        ahead[l] = 0;
        behind[l] = 0;
        front.push_back(l);
      }
    }
    const auto walk = [&](std::vector<int>& depth, int limit,
                          const std::vector<std::uint32_t>& begin,
                          const std::vector<LaneId>& next) {
      std::vector<LaneId> at = front;
      for (int d = 1; d <= limit && !at.empty(); ++d) {
        std::vector<LaneId> more;
        for (const LaneId l : at) {
          for (std::uint32_t q = begin[l]; q < begin[l + 1]; ++q) {
            const LaneId n = next[q];
            if (depth[n] >= 0) continue;
            depth[n] = d;
            in_halo[n] = 1;
            more.push_back(n);
          }
        }
        at = std::move(more);
      }
    };
    walk(ahead, kHaloAhead, net.succ_begin, net.succ);
    walk(behind, kHaloBehind, net.pred_begin, net.pred);
    for (LaneId l = 0; l < lanes; ++l) {
      if (in_halo[l] == 0U) continue;
      for (const LaneId n : {l, net.left[l], net.right[l]}) {
        if (n == kNoLane || m.lane_part[n] == r) continue;
        if (holders[n].empty() || holders[n].back() != r) holders[n].push_back(r);
      }
    }
  }
  m.halo_begin.assign(lanes + 1, 0);
  m.halo_ranks.clear();
  // The lanes whose queues this rank builds: its own and those of its halo, and their
  // same-direction neighbours (where their vehicles' lane changes put ghosts).
  m.queue_lanes.clear();
  m.queue_lane.assign(lanes, 0);
  for (LaneId l = 0; l < lanes; ++l) {
    m.halo_ranks.insert(m.halo_ranks.end(), holders[l].begin(), holders[l].end());
    m.halo_begin[l + 1] = static_cast<std::uint32_t>(m.halo_ranks.size());
    if (!holders[l].empty()) ++st.halo_lanes;
    if (m.lane_part[l] != m.part &&
        std::find(holders[l].begin(), holders[l].end(), m.part) == holders[l].end()) {
      continue;
    }
    for (const LaneId n : {l, net.left[l], net.right[l]}) {
      if (n != kNoLane) m.queue_lane[n] = 1;
    }
  }
  for (LaneId l = 0; l < lanes; ++l) {
    if (m.queue_lane[l] != 0U) m.queue_lanes.push_back(l);
  }
  m.lane_begin.assign(lanes, 0);  // The other lanes' queues stay empty from now on.
  m.lane_end.assign(lanes, 0);
  m.migrant.assign(m.routes.size(), 0);
  m.touched.assign(m.routes.size(), 0);
  m.held_known = false;
  finish_populate(m);  // The initial trips, each routed by the rank of its lane.
  // The exchange figures are the ticks': the set-up's exchange (and the waits in it for the
  // slowest rank's routing) is not theirs.
  st.bytes.assign(partition.parts, 0);
  st.halo_bytes = 0;
  st.exchange_s = 0;
  st.pack_s = 0;
  st.transfer_s = 0;
  return Ok{};
}

void Simulation::gather_state() {
  if (m_impl->ranks != nullptr) detail::gather_state(*m_impl);
}

const ShareStats& Simulation::share_stats() const { return m_impl->share_stats; }

}  // namespace cityforge::traffic
