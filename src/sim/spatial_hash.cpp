// SPDX-License-Identifier: Apache-2.0
// Double-buffered, insert-only spatial hash (see spatial_hash.hpp).
#include "cityforge/sim/spatial_hash.hpp"

#include <tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>

#include "cityforge/core/assert.hpp"

namespace cityforge::sim {
namespace {

// Results up to this many are gathered on the stack.
constexpr std::uint32_t kLocal = 256;
// Queries over at most this many rows of cells prefetch all their rows first.
constexpr std::int64_t kPrefetchRows = 4;
// Cell coordinates stay inside +-2^30 (a 1 m cell: a million kilometres), so the casts below are
// defined for any finite input.
constexpr double kMaxCell = 1073741824.0;

// floor() without the libm call (the x86-64 baseline has no roundsd).
std::int32_t floor_cell(double v) {
  v = std::clamp(v, -kMaxCell, kMaxCell);
  const auto i = static_cast<std::int64_t>(v);  // Truncates towards zero.
  return static_cast<std::int32_t>(i - static_cast<std::int64_t>(static_cast<double>(i) > v));
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
  m_inserted = std::make_unique<Item[]>(max_items);
  m_bucket_of = std::make_unique<std::uint32_t[]>(max_items);
  m_read.resize(1);
  allocate(m_read[0]);
  m_view = view_of(m_read[0]);
}

SpatialHash::View SpatialHash::view_of(const ReadMap& map) {
  return View{map.start.get(), map.xy.get(), map.v.get(), map.ids.get()};
}

void SpatialHash::allocate(ReadMap& map) const {
  map.xy = std::make_unique<float[]>(2 * std::size_t{m_max_items});
  map.v = std::make_unique<float[]>(2 * std::size_t{m_max_items});
  map.ids = std::make_unique<std::uint32_t[]>(m_max_items);
  map.start = std::make_unique<std::uint32_t[]>(std::size_t{m_buckets} + 2);  // Zero: empty.
}

void SpatialHash::set_read_copies(std::uint32_t n) {
  const std::size_t want = std::max<std::size_t>(1, n);
  const std::size_t had = m_read.size();
  m_read.resize(want);
  for (std::size_t t = had; t < want; ++t)
    allocate(m_read[t]);  // Generation 0: not fresh until the next swap copies it.
  m_copies = m_read.size() > 1;
}

std::uint64_t SpatialHash::copies_made() const {
  std::uint64_t n = 0;
  for (const ReadMap& map : m_read)
    n += map.copies;
  return n;
}

SpatialHash::View SpatialHash::read_view() const {
  if (m_copies) {
    const int t = tbb::this_task_arena::current_thread_index();  // Negative outside any arena.
    if (t > 0 && static_cast<std::size_t>(t) < m_read.size()) {
      // Only the thread in arena slot t reads or writes copy t, and the threads of one slot
      // follow one another (the arena hands the slot over): no two threads touch a copy at once.
      ReadMap& copy = m_read[static_cast<std::size_t>(t)];
      if (copy.generation != m_generation) {  // This thread's first query since the swap.
        const ReadMap& map = m_read[0];
        std::copy_n(map.start.get(), std::size_t{m_buckets} + 2, copy.start.get());
        std::copy_n(map.xy.get(), 2 * std::size_t{m_read_count}, copy.xy.get());
        std::copy_n(map.v.get(), 2 * std::size_t{m_read_count}, copy.v.get());
        std::copy_n(map.ids.get(), m_read_count, copy.ids.get());
        copy.generation = m_generation;
        copy.copies += 1;
      }
      return view_of(copy);
    }
  }
  return m_view;
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

void SpatialHash::put(std::uint32_t k, std::uint32_t id, Vec2 p, Vec2 v) {
  Item& item = m_inserted[k];
  item.x = static_cast<float>(p.x);
  item.y = static_cast<float>(p.y);
  item.vx = static_cast<float>(v.x);
  item.vy = static_cast<float>(v.y);
  item.id = id;
  const std::int32_t cx = floor_cell(static_cast<double>(item.x) * m_inv_cell);
  const std::int32_t cy = floor_cell(static_cast<double>(item.y) * m_inv_cell);
  item.bucket = (row_base(cy) + static_cast<std::uint32_t>(cx)) & m_mask;
}

bool SpatialHash::insert(std::uint32_t id, Vec2 p, Vec2 v) {
  const std::uint32_t k = m_count.fetch_add(1, std::memory_order_relaxed);
  if (k >= m_max_items) {
    m_count.store(m_max_items, std::memory_order_relaxed);  // Never wraps around.
    return false;
  }
  put(k, id, p, v);
  return true;
}

std::pair<std::uint32_t, std::uint32_t> SpatialHash::reserve(std::uint32_t n) {
  if (n == 0) return {0, 0};
  const std::uint32_t k = m_count.fetch_add(n, std::memory_order_relaxed);
  if (k >= m_max_items || n > m_max_items - k) {
    m_count.store(m_max_items, std::memory_order_relaxed);  // Never wraps around.
  }
  return {k, k >= m_max_items ? 0 : std::min(n, m_max_items - k)};
}

std::uint32_t SpatialHash::insert(std::uint32_t first_id, std::span<const Vec2> p,
                                  std::span<const Vec2> v) {
  CF_ASSERT(p.size() == v.size(), "spatial hash: as many velocities as positions");
  const auto [k, fit] = reserve(static_cast<std::uint32_t>(std::min(p.size(), v.size())));
  for (std::uint32_t i = 0; i < fit; ++i)
    put(k + i, first_id + i, p[i], v[i]);
  return fit;
}

std::uint32_t SpatialHash::insert(std::span<const std::uint32_t> ids, std::span<const Vec2> p,
                                  std::span<const Vec2> v) {
  CF_ASSERT(p.size() == v.size() && ids.size() == p.size(),
            "spatial hash: as many ids, positions and velocities");
  const auto [k, fit] =
      reserve(static_cast<std::uint32_t>(std::min({ids.size(), p.size(), v.size()})));
  for (std::uint32_t i = 0; i < fit; ++i)
    put(k + i, ids[i], p[i], v[i]);
  return fit;
}

bool SpatialHash::before(const Item& a, const Item& b) {
  const auto key = [](const Item& it) {
    return std::array<std::uint32_t, 5>{
        it.id, std::bit_cast<std::uint32_t>(it.x), std::bit_cast<std::uint32_t>(it.y),
        std::bit_cast<std::uint32_t>(it.vx), std::bit_cast<std::uint32_t>(it.vy)};
  };
  return key(a) < key(b);
}

void SpatialHash::swap() {
  // A counting sort of this tick's items by bucket. Counts go to start[b + 2], so that after
  // the prefix sums start[b + 1] is bucket b's first place; placing each item advances it to
  // the next bucket's first place, which leaves start[b] = bucket b's first place for all b.
  const std::uint32_t n = std::min(m_count.load(std::memory_order_relaxed), m_max_items);
  ReadMap& map = m_read[0];
  std::uint32_t* start = map.start.get();
  std::uint32_t* bucket = m_bucket_of.get();  // Of the map's items, while they are ordered.
  std::fill(start, start + m_buckets + 2, 0U);
  for (std::uint32_t i = 0; i < n; ++i)
    ++start[m_inserted[i].bucket + 2];
  for (std::uint32_t b = 2; b < m_buckets + 2; ++b)
    start[b] += start[b - 1];
  const auto get = [&](std::size_t k) {
    return Item{map.xy[2 * k], map.xy[2 * k + 1], map.v[2 * k], map.v[2 * k + 1], map.ids[k], 0};
  };
  const auto set = [&](std::size_t k, const Item& it) {
    map.xy[2 * k] = it.x;
    map.xy[2 * k + 1] = it.y;
    map.v[2 * k] = it.vx;
    map.v[2 * k + 1] = it.vy;
    map.ids[k] = it.id;
  };
  for (std::uint32_t i = 0; i < n; ++i) {
    const Item& it = m_inserted[i];
    const std::size_t k = start[it.bucket + 1]++;
    set(k, it);
    bucket[k] = it.bucket;
  }
  // Each bucket's items by id, the same id twice by its bits (position, then velocity): an
  // insertion sort within each bucket's run (a few items a bucket), in place. Inserts come from
  // any thread in any order; this makes the map, and so every query's answer, depend only on
  // what was inserted.
  for (std::uint32_t k = 1; k < n; ++k) {
    if (bucket[k] != bucket[k - 1] || map.ids[k] > map.ids[k - 1]) continue;  // In order.
    const Item it = get(k);
    std::uint32_t j = k;
    for (; j > 0 && bucket[j - 1] == bucket[k]; --j) {
      const Item prev = get(j - 1);
      if (!before(it, prev)) break;
      set(j, prev);
    }
    if (j != k) set(j, it);
  }
  m_read_count = n;
  m_count.store(0, std::memory_order_relaxed);
  m_generation += 1;
}

std::uint32_t SpatialHash::gather(const View& map, float px, float py, float radius,
                                  std::uint32_t* slots, std::uint32_t cap) const {
  const CellRange c = cells_around(px, py, radius);
  const std::int64_t nx = std::int64_t{c.x1} - c.x0 + 1;
  const std::int64_t ny = std::int64_t{c.y1} - c.y0 + 1;
  if (nx <= 0 || ny <= 0 || m_read_count == 0) return 0;
  const float r2 = radius * radius;
  const std::uint32_t* start = map.start;
  // A row's cells x0 .. x1 are the consecutive buckets from (row base + x0), wrapping around the
  // table: at most every bucket once.
  const auto len = static_cast<std::uint32_t>(std::min<std::int64_t>(nx, m_buckets));
  const auto span_x = static_cast<std::uint32_t>(nx - 1);
  std::uint32_t n = 0;
  const auto first_bucket = [&](std::int32_t cy) {
    return (row_base(cy) + static_cast<std::uint32_t>(c.x0)) & m_mask;
  };
  // The usual query has 2 or 3 rows: each row's first bucket is computed once, and every row's
  // first items are fetched before any is scanned, so their cache misses overlap instead of
  // following one another.
  const bool few_rows = ny <= kPrefetchRows;
  std::uint32_t bases[kPrefetchRows] = {};
  if (few_rows) {
    for (std::int64_t i = 0; i < ny; ++i) {
      bases[i] = first_bucket(c.y0 + static_cast<std::int32_t>(i));
      __builtin_prefetch(&start[bases[i]]);
    }
    for (std::int64_t i = 0; i < ny; ++i) {
      __builtin_prefetch(&map.xy[2 * std::size_t{start[bases[i]]}]);
      __builtin_prefetch(&map.ids[start[bases[i]]]);
    }
  }
  // When the query's cells all have buckets of their own (no two rows' runs of buckets
  // overlap, no row wraps onto itself), the distance test alone is exact: an item within the
  // radius lies in one of the cells (cells_around is a hair wider), so in a scanned bucket,
  // and in no other scanned bucket. The scan then tests the distance only. Otherwise every
  // item's cell is computed and checked too.
  bool own_buckets = few_rows && nx <= m_buckets && std::int64_t{len} * ny <= m_buckets;
  for (std::int64_t i = 0; i < ny && own_buckets; ++i)
    for (std::int64_t j = i + 1; j < ny; ++j)
      if (((bases[j] - bases[i]) & m_mask) < len || ((bases[i] - bases[j]) & m_mask) < len)
        own_buckets = false;
  const float* xy = map.xy;
  for (std::int32_t cy = c.y0; cy <= c.y1; ++cy) {
    const std::uint32_t b0 = few_rows ? bases[cy - c.y0] : first_bucket(cy);
    const std::uint32_t b1 = b0 + len;  // One past the row's last bucket, unwrapped.
    // Branch-free test: whether an item is kept is a coin toss the predictor cannot learn, so
    // every item is written and the count only moves past the kept ones. Another cell that
    // shares a bucket (another row, or x beyond the table) fails the cell test.
    const auto scan = [&](std::uint32_t from, std::uint32_t to) {
      if (own_buckets) {
        for (std::uint32_t k = from; k < to; ++k) {
          const float dx = xy[2 * std::size_t{k}] - px;
          const float dy = xy[2 * std::size_t{k} + 1] - py;
          slots[n] = k;
          n += static_cast<std::uint32_t>(dx * dx + dy * dy <= r2);
          if (n == cap) return false;
        }
        return true;
      }
      for (std::uint32_t k = from; k < to; ++k) {
        // The item's cell, computed as insert computed it.
        const float x = xy[2 * std::size_t{k}];
        const float y = xy[2 * std::size_t{k} + 1];
        const std::int32_t cx = floor_cell(static_cast<double>(x) * m_inv_cell);
        const std::int32_t icy = floor_cell(static_cast<double>(y) * m_inv_cell);
        const float dx = x - px;
        const float dy = y - py;
        slots[n] = k;
        n += static_cast<std::uint32_t>(
            (icy == cy) &
            (static_cast<std::uint32_t>(cx) - static_cast<std::uint32_t>(c.x0) <= span_x) &
            (dx * dx + dy * dy <= r2));
        if (n == cap) return false;
      }
      return true;
    };
    if (b1 <= m_buckets) {
      if (!scan(start[b0], start[b1])) return cap + 1;
    } else {
      if (!scan(start[b0], start[m_buckets]) || !scan(start[0], start[b1 - m_buckets]))
        return cap + 1;
    }
  }
  return n;
}

template <class Out, class Make>
void SpatialHash::collect(Vec2 p, float radius, std::vector<Out>& out, Make make) const {
  const auto px = static_cast<float>(p.x);
  const auto py = static_cast<float>(p.y);
  std::uint32_t local[kLocal];
  std::vector<std::uint32_t> heap;  // Only for a query that finds more than kLocal items.
  std::uint32_t* slots = local;
  const View map = read_view();
  std::uint32_t n = gather(map, px, py, radius, slots, kLocal);
  if (n > kLocal) {
    heap.resize(std::size_t{size()} + 1);
    slots = heap.data();
    n = gather(map, px, py, radius, slots, size() + 1);
  }
  out.clear();
  for (std::uint32_t i = 0; i < n; ++i)
    out.push_back(make(map, slots[i]));
}

void SpatialHash::query(Vec2 p, float radius, std::vector<std::uint32_t>& out) const {
  collect(p, radius, out, [](const View& map, std::uint32_t slot) { return map.ids[slot]; });
}

void SpatialHash::query(Vec2 p, float radius, std::vector<Hit>& out) const {
  collect(p, radius, out, [](const View& map, std::uint32_t slot) {
    const std::size_t k = slot;
    return Hit{map.ids[k], map.xy[2 * k], map.xy[2 * k + 1], map.v[2 * k], map.v[2 * k + 1]};
  });
}

std::uint32_t SpatialHash::size() const { return m_read_count; }

}  // namespace cityforge::sim
