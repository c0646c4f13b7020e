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
/// tick, agents insert themselves into the write map from any thread, lock-free (an atomic
/// counter hands out item slots, an atomic exchange pushes the slot onto its bucket's list);
/// queries read the map of the previous tick, which nobody writes, so they need no locks
/// either. Nothing is ever removed: swap() makes the write map the read map and empties the
/// other one for the next tick in O(1) (each bucket head carries the tick it was written in, so
/// a head from an older tick reads as empty and nothing needs clearing). Buckets hash the cell
/// coordinates, so the map is unbounded in space; a query checks each item's cell and distance.
/// Results are returned sorted by id, so they do not depend on the order (or thread) of
/// insertion. Cells of one row map to consecutive buckets, so a query's row of cells reads one
/// or two cache lines of heads. A cell about the usual query radius is best (3 x 3 cells).
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

  /// Ids inserted last tick within `radius` of `p` (inclusive), ascending, into `out`
  /// (cleared first). Thread-safe against inserts and other queries.
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
  /// Items inserted last tick within `radius` of `p` (inclusive), ascending by id, into `out`
  /// (cleared first). Thread-safe against inserts and other queries.
  void query(Vec2 p, float radius, std::vector<Hit>& out) const;

  /// Thread-safe. Adds items first_id, first_id + 1, ... at `p` moving at `v` (same length)
  /// with one atomic add for all their slots, which spares the counter's cache line a round
  /// trip between threads per item; returns how many were added (the first ones; fewer than
  /// p.size() only when the map is full).
  std::uint32_t insert(std::uint32_t first_id, std::span<const Vec2> p, std::span<const Vec2> v);
  /// Same, for items with any ids (`ids`, `p` and `v` of the same length).
  std::uint32_t insert(std::span<const std::uint32_t> ids, std::span<const Vec2> p,
                       std::span<const Vec2> v);

  /// Items in the map queries read.
  std::uint32_t size() const;
  float cell_m() const { return m_cell; }

 private:
  struct alignas(32) Item {  // 32 bytes: two to a cache line, never split across two.
    float x = 0;
    float y = 0;
    float vx = 0;
    float vy = 0;
    std::uint32_t id = 0;
    std::uint32_t next = 0;  // Next item of the same bucket, or none.
    std::uint64_t cell = 0;  // cx in the high half, cy in the low half.
  };
  struct Map {
    std::unique_ptr<Item[]> items;
    // Per bucket: (tick << 32) | first item; a head whose tick is not the map's is empty.
    std::unique_ptr<std::atomic<std::uint64_t>[]> heads;
    std::atomic<std::uint32_t> count{0};
    std::uint32_t tick = 0;
    bool stale = false;  // Tick numbers wrapped around: clear the heads before the next use.
  };
  struct CellRange {
    std::int32_t x0, x1, y0, y1;
  };
  CellRange cells_around(float px, float py, float radius) const;
  std::uint32_t row_base(std::int32_t cy) const;
  void put(Map& map, std::uint32_t k, std::uint32_t id, Vec2 p, Vec2 v);
  /// Hands out n consecutive item slots of `map` with one atomic add: (first, how many fit).
  std::pair<std::uint32_t, std::uint32_t> reserve(Map& map, std::uint32_t n);
  // Items of the read map within `radius` of (px, py) as (id << 32 | slot), in no order, into
  // `found`; the count, or cap + 1 when `cap` entries were not enough.
  std::uint32_t gather(float px, float py, float radius, std::uint64_t* found,
                       std::uint32_t cap) const;
  template <class Out, class Make>
  void collect(Vec2 p, float radius, std::vector<Out>& out, Make make) const;

  float m_cell;
  double m_inv_cell;
  std::uint32_t m_max_items;
  std::uint32_t m_mask;
  std::uint32_t m_shift;  // 32 - log2(bucket count), for the row hash.
  std::uint32_t m_buckets;
  std::uint32_t m_tick = 1;  // Last tick number handed to a map; 0 is never a live tick.
  Map m_maps[2];
  int m_write = 0;
};

}  // namespace cityforge::sim
