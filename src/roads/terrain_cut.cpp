// SPDX-License-Identifier: Apache-2.0
// Draping on the terrain mesh. Imported ground (Heightfield::mesh_exact) is what the terrain mesh
// draws: planar on each of the two triangles per grid cell, creased along the cell edges and the
// (i,j)-(i+1,j+1) diagonals, sharply where roads were cut and filled. A surface draped only at
// its own vertices spans those creases with straight triangles and floats over or sinks under
// the drawn ground by metres on steep valley sides. Cutting the surface along every terrain mesh
// edge makes it follow the ground exactly: each piece lies over one terrain triangle, so surface
// minus ground is the (linear) raise and crown the surface was built with.
// Based on: Sutherland & Hodgman, Reentrant Polygon Clipping, 1974.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "cityforge/roads/meshes.hpp"
#include "roads/detail/drape.hpp"

namespace cityforge::roads {
namespace {

using detail::add_triangle_up;
using detail::Float3;
using detail::ground_normal;
using detail::to_float3;

/// A triangle whose corners lie within this of the cut surface everywhere is kept whole.
constexpr double kUncutToleranceM = 0.02;

/// A point of a polygon being clipped, in grid units, with its height above the terrain.
struct ClipVertex {
  double u = 0.0;
  double v = 0.0;
  double lift = 0.0;
  double flat_z = 0.0;  ///< Height of the uncut triangle here.
  double tu = 0.0;      ///< Texture coordinates, when the mesh has them.
  double tv = 0.0;
};
using ClipPoly = std::vector<ClipVertex>;

/// Keeps the part of convex `in` where a*u + b*v + c >= 0 (Sutherland-Hodgman, one plane).
void clip_half(const ClipPoly& in, double a, double b, double c, ClipPoly& out) {
  out.clear();
  const std::size_t n = in.size();
  for (std::size_t k = 0; k < n; ++k) {
    const ClipVertex& p = in[k];
    const ClipVertex& q = in[(k + 1) % n];
    const double dp = a * p.u + b * p.v + c;
    const double dq = a * q.u + b * q.v + c;
    if (dp >= 0.0) out.push_back(p);
    if ((dp >= 0.0) != (dq >= 0.0)) {
      const double t = dp / (dp - dq);
      out.push_back({p.u + t * (q.u - p.u), p.v + t * (q.v - p.v), p.lift + t * (q.lift - p.lift),
                     p.flat_z + t * (q.flat_z - p.flat_z), p.tu + t * (q.tu - p.tu),
                     p.tv + t * (q.tv - p.tv)});
    }
  }
}

}  // namespace

namespace detail {

Polyline split_at_terrain_edges(const Polyline& line, const terrain::Heightfield& g) {
  if (!g.mesh_exact || line.size() < 2) return line;
  Polyline out{line.front()};
  std::vector<double> ts;
  for (std::size_t i = 0; i + 1 < line.size(); ++i) {
    const Vec2 a = line[i];
    const Vec2 b = line[i + 1];
    const double ua = (a.x - g.origin.x) / g.cell_m;
    const double va = (a.y - g.origin.y) / g.cell_m;
    const double ub = (b.x - g.origin.x) / g.cell_m;
    const double vb = (b.y - g.origin.y) / g.cell_m;
    ts.clear();
    // Crossings of f(t) = fa + t (fb - fa) with every integer strictly between fa and fb.
    auto crossings = [&](double fa, double fb) {
      if (std::abs(fb - fa) < 1e-12) return;
      const double lo = std::min(fa, fb);
      const double hi = std::max(fa, fb);
      for (double k = std::floor(lo) + 1.0; k < hi; k += 1.0)
        ts.push_back((k - fa) / (fb - fa));
    };
    crossings(ua, ub);
    crossings(va, vb);
    crossings(ua - va, ub - vb);
    std::sort(ts.begin(), ts.end());
    for (const double t : ts) {
      if (t <= 1e-9 || t >= 1.0 - 1e-9) continue;
      out.push_back(a + (b - a) * t);
    }
    out.push_back(b);
  }
  return polyline_dedupe(out);
}

}  // namespace detail

Mesh cut_along_terrain_edges(Mesh in, const terrain::Heightfield& g) {
  if (!g.mesh_exact || in.empty()) return in;
  Mesh out;
  out.positions = in.positions;
  out.normals = in.normals;
  out.uvs = in.uvs;
  const bool textured = !in.uvs.empty();
  // One vertex per new point (and texture coordinates: a strip's seam keeps both sides).
  std::map<std::array<float, 5>, std::uint32_t> added;
  auto vertex = [&](const ClipVertex& c) {
    const Vec2 p{g.origin.x + c.u * g.cell_m, g.origin.y + c.v * g.cell_m};
    const Float3 at = to_float3(p.x, p.y, g.sample(p) + c.lift);
    const std::array<float, 2> uv{static_cast<float>(c.tu), static_cast<float>(c.tv)};
    const std::array<float, 5> key{at[0], at[1], at[2], uv[0], uv[1]};
    auto [it, fresh] = added.try_emplace(key, static_cast<std::uint32_t>(out.positions.size()));
    if (fresh) {
      out.positions.push_back(at);
      out.normals.push_back(ground_normal(g, p));
      if (textured) out.uvs.push_back(uv);
    }
    return it->second;
  };
  ClipPoly tri;
  ClipPoly col;
  ClipPoly tmp;
  ClipPoly cell;
  ClipPoly piece;
  std::vector<ClipPoly> pieces;
  for (std::size_t t = 0; t + 2 < in.indices.size(); t += 3) {
    const std::array<std::uint32_t, 3> ids{in.indices[t], in.indices[t + 1], in.indices[t + 2]};
    tri.clear();
    for (const std::uint32_t id : ids) {
      const Float3& q = in.positions[id];
      const Vec2 p{q[0], q[1]};
      const std::array<float, 2> uv = textured ? in.uvs[id] : std::array<float, 2>{};
      tri.push_back({(p.x - g.origin.x) / g.cell_m, (p.y - g.origin.y) / g.cell_m,
                     double{q[2]} - g.sample(p), double{q[2]}, double{uv[0]}, double{uv[1]}});
    }
    const double area2 = (tri[1].u - tri[0].u) * (tri[2].v - tri[0].v) -
                         (tri[2].u - tri[0].u) * (tri[1].v - tri[0].v);
    // Vertical and sliver faces keep their corners: nothing to follow under them.
    if (std::abs(area2) * g.cell_m * g.cell_m < 1e-6) {
      out.indices.insert(out.indices.end(), ids.begin(), ids.end());
      continue;
    }
    if (area2 < 0.0) std::swap(tri[1], tri[2]);  // clip counter-clockwise polygons
    pieces.clear();
    double umin = tri[0].u, umax = tri[0].u;
    for (const ClipVertex& c : tri) {
      umin = std::min(umin, c.u);
      umax = std::max(umax, c.u);
    }
    // 1. Columns between grid lines u = i and u = i + 1.
    for (double i = std::floor(umin); i <= umax; i += 1.0) {
      clip_half(tri, 1.0, 0.0, -i, tmp);
      clip_half(tmp, -1.0, 0.0, i + 1.0, col);
      if (col.size() < 3) continue;
      double vmin = col[0].v, vmax = col[0].v;
      for (const ClipVertex& c : col) {
        vmin = std::min(vmin, c.v);
        vmax = std::max(vmax, c.v);
      }
      // 2. Cells between grid lines v = j and v = j + 1.
      for (double j = std::floor(vmin); j <= vmax; j += 1.0) {
        clip_half(col, 0.0, 1.0, -j, tmp);
        clip_half(tmp, 0.0, -1.0, j + 1.0, cell);
        if (cell.size() < 3) continue;
        // 3. The two terrain triangles of the cell, either side of its diagonal u - v = i - j.
        for (const double side : {1.0, -1.0}) {
          clip_half(cell, side, -side, -side * (i - j), piece);
          if (piece.size() < 3) continue;
          pieces.push_back(piece);
        }
      }
    }
    // 4. Where the ground under the triangle is flat enough, the triangle stays whole: its
    // deviation from the cut surface peaks at a piece corner (terrain vertices and crossings).
    double deviation = 0.0;
    for (const ClipPoly& pc : pieces) {
      for (const ClipVertex& c : pc) {
        const Vec2 p{g.origin.x + c.u * g.cell_m, g.origin.y + c.v * g.cell_m};
        deviation = std::max(deviation, std::abs(g.sample(p) + c.lift - c.flat_z));
      }
    }
    if (deviation <= kUncutToleranceM) {
      out.indices.insert(out.indices.end(), ids.begin(), ids.end());
      continue;
    }
    for (const ClipPoly& pc : pieces) {
      const std::uint32_t first = vertex(pc[0]);
      for (std::size_t k = 1; k + 1 < pc.size(); ++k) {
        add_triangle_up(out, first, vertex(pc[k]), vertex(pc[k + 1]));
      }
    }
  }
  return out;
}

}  // namespace cityforge::roads
