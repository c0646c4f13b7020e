// SPDX-License-Identifier: Apache-2.0
#pragma once

// Line-of-sight through a city's building shells, for the occlusion test: every facade module
// left after occlusion as the opaque rectangle it covers in its wall plane (floor bottom to top,
// its span along the edge), every roof triangle, in a uniform 2D grid walked cell by cell from
// the target to the eye. Module meshes stand proud of the wall (sills, cornices) and the WFC
// rooftops stand on the roofs; leaving them out only makes a removed module easier to see, so
// a test that passes against these shells passes against the real geometry too.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "cityforge/buildings/buildings.hpp"
#include "cityforge/core/vec.hpp"

namespace cityforge::pipeline {

/// A vertical rectangle: the segment a-b in plan, from z0 to z1.
struct ShellWall {
  Vec2 a;
  Vec2 b;
  double z0 = 0.0;
  double z1 = 0.0;
};

/// A module of a facade span in world terms: its rectangle and outward normal.
struct SpanModule {
  ShellWall wall;
  Vec2 normal;
  bool removed = false;
};

/// Every module of `spans` as a rectangle in its wall plane (the facade edge of the building's
/// volume ring, outward normal on its right).
inline std::vector<SpanModule> span_modules(const buildings::Output& out) {
  std::vector<SpanModule> mods;
  for (const buildings::FacadeSpan& f : out.spans) {
    const buildings::Volume& v = out.buildings.at(f.building).volumes.at(f.volume);
    const Ring& ring = f.ring == 0 ? v.footprint.outer : v.footprint.holes.at(f.ring - 1);
    const Vec2 a = ring.at(f.edge);
    const Vec2 b = ring.at((f.edge + 1) % ring.size());
    const Vec2 dir = normalize(b - a);
    for (std::size_t k = 0; k < f.spans.size(); ++k) {
      SpanModule m;
      m.wall = {a + dir * f.spans[k][0], a + dir * f.spans[k][1], f.z0_m, f.z1_m};
      m.normal = {dir.y, -dir.x};
      m.removed = f.removed.at(k) != 0;
      mods.push_back(m);
    }
  }
  return mods;
}

class ShellGrid {
 public:
  /// `join_m`: walls are lengthened and heightened by this much at each end, so cracks narrower
  /// than twice it between the walls of two buildings count as closed.
  ShellGrid(std::vector<ShellWall> walls, const std::vector<std::array<Vec3, 3>>& tris,
            double cell_m, double join_m)
      : m_walls(std::move(walls)), m_tris(tris), m_cell(cell_m) {
    for (ShellWall& w : m_walls) {
      const Vec2 d = normalize(w.b - w.a) * join_m;
      w.a = w.a - d;
      w.b = w.b + d;
      w.z0 -= join_m;
      w.z1 += join_m;
    }
    for (const ShellWall& w : m_walls) {
      m_box.add(w.a);
      m_box.add(w.b);
    }
    for (const auto& t : tris) {
      for (const Vec3& p : t)
        m_box.add({p.x, p.y});
    }
    m_box.min = m_box.min - Vec2{cell_m, cell_m};
    m_box.max = m_box.max + Vec2{cell_m, cell_m};
    m_nx = static_cast<int>(std::ceil((m_box.max.x - m_box.min.x) / cell_m)) + 1;
    m_ny = static_cast<int>(std::ceil((m_box.max.y - m_box.min.y) / cell_m)) + 1;
    m_cells.resize(static_cast<std::size_t>(m_nx) * static_cast<std::size_t>(m_ny));
    for (std::size_t i = 0; i < m_walls.size(); ++i) {
      Aabb2 b;
      b.add(m_walls[i].a);
      b.add(m_walls[i].b);
      insert(b, static_cast<std::uint32_t>(i));
    }
    for (std::size_t i = 0; i < tris.size(); ++i) {
      Aabb2 b;
      for (const Vec3& p : tris[i])
        b.add({p.x, p.y});
      insert(b, static_cast<std::uint32_t>(m_walls.size() + i));
    }
    m_stamp.assign(m_walls.size() + tris.size(), 0);
  }

  /// True when the open segment from `from` to `to` crosses a wall or a roof triangle.
  bool blocked(Vec3 from, Vec3 to) {
    ++m_query;
    const Vec2 p{from.x, from.y};
    const Vec2 d{to.x - from.x, to.y - from.y};
    int cx = cell_x(p.x);
    int cy = cell_y(p.y);
    const int ex = cell_x(to.x);
    const int ey = cell_y(to.y);
    const int sx = d.x > 0 ? 1 : -1;
    const int sy = d.y > 0 ? 1 : -1;
    const double inf = 1e300;
    const double dx = std::fabs(d.x) > 1e-12 ? m_cell / std::fabs(d.x) : inf;
    const double dy = std::fabs(d.y) > 1e-12 ? m_cell / std::fabs(d.y) : inf;
    const double bx = m_box.min.x + (cx + (sx > 0 ? 1 : 0)) * m_cell;
    const double by = m_box.min.y + (cy + (sy > 0 ? 1 : 0)) * m_cell;
    double tx = std::fabs(d.x) > 1e-12 ? (bx - p.x) / d.x : inf;
    double ty = std::fabs(d.y) > 1e-12 ? (by - p.y) / d.y : inf;
    for (int guard = 0; guard < 1 << 20; ++guard) {
      if (cx >= 0 && cy >= 0 && cx < m_nx && cy < m_ny) {
        for (std::uint32_t id : m_cells[static_cast<std::size_t>(cy) * m_nx + cx]) {
          if (m_stamp[id] == m_query) continue;
          m_stamp[id] = m_query;
          if (id < m_walls.size() ? hits_wall(m_walls[id], from, to)
                                  : hits_tri(m_tris[id - m_walls.size()], from, to)) {
            return true;
          }
        }
      }
      if (cx == ex && cy == ey) break;
      if (tx < ty) {
        if (tx > 1.0) break;
        cx += sx;
        tx += dx;
      } else {
        if (ty > 1.0) break;
        cy += sy;
        ty += dy;
      }
    }
    return false;
  }

 private:
  static constexpr double kTol = 1e-4;  // Rays through the seam of two modules still hit one.

  static bool hits_wall(const ShellWall& w, Vec3 from, Vec3 to) {
    const Vec2 d{to.x - from.x, to.y - from.y};
    const Vec2 e = w.b - w.a;
    const double den = d.x * e.y - d.y * e.x;
    if (std::fabs(den) < 1e-12) return false;  // Along the wall plane: grazing, not through.
    const Vec2 q{w.a.x - from.x, w.a.y - from.y};
    const double s = (q.x * e.y - q.y * e.x) / den;
    const double u = (q.x * d.y - q.y * d.x) / den;
    if (s <= 1e-9 || s > 1.0 || u < -kTol || u > 1.0 + kTol) return false;
    const double z = from.z + s * (to.z - from.z);
    return z >= w.z0 - kTol && z <= w.z1 + kTol;
  }

  static bool hits_tri(const std::array<Vec3, 3>& t, Vec3 from, Vec3 to) {
    const Vec3 dir = to - from;
    const Vec3 e1 = t[1] - t[0];
    const Vec3 e2 = t[2] - t[0];
    const Vec3 h = cross(dir, e2);
    const double a = dot(e1, h);
    if (std::fabs(a) < 1e-12) return false;
    const Vec3 s = from - t[0];
    const double u = dot(s, h) / a;
    if (u < -kTol || u > 1.0 + kTol) return false;
    const Vec3 q = cross(s, e1);
    const double v = dot(dir, q) / a;
    if (v < -kTol || u + v > 1.0 + kTol) return false;
    const double r = dot(e2, q) / a;
    return r > 1e-9 && r <= 1.0;
  }

  int cell_x(double x) const {
    return std::clamp(static_cast<int>(std::floor((x - m_box.min.x) / m_cell)), -1, m_nx);
  }
  int cell_y(double y) const {
    return std::clamp(static_cast<int>(std::floor((y - m_box.min.y) / m_cell)), -1, m_ny);
  }

  void insert(const Aabb2& b, std::uint32_t id) {
    const int x0 = std::max(0, cell_x(b.min.x));
    const int x1 = std::min(m_nx - 1, cell_x(b.max.x));
    const int y0 = std::max(0, cell_y(b.min.y));
    const int y1 = std::min(m_ny - 1, cell_y(b.max.y));
    for (int y = y0; y <= y1; ++y) {
      for (int x = x0; x <= x1; ++x)
        m_cells[static_cast<std::size_t>(y) * m_nx + x].push_back(id);
    }
  }

  std::vector<ShellWall> m_walls;
  const std::vector<std::array<Vec3, 3>>& m_tris;
  double m_cell;
  Aabb2 m_box;
  int m_nx = 0;
  int m_ny = 0;
  std::vector<std::vector<std::uint32_t>> m_cells;
  std::vector<std::uint32_t> m_stamp;
  std::uint32_t m_query = 0;
};

}  // namespace cityforge::pipeline
