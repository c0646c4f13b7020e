// SPDX-License-Identifier: Apache-2.0
// Deformation, lift, hierarchical smoothing and colours of the island mesh, on small synthetic
// meshes (a terrace: two flat levels joined by a vertical cliff with hard edges; a noisy flat
// grid) and on a real grid plane with faked tile columns.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "cityforge/islands/island.hpp"

namespace cityforge::islands {
namespace {

struct MeshMaker {
  IslandMesh mesh;
  std::map<std::pair<std::uint32_t, std::uint32_t>, EdgeRank> ranks;

  std::uint32_t add(Vec3 p, std::uint8_t line = 0) {
    mesh.positions.push_back(p);
    mesh.line.push_back(line);
    return static_cast<std::uint32_t>(mesh.positions.size() - 1);
  }
  void tri(std::uint32_t a, std::uint32_t b, std::uint32_t c, Material m, std::uint32_t cell,
           bool walk) {
    mesh.triangles.push_back({a, b, c});
    mesh.material.push_back(m);
    mesh.cell.push_back(cell);
    mesh.walkable.push_back(walk ? 1 : 0);
  }
  // Counter-clockwise quad a b c d, split along a-c.
  void quad(std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t d, Material m,
            std::uint32_t cell, bool walk) {
    tri(a, b, c, m, cell, walk);
    tri(a, c, d, m, cell, walk);
  }
  void mark(std::uint32_t a, std::uint32_t b, EdgeRank r) {
    EdgeRank& slot = ranks[std::minmax(a, b)];
    slot = std::max(slot, r);
  }
  IslandMesh finish() {
    std::set<std::pair<std::uint32_t, std::uint32_t>> edges;
    for (const auto& t : mesh.triangles)
      for (int k = 0; k < 3; ++k)
        edges.insert(std::minmax(t[k], t[(k + 1) % 3]));
    for (const auto& [a, b] : edges) {
      const auto it = ranks.find({a, b});
      mesh.edges.push_back({a, b, it == ranks.end() ? EdgeRank::plain : it->second});
    }
    return mesh;
  }
};

// The terrace: a lower level (z 0, y 0..3) and an upper level (z 1, y 3..6), 8 m wide, joined
// by a vertical rock cliff at y = 3 facing -y with a middle row at z 0.5. Hard edges along the
// cliff foot and top, and one vertical hard edge at x = 4 (so the foot and top vertices there
// have three hard edges). A game-tile border at x = 4 on the lower level, a material border
// (sand | grass) at x = 4 on the upper level.
constexpr std::uint32_t kNx = 8;
struct Terrace {
  IslandMesh mesh;
  std::uint32_t lower[4][kNx + 1];  // Rows y = 0..3, z = 0 (row 3 is the cliff foot).
  std::uint32_t wall[kNx + 1];      // y = 3, z = 0.5.
  std::uint32_t upper[4][kNx + 1];  // Rows y = 3..6, z = 1 (row 0 is the cliff top).
};

Terrace terrace() {
  Terrace t;
  MeshMaker m;
  for (std::uint32_t j = 0; j < 4; ++j)
    for (std::uint32_t i = 0; i <= kNx; ++i) {
      const std::uint8_t line = j == 3 ? 2 : (i == 4 ? 1 : 0);
      t.lower[j][i] = m.add({double(i), double(j), 0.0}, line);
    }
  for (std::uint32_t i = 0; i <= kNx; ++i)
    t.wall[i] = m.add({double(i), 3.0, 0.5}, i == 4 ? 2 : 0);
  for (std::uint32_t j = 0; j < 4; ++j)
    for (std::uint32_t i = 0; i <= kNx; ++i)
      t.upper[j][i] = m.add({double(i), 3.0 + j, 1.0}, (j == 0 || i == 4) ? 2 : 0);
  for (std::uint32_t i = 0; i < kNx; ++i) {
    const std::uint32_t side = i < 4 ? 0 : 1;
    for (std::uint32_t j = 0; j < 3; ++j) {
      m.quad(t.lower[j][i], t.lower[j][i + 1], t.lower[j + 1][i + 1], t.lower[j + 1][i],
             Material::grass, side, true);
      m.quad(t.upper[j][i], t.upper[j][i + 1], t.upper[j + 1][i + 1], t.upper[j + 1][i],
             side == 0 ? Material::sand : Material::grass, 4 + side, true);
    }
    m.quad(t.lower[3][i], t.lower[3][i + 1], t.wall[i + 1], t.wall[i], Material::rock, 2 + side,
           false);
    m.quad(t.wall[i], t.wall[i + 1], t.upper[0][i + 1], t.upper[0][i], Material::rock, 2 + side,
           false);
    m.mark(t.lower[3][i], t.lower[3][i + 1], EdgeRank::hard);
    m.mark(t.upper[0][i], t.upper[0][i + 1], EdgeRank::hard);
  }
  m.mark(t.lower[3][4], t.wall[4], EdgeRank::hard);
  m.mark(t.wall[4], t.upper[0][4], EdgeRank::hard);
  for (std::uint32_t j = 0; j < 3; ++j) {
    m.mark(t.lower[j][4], t.lower[j + 1][4], EdgeRank::tile);
    m.mark(t.upper[j][4], t.upper[j + 1][4], EdgeRank::material);
  }
  t.mesh = m.finish();
  return t;
}

// A flat walkable grid of n x n quads, 1 m apart; interior vertices jittered by up to
// xy_noise in x and y and z_noise in z.
IslandMesh noisy_grid(std::uint32_t n, double xy_noise, double z_noise, std::uint64_t id) {
  MeshMaker m;
  Rng rng{7, Stage::test, id};
  std::vector<std::uint32_t> v((n + 1) * (n + 1));
  for (std::uint32_t j = 0; j <= n; ++j)
    for (std::uint32_t i = 0; i <= n; ++i) {
      const bool inner = i > 0 && j > 0 && i < n && j < n;
      const double dx = inner ? rng.uniform(-xy_noise, xy_noise) : 0.0;
      const double dy = inner ? rng.uniform(-xy_noise, xy_noise) : 0.0;
      const double dz = inner ? rng.uniform(-z_noise, z_noise) : 0.0;
      v[j * (n + 1) + i] = m.add({i + dx, j + dy, dz});
    }
  for (std::uint32_t j = 0; j < n; ++j)
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::uint32_t a = v[j * (n + 1) + i];
      m.quad(a, a + 1, a + n + 2, a + n + 1, Material::grass, j * n + i, true);
    }
  return m.finish();
}

Vec3 normal_of(const IslandMesh& m, std::size_t t) {
  const auto& tri = m.triangles[t];
  return cross(m.positions[tri[1]] - m.positions[tri[0]],
               m.positions[tri[2]] - m.positions[tri[0]]);
}

// No triangle turned past 90 degrees from its normal in `before`; walkable ones that faced
// up still do.
void expect_no_flips(const IslandMesh& before, const IslandMesh& after) {
  ASSERT_EQ(before.triangles.size(), after.triangles.size());
  for (std::size_t t = 0; t < after.triangles.size(); ++t) {
    const Vec3 a = normal_of(before, t);
    const Vec3 b = normal_of(after, t);
    EXPECT_GT(dot(a, b), 0.0) << "triangle " << t << " flipped";
    if (after.walkable[t] == 1 && a.z > 0.0) {
      EXPECT_GT(b.z, 0.0) << "walkable triangle " << t << " faces down";
    }
  }
}

std::vector<std::uint8_t> hard_vertices(const IslandMesh& m) {
  std::vector<std::uint8_t> hard(m.positions.size(), 0);
  for (const IslandMesh::MeshEdge& e : m.edges)
    if (e.rank == EdgeRank::hard) hard[e.a] = hard[e.b] = 1;
  return hard;
}

void jitter(IslandMesh& m, double amount, std::uint64_t id) {
  Rng rng{11, Stage::test, id};
  for (Vec3& p : m.positions)
    p = p + Vec3{rng.uniform(-amount, amount), rng.uniform(-amount, amount),
                 rng.uniform(-amount, amount)};
}

bool same_bytes(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(Vec3)) == 0;
}

TEST(IslandsSmooth, NeverFlipsAndKeepsHardVerticesCloseOnANoisyTerrace) {
  for (const double noise : {0.05, 0.2, 0.45}) {
    SCOPED_TRACE(::testing::Message() << "noise " << noise);
    Terrace t = terrace();
    jitter(t.mesh, noise, static_cast<std::uint64_t>(noise * 100));
    const IslandMesh before = t.mesh;
    const auto [reverts, largest] = smooth_mesh(t.mesh, 6, 0.12);
    expect_no_flips(before, t.mesh);
    const std::vector<std::uint8_t> hard = hard_vertices(before);
    double measured = 0.0;
    for (std::size_t v = 0; v < hard.size(); ++v) {
      if (hard[v] == 0) continue;
      const double moved = length(t.mesh.positions[v] - before.positions[v]);
      EXPECT_LE(moved, 0.12 + 1e-9) << "hard vertex " << v;
      measured = std::max(measured, moved);
    }
    EXPECT_LE(largest, 0.12 + 1e-9);
    EXPECT_GE(largest, measured - 1e-12);
    (void)reverts;
  }
}

TEST(IslandsSmooth, NoisyFlatGridGetsSmootherWithoutFlips) {
  for (const double z_noise : {0.3, 2.0}) {
    SCOPED_TRACE(::testing::Message() << "z noise " << z_noise);
    IslandMesh m = noisy_grid(12, 0.2, z_noise, static_cast<std::uint64_t>(z_noise * 10));
    const IslandMesh before = m;
    const auto [reverts, largest] = smooth_mesh(m, 6, 0.12);
    expect_no_flips(before, m);
    // Height variance of the interior drops a lot: plain vertices do move.
    const auto variance = [](const IslandMesh& mesh) {
      double sum = 0.0;
      double sum2 = 0.0;
      std::size_t n = 0;
      for (const Vec3& p : mesh.positions) {
        if (p.x < 0.5 || p.y < 0.5 || p.x > 11.5 || p.y > 11.5) continue;
        sum += p.z;
        sum2 += p.z * p.z;
        ++n;
      }
      return sum2 / n - (sum / n) * (sum / n);
    };
    EXPECT_LT(variance(m), 0.3 * variance(before)) << "reverts " << reverts;
    EXPECT_LE(largest, 0.12 + 1e-9);  // Only the open border is hard here.
  }
}

TEST(IslandsSmooth, UndoesAMoveThatWouldFoldAFan) {
  // A fan whose outline is dented at d: the mean of the outline lies beyond the dent, so plain
  // Laplacian steps would push the centre p through the edge c-d and fold two triangles. The
  // outline is open (hard) and may not move at all here.
  MeshMaker m;
  const std::uint32_t p = m.add({0, -0.7, 0});
  const std::uint32_t a = m.add({-1, -1, 0});
  const std::uint32_t b = m.add({1, -1, 0});
  const std::uint32_t c = m.add({1, 1, 0});
  const std::uint32_t d = m.add({0, -0.3, 0});
  const std::uint32_t e = m.add({-1, 1, 0});
  m.tri(p, a, b, Material::grass, 0, true);
  m.tri(p, b, c, Material::grass, 0, true);
  m.tri(p, c, d, Material::grass, 0, true);
  m.tri(p, d, e, Material::grass, 0, true);
  m.tri(p, e, a, Material::grass, 0, true);
  IslandMesh mesh = m.finish();
  const IslandMesh before = mesh;
  const auto [reverts, largest] = smooth_mesh(mesh, 8, 0.0);
  expect_no_flips(before, mesh);
  EXPECT_GT(reverts, 0U);
  EXPECT_EQ(largest, 0.0);
  EXPECT_GT(mesh.positions[p].y, -0.7);  // It did move as far as it safely could.
  EXPECT_LT(mesh.positions[p].y, -0.3);
}

TEST(IslandsSmooth, VertexWithThreeHardEdgesBarelyMoves) {
  Terrace t = terrace();
  const std::uint32_t pinned = t.lower[3][4];  // Foot row both ways and up the cliff.
  const std::uint32_t plain = t.lower[1][2];
  t.mesh.positions[pinned].x += 0.1;
  t.mesh.positions[plain].x += 0.1;
  const IslandMesh before = t.mesh;
  smooth_mesh(t.mesh, 1, 0.12);
  const double pinned_move = length(t.mesh.positions[pinned] - before.positions[pinned]);
  const double plain_move = length(t.mesh.positions[plain] - before.positions[plain]);
  EXPECT_GT(plain_move, 0.02);
  EXPECT_LT(pinned_move, 0.5 * plain_move);
  // A foot vertex with two hard edges does follow its row.
  Terrace u = terrace();
  const std::uint32_t foot = u.lower[3][2];
  u.mesh.positions[foot].z += 0.1;
  smooth_mesh(u.mesh, 1, 0.12);
  EXPECT_NEAR(u.mesh.positions[foot].z, 0.05, 1e-12);
}

TEST(IslandsSmooth, BorderVertexIgnoresPlainNeighboursAndSlidesAlongItsBorder) {
  Terrace t = terrace();
  const std::uint32_t border = t.upper[1][4];  // On the sand | grass border.
  const std::uint32_t plain = t.upper[1][5];
  t.mesh.positions[plain].z += 0.4;   // Would drag a plain vertex up.
  t.mesh.positions[plain].x -= 0.3;   // ... and sideways towards the border.
  t.mesh.positions[border].y += 0.3;  // Off centre along its border.
  smooth_mesh(t.mesh, 1, 0.12);
  const Vec3 p = t.mesh.positions[border];
  EXPECT_DOUBLE_EQ(p.x, 4.0);
  EXPECT_DOUBLE_EQ(p.z, 1.0);
  EXPECT_NEAR(p.y, 4.15, 1e-12);  // Half way back to the mean of its border neighbours.
  // The plain vertex, by contrast, is pulled by everything around it.
  EXPECT_LT(t.mesh.positions[plain].z, 1.4 - 0.05);
}

TEST(IslandsSmooth, LeavesWaterAndHousesAlone) {
  for (const Material material : {Material::water, Material::wall, Material::roof}) {
    IslandMesh m = noisy_grid(4, 0.1, 0.3, 3);
    std::fill(m.material.begin(), m.material.end(), material);
    const IslandMesh before = m;
    const auto [reverts, largest] = smooth_mesh(m, 4, 0.12);
    EXPECT_TRUE(same_bytes(before.positions, m.positions));
    EXPECT_EQ(reverts, 0U);
    EXPECT_EQ(largest, 0.0);
  }
}

TEST(IslandsSmooth, IsDeterministic) {
  Terrace a = terrace();
  jitter(a.mesh, 0.3, 5);
  Terrace b = terrace();
  jitter(b.mesh, 0.3, 5);
  const auto ra = smooth_mesh(a.mesh, 6, 0.12);
  const auto rb = smooth_mesh(b.mesh, 6, 0.12);
  EXPECT_EQ(ra, rb);
  EXPECT_TRUE(same_bytes(a.mesh.positions, b.mesh.positions));
}

TEST(IslandsLift, RaisesTheMiddleOfLevelsAndKeepsRims) {
  Terrace t = terrace();
  const IslandMesh before = t.mesh;
  lift_land(t.mesh, 0.25);
  expect_no_flips(before, t.mesh);
  const auto z = [&](std::uint32_t v) { return t.mesh.positions[v].z - before.positions[v].z; };
  for (std::uint32_t i = 0; i <= kNx; ++i) {
    EXPECT_EQ(z(t.lower[3][i]), 0.0) << "cliff foot " << i;
    EXPECT_EQ(z(t.upper[0][i]), 0.0) << "cliff top " << i;
    EXPECT_EQ(z(t.wall[i]), 0.0) << "cliff " << i;
  }
  // Interior rises, more with distance from the rim, never above rise_m.
  EXPECT_GT(z(t.lower[2][4]), 0.0);
  EXPECT_GT(z(t.lower[1][4]), z(t.lower[2][4]));
  EXPECT_GT(z(t.lower[0][4]), z(t.lower[1][4]));
  EXPECT_GT(z(t.upper[3][2]), z(t.upper[1][2]));
  for (std::size_t v = 0; v < t.mesh.positions.size(); ++v) {
    EXPECT_LE(z(static_cast<std::uint32_t>(v)), 0.25 + 1e-12);
    EXPECT_GE(z(static_cast<std::uint32_t>(v)), 0.0);
    EXPECT_EQ(t.mesh.positions[v].x, before.positions[v].x);
  }
  // Deterministic.
  Terrace again = terrace();
  lift_land(again.mesh, 0.25);
  EXPECT_TRUE(same_bytes(again.mesh.positions, t.mesh.positions));
}

TEST(IslandsLift, ScalesBackInsteadOfFlippingAWalkableRiser) {
  // A walkable stair riser (0.2 m, facing -y) whose foot vertex `a` is the only vertex away
  // from the rims: lifting it by the full rise would turn the riser over, so the lift is cut.
  MeshMaker m;
  const std::uint32_t a = m.add({0, 0, 0});
  const std::uint32_t b = m.add({1, 0, 0});
  const std::uint32_t c = m.add({0, 0, 0.2});
  const std::uint32_t d = m.add({1, 0, 0.2});
  const std::uint32_t f = m.add({-1, -1, 0});
  const std::uint32_t g = m.add({1, -1, 0});
  const std::uint32_t h = m.add({-1, 0, 0});
  m.tri(a, b, d, Material::path, 0, true);
  m.tri(a, d, c, Material::path, 0, true);
  m.tri(f, g, a, Material::path, 0, true);
  m.tri(g, b, a, Material::path, 0, true);
  m.tri(f, a, h, Material::path, 0, true);
  for (const auto& [p, q] :
       std::vector<std::pair<std::uint32_t, std::uint32_t>>{{f, g}, {g, b}, {b, d}, {d, c}, {f, h}})
    m.mark(p, q, EdgeRank::hard);
  IslandMesh mesh = m.finish();
  const IslandMesh before = mesh;
  lift_land(mesh, 5.0);
  expect_no_flips(before, mesh);
  EXPECT_LT(mesh.positions[a].z, 0.2);
  for (const std::uint32_t v : {b, c, d, f, g, h})
    EXPECT_EQ(mesh.positions[v], before.positions[v]);
}

// ---- Deformation of the plane -------------------------------------------------------------

struct FakeColumns {
  TileSet tiles;
  std::vector<wfc::TileId> solved;
  std::vector<std::uint8_t> land;  // Per plane cell.
};

// Land (solid at layer 0, a flat top at layer 1) on the cells within `reach` of the centre,
// water and air elsewhere.
FakeColumns fake_columns(const LayeredGrid& g, double reach) {
  FakeColumns f;
  TileInfo water;
  water.kind = TileKind::water;
  TileInfo air;
  air.kind = TileKind::air;
  TileInfo solid;
  solid.kind = TileKind::ground;
  solid.corners = {kCornerSolid, kCornerSolid, kCornerSolid, kCornerSolid};
  TileInfo top;
  top.kind = TileKind::ground;
  top.corners = {kCornerFloor, kCornerFloor, kCornerFloor, kCornerFloor};
  f.tiles.info = {water, air, solid, top};
  f.solved.assign(g.cell_count(), 1);
  f.land.assign(g.plane.cells.size(), 0);
  for (std::uint32_t c = 0; c < g.plane.cells.size(); ++c) {
    Vec2 centre;
    for (std::uint8_t k = 0; k < g.plane.cells[c].count; ++k)
      centre += g.plane.vertices[g.plane.cells[c].vertices[k]];
    centre = centre / g.plane.cells[c].count;
    f.land[c] = length(centre) < reach ? 1 : 0;
    f.solved[g.cell_id(c, 0)] = f.land[c] ? 2 : 0;
    f.solved[g.cell_id(c, 1)] = f.land[c] ? 3 : 1;
  }
  return f;
}

double cell_area(const PlanarGrid& g, const Cell& c) {
  double a = 0.0;
  for (std::uint8_t k = 0; k < c.count; ++k)
    a += cross(g.vertices[c.vertices[k]], g.vertices[c.vertices[(k + 1) % c.count]]);
  return 0.5 * a;
}

double distance_to_outline(const PlanarGrid& outline, Vec2 p) {
  double best = 1e300;
  const std::size_t n = outline.boundary.size();
  for (std::size_t i = 0; i < n; ++i) {
    const Vec2 a = outline.vertices[outline.boundary[i]];
    const Vec2 b = outline.vertices[outline.boundary[(i + 1) % n]];
    const double s = std::clamp(dot(p - a, b - a) / dot(b - a, b - a), 0.0, 1.0);
    best = std::min(best, distance(p, a + (b - a) * s));
  }
  return best;
}

TEST(IslandsDeform, KeepsCellsConvexAndTheOutlineAndOpensWater) {
  for (const GridKind kind : {GridKind::mixed, GridKind::square, GridKind::triangle}) {
    for (Seed seed = 1; seed <= 6; ++seed) {
      SCOPED_TRACE(::testing::Message() << "kind " << int(kind) << " seed " << seed);
      GridConfig config;
      config.kind = kind;
      config.radius = 5;
      config.layers = 2;
      const Result<LayeredGrid> built = build_grid(config, seed);
      ASSERT_TRUE(built.ok()) << built.error().to_string();
      LayeredGrid g = *built;
      const PlanarGrid before = g.plane;
      const FakeColumns f = fake_columns(g, 0.5 * config.radius * config.cell_m);
      deform_grid(g, f.tiles, f.solved, 8);
      EXPECT_TRUE(cells_convex(g.plane));
      double moved = 0.0;
      for (std::size_t v = 0; v < g.plane.vertices.size(); ++v)
        moved = std::max(moved, distance(g.plane.vertices[v], before.vertices[v]));
      EXPECT_GT(moved, 1e-3);
      for (const std::uint32_t v : g.plane.boundary)
        EXPECT_LT(distance_to_outline(before, g.plane.vertices[v]), 1e-9) << "vertex " << v;
      // Water cells grow relative to land cells.
      double land_ratio = 0.0;
      double water_ratio = 0.0;
      std::size_t lands = 0;
      for (std::size_t c = 0; c < g.plane.cells.size(); ++c) {
        const double a = cell_area(g.plane, g.plane.cells[c]);
        EXPECT_GT(a, 0.0);
        const double r = a / cell_area(before, before.cells[c]);
        (f.land[c] ? land_ratio : water_ratio) += r;
        lands += f.land[c];
      }
      ASSERT_GT(lands, 0U);
      land_ratio /= lands;
      water_ratio /= (g.plane.cells.size() - lands);
      EXPECT_GT(water_ratio, land_ratio);
      // Deterministic.
      LayeredGrid again = *built;
      deform_grid(again, f.tiles, f.solved, 8);
      ASSERT_EQ(again.plane.vertices.size(), g.plane.vertices.size());
      EXPECT_EQ(std::memcmp(again.plane.vertices.data(), g.plane.vertices.data(),
                            g.plane.vertices.size() * sizeof(Vec2)),
                0);
    }
  }
}

TEST(IslandsDeform, StaysConvexUnderLongScatteredDeformation) {
  // Every other cell land, no relaxation first: cells start far from their targets.
  for (const GridKind kind : {GridKind::mixed, GridKind::square, GridKind::triangle}) {
    GridConfig config;
    config.kind = kind;
    config.radius = 4;
    config.layers = 2;
    config.relax_iterations = 0;
    const Result<LayeredGrid> built = build_grid(config, 3);
    ASSERT_TRUE(built.ok()) << built.error().to_string();
    LayeredGrid g = *built;
    FakeColumns f = fake_columns(g, 0.0);
    for (std::uint32_t c = 0; c < g.plane.cells.size(); c += 2) {
      f.solved[g.cell_id(c, 0)] = 2;
      f.solved[g.cell_id(c, 1)] = 3;
    }
    deform_grid(g, f.tiles, f.solved, 200);
    EXPECT_TRUE(cells_convex(g.plane)) << "kind " << int(kind);
  }
}

// ---- Colours ------------------------------------------------------------------------------

double luminance(const std::array<float, 3>& c) {
  return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
}

TEST(IslandsColour, OneColourPerCornerWithDarkerLines) {
  Terrace t = terrace();
  colour_island(t.mesh, 42);
  ASSERT_EQ(t.mesh.corner_colour.size(), t.mesh.triangles.size());
  std::size_t compared = 0;
  for (std::size_t tri = 0; tri < t.mesh.triangles.size(); ++tri) {
    const auto& cc = t.mesh.corner_colour[tri];
    for (const auto& c : cc)
      for (const float x : c) {
        EXPECT_GE(x, 0.0f);
        EXPECT_LE(x, 1.0f);
      }
    // Within a triangle (one material, one tile): line corners darker than plain ones, material
    // lines darker than tile lines.
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) {
        const std::uint8_t la = t.mesh.line[t.mesh.triangles[tri][a]];
        const std::uint8_t lb = t.mesh.line[t.mesh.triangles[tri][b]];
        if (la <= lb) continue;
        EXPECT_LT(luminance(cc[a]), luminance(cc[b])) << "triangle " << tri;
        ++compared;
      }
  }
  EXPECT_GT(compared, 20U);
  // Game tiles of one material differ; the same seed repeats, another seed differs.
  const auto grass_of = [](const IslandMesh& m, std::uint32_t cell) {
    for (std::size_t tri = 0; tri < m.triangles.size(); ++tri)
      if (m.cell[tri] == cell && m.material[tri] == Material::grass)
        for (int k = 0; k < 3; ++k)
          if (m.line[m.triangles[tri][k]] == 0) return m.corner_colour[tri][k];
    return std::array<float, 3>{};
  };
  EXPECT_NE(grass_of(t.mesh, 0), grass_of(t.mesh, 1));
  Terrace same = terrace();
  colour_island(same.mesh, 42);
  EXPECT_EQ(same.mesh.corner_colour, t.mesh.corner_colour);
  Terrace other = terrace();
  colour_island(other.mesh, 43);
  EXPECT_NE(other.mesh.corner_colour, t.mesh.corner_colour);
}

}  // namespace
}  // namespace cityforge::islands
