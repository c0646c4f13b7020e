// SPDX-License-Identifier: Apache-2.0
// EXT_meshopt_compression of finished models: every compressed view decodes to its original
// bytes (triangles up to the rotation the TRIANGLES codec may apply), the JSON is what the
// extension's specification asks for, property tables stay raw and 8-byte aligned, and the
// Khronos validator reports no errors.
#include "export/detail/gltf_compress.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "export/detail/gltf_model.hpp"
#include "export/meshopt_glb.hpp"
#include "export/validator.hpp"

namespace cityforge::exporter::detail {
namespace {

using nlohmann::json;

/// A small tile-like model: a grid mesh (positions, normals, uint32 triangles), a line
/// primitive, an instancing node (float translation, short rotation, an odd number of ushort
/// ids) and an EXT_structural_metadata property table.
tinygltf::Model sample_model() {
  tinygltf::Model m;
  m.asset.version = "2.0";
  m.buffers.emplace_back();
  constexpr int kN = 12;
  std::vector<std::array<float, 3>> pos;
  std::vector<std::array<float, 3>> nrm;
  for (int y = 0; y < kN; ++y) {
    for (int x = 0; x < kN; ++x) {
      pos.push_back({x * 1.5f, 0.25f * std::sin(x * 0.7f + y), y * -1.5f});
      nrm.push_back({0.0f, 1.0f, 0.0f});
    }
  }
  std::vector<std::uint32_t> tri;
  for (int y = 0; y + 1 < kN; ++y) {
    for (int x = 0; x + 1 < kN; ++x) {
      const std::uint32_t a = static_cast<std::uint32_t>(y * kN + x);
      tri.insert(tri.end(), {a, a + kN, a + 1, a + 1, a + kN, a + kN + 1});
    }
  }
  std::vector<std::uint32_t> lines;
  for (std::uint32_t i = 0; i + 1 < static_cast<std::uint32_t>(pos.size()); ++i)
    lines.insert(lines.end(), {i, i + 1});
  tinygltf::Primitive p;
  const int pv = add_view(m, pos.data(), pos.size() * 12, TINYGLTF_TARGET_ARRAY_BUFFER);
  p.attributes["POSITION"] =
      add_accessor(m, pv, TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_TYPE_VEC3, pos.size());
  m.accessors.back().minValues = {0, -1, -20};
  m.accessors.back().maxValues = {20, 1, 0};
  const int nv = add_view(m, nrm.data(), nrm.size() * 12, TINYGLTF_TARGET_ARRAY_BUFFER);
  p.attributes["NORMAL"] =
      add_accessor(m, nv, TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_TYPE_VEC3, nrm.size());
  const int iv = add_view(m, tri.data(), tri.size() * 4, TINYGLTF_TARGET_ELEMENT_ARRAY_BUFFER);
  p.indices =
      add_accessor(m, iv, TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT, TINYGLTF_TYPE_SCALAR, tri.size());
  p.mode = TINYGLTF_MODE_TRIANGLES;
  tinygltf::Primitive l = p;
  const int lv = add_view(m, lines.data(), lines.size() * 4, TINYGLTF_TARGET_ELEMENT_ARRAY_BUFFER);
  l.indices =
      add_accessor(m, lv, TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT, TINYGLTF_TYPE_SCALAR, lines.size());
  l.mode = TINYGLTF_MODE_LINE;
  tinygltf::Mesh mesh;
  mesh.primitives = {p, l};
  m.meshes.push_back(mesh);
  // Instances: 37 of them, so the ushort ids (74 bytes) are not a whole number of 4-byte records.
  constexpr std::size_t kI = 37;
  std::vector<float> t;
  std::vector<std::int16_t> r;
  std::vector<std::uint16_t> ids;
  for (std::size_t i = 0; i < kI; ++i) {
    t.insert(t.end(), {static_cast<float>(i) * 3.0f, 0.0f, -static_cast<float>(i % 5)});
    r.insert(r.end(), {0, static_cast<std::int16_t>(i * 100), 0, 32767});
    ids.push_back(static_cast<std::uint16_t>(1000 + i / 3));
  }
  tinygltf::Value::Object attrs;
  attrs["TRANSLATION"] = tinygltf::Value(add_floats(m, t, TINYGLTF_TYPE_VEC3, 3));
  const int rv = add_view(m, r.data(), r.size() * 2, 0);
  attrs["ROTATION"] =
      tinygltf::Value(add_accessor(m, rv, TINYGLTF_COMPONENT_TYPE_SHORT, TINYGLTF_TYPE_VEC4, kI));
  m.accessors.back().normalized = true;
  const int bv = add_view(m, ids.data(), ids.size() * 2, 0);
  attrs["_BUILDING"] = tinygltf::Value(
      add_accessor(m, bv, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT, TINYGLTF_TYPE_SCALAR, kI));
  // The property table: 5 uint32 ids, 8-byte aligned, read by no accessor.
  const std::vector<std::uint32_t> table{7, 8, 9, 10, 11};
  m.buffers[0].data.resize((m.buffers[0].data.size() + 7) / 8 * 8, 0);
  const int table_view = add_view(m, table.data(), table.size() * 4, 0);
  tinygltf::Value::Object values;
  values["values"] = tinygltf::Value(table_view);
  tinygltf::Value::Object props;
  props["id"] = tinygltf::Value(values);
  tinygltf::Value::Object pt;
  pt["class"] = tinygltf::Value(std::string("building"));
  pt["count"] = tinygltf::Value(static_cast<int>(table.size()));
  pt["properties"] = tinygltf::Value(props);
  tinygltf::Value::Object idp;
  idp["type"] = tinygltf::Value(std::string("SCALAR"));
  idp["componentType"] = tinygltf::Value(std::string("UINT32"));
  tinygltf::Value::Object cprops;
  cprops["id"] = tinygltf::Value(idp);
  tinygltf::Value::Object cls;
  cls["properties"] = tinygltf::Value(cprops);
  tinygltf::Value::Object classes;
  classes["building"] = tinygltf::Value(cls);
  tinygltf::Value::Object schema;
  schema["id"] = tinygltf::Value(std::string("test"));
  schema["classes"] = tinygltf::Value(classes);
  tinygltf::Value::Object meta;
  meta["schema"] = tinygltf::Value(schema);
  meta["propertyTables"] = tinygltf::Value(tinygltf::Value::Array{tinygltf::Value(pt)});
  m.extensions["EXT_structural_metadata"] = tinygltf::Value(meta);
  m.extensionsUsed = {"EXT_mesh_gpu_instancing", "EXT_structural_metadata"};
  m.extensionsRequired = {"EXT_mesh_gpu_instancing"};
  // Nodes: root, the mesh, the instanced mesh.
  tinygltf::Node root;
  root.name = "root";
  root.children = {1, 2};
  tinygltf::Node plain;
  plain.name = "grid";
  plain.mesh = 0;
  tinygltf::Node inst;
  inst.name = "instances";
  inst.mesh = 0;
  tinygltf::Value::Object ext;
  ext["attributes"] = tinygltf::Value(attrs);
  inst.extensions["EXT_mesh_gpu_instancing"] = tinygltf::Value(ext);
  m.nodes = {root, plain, inst};
  return m;
}

struct Glb {
  json j;
  std::vector<unsigned char> bin;
  std::vector<unsigned char> bytes;
};

Glb glb_of(tinygltf::Model m) {
  Result<std::vector<std::uint8_t>> bytes = serialise_glb(m, "test");
  EXPECT_TRUE(bytes.ok());
  Glb g;
  g.bytes.assign(bytes->begin(), bytes->end());
  std::uint32_t len = 0;
  std::memcpy(&len, g.bytes.data() + 12, 4);
  g.j = json::parse(g.bytes.begin() + 20, g.bytes.begin() + 20 + len);
  std::uint32_t bin_len = 0;
  std::memcpy(&bin_len, g.bytes.data() + 20 + len, 4);
  g.bin.assign(g.bytes.begin() + 28 + len, g.bytes.begin() + 28 + len + bin_len);
  return g;
}

/// Triangles with their smallest corner first (rotation keeps the winding).
std::vector<std::uint32_t> canonical_triangles(const unsigned char* p, std::size_t count) {
  std::vector<std::uint32_t> v(count);
  std::memcpy(v.data(), p, count * 4);
  for (std::size_t t = 0; t + 2 < count; t += 3) {
    while (v[t] > v[t + 1] || v[t] > v[t + 2])
      std::rotate(v.begin() + static_cast<std::ptrdiff_t>(t),
                  v.begin() + static_cast<std::ptrdiff_t>(t + 1),
                  v.begin() + static_cast<std::ptrdiff_t>(t + 3));
  }
  return v;
}

TEST(GltfCompress, EveryViewDecodesToItsOriginalBytes) {
  const Glb plain = glb_of(sample_model());
  tinygltf::Model m = sample_model();
  ASSERT_TRUE(compress_meshopt(m).ok());
  const Glb packed = glb_of(m);
  const json& views = packed.j.at("bufferViews");
  ASSERT_EQ(views.size(), plain.j.at("bufferViews").size());
  std::size_t compressed = 0;
  for (std::size_t v = 0; v < views.size(); ++v) {
    const json& before = plain.j["bufferViews"][v];
    const json& after = views[v];
    const std::size_t from = before.value("byteOffset", std::size_t{0});
    const std::size_t len = before.at("byteLength").get<std::size_t>();
    std::vector<unsigned char> orig(plain.bin.begin() + static_cast<std::ptrdiff_t>(from),
                                    plain.bin.begin() + static_cast<std::ptrdiff_t>(from + len));
    if (!after.contains("extensions")) {
      EXPECT_EQ(after.at("buffer"), 0) << "view " << v;
      const std::size_t at = after.value("byteOffset", std::size_t{0});
      ASSERT_LE(at + len, packed.bin.size());
      EXPECT_TRUE(std::equal(orig.begin(), orig.end(),
                             packed.bin.begin() + static_cast<std::ptrdiff_t>(at)))
          << "raw view " << v << " moved with its bytes";
      continue;
    }
    ++compressed;
    const json& ext = after.at("extensions").at("EXT_meshopt_compression");
    // The parent view keeps its place in the fallback buffer.
    EXPECT_EQ(after.at("buffer"), 1);
    EXPECT_EQ(after.value("byteOffset", std::size_t{0}), from);
    std::vector<unsigned char> decoded =
        testing::decode_meshopt_view(ext, packed.bin.data(), packed.bin.size());
    ASSERT_GE(decoded.size(), len);
    if (ext.at("mode") == "TRIANGLES") {
      EXPECT_EQ(canonical_triangles(decoded.data(), len / 4),
                canonical_triangles(orig.data(), len / 4))
          << "view " << v;
    } else {
      EXPECT_TRUE(std::equal(orig.begin(), orig.end(), decoded.begin())) << "view " << v;
      EXPECT_TRUE(std::all_of(decoded.begin() + static_cast<std::ptrdiff_t>(len), decoded.end(),
                              [](unsigned char c) { return c == 0; }));
    }
  }
  EXPECT_GE(compressed, 6U) << "positions, normals, triangles, lines, translation, ids";
}

TEST(GltfCompress, JsonIsWhatTheExtensionAsksFor) {
  tinygltf::Model m = sample_model();
  ASSERT_TRUE(compress_meshopt(m).ok());
  const Glb g = glb_of(m);
  EXPECT_EQ(g.j.at("extensionsUsed"), json({"EXT_mesh_gpu_instancing", "EXT_meshopt_compression",
                                            "EXT_structural_metadata"}));
  EXPECT_EQ(g.j.at("extensionsRequired"),
            json({"EXT_mesh_gpu_instancing", "EXT_meshopt_compression"}));
  const json& buffers = g.j.at("buffers");
  ASSERT_EQ(buffers.size(), 2U);
  EXPECT_EQ(buffers[0].at("byteLength").get<std::size_t>(), g.bin.size());
  EXPECT_FALSE(buffers[1].contains("uri")) << "the fallback buffer has no data";
  EXPECT_EQ(buffers[1].at("extensions"),
            json::parse(R"({"EXT_meshopt_compression":{"fallback":true}})"));
  std::set<std::string> modes;
  for (const json& view : g.j.at("bufferViews")) {
    if (!view.contains("extensions")) continue;
    const json& ext = view["extensions"].at("EXT_meshopt_compression");
    const std::string mode = ext.at("mode");
    modes.insert(mode);
    const std::size_t stride = ext.at("byteStride");
    const std::size_t count = ext.at("count");
    EXPECT_EQ(ext.at("buffer"), 0);
    EXPECT_EQ(view.at("byteLength").get<std::size_t>(), stride * count);
    EXPECT_LE(view.value("byteOffset", std::size_t{0}) + stride * count,
              buffers[1].at("byteLength").get<std::size_t>());
    EXPECT_LT(ext.at("byteLength").get<std::size_t>(), stride * count)
        << "compressed only where it pays";
    EXPECT_FALSE(view.contains("byteStride"));
    EXPECT_FALSE(ext.contains("filter"));
    if (mode == "ATTRIBUTES") {
      EXPECT_TRUE(stride % 4 == 0 && stride <= 256) << stride;
    } else {
      EXPECT_TRUE(stride == 2 || stride == 4) << stride;
    }
    if (mode == "TRIANGLES") {
      EXPECT_EQ(count % 3, 0U);
    }
  }
  EXPECT_EQ(modes, (std::set<std::string>{"ATTRIBUTES", "INDICES", "TRIANGLES"}));
  // The 37 ushort ids (74 bytes) are encoded as 19 4-byte records over the view rounded up
  // into its zero padding: the parent view grows to 76 bytes, its accessor reads the same.
  const json& ids = g.j.at("bufferViews").at(6);
  EXPECT_EQ(ids.at("byteLength"), 76);
  EXPECT_EQ(ids.at("extensions").at("EXT_meshopt_compression").at("byteStride"), 4);
  EXPECT_EQ(ids.at("extensions").at("EXT_meshopt_compression").at("count"), 19);
}

TEST(GltfCompress, PropertyTableStaysRawAndEightByteAligned) {
  tinygltf::Model m = sample_model();
  const int table_view = m.extensions["EXT_structural_metadata"]
                             .Get("propertyTables")
                             .Get(0)
                             .Get("properties")
                             .Get("id")
                             .Get("values")
                             .GetNumberAsInt();
  ASSERT_TRUE(compress_meshopt(m).ok());
  const tinygltf::BufferView& v = m.bufferViews.at(static_cast<std::size_t>(table_view));
  EXPECT_TRUE(v.extensions.empty());
  EXPECT_EQ(v.buffer, 0);
  EXPECT_EQ(v.byteOffset % 8, 0U);
  std::vector<std::uint32_t> ids(5);
  std::memcpy(ids.data(), m.buffers[0].data.data() + v.byteOffset, 20);
  EXPECT_EQ(ids, (std::vector<std::uint32_t>{7, 8, 9, 10, 11}));
}

TEST(GltfCompress, DecodedGlbReadsLikeTheOriginal) {
  tinygltf::Model m = sample_model();
  ASSERT_TRUE(compress_meshopt(m).ok());
  const Glb packed = glb_of(m);
  const Glb plain = glb_of(sample_model());
  const std::vector<unsigned char> back = testing::plain_glb(packed.bytes);
  tinygltf::TinyGLTF loader;
  tinygltf::Model a;
  tinygltf::Model b;
  std::string err;
  std::string warn;
  ASSERT_TRUE(
      loader.LoadBinaryFromMemory(&a, &err, &warn, back.data(), static_cast<unsigned>(back.size())))
      << err;
  ASSERT_TRUE(loader.LoadBinaryFromMemory(&b, &err, &warn, plain.bytes.data(),
                                          static_cast<unsigned>(plain.bytes.size())))
      << err;
  ASSERT_EQ(a.accessors.size(), b.accessors.size());
  for (std::size_t i = 0; i < a.accessors.size(); ++i) {
    auto bytes_of = [](const tinygltf::Model& model, std::size_t acc) {
      const tinygltf::Accessor& x = model.accessors[acc];
      const tinygltf::BufferView& v = model.bufferViews[static_cast<std::size_t>(x.bufferView)];
      const std::size_t n =
          x.count *
          static_cast<std::size_t>(
              tinygltf::GetComponentSizeInBytes(static_cast<std::uint32_t>(x.componentType)) *
              tinygltf::GetNumComponentsInType(static_cast<std::uint32_t>(x.type)));
      const unsigned char* p = model.buffers[0].data.data() + v.byteOffset + x.byteOffset;
      return std::vector<unsigned char>(p, p + n);
    };
    // The triangles (view 2) may come back rotated; EveryViewDecodesToItsOriginalBytes checks them.
    if (b.accessors[i].bufferView == 2) continue;
    EXPECT_EQ(bytes_of(a, i), bytes_of(b, i)) << "accessor " << i;
  }
}

TEST(GltfCompress, SameModelSameBytes) {
  tinygltf::Model a = sample_model();
  tinygltf::Model b = sample_model();
  ASSERT_TRUE(compress_meshopt(a).ok());
  ASSERT_TRUE(compress_meshopt(b).ok());
  EXPECT_EQ(glb_of(a).bytes, glb_of(b).bytes);
}

TEST(GltfCompress, NothingThatPaysLeavesTheModelAlone) {
  tinygltf::Model m;
  m.buffers.emplace_back();
  const std::array<float, 3> p{1.0f, 2.0f, 3.0f};
  const int v = add_view(m, p.data(), 12, TINYGLTF_TARGET_ARRAY_BUFFER);
  add_accessor(m, v, TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_TYPE_VEC3, 1);
  const tinygltf::Model before = m;
  ASSERT_TRUE(compress_meshopt(m).ok());
  EXPECT_EQ(m.buffers.size(), 1U);
  EXPECT_TRUE(m.extensionsUsed.empty());
  EXPECT_TRUE(m.bufferViews[0].extensions.empty());
  EXPECT_EQ(m.buffers[0].data, before.buffers[0].data);
}

TEST(GltfCompress, RefusesAModelOfTwoBuffers) {
  tinygltf::Model m = sample_model();
  m.buffers.emplace_back();
  EXPECT_FALSE(compress_meshopt(m).ok());
}

TEST(GltfCompress, KhronosValidatorReportsNoErrors) {
  if (!testing::validator_installed()) GTEST_SKIP() << "run `make validator`";
  tinygltf::Model m = sample_model();
  ASSERT_TRUE(compress_meshopt(m).ok());
  EXPECT_TRUE(testing::validates(glb_of(m).bytes, "meshopt"));
}

}  // namespace
}  // namespace cityforge::exporter::detail
