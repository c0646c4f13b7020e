// SPDX-License-Identifier: Apache-2.0
// The built-in island tile set: the model finalizes, tiles touch only where their corner
// states and face cross-sections agree (recomputed here from the unit meshes), the stacking
// rule of corner states, the explicit rules of Empty, unit-mesh orientation, and a solve.
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
    EXPECT_TRUE(r.ok()) << (r ? "" : r.error().message);
    return r ? std::move(*r) : TileSet{};
  }();
  return set;
}

bool has(const wfc::Model& m, wfc::TileId a, wfc::Label d, wfc::TileId b) {
  return std::binary_search(m.constraints.begin(), m.constraints.end(), wfc::Constraint{a, d, b},
                            [](const wfc::Constraint& x, const wfc::Constraint& y) {
                              return std::tie(x.key, x.label, x.adjacent) <
                                     std::tie(y.key, y.label, y.adjacent);
                            });
}

wfc::TileId find(const std::string& name) {
  const wfc::TileId t = tiles().model.find(name);
  EXPECT_NE(t, wfc::kNoTile) << name;
  return t;
}

// A mesh edge on a side face: (s0, w0, s1, w1) on a 1e-4 lattice, endpoints ordered, plus the
// material. Recomputed here independently of the profile code.
using FaceEdge = std::tuple<long, long, long, long, int>;

std::set<FaceEdge> face_edges(const UnitMesh& m, std::uint32_t k, bool mirror) {
  const auto face_s = [&](const Vec3& p, double& s) {
    const double eps = 1e-9;
    if (k == 0) return s = p.x, std::abs(p.y) < eps;
    if (k == 1) return s = p.y, std::abs(p.x - 1) < eps;
    if (k == 2) return s = 1 - p.x, std::abs(p.y - 1) < eps;
    return s = 1 - p.y, std::abs(p.x) < eps;
  };
  std::set<FaceEdge> out;
  for (const auto& t : m.triangles) {
    for (int e = 0; e < 3; ++e) {
      const Vec3& a = m.vertices[t.v[e]];
      const Vec3& b = m.vertices[t.v[(e + 1) % 3]];
      double sa = 0, sb = 0;
      if (!face_s(a, sa) || !face_s(b, sb)) continue;
      if (a.z < -0.5 + 1e-9 && b.z < -0.5 + 1e-9) continue;  // Open sea bed.
      if (mirror) sa = 1 - sa, sb = 1 - sb;
      long s0 = std::lround(sa * 1e4), w0 = std::lround(a.z * 1e4);
      long s1 = std::lround(sb * 1e4), w1 = std::lround(b.z * 1e4);
      if (std::tie(s1, w1) < std::tie(s0, w0)) std::swap(s0, s1), std::swap(w0, w1);
      out.insert({s0, w0, s1, w1, static_cast<int>(t.material)});
    }
  }
  return out;
}

TEST(IslandTiles, BuildsAFinalizedModelQuickly) {
  const TileSet& set = tiles();
  ASSERT_FALSE(set.info.empty());
  EXPECT_EQ(set.info.size(), set.model.tiles.size());
  EXPECT_EQ(set.meshes.size(), set.model.tiles.size());
  EXPECT_LT(set.info.size(), 400U);
  EXPECT_EQ(set.model.label_count, kGridLabelCount);
  EXPECT_EQ(set.model.base_names.size(), set.base_count);
  ASSERT_NE(set.model.empty, wfc::kNoTile);
  EXPECT_EQ(set.info[set.model.empty].kind, TileKind::empty);
  EXPECT_GT(set.profile_count, 10U);
  const auto t0 = std::chrono::steady_clock::now();
  Result<TileSet> again = build_tile_set();
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(again.ok());
  std::printf("tile set: %zu variants, %u bases, %zu constraints, %u side profiles, %.2f ms\n",
              set.info.size(), set.base_count, set.model.constraints.size(), set.profile_count, ms);
  // Deterministic.
  ASSERT_EQ(again->info.size(), set.info.size());
  EXPECT_EQ(again->model.constraints, set.model.constraints);
  for (std::size_t t = 0; t < set.info.size(); ++t) {
    EXPECT_EQ(again->info[t].side_profile, set.info[t].side_profile);
    EXPECT_EQ(again->info[t].name, set.model.tiles[t].name);
  }
}

TEST(IslandTiles, NeighboursAgreeOnSharedCornersAndFaces) {
  const TileSet& set = tiles();
  const wfc::TileId e = set.model.empty;
  std::size_t checked = 0;
  for (const wfc::Constraint& c : set.model.constraints) {
    if (c.key == e || c.adjacent == e || c.label >= 16) continue;
    const std::uint32_t k = c.label / 4, j = c.label % 4;
    const TileInfo& a = set.info[c.key];
    const TileInfo& b = set.info[c.adjacent];
    ASSERT_EQ(a.corners[k], b.corners[(j + 1) % 4]) << a.name << " | " << b.name;
    ASSERT_EQ(a.corners[(k + 1) % 4], b.corners[j]) << a.name << " | " << b.name;
    // Path exits meet path exits (houses: joins meet joins). A flight of stairs shows its
    // path on its low side; its high exit is shown by the landing above it.
    const auto shown = [](const TileInfo& t, std::uint32_t slot) {
      if (t.kind == TileKind::stairs && slot == t.stair_high_slot) return 0U;
      return (t.exits >> slot) & 1U;
    };
    ASSERT_EQ(shown(a, k), shown(b, j)) << a.name << " | " << b.name;
    const bool house_a = a.kind == TileKind::house, house_b = b.kind == TileKind::house;
    if (house_a != house_b) {
      ASSERT_FALSE(house_a && ((a.exits >> k) & 1U)) << a.name << " | " << b.name;
      ASSERT_FALSE(house_b && ((b.exits >> j) & 1U)) << a.name << " | " << b.name;
    }
    // The meshes' edges on the shared face coincide (geometry and materials).
    ASSERT_EQ(face_edges(set.meshes[c.key], k, false), face_edges(set.meshes[c.adjacent], j, true))
        << a.name << " side " << k << " | " << b.name << " side " << j;
    ++checked;
  }
  EXPECT_GT(checked, 1000U);
}

// The converse: every pair of faces whose cross-sections coincide (mesh edges on the face and
// solid quadrant halves, recomputed here) may touch, so no placement is lost to the hashing.
TEST(IslandTiles, EveryMatchingPairOfFacesIsAllowed) {
  const TileSet& set = tiles();
  const wfc::TileId e = set.model.empty;
  const auto n = static_cast<wfc::TileId>(set.info.size());
  // Per (tile, side): ids of its face section as seen from inside and mirrored.
  std::map<std::pair<std::set<FaceEdge>, std::array<bool, 2>>, int> ids;
  std::vector<std::array<int, 4>> own(n), mirror(n);
  const auto id_of = [&](wfc::TileId t, std::uint32_t k, bool m) {
    const TileInfo& i = set.info[t];
    const bool s0 = i.corners[k] == kCornerSolid, s1 = i.corners[(k + 1) % 4] == kCornerSolid;
    const std::array<bool, 2> solid = m ? std::array<bool, 2>{s1, s0} : std::array<bool, 2>{s0, s1};
    return ids.try_emplace({face_edges(set.meshes[t], k, m), solid}, static_cast<int>(ids.size()))
        .first->second;
  };
  for (wfc::TileId t = 0; t < n; ++t) {
    for (std::uint32_t k = 0; k < 4; ++k) {
      own[t][k] = id_of(t, k, false);
      mirror[t][k] = id_of(t, k, true);
    }
  }
  std::size_t pairs = 0;
  for (wfc::TileId a = 0; a < n; ++a) {
    for (wfc::TileId b = 0; b < n; ++b) {
      if (a == e || b == e) continue;
      for (std::uint32_t k = 0; k < 4; ++k) {
        for (std::uint32_t j = 0; j < 4; ++j) {
          const bool match = own[a][k] == mirror[b][j];
          pairs += match ? 1 : 0;
          ASSERT_EQ(has(set.model, a, side_label(k, j), b), match)
              << set.info[a].name << " side " << k << " | " << set.info[b].name << " side " << j;
        }
      }
    }
  }
  EXPECT_GT(pairs, 1000U);
}

TEST(IslandTiles, StackingFollowsTheCornerStates) {
  const TileSet& set = tiles();
  const wfc::TileId e = set.model.empty;
  for (const wfc::Constraint& c : set.model.constraints) {
    if (c.key == e || c.adjacent == e || c.label != kUpLabel) continue;
    const TileInfo& lo = set.info[c.key];
    const TileInfo& hi = set.info[c.adjacent];
    EXPECT_FALSE(hi.ground_level) << lo.name << " under " << hi.name;
    for (std::size_t k = 0; k < 4; ++k) {
      EXPECT_EQ(lo.corners[k] == kCornerSolid, hi.corners[k] != kCornerEmpty)
          << lo.name << " under " << hi.name;
    }
    EXPECT_TRUE(has(set.model, c.adjacent, kDownLabel, c.key));
    // Stairs always carry their landing, and landings stand only on stairs.
    EXPECT_EQ(lo.kind == TileKind::stairs, hi.name.rfind("landing", 0) == 0)
        << lo.name << " under " << hi.name;
  }
}

TEST(IslandTiles, EmptyFollowsItsExplicitRules) {
  const TileSet& set = tiles();
  const wfc::TileId e = set.model.empty;
  for (wfc::Label d = 0; d < kGridLabelCount; ++d)
    EXPECT_TRUE(has(set.model, e, d, e));
  for (wfc::TileId t = 0; t < set.info.size(); ++t) {
    if (t == e) continue;
    const TileInfo& i = set.info[t];
    for (std::uint32_t k = 0; k < 4; ++k) {
      const bool open = i.kind == TileKind::water || i.kind == TileKind::air;
      EXPECT_EQ(has(set.model, t, side_label(k, k), e), open) << i.name << " side " << k;
      EXPECT_EQ(has(set.model, e, side_label(k, k), t), open) << i.name << " side " << k;
    }
    const bool open_top = std::none_of(i.corners.begin(), i.corners.end(),
                                       [](std::uint8_t x) { return x == kCornerSolid; });
    EXPECT_EQ(has(set.model, t, kUpLabel, e), open_top) << i.name;
    EXPECT_EQ(has(set.model, t, kDownLabel, e), i.ground_level) << i.name;
    EXPECT_EQ(has(set.model, e, kUpLabel, t), i.ground_level) << i.name;
  }
}

TEST(IslandTiles, FacesDistinguishSidednessAndMirrorsMatch) {
  const TileSet& set = tiles();
  for (const char* name : {"ground_2000", "ground0_2000"}) {
    const TileInfo& c = set.info[find(name)];
    // Side 0 is (solid, empty), side 3 (empty, solid).
    EXPECT_NE(c.side_profile[0], c.side_profile[3]);
    EXPECT_EQ(c.side_profile[0], c.side_profile_mirrored[3]);
  }
  const wfc::TileId flat = find("ground_1111");
  const TileInfo& f = set.info[flat];
  for (std::uint32_t k = 0; k < 4; ++k) {
    EXPECT_EQ(f.side_profile[k], f.side_profile_mirrored[k]);
    for (std::uint32_t j = 0; j < 4; ++j)
      EXPECT_TRUE(has(set.model, flat, side_label(k, j), flat));
  }
  EXPECT_TRUE(f.navigable);
  // Solid next to air is not allowed, nor floor next to a path exit.
  EXPECT_FALSE(has(set.model, find("ground_2222"), side_label(0, 0), find("air")));
  EXPECT_FALSE(has(set.model, flat, side_label(0, 0), find("path_1")));
  EXPECT_TRUE(has(set.model, find("path_1"), side_label(0, 2), find("path_1#r2")));
  // Stairs look like a straight cliff from the side.
  const TileInfo& st = set.info[find("stairs")];
  const TileInfo& cliff = set.info[find("ground_2211")];
  EXPECT_EQ(st.corners, cliff.corners);
  EXPECT_EQ(st.side_profile[1], cliff.side_profile[1]);
  EXPECT_EQ(st.side_profile[3], cliff.side_profile[3]);
  EXPECT_EQ(st.side_profile[0], cliff.side_profile[0]);
  EXPECT_NE(st.side_profile[2], cliff.side_profile[2]);  // The low side shows the path.
  EXPECT_NE(st.up_profile, cliff.up_profile);            // The landing above.
  EXPECT_TRUE(st.navigable);
  EXPECT_EQ(st.stair_high_slot, 0);
  EXPECT_EQ(st.exits, 0b0101);
  EXPECT_FALSE(set.info[find("house_0")].navigable);
}

TEST(IslandTiles, UnitMeshesAreOrientedAndNonDegenerate) {
  const TileSet& set = tiles();
  for (std::size_t t = 0; t < set.meshes.size(); ++t) {
    const UnitMesh& m = set.meshes[t];
    const TileInfo& i = set.info[t];
    if (i.kind == TileKind::empty || i.kind == TileKind::water || i.kind == TileKind::air) {
      EXPECT_TRUE(m.triangles.empty()) << i.name;
    }
    if (i.kind == TileKind::ground && i.corners == std::array<std::uint8_t, 4>{1, 1, 1, 1}) {
      EXPECT_FALSE(m.triangles.empty()) << i.name;
    }
    for (const auto& tri : m.triangles) {
      const Vec3 a = m.vertices[tri.v[0]], b = m.vertices[tri.v[1]], c = m.vertices[tri.v[2]];
      const Vec3 n = cross(b - a, c - a);
      ASSERT_GT(length(n), 1e-6) << i.name;
      ASSERT_NE(tri.material, Material::none) << i.name;
      // Everything not vertical faces up: floors, beaches, treads, roofs.
      if (std::abs(n.z) > 1e-9) {
        ASSERT_GT(n.z, 0.0) << i.name;
      }
      for (const auto v : tri.v) {
        const Vec3 p = m.vertices[v];
        ASSERT_TRUE(p.x >= 0 && p.x <= 1 && p.y >= 0 && p.y <= 1 && p.z >= -0.5 && p.z <= 1)
            << i.name;
      }
    }
    // Every edge is used by at most two triangles, in opposite directions when by two.
    std::set<std::pair<std::uint16_t, std::uint16_t>> directed;
    for (const auto& tri : m.triangles) {
      for (int e = 0; e < 3; ++e)
        ASSERT_TRUE(directed.insert({tri.v[e], tri.v[(e + 1) % 3]}).second) << i.name;
    }
    for (const auto& h : m.hard_edges) {
      ASSERT_LT(h[0], h[1]);
      ASSERT_TRUE(directed.count({h[0], h[1]}) || directed.count({h[1], h[0]})) << i.name;
    }
  }
}

TEST(IslandTiles, SolvesASmallIsland) {
  const TileSet& set = tiles();
  GridConfig config;
  config.radius = 3;
  config.layers = 3;
  Result<LayeredGrid> grid = build_grid(config, 7);
  ASSERT_TRUE(grid.ok());
  const wfc::Grid g = to_wfc_grid(*grid);
  wfc::SolveOptions options;
  options.seed = 7;
  options.backtrack_budget = 200;
  options.max_restarts = 10;
  options.allow = [&](wfc::CellId, wfc::TileId t) { return t != set.model.empty; };
  const auto t0 = std::chrono::steady_clock::now();
  Result<wfc::Solution> sol = wfc::solve(set.model, g, {}, options);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(sol.ok()) << sol.error().message;
  EXPECT_TRUE(wfc::check_solution(set.model, g, sol->tiles).empty());
  std::size_t land = 0;
  for (const wfc::TileId t : sol->tiles) {
    EXPECT_NE(t, set.model.empty);
    land += set.info[t].kind != TileKind::water && set.info[t].kind != TileKind::air;
  }
  std::printf("small island: %u cells, %zu land, %.2f ms, %llu backtracks\n", g.cell_count, land,
              ms, static_cast<unsigned long long>(sol->stats.backtracks));
}

}  // namespace
}  // namespace cityforge::islands
