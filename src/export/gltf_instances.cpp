// SPDX-License-Identifier: Apache-2.0
// Instances of kit meshes in city.glb, three ways: EXT_mesh_gpu_instancing (compact, for engines
// and three.js), a node per instance (for tools that ignore the extension, such as Blender 3.4,
// which imports one copy of an instanced node), or baked into merged meshes (any tool).
// Based on: Khronos, EXT_mesh_gpu_instancing extension specification.
#include "export/detail/gltf_instances.hpp"

#include <algorithm>
#include <cmath>

#include "export/detail/gltf_model.hpp"

namespace cityforge::exporter::detail {
namespace {

constexpr const char* kInstancing = "EXT_mesh_gpu_instancing";

/// Applies scale, then yaw, then translation to a point (engine frame).
std::array<float, 3> place_point(const Placement& p, const std::array<float, 3>& v) {
  const double c = std::cos(p.yaw_rad);
  const double s = std::sin(p.yaw_rad);
  const double x = v[0] * p.scale[0];
  const double y = v[1] * p.scale[1];
  const double z = v[2] * p.scale[2];
  return {static_cast<float>(p.position[0] + c * x - s * y),
          static_cast<float>(p.position[1] + s * x + c * y), static_cast<float>(p.position[2] + z)};
}

/// Normals take the inverse scale (inverse transpose of a diagonal), then the yaw.
std::array<float, 3> place_normal(const Placement& p, const std::array<float, 3>& n) {
  const double c = std::cos(p.yaw_rad);
  const double s = std::sin(p.yaw_rad);
  double x = n[0] / std::max(1e-6f, std::fabs(p.scale[0]));
  double y = n[1] / std::max(1e-6f, std::fabs(p.scale[1]));
  double z = n[2] / std::max(1e-6f, std::fabs(p.scale[2]));
  const double len = std::sqrt(x * x + y * y + z * z);
  if (len > 0.0) {
    x /= len;
    y /= len;
    z /= len;
  }
  return {static_cast<float>(c * x - s * y), static_cast<float>(s * x + c * y),
          static_cast<float>(z)};
}

/// A TEXCOORD_1 accessor (float32 VEC2) for `prim`.
Status add_uv1(tinygltf::Model& model, tinygltf::Primitive& prim,
               const std::vector<std::array<float, 2>>& uv, std::size_t vertices,
               const std::string& where) {
  if (uv.size() != vertices) {
    return Error::internal(where, std::to_string(uv.size()) + " second texture coordinates for " +
                                      std::to_string(vertices) + " vertices");
  }
  const int view =
      add_view(model, uv.data(), uv.size() * sizeof(uv[0]), TINYGLTF_TARGET_ARRAY_BUFFER);
  prim.attributes["TEXCOORD_1"] =
      add_accessor(model, view, TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_TYPE_VEC2, uv.size());
  return Ok{};
}

}  // namespace

Status InstanceWriter::ensure_mesh(KitMesh& kit) {
  if (kit.gltf_mesh >= 0) return Ok{};
  tinygltf::Mesh mesh;
  mesh.name = kit.name;
  for (std::size_t k = 0; k < kit.parts.size(); ++k) {
    const auto& [material, part] = kit.parts[k];
    Result<tinygltf::Primitive> prim = add_primitive(m_model, part, material, kit.name);
    if (!prim) return prim.error();
    if (!kit.uv1.empty()) {
      if (Status s = add_uv1(m_model, *prim, kit.uv1.at(k), part.positions.size(), kit.name); !s)
        return s;
    }
    mesh.primitives.push_back(std::move(*prim));
  }
  kit.gltf_mesh = static_cast<int>(m_model.meshes.size());
  m_model.meshes.push_back(std::move(mesh));
  return Ok{};
}

Status InstanceWriter::add(int parent, KitMesh& kit, const std::vector<Placement>& placements,
                           const std::vector<InstanceAttribute>& attributes) {
  if (placements.empty() || kit.parts.empty()) return Ok{};
  const auto parent_index = static_cast<std::size_t>(parent);
  if (m_mode == pipeline::InstanceMode::bake) {
    // Positive scales only, so the winding survives.
    std::map<int, Mesh>& target = m_baked[parent];
    for (std::size_t k = 0; k < kit.parts.size(); ++k) {
      const auto& [material, part] = kit.parts[k];
      Mesh& dst = target[material];
      std::vector<std::array<float, 2>>& dst_uv1 = m_baked_uv1[parent][material];
      if (!kit.uv1.empty()) {
        // Zeros for what kits without a second set put here before.
        dst_uv1.resize(dst.positions.size(), {0.0f, 0.0f});
        for (std::size_t n = 0; n < placements.size(); ++n)
          dst_uv1.insert(dst_uv1.end(), kit.uv1.at(k).begin(), kit.uv1.at(k).end());
      }
      Mesh placed;
      placed.indices = part.indices;
      for (const Placement& p : placements) {
        // World texture coordinates by the kit mesh's own rule, placed: the modules of a facade
        // meet with the same coordinates (planar_uvs).
        placed.positions.clear();
        placed.normals.clear();
        for (std::size_t i = 0; i < part.positions.size(); ++i) {
          placed.positions.push_back(place_point(p, part.positions[i]));
          placed.normals.push_back(place_normal(p, part.normals[i]));
        }
        // Parts with their own coordinates (decals: 0..1 over the quad) keep them.
        placed.uvs = part.uvs.empty() ? planar_uvs(placed) : part.uvs;
        dst.append(placed);
      }
    }
    return Ok{};
  }
  if (Status s = ensure_mesh(kit); !s) return s;
  const std::string prefix = m_model.nodes[parent_index].name + "." + kit.name;
  if (m_mode == pipeline::InstanceMode::nodes) {
    for (std::size_t i = 0; i < placements.size(); ++i) {
      const Placement& p = placements[i];
      tinygltf::Node node;
      node.name = prefix + "." + std::to_string(i);
      node.mesh = kit.gltf_mesh;
      const std::array<float, 3> t = to_y_up(p.position);
      node.translation = {t[0], t[1], t[2]};
      const Quat q = quat_axis(1, p.yaw_rad);
      node.rotation = {q[0], q[1], q[2], q[3]};
      // Engine (x, y, z) scale -> glTF (x, z, y).
      node.scale = {p.scale[0], p.scale[2], p.scale[1]};
      m_model.nodes[parent_index].children.push_back(static_cast<int>(m_model.nodes.size()));
      m_model.nodes.push_back(std::move(node));
    }
    return Ok{};
  }
  // ext: one instancing node.
  std::vector<float> t;
  std::vector<std::int16_t> r;
  std::vector<float> sc;
  t.reserve(placements.size() * 3);
  r.reserve(placements.size() * 4);
  sc.reserve(placements.size() * 3);
  for (const Placement& p : placements) {
    const std::array<float, 3> y = to_y_up(p.position);
    t.insert(t.end(), y.begin(), y.end());
    // A yaw about engine +z is the same angle about glTF +y; unit quaternions as normalised
    // shorts (the extension allows it).
    const Quat q = quat_axis(1, p.yaw_rad);
    for (const double c : q)
      r.push_back(static_cast<std::int16_t>(std::lround(std::clamp(c, -1.0, 1.0) * 32767.0)));
    sc.insert(sc.end(), {p.scale[0], p.scale[2], p.scale[1]});
  }
  tinygltf::Value::Object attrs;
  attrs["TRANSLATION"] = tinygltf::Value(add_floats(m_model, t, TINYGLTF_TYPE_VEC3, 3));
  const int rot_view = add_view(m_model, r.data(), r.size() * sizeof(std::int16_t), 0);
  const int rot = add_accessor(m_model, rot_view, TINYGLTF_COMPONENT_TYPE_SHORT, TINYGLTF_TYPE_VEC4,
                               placements.size());
  m_model.accessors[static_cast<std::size_t>(rot)].normalized = true;
  attrs["ROTATION"] = tinygltf::Value(rot);
  attrs["SCALE"] = tinygltf::Value(add_floats(m_model, sc, TINYGLTF_TYPE_VEC3, 3));
  for (const InstanceAttribute& a : attributes) {
    if (a.wide) {
      attrs[a.name] = tinygltf::Value(add_floats(m_model, a.floats, TINYGLTF_TYPE_SCALAR, 1));
    } else {
      const int view = add_view(m_model, a.shorts.data(), a.shorts.size() * 2, 0);
      attrs[a.name] =
          tinygltf::Value(add_accessor(m_model, view, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT,
                                       TINYGLTF_TYPE_SCALAR, a.shorts.size()));
    }
  }
  tinygltf::Value::Object ext;
  ext["attributes"] = tinygltf::Value(std::move(attrs));
  tinygltf::Node node;
  node.name = prefix;
  node.mesh = kit.gltf_mesh;
  node.extensions[kInstancing] = tinygltf::Value(std::move(ext));
  m_model.nodes[parent_index].children.push_back(static_cast<int>(m_model.nodes.size()));
  m_model.nodes.push_back(std::move(node));
  if (std::find(m_model.extensionsUsed.begin(), m_model.extensionsUsed.end(), kInstancing) ==
      m_model.extensionsUsed.end()) {
    m_model.extensionsUsed.emplace_back(kInstancing);
  }
  return Ok{};
}

Status InstanceWriter::finish() {
  for (auto& [parent, by_material] : m_baked) {
    tinygltf::Mesh mesh;
    const auto parent_index = static_cast<std::size_t>(parent);
    mesh.name = m_model.nodes[parent_index].name + ".baked";
    for (auto& [material, part] : by_material) {
      if (part.indices.empty()) continue;
      Result<tinygltf::Primitive> prim = add_primitive(m_model, part, material, mesh.name);
      if (!prim) return prim.error();
      std::vector<std::array<float, 2>>& uv1 = m_baked_uv1[parent][material];
      if (!uv1.empty()) {
        uv1.resize(part.positions.size(), {0.0f, 0.0f});
        if (Status s = add_uv1(m_model, *prim, uv1, part.positions.size(), mesh.name); !s) return s;
        uv1 = {};
      }
      mesh.primitives.push_back(std::move(*prim));
      part = Mesh{};  // Free as we go: baked cities are large.
    }
    if (mesh.primitives.empty()) continue;
    tinygltf::Node node;
    node.name = mesh.name;
    node.mesh = static_cast<int>(m_model.meshes.size());
    m_model.meshes.push_back(std::move(mesh));
    m_model.nodes[parent_index].children.push_back(static_cast<int>(m_model.nodes.size()));
    m_model.nodes.push_back(std::move(node));
  }
  m_baked.clear();
  m_baked_uv1.clear();
  return Ok{};
}

}  // namespace cityforge::exporter::detail
