// SPDX-License-Identifier: Apache-2.0
// The island's contrast map: a colour per patch of the mesh, pushed apart across the edges that
// want a line and pulled together across those that want less, so an edge detection over it
// draws the lines at any zoom.
// Based on: O. Stalberg's island generator talk (seeds/003, 37:45-38:57): "a contrast texture
// where for each edge it has an idea of how much contrast it wants to have to the edge next to
// it ... an iterative algorithm which seeds everything with a random colour and then it
// iteratively goes through ... push these colours away from each other ... pull these towards
// each other; you run that like 100 iterations ... and then if you just run edge detection on
// that map you get super nice outlines".
#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <tuple>
#include <vector>

#include "cityforge/islands/island.hpp"
#include "mesh_util.hpp"

namespace cityforge::islands {
namespace {

constexpr std::uint64_t kContrastStream = 0xC0274A57;
constexpr double kRate = 0.3;  // Share of the gap to its target an edge closes per iteration.

/// The contrast an edge of this rank wants between the patches on its sides: material borders
/// (grass against cliff, roof against wall) most, hard edges of one material (a cliff's rim, a
/// house's corner) less, game-tile borders a little.
double target(EdgeRank rank) {
  switch (rank) {
    case EdgeRank::material:
      return kContrastMaterial;
    case EdgeRank::hard:
      return kContrastHard;
    case EdgeRank::tile:
      return kContrastTile;
    case EdgeRank::plain:
      break;
  }
  return 0.0;
}

struct Joins {
  std::vector<std::uint32_t> parent;
  std::uint32_t find(std::uint32_t x) {
    while (parent[x] != x) {
      parent[x] = parent[parent[x]];
      x = parent[x];
    }
    return x;
  }
  void join(std::uint32_t a, std::uint32_t b) {
    a = find(a);
    b = find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);  // The lower id roots: deterministic.
  }
};

}  // namespace

ContrastMap contrast_map(const IslandMesh& mesh, Seed seed, std::uint32_t iterations) {
  ContrastMap out;
  const std::size_t nt = mesh.triangles.size();
  const std::size_t nv = mesh.positions.size();
  if (nt == 0) return out;
  // 1. Triangles around each vertex (ascending), to find the triangles on each edge.
  const VertexCorners around = vertex_corners(mesh);
  const std::vector<std::uint32_t>& start = around.start;
  const auto tri_at = [&](std::uint32_t i) { return around.corners[i] / 3; };
  // 2. Patches: triangles joined across plain edges. The other edges, with their ranks: the
  // triangles on an edge are those in both of its ends' (ascending) lists.
  Joins joins{std::vector<std::uint32_t>(nt)};
  std::iota(joins.parent.begin(), joins.parent.end(), 0U);
  std::vector<std::tuple<std::uint32_t, std::uint32_t, EdgeRank>> borders;
  std::array<std::uint32_t, 2> sides{};
  for (const IslandMesh::MeshEdge& e : mesh.edges) {
    if (e.a >= nv || e.b >= nv) continue;
    std::size_t n = 0;
    for (std::uint32_t i = start[e.a], j = start[e.b]; i < start[e.a + 1] && j < start[e.b + 1];) {
      if (tri_at(i) < tri_at(j)) {
        ++i;
      } else if (tri_at(j) < tri_at(i)) {
        ++j;
      } else {
        if (n < 2) sides[n] = tri_at(i);
        ++n;
        ++i;
        ++j;
      }
    }
    if (n != 2) continue;  // A rim edge (one triangle), or a seam of more: no pair to part.
    if (e.rank == EdgeRank::plain) {
      joins.join(sides[0], sides[1]);
    } else {
      borders.emplace_back(sides[0], sides[1], e.rank);
    }
  }
  out.patch.resize(nt);
  std::vector<std::uint32_t> id_of_root(nt, UINT32_MAX);
  std::uint32_t patches = 0;
  std::vector<std::uint32_t> first_triangle;
  for (std::uint32_t t = 0; t < nt; ++t) {
    const std::uint32_t r = joins.find(t);
    if (id_of_root[r] == UINT32_MAX) {
      id_of_root[r] = patches++;
      first_triangle.push_back(t);
    }
    out.patch[t] = id_of_root[r];
  }
  // 3. Between two patches, the strongest rank of the edges they share.
  std::vector<std::tuple<std::uint32_t, std::uint32_t, EdgeRank>> pairs;
  pairs.reserve(borders.size());
  for (const auto& [t, u, r] : borders) {
    const std::uint32_t p = out.patch[t], q = out.patch[u];
    if (p != q) pairs.emplace_back(std::min(p, q), std::max(p, q), r);
  }
  std::sort(pairs.begin(), pairs.end());
  std::vector<std::tuple<std::uint32_t, std::uint32_t, double>> wants;
  for (std::size_t i = 0; i < pairs.size();) {
    std::size_t j = i;
    EdgeRank r = EdgeRank::plain;
    while (j < pairs.size() && std::get<0>(pairs[j]) == std::get<0>(pairs[i]) &&
           std::get<1>(pairs[j]) == std::get<1>(pairs[i])) {
      r = std::max(r, std::get<2>(pairs[j]));
      ++j;
    }
    wants.emplace_back(std::get<0>(pairs[i]), std::get<1>(pairs[i]), target(r));
    i = j;
  }
  // 4. A seeded colour per patch, then the pushes and pulls, in pair order.
  out.colour.resize(patches);
  for (std::uint32_t p = 0; p < patches; ++p) {
    Rng rng{seed, Stage::islands, first_triangle[p], kContrastStream};
    for (float& c : out.colour[p])
      c = static_cast<float>(rng.uniform01());
  }
  std::vector<std::array<double, 3>> c(patches);
  for (std::uint32_t p = 0; p < patches; ++p)
    c[p] = {out.colour[p][0], out.colour[p][1], out.colour[p][2]};
  for (std::uint32_t it = 0; it < iterations; ++it) {
    for (const auto& [p, q, want] : wants) {
      std::array<double, 3> d{c[p][0] - c[q][0], c[p][1] - c[q][1], c[p][2] - c[q][2]};
      double len = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
      if (len < 1e-9) {  // Equal colours: part them along grey.
        d = {1.0, 1.0, 1.0};
        len = std::sqrt(3.0);
      }
      const double step = 0.5 * kRate * (want - len) / len;
      for (std::size_t k = 0; k < 3; ++k) {
        c[p][k] = std::clamp(c[p][k] + step * d[k], 0.0, 1.0);
        c[q][k] = std::clamp(c[q][k] - step * d[k], 0.0, 1.0);
      }
    }
  }
  for (std::uint32_t p = 0; p < patches; ++p)
    for (std::size_t k = 0; k < 3; ++k)
      out.colour[p][k] = static_cast<float>(c[p][k]);
  out.pairs = static_cast<std::uint32_t>(wants.size());
  return out;
}

}  // namespace cityforge::islands
