// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "cityforge/core/vec.hpp"

namespace cityforge::sim {

/// Double-buffered spatial hash for neighbour queries (seeds/002: the crowd's avoidance). Each
/// tick, agents insert themselves into the write buffer from any thread, lock-free (an atomic
/// counter hands out item slots); queries read the map of the previous tick, which nobody
/// writes, so they need no locks either. swap() turns the inserted items into that map with
/// one counting sort by bucket (O(items + buckets)): the items of a bucket lie together, and
/// since the cells of one row map to consecutive buckets, a query reads one contiguous run of
/// items per row of cells (3 runs for the usual 3 x 3 cells) instead of chasing a list per cell
/// through memory in insertion order. The map is stored as arrays (positions, velocities, ids),
/// so the scan reads 8 bytes an item (its position) and the rest only of the items it keeps.
/// Buckets hash the cell coordinates, so the map is unbounded in space; a query whose cells
/// have buckets of their own (nearly all) tests distances only, else each item's cell as well.
/// swap() also orders each bucket's items by id, so the map, and the order of every query's
/// results (see query), depend only on what was inserted, not on the order (or thread) of
/// insertion, and a query needs no sort of its own. A cell about the usual query radius is
/// best (3 x 3 cells).
class SpatialHash {
 public:
  /// cell_m: edge of a cell (about the usual query radius). max_items: per tick (inserts past
  /// it fail). buckets: rounded up to a power of two (about max_items is good).
  SpatialHash(float cell_m, std::uint32_t max_items, std::uint32_t buckets);

  /// Thread-safe. Adds item `id` at `p` to this tick's map; false when the map is full.
  bool insert(std::uint32_t id, Vec2 p);

  /// Ends the tick: queries now read what was inserted since the last swap; the other map is
  /// emptied for inserts. Not concurrent with insert or query.
  void swap();

  /// Ids inserted last tick within `radius` of `p` (inclusive), into `out` (cleared first), in
  /// query order: by cell, rows of cells upwards (y) and cells along a row (x), and by id
  /// within a cell (an id inserted twice in one cell: by its position's, then velocity's,
  /// bits). A query wider than the bucket table (cells across > buckets) goes by bucket along
  /// a row instead of by cell. The order is a function of the inserted items and the query
  /// alone. Thread-safe against inserts and other queries.
  void query(Vec2 p, float radius, std::vector<std::uint32_t>& out) const;

  /// An item with its position and velocity as inserted (the crowd's avoidance needs both).
  struct Hit {
    std::uint32_t id = 0;
    float x = 0;
    float y = 0;
    float vx = 0;
    float vy = 0;
  };
  /// Thread-safe. Adds item `id` at `p` moving at `v`; false when the map is full.
  bool insert(std::uint32_t id, Vec2 p, Vec2 v);
  /// Items inserted last tick within `radius` of `p` (inclusive), in query order (as the ids),
  /// into `out` (cleared first). Thread-safe against inserts and other queries.
  void query(Vec2 p, float radius, std::vector<Hit>& out) const;

  /// Thread-safe. Adds items first_id, first_id + 1, ... at `p` moving at `v` (same length)
  /// with one atomic add for all their slots, which spares the counter's cache line a round
  /// trip between threads per item; returns how many were added (the first ones; fewer than
  /// p.size() only when the map is full).
  std::uint32_t insert(std::uint32_t first_id, std::span<const Vec2> p, std::span<const Vec2> v);
  /// Same, for items with any ids (`ids`, `p` and `v` of the same length).
  std::uint32_t insert(std::span<const std::uint32_t> ids, std::span<const Vec2> p,
                       std::span<const Vec2> v);

  /// Keeps a read copy of the map per TBB thread (task arena slot) below `n`: swap() builds
  /// the map on the calling thread, each other thread copies it in one sequential pass at its
  /// first query after the swap, and its queries read that copy. A map written by one core and
  /// read at random by another costs a cross-core miss per cache line, every tick; the copy
  /// costs one streamed read. Every copy holds the same bytes, so results do not depend on
  /// which copy answers. The queries of one tick must come from one task arena (two arenas'
  /// threads may share a slot number); threads outside it, and slot 0, read the original.
  /// n <= 1 (the default): one map. Not concurrent with insert, query or swap.
  void set_read_copies(std::uint32_t n);
  /// Copies made so far by the threads' first queries after each swap (tests read it).
  std::uint64_t copies_made() const;

  /// Items in the map queries read.
  std::uint32_t size() const;
  float cell_m() const { return m_cell; }

 private:
  struct alignas(32) Item {  // An insert: 32 bytes, two to a cache line, never split across two.
    float x = 0;
    float y = 0;
    float vx = 0;
    float vy = 0;
    std::uint32_t id = 0;
    std::uint32_t bucket = 0;
  };
  struct CellRange {
    std::int32_t x0, x1, y0, y1;
  };
  CellRange cells_around(float px, float py, float radius) const;
  std::uint32_t row_base(std::int32_t cy) const;
  void put(std::uint32_t k, std::uint32_t id, Vec2 p, Vec2 v);
  /// Hands out n consecutive item slots with one atomic add: (first, how many fit).
  std::pair<std::uint32_t, std::uint32_t> reserve(std::uint32_t n);
  // The map's order within a bucket: by id, then by the item's bits.
  static bool before(const Item& a, const Item& b);
  // A map queries read: last tick's items in the map's order (by bucket, then id), bucket b's
  // at [start[b], start[b + 1]), packed apart (structure of arrays): the scan reads only
  // positions, 8 bytes an item, and the rest only of the items it keeps.
  struct ReadMap {
    std::unique_ptr<float[]> xy;  // x, y
    std::unique_ptr<float[]> v;   // vx, vy
    std::unique_ptr<std::uint32_t[]> ids;
    std::unique_ptr<std::uint32_t[]> start;  // buckets + 2 (the sort's cursors use one more).
    std::uint64_t generation = 0;            // Of the swap it was copied at (copies only).
    std::uint64_t copies = 0;                // Times it was copied (copies only).
  };
  void allocate(ReadMap& map) const;
  // What a query reads of a map.
  struct View {
    const std::uint32_t* start;
    const float* xy;
    const float* v;
    const std::uint32_t* ids;
  };
  static View view_of(const ReadMap& map);
  // The map for a query on this thread: its own fresh copy, else the original.
  View read_view() const;
  // Items of the read map within `radius` of (px, py), in query order (see query): their slots
  // into `slots`; the count, or cap + 1 when `cap` entries were not enough.
  std::uint32_t gather(const View& map, float px, float py, float radius, std::uint32_t* slots,
                       std::uint32_t cap) const;
  template <class Out, class Make>
  void collect(Vec2 p, float radius, std::vector<Out>& out, Make make) const;

  float m_cell;
  double m_inv_cell;
  std::uint32_t m_max_items;
  std::uint32_t m_mask;
  std::uint32_t m_shift;  // 32 - log2(bucket count), for the row hash.
  std::uint32_t m_buckets;
  // This tick's inserts, in slot order.
  std::unique_ptr<Item[]> m_inserted;
  std::unique_ptr<std::uint32_t[]> m_bucket_of;  // swap()'s work: each map item's bucket.
  alignas(64) std::atomic<std::uint32_t> m_count{0};
  char m_count_pad[60] = {};  // Nothing the queries read shares the counter's cache line.
  // The map queries read ([0], built by swap) and the threads' copies of it ([1..]).
  mutable std::vector<ReadMap> m_read;
  View m_view{};                   // Of m_read[0] (its arrays stay put when m_read grows).
  bool m_copies = false;           // m_read.size() > 1.
  std::uint64_t m_generation = 0;  // Swaps so far.
  std::uint32_t m_read_count = 0;
};

}  // namespace cityforge::sim
