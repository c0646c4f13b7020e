// SPDX-License-Identifier: Apache-2.0
// Double-buffered, insert-only spatial hash (see spatial_hash.hpp).
#include "cityforge/sim/spatial_hash.hpp"

#include <algorithm>
#include <cmath>

#include "cityforge/core/assert.hpp"

namespace cityforge::sim {
namespace {

constexpr std::uint32_t kEnd = 0xffffffffU;
// Queries over at most this many cells read all their bucket heads up front.
constexpr std::int64_t kGather = 16;
// Results up to this many are gathered on the stack, up to kRankSort sorted by rank.
constexpr std::uint32_t kLocal = 256;
constexpr std::uint32_t kRankSort = 32;
// Cell coordinates stay inside +-2^30 (a 1 m cell: a million kilometres), so the casts below are
// defined for any finite input.
constexpr double kMaxCell = 1073741824.0;

// floor() without the libm call (the x86-64 baseline has no roundsd).
std::int32_t floor_cell(double v) {
  v = std::clamp(v, -kMaxCell, kMaxCell);
  const auto i = static_cast<std::int64_t>(v);  // Truncates towards zero.
  return static_cast<std::int32_t>(i - static_cast<std::int64_t>(static_cast<double>(i) > v));
}

std::uint64_t cell_key(std::int32_t cx, std::int32_t cy) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(cx)) << 32U) |
         static_cast<std::uint32_t>(cy);
}

std::uint64_t head_of(std::uint32_t tick, std::uint32_t k) {
  return (static_cast<std::uint64_t>(tick) << 32U) | k;
}

// First item of a bucket head read in tick `tick` (an older head is empty).
std::uint32_t first_item(std::uint64_t head, std::uint32_t tick) {
  return static_cast<std::uint32_t>(head >> 32U) == tick ? static_cast<std::uint32_t>(head) : kEnd;
}

}  // namespace

SpatialHash::SpatialHash(float cell_m, std::uint32_t max_items, std::uint32_t buckets)
    : m_cell(cell_m), m_inv_cell(1.0 / static_cast<double>(cell_m)), m_max_items(max_items) {
  CF_ASSERT(cell_m > 0.0f && buckets > 0, "spatial hash: cell and buckets must be positive");
  std::uint32_t n = 1;
  std::uint32_t bits = 0;
  while (n < buckets) {
    n <<= 1U;
    ++bits;
  }
  m_mask = n - 1;
  m_shift = 32 - bits;
  m_buckets = n;
  for (Map& map : m_maps) {
    map.items = std::make_unique<Item[]>(max_items);
    map.heads = std::make_unique<std::atomic<std::uint64_t>[]>(n);
    for (std::uint32_t b = 0; b < n; ++b)
      map.heads[b].store(head_of(0, kEnd), std::memory_order_relaxed);
  }
  // The read map is empty at tick 0 (its heads are from tick 0 but hold no item); the write
  // map's tick is 1.
  m_maps[0].tick = 1;
  m_maps[1].tick = 0;
}

std::uint32_t SpatialHash::row_base(std::int32_t cy) const {
  // Fibonacci hashing of the row: consecutive rows land far apart and evenly spread.
  const std::uint64_t h = static_cast<std::uint32_t>(cy) * 0x9E3779B1U;
  return static_cast<std::uint32_t>(h >> m_shift);
}

SpatialHash::CellRange SpatialHash::cells_around(float px, float py, float radius) const {
  // A hair wider than the radius, so an item that passes the float distance test after
  // rounding is never in a cell the query skips.
  const double r = static_cast<double>(radius) * (1.0 + 1e-5);
  const auto x = static_cast<double>(px);
  const auto y = static_cast<double>(py);
  return {floor_cell((x - r) * m_inv_cell), floor_cell((x + r) * m_inv_cell),
          floor_cell((y - r) * m_inv_cell), floor_cell((y + r) * m_inv_cell)};
}

bool SpatialHash::insert(std::uint32_t id, Vec2 p) { return insert(id, p, Vec2{0, 0}); }

void SpatialHash::put(Map& map, std::uint32_t k, std::uint32_t id, Vec2 p, Vec2 v) {
  Item& item = map.items[k];
  item.x = static_cast<float>(p.x);
  item.y = static_cast<float>(p.y);
  item.vx = static_cast<float>(v.x);
  item.vy = static_cast<float>(v.y);
  item.id = id;
  const std::int32_t cx = floor_cell(static_cast<double>(item.x) * m_inv_cell);
  const std::int32_t cy = floor_cell(static_cast<double>(item.y) * m_inv_cell);
  item.cell = cell_key(cx, cy);
  const std::uint32_t b = (row_base(cy) + static_cast<std::uint32_t>(cx)) & m_mask;
  // Readers of this map only come after swap(), so the order of these writes is free.
  const std::uint64_t old = map.heads[b].exchange(head_of(map.tick, k), std::memory_order_relaxed);
  item.next = first_item(old, map.tick);
}

bool SpatialHash::insert(std::uint32_t id, Vec2 p, Vec2 v) {
  Map& map = m_maps[m_write];
  const std::uint32_t k = map.count.fetch_add(1, std::memory_order_relaxed);
  if (k >= m_max_items) {
    map.count.store(m_max_items, std::memory_order_relaxed);  // Never wraps around.
    return false;
  }
  put(map, k, id, p, v);
  return true;
}

std::pair<std::uint32_t, std::uint32_t> SpatialHash::reserve(Map& map, std::uint32_t n) {
  if (n == 0) return {0, 0};
  const std::uint32_t k = map.count.fetch_add(n, std::memory_order_relaxed);
  if (k >= m_max_items || n > m_max_items - k) {
    map.count.store(m_max_items, std::memory_order_relaxed);  // Never wraps around.
  }
  return {k, k >= m_max_items ? 0 : std::min(n, m_max_items - k)};
}

std::uint32_t SpatialHash::insert(std::uint32_t first_id, std::span<const Vec2> p,
                                  std::span<const Vec2> v) {
  CF_ASSERT(p.size() == v.size(), "spatial hash: as many velocities as positions");
  Map& map = m_maps[m_write];
  const auto [k, fit] = reserve(map, static_cast<std::uint32_t>(std::min(p.size(), v.size())));
  for (std::uint32_t i = 0; i < fit; ++i)
    put(map, k + i, first_id + i, p[i], v[i]);
  return fit;
}

std::uint32_t SpatialHash::insert(std::span<const std::uint32_t> ids, std::span<const Vec2> p,
                                  std::span<const Vec2> v) {
  CF_ASSERT(p.size() == v.size() && ids.size() == p.size(),
            "spatial hash: as many ids, positions and velocities");
  Map& map = m_maps[m_write];
  const auto [k, fit] =
      reserve(map, static_cast<std::uint32_t>(std::min({ids.size(), p.size(), v.size()})));
  for (std::uint32_t i = 0; i < fit; ++i)
    put(map, k + i, ids[i], p[i], v[i]);
  return fit;
}

void SpatialHash::swap() {
  m_write ^= 1;
  Map& map = m_maps[m_write];
  map.count.store(0, std::memory_order_relaxed);
  // A new tick number makes every head of this map read as empty. Once in 2^32 swaps the
  // numbers wrap around: each map then really clears its heads when it next becomes the write
  // map (a head left from 2^32 ticks ago could otherwise carry a live tick number).
  if (++m_tick == 0) {
    m_tick = 1;
    m_maps[0].stale = true;
    m_maps[1].stale = true;
  }
  if (map.stale) {
    for (std::uint32_t b = 0; b < m_buckets; ++b)
      map.heads[b].store(head_of(0, kEnd), std::memory_order_relaxed);
    map.stale = false;
  }
  map.tick = m_tick;
}

std::uint32_t SpatialHash::gather(float px, float py, float radius, std::uint64_t* found,
                                  std::uint32_t cap) const {
  const Map& map = m_maps[m_write ^ 1];
  const float r2 = radius * radius;
  const CellRange c = cells_around(px, py, radius);
  const Item* items = map.items.get();
  std::uint32_t n = 0;
  // Branch-free test: whether an item is kept is a coin toss the predictor cannot learn, so
  // every item is written and the count only moves past the kept ones.
  const auto scan = [&](std::uint32_t k, std::uint64_t key) {
    for (; k != kEnd; k = items[k].next) {
      const Item& it = items[k];
      const float dx = it.x - px;
      const float dy = it.y - py;
      found[n] = (static_cast<std::uint64_t>(it.id) << 32U) | k;
      // it.cell != key: another cell in the same bucket.
      n += static_cast<std::uint32_t>((it.cell == key) & (dx * dx + dy * dy <= r2));
      if (n == cap) return false;
    }
    return true;
  };
  const std::int64_t nx = std::int64_t{c.x1} - c.x0 + 1;
  const std::int64_t ny = std::int64_t{c.y1} - c.y0 + 1;
  if (nx <= 0 || ny <= 0) return 0;
  if (nx * ny > kGather) {  // A wide query: cell by cell.
    for (std::int32_t cy = c.y0; cy <= c.y1; ++cy) {
      const std::uint32_t base = row_base(cy);
      for (std::int32_t cx = c.x0; cx <= c.x1; ++cx) {
        const std::uint32_t b = (base + static_cast<std::uint32_t>(cx)) & m_mask;
        if (!scan(first_item(map.heads[b].load(std::memory_order_relaxed), map.tick),
                  cell_key(cx, cy)))
          return cap + 1;
      }
    }
    return n;
  }
  // The usual query (3 x 3 cells when the cell is the radius): read all the heads first, then
  // fetch every list's first item, then walk the lists, so the cache misses overlap instead of
  // following one another.
  std::uint32_t first[kGather];
  std::uint64_t keys[kGather];
  std::uint32_t cells = 0;
  for (std::int32_t cy = c.y0; cy <= c.y1; ++cy) {
    const std::uint32_t base = row_base(cy);
    for (std::int32_t cx = c.x0; cx <= c.x1; ++cx) {
      const std::uint32_t b = (base + static_cast<std::uint32_t>(cx)) & m_mask;
      first[cells] = first_item(map.heads[b].load(std::memory_order_relaxed), map.tick);
      keys[cells] = cell_key(cx, cy);
      ++cells;
    }
  }
  // Keep the lists that have items, fetch their first items, then walk them side by side (one
  // item of each in turn), so the cache misses of different lists overlap.
  std::uint32_t live = 0;
  for (std::uint32_t i = 0; i < cells; ++i) {
    first[live] = first[i];
    keys[live] = keys[i];
    live += static_cast<std::uint32_t>(first[i] != kEnd);
  }
  for (std::uint32_t i = 0; i < live; ++i)
    __builtin_prefetch(&items[first[i]]);
  while (live > 0) {
    for (std::uint32_t i = 0; i < live;) {
      const Item& it = items[first[i]];
      const float dx = it.x - px;
      const float dy = it.y - py;
      found[n] = (static_cast<std::uint64_t>(it.id) << 32U) | first[i];
      n += static_cast<std::uint32_t>((it.cell == keys[i]) & (dx * dx + dy * dy <= r2));
      if (n == cap) return cap + 1;
      if (it.next == kEnd) {  // This list is done: the last one takes its place.
        --live;
        first[i] = first[live];
        keys[i] = keys[live];
      } else {
        first[i] = it.next;
        __builtin_prefetch(&items[it.next]);
        ++i;
      }
    }
  }
  return n;
}

template <class Out, class Make>
void SpatialHash::collect(Vec2 p, float radius, std::vector<Out>& out, Make make) const {
  const auto px = static_cast<float>(p.x);
  const auto py = static_cast<float>(p.y);
  std::uint64_t local[kLocal];
  std::vector<std::uint64_t> heap;  // Only for a query that finds more than kLocal items.
  std::uint64_t* found = local;
  std::uint32_t n = gather(px, py, radius, local, kLocal);
  if (n > kLocal) {
    heap.resize(std::size_t{size()} + 1);
    found = heap.data();
    n = gather(px, py, radius, found, static_cast<std::uint32_t>(heap.size()));
  }
  // Ascending by id (the high half; the slot below keeps the keys distinct).
  if (n <= kRankSort) {
    // Each key's place is the number of smaller keys: no data-dependent branches, unlike an
    // insertion sort, whose every comparison is a coin toss for the branch predictor.
    std::uint64_t sorted[kRankSort];
    for (std::uint32_t i = 0; i < n; ++i) {
      std::uint32_t rank = 0;
      for (std::uint32_t j = 0; j < n; ++j)
        rank += static_cast<std::uint32_t>(found[j] < found[i]);
      sorted[rank] = found[i];
    }
    std::copy(sorted, sorted + n, found);
  } else {
    std::sort(found, found + n);
  }
  out.resize(n);
  const Item* items = m_maps[m_write ^ 1].items.get();
  for (std::uint32_t i = 0; i < n; ++i)
    out[i] = make(items[static_cast<std::uint32_t>(found[i])]);
}

void SpatialHash::query(Vec2 p, float radius, std::vector<std::uint32_t>& out) const {
  collect(p, radius, out, [](const Item& it) { return it.id; });
}

void SpatialHash::query(Vec2 p, float radius, std::vector<Hit>& out) const {
  collect(p, radius, out, [](const Item& it) { return Hit{it.id, it.x, it.y, it.vx, it.vy}; });
}

std::uint32_t SpatialHash::size() const {
  return std::min(m_maps[m_write ^ 1].count.load(std::memory_order_relaxed), m_max_items);
}

}  // namespace cityforge::sim
