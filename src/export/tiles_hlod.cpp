// SPDX-License-Identifier: Apache-2.0
// The HLOD stand-ins of the 3D Tiles parent tiles: LOD1 building shells, merged meshes with a
// colour and a feature id per vertex, simplified by meshoptimizer's edge-collapse simplifier.
// Based on: Garland & Heckbert, Surface Simplification Using Quadric Error Metrics, 1997 (the
// simplifier's metric); Biljecki et al., An improved LOD specification for 3D building models,
// 2016 (LOD1: the footprint extruded to the building's height); Ericson, Real-Time Collision
// Detection, 2005, 5.1.5 (closest point on a triangle, for the measured deviation).
#include "export/detail/tiles_hlod.hpp"

#include <meshoptimizer.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "cityforge/core/assert.hpp"
#include "cityforge/core/mesh_build.hpp"
#include "cityforge/core/polygon.hpp"
#include "export/detail/gltf_model.hpp"

namespace cityforge::exporter::detail {
namespace {

// One vertex with every attribute, packed without padding: meshopt_generateVertexRemap welds
// vertices that are equal byte for byte, and meshopt_optimizeVertexFetch moves them whole.
struct PackedVertex {
  std::array<float, 3> position;
  std::array<float, 3> normal;
  std::array<std::uint8_t, 4> colour;
  std::uint32_t feature;
};
static_assert(sizeof(PackedVertex) == 32, "PackedVertex must have no padding");

// Largest integer a float feature id carries exactly.
constexpr std::uint32_t kMaxFloatFeature = 1U << 24U;

bool finite3(const std::array<float, 3>& v) {
  return std::isfinite(v[0]) && std::isfinite(v[1]) && std::isfinite(v[2]);
}

// Walls of one ring from z0 to z1, one flat quad per edge, facing away from the solid: to the
// right of the walking direction once the ring runs counter-clockwise for the outer ring and
// clockwise for a hole (whatever order it came in).
void add_ring_walls(Mesh& walls, const Ring& ring, bool hole, double z0, double z1) {
  const std::size_t n = ring.size();
  if (n < 3) {
    return;
  }
  const bool ccw = ring_signed_area(ring) > 0.0;
  const bool reverse = hole ? ccw : !ccw;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = reverse ? n - 1 - k : k;
    const std::size_t j = reverse ? (i + n - 1) % n : (i + 1) % n;
    const Vec2 a = ring[i];
    const Vec2 b = ring[j];
    meshing::add_quad(walls, {a.x, a.y, z0}, {b.x, b.y, z0}, {b.x, b.y, z1}, {a.x, a.y, z1});
  }
}

// A flat cap over a footprint at height z, facing up.
Mesh flat_cap(const Polygon& footprint, double z) {
  Mesh cap;
  const Triangulation t = triangulate(footprint);
  for (const Vec2& p : t.points) {
    cap.positions.push_back(
        {static_cast<float>(p.x), static_cast<float>(p.y), static_cast<float>(z)});
    cap.normals.push_back({0.0f, 0.0f, 1.0f});
  }
  cap.indices = t.indices;
  return cap;
}

// Splits the triangles by the feature of their first corner, in order of first appearance.
std::vector<std::vector<std::uint32_t>> feature_groups(const HlodMesh& in) {
  std::vector<std::vector<std::uint32_t>> groups;
  std::map<std::uint32_t, std::size_t> group_of;
  for (std::size_t t = 0; t + 2 < in.indices.size(); t += 3) {
    const std::uint32_t feature = in.features[in.indices[t]];
    const auto [it, added] = group_of.emplace(feature, groups.size());
    if (added) {
      groups.emplace_back();
    }
    auto& corners = groups[it->second];
    corners.insert(corners.end(), in.indices.begin() + static_cast<std::ptrdiff_t>(t),
                   in.indices.begin() + static_cast<std::ptrdiff_t>(t + 3));
  }
  return groups;
}

// What welds two vertices before simplification: the position and what the tile shows of the
// vertex besides its shading (normals are set afterwards, see HlodShading).
struct WeldKey {
  std::array<float, 3> position;
  std::array<std::uint8_t, 4> colour;
  std::uint32_t feature;
};
static_assert(sizeof(WeldKey) == 20, "WeldKey must have no padding");

// Unit face normal of triangle abc, snapped so that coplanar triangles get the same bits (and
// share their vertices when welded); `fallback` for a degenerate triangle.
std::array<float, 3> face_normal(const std::array<float, 3>& a, const std::array<float, 3>& b,
                                 const std::array<float, 3>& c,
                                 const std::array<float, 3>& fallback) {
  const double ux = b[0] - a[0], uy = b[1] - a[1], uz = b[2] - a[2];
  const double vx = c[0] - a[0], vy = c[1] - a[1], vz = c[2] - a[2];
  std::array<double, 3> n{uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx};
  double len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  if (!(len > 0.0)) {
    return fallback;
  }
  constexpr double kSnap = 4096.0;
  for (double& x : n) {
    x = std::round(x / len * kSnap);
  }
  len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  return {static_cast<float>(n[0] / len), static_cast<float>(n[1] / len),
          static_cast<float>(n[2] / len)};
}

using Point = std::array<double, 3>;

Point sub(const Point& a, const Point& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
double dot(const Point& a, const Point& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
Point lift(const std::array<float, 3>& p) { return {p[0], p[1], p[2]}; }
Point along(const Point& a, const Point& d, double t) {
  return {a[0] + d[0] * t, a[1] + d[1] * t, a[2] + d[2] * t};
}

// Squared distance from p to triangle abc: the closest point found by the Voronoi region of p
// (a corner, an edge or the face) from the barycentric dot products.
double distance2_to_triangle(const Point& p, const Point& a, const Point& b, const Point& c) {
  const Point ab = sub(b, a);
  const Point ac = sub(c, a);
  const Point ap = sub(p, a);
  const auto dist2 = [&p](const Point& q) { return dot(sub(p, q), sub(p, q)); };
  const double d1 = dot(ab, ap);
  const double d2 = dot(ac, ap);
  if (d1 <= 0.0 && d2 <= 0.0) {
    return dist2(a);
  }
  const Point bp = sub(p, b);
  const double d3 = dot(ab, bp);
  const double d4 = dot(ac, bp);
  if (d3 >= 0.0 && d4 <= d3) {
    return dist2(b);
  }
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
    return dist2(along(a, ab, d1 / (d1 - d3)));
  }
  const Point cp = sub(p, c);
  const double d5 = dot(ab, cp);
  const double d6 = dot(ac, cp);
  if (d6 >= 0.0 && d5 <= d6) {
    return dist2(c);
  }
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
    return dist2(along(a, ac, d2 / (d2 - d6)));
  }
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0) {
    return dist2(along(b, sub(c, b), (d4 - d3) / ((d4 - d3) + (d5 - d6))));
  }
  const double sum = va + vb + vc;
  if (!(sum > 0.0)) {  // Degenerate: the nearest corner.
    return std::min({dist2(a), dist2(b), dist2(c)});
  }
  return dist2(along(along(a, ab, vb / sum), ac, vc / sum));
}

// The triangles of a mesh bucketed in a uniform grid of cubic cells over `lo`..`hi` (which
// hold every vertex), for nearest-surface queries.
class TriangleGrid {
 public:
  TriangleGrid(const std::vector<PackedVertex>& vertices, const std::vector<std::uint32_t>& indices,
               const Point& lo, const Point& hi)
      : m_vertices(vertices), m_indices(indices), m_lo(lo) {
    // Cells about the size of a triangle (surfaces are thin, so a cube root of the count would
    // leave many triangles per cell), at most 64 per axis.
    const double extent = std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
    double area = 0.0;
    m_boxes.resize(indices.size() / 3);
    for (std::size_t t = 0; t < indices.size(); t += 3) {
      const Point a = corner(t, 0);
      const Point u = sub(corner(t, 1), a);
      const Point w = sub(corner(t, 2), a);
      const Point n{u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2],
                    u[0] * w[1] - u[1] * w[0]};
      area += 0.5 * std::sqrt(dot(n, n));
      Box& box = m_boxes[t / 3];
      box = {a, a};
      for (std::size_t j = 1; j < 3; ++j) {
        const Point q = corner(t, j);
        for (std::size_t k = 0; k < 3; ++k) {
          box[0][k] = std::min(box[0][k], q[k]);
          box[1][k] = std::max(box[1][k], q[k]);
        }
      }
    }
    const double size = std::sqrt(area / static_cast<double>(m_boxes.size()));
    m_cell = std::max({std::min(size, extent), extent / 64.0, 1e-6});
    for (std::size_t k = 0; k < 3; ++k) {
      m_dims[k] = static_cast<int>((hi[k] - lo[k]) / m_cell) + 1;
    }
    bucket();
  }

  // The squared distance from p to the nearest triangle, or any value <= stop2 once one is
  // found that near (the caller only needs to know that much). Searches shells of cells at
  // Chebyshev distance r around p's cell: a triangle beyond shell r is at least r cells away.
  double nearest2(const Point& p, double stop2) const {
    const std::array<int, 3> c{cell_of(p[0], 0), cell_of(p[1], 1), cell_of(p[2], 2)};
    const int max_r = std::max({m_dims[0], m_dims[1], m_dims[2]});
    double best2 = std::numeric_limits<double>::infinity();
    for (int r = 0; r <= max_r; ++r) {
      for (int z = std::max(c[2] - r, 0); z <= std::min(c[2] + r, m_dims[2] - 1); ++z) {
        for (int y = std::max(c[1] - r, 0); y <= std::min(c[1] + r, m_dims[1] - 1); ++y) {
          for (int x = std::max(c[0] - r, 0); x <= std::min(c[0] + r, m_dims[0] - 1); ++x) {
            if (std::max({std::abs(x - c[0]), std::abs(y - c[1]), std::abs(z - c[2])}) != r) {
              continue;
            }
            const std::size_t f = flat(x, y, z);
            for (std::uint32_t i = m_start[f]; i < m_start[f + 1]; ++i) {
              const std::uint32_t t = m_tris[i];
              if (box_distance2(m_boxes[t / 3], p) >= best2) {
                continue;
              }
              best2 = std::min(best2,
                               distance2_to_triangle(p, corner(t, 0), corner(t, 1), corner(t, 2)));
              if (best2 <= stop2) {
                return best2;
              }
            }
          }
        }
      }
      const double reach = static_cast<double>(r) * m_cell;
      if (best2 <= reach * reach) {
        break;
      }
    }
    return best2;
  }

 private:
  using Box = std::array<Point, 2>;

  Point corner(std::size_t t, std::size_t j) const {
    return lift(m_vertices[m_indices[t + j]].position);
  }
  int cell_of(double x, std::size_t k) const {
    return std::clamp(static_cast<int>((x - m_lo[k]) / m_cell), 0, m_dims[k] - 1);
  }
  std::size_t flat(int x, int y, int z) const {
    return (static_cast<std::size_t>(z) * static_cast<std::size_t>(m_dims[1]) +
            static_cast<std::size_t>(y)) *
               static_cast<std::size_t>(m_dims[0]) +
           static_cast<std::size_t>(x);
  }
  static double box_distance2(const Box& box, const Point& p) {
    double d2 = 0.0;
    for (std::size_t k = 0; k < 3; ++k) {
      const double d = std::max({box[0][k] - p[k], 0.0, p[k] - box[1][k]});
      d2 += d * d;
    }
    return d2;
  }
  // Triangle t (its first index) goes to every cell its box touches: counts, then fills.
  void bucket() {
    const std::size_t cells = static_cast<std::size_t>(m_dims[0]) *
                              static_cast<std::size_t>(m_dims[1]) *
                              static_cast<std::size_t>(m_dims[2]);
    m_start.assign(cells + 1, 0);
    std::vector<std::uint32_t> fill;
    for (int pass = 0; pass < 2; ++pass) {
      for (std::size_t b = 0; b < m_boxes.size(); ++b) {
        const Box& box = m_boxes[b];
        for (int z = cell_of(box[0][2], 2); z <= cell_of(box[1][2], 2); ++z) {
          for (int y = cell_of(box[0][1], 1); y <= cell_of(box[1][1], 1); ++y) {
            for (int x = cell_of(box[0][0], 0); x <= cell_of(box[1][0], 0); ++x) {
              if (pass == 0) {
                ++m_start[flat(x, y, z) + 1];
              } else {
                m_tris[fill[flat(x, y, z)]++] = static_cast<std::uint32_t>(b * 3);
              }
            }
          }
        }
      }
      if (pass == 0) {
        for (std::size_t i = 0; i < cells; ++i) {
          m_start[i + 1] += m_start[i];
        }
        fill.assign(m_start.begin(), m_start.end() - 1);
        m_tris.resize(m_start.back());
      }
    }
  }

  const std::vector<PackedVertex>& m_vertices;
  const std::vector<std::uint32_t>& m_indices;
  Point m_lo;
  double m_cell = 1.0;
  std::array<int, 3> m_dims{};
  std::vector<Box> m_boxes;            // Per triangle.
  std::vector<std::uint32_t> m_start;  // Per cell, into m_tris (one more at the end).
  std::vector<std::uint32_t> m_tris;   // First index of each triangle, by cell.
};

// The largest distance from a vertex of `vertices` to the surface of the triangles `indices`
// (into the same vertices): the one-sided Hausdorff distance of the input, sampled at its
// vertices, to the simplified surface. Exact for that sample; a vertex's search stops once it
// is known not to raise the maximum.
double max_deviation(const std::vector<PackedVertex>& vertices,
                     const std::vector<std::uint32_t>& indices) {
  Point lo = lift(vertices[0].position);
  Point hi = lo;
  for (const PackedVertex& v : vertices) {
    for (std::size_t k = 0; k < 3; ++k) {
      lo[k] = std::min(lo[k], static_cast<double>(v.position[k]));
      hi[k] = std::max(hi[k], static_cast<double>(v.position[k]));
    }
  }
  if (indices.empty()) {
    return std::sqrt(dot(sub(hi, lo), sub(hi, lo)));  // Everything vanished.
  }
  const TriangleGrid grid(vertices, indices, lo, hi);
  // Vertices the output still uses lie on it.
  std::vector<bool> used(vertices.size(), false);
  for (const std::uint32_t i : indices) {
    used[i] = true;
  }
  double worst2 = 0.0;
  for (std::size_t v = 0; v < vertices.size(); ++v) {
    if (!used[v]) {
      worst2 = std::max(worst2, grid.nearest2(lift(vertices[v].position), worst2));
    }
  }
  return std::sqrt(worst2);
}

// Indexes a corner list: one vertex per distinct PackedVertex, in order of first use.
void weld_corners(const std::vector<PackedVertex>& corners, std::vector<PackedVertex>& vertices,
                  std::vector<std::uint32_t>& indices) {
  indices.resize(corners.size());
  const std::size_t count =
      meshopt_generateVertexRemap(indices.data(), nullptr, corners.size(), corners.data(),
                                  corners.size(), sizeof(PackedVertex));
  vertices.resize(count);
  meshopt_remapVertexBuffer(vertices.data(), corners.data(), corners.size(), sizeof(PackedVertex),
                            indices.data());
}

// The errors of one simplified feature group, in metres.
struct GroupError {
  double error_m = 0.0;
  double deviation_m = 0.0;
};

// Simplifies one feature group (corner list into `in`) and appends it to `out`.
GroupError simplify_group(const HlodMesh& in, const std::vector<std::uint32_t>& corners,
                          double target_ratio, double max_error_m, HlodShading shading,
                          HlodMesh& out) {
  // 1. Weld by position, colour and feature: chunk meshes split their vertices at every seam and
  // flat-shaded shells at every edge, and the simplifier only collapses along shared edges. A
  // welded vertex keeps the normal of one of its copies.
  std::vector<WeldKey> keys(corners.size());
  std::vector<PackedVertex> unwelded(corners.size());
  bool finite = true;
  for (std::size_t c = 0; c < corners.size(); ++c) {
    const std::uint32_t v = corners[c];
    keys[c] = {in.positions[v], in.colours[v], in.features[v]};
    unwelded[c] = {in.positions[v], in.normals[v], in.colours[v], in.features[v]};
    finite = finite && finite3(in.positions[v]) && finite3(in.normals[v]);
  }
  std::vector<std::uint32_t> indices(corners.size());
  const std::size_t welded_count = meshopt_generateVertexRemap(
      indices.data(), nullptr, corners.size(), keys.data(), corners.size(), sizeof(WeldKey));
  std::vector<PackedVertex> vertices(welded_count);
  meshopt_remapVertexBuffer(vertices.data(), unwelded.data(), corners.size(), sizeof(PackedVertex),
                            indices.data());

  // 2. Simplify towards the target count within the error bound (relative to the group's
  // extent, as meshopt measures it). meshopt's bound is on an area-weighted mean, so a thin
  // part (a spire, a tower's corner) can move much further than the bound: the real deviation is
  // measured and, while it exceeds max_error_m, the simplification is redone with half the
  // bound (up to kRetries times); a group that still exceeds it stays as it was. A group with a
  // non-finite value is left as it is, so add_hlod_primitive reports it.
  constexpr int kRetries = 3;
  GroupError error;
  if (finite && target_ratio < 1.0) {
    const float scale =
        meshopt_simplifyScale(&vertices[0].position[0], vertices.size(), sizeof(PackedVertex));
    double rel_target = scale > 0.0f ? max_error_m / static_cast<double>(scale) : 0.0;
    const auto target_count =
        static_cast<std::size_t>(static_cast<double>(indices.size() / 3) * target_ratio) * 3;
    std::vector<std::uint32_t> simplified(indices.size());
    for (int attempt = 0; attempt <= kRetries; ++attempt, rel_target *= 0.5) {
      simplified.resize(indices.size());
      float rel_error = 0.0f;
      const std::size_t count =
          meshopt_simplify(simplified.data(), indices.data(), indices.size(),
                           &vertices[0].position[0], vertices.size(), sizeof(PackedVertex),
                           target_count, static_cast<float>(rel_target), 0, &rel_error);
      if (count >= indices.size()) break;
      simplified.resize(count);
      const double deviation = max_deviation(vertices, simplified);
      if (deviation > max_error_m) continue;
      error.error_m = static_cast<double>(rel_error) * static_cast<double>(scale);
      error.deviation_m = deviation;
      indices = std::move(simplified);
      break;
    }
  }

  // 3. Flat shading: one normal per face, vertices shared only within a plane.
  if (shading == HlodShading::flat) {
    std::vector<PackedVertex> flat(indices.size());
    for (std::size_t t = 0; t < indices.size(); t += 3) {
      const PackedVertex& a = vertices[indices[t]];
      const std::array<float, 3> n = face_normal(a.position, vertices[indices[t + 1]].position,
                                                 vertices[indices[t + 2]].position, a.normal);
      for (std::size_t k = 0; k < 3; ++k) {
        flat[t + k] = vertices[indices[t + k]];
        flat[t + k].normal = n;
      }
    }
    weld_corners(flat, vertices, indices);
  }

  // 4. Keep only the vertices still used, in order of first use.
  std::vector<PackedVertex> compact(vertices.size());
  const std::size_t used =
      meshopt_optimizeVertexFetch(compact.data(), indices.data(), indices.size(), vertices.data(),
                                  vertices.size(), sizeof(PackedVertex));
  const auto base = static_cast<std::uint32_t>(out.positions.size());
  for (std::size_t v = 0; v < used; ++v) {
    out.positions.push_back(compact[v].position);
    out.normals.push_back(compact[v].normal);
    out.colours.push_back(compact[v].colour);
    out.features.push_back(compact[v].feature);
  }
  for (const std::uint32_t i : indices) {
    out.indices.push_back(base + i);
  }
  return error;
}

// Appends raw bytes as a vertex attribute view and its accessor.
int add_attribute(tinygltf::Model& model, const void* data, std::size_t bytes, int component,
                  int type, std::size_t count) {
  const int view = add_view(model, data, bytes, TINYGLTF_TARGET_ARRAY_BUFFER);
  return add_accessor(model, view, component, type, count);
}

// The checks of add_hlod_primitive on the mesh's shape and values.
Status check_hlod(const HlodMesh& mesh, bool with_features, const std::string& where) {
  const std::size_t n = mesh.positions.size();
  if (mesh.normals.size() != n || mesh.colours.size() != n || mesh.features.size() != n) {
    return Error::internal(where, "HLOD mesh attributes differ in length: " + std::to_string(n) +
                                      " positions, " + std::to_string(mesh.normals.size()) +
                                      " normals, " + std::to_string(mesh.colours.size()) +
                                      " colours, " + std::to_string(mesh.features.size()) +
                                      " features");
  }
  if (mesh.empty() || mesh.indices.size() % 3 != 0) {
    return Error::internal(where, "HLOD mesh needs whole triangles, got " +
                                      std::to_string(mesh.indices.size()) + " indices");
  }
  for (const std::uint32_t i : mesh.indices) {
    if (i >= n) {
      return Error::internal(
          where, "index " + std::to_string(i) + " past the " + std::to_string(n) + " vertices");
    }
  }
  for (std::size_t v = 0; v < n; ++v) {
    if (!finite3(mesh.positions[v]) || !finite3(mesh.normals[v])) {
      return Error::invalid_input(where, "vertex " + std::to_string(v) + " is not finite");
    }
    if (with_features && mesh.features[v] == kNoFeature) {
      return Error::internal(where, "vertex " + std::to_string(v) +
                                        " belongs to no feature, expected a property table row");
    }
    if (with_features && mesh.features[v] >= kMaxFloatFeature) {
      return Error::internal(where, "vertex " + std::to_string(v) + " has feature id " +
                                        std::to_string(mesh.features[v]) +
                                        ", expected a property table row below 2^24");
    }
  }
  return Ok{};
}

}  // namespace

void append_hlod(HlodMesh& dst, const Mesh& src, std::array<std::uint8_t, 4> colour,
                 std::uint32_t feature) {
  CF_ASSERT(src.normals.size() == src.positions.size(), "a Mesh has one normal per position");
  const auto base = static_cast<std::uint32_t>(dst.positions.size());
  dst.positions.insert(dst.positions.end(), src.positions.begin(), src.positions.end());
  dst.normals.insert(dst.normals.end(), src.normals.begin(), src.normals.end());
  dst.colours.resize(dst.positions.size(), colour);
  dst.features.resize(dst.positions.size(), feature);
  for (const std::uint32_t i : src.indices) {
    dst.indices.push_back(base + i);
  }
}

void append_hlod(HlodMesh& dst, const HlodMesh& src) {
  const auto base = static_cast<std::uint32_t>(dst.positions.size());
  dst.positions.insert(dst.positions.end(), src.positions.begin(), src.positions.end());
  dst.normals.insert(dst.normals.end(), src.normals.begin(), src.normals.end());
  dst.colours.insert(dst.colours.end(), src.colours.begin(), src.colours.end());
  dst.features.insert(dst.features.end(), src.features.begin(), src.features.end());
  for (const std::uint32_t i : src.indices) {
    dst.indices.push_back(base + i);
  }
}

HlodMesh building_shell(const buildings::Building& b,
                        const std::array<Mesh, buildings::kMaterialCount>& roofs,
                        std::array<std::uint8_t, 4> wall, std::array<std::uint8_t, 4> roof,
                        std::uint32_t feature) {
  // 1. Walls of every volume, outer ring and holes.
  Mesh walls;
  for (const buildings::Volume& v : b.volumes) {
    const double z0 = b.base_z_m + v.z0_m;
    const double z1 = b.base_z_m + v.z1_m;
    if (!(z1 > z0)) {
      continue;
    }
    add_ring_walls(walls, v.footprint.outer, false, z0, z1);
    for (const Ring& hole : v.footprint.holes) {
      add_ring_walls(walls, hole, true, z0, z1);
    }
  }
  HlodMesh out;
  append_hlod(out, walls, wall, feature);

  // 2. The roofs as the building stage made them, else a flat cap on each volume.
  const bool has_roof =
      std::any_of(roofs.begin(), roofs.end(), [](const Mesh& m) { return !m.empty(); });
  if (has_roof) {
    for (std::size_t m = 0; m < roofs.size(); ++m) {
      const bool gable = m == static_cast<std::size_t>(buildings::Material::wall);
      append_hlod(out, roofs[m], gable ? wall : roof, feature);
    }
  } else {
    for (const buildings::Volume& v : b.volumes) {
      if (v.z1_m > v.z0_m) {
        append_hlod(out, flat_cap(v.footprint, b.base_z_m + v.z1_m), roof, feature);
      }
    }
  }
  return out;
}

Simplified simplify_hlod(const HlodMesh& in, double target_ratio, double max_error_m,
                         HlodShading shading) {
  CF_ASSERT(in.normals.size() == in.positions.size() && in.colours.size() == in.positions.size() &&
                in.features.size() == in.positions.size(),
            "one normal, colour and feature per position");
  target_ratio = std::clamp(target_ratio, 0.0, 1.0);
  max_error_m = std::max(max_error_m, 0.0);
  // meshopt_simplify treats vertices at one position as one (attribute seams) and may move a
  // triangle's corner onto any vertex at the position it collapses to, even one of another
  // connected component. Touching buildings share positions, so merged components alone would
  // not keep their feature ids apart: each feature is simplified on its own instead.
  Simplified result;
  for (const std::vector<std::uint32_t>& corners : feature_groups(in)) {
    const GroupError error =
        simplify_group(in, corners, target_ratio, max_error_m, shading, result.mesh);
    result.error_m = std::max(result.error_m, error.error_m);
    result.deviation_m = std::max(result.deviation_m, error.deviation_m);
  }
  return result;
}

Result<tinygltf::Primitive> add_hlod_primitive(tinygltf::Model& model, const HlodMesh& mesh,
                                               int material, int property_table,
                                               const std::string& where) {
  const bool with_features = property_table >= 0;
  if (Status ok = check_hlod(mesh, with_features, where); !ok) {
    return ok.error();
  }
  const std::size_t n = mesh.positions.size();
  std::vector<std::array<float, 3>> positions(n);
  std::vector<std::array<float, 3>> normals(n);
  std::vector<double> lo(3, 0.0);
  std::vector<double> hi(3, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    positions[i] = to_y_up(mesh.positions[i]);
    normals[i] = to_y_up(mesh.normals[i]);
    for (std::size_t k = 0; k < 3; ++k) {
      // Exact float values as doubles: the validator compares them with the data bit for bit.
      const double v = positions[i][k];
      lo[k] = i == 0 ? v : std::min(lo[k], v);
      hi[k] = i == 0 ? v : std::max(hi[k], v);
    }
  }
  tinygltf::Primitive prim;
  prim.mode = TINYGLTF_MODE_TRIANGLES;
  prim.material = material;
  const int pos = add_attribute(model, positions.data(), n * sizeof(positions[0]),
                                TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_TYPE_VEC3, n);
  model.accessors[static_cast<std::size_t>(pos)].minValues = lo;
  model.accessors[static_cast<std::size_t>(pos)].maxValues = hi;
  prim.attributes["POSITION"] = pos;
  prim.attributes["NORMAL"] = add_attribute(model, normals.data(), n * sizeof(normals[0]),
                                            TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_TYPE_VEC3, n);
  const int colour = add_attribute(model, mesh.colours.data(), n * sizeof(mesh.colours[0]),
                                   TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE, TINYGLTF_TYPE_VEC4, n);
  model.accessors[static_cast<std::size_t>(colour)].normalized = true;
  prim.attributes["COLOR_0"] = colour;
  if (with_features) {
    // Float ids: glTF vertex attributes have no 32-bit integers (EXT_mesh_features' note).
    std::vector<float> ids(n);
    std::set<std::uint32_t> distinct;
    for (std::size_t i = 0; i < n; ++i) {
      ids[i] = static_cast<float>(mesh.features[i]);
      distinct.insert(mesh.features[i]);
    }
    prim.attributes["_FEATURE_ID_0"] =
        add_attribute(model, ids.data(), n * sizeof(float), TINYGLTF_COMPONENT_TYPE_FLOAT,
                      TINYGLTF_TYPE_SCALAR, n);
    tinygltf::Value::Object feature_ids;
    feature_ids["featureCount"] = tinygltf::Value(static_cast<int>(distinct.size()));
    feature_ids["attribute"] = tinygltf::Value(0);
    feature_ids["propertyTable"] = tinygltf::Value(property_table);
    tinygltf::Value::Object ext;
    ext["featureIds"] = tinygltf::Value(tinygltf::Value::Array{tinygltf::Value(feature_ids)});
    prim.extensions["EXT_mesh_features"] = tinygltf::Value(std::move(ext));
  }
  const int idx_view = add_view(model, mesh.indices.data(), mesh.indices.size() * 4,
                                TINYGLTF_TARGET_ELEMENT_ARRAY_BUFFER);
  prim.indices = add_accessor(model, idx_view, TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT,
                              TINYGLTF_TYPE_SCALAR, mesh.indices.size());
  return prim;
}

}  // namespace cityforge::exporter::detail
