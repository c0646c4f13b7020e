// SPDX-License-Identifier: Apache-2.0
// Uniform-grid spatial hash: each item is listed in every cell its box overlaps.
#include "cityforge/core/spatial_hash.hpp"

#include <algorithm>
#include <cmath>

namespace cityforge {
namespace {

bool finite_box(const Aabb2& box) {
  return std::isfinite(box.min.x) && std::isfinite(box.min.y) && std::isfinite(box.max.x) &&
         std::isfinite(box.max.y) && !box.empty();
}

}  // namespace

void SpatialHash::insert(std::uint32_t id, const Aabb2& box) {
  // A box with non-finite corners has no cells; it is not inserted.
  if (!finite_box(box)) {
    return;
  }
  const std::int64_t x0 = cell_of(box.min.x);
  const std::int64_t x1 = cell_of(box.max.x);
  const std::int64_t y0 = cell_of(box.min.y);
  const std::int64_t y1 = cell_of(box.max.y);
  for (std::int64_t cx = x0; cx <= x1; ++cx) {
    for (std::int64_t cy = y0; cy <= y1; ++cy) {
      m_cells[key(cx, cy)].push_back(id);
    }
  }
}

void SpatialHash::query(const Aabb2& box, std::vector<std::uint32_t>& out) const {
  out.clear();
  if (!finite_box(box) || m_cells.empty()) {
    return;
  }
  const std::int64_t x0 = cell_of(box.min.x);
  const std::int64_t x1 = cell_of(box.max.x);
  const std::int64_t y0 = cell_of(box.min.y);
  const std::int64_t y1 = cell_of(box.max.y);
  const double cells = static_cast<double>(x1 - x0 + 1) * static_cast<double>(y1 - y0 + 1);
  if (cells > static_cast<double>(m_cells.size())) {
    // A query box larger than the occupied area: scan the occupied cells instead. The order
    // of the map does not matter because the result is sorted below.
    for (const auto& [k, ids] : m_cells) {
      const auto cx = static_cast<std::int64_t>(static_cast<std::int32_t>(k >> 32U));
      const auto cy = static_cast<std::int64_t>(static_cast<std::int32_t>(k & 0xffffffffULL));
      if (cx >= x0 && cx <= x1 && cy >= y0 && cy <= y1) {
        out.insert(out.end(), ids.begin(), ids.end());
      }
    }
  } else {
    for (std::int64_t cx = x0; cx <= x1; ++cx) {
      for (std::int64_t cy = y0; cy <= y1; ++cy) {
        const auto it = m_cells.find(key(cx, cy));
        if (it != m_cells.end()) {
          out.insert(out.end(), it->second.begin(), it->second.end());
        }
      }
    }
  }
  // Ids inserted in ascending order come out of a single cell already sorted.
  if (!std::is_sorted(out.begin(), out.end())) {
    std::sort(out.begin(), out.end());
  }
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

void BoxIndex::insert(std::uint32_t id, const Aabb2& box) {
  if (!finite_box(box)) return;
  // The level whose cell is at least the box's larger side: it spans at most 2 x 2 cells.
  const double side = std::max(box.max.x - box.min.x, box.max.y - box.min.y);
  std::size_t level = 0;
  double cell = m_cell;
  while (cell < side && level < 24) {
    cell *= 4.0;
    ++level;
  }
  while (m_levels.size() <= level)
    m_levels.emplace_back(m_cell * std::pow(4.0, static_cast<double>(m_levels.size())));
  m_levels[level].insert(id, box);
}

void BoxIndex::query(const Aabb2& box, std::vector<std::uint32_t>& out) const {
  out.clear();
  // Each level's ids come sorted and unique: only ids from several levels need merging. The
  // scratch list is the thread's own (queries run on every set dressing thread, millions of
  // them).
  thread_local std::vector<std::uint32_t> level_ids;
  bool several = false;
  for (const SpatialHash& level : m_levels) {
    level.query(box, level_ids);
    if (level_ids.empty()) continue;
    several = several || !out.empty();
    out.insert(out.end(), level_ids.begin(), level_ids.end());
  }
  if (several) {
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
}

}  // namespace cityforge
