// SPDX-License-Identifier: Apache-2.0
// Double-buffered, insert-only spatial hash (see spatial_hash.hpp).
#include "cityforge/sim/spatial_hash.hpp"

#include <algorithm>
#include <cmath>

#include "cityforge/core/assert.hpp"

namespace cityforge::sim {
namespace {

constexpr std::uint32_t kEnd = 0xffffffffU;

std::int32_t cell_of(double x, double inv_cell) {
  return static_cast<std::int32_t>(std::floor(x * inv_cell));
}

}  // namespace

SpatialHash::SpatialHash(float cell_m, std::uint32_t max_items, std::uint32_t buckets)
    : m_cell(cell_m), m_inv_cell(1.0 / static_cast<double>(cell_m)), m_max_items(max_items) {
  CF_ASSERT(cell_m > 0.0f && buckets > 0, "spatial hash: cell and buckets must be positive");
  std::uint32_t n = 1;
  while (n < buckets)
    n <<= 1U;
  m_mask = n - 1;
  for (Map& map : m_maps) {
    map.items.resize(max_items);
    map.heads = std::make_unique<std::atomic<std::uint32_t>[]>(n);
    for (std::uint32_t b = 0; b < n; ++b)
      map.heads[b].store(kEnd, std::memory_order_relaxed);
  }
}

std::uint32_t SpatialHash::bucket(std::int32_t cx, std::int32_t cy) const {
  const auto h =
      (static_cast<std::uint32_t>(cx) * 73856093U) ^ (static_cast<std::uint32_t>(cy) * 19349663U);
  return (h ^ (h >> 16U)) & m_mask;
}

bool SpatialHash::insert(std::uint32_t id, Vec2 p) { return insert(id, p, Vec2{0, 0}); }

bool SpatialHash::insert(std::uint32_t id, Vec2 p, Vec2 v) {
  Map& map = m_maps[m_write];
  const std::uint32_t k = map.count.fetch_add(1, std::memory_order_relaxed);
  if (k >= m_max_items) return false;
  Item& item = map.items[k];
  item.x = static_cast<float>(p.x);
  item.y = static_cast<float>(p.y);
  item.cx = cell_of(item.x, m_inv_cell);
  item.cy = cell_of(item.y, m_inv_cell);
  item.vx = static_cast<float>(v.x);
  item.vy = static_cast<float>(v.y);
  item.id = id;
  // Readers of this map only come after swap(), so the order of these two writes is free.
  item.next = map.heads[bucket(item.cx, item.cy)].exchange(k, std::memory_order_relaxed);
  return true;
}

void SpatialHash::swap() {
  m_write ^= 1;
  Map& map = m_maps[m_write];
  const std::uint32_t used = std::min(map.count.load(std::memory_order_relaxed), m_max_items);
  // Empty only the buckets that were used (each used item names its bucket).
  for (std::uint32_t k = 0; k < used; ++k) {
    map.heads[bucket(map.items[k].cx, map.items[k].cy)].store(kEnd, std::memory_order_relaxed);
  }
  map.count.store(0, std::memory_order_relaxed);
}

void SpatialHash::query(Vec2 p, float radius, std::vector<std::uint32_t>& out) const {
  out.clear();
  const Map& map = m_maps[m_write ^ 1];
  const std::int32_t x0 = cell_of(p.x - radius, m_inv_cell);
  const std::int32_t x1 = cell_of(p.x + radius, m_inv_cell);
  const std::int32_t y0 = cell_of(p.y - radius, m_inv_cell);
  const std::int32_t y1 = cell_of(p.y + radius, m_inv_cell);
  const auto px = static_cast<float>(p.x);
  const auto py = static_cast<float>(p.y);
  const float r2 = radius * radius;
  for (std::int32_t cy = y0; cy <= y1; ++cy) {
    for (std::int32_t cx = x0; cx <= x1; ++cx) {
      for (std::uint32_t k = map.heads[bucket(cx, cy)].load(std::memory_order_relaxed); k != kEnd;
           k = map.items[k].next) {
        const Item& it = map.items[k];
        if (it.cx != cx || it.cy != cy) continue;  // Another cell in the same bucket.
        const float dx = it.x - px;
        const float dy = it.y - py;
        if (dx * dx + dy * dy <= r2) out.push_back(it.id);
      }
    }
  }
  std::sort(out.begin(), out.end());
}

void SpatialHash::query(Vec2 p, float radius, std::vector<Hit>& out) const {
  out.clear();
  const Map& map = m_maps[m_write ^ 1];
  const std::int32_t x0 = cell_of(p.x - radius, m_inv_cell);
  const std::int32_t x1 = cell_of(p.x + radius, m_inv_cell);
  const std::int32_t y0 = cell_of(p.y - radius, m_inv_cell);
  const std::int32_t y1 = cell_of(p.y + radius, m_inv_cell);
  const auto px = static_cast<float>(p.x);
  const auto py = static_cast<float>(p.y);
  const float r2 = radius * radius;
  for (std::int32_t cy = y0; cy <= y1; ++cy) {
    for (std::int32_t cx = x0; cx <= x1; ++cx) {
      for (std::uint32_t k = map.heads[bucket(cx, cy)].load(std::memory_order_relaxed); k != kEnd;
           k = map.items[k].next) {
        const Item& it = map.items[k];
        if (it.cx != cx || it.cy != cy) continue;
        const float dx = it.x - px;
        const float dy = it.y - py;
        if (dx * dx + dy * dy <= r2) out.push_back({it.id, it.x, it.y, it.vx, it.vy});
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const Hit& a, const Hit& b) { return a.id < b.id; });
}

std::uint32_t SpatialHash::size() const {
  return std::min(m_maps[m_write ^ 1].count.load(std::memory_order_relaxed), m_max_items);
}

}  // namespace cityforge::sim
