// SPDX-License-Identifier: Apache-2.0
// Triangle meshes of a city for city.glb: terrain, road ribbons, block surfaces and block
// volumes (setback footprints extruded to the zoning height), cut into square chunks by
// triangle centroid.

#include "export/city_meshes.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <utility>

#include "cityforge/core/assert.hpp"
#include "cityforge/core/polygon.hpp"
#include "cityforge/core/polyline.hpp"
#include "cityforge/core/vec.hpp"

namespace cityforge::exporter::detail {

const char* part_name(Part p) {
  switch (p) {
    case Part::terrain:
      return "terrain";
    case Part::road_artery:
      return "road_artery";
    case Part::road_main:
      return "road_main";
    case Part::road_local:
      return "road_local";
    case Part::sidewalk:
      return "sidewalk";
    case Part::block:
      return "block";
    case Part::volume:
      return "volume";
    case Part::roof:
      return "roof";
    case Part::parapet:
      return "parapet";
    case Part::freeway:
      return "freeway";
    case Part::marking:
      return "marking";
    case Part::ground_grass:
      return "ground_grass";
    case Part::ground_park:
      return "ground_park";
    case Part::ground_forest:
      return "ground_forest";
    case Part::ground_scrub:
      return "ground_scrub";
    case Part::ground_farmland:
      return "ground_farmland";
    case Part::ground_sand:
      return "ground_sand";
    case Part::ground_bare:
      return "ground_bare";
    case Part::ground_water:
      return "ground_water";
    case Part::ground_pavement:
      return "ground_pavement";
    case Part::ground_cemetery:
      return "ground_cemetery";
    case Part::path:
      return "path";
  }
  return "unknown";
}

Part ground_part(const dressing::GroundPatch& patch) {
  if (patch.path) return Part::path;
  const auto k = static_cast<std::size_t>(patch.kind);
  if (k >= dressing::kGroundKindCount) return Part::ground_grass;
  return static_cast<Part>(static_cast<std::size_t>(Part::ground_grass) + k);
}

Part road_part(layout::RoadClass c) {
  switch (c) {
    case layout::RoadClass::artery:
      return Part::road_artery;
    case layout::RoadClass::main:
      return Part::road_main;
    case layout::RoadClass::local:
      return Part::road_local;
  }
  return Part::road_local;
}

namespace {

/// Longest ribbon segment: long straight roads are split so the ribbon drapes on the terrain.
constexpr double kDrapeSpacingM = 10.0;
/// Chunk indices must fit int32 with room to spare; coordinates beyond this are rejected.
constexpr double kMaxChunkIndex = 1.0e9;
/// Triangles with less area than this (m2, after rounding to float) are dropped.
constexpr double kMinTriangleArea2 = 1e-12;

/// (cy, cx): std::less on it gives the (cy, cx) chunk order of the output.
using ChunkKey = std::pair<std::int32_t, std::int32_t>;

/// One item's triangles that fall into one chunk.
struct Piece {
  ChunkKey key;
  Part part = Part::terrain;
  Mesh mesh;
};
using Pieces = std::vector<Piece>;

using Float3 = std::array<float, 3>;

// ---- Input checks -------------------------------------------------------------------------

bool finite(Vec2 p) { return std::isfinite(p.x) && std::isfinite(p.y); }

Status check_point(Vec2 p, double chunk_m, const std::string& where) {
  if (!finite(p)) {
    return Error::invalid_input(where, "expected a finite coordinate, got (" + std::to_string(p.x) +
                                           ", " + std::to_string(p.y) + ")");
  }
  if (std::fabs(p.x) / chunk_m > kMaxChunkIndex || std::fabs(p.y) / chunk_m > kMaxChunkIndex) {
    return Error::invalid_input(
        where, "coordinate too far from the origin for chunk_m " + std::to_string(chunk_m));
  }
  return Ok{};
}

Status check_ring(const Ring& ring, double chunk_m, const std::string& where) {
  for (std::size_t i = 0; i < ring.size(); ++i) {
    if (Status s = check_point(ring[i], chunk_m, where + "[" + std::to_string(i) + "]"); !s) {
      return s;
    }
  }
  return Ok{};
}

Status check_polygon(const Polygon& poly, double chunk_m, const std::string& where) {
  if (Status s = check_ring(poly.outer, chunk_m, where + ".outer"); !s) {
    return s;
  }
  for (std::size_t h = 0; h < poly.holes.size(); ++h) {
    if (Status s = check_ring(poly.holes[h], chunk_m, where + ".holes[" + std::to_string(h) + "]");
        !s) {
      return s;
    }
  }
  return Ok{};
}

Status check_config(const Config& config) {
  if (!std::isfinite(config.chunk_m) || config.chunk_m <= 0.0) {
    return Error::invalid_input("export.chunk_m",
                                "expected > 0, got " + std::to_string(config.chunk_m));
  }
  if (!std::isfinite(config.volume_setback_m) || config.volume_setback_m < 0.0) {
    return Error::invalid_input("export.volume_setback_m",
                                "expected >= 0, got " + std::to_string(config.volume_setback_m));
  }
  return Ok{};
}

Status check_ground(const terrain::Heightfield& ground) {
  if (ground.nx < 2 || ground.ny < 2 ||
      ground.heights.size() != std::size_t{ground.nx} * ground.ny) {
    return Error::invalid_input("terrain",
                                "expected a grid of >= 2 x 2 samples with nx * ny "
                                "heights, got " +
                                    std::to_string(ground.nx) + " x " + std::to_string(ground.ny) +
                                    " and " + std::to_string(ground.heights.size()));
  }
  if (!finite(ground.origin) || !std::isfinite(ground.cell_m) || ground.cell_m <= 0.0) {
    return Error::invalid_input("terrain", "origin and cell_m must be finite, cell_m > 0");
  }
  for (std::size_t i = 0; i < ground.heights.size(); ++i) {
    if (!std::isfinite(ground.heights[i])) {
      return Error::invalid_input(
          "terrain.heights[" + std::to_string(i) + "]",
          "expected a finite height, got " + std::to_string(ground.heights[i]));
    }
  }
  return Ok{};
}

Status check_inputs(const layout::Output& city, const terrain::Heightfield& ground,
                    const Config& config) {
  if (Status s = check_config(config); !s) {
    return s;
  }
  if (Status s = check_ground(ground); !s) {
    return s;
  }
  const double chunk_m = config.chunk_m;
  const auto& edges = city.network.edges;
  for (std::size_t e = 0; e < edges.size(); ++e) {
    const std::string where = "network.edges[" + std::to_string(e) + "]";
    if (!std::isfinite(edges[e].width_m) || edges[e].width_m < 0.0) {
      return Error::invalid_input(where + ".width_m",
                                  "expected >= 0, got " + std::to_string(edges[e].width_m));
    }
    if (Status s = check_ring(edges[e].points, chunk_m, where + ".points"); !s) {
      return s;
    }
  }
  for (std::size_t b = 0; b < city.blocks.size(); ++b) {
    const std::string where = "blocks[" + std::to_string(b) + "]";
    if (!std::isfinite(city.blocks[b].target_height_m)) {
      return Error::invalid_input(where + ".target_height_m", "expected a finite height");
    }
    if (Status s = check_polygon(city.blocks[b].area, chunk_m, where + ".area"); !s) {
      return s;
    }
  }
  return Ok{};
}

// ---- Vertex helpers -----------------------------------------------------------------------

Float3 to_float3(double x, double y, double z) {
  return {static_cast<float>(x), static_cast<float>(y), static_cast<float>(z)};
}

/// Unit normal of the terrain surface at p, by central differences over one cell.
Float3 ground_normal(const terrain::Heightfield& g, Vec2 p) {
  const double h = g.cell_m;
  const double dx = (g.sample({p.x + h, p.y}) - g.sample({p.x - h, p.y})) / (2.0 * h);
  const double dy = (g.sample({p.x, p.y + h}) - g.sample({p.x, p.y - h})) / (2.0 * h);
  const Vec3 n = normalize(Vec3{-dx, -dy, 1.0});
  return to_float3(n.x, n.y, n.z);
}

void add_vertex(Mesh& m, Vec2 p, double z, Float3 normal) {
  m.positions.push_back(to_float3(p.x, p.y, z));
  m.normals.push_back(normal);
}

/// Adds triangle (a, b, c) counter-clockwise seen from above (+z), whatever its input order.
void add_triangle_up(Mesh& m, std::uint32_t a, std::uint32_t b, std::uint32_t c) {
  const auto& pa = m.positions[a];
  const auto& pb = m.positions[b];
  const auto& pc = m.positions[c];
  const double turn = cross(Vec2{double{pb[0]} - pa[0], double{pb[1]} - pa[1]},
                            Vec2{double{pc[0]} - pa[0], double{pc[1]} - pa[1]});
  if (turn >= 0.0) {
    m.indices.insert(m.indices.end(), {a, b, c});
  } else {
    m.indices.insert(m.indices.end(), {a, c, b});
  }
}

// ---- Draping on the terrain mesh -----------------------------------------------------------
// Imported ground (Heightfield::mesh_exact) is what the terrain mesh draws: planar on each of
// the two triangles per grid cell, creased along the cell edges and the (i,j)-(i+1,j+1)
// diagonals, sharply where roads were cut and filled. A surface draped only at its own vertices
// spans those creases with straight triangles and floats over or sinks under the drawn ground
// by metres on steep valley sides. Cutting the surface along every terrain mesh edge makes it
// follow the ground exactly: each piece lies over one terrain triangle, so surface minus ground
// is the (linear) raise and crown the surface was built with.

/// A triangle whose corners lie within this of the cut surface everywhere is kept whole.
constexpr double kUncutToleranceM = 0.02;

/// A point of a polygon being clipped, in grid units, with its height above the terrain.
struct ClipVertex {
  double u = 0.0;
  double v = 0.0;
  double lift = 0.0;
  double flat_z = 0.0;  ///< Height of the uncut triangle here.
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
                     p.flat_z + t * (q.flat_z - p.flat_z)});
    }
  }
}

/// The line with long stretches cut where it crosses a terrain mesh edge (grid lines and cell
/// diagonals), so what hangs from it (skirts, curbs) follows the creased ground. Unchanged on
/// ground that is not mesh_exact.
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

/// Cuts every up-facing triangle of `in` along the terrain mesh's edges and puts each new
/// vertex at the ground plus the height the triangle had above the ground at its corners,
/// interpolated (the raise and crown are linear across a triangle). Vertical faces (skirts,
/// curbs) pass through. Unchanged on ground that is not mesh_exact (smooth generated terrain).
Mesh cut_along_terrain_edges(Mesh in, const terrain::Heightfield& g) {
  if (!g.mesh_exact || in.empty()) return in;
  Mesh out;
  out.positions = in.positions;
  out.normals = in.normals;
  std::map<Float3, std::uint32_t> added;  // one vertex per new point
  auto vertex = [&](const ClipVertex& c) {
    const Vec2 p{g.origin.x + c.u * g.cell_m, g.origin.y + c.v * g.cell_m};
    const Float3 key = to_float3(p.x, p.y, g.sample(p) + c.lift);
    auto [it, fresh] = added.try_emplace(key, static_cast<std::uint32_t>(out.positions.size()));
    if (fresh) {
      out.positions.push_back(key);
      out.normals.push_back(ground_normal(g, p));
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
      tri.push_back({(p.x - g.origin.x) / g.cell_m, (p.y - g.origin.y) / g.cell_m,
                     double{q[2]} - g.sample(p), double{q[2]}});
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

// ---- Items --------------------------------------------------------------------------------

/// The edge's centre line with long segments split to <= kDrapeSpacingM (corners kept), so
/// ribbons along it drape on the terrain.
Polyline drape_line(const Polyline& points) {
  const Polyline line = polyline_dedupe(points);
  if (line.size() < 2) {
    return {};
  }
  Polyline dense{line.front()};
  for (std::size_t i = 0; i + 1 < line.size(); ++i) {
    const Polyline seg = polyline_resample(Polyline{line[i], line[i + 1]}, kDrapeSpacingM);
    dense.insert(dense.end(), seg.begin() + 1, seg.end());
  }
  return polyline_dedupe(dense);
}

/// A strip between the lines offset left_m and right_m (left of travel positive) from the
/// centre line, draped on the ground and raised by raise_m.
void add_strip(Mesh& m, const Polyline& centre, double left_m, double right_m,
               const terrain::Heightfield& g, double raise_m, double left_lift_m = 0.0,
               double right_lift_m = 0.0) {
  const Polyline left = polyline_offset(centre, left_m);
  const Polyline right = polyline_offset(centre, right_m);
  CF_ASSERT(left.size() == centre.size() && right.size() == centre.size(),
            "polyline_offset must keep the point count");
  const std::size_t n = std::min(left.size(), right.size());
  if (n < 2) {
    return;
  }
  const auto base = static_cast<std::uint32_t>(m.positions.size());
  // 1. Vertices base+2i (left) and base+2i+1 (right), draped, normals from the terrain.
  for (std::size_t i = 0; i < n; ++i) {
    add_vertex(m, left[i], g.sample(left[i]) + raise_m + left_lift_m, ground_normal(g, left[i]));
    add_vertex(m, right[i], g.sample(right[i]) + raise_m + right_lift_m,
               ground_normal(g, right[i]));
  }
  // 2. One quad per segment. Mitred joins can fold the inner side at sharp turns; such
  // triangles are turned up here and zero-area ones dropped later.
  for (std::size_t i = 0; i + 1 < n; ++i) {
    const auto l0 = static_cast<std::uint32_t>(base + 2 * i);
    const std::uint32_t r0 = l0 + 1;
    const std::uint32_t l1 = l0 + 2;
    const std::uint32_t r1 = l0 + 3;
    add_triangle_up(m, r0, r1, l1);
    add_triangle_up(m, r0, l1, l0);
  }
}

// Until junctions are built (the roads stage), ribbons of different roads overlap there. Each
// class sits a little higher than the one below it, and sidewalks lowest, so the wider road
// wins cleanly instead of flickering.
double class_raise(layout::RoadClass c) {
  switch (c) {
    case layout::RoadClass::artery:
      return 0.04;
    case layout::RoadClass::main:
      return 0.02;
    case layout::RoadClass::local:
      return 0.0;
  }
  return 0.0;
}
constexpr double kSidewalkBelowRoadM = 0.02;

/// The carriageway: a ribbon width_m wide along the edge.
/// A vertical skirt below the line offset offset_m from the centre, skirt_m deep, facing away
/// from the centre line.
void add_skirt(Mesh& m, const Polyline& centre, double offset_m, const terrain::Heightfield& g,
               double raise_m, double skirt_m) {
  const Polyline edge = split_at_terrain_edges(polyline_offset(centre, offset_m), g);
  if (edge.size() < 2) {
    return;
  }
  const auto base = static_cast<std::uint32_t>(m.positions.size());
  for (std::size_t i = 0; i < edge.size(); ++i) {
    const Vec2 along = normalize(edge[std::min(i + 1, edge.size() - 1)] - edge[i > 0 ? i - 1 : 0]);
    const Vec2 out = offset_m > 0.0 ? perp(along) : -perp(along);
    const Float3 n = to_float3(out.x, out.y, 0.0);
    const double top = g.sample(edge[i]) + raise_m;
    add_vertex(m, edge[i], top, n);
    add_vertex(m, edge[i], top - skirt_m, n);
  }
  for (std::size_t i = 0; i + 1 < edge.size(); ++i) {
    const auto t0 = static_cast<std::uint32_t>(base + 2 * i);
    const std::uint32_t b0 = t0 + 1;
    const std::uint32_t t1 = t0 + 2;
    const std::uint32_t b1 = t0 + 3;
    if (offset_m > 0.0) {  // left side: outward is to the left of travel
      m.indices.insert(m.indices.end(), {t0, t1, b0, b0, t1, b1});
    } else {
      m.indices.insert(m.indices.end(), {t0, b0, t1, t1, b0, b1});
    }
  }
}

/// The centre line to dress: the section trimmed at its junctions when roads were built, else
/// the whole edge.
const Polyline& centre_of(const layout::RoadEdge& edge, const Polyline* trimmed) {
  return trimmed != nullptr && trimmed->size() >= 2 ? *trimmed : edge.points;
}

/// A crowned carriageway: curb, centre raised by crown_m, curb; skirts hang skirt_m below both
/// edges so neighbouring surfaces never show a gap.
void add_crowned_strip(Mesh& m, const Polyline& centre, double half_width_m,
                       const terrain::Heightfield& g, double raise_m, double crown_m,
                       double skirt_m) {
  add_strip(m, centre, half_width_m, 0.0, g, raise_m, 0.0, crown_m);
  add_strip(m, centre, 0.0, -half_width_m, g, raise_m, crown_m, 0.0);
  if (skirt_m > 0.0) {
    add_skirt(m, centre, half_width_m, g, raise_m, skirt_m);
    add_skirt(m, centre, -half_width_m, g, raise_m, skirt_m);
  }
}

Mesh road_ribbon(const layout::RoadEdge& edge, const Polyline* trimmed,
                 const terrain::Heightfield& g, double raise_m, double crown_m, double skirt_m) {
  Mesh m;
  if (edge.width_m > 0.0) {
    add_crowned_strip(m, drape_line(centre_of(edge, trimmed)), 0.5 * edge.width_m, g,
                      raise_m + class_raise(edge.road_class), crown_m, skirt_m);
  }
  return cut_along_terrain_edges(std::move(m), g);
}

/// The two sidewalks: strips sidewalk_width_m wide outside the curb lines.
Mesh sidewalk_strips(const layout::RoadEdge& edge, const Polyline* trimmed,
                     const terrain::Heightfield& g, double raise_m) {
  Mesh m;
  if (edge.sidewalk_width_m > 0.0 && edge.width_m > 0.0) {
    const Polyline centre = drape_line(centre_of(edge, trimmed));
    const double curb = 0.5 * edge.width_m;
    const double outer = curb + edge.sidewalk_width_m;
    const double z = std::max(0.0, raise_m - kSidewalkBelowRoadM);
    add_strip(m, centre, outer, curb, g, z);
    add_strip(m, centre, -curb, -outer, g, z);
  }
  return cut_along_terrain_edges(std::move(m), g);
}

/// Triangulated polygon draped on the ground + raise_m: triangles are bisected on their longest
/// edge until no edge is longer than two terrain cells, so the surface follows the ground
/// instead of cutting through it across a large block. Bisection keeps slivers from the
/// triangulation cheap (a 1-4 split would multiply them); the T-vertices it leaves between
/// neighbours open cracks of the terrain's curvature over one cell (millimetres), not holes.
Mesh block_surface(const layout::Block& block, const terrain::Heightfield& g, double raise_m) {
  Mesh m;
  const Triangulation t = triangulate(block.area);
  const double max_edge = 2.0 * g.cell_m;
  std::map<std::pair<double, double>, std::uint32_t> index;  // one vertex per point
  auto vertex = [&](Vec2 p) {
    auto [it, added] =
        index.try_emplace({p.x, p.y}, static_cast<std::uint32_t>(m.positions.size()));
    if (added) add_vertex(m, p, g.sample(p) + raise_m, ground_normal(g, p));
    return it->second;
  };
  std::vector<std::array<Vec2, 3>> pending;
  for (std::size_t i = 0; i + 2 < t.indices.size(); i += 3) {
    pending.push_back(
        {t.points[t.indices[i]], t.points[t.indices[i + 1]], t.points[t.indices[i + 2]]});
  }
  while (!pending.empty()) {
    const std::array<Vec2, 3> tri = pending.back();
    pending.pop_back();
    // Edge k runs from tri[k] to tri[k+1].
    std::size_t k = 0;
    double longest = 0.0;
    for (std::size_t e = 0; e < 3; ++e) {
      const double len = distance(tri[e], tri[(e + 1) % 3]);
      if (len > longest) {
        longest = len;
        k = e;
      }
    }
    if (longest <= max_edge) {
      add_triangle_up(m, vertex(tri[0]), vertex(tri[1]), vertex(tri[2]));
      continue;
    }
    const Vec2 a = tri[k];
    const Vec2 b = tri[(k + 1) % 3];
    const Vec2 c = tri[(k + 2) % 3];
    const Vec2 mid = (a + b) * 0.5;
    pending.push_back({a, mid, c});
    pending.push_back({mid, b, c});
  }
  return m;
}

/// Lowest ground under a footprint: its vertices and every grid sample inside it.
double lowest_ground(const Polygon& fp, const terrain::Heightfield& g) {
  double low = std::numeric_limits<double>::infinity();
  for (const Vec2 p : fp.outer) {
    low = std::min(low, g.sample(p));
  }
  const Aabb2 box = ring_bounds(fp.outer);
  const auto index_range = [&](double lo, double hi, double origin, std::uint32_t count) {
    const double first = std::ceil((lo - origin) / g.cell_m);
    const double last = std::floor((hi - origin) / g.cell_m);
    const double max_index = static_cast<double>(count) - 1.0;
    return std::pair<double, double>{std::max(first, 0.0), std::min(last, max_index)};
  };
  const auto [i0, i1] = index_range(box.min.x, box.max.x, g.origin.x, g.nx);
  const auto [j0, j1] = index_range(box.min.y, box.max.y, g.origin.y, g.ny);
  for (double j = j0; j <= j1; j += 1.0) {
    for (double i = i0; i <= i1; i += 1.0) {
      const Vec2 p{g.origin.x + i * g.cell_m, g.origin.y + j * g.cell_m};
      if (polygon_contains(fp, p)) {
        low = std::min(low, static_cast<double>(g.at(static_cast<std::uint32_t>(i),
                                                     static_cast<std::uint32_t>(j))));
      }
    }
  }
  return low;
}

/// Flat-shaded walls of one ring from base_z to top_z: four vertices per face, outward normal.
/// The solid lies left of every canonical ring (outer counter-clockwise, holes clockwise), so
/// outward is the right-hand side of each edge.
void add_walls(Mesh& m, const Ring& ring, double base_z, double top_z) {
  for (std::size_t i = 0; i < ring.size(); ++i) {
    const Vec2 a = ring[i];
    const Vec2 b = ring[(i + 1) % ring.size()];
    const Vec2 out = normalize(-perp(b - a));
    if (out == Vec2{}) {
      continue;
    }
    const Float3 n = to_float3(out.x, out.y, 0.0);
    const auto v = static_cast<std::uint32_t>(m.positions.size());
    add_vertex(m, a, base_z, n);
    add_vertex(m, b, base_z, n);
    add_vertex(m, b, top_z, n);
    add_vertex(m, a, top_z, n);
    // Counter-clockwise seen from outside.
    m.indices.insert(m.indices.end(), {v, v + 1, v + 2, v, v + 2, v + 3});
  }
}

/// The block inset by setback_m, extruded from the lowest ground under it to
/// block.target_height_m above that: walls and a flat roof (no floor). Empty in parks.
Mesh block_volume(const layout::Block& block, const terrain::Heightfield& g, double setback_m,
                  const std::vector<Polygon>& keep_out = {}) {
  Mesh m;
  if (block.zone == layout::ZoneKind::park || block.target_height_m <= 0.0) {
    return m;
  }
  std::vector<Polygon> footprints = setback_m > 0.0
                                        ? polygon_offset(block.area, -setback_m)
                                        : std::vector<Polygon>{polygon_canonical(block.area)};
  // Nothing is built under a freeway deck.
  const Aabb2 box = ring_bounds(block.area.outer);
  std::vector<Polygon> near;
  for (const Polygon& k : keep_out) {
    if (box.overlaps(ring_bounds(k.outer))) near.push_back(k);
  }
  if (!near.empty()) {
    std::vector<Polygon> cut;
    for (const Polygon& fp : footprints) {
      for (Polygon& piece : polygon_difference(fp, near)) {
        if (polygon_area(piece) >= 20.0) cut.push_back(std::move(piece));
      }
    }
    footprints = std::move(cut);
  }
  for (const Polygon& fp : footprints) {
    if (fp.outer.size() < 3) {
      continue;
    }
    const double base_z = lowest_ground(fp, g);
    const double top_z = base_z + block.target_height_m;
    add_walls(m, fp.outer, base_z, top_z);
    for (const Ring& hole : fp.holes) {
      add_walls(m, hole, base_z, top_z);
    }
    const Triangulation roof = triangulate(fp);
    const auto first = static_cast<std::uint32_t>(m.positions.size());
    for (const Vec2 p : roof.points) {
      add_vertex(m, p, top_z, Float3{0.0f, 0.0f, 1.0f});
    }
    for (std::size_t i = 0; i + 2 < roof.indices.size(); i += 3) {
      add_triangle_up(m, first + roof.indices[i], first + roof.indices[i + 1],
                      first + roof.indices[i + 2]);
    }
  }
  return m;
}

// ---- Chunking -----------------------------------------------------------------------------

bool degenerate(const Mesh& m, std::uint32_t a, std::uint32_t b, std::uint32_t c) {
  if (a == b || b == c || a == c) {
    return true;
  }
  const auto& pa = m.positions[a];
  const auto& pb = m.positions[b];
  const auto& pc = m.positions[c];
  const Vec3 ab{double{pb[0]} - pa[0], double{pb[1]} - pa[1], double{pb[2]} - pa[2]};
  const Vec3 ac{double{pc[0]} - pa[0], double{pc[1]} - pa[1], double{pc[2]} - pa[2]};
  const Vec3 n = cross(ab, ac);
  return dot(n, n) < 4.0 * kMinTriangleArea2;
}

/// Renormalised in float so the GPU (and the glTF validator) get unit vectors.
Float3 unit(Float3 n) {
  const double len = std::sqrt(double{n[0]} * n[0] + double{n[1]} * n[1] + double{n[2]} * n[2]);
  if (!(len > 0.0) || !std::isfinite(len)) {
    return {0.0f, 0.0f, 1.0f};
  }
  return to_float3(n[0] / len, n[1] / len, n[2] / len);
}

/// Cuts one item's mesh into pieces by triangle centroid, dropping degenerate triangles.
/// Pieces come out in chunk order; vertices keep their first-use order within a piece.
Pieces split_by_chunk(const Mesh& m, Part part, double chunk_m) {
  Pieces out;
  if (m.indices.empty()) {
    return out;
  }
  CF_ASSERT(m.normals.size() == m.positions.size(), "one normal per position");
  // 1. Chunk of every kept triangle.
  const std::size_t tri_count = m.indices.size() / 3;
  std::vector<ChunkKey> keys(tri_count);
  std::vector<bool> keep(tri_count, false);
  std::vector<ChunkKey> distinct;
  for (std::size_t t = 0; t < tri_count; ++t) {
    const std::uint32_t a = m.indices[3 * t];
    const std::uint32_t b = m.indices[3 * t + 1];
    const std::uint32_t c = m.indices[3 * t + 2];
    if (degenerate(m, a, b, c)) {
      continue;
    }
    const double x = (double{m.positions[a][0]} + m.positions[b][0] + m.positions[c][0]) / 3.0;
    const double y = (double{m.positions[a][1]} + m.positions[b][1] + m.positions[c][1]) / 3.0;
    keys[t] = {static_cast<std::int32_t>(std::floor(y / chunk_m)),
               static_cast<std::int32_t>(std::floor(x / chunk_m))};
    keep[t] = true;
    distinct.push_back(keys[t]);
  }
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  // 2. One piece per chunk, with its own compact vertex list.
  constexpr std::uint32_t kUnset = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint32_t> remap(m.positions.size());
  for (const ChunkKey& key : distinct) {
    std::fill(remap.begin(), remap.end(), kUnset);
    Piece piece{key, part, {}};
    for (std::size_t t = 0; t < tri_count; ++t) {
      if (!keep[t] || keys[t] != key) {
        continue;
      }
      for (std::size_t k = 0; k < 3; ++k) {
        const std::uint32_t v = m.indices[3 * t + k];
        if (remap[v] == kUnset) {
          remap[v] = static_cast<std::uint32_t>(piece.mesh.positions.size());
          piece.mesh.positions.push_back(m.positions[v]);
          piece.mesh.normals.push_back(unit(m.normals[v]));
        }
        piece.mesh.indices.push_back(remap[v]);
      }
    }
    out.push_back(std::move(piece));
  }
  return out;
}

/// Runs make(i) for i in [0, n) in parallel, each into its own slot.
template <class Make>
std::vector<Pieces> mesh_items(std::size_t n, const Make& make) {
  std::vector<Pieces> slots(n);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n),
                    [&](const tbb::blocked_range<std::size_t>& r) {
                      for (std::size_t i = r.begin(); i != r.end(); ++i) {
                        slots[i] = make(i);
                      }
                    });
  return slots;
}

/// Curb faces: vertical walls around a sidewalk area, from its top down to just below the road,
/// draped on the ground point by point (long edges split to the drape spacing). Rings are
/// canonical (outer counter-clockwise, holes clockwise), so the walls face away from the walk.
void add_curbs(Mesh& m, const Polygon& walk, const terrain::Heightfield& g, double top_raise_m,
               double bottom_raise_m) {
  auto ring_walls = [&](const Ring& ring) {
    for (std::size_t i = 0; i < ring.size(); ++i) {
      const Polyline edge = split_at_terrain_edges(
          polyline_resample(Polyline{ring[i], ring[(i + 1) % ring.size()]}, kDrapeSpacingM), g);
      const Vec2 out = normalize(-perp(edge.back() - edge.front()));
      if (out == Vec2{} || edge.size() < 2) continue;
      const Float3 n = to_float3(out.x, out.y, 0.0);
      for (std::size_t k = 0; k + 1 < edge.size(); ++k) {
        const Vec2 a = edge[k];
        const Vec2 b = edge[k + 1];
        const auto v = static_cast<std::uint32_t>(m.positions.size());
        add_vertex(m, a, g.sample(a) + bottom_raise_m, n);
        add_vertex(m, b, g.sample(b) + bottom_raise_m, n);
        add_vertex(m, b, g.sample(b) + top_raise_m, n);
        add_vertex(m, a, g.sample(a) + top_raise_m, n);
        m.indices.insert(m.indices.end(), {v, v + 1, v + 2, v, v + 2, v + 3});
      }
    }
  };
  const Polygon canonical = polygon_canonical(walk);
  ring_walls(canonical.outer);
  for (const Ring& h : canonical.holes)
    ring_walls(h);
}

/// A road marking decal baked as a flat fan over its outline (already draped on the road).
Mesh decal_mesh(const roads::Decal& d) {
  Mesh m;
  if (d.outline.size() < 3) return m;
  for (const Vec3& p : d.outline) {
    add_vertex(m, {p.x, p.y}, p.z, Float3{0.0f, 0.0f, 1.0f});
  }
  for (std::uint32_t i = 1; i + 1 < d.outline.size(); ++i) {
    add_triangle_up(m, 0, i, i + 1);
  }
  return m;
}

/// A pillar as a 2 x 2 m box from its base on the terrain up to the deck underside.
Mesh pillar_box(const freeway::Pillar& p) {
  Mesh m;
  const double half = 1.0;
  Ring ring;
  for (const Vec2 c :
       {Vec2{-half, -half}, Vec2{half, -half}, Vec2{half, half}, Vec2{-half, half}}) {
    ring.push_back(Vec2{p.base.x, p.base.y} + rotate(c, p.yaw_rad));
  }
  // The base sinks half a metre so it never floats on a slope.
  add_walls(m, ring, p.base.z - 0.5, p.base.z + p.height_m);
  return m;
}

/// A junction's surface, draped, at the height of its widest leg's class.
Mesh junction_surface(const roads::Intersection& x, const layout::Output& city,
                      const terrain::Heightfield& g, double raise_m) {
  layout::Block as_block;
  as_block.area = x.surface;
  return cut_along_terrain_edges(
      block_surface(as_block, g, raise_m + class_raise(junction_class(x, city))), g);
}

}  // namespace

Mesh road_brick(layout::RoadClass c, double length_m, double width_m, double raise_m,
                const roads::Config& rules) {
  Mesh m;
  const double half = 0.5 * width_m;
  const double top = raise_m + class_raise(c);
  const double crown = rules.crown_m;
  if (!(length_m > 0.0) || !(half > 0.0)) return m;
  // 1. The two halves of the crowned top, each a flat quad with its own normal.
  for (const double side : {1.0, -1.0}) {
    const Vec3 n = normalize(Vec3{0.0, side * crown / half, 1.0});
    const Float3 nf = to_float3(n.x, n.y, n.z);
    const auto v = static_cast<std::uint32_t>(m.positions.size());
    add_vertex(m, {0.0, side * half}, top, nf);
    add_vertex(m, {length_m, side * half}, top, nf);
    add_vertex(m, {length_m, 0.0}, top + crown, nf);
    add_vertex(m, {0.0, 0.0}, top + crown, nf);
    add_triangle_up(m, v, v + 1, v + 2);
    add_triangle_up(m, v, v + 2, v + 3);
  }
  // 2. Skirts below both curbs, facing outwards (as add_skirt does on the ribbons).
  if (rules.skirt_m > 0.0) {
    for (const double side : {1.0, -1.0}) {
      const Float3 n = to_float3(0.0, side, 0.0);
      const auto v = static_cast<std::uint32_t>(m.positions.size());
      add_vertex(m, {0.0, side * half}, top, n);
      add_vertex(m, {0.0, side * half}, top - rules.skirt_m, n);
      add_vertex(m, {length_m, side * half}, top, n);
      add_vertex(m, {length_m, side * half}, top - rules.skirt_m, n);
      if (side > 0.0) {
        m.indices.insert(m.indices.end(), {v, v + 2, v + 1, v + 1, v + 2, v + 3});
      } else {
        m.indices.insert(m.indices.end(), {v, v + 1, v + 2, v + 2, v + 1, v + 3});
      }
    }
  }
  return m;
}

namespace {

/// A ground patch: draped like a block surface, or flat (water) at its z_m, both raised.
Mesh ground_patch_mesh(const dressing::GroundPatch& patch, const terrain::Heightfield& g,
                       double block_raise_m) {
  if (patch.kind != dressing::GroundKind::water || patch.path) {
    layout::Block as_block;
    as_block.area = patch.area;
    return block_surface(as_block, g,
                         block_raise_m + (patch.path ? kPathRaiseM : kGroundPatchRaiseM));
  }
  Mesh m;
  const Triangulation t = triangulate(patch.area);
  const double z = patch.z_m + block_raise_m + kWaterRaiseM;
  for (const Vec2& p : t.points)
    add_vertex(m, p, z, Float3{0.0f, 0.0f, 1.0f});
  m.indices = t.indices;
  return m;
}

}  // namespace

layout::RoadClass junction_class(const roads::Intersection& x, const layout::Output& city) {
  auto best = layout::RoadClass::local;
  for (const roads::Leg& leg : x.legs) {
    best = std::min(best, city.network.edges[leg.edge].road_class);  // artery < main < local
  }
  return best;
}

Result<std::vector<ChunkMeshes>> build_city_meshes(
    const layout::Output& city, const terrain::Heightfield& ground, const Config& config,
    const roads::Output* roads, const roads::Config& rules, const freeway::Output* freeway,
    const buildings::Output* buildings, const std::vector<dressing::GroundPatch>* patches) {
  if (Status s = check_inputs(city, ground, config); !s) {
    return s.error();
  }
  if (!std::isfinite(rules.block_raise_m) || !std::isfinite(rules.road_raise_m)) {
    return Error::invalid_input("roads", "block_raise_m and road_raise_m must be finite");
  }
  if (patches != nullptr) {
    for (std::size_t i = 0; i < patches->size(); ++i) {
      const std::string where = "dressing.ground[" + std::to_string(i) + "]";
      if (Status s = check_polygon((*patches)[i].area, config.chunk_m, where); !s) return s.error();
      if (!std::isfinite((*patches)[i].z_m)) {
        return Error::invalid_input(where + ".z_m", "expected a finite height");
      }
    }
  }
  const double chunk_m = config.chunk_m;
  const auto& edges = city.network.edges;
  const auto& blocks = city.blocks;
  const std::vector<Polygon> no_footprints;
  const std::vector<Polygon>& keep_out = freeway != nullptr ? freeway->footprints : no_footprints;

  // 1. Mesh every item into its own slot, in parallel.
  const std::vector<terrain::TerrainChunk> terrain_chunks = terrain::mesh_chunks(ground, chunk_m);
  std::vector<std::vector<Pieces>> groups;
  groups.push_back(mesh_items(terrain_chunks.size(), [&](std::size_t i) {
    return split_by_chunk(terrain_chunks[i].mesh, Part::terrain, chunk_m);
  }));
  // With roads built, carriageways and sidewalks stop at the junction mouths, carriageways are
  // crowned with skirts, and junction surfaces fill the gaps.
  const bool built = roads != nullptr && roads->sections.size() == edges.size();
  auto trimmed = [&](std::size_t i) { return built ? &roads->sections[i].centre : nullptr; };
  const double crown_m = built ? rules.crown_m : 0.0;
  const double skirt_m = built ? rules.skirt_m : 0.0;
  // Instanced sections are written by city_glb as road bricks instead of ribbons.
  const bool instanced = built && config.road_modules == pipeline::RoadModules::instanced;
  groups.push_back(mesh_items(edges.size(), [&](std::size_t i) {
    // Underground roads of imported places (tunnel=yes) are in the lane graph, not drawn.
    if (instanced || edges[i].tunnel) return Pieces{};
    return split_by_chunk(
        road_ribbon(edges[i], trimmed(i), ground, rules.road_raise_m, crown_m, skirt_m),
        road_part(edges[i].road_class), chunk_m);
  }));
  if (built) {
    // Sidewalk areas from the road stage (corners solved), at curb height like the blocks.
    const auto& walks = roads->sidewalks;
    groups.push_back(mesh_items(walks.size(), [&](std::size_t i) {
      layout::Block as_block;
      as_block.area = walks[i];
      Mesh m = block_surface(as_block, ground, rules.block_raise_m);
      add_curbs(m, walks[i], ground, rules.block_raise_m, rules.road_raise_m - 0.05);
      return split_by_chunk(cut_along_terrain_edges(std::move(m), ground), Part::sidewalk, chunk_m);
    }));
  } else {
    groups.push_back(mesh_items(edges.size(), [&](std::size_t i) {
      return split_by_chunk(sidewalk_strips(edges[i], nullptr, ground, rules.road_raise_m),
                            Part::sidewalk, chunk_m);
    }));
  }
  if (built) {
    const auto& xs = roads->intersections;
    groups.push_back(mesh_items(xs.size(), [&](std::size_t i) {
      if (xs[i].surface.outer.size() < 3) return Pieces{};
      return split_by_chunk(junction_surface(xs[i], city, ground, rules.road_raise_m),
                            road_part(junction_class(xs[i], city)), chunk_m);
    }));
  }
  groups.push_back(mesh_items(blocks.size(), [&](std::size_t i) {
    return split_by_chunk(block_surface(blocks[i], ground, rules.block_raise_m), Part::block,
                          chunk_m);
  }));
  if (buildings == nullptr) {
    groups.push_back(mesh_items(blocks.size(), [&](std::size_t i) {
      return split_by_chunk(block_volume(blocks[i], ground, config.volume_setback_m, keep_out),
                            Part::volume, chunk_m);
    }));
  } else {
    const auto& roofs = buildings->roofs;
    groups.push_back(mesh_items(roofs.size(), [&](std::size_t i) {
      Pieces pieces = split_by_chunk(roofs[i][static_cast<std::size_t>(buildings::Material::roof)],
                                     Part::roof, chunk_m);
      Pieces parapets = split_by_chunk(
          roofs[i][static_cast<std::size_t>(buildings::Material::trim)], Part::parapet, chunk_m);
      pieces.insert(pieces.end(), std::make_move_iterator(parapets.begin()),
                    std::make_move_iterator(parapets.end()));
      // Gable ends and skillion sides of pitched roofs (imported places): plastered wall.
      Pieces gables = split_by_chunk(roofs[i][static_cast<std::size_t>(buildings::Material::wall)],
                                     Part::volume, chunk_m);
      pieces.insert(pieces.end(), std::make_move_iterator(gables.begin()),
                    std::make_move_iterator(gables.end()));
      return pieces;
    }));
  }

  if (patches != nullptr && !patches->empty()) {
    const auto& ps = *patches;
    groups.push_back(mesh_items(ps.size(), [&](std::size_t i) {
      if (ps[i].area.outer.size() < 3) return Pieces{};
      return split_by_chunk(ground_patch_mesh(ps[i], ground, rules.block_raise_m),
                            ground_part(ps[i]), chunk_m);
    }));
  }
  if (built) {
    const auto& decals = roads->markings;
    groups.push_back(mesh_items(decals.size(), [&](std::size_t i) {
      return split_by_chunk(decal_mesh(decals[i]), Part::marking, chunk_m);
    }));
  }
  if (freeway != nullptr) {
    std::vector<const Mesh*> decks;
    for (const auto& c : freeway->deck_chunks)
      decks.push_back(&c.mesh);
    for (const auto& c : freeway->barrier_chunks)
      decks.push_back(&c.mesh);
    groups.push_back(mesh_items(decks.size(), [&](std::size_t i) {
      return split_by_chunk(*decks[i], Part::freeway, chunk_m);
    }));
    const auto& pillars = freeway->pillars;
    groups.push_back(mesh_items(pillars.size(), [&](std::size_t i) {
      return split_by_chunk(pillar_box(pillars[i]), Part::freeway, chunk_m);
    }));
  }

  // 2. Merge in a fixed order (kind, then item index), so thread count never shows.
  std::map<ChunkKey, ChunkMeshes> chunks;
  for (const auto& group : groups) {
    for (const Pieces& pieces : group) {
      for (const Piece& piece : pieces) {
        ChunkMeshes& chunk = chunks[piece.key];
        chunk.cy = piece.key.first;
        chunk.cx = piece.key.second;
        chunk.parts[static_cast<std::size_t>(piece.part)].append(piece.mesh);
      }
    }
  }

  // 3. Nothing non-finite leaves: finite doubles can still overflow float32 (absurd heights).
  std::vector<ChunkMeshes> out;
  out.reserve(chunks.size());
  for (auto& [key, chunk] : chunks) {
    for (std::size_t p = 0; p < kPartCount; ++p) {
      for (const Float3& v : chunk.parts[p].positions) {
        if (!std::isfinite(v[0]) || !std::isfinite(v[1]) || !std::isfinite(v[2])) {
          return Error::invalid_input("chunk_" + std::to_string(chunk.cx) + "_" +
                                          std::to_string(chunk.cy) + "." +
                                          part_name(static_cast<Part>(p)),
                                      "a vertex does not fit float32 (not finite)");
        }
      }
    }
    out.push_back(std::move(chunk));
  }
  return out;
}

}  // namespace cityforge::exporter::detail
