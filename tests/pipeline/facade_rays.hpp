// SPDX-License-Identifier: Apache-2.0
#pragma once

// Line-of-sight through a city's building shells, for the occlusion test: every facade module
// left after occlusion as the opaque rectangle it covers in its wall plane (floor bottom to top,
// its span along the edge), every roof triangle (flat tops and the parapets on their edges, which
// hide the wall of a taller neighbour up to their own top), in a uniform 2D grid walked cell by
// cell from the target to the eye. Module meshes stand proud of the wall (sills, cornices) and the
// WFC rooftops stand on the roofs; leaving them out only makes a removed module easier to see, so
// a test that passes against these shells passes against the real geometry too.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cityforge/buildings/buildings.hpp"
#include "cityforge/core/polygon.hpp"
#include "cityforge/core/vec.hpp"
#include "cityforge/terrain/heightfield.hpp"

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

/// What check_visibility found.
struct Visibility {
  std::size_t removed = 0;            ///< Modules occlusion removed.
  std::size_t eyes = 0;               ///< Eyes used: on a sidewalk, not inside a building.
  std::size_t eyes_total = 0;         ///< Sidewalk points, inside buildings or not.
  std::size_t seen = 0;               ///< Removed modules seen from an eye (must be 0).
  std::vector<std::string> examples;  ///< The first 10 of those, with the eye.
  std::size_t near = 0;       ///< Kept ground-floor modules facing a sidewalk checked (<= 400).
  std::size_t near_seen = 0;  ///< Of those, seen from an eye (the check can see).
};

/// Occlusion removes only what nobody can see. Eyes 1.7 m above the ground every 20 m along
/// both sides of every sidewalk ring, 0.8 m in, outside every building; every removed module
/// sampled on a 3 x 3 grid 1 cm in front of its wall; a straight line from each sample to each eye
/// within range_m on its front side must cross the shells left standing (ShellGrid, cracks under 2
/// x join_m closed) or pass under the ground; every `stride`-th removed module is checked. `out`
/// needs its spans (Config::keep_facade_spans).
inline Visibility check_visibility(const buildings::Output& out,
                                   const std::vector<Polygon>& sidewalks,
                                   const terrain::Heightfield& ground, double join_m,
                                   double range_m = 150.0, std::size_t stride = 1) {
  Visibility v;
  const std::vector<SpanModule> mods = span_modules(out);
  std::vector<ShellWall> walls;
  for (const SpanModule& m : mods) {
    if (m.removed) {
      ++v.removed;
    } else {
      walls.push_back(m.wall);
    }
  }
  std::vector<std::array<Vec3, 3>> tris;
  for (const auto& parts : out.roofs) {
    for (const Mesh& mesh : parts) {
      const auto at = [&](std::uint32_t i) {
        const auto& p = mesh.positions[i];
        return Vec3{p[0], p[1], p[2]};
      };
      for (std::size_t i = 0; i + 2 < mesh.indices.size(); i += 3) {
        tris.push_back({at(mesh.indices[i]), at(mesh.indices[i + 1]), at(mesh.indices[i + 2])});
      }
    }
  }
  ShellGrid grid(walls, tris, 8.0, join_m);

  // Not from inside a building: an imported city's sidewalks may run under mapped buildings
  // (arcades, or the mapped outline over the street band).
  const auto inside_building = [&](Vec3 e) {
    for (const buildings::Building& b : out.buildings) {
      for (const buildings::Volume& vol : b.volumes) {
        if (e.z >= b.base_z_m + vol.z0_m && e.z <= b.base_z_m + vol.z1_m &&
            ring_bounds(vol.footprint.outer).contains({e.x, e.y}) &&
            polygon_contains(vol.footprint, {e.x, e.y})) {
          return true;
        }
      }
    }
    return false;
  };
  std::vector<Vec3> eyes;
  for (const Polygon& sw : sidewalks) {
    for (std::size_t r = 0; r <= sw.holes.size(); ++r) {
      const Ring& ring = r == 0 ? sw.outer : sw.holes[r - 1];
      for (std::size_t i = 0; i < ring.size(); ++i) {
        const Vec2 a = ring[i];
        const Vec2 b = ring[(i + 1) % ring.size()];
        const double len = distance(a, b);
        if (len < 1e-6) continue;
        const Vec2 dir = (b - a) / len;
        for (double t = 0.5 * std::fmod(len, 20.0); t < len; t += 20.0) {
          for (double side : {0.8, -0.8}) {
            const Vec2 p = a + dir * t + perp(dir) * side;
            if (polygon_contains(sw, p)) {
              const Vec3 eye{p.x, p.y, ground.sample(p) + 1.7};
              if (!inside_building(eye)) eyes.push_back(eye);
              ++v.eyes_total;
              break;
            }
          }
        }
      }
    }
  }
  v.eyes = eyes.size();

  // The ground hides a line that dips under it (walls stand on the lowest ground under their
  // building, so a line may pass under a wall's bottom edge where the ground is higher).
  const auto under_ground = [&](Vec3 a, Vec3 b) {
    const double len = length(b - a);
    for (double t = 0.1; t < len - 0.1; t += 0.25) {
      const Vec3 p = a + (b - a) * (t / len);
      if (p.z < ground.sample({p.x, p.y}) - 0.01) return true;
    }
    return false;
  };
  // Whether a module is seen from an eye: any of its 9 samples in the open.
  const double kRangeM = range_m;
  const auto seen_from = [&](const SpanModule& m, Vec3* eye_out) {
    const Vec2 mid = 0.5 * (m.wall.a + m.wall.b);
    for (const Vec3& eye : eyes) {
      const Vec2 e{eye.x, eye.y};
      if (distance(e, mid) > kRangeM || dot(e - mid, m.normal) <= 0.0) continue;
      for (double u : {0.02, 0.5, 0.98}) {
        for (double w : {0.02, 0.5, 0.98}) {
          const Vec2 q = lerp(m.wall.a, m.wall.b, u) + m.normal * 0.01;
          const Vec3 s{q.x, q.y, m.wall.z0 + w * (m.wall.z1 - m.wall.z0)};
          if (!grid.blocked(s, eye) && !under_ground(s, eye)) {
            *eye_out = eye;
            return true;
          }
        }
      }
    }
    return false;
  };

  std::size_t nth = 0;
  for (const SpanModule& m : mods) {
    Vec3 eye;
    if (!m.removed || nth++ % stride != 0 || !seen_from(m, &eye)) continue;
    if (++v.seen <= 10) {
      std::ostringstream os;
      os << "removed module at (" << m.wall.a.x << ", " << m.wall.a.y << ")-(" << m.wall.b.x << ", "
         << m.wall.b.y << "), z " << m.wall.z0 << ".." << m.wall.z1 << " is seen from (" << eye.x
         << ", " << eye.y << ", " << eye.z << ")";
      v.examples.push_back(os.str());
    }
  }
  // Kept ground-floor modules with a sidewalk 3 m in front of them, up to 400.
  for (const SpanModule& m : mods) {
    if (v.near >= 400) break;
    if (m.removed || m.wall.z0 > ground.sample(m.wall.a) + 1.0) continue;
    const Vec2 probe = 0.5 * (m.wall.a + m.wall.b) + m.normal * 3.0;
    bool by_sidewalk = false;
    for (const Polygon& sw : sidewalks) {
      if (ring_bounds(sw.outer).contains(probe) && polygon_contains(sw, probe)) {
        by_sidewalk = true;
        break;
      }
    }
    if (!by_sidewalk) continue;
    ++v.near;
    Vec3 eye;
    v.near_seen += seen_from(m, &eye) ? 1 : 0;
  }
  return v;
}

}  // namespace cityforge::pipeline
