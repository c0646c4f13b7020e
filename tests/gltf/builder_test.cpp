// SPDX-License-Identifier: Apache-2.0
// The glTF builder: a one-triangle model written as GLB and read back with tinygltf (header,
// chunks, materials, accessors with bounds, extras, nodes), byte-identical twice, and y-up.
#include "cityforge/gltf/builder.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "cityforge/gltf/tinygltf_model.hpp"

namespace cityforge::gltf {
namespace {

Result<std::vector<std::uint8_t>> triangle_glb() {
  Builder gb;
  gb.set_extras({{"seed", std::string("7")}, {"size", 3}, {"cell_m", 2.5}});
  const int red = gb.add_material({.name = "red",
                                   .base_colour = {1.0, 0.0, 0.0, 0.5},
                                   .metallic = 0.0,
                                   .roughness = 0.4,
                                   .blend = true});
  const std::vector<std::array<float, 3>> positions{{0, 0, 0}, {2, 0, -1}, {0, 3, 0}};
  const std::vector<std::array<float, 3>> normals(3, {0, 1, 0});
  const std::vector<std::uint32_t> indices{0, 1, 2};
  Primitive prim;
  prim.material = red;
  prim.attributes["POSITION"] = gb.add_vec3(positions, true);
  prim.attributes["NORMAL"] = gb.add_vec3(normals, false);
  prim.indices = gb.add_indices(indices);
  const int mesh = gb.add_mesh("tri", {prim});
  gb.add_node({.name = "root", .children = {1}});
  gb.add_node({.name = "tri", .mesh = mesh});
  return gb.glb("test");
}

TEST(GltfBuilder, WritesAGlbThatReadsBack) {
  Result<std::vector<std::uint8_t>> glb = triangle_glb();
  ASSERT_TRUE(glb.ok()) << glb.error().to_string();
  ASSERT_GE(glb->size(), 28U);
  std::uint32_t magic = 0, length = 0;
  std::memcpy(&magic, glb->data(), 4);
  std::memcpy(&length, glb->data() + 8, 4);
  EXPECT_EQ(magic, 0x46546C67U);  // "glTF"
  EXPECT_EQ(length, glb->size());
  EXPECT_EQ(glb->size() % 4, 0U);

  tinygltf::Model m;
  tinygltf::TinyGLTF loader;
  std::string err, warn;
  ASSERT_TRUE(loader.LoadBinaryFromMemory(&m, &err, &warn, glb->data(),
                                          static_cast<unsigned int>(glb->size())))
      << err;
  EXPECT_EQ(m.asset.version, "2.0");
  EXPECT_EQ(m.asset.generator, "cityforge");
  EXPECT_EQ(m.asset.extras.Get("seed").Get<std::string>(), "7");
  EXPECT_EQ(m.asset.extras.Get("size").Get<int>(), 3);
  EXPECT_DOUBLE_EQ(m.asset.extras.Get("cell_m").Get<double>(), 2.5);
  ASSERT_EQ(m.scenes.size(), 1U);
  EXPECT_EQ(m.scenes[0].name, "test");
  ASSERT_EQ(m.nodes.size(), 2U);
  EXPECT_EQ(m.nodes[0].children, std::vector<int>{1});
  EXPECT_EQ(m.nodes[1].mesh, 0);
  ASSERT_EQ(m.materials.size(), 1U);
  EXPECT_EQ(m.materials[0].alphaMode, "BLEND");
  EXPECT_DOUBLE_EQ(m.materials[0].pbrMetallicRoughness.roughnessFactor, 0.4);
  const tinygltf::Primitive& p = m.meshes.at(0).primitives.at(0);
  EXPECT_EQ(p.mode, TINYGLTF_MODE_TRIANGLES);
  const tinygltf::Accessor& pos =
      m.accessors.at(static_cast<std::size_t>(p.attributes.at("POSITION")));
  EXPECT_EQ(pos.count, 3U);
  EXPECT_EQ(pos.minValues, (std::vector<double>{0, 0, -1}));
  EXPECT_EQ(pos.maxValues, (std::vector<double>{2, 3, 0}));
  EXPECT_TRUE(
      m.accessors.at(static_cast<std::size_t>(p.attributes.at("NORMAL"))).minValues.empty());
  EXPECT_EQ(m.accessors.at(static_cast<std::size_t>(p.indices)).componentType,
            TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT);
  for (const tinygltf::BufferView& v : m.bufferViews)
    EXPECT_EQ(v.byteOffset % 4, 0U);
}

TEST(GltfBuilder, SameCallsGiveTheSameBytes) {
  Result<std::vector<std::uint8_t>> a = triangle_glb();
  Result<std::vector<std::uint8_t>> b = triangle_glb();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
}

TEST(GltfBuilder, YUpIsARotationWithoutNegativeZero) {
  EXPECT_EQ(to_y_up({1.0f, 2.0f, 3.0f}), (std::array<float, 3>{1.0f, 3.0f, -2.0f}));
  const std::array<float, 3> z = to_y_up({0.0f, 0.0f, 0.0f});
  EXPECT_FALSE(std::signbit(z[2]));
}

}  // namespace
}  // namespace cityforge::gltf
