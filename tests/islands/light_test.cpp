// SPDX-License-Identifier: Apache-2.0
// Baked sky light (sky_light): a box on open ground darkens the ground at its foot, not the
// ground far off or the box's top, and the colours follow it.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <utility>
#include <vector>

#include "cityforge/islands/island.hpp"

namespace cityforge::islands {
namespace {

// Open ground 12 m square at z 0, a box 2 m wide and `height` tall on its middle, and three
// probe vertices that no triangle uses (they count as facing up): beside the box's +x wall
// (0.3 m off it), 4 m off it, and on its top.
IslandMesh box_on_ground(double height) {
  IslandMesh m;
  m.positions = {{-6, -6, 0}, {6, -6, 0}, {6, 6, 0}, {-6, 6, 0}};
  m.triangles = {{0, 1, 2}, {0, 2, 3}};
  const auto base = static_cast<std::uint32_t>(m.positions.size());
  for (const double z : {0.0, height}) {
    m.positions.push_back({-1, -1, z});
    m.positions.push_back({1, -1, z});
    m.positions.push_back({1, 1, z});
    m.positions.push_back({-1, 1, z});
  }
  const auto b = [&](std::uint32_t i) { return base + i; };
  m.triangles.push_back({b(4), b(5), b(6)});  // Top.
  m.triangles.push_back({b(4), b(6), b(7)});
  for (std::uint32_t k = 0; k < 4; ++k) {  // Walls, facing out.
    const std::uint32_t k1 = (k + 1) % 4;
    m.triangles.push_back({b(k), b(k1), b(k1 + 4)});
    m.triangles.push_back({b(k), b(k1 + 4), b(k + 4)});
  }
  m.positions.push_back({1.3, 0, 0});     // Near.
  m.positions.push_back({5.0, 0, 0});     // Far.
  m.positions.push_back({0, 0, height});  // Top.
  return m;
}

TEST(IslandLight, TheFootOfAWallSeesLessSkyThanOpenGroundOrTheTop) {
  const IslandMesh m = box_on_ground(2.0);
  const std::vector<float> sky = sky_light(m);
  ASSERT_EQ(sky.size(), m.positions.size());
  const std::size_t near = m.positions.size() - 3, far = near + 1, top = near + 2;
  // Beside the wall: of the 8 directions, the ones towards the box see it rise 2 m at 0.3 m.
  EXPECT_LT(sky[near], 0.8f);
  EXPECT_GT(sky[far], 0.99f);
  EXPECT_FLOAT_EQ(sky[top], 1.0f);
  for (const float s : sky) {
    EXPECT_GE(s, 0.0f);
    EXPECT_LE(s, 1.0f);
  }
  // A taller box shades its foot more; a 10 cm step (a floor's own lift) not at all.
  EXPECT_LT(sky_light(box_on_ground(4.0))[near], sky[near]);
  EXPECT_FLOAT_EQ(sky_light(box_on_ground(0.1))[near], 1.0f);
}

TEST(IslandLight, ColoursAreDarkerWhereLessSkyIsSeen) {
  IslandMesh m = box_on_ground(2.0);
  m.material.assign(m.triangles.size(), Material::grass);
  m.cell.assign(m.triangles.size(), 0);
  colour_island(m, 1);
  const auto lit = m.corner_colour;
  m.sky.assign(m.positions.size(), 1.0f);
  m.sky[0] = 0.5f;  // Corner 0 of the ground, in triangles 0 and 1.
  colour_island(m, 1);
  EXPECT_EQ(m.corner_colour[0][1], lit[0][1]) << "a vertex with all the sky is unchanged";
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(m.corner_colour[0][0][c], lit[0][0][c] * (1.0f - 0.5f * (1.0f - 0.45f)), 1e-6f);
  }
}

TEST(IslandLight, AnIslandIsOpenOnItsPlateausAndShadedAtTheFootOfItsCliffs) {
  Result<TileSet> tiles = build_tile_set();
  ASSERT_TRUE(tiles.ok()) << tiles.error().to_string();
  Result<Island> island = generate_island(IslandConfig{}, 6, *tiles);
  ASSERT_TRUE(island.ok()) << island.error().to_string();
  const IslandMesh& m = island->mesh;
  ASSERT_EQ(m.sky.size(), m.positions.size());
  // By area of the walkable floors (the mesh is finer near cliffs and houses, so counting
  // vertices would over-weigh them), with each triangle's mean sky.
  double total = 0.0, open = 0.0, shaded = 0.0;
  for (std::size_t t = 0; t < m.triangles.size(); ++t) {
    if (m.walkable[t] != 1) continue;
    const auto& tri = m.triangles[t];
    const Vec3 a = m.positions[tri[1]] - m.positions[tri[0]];
    const Vec3 b = m.positions[tri[2]] - m.positions[tri[0]];
    const double area = 0.5 * std::abs(a.x * b.y - a.y * b.x);
    const double sky = (m.sky[tri[0]] + m.sky[tri[1]] + m.sky[tri[2]]) / 3.0;
    total += area;
    open += sky > 0.9 ? area : 0.0;
    shaded += sky < 0.7 ? area : 0.0;
  }
  std::printf("walkable floor %.0f m2: %.0f %% open (sky > 0.9), %.1f %% shaded (< 0.7)\n", total,
              100.0 * open / total, 100.0 * shaded / total);
  EXPECT_GT(open, 0.5 * total) << "most of the walkable land is open to the sky";
  EXPECT_GT(shaded, 0.02 * total) << "floors at the foot of cliffs and houses are shaded";
}

// Big blotches: a tile's shade is smeared across its borders in square patches, so on flat
// floors (no lift: no height tint) the corners of one grass tile no longer share one colour.
TEST(IslandColour, BlotchesBreakUpTheTilesShades) {
  Result<TileSet> tiles = build_tile_set();
  ASSERT_TRUE(tiles.ok());
  IslandConfig config;
  config.rise_m = 0.0;
  Result<Island> island = generate_island(config, 6, *tiles);
  ASSERT_TRUE(island.ok()) << island.error().to_string();
  const IslandMesh& m = island->mesh;
  // Per 3D cell: the brightest and darkest of its grass corners off the lines and open to the
  // sky (brightness: the sum of the channels). A tile's own shade is one; the floors' last
  // centimetres of smoothing tint it by well under 1 %.
  std::map<std::uint32_t, std::pair<float, float>> shades;
  for (std::size_t t = 0; t < m.triangles.size(); ++t) {
    if (m.material[t] != Material::grass || m.walkable[t] != 1) continue;
    for (int k = 0; k < 3; ++k) {
      const std::uint32_t v = m.triangles[t][k];
      if (m.line[v] != 0 || m.sky[v] < 1.0f) continue;
      const auto& c = m.corner_colour[t][k];
      const float b = c[0] + c[1] + c[2];
      auto [it, fresh] = shades.try_emplace(m.cell[t], b, b);
      it->second = {std::min(it->second.first, b), std::max(it->second.second, b)};
    }
  }
  std::size_t mixed = 0;
  for (const auto& [cell, range] : shades)
    mixed += range.second > 1.02f * range.first ? 1 : 0;
  std::printf("grass tiles %zu, %zu with shades 2 %% or more apart\n", shades.size(), mixed);
  EXPECT_GT(mixed * 3, shades.size()) << "a third of the grass tiles or more are blotched";
  EXPECT_LT(mixed, shades.size()) << "not every tile: the stamps are patches, not noise";
}

}  // namespace
}  // namespace cityforge::islands
