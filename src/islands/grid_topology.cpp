// SPDX-License-Identifier: Apache-2.0
// Edges, outline and quad subdivision of the island grid.
#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "cityforge/core/assert.hpp"
#include "cityforge/islands/grid.hpp"

namespace cityforge::islands {

Status build_topology(PlanarGrid& grid, std::string_view where_view) {
  const std::string where(where_view);
  grid.edges.clear();
  grid.boundary.clear();
  // 1. Edges, keyed by (smaller, larger) vertex id; a side's direction tells its cell apart.
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> edge_of;
  for (std::uint32_t c = 0; c < grid.cells.size(); ++c) {
    Cell& cell = grid.cells[c];
    if (cell.count < 3 || cell.count > 4) {
      return Error::internal(where, "cell " + std::to_string(c) + " has " +
                                        std::to_string(cell.count) + " corners, expected 3 or 4");
    }
    for (std::uint8_t k = 0; k < cell.count; ++k) {
      const std::uint32_t a = cell.vertices[k];
      const std::uint32_t b = cell.vertices[(k + 1) % cell.count];
      const auto key = std::minmax(a, b);
      const auto [it, inserted] =
          edge_of.try_emplace(key, static_cast<std::uint32_t>(grid.edges.size()));
      if (inserted) {
        grid.edges.push_back(Edge{a, b, {c, kNoCell}, {k, 0}});
      } else {
        Edge& e = grid.edges[it->second];
        if (e.cells[1] != kNoCell || e.v0 != b) {
          return Error::internal(where, "edge " + std::to_string(a) + "-" + std::to_string(b) +
                                            " of cell " + std::to_string(c) +
                                            " is used twice in one direction or by 3 cells");
        }
        e.cells[1] = c;
        e.slots[1] = k;
      }
      cell.edges[k] = it->second;
    }
  }
  // 2. The outline: boundary edges chained head to tail, which must close into one loop.
  std::map<std::uint32_t, std::uint32_t> next;
  for (const Edge& e : grid.edges) {
    if (e.cells[1] != kNoCell) continue;
    if (!next.try_emplace(e.v0, e.v1).second) {
      return Error::internal(where, "outline passes vertex " + std::to_string(e.v0) + " twice");
    }
  }
  if (next.empty()) return Error::internal(where, "grid has no outline");
  std::uint32_t v = next.begin()->first;
  do {
    grid.boundary.push_back(v);
    const auto it = next.find(v);
    if (it == next.end()) {
      return Error::internal(where, "outline is open at vertex " + std::to_string(v));
    }
    v = it->second;
  } while (v != grid.boundary.front() && grid.boundary.size() <= next.size());
  if (grid.boundary.size() != next.size()) {
    return Error::internal(
        where, "outline is not one loop: " + std::to_string(grid.boundary.size()) + " of " +
                   std::to_string(next.size()) + " edges chained");
  }
  return Ok{};
}

PlanarGrid subdivide(const PlanarGrid& grid) {
  PlanarGrid out;
  out.kind = grid.kind;
  out.cell_m = grid.cell_m;
  out.vertices = grid.vertices;
  const auto mid_base = static_cast<std::uint32_t>(out.vertices.size());
  for (const Edge& e : grid.edges)
    out.vertices.push_back(lerp(grid.vertices[e.v0], grid.vertices[e.v1], 0.5));
  const auto centre_base = static_cast<std::uint32_t>(out.vertices.size());
  for (const Cell& cell : grid.cells) {
    Vec2 c;
    for (std::uint8_t k = 0; k < cell.count; ++k)
      c += grid.vertices[cell.vertices[k]];
    out.vertices.push_back(c / cell.count);
  }
  out.cells.reserve(grid.cells.size() * 4);
  for (std::uint32_t c = 0; c < grid.cells.size(); ++c) {
    const Cell& cell = grid.cells[c];
    for (std::uint8_t k = 0; k < cell.count; ++k) {
      const std::uint8_t prev = (k + cell.count - 1) % cell.count;
      Cell q;
      q.count = 4;
      q.base = cell.base != 0 ? cell.base : cell.count;
      q.vertices = {cell.vertices[k], mid_base + cell.edges[k], centre_base + c,
                    mid_base + cell.edges[prev]};
      out.cells.push_back(q);
    }
  }
  // Subdividing a valid mesh gives a valid mesh; a failure here is a bug.
  const Status s = build_topology(out, "islands subdivide");
  CF_ASSERT(s.ok(), "subdivision broke the mesh");
  (void)s;
  return out;
}

bool cell_convex(const PlanarGrid& grid, const Cell& cell, double eps) {
  for (std::uint8_t k = 0; k < cell.count; ++k) {
    const Vec2 a = grid.vertices[cell.vertices[k]];
    const Vec2 b = grid.vertices[cell.vertices[(k + 1) % cell.count]];
    const Vec2 c = grid.vertices[cell.vertices[(k + 2) % cell.count]];
    if (!(cross(b - a, c - b) > eps)) return false;
  }
  return true;
}

bool mixed_families(const PlanarGrid& grid) {
  bool square = false;
  bool triangle = false;
  for (const Cell& cell : grid.cells) {
    square = square || cell.base == 4;
    triangle = triangle || cell.base == 3;
  }
  return square && triangle;
}

bool cells_convex(const PlanarGrid& grid) {
  const double eps = 1e-9 * grid.cell_m * grid.cell_m;
  for (const Cell& cell : grid.cells) {
    if (cell.count < 3 || cell.count > 4) return false;
    if (!cell_convex(grid, cell, eps)) return false;
  }
  return true;
}

}  // namespace cityforge::islands
