// SPDX-License-Identifier: Apache-2.0
// Deformation of the solved island: the plane's cells ease towards the shapes their tiles want,
// and walkable land bulges up between its rims.
// Based on: O. Stalberg's island generator talk (seeds/003, 21:50-24:30): "the cells are trying
// to achieve the shapes ... of the modules that ended up filling them", cells with air between
// them "have a bit more leeway" and open up; then "pulling everything upwards but ... tethered
// where you can go and not on cliff faces", so flat levels curve and cliffs grow.
// The cell pull is relax_towards() (src/islands/grid_relax.cpp): relax()'s square fitting,
// weighted per cell and with a fixed target size per cell instead of the current one.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <utility>
#include <vector>

#include "cityforge/islands/island.hpp"
#include "mesh_util.hpp"

namespace cityforge::islands {
namespace {

constexpr double kLandWeight = 1.0;    // Land cells hold their regular shape firmly.
constexpr double kShoreWeight = 0.6;   // Ground only at sea level (beaches): in between.
constexpr double kOpenWeight = 0.3;    // Cells of water and air columns give way.
constexpr double kOpenScale = 1.08;    // ... and would like to be a little larger.
constexpr double kLiftFalloffM = 1.5;  // Distance from a rim at which the lift is 63 % up.
constexpr double kKeepArea = 0.1;      // A moved triangle keeps >= this share of its area.

enum class Column : std::uint8_t { open, shore, land };

// Land: a tile with ground at a corner in layers >= 1, stairs or a house; shore: ground only in
// layer 0 (beaches, sea-level flats); open: water and air only.
Column column_kind(const LayeredGrid& grid, const TileSet& tiles,
                   const std::vector<wfc::TileId>& solved, std::uint32_t plane_cell) {
  Column kind = Column::open;
  for (std::uint32_t layer = 0; layer < grid.layers; ++layer) {
    const std::uint32_t id = grid.cell_id(plane_cell, layer);
    if (id >= solved.size() || solved[id] >= tiles.info.size()) continue;
    const TileInfo& info = tiles.info[solved[id]];
    if (info.kind == TileKind::house || info.kind == TileKind::stairs) return Column::land;
    const bool ground = std::any_of(info.corners.begin(), info.corners.end(),
                                    [](std::uint8_t c) { return c != kCornerEmpty; });
    if (ground && layer >= 1) return Column::land;
    if (ground) kind = Column::shore;
  }
  return kind;
}

}  // namespace

void deform_grid(LayeredGrid& grid, const TileSet& tiles, const std::vector<wfc::TileId>& solved,
                 std::uint32_t iterations) {
  PlanarGrid& g = grid.plane;
  // What each cell wants: how hard it pulls and the size of its regular target, fixed from the
  // relaxed grid so land cells do not shrink under the pressure of opening water.
  std::vector<CellTarget> targets(g.cells.size());
  for (std::size_t c = 0; c < g.cells.size(); ++c) {
    const Cell& cell = g.cells[c];
    const Column kind = column_kind(grid, tiles, solved, static_cast<std::uint32_t>(c));
    const Vec2 centre = cell_centroid(g, cell);
    double mean = 0.0;
    for (std::uint8_t k = 0; k < cell.count; ++k)
      mean += distance(g.vertices[cell.vertices[k]], centre);
    targets[c].weight = kind == Column::land    ? kLandWeight
                        : kind == Column::shore ? kShoreWeight
                                                : kOpenWeight;
    targets[c].size = (kind == Column::open ? kOpenScale : 1.0) * mean / cell.count;
  }
  relax_towards(g, targets, iterations);
}

void lift_land(IslandMesh& mesh, double rise_m) {
  const std::size_t n = mesh.positions.size();
  const std::size_t tris = mesh.triangles.size();
  if (!(rise_m > 0.0) || n == 0) return;
  // 1. Walkable vertices, and rims: on a hard edge or touching anything not walkable.
  std::vector<std::uint8_t> walk(n, 0);
  std::vector<std::uint8_t> rim(n, 0);
  for (std::size_t t = 0; t < tris; ++t) {
    const bool w = t < mesh.walkable.size() && mesh.walkable[t] == 1;
    for (const std::uint32_t v : mesh.triangles[t])
      (w ? walk : rim)[v] = 1;
  }
  for (const IslandMesh::MeshEdge& e : mesh.edges) {
    if (e.rank != EdgeRank::hard) continue;
    rim[e.a] = 1;
    rim[e.b] = 1;
  }
  // 2. Vertex -> triangles and walkable neighbours (CSR, triangle order).
  std::vector<std::uint32_t> tri_start(n + 1, 0);
  std::vector<std::uint32_t> nb_start(n + 1, 0);
  for (std::size_t t = 0; t < tris; ++t) {
    const bool w = t < mesh.walkable.size() && mesh.walkable[t] == 1;
    for (const std::uint32_t v : mesh.triangles[t]) {
      ++tri_start[v + 1];
      if (w) nb_start[v + 1] += 2;
    }
  }
  for (std::size_t v = 0; v < n; ++v) {
    tri_start[v + 1] += tri_start[v];
    nb_start[v + 1] += nb_start[v];
  }
  std::vector<std::uint32_t> tri_of(tri_start[n]);
  std::vector<std::uint32_t> nb(nb_start[n]);
  {
    std::vector<std::uint32_t> tf(tri_start.begin(), tri_start.end() - 1);
    std::vector<std::uint32_t> nf(nb_start.begin(), nb_start.end() - 1);
    for (std::size_t t = 0; t < tris; ++t) {
      const auto& tri = mesh.triangles[t];
      const bool w = t < mesh.walkable.size() && mesh.walkable[t] == 1;
      for (int k = 0; k < 3; ++k) {
        tri_of[tf[tri[k]]++] = static_cast<std::uint32_t>(t);
        if (!w) continue;
        nb[nf[tri[k]]++] = tri[(k + 1) % 3];
        nb[nf[tri[k]]++] = tri[(k + 2) % 3];
      }
    }
  }
  // 3. Distance to the nearest rim along walkable edges (Dijkstra; ties by vertex id).
  constexpr double kFar = std::numeric_limits<double>::infinity();
  std::vector<double> dist(n, kFar);
  using Entry = std::pair<double, std::uint32_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> open;
  for (std::uint32_t v = 0; v < n; ++v) {
    if (walk[v] == 0 || rim[v] == 0) continue;
    dist[v] = 0.0;
    open.emplace(0.0, v);
  }
  while (!open.empty()) {
    const auto [d, v] = open.top();
    open.pop();
    if (d > dist[v]) continue;
    for (std::uint32_t i = nb_start[v]; i < nb_start[v + 1]; ++i) {
      const std::uint32_t u = nb[i];
      const double du = d + length(mesh.positions[u] - mesh.positions[v]);
      if (du < dist[u]) {
        dist[u] = du;
        open.emplace(du, u);
      }
    }
  }
  // 4. Lift interior walkable vertices by the saturating curve of their distance, halving a
  //    lift that would turn or flatten a neighbouring triangle too much.
  std::vector<Vec3> normal(tris);
  for (std::size_t t = 0; t < tris; ++t)
    normal[t] = face_normal(mesh, static_cast<std::uint32_t>(t));
  for (std::uint32_t v = 0; v < n; ++v) {
    if (walk[v] == 0 || rim[v] == 1) continue;
    const double f = dist[v] == kFar ? 1.0 : 1.0 - std::exp(-dist[v] / kLiftFalloffM);
    const Vec3 base = mesh.positions[v];
    double dz = rise_m * f;
    for (int attempt = 0; attempt < 4 && dz > 0.0; ++attempt, dz *= 0.5) {
      mesh.positions[v] = {base.x, base.y, base.z + dz};
      bool ok = true;
      for (std::uint32_t i = tri_start[v]; i < tri_start[v + 1] && ok; ++i) {
        const std::uint32_t t = tri_of[i];
        const Vec3 now = face_normal(mesh, t);
        const double ref = length(normal[t]);
        if (ref == 0.0) continue;
        ok = dot(now, normal[t]) >= kKeepArea * ref * ref &&
             !(mesh.walkable[t] == 1 && normal[t].z > 0.0 && !(now.z > 0.0));
      }
      if (ok) break;
      mesh.positions[v] = base;
    }
  }
}

}  // namespace cityforge::islands
