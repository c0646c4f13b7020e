// SPDX-License-Identifier: Apache-2.0
// Ground patches of imported places in city.glb: draped (or flat water), one material per kind,
// valid for the Khronos validator; no patches leave the file as it was.
#define TINYGLTF_NO_STB_IMAGE
#define TINYGLTF_NO_STB_IMAGE_WRITE
#define TINYGLTF_NO_EXTERNAL_IMAGE
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <tiny_gltf.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <set>

#include "cityforge/export/export.hpp"
#include "cityforge/gltf/tinygltf_model.hpp"
#include "export/city_meshes.hpp"
#include "export/fixture.hpp"
#include "export/validator.hpp"

namespace cityforge::exporter {
namespace {

namespace fs = std::filesystem;
using dressing::GroundKind;
using dressing::GroundPatch;

Polygon rect(double x0, double y0, double x1, double y1) {
  return Polygon{{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}}, {}};
}

std::vector<GroundPatch> patches() {
  std::vector<GroundPatch> out;
  out.push_back({GroundKind::grass, false, rect(215, 175, 285, 285), 0.0});
  out.push_back({GroundKind::forest, false, rect(120, 20, 180, 130), 0.0});  // 2 chunks
  Polygon pond = rect(20, 70, 80, 120);
  pond.holes.push_back({{40, 90}, {40, 100}, {50, 100}, {50, 90}});
  out.push_back({GroundKind::water, false, pond, 6.25});
  out.push_back({GroundKind::grass, true, rect(220, 160, 280, 163), 0.0});  // A path.
  return out;
}

/// The set dressing's ground of an imported place: its patches, drawn on the block surfaces of
/// the default road settings (roads.block_raise_m, which dressing reads from
/// roads::Output::block_raise_m).
dressing::Output with_patches() {
  dressing::Output out;
  out.ground = patches();
  EXPECT_TRUE(dressing::check_ground_patches(out.ground).ok());
  out.ground_raise_m = roads::Config{}.block_raise_m;
  return out;
}

fixture::Extras dressed(const dressing::Output& d) {
  fixture::Extras e;
  e.dressing = &d;
  return e;
}

tinygltf::Model load(const std::vector<std::uint8_t>& glb) {
  tinygltf::TinyGLTF loader;
  gltf::skip_image_decoding(loader);
  tinygltf::Model model;
  std::string err;
  std::string warn;
  EXPECT_TRUE(loader.LoadBinaryFromMemory(&model, &err, &warn, glb.data(),
                                          static_cast<unsigned int>(glb.size())))
      << err;
  return model;
}

TEST(GroundPatches, DrapeOnTheGroundAndWaterLiesFlat) {
  const auto city = fixture::small_city();
  const auto ground = fixture::small_ground();
  const Config config{};
  const dressing::Output d = with_patches();
  auto built = fixture::chunks_of(city, ground, config, dressed(d));
  ASSERT_TRUE(built.ok()) << built.error().to_string();
  std::size_t grass = 0;
  std::size_t water = 0;
  std::size_t path = 0;
  std::set<std::pair<int, int>> forest_chunks;
  double forest_area = 0.0;
  for (const detail::ChunkMeshes& c : *built) {
    const auto part = [&](detail::Part p) -> const Mesh& {
      return c.parts[static_cast<std::size_t>(p)];
    };
    for (const auto& v : part(detail::Part::ground_grass).positions) {
      ++grass;
      EXPECT_NEAR(v[2], ground.sample({v[0], v[1]}) + roads::Config{}.block_raise_m + 0.03, 1e-3);
    }
    for (const auto& v : part(detail::Part::path).positions) {
      ++path;
      EXPECT_NEAR(v[2], ground.sample({v[0], v[1]}) + roads::Config{}.block_raise_m + 0.06, 1e-3);
    }
    for (const auto& v : part(detail::Part::ground_water).positions) {
      ++water;
      EXPECT_NEAR(v[2], 6.25 + roads::Config{}.block_raise_m + 0.02, 1e-4);
      EXPECT_FALSE(v[0] > 40.01 && v[0] < 49.99 && v[1] > 90.01 && v[1] < 99.99);  // The hole.
    }
    const Mesh& f = part(detail::Part::ground_forest);
    if (!f.empty()) forest_chunks.insert({c.cx, c.cy});
    for (std::size_t t = 0; t + 2 < f.indices.size(); t += 3) {
      const auto& a = f.positions[f.indices[t]];
      const auto& b = f.positions[f.indices[t + 1]];
      const auto& e = f.positions[f.indices[t + 2]];
      const double cz = (b[0] - a[0]) * (e[1] - a[1]) - (b[1] - a[1]) * (e[0] - a[0]);
      EXPECT_GT(cz, 0.0);  // Facing up.
      forest_area += 0.5 * cz;
      // Bisected down to two terrain cells so it follows the ground.
      EXPECT_LE(std::hypot(b[0] - a[0], b[1] - a[1]), 2.0 * ground.cell_m + 1e-3);
    }
  }
  EXPECT_GT(grass, 0U);
  EXPECT_GT(water, 0U);
  EXPECT_GT(path, 0U);
  EXPECT_EQ(forest_chunks.size(), 2U);
  EXPECT_NEAR(forest_area, 60.0 * 110.0, 1.0);
}

TEST(GroundPatches, OneMaterialPerKindWaterSlightlyMetallic) {
  const dressing::Output d = with_patches();
  auto glb =
      fixture::city_glb_of(fixture::small_city(), fixture::small_ground(), Config{}, dressed(d));
  ASSERT_TRUE(glb.ok()) << glb.error().to_string();
  const tinygltf::Model m = load(*glb);
  std::set<std::string> names;
  for (const tinygltf::Material& mat : m.materials) {
    names.insert(mat.name);
    if (mat.name == "ground_water") {
      EXPECT_GT(mat.pbrMetallicRoughness.metallicFactor, 0.0);
      EXPECT_LT(mat.pbrMetallicRoughness.roughnessFactor, 0.5);
    }
  }
  for (const char* want : {"ground_grass", "ground_forest", "ground_water", "path"})
    EXPECT_EQ(names.count(want), 1U) << want;
  EXPECT_EQ(names.count("ground_sand"), 0U);  // Unused kinds get no material.
}

TEST(GroundPatches, NoPatchesLeaveTheFileAsItWas) {
  const dressing::Output empty;
  auto a = fixture::city_glb_of(fixture::small_city(), fixture::small_ground(), Config{});
  auto b = fixture::city_glb_of(fixture::small_city(), fixture::small_ground(), Config{},
                                dressed(empty));
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*a, *b);
  const dressing::Output d = with_patches();
  auto c =
      fixture::city_glb_of(fixture::small_city(), fixture::small_ground(), Config{}, dressed(d));
  auto c2 =
      fixture::city_glb_of(fixture::small_city(), fixture::small_ground(), Config{}, dressed(d));
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE(c2.ok());
  EXPECT_NE(*a, *c);
  EXPECT_EQ(*c, *c2);
}

TEST(GroundPatches, NonFiniteInputIsRejected) {
  std::vector<GroundPatch> bad = patches();
  bad[1].area.outer[2].x = std::numeric_limits<double>::quiet_NaN();
  auto meshes = dressing::ground_patch_meshes(bad, fixture::small_ground(), 0.15);
  ASSERT_FALSE(meshes.ok());
  EXPECT_NE(meshes.error().to_string().find("dressing.ground[1]"), std::string::npos)
      << meshes.error().to_string();
  bad = patches();
  bad[2].z_m = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(dressing::ground_patch_meshes(bad, fixture::small_ground(), 0.15).ok());
  EXPECT_FALSE(dressing::check_ground_patches(bad).ok());
}

TEST(GroundPatches, KhronosValidatorReportsNoErrors) {
  if (!testing::validator_installed()) {
    GTEST_SKIP() << "the glTF validator is not installed: run `make validator`";
  }
  const dressing::Output d = with_patches();
  auto glb =
      fixture::city_glb_of(fixture::small_city(), fixture::small_ground(), Config{}, dressed(d));
  ASSERT_TRUE(glb.ok()) << glb.error().to_string();
  EXPECT_TRUE(testing::validates(*glb, "ground"));
}

}  // namespace
}  // namespace cityforge::exporter
