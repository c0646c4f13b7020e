// SPDX-License-Identifier: Apache-2.0
// city.glb: container, structure, bounds, axis conversion, determinism and bad input.
// tinygltf's implementation lives in cityforge_export (tinygltf_impl.cpp); this file only
// declares it, with the same configuration macros.
#define TINYGLTF_NO_STB_IMAGE
#define TINYGLTF_NO_STB_IMAGE_WRITE
#define TINYGLTF_NO_EXTERNAL_IMAGE
#include <gtest/gtest.h>
#include <tbb/task_arena.h>
#include <tiny_gltf.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include "cityforge/export/export.hpp"
#include "cityforge/gltf/tinygltf_model.hpp"
#include "export/city_meshes.hpp"
#include "export/fixture.hpp"

namespace cityforge::exporter {
namespace {

using fixture::small_city;
using fixture::small_ground;

std::uint32_t u32_at(const std::vector<std::uint8_t>& b, std::size_t offset) {
  std::uint32_t v = 0;
  std::memcpy(&v, b.data() + offset, 4);
  return v;
}

tinygltf::Model load(const std::vector<std::uint8_t>& glb) {
  tinygltf::TinyGLTF loader;
  gltf::skip_image_decoding(loader);
  tinygltf::Model model;
  std::string err;
  std::string warn;
  const bool ok = loader.LoadBinaryFromMemory(&model, &err, &warn, glb.data(),
                                              static_cast<unsigned int>(glb.size()));
  EXPECT_TRUE(ok) << err;
  EXPECT_TRUE(err.empty()) << err;
  EXPECT_TRUE(warn.empty()) << warn;
  return model;
}

std::vector<std::array<float, 3>> read_vec3(const tinygltf::Model& m, int accessor) {
  const tinygltf::Accessor& a = m.accessors[static_cast<std::size_t>(accessor)];
  const tinygltf::BufferView& v = m.bufferViews[static_cast<std::size_t>(a.bufferView)];
  std::vector<std::array<float, 3>> out(a.count);
  EXPECT_EQ(v.byteLength, a.count * 12);
  std::memcpy(out.data(), m.buffers[0].data.data() + v.byteOffset + a.byteOffset, a.count * 12);
  return out;
}

detail::ChunkList meshes() {
  auto built = fixture::chunks_of(small_city(), small_ground(), Config{});
  EXPECT_TRUE(built.ok()) << built.error().to_string();
  return *built;
}

TEST(CityGlb, HasGlbHeaderAndChunks) {
  auto glb = fixture::city_glb_of(small_city(), small_ground(), Config{});
  ASSERT_TRUE(glb.ok()) << glb.error().to_string();
  const std::vector<std::uint8_t>& b = *glb;
  ASSERT_GE(b.size(), 28U);
  EXPECT_EQ(std::memcmp(b.data(), "glTF", 4), 0);
  EXPECT_EQ(u32_at(b, 4), 2U);
  EXPECT_EQ(u32_at(b, 8), b.size());
  EXPECT_EQ(b.size() % 4, 0U);
  const std::uint32_t json_len = u32_at(b, 12);
  EXPECT_EQ(u32_at(b, 16), 0x4E4F534AU);  // "JSON"
  EXPECT_EQ(json_len % 4, 0U);
  const std::size_t bin_at = 20 + json_len;
  ASSERT_LT(bin_at + 8, b.size());
  EXPECT_EQ(u32_at(b, bin_at + 4), 0x004E4942U);  // "BIN\0"
  EXPECT_EQ(bin_at + 8 + u32_at(b, bin_at), b.size());
}

TEST(CityGlb, ReadsBackWithOneNodeAndMeshPerChunk) {
  const auto chunks = meshes();
  auto glb = fixture::city_glb_of(small_city(), small_ground(), Config{});
  ASSERT_TRUE(glb.ok());
  const tinygltf::Model m = load(*glb);

  EXPECT_EQ(m.asset.version, "2.0");
  EXPECT_EQ(m.asset.generator, "cityforge");
  ASSERT_EQ(m.scenes.size(), 1U);
  EXPECT_EQ(m.defaultScene, 0);
  ASSERT_EQ(m.scenes[0].nodes, std::vector<int>{0});
  ASSERT_EQ(m.nodes.size(), chunks.size() + 1);
  EXPECT_EQ(m.nodes[0].name, "city");
  ASSERT_EQ(m.nodes[0].children.size(), chunks.size());
  ASSERT_EQ(m.meshes.size(), chunks.size());
  // 300 m city + 50 m terrain margin, 100 m chunks: x and y in [-50, 350] -> chunks -1..3.
  EXPECT_EQ(chunks.size(), 25U);

  std::set<std::string> materials;
  for (const auto& mat : m.materials) {
    materials.insert(mat.name);
    EXPECT_EQ(mat.pbrMetallicRoughness.baseColorFactor.size(), 4U);
    EXPECT_EQ(mat.pbrMetallicRoughness.metallicFactor, 0.0);
  }
  EXPECT_EQ(materials, (std::set<std::string>{"terrain", "road_artery", "road_main", "road_local",
                                              "sidewalk", "block", "volume"}));

  for (std::size_t c = 0; c < chunks.size(); ++c) {
    const std::string name =
        "chunk_" + std::to_string(chunks[c].cx) + "_" + std::to_string(chunks[c].cy);
    const tinygltf::Node& node = m.nodes[c + 1];
    EXPECT_EQ(m.nodes[0].children[c], static_cast<int>(c + 1));
    EXPECT_EQ(node.name, name);
    EXPECT_TRUE(node.translation.empty());
    EXPECT_TRUE(node.matrix.empty());
    ASSERT_EQ(node.mesh, static_cast<int>(c));
    if (c > 0) {  // (cy, cx) order
      EXPECT_LT(std::make_pair(chunks[c - 1].cy, chunks[c - 1].cx),
                std::make_pair(chunks[c].cy, chunks[c].cx));
    }
    const tinygltf::Mesh& mesh = m.meshes[c];
    std::size_t prim = 0;
    for (std::size_t p = 0; p < detail::kPartCount; ++p) {
      const Mesh& part = chunks[c].parts[p];
      if (part.empty()) {
        continue;
      }
      ASSERT_LT(prim, mesh.primitives.size());
      const tinygltf::Primitive& pr = mesh.primitives[prim++];
      EXPECT_EQ(pr.mode, TINYGLTF_MODE_TRIANGLES);
      EXPECT_EQ(m.materials[static_cast<std::size_t>(pr.material)].name,
                detail::part_name(static_cast<detail::Part>(p)));
      const auto& pos = m.accessors[static_cast<std::size_t>(pr.attributes.at("POSITION"))];
      const auto& nrm = m.accessors[static_cast<std::size_t>(pr.attributes.at("NORMAL"))];
      const auto& idx = m.accessors[static_cast<std::size_t>(pr.indices)];
      EXPECT_EQ(pos.count, part.positions.size());
      EXPECT_EQ(nrm.count, part.normals.size());
      EXPECT_EQ(idx.count, part.indices.size());
      EXPECT_EQ(idx.componentType, TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT);
      EXPECT_EQ(pos.componentType, TINYGLTF_COMPONENT_TYPE_FLOAT);
      EXPECT_EQ(m.bufferViews[static_cast<std::size_t>(pos.bufferView)].target,
                TINYGLTF_TARGET_ARRAY_BUFFER);
      EXPECT_EQ(m.bufferViews[static_cast<std::size_t>(idx.bufferView)].target,
                TINYGLTF_TARGET_ELEMENT_ARRAY_BUFFER);
      EXPECT_EQ(m.bufferViews[static_cast<std::size_t>(pos.bufferView)].byteOffset % 4, 0U);
      // Declared min/max are exactly the bounds of the stored floats.
      const auto data = read_vec3(m, pr.attributes.at("POSITION"));
      for (std::size_t k = 0; k < 3; ++k) {
        float lo = std::numeric_limits<float>::infinity();
        float hi = -lo;
        for (const auto& v : data) {
          lo = std::min(lo, v[k]);
          hi = std::max(hi, v[k]);
        }
        ASSERT_EQ(pos.minValues.size(), 3U);
        EXPECT_EQ(pos.minValues[k], static_cast<double>(lo));
        EXPECT_EQ(pos.maxValues[k], static_cast<double>(hi));
      }
    }
    EXPECT_EQ(prim, mesh.primitives.size());
  }
}

TEST(CityGlb, ConvertsToYUp) {
  const auto chunks = meshes();
  auto glb = fixture::city_glb_of(small_city(), small_ground(), Config{});
  ASSERT_TRUE(glb.ok());
  const tinygltf::Model m = load(*glb);
  // Every vertex of every primitive is (x, z, -y) of the engine vertex, normals too.
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    std::size_t prim = 0;
    for (const Mesh& part : chunks[c].parts) {
      if (part.empty()) {
        continue;
      }
      const auto& pr = m.meshes[c].primitives[prim++];
      const auto pos = read_vec3(m, pr.attributes.at("POSITION"));
      const auto nrm = read_vec3(m, pr.attributes.at("NORMAL"));
      ASSERT_EQ(pos.size(), part.positions.size());
      for (std::size_t i = 0; i < pos.size(); ++i) {
        const auto& e = part.positions[i];
        ASSERT_EQ(pos[i], (std::array<float, 3>{e[0], e[2], -e[1]}));
        const auto& n = part.normals[i];
        ASSERT_EQ(nrm[i], (std::array<float, 3>{n[0], n[2], -n[1]}));
      }
    }
  }
  // Whole-file bounds: x spans the terrain, glTF z = -north, glTF y = heights (5 m +- a bit,
  // up to 60 m towers on top).
  double lo[3] = {1e9, 1e9, 1e9};
  double hi[3] = {-1e9, -1e9, -1e9};
  for (const auto& a : m.accessors) {
    if (a.minValues.size() == 3) {
      for (std::size_t k = 0; k < 3; ++k) {
        lo[k] = std::min(lo[k], a.minValues[k]);
        hi[k] = std::max(hi[k], a.maxValues[k]);
      }
    }
  }
  EXPECT_EQ(lo[0], -50.0);
  EXPECT_EQ(hi[0], 350.0);
  EXPECT_EQ(lo[2], -350.0);
  EXPECT_EQ(hi[2], 50.0);
  EXPECT_GT(lo[1], -5.0);
  EXPECT_GT(hi[1], 60.0);
  EXPECT_LT(hi[1], 80.0);
}

TEST(CityGlb, ByteIdenticalAcrossCallsAndThreadCounts) {
  auto a = fixture::city_glb_of(small_city(), small_ground(), Config{});
  auto b = fixture::city_glb_of(small_city(), small_ground(), Config{});
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*a, *b);
  tbb::task_arena one(1);
  one.execute([&] {
    auto c = fixture::city_glb_of(small_city(), small_ground(), Config{});
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(*a, *c);
  });
}

TEST(CityGlb, RejectsNonFiniteInput) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  {
    auto city = small_city();
    city.network.edges[1].points[1].y = nan;
    auto glb = fixture::city_glb_of(city, small_ground(), Config{});
    ASSERT_FALSE(glb.ok());
    EXPECT_EQ(glb.error().code, ErrorCode::invalid_input);
    EXPECT_EQ(glb.error().where, "network.edges[1].points[1]");
  }
  {
    auto city = small_city();
    city.blocks[2].area.outer[0].x = std::numeric_limits<double>::infinity();
    auto glb = fixture::city_glb_of(city, small_ground(), Config{});
    ASSERT_FALSE(glb.ok());
    EXPECT_EQ(glb.error().where, "blocks[2].area.outer[0]");
  }
  {
    auto city = small_city();
    city.blocks[0].target_height_m = nan;
    EXPECT_FALSE(fixture::city_glb_of(city, small_ground(), Config{}).ok());
  }
  {
    auto ground = small_ground();
    ground.heights[17] = std::numeric_limits<float>::quiet_NaN();
    auto glb = fixture::city_glb_of(small_city(), ground, Config{});
    ASSERT_FALSE(glb.ok());
    EXPECT_EQ(glb.error().where, "terrain.heights[17]");
  }
  {
    Config config;
    config.chunk_m = 0.0;
    EXPECT_FALSE(fixture::city_glb_of(small_city(), small_ground(), config).ok());
  }
  {
    auto city = small_city();
    city.blocks[1].target_height_m = 1e300;  // finite, but not as float32
    EXPECT_FALSE(fixture::city_glb_of(city, small_ground(), Config{}).ok());
  }
}

TEST(CityGlb, EmptyCityIsTerrainOnly) {
  auto glb = fixture::city_glb_of(layout::Output{}, small_ground(), Config{});
  ASSERT_TRUE(glb.ok());
  const tinygltf::Model m = load(*glb);
  ASSERT_EQ(m.materials.size(), 1U);
  EXPECT_EQ(m.materials[0].name, "terrain");
}

}  // namespace
}  // namespace cityforge::exporter
