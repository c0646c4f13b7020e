// SPDX-License-Identifier: Apache-2.0
// Decals in city.glb: "decal.<kind>" materials blended over their surfaces with the procedural
// RGBA images through a clamping sampler, texture coordinates 0..1 over each quad in every
// instance mode, the crack's normal map with tangents, valid glTF.
#include "export/detail/gltf_decals.hpp"

#include <gtest/gtest.h>
#include <tiny_gltf.h>

#include <cstring>
#include <set>

#include "cityforge/export/export.hpp"
#include "cityforge/gltf/tinygltf_model.hpp"
#include "export/fixture.hpp"
#include "export/validator.hpp"

namespace cityforge::exporter {
namespace {

dressing::Item item(const char* id, float x, float y, float z) {
  dressing::Item it;
  it.prop = static_cast<std::uint32_t>(dressing::find_prop(id));
  it.position = {x, y, z};
  it.yaw_rad = 0.3f;
  it.scale_x = 2.0f;
  it.scale_y = 1.5f;
  it.scale_z = 1.2f;
  return it;
}

dressing::Output decals() {
  dressing::Output d;
  d.items = {item("bench", 12, 12, 0.15f), item("decal_grime", 20, 20, 0.0f),
             item("decal_tyre_marks", 30, 12, 0.07f), item("decal_oil", 40, 12, 0.07f),
             item("decal_crack", 50, 12, 0.07f)};
  return d;
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

std::vector<std::uint8_t> glb_of(const Config& config) {
  const dressing::Output d = decals();
  fixture::Extras extras;
  extras.dressing = &d;
  auto glb = fixture::city_glb_of(fixture::small_city(), fixture::small_ground(), config, extras);
  EXPECT_TRUE(glb.ok()) << glb.error().to_string();
  return glb.ok() ? *glb : std::vector<std::uint8_t>{};
}

template <std::size_t N>
std::vector<std::array<float, N>> floats(const tinygltf::Model& m, int accessor) {
  const tinygltf::Accessor& a = m.accessors[static_cast<std::size_t>(accessor)];
  const tinygltf::BufferView& v = m.bufferViews[static_cast<std::size_t>(a.bufferView)];
  std::vector<std::array<float, N>> out(a.count);
  std::memcpy(out.data(), m.buffers[0].data.data() + v.byteOffset + a.byteOffset,
              a.count * N * sizeof(float));
  return out;
}

TEST(GltfDecals, MaterialNamesParse) {
  EXPECT_EQ(detail::decal_of("decal.grime"), materials::Decal::grime);
  EXPECT_EQ(detail::decal_of("decal.tyre_marks"), materials::Decal::tyre_marks);
  EXPECT_FALSE(detail::decal_of("decal.brick").has_value());
  EXPECT_FALSE(detail::decal_of("prop.oil").has_value());
  EXPECT_EQ(detail::decal_file_name(materials::Decal::crack, true), "decal_crack.normal.png");
}

TEST(GltfDecals, BlendedTexturedMaterialsWithQuadCoordinates) {
  for (const pipeline::InstanceMode mode :
       {pipeline::InstanceMode::ext, pipeline::InstanceMode::nodes, pipeline::InstanceMode::bake}) {
    SCOPED_TRACE(pipeline::to_string(mode));
    Config config;
    config.instances = mode;
    const tinygltf::Model m = load(glb_of(config));
    std::set<std::string> names;
    std::set<int> decal_materials;
    for (std::size_t i = 0; i < m.materials.size(); ++i) {
      const tinygltf::Material& mat = m.materials[i];
      if (mat.name.rfind("decal.", 0) != 0) {
        EXPECT_EQ(mat.alphaMode, "OPAQUE") << mat.name;
        continue;
      }
      names.insert(mat.name);
      decal_materials.insert(static_cast<int>(i));
      EXPECT_EQ(mat.alphaMode, "BLEND") << mat.name;
      EXPECT_FALSE(mat.doubleSided) << mat.name;
      EXPECT_EQ(mat.pbrMetallicRoughness.baseColorFactor[3], 1.0) << mat.name;
      EXPECT_EQ(mat.pbrMetallicRoughness.metallicFactor, 0.0) << mat.name;
      const int tex = mat.pbrMetallicRoughness.baseColorTexture.index;
      ASSERT_GE(tex, 0) << mat.name;
      EXPECT_TRUE(mat.pbrMetallicRoughness.baseColorTexture.extensions.empty())
          << "decals take their quad's 0..1 coordinates, no transform";
      const tinygltf::Texture& t = m.textures[static_cast<std::size_t>(tex)];
      const tinygltf::Sampler& s = m.samplers[static_cast<std::size_t>(t.sampler)];
      EXPECT_EQ(s.wrapS, TINYGLTF_TEXTURE_WRAP_CLAMP_TO_EDGE);
      EXPECT_EQ(s.wrapT, TINYGLTF_TEXTURE_WRAP_CLAMP_TO_EDGE);
      // The image is an RGBA PNG (IHDR colour type 6).
      const tinygltf::Image& img = m.images[static_cast<std::size_t>(t.source)];
      const tinygltf::BufferView& v = m.bufferViews[static_cast<std::size_t>(img.bufferView)];
      ASSERT_GT(v.byteLength, 26U);
      EXPECT_EQ(m.buffers[0].data[v.byteOffset + 25], 6) << img.name;
      EXPECT_EQ(mat.normalTexture.index >= 0, mat.name == "decal.crack") << mat.name;
      if (mat.name == "decal.oil") {
        EXPECT_LT(mat.pbrMetallicRoughness.roughnessFactor, 0.5);
      }
    }
    EXPECT_EQ(names, (std::set<std::string>{"decal.grime", "decal.tyre_marks", "decal.oil",
                                            "decal.crack"}));
    // Every decal primitive spans its picture once: coordinates 0..1, both ends reached.
    std::size_t decal_prims = 0;
    for (const tinygltf::Mesh& mesh : m.meshes) {
      for (const tinygltf::Primitive& prim : mesh.primitives) {
        if (decal_materials.count(prim.material) == 0U) continue;
        ++decal_prims;
        const auto uv = floats<2>(m, prim.attributes.at("TEXCOORD_0"));
        float lo = 1.0f, hi = 0.0f;
        for (const auto& c : uv) {
          for (const float x : c) {
            EXPECT_GE(x, 0.0f);
            EXPECT_LE(x, 1.0f);
            lo = std::min(lo, x);
            hi = std::max(hi, x);
          }
        }
        EXPECT_EQ(lo, 0.0f);
        EXPECT_EQ(hi, 1.0f);
        if (m.materials[static_cast<std::size_t>(prim.material)].name == "decal.crack") {
          EXPECT_EQ(prim.attributes.count("TANGENT"), 1U);
        }
      }
    }
    EXPECT_EQ(decal_prims, 4U);
  }
}

TEST(GltfDecals, UntexturedDecalsAreInvisibleNotBlack) {
  Config config;
  config.textures = pipeline::TextureSize::none;
  const tinygltf::Model m = load(glb_of(config));
  std::size_t seen = 0;
  for (const tinygltf::Material& mat : m.materials) {
    if (mat.name.rfind("decal.", 0) != 0) continue;
    ++seen;
    EXPECT_EQ(mat.pbrMetallicRoughness.baseColorFactor[3], 0.0) << mat.name;
    EXPECT_EQ(mat.alphaMode, "BLEND");
  }
  EXPECT_EQ(seen, 4U);
  EXPECT_TRUE(m.images.empty());
}

TEST(GltfDecals, KhronosValidatorReportsNoErrors) {
  if (!testing::validator_installed()) {
    GTEST_SKIP() << "the glTF validator is not installed: run `make validator`";
  }
  for (const pipeline::InstanceMode mode :
       {pipeline::InstanceMode::ext, pipeline::InstanceMode::bake}) {
    Config config;
    config.instances = mode;
    EXPECT_TRUE(testing::validates(glb_of(config), "decals")) << pipeline::to_string(mode);
  }
}

}  // namespace
}  // namespace cityforge::exporter
