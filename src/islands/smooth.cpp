// SPDX-License-Identifier: Apache-2.0
// Hierarchical smoothing of the island mesh.
// Based on: O. Stalberg's island generator talk (seeds/003, 26:20-30:50 and 42:10-42:55):
// edges carry a priority (hard edges > material borders > game-tile borders > plain); a vertex
// is pulled only by neighbours along edges of its own highest priority or above, so creases and
// borders smooth along themselves and never towards softer surroundings; vertices with more
// than two hard edges "barely get moved at all".
// Each smoothed vertex off the material borders and hard edges is also pushed a little outward
// along its normal (26:48: "to make the shape a little bit rounder"), so cliff faces and
// slopes bulge between their creases.
// Our additions: hard-edge vertices stay within a distance of where the tiles put them, open
// mesh borders count as hard, and a move that would turn a triangle over is undone.
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "cityforge/islands/island.hpp"
#include "mesh_util.hpp"

namespace cityforge::islands {
namespace {

constexpr double kStep = 0.5;          // Fraction of the way to the neighbours' mean per pass.
constexpr double kPinnedWeight = 0.1;  // Step scale of vertices with more than two hard edges.
constexpr double kRoundM = 0.02;       // Outward push along the normal per pass (seeds/003, 26:48).
constexpr double kKeepArea = 0.1;      // A triangle keeps >= this share of its area, projected on
                                       // its original plane (no flips, no collapse).
constexpr auto kHard = static_cast<std::uint8_t>(EdgeRank::hard);

// Neighbours per vertex with the rank of the edge to them, and triangles per vertex (CSR).
struct Topology {
  std::vector<std::uint32_t> nb_start, nb;
  std::vector<std::uint8_t> nb_rank;
  std::vector<std::uint32_t> tri_start, tri;
};

// Edge ranks as smoothing sees them: an edge not shared by exactly two triangles (the open
// border under the sea, a seam) is hard, so the border keeps its line.
std::vector<std::uint8_t> effective_ranks(const IslandMesh& mesh) {
  const std::size_t edges = mesh.edges.size();
  std::vector<std::uint8_t> rank(edges);
  std::vector<std::uint32_t> uses(edges, 0);
  for (std::size_t e = 0; e < edges; ++e)
    rank[e] = static_cast<std::uint8_t>(mesh.edges[e].rank);
  const auto less = [](const IslandMesh::MeshEdge& e, std::pair<std::uint32_t, std::uint32_t> k) {
    return e.a < k.first || (e.a == k.first && e.b < k.second);
  };
  for (const auto& t : mesh.triangles) {
    for (int k = 0; k < 3; ++k) {
      const std::pair key = std::minmax(t[k], t[(k + 1) % 3]);
      const auto it = std::lower_bound(mesh.edges.begin(), mesh.edges.end(), key, less);
      if (it != mesh.edges.end() && it->a == key.first && it->b == key.second)
        ++uses[static_cast<std::size_t>(it - mesh.edges.begin())];
    }
  }
  for (std::size_t e = 0; e < edges; ++e)
    if (uses[e] != 2) rank[e] = kHard;
  return rank;
}

Topology topology(const IslandMesh& mesh, const std::vector<std::uint8_t>& rank) {
  const std::size_t n = mesh.positions.size();
  Topology topo;
  topo.nb_start.assign(n + 1, 0);
  topo.tri_start.assign(n + 1, 0);
  for (const IslandMesh::MeshEdge& e : mesh.edges) {
    ++topo.nb_start[e.a + 1];
    ++topo.nb_start[e.b + 1];
  }
  for (const auto& t : mesh.triangles)
    for (const std::uint32_t v : t)
      ++topo.tri_start[v + 1];
  for (std::size_t v = 0; v < n; ++v) {
    topo.nb_start[v + 1] += topo.nb_start[v];
    topo.tri_start[v + 1] += topo.tri_start[v];
  }
  topo.nb.resize(topo.nb_start[n]);
  topo.nb_rank.resize(topo.nb_start[n]);
  topo.tri.resize(topo.tri_start[n]);
  std::vector<std::uint32_t> fill(topo.nb_start.begin(), topo.nb_start.end() - 1);
  for (std::size_t e = 0; e < mesh.edges.size(); ++e) {
    const IslandMesh::MeshEdge& edge = mesh.edges[e];
    topo.nb_rank[fill[edge.a]] = rank[e];
    topo.nb[fill[edge.a]++] = edge.b;
    topo.nb_rank[fill[edge.b]] = rank[e];
    topo.nb[fill[edge.b]++] = edge.a;
  }
  fill.assign(topo.tri_start.begin(), topo.tri_start.end() - 1);
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t)
    for (const std::uint32_t v : mesh.triangles[t])
      topo.tri[fill[v]++] = static_cast<std::uint32_t>(t);
  return topo;
}

// Terrain is smoothed; water and houses stay as built ("the houses, they're not smoothed at all
// because they're created in the correct shape from the beginning", seeds/003 42:48).
bool smoothed(Material m) {
  return m == Material::grass || m == Material::sand || m == Material::rock ||
         m == Material::path || m == Material::none;
}

}  // namespace

std::pair<std::uint32_t, double> smooth_mesh(IslandMesh& mesh, std::uint32_t iterations,
                                             double max_hard_move_m) {
  const std::size_t n = mesh.positions.size();
  const std::vector<std::uint8_t> edge_rank = effective_ranks(mesh);
  const Topology topo = topology(mesh, edge_rank);
  // 1. Per vertex: its rank (highest of its edges), how many hard edges it has, and whether it
  //    stays (no edges, or on water or a house).
  std::vector<std::uint8_t> rank(n, 0);
  std::vector<std::uint8_t> hard_edges(n, 0);
  std::vector<std::uint8_t> frozen(n, 0);
  for (std::size_t v = 0; v < n; ++v) {
    for (std::uint32_t i = topo.nb_start[v]; i < topo.nb_start[v + 1]; ++i) {
      rank[v] = std::max(rank[v], topo.nb_rank[i]);
      if (topo.nb_rank[i] == kHard) hard_edges[v] = static_cast<std::uint8_t>(hard_edges[v] + 1);
    }
    if (topo.nb_start[v] == topo.nb_start[v + 1]) frozen[v] = 1;
  }
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t)
    if (t < mesh.material.size() && !smoothed(mesh.material[t]))
      for (const std::uint32_t v : mesh.triangles[t])
        frozen[v] = 1;
  // 2. Reference normals: every check compares with the triangle before smoothing.
  std::vector<Vec3> normal(mesh.triangles.size());
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t)
    normal[t] = face_normal(mesh, t);
  const auto faces_hold = [&](std::uint32_t v) {
    for (std::uint32_t i = topo.tri_start[v]; i < topo.tri_start[v + 1]; ++i) {
      const std::uint32_t t = topo.tri[i];
      const Vec3 ref = normal[t];
      const double ref2 = dot(ref, ref);
      if (ref2 == 0.0) continue;
      const Vec3 now = face_normal(mesh, t);
      if (!(dot(now, ref) >= kKeepArea * ref2)) return false;
      if (t < mesh.walkable.size() && mesh.walkable[t] == 1 && ref.z > 0.0 && !(now.z > 0.0))
        return false;
    }
    return true;
  };
  const std::vector<Vec3> original = mesh.positions;
  std::vector<Vec3> target(n);
  std::uint32_t reverts = 0;
  for (std::uint32_t it = 0; it < iterations; ++it) {
    // 3. Targets from the previous positions only (Jacobi): half way to the mean of the
    //    neighbours along edges of the vertex's rank or above; hard vertices clamped.
    for (std::size_t v = 0; v < n; ++v) {
      target[v] = mesh.positions[v];
      if (frozen[v] == 1) continue;
      Vec3 sum;
      std::uint32_t count = 0;
      for (std::uint32_t i = topo.nb_start[v]; i < topo.nb_start[v + 1]; ++i) {
        if (topo.nb_rank[i] < rank[v]) continue;
        sum = sum + mesh.positions[topo.nb[i]];
        ++count;
      }
      if (count == 0) continue;
      const double step = kStep * (hard_edges[v] > 2 ? kPinnedWeight : 1.0);
      Vec3 p = mesh.positions[v] + (sum * (1.0 / count) - mesh.positions[v]) * step;
      // "While I'm at it, touching these verts, I'm also pushing them a little bit outwards
      // along their normal, to make the shape a little bit rounder" (seeds/003, 26:48): the
      // surface between the lines (cliff faces, slopes, floors); vertices on material borders
      // and hard edges keep sliding along their lines only.
      if (rank[v] < static_cast<std::uint8_t>(EdgeRank::material)) {
        Vec3 outward;
        for (std::uint32_t i = topo.tri_start[v]; i < topo.tri_start[v + 1]; ++i)
          outward = outward + face_normal(mesh, topo.tri[i]);
        const double nl = length(outward);
        if (nl > 1e-12) p = p + outward * (kRoundM / nl);
      }
      if (rank[v] == kHard) {
        const Vec3 d = p - original[v];
        const double len = length(d);
        if (len > max_hard_move_m) p = original[v] + d * (std::max(max_hard_move_m, 0.0) / len);
      }
      target[v] = p;
    }
    // 4. Apply in vertex order; undo a move that turns or collapses a triangle.
    for (std::uint32_t v = 0; v < n; ++v) {
      if (target[v] == mesh.positions[v]) continue;
      const Vec3 before = mesh.positions[v];
      mesh.positions[v] = target[v];
      if (faces_hold(v)) continue;
      mesh.positions[v] = before;
      ++reverts;
    }
  }
  double largest = 0.0;
  for (std::size_t v = 0; v < n; ++v)
    if (rank[v] == kHard) largest = std::max(largest, length(mesh.positions[v] - original[v]));
  return {reverts, largest};
}

}  // namespace cityforge::islands
