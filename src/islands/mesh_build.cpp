// SPDX-License-Identifier: Apache-2.0
// The island mesh from solved tiles (seeds/003, 19:40-23:10, docs/islands.md "Mesh"): every
// cell's unit mesh mapped bilinearly into its quad and layer, vertices welded by where they
// sit in the grid's topology (a corner, a point along an edge, or inside a cell, at a height),
// so neighbours share vertices exactly; then edge ranks for smoothing and border lines for the
// colours.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cityforge/core/assert.hpp"
#include "cityforge/islands/island.hpp"

namespace cityforge::islands {
namespace {

// Where a vertex sits: kind 0 a plane vertex, 1 a point of a plane edge, 2 a point inside a
// plane cell; a, b, c the id and lattice coordinates; z its height in 1e-6 layers.
struct WeldKey {
  std::uint32_t kind = 0;
  std::uint32_t id = 0;
  std::int64_t b = 0, c = 0, z = 0;
  bool operator==(const WeldKey&) const = default;
};
struct WeldKeyHash {
  std::size_t operator()(const WeldKey& k) const {
    std::uint64_t h = k.kind * 0x9E3779B97F4A7C15ULL ^ k.id;
    for (const std::int64_t x : {k.b, k.c, k.z})
      h = h * 0x100000001B3ULL ^ static_cast<std::uint64_t>(x);
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

constexpr double kWeldLattice = 1e6;
constexpr double kEps = 1e-9;

bool near(double a, double b) { return std::abs(a - b) < kEps; }

// The side face a unit point lies on (0..3), or -1 inside; corners count as on two sides and
// are handled first by the caller.
int side_of(const Vec3& p) {
  if (near(p.y, 0)) return 0;
  if (near(p.x, 1)) return 1;
  if (near(p.y, 1)) return 2;
  if (near(p.x, 0)) return 3;
  return -1;
}

bool is_floor_material(Material m) {
  return m == Material::grass || m == Material::sand || m == Material::path;
}

}  // namespace

IslandMesh build_mesh(const LayeredGrid& grid, const TileSet& tiles,
                      const std::vector<wfc::TileId>& solved) {
  IslandMesh mesh;
  const PlanarGrid& plane = grid.plane;
  const auto plane_cells = static_cast<std::uint32_t>(plane.cells.size());
  std::unordered_map<WeldKey, std::uint32_t, WeldKeyHash> index;
  // Per welded vertex: on a cell side of a floor triangle.
  std::vector<std::uint8_t> on_tile_border;
  // Per triangle edge slot (3 per triangle): lies on a cell side.
  std::vector<std::uint8_t> edge_on_side;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> hard;

  // 1. Map and weld, cell by cell in id order (layer-major), so ids are deterministic.
  const std::uint32_t cells =
      std::min<std::uint32_t>(grid.cell_count(), static_cast<std::uint32_t>(solved.size()));
  std::vector<std::uint32_t> local;
  for (std::uint32_t id = 0; id < cells; ++id) {
    const wfc::TileId t = solved[id];
    if (t >= tiles.info.size()) continue;
    const TileInfo& info = tiles.info[t];
    if (info.kind == TileKind::empty || info.kind == TileKind::water ||
        info.kind == TileKind::air) {
      continue;
    }
    const UnitMesh& unit = tiles.meshes[t];
    if (unit.triangles.empty()) continue;
    const std::uint32_t pc = id % plane_cells, layer = id / plane_cells;
    const Cell& cell = plane.cells[pc];
    if (cell.count != 4) continue;  // Tiles need quads (the island grid is subdivided).
    std::array<Vec2, 4> q{};
    for (std::size_t k = 0; k < 4; ++k)
      q[k] = plane.vertices[cell.vertices[k]];
    local.assign(unit.vertices.size(), 0);
    std::vector<int> sides(unit.vertices.size(), -1);
    for (std::size_t i = 0; i < unit.vertices.size(); ++i) {
      const Vec3& p = unit.vertices[i];
      const double zl = static_cast<double>(layer) + p.z;
      WeldKey key;
      key.z = std::llround(zl * kWeldLattice);
      Vec2 xy;
      const bool u_edge = near(p.x, 0) || near(p.x, 1), v_edge = near(p.y, 0) || near(p.y, 1);
      sides[i] = side_of(p);
      if (u_edge && v_edge) {
        const std::size_t k = near(p.y, 0) ? (near(p.x, 0) ? 0 : 1) : (near(p.x, 0) ? 3 : 2);
        key.kind = 0;
        key.id = cell.vertices[k];
        xy = q[k];
      } else if (sides[i] >= 0) {
        const auto k = static_cast<std::size_t>(sides[i]);
        const double s = k == 0 ? p.x : k == 1 ? p.y : k == 2 ? 1 - p.x : 1 - p.y;
        const Edge& e = plane.edges[cell.edges[k]];
        const double te = e.v0 == cell.vertices[k] ? s : 1 - s;
        key.kind = 1;
        key.id = cell.edges[k];
        key.b = std::llround(te * kWeldLattice);
        const double tq = static_cast<double>(key.b) / kWeldLattice;
        xy = plane.vertices[e.v0] * (1 - tq) + plane.vertices[e.v1] * tq;
      } else {
        key.kind = 2;
        key.id = pc;
        key.b = std::llround(p.x * kWeldLattice);
        key.c = std::llround(p.y * kWeldLattice);
        const double u = p.x, v = p.y;
        xy = q[0] * ((1 - u) * (1 - v)) + q[1] * (u * (1 - v)) + q[2] * (u * v) +
             q[3] * ((1 - u) * v);
      }
      const auto [it, inserted] =
          index.try_emplace(key, static_cast<std::uint32_t>(mesh.positions.size()));
      if (inserted) {
        mesh.positions.push_back({xy.x, xy.y, zl * grid.layer_m});
        on_tile_border.push_back(0);
      }
      local[i] = it->second;
    }
    for (const UnitMesh::Triangle& tri : unit.triangles) {
      const std::array<std::uint32_t, 3> v = {local[tri.v[0]], local[tri.v[1]], local[tri.v[2]]};
      if (v[0] == v[1] || v[1] == v[2] || v[0] == v[2]) continue;
      const Vec3 n = cross(mesh.positions[v[1]] - mesh.positions[v[0]],
                           mesh.positions[v[2]] - mesh.positions[v[0]]);
      const bool up = n.z > 0.5 * length(n);
      const bool floor = up && is_floor_material(tri.material);
      mesh.triangles.push_back(v);
      mesh.material.push_back(tri.material);
      mesh.cell.push_back(id);
      mesh.walkable.push_back(info.navigable && floor ? 1 : 0);
      for (std::size_t e = 0; e < 3; ++e) {
        const int sa = sides[tri.v[e]];
        const Vec3& a = unit.vertices[tri.v[e]];
        const Vec3& b = unit.vertices[tri.v[(e + 1) % 3]];
        // Both ends on one side face (corners lie on two).
        bool same = false;
        for (int k = 0; k < 4 && !same; ++k) {
          const auto on = [&](const Vec3& p) {
            return k == 0   ? near(p.y, 0)
                   : k == 1 ? near(p.x, 1)
                   : k == 2 ? near(p.y, 1)
                            : near(p.x, 0);
          };
          same = on(a) && on(b);
        }
        edge_on_side.push_back(same ? 1 : 0);
        if (floor && sa >= 0) on_tile_border[v[e]] = 1;
      }
    }
    for (const auto& h : unit.hard_edges) {
      const std::uint32_t a = local[h[0]], b = local[h[1]];
      if (a != b) hard.emplace_back(std::min(a, b), std::max(a, b));
    }
  }
  std::sort(hard.begin(), hard.end());
  hard.erase(std::unique(hard.begin(), hard.end()), hard.end());

  // 2. Edges: every triangle edge once, sorted, ranked hard > material > tile > plain.
  struct Use {
    std::uint32_t a, b, tri;
    std::uint8_t on_side;
  };
  // Bucketed by the smaller vertex (counting sort), then each small bucket sorted.
  std::vector<std::uint32_t> start(mesh.positions.size() + 1, 0);
  for (const auto& tri : mesh.triangles) {
    for (std::uint32_t e = 0; e < 3; ++e)
      ++start[std::min(tri[e], tri[(e + 1) % 3]) + 1];
  }
  for (std::size_t v = 0; v < mesh.positions.size(); ++v)
    start[v + 1] += start[v];
  std::vector<Use> uses(mesh.triangles.size() * 3);
  std::vector<std::uint32_t> fill(start.begin(), start.end() - 1);
  for (std::uint32_t t = 0; t < mesh.triangles.size(); ++t) {
    for (std::uint32_t e = 0; e < 3; ++e) {
      const std::uint32_t a = mesh.triangles[t][e], b = mesh.triangles[t][(e + 1) % 3];
      uses[fill[std::min(a, b)]++] = {std::min(a, b), std::max(a, b), t, edge_on_side[t * 3 + e]};
    }
  }
  for (std::size_t v = 0; v < mesh.positions.size(); ++v) {
    std::sort(uses.begin() + start[v], uses.begin() + start[v + 1], [](const Use& x, const Use& y) {
      return std::tie(x.b, x.tri) < std::tie(y.b, y.tri);
    });
  }
  mesh.line.assign(mesh.positions.size(), 0);
  for (std::size_t i = 0; i < uses.size();) {
    std::size_t j = i;
    bool material_border = false, on_side = false;
    while (j < uses.size() && uses[j].a == uses[i].a && uses[j].b == uses[i].b) {
      material_border = material_border || mesh.material[uses[j].tri] != mesh.material[uses[i].tri];
      on_side = on_side || uses[j].on_side;
      ++j;
    }
    IslandMesh::MeshEdge edge{uses[i].a, uses[i].b, EdgeRank::plain};
    if (std::binary_search(hard.begin(), hard.end(), std::pair{edge.a, edge.b})) {
      edge.rank = EdgeRank::hard;
    } else if (material_border) {
      edge.rank = EdgeRank::material;
    } else if (on_side) {
      edge.rank = EdgeRank::tile;
    }
    if (material_border) mesh.line[edge.a] = mesh.line[edge.b] = 2;
    mesh.edges.push_back(edge);
    i = j;
  }
  // 3. Border lines: material borders (2) win over game-tile borders of floors (1).
  for (std::size_t v = 0; v < mesh.positions.size(); ++v) {
    if (mesh.line[v] == 0 && on_tile_border[v]) mesh.line[v] = 1;
  }
  return mesh;
}

}  // namespace cityforge::islands
