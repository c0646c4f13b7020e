// SPDX-License-Identifier: Apache-2.0
// city.glb: the chunked city meshes as a glTF 2.0 binary, serialised with tinygltf.
// Based on: The Khronos Group, glTF 2.0 Specification (GLB container, accessors, materials).
//
// Layout of the file (positions are absolute, every chunk node has the identity transform, so
// translation zero; the chunk is only a grouping for culling and streaming):
//   scene 0 -> node 0 "city" -> nodes 1..n "chunk_<cx>_<cy>" in (cy, cx) order -> mesh i-1
//   mesh: one primitive per material present in the chunk, in the order terrain, road_artery,
//         road_main, road_local, block, volume
//   primitive: POSITION (float32 VEC3, min/max), NORMAL (float32 VEC3), indices (uint32),
//         each in its own tightly packed bufferView with its target set, 4-byte aligned.
// tinygltf writes JSON through nlohmann::json (objects keyed in sorted order, doubles printed
// to round-trip), so the output is byte identical for identical inputs.

#define TINYGLTF_IMPLEMENTATION
#define TINYGLTF_NO_STB_IMAGE
#define TINYGLTF_NO_STB_IMAGE_WRITE
#define TINYGLTF_NO_EXTERNAL_IMAGE
#include <tiny_gltf.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <sstream>
#include <string>

#include "cityforge/export/export.hpp"
#include "export/city_meshes.hpp"

namespace cityforge::exporter {

namespace {

static_assert(std::endian::native == std::endian::little,
              "glTF buffers are little endian; this writer copies memory as is");

using detail::ChunkMeshes;
using detail::kPartCount;
using detail::Part;

/// Base colour (linear RGB) and roughness per part; nothing is metallic.
struct Look {
  std::array<double, 3> rgb;
  double roughness;
};
constexpr std::array<Look, kPartCount> kLooks{{
    {{0.30, 0.42, 0.20}, 0.95},  // terrain: grass
    {{0.08, 0.08, 0.09}, 0.80},  // road_artery: dark asphalt
    {{0.13, 0.13, 0.14}, 0.80},  // road_main
    {{0.20, 0.20, 0.21}, 0.85},  // road_local: worn asphalt
    {{0.55, 0.54, 0.52}, 0.90},  // sidewalk: light concrete
    {{0.45, 0.43, 0.40}, 0.90},  // block: paving
    {{0.72, 0.70, 0.66}, 0.70},  // volume: concrete
    {{0.50, 0.50, 0.52}, 0.80},  // freeway: deck concrete
    {{0.85, 0.85, 0.82}, 0.60},  // marking: road paint
}};

tinygltf::Material make_material(Part part) {
  tinygltf::Material m;
  m.name = detail::part_name(part);
  const Look& look = kLooks[static_cast<std::size_t>(part)];
  m.pbrMetallicRoughness.baseColorFactor = {look.rgb[0], look.rgb[1], look.rgb[2], 1.0};
  m.pbrMetallicRoughness.metallicFactor = 0.0;
  m.pbrMetallicRoughness.roughnessFactor = look.roughness;
  return m;
}

/// Appends raw bytes as a new bufferView (4-byte aligned) and returns its index.
int add_view(tinygltf::Model& model, const void* data, std::size_t bytes, int target) {
  std::vector<unsigned char>& buf = model.buffers[0].data;
  buf.resize((buf.size() + 3) / 4 * 4, 0);
  tinygltf::BufferView view;
  view.buffer = 0;
  view.byteOffset = buf.size();
  view.byteLength = bytes;
  view.target = target;
  const auto* p = static_cast<const unsigned char*>(data);
  buf.insert(buf.end(), p, p + bytes);
  model.bufferViews.push_back(view);
  return static_cast<int>(model.bufferViews.size() - 1);
}

int add_accessor(tinygltf::Model& model, int view, int component, int type, std::size_t count) {
  tinygltf::Accessor a;
  a.bufferView = view;
  a.componentType = component;
  a.type = type;
  a.count = count;
  model.accessors.push_back(a);
  return static_cast<int>(model.accessors.size() - 1);
}

/// z-up engine (x, y, z) to y-up glTF (x, z, -y): a proper rotation, so windings survive.
std::array<float, 3> to_y_up(const std::array<float, 3>& v) {
  // + 0.0f turns -0 (from y = 0) into +0, so min/max never read "-0.0".
  return {v[0], v[2], -v[1] + 0.0f};
}

/// Adds one primitive's accessors; fails on a non-finite value.
Result<tinygltf::Primitive> add_primitive(tinygltf::Model& model, const Mesh& mesh, int material,
                                          const std::string& where) {
  std::vector<std::array<float, 3>> positions(mesh.positions.size());
  std::vector<std::array<float, 3>> normals(mesh.normals.size());
  std::vector<double> lo(3, 0.0);
  std::vector<double> hi(3, 0.0);
  for (std::size_t i = 0; i < positions.size(); ++i) {
    positions[i] = to_y_up(mesh.positions[i]);
    normals[i] = to_y_up(mesh.normals[i]);
    for (std::size_t k = 0; k < 3; ++k) {
      if (!std::isfinite(positions[i][k]) || !std::isfinite(normals[i][k])) {
        return Error::invalid_input(where, "vertex " + std::to_string(i) + " is not finite");
      }
      // Exact float values as doubles: the validator compares them with the data bit for bit.
      const double v = positions[i][k];
      lo[k] = i == 0 ? v : std::min(lo[k], v);
      hi[k] = i == 0 ? v : std::max(hi[k], v);
    }
  }
  tinygltf::Primitive prim;
  prim.mode = TINYGLTF_MODE_TRIANGLES;
  prim.material = material;
  const int pos_view = add_view(model, positions.data(), positions.size() * sizeof(positions[0]),
                                TINYGLTF_TARGET_ARRAY_BUFFER);
  const int pos = add_accessor(model, pos_view, TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_TYPE_VEC3,
                               positions.size());
  model.accessors[static_cast<std::size_t>(pos)].minValues = lo;
  model.accessors[static_cast<std::size_t>(pos)].maxValues = hi;
  const int nrm_view = add_view(model, normals.data(), normals.size() * sizeof(normals[0]),
                                TINYGLTF_TARGET_ARRAY_BUFFER);
  const int idx_view = add_view(model, mesh.indices.data(), mesh.indices.size() * 4,
                                TINYGLTF_TARGET_ELEMENT_ARRAY_BUFFER);
  prim.attributes["POSITION"] = pos;
  prim.attributes["NORMAL"] = add_accessor(model, nrm_view, TINYGLTF_COMPONENT_TYPE_FLOAT,
                                           TINYGLTF_TYPE_VEC3, normals.size());
  prim.indices = add_accessor(model, idx_view, TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT,
                              TINYGLTF_TYPE_SCALAR, mesh.indices.size());
  return prim;
}

}  // namespace

Result<std::vector<std::uint8_t>> city_glb(const layout::Output& city,
                                           const terrain::Heightfield& ground, const Config& config,
                                           const roads::Output* roads, const roads::Config& rules,
                                           const freeway::Output* freeway) {
  Result<std::vector<ChunkMeshes>> built =
      detail::build_city_meshes(city, ground, config, roads, rules, freeway);
  if (!built) {
    return built.error();
  }
  const std::vector<ChunkMeshes>& chunks = *built;

  tinygltf::Model model;
  model.asset.version = "2.0";
  model.asset.generator = "cityforge";
  model.buffers.emplace_back();

  // 1. Materials that occur somewhere, in part order (unused ones would be validator notes).
  std::array<int, kPartCount> material_of{};
  material_of.fill(-1);
  for (std::size_t p = 0; p < kPartCount; ++p) {
    for (const ChunkMeshes& chunk : chunks) {
      if (!chunk.parts[p].empty()) {
        material_of[p] = static_cast<int>(model.materials.size());
        model.materials.push_back(make_material(static_cast<Part>(p)));
        break;
      }
    }
  }

  // 2. The root node, then one node and one mesh per chunk.
  tinygltf::Node root;
  root.name = "city";
  model.nodes.push_back(root);
  for (const ChunkMeshes& chunk : chunks) {
    const std::string name = "chunk_" + std::to_string(chunk.cx) + "_" + std::to_string(chunk.cy);
    tinygltf::Mesh mesh;
    mesh.name = name;
    for (std::size_t p = 0; p < kPartCount; ++p) {
      if (chunk.parts[p].empty()) {
        continue;
      }
      Result<tinygltf::Primitive> prim =
          add_primitive(model, chunk.parts[p], material_of[p],
                        name + "." + detail::part_name(static_cast<Part>(p)));
      if (!prim) {
        return prim.error();
      }
      mesh.primitives.push_back(std::move(*prim));
    }
    model.meshes.push_back(std::move(mesh));
    tinygltf::Node node;
    node.name = name;
    node.mesh = static_cast<int>(model.meshes.size() - 1);
    model.nodes[0].children.push_back(static_cast<int>(model.nodes.size()));
    model.nodes.push_back(std::move(node));
  }
  tinygltf::Scene scene;
  scene.name = "city";
  scene.nodes.push_back(0);
  model.scenes.push_back(std::move(scene));
  model.defaultScene = 0;

  // 3. Serialise. The BIN chunk is padded to 4 bytes; an empty buffer is left out entirely.
  std::vector<unsigned char>& bin = model.buffers[0].data;
  bin.resize((bin.size() + 3) / 4 * 4, 0);
  if (bin.empty()) {
    model.buffers.clear();
  }
  std::ostringstream out(std::ios::binary);
  tinygltf::TinyGLTF writer;
  if (!writer.WriteGltfSceneToStream(&model, out, /*prettyPrint=*/false, /*writeBinary=*/true) ||
      !out) {
    return Error::internal("city.glb", "tinygltf failed to serialise the model");
  }
  const std::string bytes = out.str();
  return std::vector<std::uint8_t>(bytes.begin(), bytes.end());
}

}  // namespace cityforge::exporter
