// SPDX-License-Identifier: Apache-2.0
// Builder: the small glTF writer of builder.hpp over a tinygltf::Model, with the views,
// accessors and GLB serialisation the exporters use (model.cpp, glb.cpp).
// Based on: The Khronos Group, glTF 2.0 Specification (accessors, materials, meshes, nodes).
#include "cityforge/gltf/builder.hpp"

#include <algorithm>
#include <type_traits>
#include <utility>

#include "cityforge/gltf/tinygltf_model.hpp"

namespace cityforge::gltf {

struct Builder::Impl {
  tinygltf::Model model;
};

Builder::Builder() : m_impl(std::make_unique<Impl>()) {
  m_impl->model.asset.version = "2.0";
  m_impl->model.asset.generator = "cityforge";
  m_impl->model.buffers.emplace_back();
}
Builder::~Builder() = default;
void Builder::reserve(std::size_t bytes) { m_impl->model.buffers[0].data.reserve(bytes); }
Builder::Builder(Builder&&) noexcept = default;
Builder& Builder::operator=(Builder&&) noexcept = default;

void Builder::set_extras(const std::map<std::string, Extra>& extras) {
  tinygltf::Value::Object object;
  for (const auto& [key, value] : extras) {
    object[key] = std::visit(
        [](const auto& v) {
          if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::vector<double>>) {
            tinygltf::Value::Array array;
            for (const double x : v)
              array.emplace_back(x);
            return tinygltf::Value(std::move(array));
          } else {
            return tinygltf::Value(v);
          }
        },
        value);
  }
  m_impl->model.asset.extras = tinygltf::Value(std::move(object));
}

int Builder::add_material(const Material& material) {
  tinygltf::Material m;
  m.name = material.name;
  const auto& c = material.base_colour;
  m.pbrMetallicRoughness.baseColorFactor = {c[0], c[1], c[2], c[3]};
  m.pbrMetallicRoughness.metallicFactor = material.metallic;
  m.pbrMetallicRoughness.roughnessFactor = material.roughness;
  if (material.blend) m.alphaMode = "BLEND";
  m_impl->model.materials.push_back(std::move(m));
  return static_cast<int>(m_impl->model.materials.size() - 1);
}

int Builder::add_vec3(std::span<const std::array<float, 3>> values, bool bounds) {
  tinygltf::Model& model = m_impl->model;
  const int view =
      add_view(model, values.data(), values.size_bytes(), TINYGLTF_TARGET_ARRAY_BUFFER);
  const int acc =
      add_accessor(model, view, TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_TYPE_VEC3, values.size());
  if (bounds) {
    std::vector<double> lo(3, 0.0), hi(3, 0.0);
    for (std::size_t i = 0; i < values.size(); ++i) {
      for (std::size_t k = 0; k < 3; ++k) {
        // Exact float values as doubles: the validator compares them with the data.
        const double x = values[i][k];
        lo[k] = i == 0 ? x : std::min(lo[k], x);
        hi[k] = i == 0 ? x : std::max(hi[k], x);
      }
    }
    model.accessors[static_cast<std::size_t>(acc)].minValues = lo;
    model.accessors[static_cast<std::size_t>(acc)].maxValues = hi;
  }
  return acc;
}

int Builder::add_vec2(std::span<const std::array<float, 2>> values) {
  tinygltf::Model& model = m_impl->model;
  const int view =
      add_view(model, values.data(), values.size_bytes(), TINYGLTF_TARGET_ARRAY_BUFFER);
  return add_accessor(model, view, TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_TYPE_VEC2,
                      values.size());
}

int Builder::add_vec4_u8(std::span<const std::array<std::uint8_t, 4>> values) {
  tinygltf::Model& model = m_impl->model;
  const int view =
      add_view(model, values.data(), values.size_bytes(), TINYGLTF_TARGET_ARRAY_BUFFER);
  const int acc = add_accessor(model, view, TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE,
                               TINYGLTF_TYPE_VEC4, values.size());
  model.accessors[static_cast<std::size_t>(acc)].normalized = true;
  return acc;
}

int Builder::add_indices(std::span<const std::uint32_t> indices) {
  tinygltf::Model& model = m_impl->model;
  const int view =
      add_view(model, indices.data(), indices.size_bytes(), TINYGLTF_TARGET_ELEMENT_ARRAY_BUFFER);
  return add_accessor(model, view, TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT, TINYGLTF_TYPE_SCALAR,
                      indices.size());
}

int Builder::add_image(const std::string& name, std::span<const std::uint8_t> bytes,
                       const std::string& mime_type) {
  tinygltf::Model& model = m_impl->model;
  tinygltf::Image image;
  image.name = name;
  image.bufferView = add_view(model, bytes.data(), bytes.size(), 0);
  image.mimeType = mime_type;
  model.images.push_back(std::move(image));
  return static_cast<int>(model.images.size() - 1);
}

int Builder::add_mesh(const std::string& name, const std::vector<Primitive>& primitives) {
  tinygltf::Mesh mesh;
  mesh.name = name;
  for (const Primitive& p : primitives) {
    tinygltf::Primitive prim;
    prim.mode = TINYGLTF_MODE_TRIANGLES;
    prim.material = p.material;
    prim.indices = p.indices;
    for (const auto& [attribute, accessor] : p.attributes)
      prim.attributes[attribute] = accessor;
    mesh.primitives.push_back(std::move(prim));
  }
  m_impl->model.meshes.push_back(std::move(mesh));
  return static_cast<int>(m_impl->model.meshes.size() - 1);
}

int Builder::add_node(const Node& node) {
  tinygltf::Node n;
  n.name = node.name;
  n.mesh = node.mesh;
  n.children = node.children;
  m_impl->model.nodes.push_back(std::move(n));
  return static_cast<int>(m_impl->model.nodes.size() - 1);
}

Result<std::vector<std::uint8_t>> Builder::glb(const std::string& scene_name) {
  return serialise_glb(m_impl->model, scene_name);
}

}  // namespace cityforge::gltf
