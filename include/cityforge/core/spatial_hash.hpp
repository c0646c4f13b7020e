// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cmath>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "cityforge/core/vec.hpp"

namespace cityforge {

/// A uniform grid over the plane mapping cells to item ids. Items are boxes (a point is a zero
/// box). Queries return each overlapping item once, in ascending id order, so results never
/// depend on hash-map iteration order.
class SpatialHash {
 public:
  /// [Limit: cell_m > 0; |coordinate| / cell_m < 2^31]
  explicit SpatialHash(double cell_m) : m_cell(cell_m) {}

  /// Lists id in every cell the box overlaps. Empty boxes or non-finite corners are ignored.
  void insert(std::uint32_t id, const Aabb2& box);
  void insert(std::uint32_t id, Vec2 p) { insert(id, Aabb2{p, p}); }
  /// Ids of items whose cells overlap the box (a superset of the items overlapping it), sorted,
  /// unique. Replaces the contents of out.
  void query(const Aabb2& box, std::vector<std::uint32_t>& out) const;
  /// Ids of items whose cells lie within radius_m of p (superset), sorted, unique.
  void query_radius(Vec2 p, double radius_m, std::vector<std::uint32_t>& out) const {
    query(Aabb2{{p.x - radius_m, p.y - radius_m}, {p.x + radius_m, p.y + radius_m}}, out);
  }
  void clear() { m_cells.clear(); }
  double cell_size() const { return m_cell; }

 private:
  static std::uint64_t key(std::int64_t cx, std::int64_t cy) {
    return (static_cast<std::uint64_t>(cx) << 32U) ^
           (static_cast<std::uint64_t>(cy) & 0xffffffffULL);
  }
  std::int64_t cell_of(double v) const { return static_cast<std::int64_t>(std::floor(v / m_cell)); }

  double m_cell;
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> m_cells;
};

/// Boxes of any size indexed for overlap queries: each box is listed in the level of a stack of
/// uniform grids (cells of cell_m, 4 cell_m, 16 cell_m, ...) where it spans at most 2 x 2 cells,
/// so a long box (the surface of a winding mountain road, km across) costs at most four entries,
/// not thousands of cells (a valley's sidewalks and roads were 9 M entries, ~190 MB, in one
/// SpatialHash). Queries return every item whose box overlaps the query box (and perhaps a few
/// more nearby), each once, in ascending id order.
class BoxIndex {
 public:
  /// [Limit: cell_m > 0]
  explicit BoxIndex(double cell_m) : m_cell(cell_m) {}

  /// Empty boxes or non-finite corners are ignored.
  void insert(std::uint32_t id, const Aabb2& box);
  /// Replaces the contents of out.
  void query(const Aabb2& box, std::vector<std::uint32_t>& out) const;
  void query_radius(Vec2 p, double radius_m, std::vector<std::uint32_t>& out) const {
    query(Aabb2{{p.x - radius_m, p.y - radius_m}, {p.x + radius_m, p.y + radius_m}}, out);
  }

 private:
  double m_cell;
  std::vector<SpatialHash> m_levels;  ///< Level k: cells of cell_m * 4^k.
};

}  // namespace cityforge
