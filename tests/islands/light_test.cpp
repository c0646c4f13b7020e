// SPDX-License-Identifier: Apache-2.0
// Baked sky light (sky_light): a box on open ground darkens the ground at its foot, not the
// ground far off or the box's top, and the colours follow it; the light volume (light_volume)
// and its image.
#include <gtest/gtest.h>
#include <png.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <utility>
#include <vector>

#include "cityforge/islands/io.hpp"
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

// The light volume over the same box: at a walker's height beside its wall the +z light and
// the side facing the wall are darker than in the open, the side facing away is not; the -z
// value is the bounce; distances follow the ground and the box.
TEST(IslandLightVolume, TheFootOfAWallIsDarkerAndDistancesFollowTheSurface) {
  const IslandMesh m = box_on_ground(2.0);
  const LightVolume vol = light_volume(m);
  ASSERT_GT(vol.voxels(), 0U);
  ASSERT_EQ(vol.cube.size(), vol.voxels());
  ASSERT_EQ(vol.distance.size(), vol.voxels());
  EXPECT_LE(vol.origin.x, -6.0);
  EXPECT_GE(vol.origin.x + (vol.nx - 1) * vol.step_xy, 6.0);
  EXPECT_GE(vol.origin.z + (vol.nz - 1) * vol.step_z, 2.0 + vol.step_z);
  const Vec3 near{1.25, 0.0, 0.5}, far{5.0, 0.0, 0.5};
  const std::array<float, 6> n = vol.cube_at(near);
  const std::array<float, 6> f = vol.cube_at(far);
  std::printf("near the wall +x %.3f -x %.3f +z %.3f -z %.3f; open +x %.3f -x %.3f +z %.3f\n", n[0],
              n[1], n[4], n[5], f[0], f[1], f[4]);
  EXPECT_GT(f[4], 0.97f) << "open ground sees the whole sky";
  EXPECT_NEAR(f[0], 0.5 + 0.5 * kGroundAlbedo * f[4], 0.03) << "a side in the open: half";
  EXPECT_LT(n[4], f[4] - 0.1f) << "the box takes sky from above the foot of its wall";
  EXPECT_LT(n[1], 0.5f * n[0]) << "facing the wall (-x) is much darker than facing away";
  EXPECT_GT(n[0], f[0] - 0.05f) << "facing away from the wall it is nearly open";
  EXPECT_NEAR(n[5], kGroundAlbedo * n[4], 1e-5) << "down: the bounce off the ground";
  for (const auto& c : vol.cube) {
    for (const float v : c) {
      EXPECT_GE(v, 0.0f);
      EXPECT_LE(v, 1.0f);
    }
  }
  // Evaluated for a normal: the axis values themselves along the axes.
  EXPECT_NEAR(vol.light_at(near, {0, 0, 1}), n[4], 1e-6);
  EXPECT_NEAR(vol.light_at(near, {-1, 0, 0}), n[1], 1e-6);
  // Distances: the voxel centre nearest each probe, voxel precision (half a voxel).
  const auto distance = [&](double x, double y, double z) {
    const auto i = [](double v, double o, double s) {
      return static_cast<std::uint32_t>(std::lround((v - o) / s));
    };
    return vol.distance[vol.index(i(x, vol.origin.x, vol.step_xy), i(y, vol.origin.y, vol.step_xy),
                                  i(z, vol.origin.z, vol.step_z))];
  };
  const double half = 0.5 * vol.step_z;
  EXPECT_NEAR(distance(4.0, 4.0, 1.5), 1.5, half) << "over open ground";
  EXPECT_NEAR(distance(0.0, 0.0, 3.0), 1.0, half) << "over the box's top";
  EXPECT_NEAR(distance(2.0, 0.0, 1.0), 1.0, half) << "beside the box's wall";
  EXPECT_LT(distance(0.0, 0.0, 1.0), 0.0f) << "inside the box";
  EXPECT_LT(distance(4.0, 4.0, -0.5), 0.0f) << "under the ground";
}

// On a generated island the volume agrees with the vertices' baked sky: just above the open
// walkable floor it is bright, above the shaded floor darker.
TEST(IslandLightVolume, AgreesWithTheVerticesSkyOnAnIsland) {
  Result<TileSet> tiles = build_tile_set();
  ASSERT_TRUE(tiles.ok()) << tiles.error().to_string();
  Result<Island> island = generate_island(IslandConfig{}, 6, *tiles);
  ASSERT_TRUE(island.ok()) << island.error().to_string();
  const IslandMesh& m = island->mesh;
  const LightVolume& vol = island->light;
  ASSERT_GT(vol.voxels(), 0U);
  double open_sum = 0, shaded_sum = 0;
  int open_n = 0, shaded_n = 0;
  for (std::size_t t = 0; t < m.triangles.size(); ++t) {
    if (m.walkable[t] != 1) continue;
    for (const std::uint32_t v : m.triangles[t]) {
      const Vec3 p = m.positions[v];
      const float up = vol.cube_at({p.x, p.y, p.z + 0.3})[4];
      if (m.sky[v] > 0.95f) {
        open_sum += up;
        ++open_n;
      } else if (m.sky[v] < 0.7f) {
        shaded_sum += up;
        ++shaded_n;
      }
    }
  }
  ASSERT_GT(open_n, 0);
  ASSERT_GT(shaded_n, 0);
  std::printf(
      "volume %u x %u x %u; +z 0.3 m over floors: %.3f where vertices see > 0.95 of the "
      "sky (%d), %.3f where < 0.7 (%d)\n",
      vol.nx, vol.ny, vol.nz, open_sum / open_n, open_n, shaded_sum / shaded_n, shaded_n);
  EXPECT_GT(open_sum / open_n, 0.85);
  EXPECT_LT(shaded_sum / shaded_n, open_sum / open_n - 0.1);
  // Same island, same volume (bit for bit), and it covers the mesh.
  Result<Island> again = generate_island(IslandConfig{}, 6, *tiles);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->light.cube, vol.cube);
  EXPECT_EQ(again->light.distance, vol.distance);
  for (const Vec3& p : m.positions) {
    EXPECT_GE(p.x, vol.origin.x);
    EXPECT_LE(p.x, vol.origin.x + (vol.nx - 1) * vol.step_xy);
    EXPECT_GE(p.z, vol.origin.z);
    EXPECT_LE(p.z, vol.origin.z + (vol.nz - 1) * vol.step_z);
  }
}

// island_light.png holds the volume as island_light_png documents it: decoded, every voxel's
// six values and its distance come back within one step of 8 bits.
TEST(IslandLightVolume, TheImageHoldsEveryVoxel) {
  const IslandMesh m = box_on_ground(2.0);
  const LightVolume vol = light_volume(m);
  Result<std::vector<std::uint8_t>> png = island_light_png(vol);
  ASSERT_TRUE(png.ok()) << png.error().to_string();
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  ASSERT_NE(png_image_begin_read_from_memory(&image, png->data(), png->size()), 0);
  image.format = PNG_FORMAT_RGBA;
  ASSERT_EQ(image.width, vol.nx * vol.nz);
  ASSERT_EQ(image.height, 2 * vol.ny);
  std::vector<std::uint8_t> px(PNG_IMAGE_SIZE(image));
  ASSERT_NE(png_image_finish_read(&image, nullptr, px.data(), 0, nullptr), 0);
  const std::size_t row = std::size_t{image.width} * 4;
  const double tol = 0.5 / 255.0 + 1e-6;
  for (std::uint32_t iz = 0; iz < vol.nz; ++iz) {
    for (std::uint32_t iy = 0; iy < vol.ny; ++iy) {
      for (std::uint32_t ix = 0; ix < vol.nx; ++ix) {
        const std::size_t i = vol.index(ix, iy, iz);
        const std::uint8_t* top = px.data() + iy * row + (std::size_t{iz} * vol.nx + ix) * 4;
        const std::uint8_t* bottom = top + row * vol.ny;
        const auto& c = vol.cube[i];
        ASSERT_NEAR(top[0] / 255.0, c[0], tol) << i;
        ASSERT_NEAR(top[1] / 255.0, c[2], tol) << i;
        ASSERT_NEAR(top[2] / 255.0, c[4], tol) << i;
        ASSERT_EQ(top[3], 255) << i;
        ASSERT_NEAR(bottom[0] / 255.0, c[1], tol) << i;
        ASSERT_NEAR(bottom[1] / 255.0, c[3], tol) << i;
        ASSERT_NEAR(bottom[2] / 255.0, c[5], tol) << i;
        ASSERT_NEAR((bottom[3] - 128) / 32.0, std::clamp(vol.distance[i], -4.0f, 127.0f / 32.0f),
                    0.5 / 32.0 + 1e-6)
            << i;
      }
    }
  }
  EXPECT_FALSE(island_light_png(LightVolume{}).ok()) << "an empty volume is refused";
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
