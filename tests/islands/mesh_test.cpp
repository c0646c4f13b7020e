// SPDX-License-Identifier: Apache-2.0
// The welded island mesh: a hand-built layout from a heightfield (ground variants picked by
// their corner states) and solved islands with every kind of tile come out closed except at
// the open sea bed, with no duplicate vertices, upward walkable floors and sorted edges.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "cityforge/islands/grid.hpp"
#include "cityforge/islands/island.hpp"

namespace cityforge::islands {
namespace {

const TileSet& tiles() {
  static const TileSet set = [] {
    Result<TileSet> r = build_tile_set();
    EXPECT_TRUE(r.ok());
    return r ? std::move(*r) : TileSet{};
  }();
  return set;
}

// The plain ground variant (or water / air) showing `corners` in its family.
wfc::TileId variant_for(const std::array<std::uint8_t, 4>& corners, bool ground_level) {
  const TileSet& set = tiles();
  const bool none = corners == std::array<std::uint8_t, 4>{0, 0, 0, 0};
  for (wfc::TileId t = 0; t < set.info.size(); ++t) {
    const TileInfo& i = set.info[t];
    if (none) {
      if (i.kind == (ground_level ? TileKind::water : TileKind::air)) return t;
      continue;
    }
    if (i.kind == TileKind::ground && i.exits == 0 && i.ground_level == ground_level &&
        i.corners == corners) {
      return t;
    }
  }
  return wfc::kNoTile;
}

// Tiles of every 3D cell from a ground height per plane vertex (in layers).
std::vector<wfc::TileId> layout(const LayeredGrid& g, const std::vector<int>& height) {
  std::vector<wfc::TileId> out(g.cell_count(), wfc::kNoTile);
  for (std::uint32_t layer = 0; layer < g.layers; ++layer) {
    for (std::uint32_t c = 0; c < g.plane.cells.size(); ++c) {
      std::array<std::uint8_t, 4> corners{};
      for (std::size_t k = 0; k < 4; ++k) {
        const int h = height[g.plane.cells[c].vertices[k]];
        const int l = static_cast<int>(layer);
        corners[k] = h < l ? kCornerEmpty : h == l ? kCornerFloor : kCornerSolid;
      }
      out[g.cell_id(c, layer)] = variant_for(corners, layer == 0);
    }
  }
  return out;
}

// Closed except along the sea bed, vertices unique, floors up, edges sorted and complete.
void expect_sound(const IslandMesh& m, double layer_m) {
  ASSERT_EQ(m.material.size(), m.triangles.size());
  ASSERT_EQ(m.cell.size(), m.triangles.size());
  ASSERT_EQ(m.walkable.size(), m.triangles.size());
  ASSERT_EQ(m.line.size(), m.positions.size());
  EXPECT_TRUE(m.corner_colour.empty());
  std::set<std::array<long long, 3>> where;
  for (const Vec3& p : m.positions) {
    EXPECT_TRUE(
        where.insert({std::llround(p.x * 1e5), std::llround(p.y * 1e5), std::llround(p.z * 1e5)})
            .second)
        << "two vertices at " << p.x << " " << p.y << " " << p.z;
  }
  std::map<std::pair<std::uint32_t, std::uint32_t>, int> directed;
  std::set<std::pair<std::uint32_t, std::uint32_t>> undirected;
  std::size_t walkable = 0;
  for (std::size_t t = 0; t < m.triangles.size(); ++t) {
    const auto& tri = m.triangles[t];
    const Vec3 n =
        cross(m.positions[tri[1]] - m.positions[tri[0]], m.positions[tri[2]] - m.positions[tri[0]]);
    EXPECT_GT(length(n), 1e-9);
    EXPECT_NE(m.material[t], Material::none);
    if (m.walkable[t]) {
      ++walkable;
      EXPECT_GT(n.z, 0.0);
    }
    for (int e = 0; e < 3; ++e) {
      const std::uint32_t a = tri[e], b = tri[(e + 1) % 3];
      const int uses = ++directed[std::make_pair(a, b)];
      EXPECT_EQ(uses, 1) << "edge " << a << "-" << b << " twice one way";
      undirected.insert({std::min(a, b), std::max(a, b)});
    }
  }
  EXPECT_GT(walkable, 0U);
  const double seabed = -0.5 * layer_m;
  for (const auto& [ab, count] : directed) {
    if (directed.count({ab.second, ab.first})) continue;
    EXPECT_NEAR(m.positions[ab.first].z, seabed, 1e-9) << "open edge off the sea bed";
    EXPECT_NEAR(m.positions[ab.second].z, seabed, 1e-9) << "open edge off the sea bed";
  }
  ASSERT_EQ(m.edges.size(), undirected.size());
  std::size_t i = 0;
  for (const auto& [a, b] : undirected) {
    EXPECT_EQ(m.edges[i].a, a);
    EXPECT_EQ(m.edges[i].b, b);
    ++i;
  }
}

TEST(IslandMesh, HeightfieldLayoutIsClosedAndRanked) {
  GridConfig config;
  config.radius = 3;
  config.layers = 3;
  Result<LayeredGrid> g = build_grid(config, 11);
  ASSERT_TRUE(g.ok());
  std::vector<int> height(g->plane.vertices.size());
  for (std::size_t v = 0; v < height.size(); ++v) {
    const Vec2 p = g->plane.vertices[v];
    const double d = std::sqrt(dot(p, p));
    height[v] = d < 1.8 ? 1 : d < 4.2 ? 0 : -1;
  }
  const std::vector<wfc::TileId> solved = layout(*g, height);
  for (const wfc::TileId t : solved)
    ASSERT_NE(t, wfc::kNoTile) << "no variant for a cell's corners";
  const IslandMesh m = build_mesh(*g, tiles(), solved);
  ASSERT_FALSE(m.triangles.empty());
  expect_sound(m, g->layer_m);
  std::map<EdgeRank, std::size_t> ranks;
  for (const auto& e : m.edges)
    ++ranks[e.rank];
  EXPECT_GT(ranks[EdgeRank::hard], 0U);  // The cliff's rim and foot.
  EXPECT_GT(ranks[EdgeRank::tile], 0U);
  EXPECT_GT(ranks[EdgeRank::plain], 0U);
  std::set<std::uint8_t> lines(m.line.begin(), m.line.end());
  EXPECT_EQ(lines, (std::set<std::uint8_t>{0, 1, 2}));
  // Vertices on the plane's vertices sit exactly there, at whole and half layers.
  for (const auto& tri : m.triangles) {
    for (const auto v : tri)
      EXPECT_GE(m.positions[v].z, -0.5 - 1e-9);
  }
  // Deterministic.
  const IslandMesh again = build_mesh(*g, tiles(), solved);
  EXPECT_EQ(again.triangles, m.triangles);
  EXPECT_EQ(again.positions, m.positions);
}

TEST(IslandMesh, SolvedIslandsAreClosed) {
  const TileSet& set = tiles();
  for (const Seed seed : {Seed{1}, Seed{2}, Seed{3}}) {
    GridConfig config;
    config.radius = 4;
    config.layers = 4;
    Result<LayeredGrid> g = build_grid(config, seed);
    ASSERT_TRUE(g.ok());
    wfc::SolveOptions options;
    options.seed = seed;
    options.backtrack_budget = 200;
    options.max_restarts = 10;
    options.allow = [&](wfc::CellId, wfc::TileId t) { return t != set.model.empty; };
    // A house and a flight of stairs placed by hand, the rest solved around them.
    const auto nearest = [&](Vec2 p) {
      std::uint32_t best = 0;
      double best_d = 1e18;
      for (std::uint32_t c = 0; c < g->plane.cells.size(); ++c) {
        Vec2 m{};
        for (std::size_t k = 0; k < 4; ++k)
          m += g->plane.vertices[g->plane.cells[c].vertices[k]] * 0.25;
        const double d = dot(m - p, m - p);
        if (d < best_d) best_d = d, best = c;
      }
      return best;
    };
    const std::vector<wfc::Fixed> fixed = {
        {g->cell_id(nearest({-2.0, 0.0}), 1), set.model.find("house_0")},
        {g->cell_id(nearest({2.0, 0.0}), 1), set.model.find("stairs")}};
    Result<wfc::Solution> sol = wfc::solve(set.model, to_wfc_grid(*g), fixed, options);
    ASSERT_TRUE(sol.ok()) << sol.error().message;
    const auto t0 = std::chrono::steady_clock::now();
    const IslandMesh m = build_mesh(*g, set, sol->tiles);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::map<TileKind, int> kinds;
    for (const wfc::TileId t : sol->tiles)
      ++kinds[set.info[t].kind];
    std::printf("seed %llu: %zu triangles, %zu vertices, %.2f ms; stairs %d paths %d houses %d\n",
                static_cast<unsigned long long>(seed), m.triangles.size(), m.positions.size(), ms,
                kinds[TileKind::stairs], kinds[TileKind::path], kinds[TileKind::house]);
    expect_sound(m, g->layer_m);
  }
}

}  // namespace
}  // namespace cityforge::islands
