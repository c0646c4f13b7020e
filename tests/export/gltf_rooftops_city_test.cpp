// SPDX-License-Identifier: Apache-2.0
// WFC rooftops in city.glb (rooftops -> region -> kit instances) in the three instance modes, and
// the standalone glb of a solved grid: node layout, instance counts, mirrored kits with their
// winding flipped, colour variants as materials, and the Khronos validator.
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
#include <string>
#include <vector>

#include "cityforge/export/export.hpp"
#include "cityforge/gltf/tinygltf_model.hpp"
#include "cityforge/rooftops/rooftops.hpp"
#include "fixture.hpp"

namespace cityforge::exporter {
namespace {

namespace fs = std::filesystem;

tinygltf::Model load(const std::vector<std::uint8_t>& glb) {
  tinygltf::TinyGLTF loader;
  gltf::skip_image_decoding(loader);
  tinygltf::Model model;
  std::string err;
  std::string warn;
  const bool ok = loader.LoadBinaryFromMemory(&model, &err, &warn, glb.data(),
                                              static_cast<unsigned int>(glb.size()));
  EXPECT_TRUE(ok) << err;
  return model;
}

/// Rooftop tiles of the built-in model that the kit draws, placed in a row on a roof at 30 m:
/// every tile, each in all four colours, every other one mirrored.
rooftops::RooftopOutput some_rooftops(std::size_t* drawn) {
  rooftops::RooftopOutput out;
  auto model = rooftops::builtin_rooftop_model();
  EXPECT_TRUE(model.ok()) << model.error().to_string();
  if (!model) return out;
  out.tile_names = model->base_names;
  *drawn = 0;
  for (std::uint32_t t = 0; t < out.tile_names.size(); ++t) {
    const auto parts = rooftops::rooftop_tile_mesh(out.tile_names[t], 3.0, 3.0);
    bool empty = true;
    for (const Mesh& m : parts)
      empty = empty && m.empty();
    for (std::uint16_t c = 0; c < rooftops::kRooftopColours; ++c) {
      rooftops::RooftopInstance in;
      in.tile = t;
      in.position = {static_cast<float>(20.0 + 3.0 * t), static_cast<float>(20.0 + 3.0 * c), 30.0f};
      in.yaw_rad = static_cast<float>(0.5 * c);
      in.reflected = t % 2 == 1;
      in.colour = c;
      in.building = 7;
      out.instances.push_back(in);
      *drawn += empty ? 0 : 1;
    }
  }
  return out;
}

std::vector<std::uint8_t> city_with(const rooftops::RooftopOutput& roofs,
                                    pipeline::InstanceMode m) {
  const layout::Output city = fixture::small_city();
  const terrain::Heightfield ground = fixture::small_ground();
  Config config;
  config.instances = m;
  fixture::Extras extras;
  extras.rooftops = &roofs;
  auto glb = fixture::city_glb_of(city, ground, config, extras);
  EXPECT_TRUE(glb.ok()) << glb.error().to_string();
  return glb.ok() ? *glb : std::vector<std::uint8_t>{};
}

int validate(const std::vector<std::uint8_t>& glb, const std::string& name) {
  const fs::path tool = fs::path(CITYFORGE_SOURCE_DIR) / "tools" / "gltf-validator";
  if (!fs::exists(tool / "node_modules" / "gltf-validator")) return 0;
  const fs::path dir = fs::temp_directory_path() / ("cityforge-roof-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / (name + ".glb");
  EXPECT_TRUE(write_file_atomic(file.string(), glb.data(), glb.size()).ok());
  const std::string command =
      "node '" + (tool / "validate.mjs").string() + "' '" + file.string() + "' > /dev/null";
  const int status = std::system(command.c_str());
  std::error_code ec;
  fs::remove_all(dir, ec);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(CityGlbRooftops, RooftopsChunksAndOneInstancePerDrawnTile) {
  std::size_t drawn = 0;
  const rooftops::RooftopOutput roofs = some_rooftops(&drawn);
  ASSERT_GT(drawn, 10U) << "the kit draws most rooftop tiles";
  const tinygltf::Model m = load(city_with(roofs, pipeline::InstanceMode::ext));
  int top = -1;
  for (std::size_t i = 0; i < m.nodes.size(); ++i) {
    if (m.nodes[i].name == "rooftops") top = static_cast<int>(i);
  }
  ASSERT_GE(top, 0);
  std::size_t instances = 0;
  std::size_t mirrored_kits = 0;
  for (const int chunk : m.nodes[static_cast<std::size_t>(top)].children) {
    const tinygltf::Node& c = m.nodes[static_cast<std::size_t>(chunk)];
    EXPECT_EQ(c.name.rfind("rooftops.region_", 0), 0U) << c.name;
    for (const int k : c.children) {
      const tinygltf::Node& n = m.nodes[static_cast<std::size_t>(k)];
      const auto& ext = n.extensions.at("EXT_mesh_gpu_instancing");
      const int t = ext.Get("attributes").Get("TRANSLATION").Get<int>();
      instances += m.accessors[static_cast<std::size_t>(t)].count;
      EXPECT_TRUE(ext.Get("attributes").Has("_BUILDING")) << n.name;
      mirrored_kits += n.name.find(".m.c") != std::string::npos ? 1 : 0;
    }
  }
  EXPECT_EQ(instances, drawn);
  EXPECT_GT(mirrored_kits, 0U);
  // Colour variants are materials: four of the metal paint at least.
  std::size_t metal = 0;
  for (const auto& mat : m.materials)
    metal += mat.name.rfind("rooftop.metal.", 0) == 0 ? 1 : 0;
  EXPECT_EQ(metal, std::size_t{rooftops::kRooftopColours});
}

TEST(CityGlbRooftops, EveryInstanceModeValidatesAndIsDeterministic) {
  std::size_t drawn = 0;
  const rooftops::RooftopOutput roofs = some_rooftops(&drawn);
  for (const auto mode :
       {pipeline::InstanceMode::ext, pipeline::InstanceMode::nodes, pipeline::InstanceMode::bake}) {
    const auto a = city_with(roofs, mode);
    ASSERT_FALSE(a.empty());
    EXPECT_EQ(a, city_with(roofs, mode)) << pipeline::to_string(mode);
    EXPECT_EQ(validate(a, pipeline::to_string(mode)), 0) << pipeline::to_string(mode);
  }
}

TEST(CityGlbRooftops, BadInstancesAreErrors) {
  std::size_t drawn = 0;
  rooftops::RooftopOutput roofs = some_rooftops(&drawn);
  const layout::Output city = fixture::small_city();
  const terrain::Heightfield ground = fixture::small_ground();
  rooftops::RooftopOutput bad_tile = roofs;
  bad_tile.instances[0].tile = 9999;
  fixture::Extras extras;
  extras.rooftops = &bad_tile;
  auto a = fixture::city_glb_of(city, ground, {}, extras);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().where, "rooftops.instances[0]");
  rooftops::RooftopOutput nan = roofs;
  for (auto& in : nan.instances)
    in.position[2] = std::nanf("");
  extras.rooftops = &nan;
  auto b = fixture::city_glb_of(city, ground, {}, extras);
  EXPECT_FALSE(b.ok());
}

// Tiles the kit does not know become markers: one kit per (base tile, mirrored), one instance
// per drawn cell, Empty left out.
TEST(WfcGridGlb, MarkersShowRotationAndMirroringAndValidate) {
  wfc::Model model;
  model.name = "markers";
  model.label_count = 4;
  model.opposite = {1, 0, 3, 2};
  model.base_names = {"empty", "arrow"};
  model.tiles.push_back({"empty", 0, 0, false, {0, 0, 0}, 1.0});
  for (std::uint8_t r = 0; r < 4; ++r) {
    for (const bool m : {false, true}) {
      model.tiles.push_back({"arrow", 1, r, m, {0, 0, 0}, 1.0});
    }
  }
  model.empty = 0;
  const wfc::Grid grid = wfc::square_grid(3, 3, 1);
  std::vector<wfc::TileId> tiles = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  auto glb = wfc_grid_glb(model, grid, tiles, 2.0, 2.0);
  ASSERT_TRUE(glb.ok()) << glb.error().to_string();
  const tinygltf::Model m = load(*glb);
  std::size_t instances = 0;
  std::size_t kits = 0;
  for (const auto& n : m.nodes) {
    if (!n.extensions.count("EXT_mesh_gpu_instancing")) continue;
    ++kits;
    const int t =
        n.extensions.at("EXT_mesh_gpu_instancing").Get("attributes").Get("TRANSLATION").Get<int>();
    instances += m.accessors[static_cast<std::size_t>(t)].count;
  }
  EXPECT_EQ(instances, 8U) << "the Empty cell is not drawn";
  EXPECT_EQ(kits, 2U) << "one kit per (base tile, mirrored)";
  EXPECT_EQ(validate(*glb, "markers"), 0);
  // Bad input: a tile per cell, sizes > 0.
  tiles.pop_back();
  EXPECT_FALSE(wfc_grid_glb(model, grid, tiles, 2.0, 2.0).ok());
  tiles.push_back(8);
  EXPECT_FALSE(wfc_grid_glb(model, grid, tiles, 0.0, 2.0).ok());
  tiles.back() = 99;
  EXPECT_FALSE(wfc_grid_glb(model, grid, tiles, 2.0, 2.0).ok());
}

}  // namespace
}  // namespace cityforge::exporter
