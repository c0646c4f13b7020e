// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "cityforge/core/vec.hpp"

namespace cityforge::sim {

/// Double-buffered spatial hash for neighbour queries (seeds/002: the crowd's avoidance). Each
/// tick, agents insert themselves into the write map from any thread, lock-free (an atomic
/// counter hands out item slots, an atomic exchange pushes the slot onto its bucket's list);
/// queries read the map of the previous tick, which nobody writes, so they need no locks
/// either. Nothing is ever removed: swap() makes the write map the read map and empties the
/// other one for the next tick. Buckets hash the cell coordinates, so the map is unbounded in
/// space; a query checks each item's cell and distance. Results are returned sorted by id, so
/// they do not depend on the order (or thread) of insertion.
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

  /// Items in the map queries read.
  std::uint32_t size() const;
  float cell_m() const { return m_cell; }

 private:
  struct Item {  // 32 bytes.
    float x = 0;
    float y = 0;
    float vx = 0;
    float vy = 0;
    std::int32_t cx = 0;
    std::int32_t cy = 0;
    std::uint32_t id = 0;
    std::uint32_t next = 0;
  };
  struct Map {
    std::vector<Item> items;
    std::unique_ptr<std::atomic<std::uint32_t>[]> heads;
    std::atomic<std::uint32_t> count{0};
  };
  std::uint32_t bucket(std::int32_t cx, std::int32_t cy) const;

  float m_cell;
  double m_inv_cell;
  std::uint32_t m_max_items;
  std::uint32_t m_mask;
  Map m_maps[2];
  int m_write = 0;
};

}  // namespace cityforge::sim
