// SPDX-License-Identifier: Apache-2.0
// The island's files on a hand-made island (two cells, a few coloured triangles): island.glb
// read back (y up, vertices split per colour and normal, smoothing within a crease angle, the
// sea, extras) and validated by the Khronos validator, the JSON files, determinism, and
// write_island writing all files or none.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <numbers>
#include <string>

#include "app/cli_run.hpp"
#include "cityforge/gltf/tinygltf_model.hpp"
#include "cityforge/islands/io.hpp"

namespace cityforge::islands {
namespace {

namespace fs = std::filesystem;

constexpr wfc::TileId kWater = 0;
constexpr wfc::TileId kGround = 1;
constexpr wfc::TileId kAir = 2;

TileSet tiny_tiles() {
  TileSet set;
  TileInfo water;
  water.name = "water#r0";
  water.kind = TileKind::water;
  water.ground_level = true;
  TileInfo ground;
  ground.name = "ground_1111#r0";
  ground.kind = TileKind::ground;
  ground.ground_level = true;
  ground.corners = {1, 1, 1, 1};
  ground.navigable = true;
  TileInfo air;
  air.name = "air#r0";
  air.kind = TileKind::air;
  set.info = {water, ground, air};
  return set;
}

/// Two quad cells side by side (x 0..4, y 0..2), two layers; cell 0 of layer 0 is ground.
/// Mesh: the flat top of cell 0 (two triangles, one colour), a rock face folded 20 degrees down
/// from it along x = 2 (smoothed only with rock), and a grass triangle folded 60 degrees.
Island tiny_island() {
  Island isl;
  isl.grid.layers = 2;
  isl.grid.layer_m = 1.0;
  isl.grid.plane.vertices = {{0, 0}, {2, 0}, {4, 0}, {0, 2}, {2, 2}, {4, 2}};
  Cell a;
  a.count = 4;
  a.vertices = {0, 1, 4, 3};
  Cell b;
  b.count = 4;
  b.vertices = {1, 2, 5, 4};
  isl.grid.plane.cells = {a, b};
  isl.tiles = {kGround, kWater, kAir, kAir};
  IslandMesh& m = isl.mesh;
  const double drop20 = 2.0 * std::tan(20.0 * std::numbers::pi / 180.0);
  m.positions = {{0, 0, 0},
                 {2, 0, 0},
                 {2, 2, 0},
                 {0, 2, 0},
                 {4, 0, -drop20},
                 {4, 2, -drop20},
                 {0, -1, -std::sqrt(3.0)}};
  m.triangles = {{0, 1, 2}, {0, 2, 3}, {1, 4, 5}, {1, 5, 2}, {0, 6, 1}};
  m.material = {Material::grass, Material::grass, Material::rock, Material::rock, Material::grass};
  m.cell = {0, 0, 0, 0, 0};
  m.walkable = {1, 1, 0, 0, 0};
  const std::array<float, 3> green{0.2f, 0.5f, 0.1f};
  const std::array<float, 3> grey{0.4f, 0.4f, 0.4f};
  m.corner_colour = {{green, green, green},
                     {green, green, green},
                     {grey, grey, grey},
                     {grey, grey, grey},
                     {green, green, green}};
  isl.nav.nodes = {{0, 0, {1, 1, 0}, false}, {1, 0, {3, 1, -0.3}, true}};
  isl.nav.edges = {{0, 1, true}};
  isl.stats.cells = 4;
  isl.stats.navigable = 1;
  isl.stats.times.solve_ms = 1.5;
  isl.light = light_volume(isl.mesh);
  return isl;
}

IslandRunInfo run_info(Seed seed = 7) {
  IslandRunInfo run;
  run.seed = seed;
  run.config.grid.radius = 3;
  return run;
}

tinygltf::Model read_glb(const std::vector<std::uint8_t>& bytes) {
  tinygltf::Model model;
  tinygltf::TinyGLTF loader;
  gltf::skip_image_decoding(loader);  // The light volume's PNG stays bytes.
  std::string err, warn;
  EXPECT_TRUE(loader.LoadBinaryFromMemory(&model, &err, &warn, bytes.data(),
                                          static_cast<unsigned>(bytes.size())))
      << err;
  return model;
}

std::vector<std::array<float, 3>> vec3s(const tinygltf::Model& m, int accessor) {
  const tinygltf::Accessor& a = m.accessors[static_cast<std::size_t>(accessor)];
  const tinygltf::BufferView& v = m.bufferViews[static_cast<std::size_t>(a.bufferView)];
  std::vector<std::array<float, 3>> out(a.count);
  std::memcpy(out.data(), m.buffers[0].data.data() + v.byteOffset + a.byteOffset, a.count * 12);
  return out;
}

TEST(IslandGlb, LandAndSeaReadBack) {
  const Island isl = tiny_island();
  Result<std::vector<std::uint8_t>> glb = island_glb(isl, run_info());
  ASSERT_TRUE(glb.ok()) << glb.error().to_string();
  const tinygltf::Model m = read_glb(*glb);
  ASSERT_EQ(m.nodes.size(), 3U);
  EXPECT_EQ(m.nodes[0].name, "island");
  EXPECT_EQ(m.nodes[1].name, "land");
  EXPECT_EQ(m.nodes[2].name, "sea");
  ASSERT_EQ(m.meshes.size(), 2U);
  const tinygltf::Primitive& land = m.meshes[0].primitives.at(0);
  ASSERT_TRUE(land.attributes.count("COLOR_0"));
  const auto pos = vec3s(m, land.attributes.at("POSITION"));
  const auto nrm = vec3s(m, land.attributes.at("NORMAL"));
  const auto col = vec3s(m, land.attributes.at("COLOR_0"));
  // The flat top shares 4 vertices; the rock face 4 (other colour and normal); the steep grass
  // triangle turns 60 degrees, so its 3 corners get their own normal.
  EXPECT_EQ(pos.size(), 11U);
  EXPECT_EQ(m.accessors[static_cast<std::size_t>(land.indices)].count, 15U);
  // y up: engine (2, 2, 0) is glTF (2, 0, -2), and the top's normal points up.
  bool found = false;
  for (std::size_t i = 0; i < pos.size(); ++i) {
    if (pos[i] == std::array<float, 3>{2.0f, 0.0f, -2.0f} && col[i][1] == 0.5f) {
      found = true;
      // Smoothed with the flat top only (rock is another material): straight up.
      EXPECT_FLOAT_EQ(nrm[i][1], 1.0f);
    }
    EXPECT_NEAR(std::hypot(nrm[i][0], nrm[i][1], nrm[i][2]), 1.0, 1e-6);
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(m.materials.at(0).name, "island");
  EXPECT_EQ(m.materials.at(0).pbrMetallicRoughness.baseColorFactor[0], 1.0);
  // The sea: a hexagon 1.7 x the island's radius (farthest vertex: (4, 2)) at -0.15 layers.
  const tinygltf::Primitive& sea = m.meshes[1].primitives.at(0);
  EXPECT_EQ(sea.attributes.count("COLOR_0"), 0U);
  const auto sea_pos = vec3s(m, sea.attributes.at("POSITION"));
  ASSERT_EQ(sea_pos.size(), 7U);
  EXPECT_NEAR(sea_pos[1][0], 1.7 * std::hypot(4.0, 2.0), 1e-5);
  for (const auto& p : sea_pos)
    EXPECT_FLOAT_EQ(p[1], -0.15f);
  EXPECT_EQ(m.materials.at(1).alphaMode, "BLEND");
  EXPECT_NEAR(m.materials.at(1).pbrMetallicRoughness.baseColorFactor[3], 0.85, 1e-9);
  const tinygltf::Value& extras = m.asset.extras;
  EXPECT_EQ(extras.Get("seed").Get<std::string>(), "7");
  EXPECT_EQ(extras.Get("grid").Get<std::string>(), "mixed");
  EXPECT_EQ(extras.Get("size").Get<int>(), 3);
  // The light volume: image 0, island_light.png's bytes, placed by the extras.
  ASSERT_EQ(m.images.size(), 1U);
  EXPECT_EQ(m.images[0].name, "light_volume");
  EXPECT_EQ(m.images[0].mimeType, "image/png");
  EXPECT_EQ(extras.Get("light_volume").Get<std::string>(), "island_light.png");
  EXPECT_EQ(extras.Get("light_volume_image").Get<int>(), 0);
  Result<std::vector<std::uint8_t>> png = island_light_png(isl.light);
  ASSERT_TRUE(png.ok());
  const tinygltf::BufferView& view =
      m.bufferViews.at(static_cast<std::size_t>(m.images[0].bufferView));
  EXPECT_TRUE(std::equal(
      png->begin(), png->end(),
      m.buffers[0].data.begin() + static_cast<std::ptrdiff_t>(view.byteOffset),
      m.buffers[0].data.begin() + static_cast<std::ptrdiff_t>(view.byteOffset + view.byteLength)));
  const tinygltf::Value& size = extras.Get("light_volume_size");
  ASSERT_TRUE(size.IsArray());
  EXPECT_EQ(size.Get(2).GetNumberAsDouble(), static_cast<double>(isl.light.nz));
  const tinygltf::Value& origin = extras.Get("light_volume_origin");
  EXPECT_EQ(origin.Get(0).GetNumberAsDouble(), isl.light.origin.x);
  EXPECT_EQ(land.attributes.count("_CONTRAST"), 0U) << "no contrast map, no attribute";
}

// The contrast map goes into the land's _CONTRAST attribute: 8-bit RGB, normalised, per vertex,
// and corners of one position with other contrast colours are vertices of their own.
TEST(IslandGlb, ContrastMapIsAVertexAttribute) {
  Island isl = tiny_island();
  isl.mesh.contrast = {{0.0f, 0.0f, 0.0f},
                       {0.0f, 0.0f, 0.0f},
                       {1.0f, 0.5f, 0.25f},
                       {1.0f, 0.5f, 0.25f},
                       {0.2f, 0.4f, 0.6f}};
  Result<std::vector<std::uint8_t>> glb = island_glb(isl, run_info());
  ASSERT_TRUE(glb.ok()) << glb.error().to_string();
  const tinygltf::Model m = read_glb(*glb);
  const tinygltf::Primitive& land = m.meshes[0].primitives.at(0);
  ASSERT_EQ(land.attributes.count("_CONTRAST"), 1U);
  const tinygltf::Accessor& a =
      m.accessors.at(static_cast<std::size_t>(land.attributes.at("_CONTRAST")));
  EXPECT_EQ(a.componentType, TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE);
  EXPECT_EQ(a.type, TINYGLTF_TYPE_VEC4);
  EXPECT_TRUE(a.normalized);
  const auto pos = vec3s(m, land.attributes.at("POSITION"));
  ASSERT_EQ(a.count, pos.size());
  const tinygltf::BufferView& v = m.bufferViews.at(static_cast<std::size_t>(a.bufferView));
  const std::uint8_t* c = m.buffers[0].data.data() + v.byteOffset + a.byteOffset;
  bool orange = false;
  for (std::size_t i = 0; i < a.count; ++i) {
    EXPECT_EQ(c[4 * i + 3], 255);
    orange = orange || (c[4 * i] == 255 && c[4 * i + 1] == 128 && c[4 * i + 2] == 64);
  }
  EXPECT_TRUE(orange) << "the rock face's contrast colour, 8 bits";
  EXPECT_EQ(pos.size(), 11U) << "every split already made by colour and normal, none more";
}

TEST(IslandGlb, SmoothsWithinTheCreaseAngle) {
  Island isl = tiny_island();
  // Make the 20-degree face grass: the shared edge x = 2 then gets one averaged normal.
  isl.mesh.material[2] = isl.mesh.material[3] = Material::grass;
  for (std::size_t t = 2; t < 4; ++t)
    isl.mesh.corner_colour[t] = isl.mesh.corner_colour[0];
  Result<std::vector<std::uint8_t>> glb = island_glb(isl, run_info());
  ASSERT_TRUE(glb.ok());
  const tinygltf::Model m = read_glb(*glb);
  const tinygltf::Primitive& land = m.meshes[0].primitives.at(0);
  const auto pos = vec3s(m, land.attributes.at("POSITION"));
  const auto nrm = vec3s(m, land.attributes.at("NORMAL"));
  int on_fold = 0;
  int tilted = 0;
  for (std::size_t i = 0; i < pos.size(); ++i) {
    if (pos[i][0] == 2.0f) {
      ++on_fold;
      if (nrm[i][0] > 0.01f && nrm[i][1] < 0.9999f) ++tilted;  // towards the slope
    }
  }
  // (2, 0) and (2, 2) once each, averaged over the top and the slope, plus (2, 0) of the steep
  // triangle (60 degrees: its own normal, no x).
  EXPECT_EQ(on_fold, 3);
  EXPECT_EQ(tilted, 2);
}

TEST(IslandGlb, SameIslandSameBytesAndValid) {
  const Island isl = tiny_island();
  Result<std::vector<std::uint8_t>> a = island_glb(isl, run_info(7));
  Result<std::vector<std::uint8_t>> b = island_glb(isl, run_info(7));
  Result<std::vector<std::uint8_t>> c = island_glb(isl, run_info(8));
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_NE(*a, *c);
  if (!clitest::validator_installed()) GTEST_SKIP() << "gltf-validator not installed";
  const fs::path dir = clitest::temp_dir("island_io_glb");
  const fs::path file = dir / "island.glb";
  std::ofstream(file, std::ios::binary)
      .write(reinterpret_cast<const char*>(a->data()), static_cast<std::streamsize>(a->size()));
  const clitest::CliRun v = clitest::validate_glb(file);
  EXPECT_EQ(v.exit_code, 0) << v.output;
  fs::remove_all(dir);
}

TEST(IslandGlb, RefusesNonFiniteAndEmpty) {
  Island isl = tiny_island();
  isl.mesh.positions[3].z = std::numeric_limits<double>::quiet_NaN();
  Result<std::vector<std::uint8_t>> glb = island_glb(isl, run_info());
  ASSERT_FALSE(glb.ok());
  EXPECT_NE(glb.error().message.find("non-finite"), std::string::npos);
  isl = tiny_island();
  isl.mesh.corner_colour[1][2][0] = std::numeric_limits<float>::infinity();
  EXPECT_FALSE(island_glb(isl, run_info()).ok());
  isl = tiny_island();
  isl.mesh.triangles.clear();
  EXPECT_FALSE(island_glb(isl, run_info()).ok());
}

TEST(IslandJson, NavigationGraph) {
  const Island isl = tiny_island();
  Result<std::string> text = island_nav_json(isl);
  ASSERT_TRUE(text.ok());
  const auto j = nlohmann::json::parse(*text);
  ASSERT_EQ(j["nodes"].size(), 2U);
  EXPECT_EQ(j["nodes"][1]["id"], 1);
  EXPECT_EQ(j["nodes"][1]["stairs"], true);
  EXPECT_DOUBLE_EQ(j["nodes"][1]["position"][2].get<double>(), -0.3);
  ASSERT_EQ(j["edges"].size(), 1U);
  EXPECT_EQ(j["edges"][0]["b"], 1);
  Island bad = isl;
  bad.nav.edges[0].b = 5;
  EXPECT_FALSE(island_nav_json(bad).ok());
}

TEST(IslandJson, TileLayoutListsLandOnly) {
  const Island isl = tiny_island();
  Result<std::string> text = island_tiles_json(isl, tiny_tiles(), run_info(12345678901234567ULL));
  ASSERT_TRUE(text.ok()) << text.error().to_string();
  const auto j = nlohmann::json::parse(*text);
  EXPECT_EQ(j["seed"].get<std::uint64_t>(), 12345678901234567ULL);
  EXPECT_EQ(j["grid"]["vertices"].size(), 6U);
  ASSERT_EQ(j["grid"]["cells"].size(), 2U);
  EXPECT_EQ(j["grid"]["cells"][1], nlohmann::json({1, 2, 5, 4}));
  ASSERT_EQ(j["tiles"].size(), 1U);
  EXPECT_EQ(j["tiles"][0]["cell"], 0);
  EXPECT_EQ(j["tiles"][0]["layer"], 0);
  EXPECT_EQ(j["tiles"][0]["tile"], "ground_1111#r0");
  EXPECT_EQ(j["tiles"][0]["kind"], "ground");
  EXPECT_EQ(j["tiles"][0]["corners"], nlohmann::json({1, 1, 1, 1}));
  Island bad = isl;
  bad.tiles[3] = 9;
  EXPECT_FALSE(island_tiles_json(bad, tiny_tiles(), run_info()).ok());
}

TEST(IslandFiles, WritesAllOrNone) {
  const fs::path dir = clitest::temp_dir("island_io_files");
  const Island isl = tiny_island();
  ASSERT_TRUE(write_island((dir / "out").string(), isl, tiny_tiles(), run_info()).ok());
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir / "out"))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"island.glb", "island_light.png", "island_nav.json",
                                             "island_tiles.json", "stats.json"}));
  const auto stats = nlohmann::json::parse(clitest::slurp(dir / "out" / "stats.json"));
  EXPECT_EQ(stats["seed"], 7);
  EXPECT_EQ(stats["counts"]["navigable"], 1);
  EXPECT_DOUBLE_EQ(stats["times_ms"]["solve"].get<double>(), 1.5);
  // A folder that cannot exist (its parent is a file): the user's input, nothing written.
  std::ofstream(dir / "file") << "x";
  Status s = write_island((dir / "file" / "out").string(), isl, tiny_tiles(), run_info());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::invalid_input);
  // A builder's error: nothing written either.
  Island bad = isl;
  bad.nav.edges[0].a = 9;
  EXPECT_FALSE(write_island((dir / "bad").string(), bad, tiny_tiles(), run_info()).ok());
  EXPECT_FALSE(fs::exists(dir / "bad"));
  // An island without its light volume is not written either.
  Island dark = isl;
  dark.light = {};
  EXPECT_FALSE(write_island((dir / "dark").string(), dark, tiny_tiles(), run_info()).ok());
  EXPECT_FALSE(fs::exists(dir / "dark"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cityforge::islands
