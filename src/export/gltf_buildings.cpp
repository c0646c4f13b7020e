// SPDX-License-Identifier: Apache-2.0
// Building modules in city.glb and building.glb: one kit mesh per module that occurs, instanced
// per chunk with EXT_mesh_gpu_instancing (seeds/000: the city is mostly instances of a small set
// of modules; DESIGN.md "Instances, kits and meshes").
// Based on: Khronos, EXT_mesh_gpu_instancing extension specification (custom attributes start
// with an underscore).
#include "export/detail/gltf_buildings.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "cityforge/buildings/kit.hpp"
#include "export/detail/gltf_model.hpp"

namespace cityforge::exporter::detail {
namespace {

constexpr const char* kInstancing = "EXT_mesh_gpu_instancing";
constexpr std::uint16_t kNoRoomShort = 0xFFFF;  // _ROOM of modules outside every room.

/// Roughness and metalness per kit material: glass is smooth and a little metallic so it
/// catches the sky; masonry is rough.
struct Finish {
  double roughness;
  double metallic;
};
constexpr std::array<Finish, buildings::kMaterialCount> kFinish{{
    {0.90, 0.0},  // wall
    {0.75, 0.0},  // trim
    {0.08, 0.6},  // glass
    {0.50, 0.3},  // frame
    {0.60, 0.0},  // door
    {0.95, 0.0},  // roof
    {0.45, 0.7},  // metal
    {0.50, 0.0},  // sign
}};

/// Height the kit builds a module at; instances scale it to their floor.
double mesh_height(const buildings::Style& style, const buildings::ModuleDef& def) {
  return def.height_m > 0.0 ? def.height_m : style.typical.height_m;
}

}  // namespace

std::array<double, 4> linear_colour(const std::array<float, 3>& srgb) {
  std::array<double, 4> c{0.0, 0.0, 0.0, 1.0};
  for (std::size_t k = 0; k < 3; ++k) {
    const double v = std::clamp(static_cast<double>(srgb[k]), 0.0, 1.0);
    c[k] = v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
  }
  return c;
}

Result<BuildingGroups> group_building_instances(const buildings::Output& out, double chunk_m) {
  BuildingGroups groups;
  for (std::size_t i = 0; i < out.instances.size(); ++i) {
    const buildings::Instance& in = out.instances[i];
    const double cx = std::floor(in.position[0] / chunk_m);
    const double cy = std::floor(in.position[1] / chunk_m);
    if (!std::isfinite(in.position[2]) || !std::isfinite(in.yaw_rad) ||
        !std::isfinite(in.scale_x) || !std::isfinite(in.scale_z) || !(std::fabs(cx) < 1.0e9) ||
        !(std::fabs(cy) < 1.0e9)) {
      return Error::invalid_input("buildings.instances[" + std::to_string(i) + "]",
                                  "position, yaw or scale is not finite (or too far)");
    }
    groups[{static_cast<std::int32_t>(cy), static_cast<std::int32_t>(cx)}][in.module].push_back(
        static_cast<std::uint32_t>(i));
  }
  return groups;
}

Status add_building_nodes(tinygltf::Model& model, const BuildingGroups& groups,
                          const std::map<BuildingChunkKey, int>& chunk_node,
                          const buildings::Output& out, const buildings::StyleLibrary& library) {
  // 1. Which modules occur, in module number order.
  std::map<std::uint32_t, bool> used;
  for (const auto& [key, modules] : groups) {
    for (const auto& [module, list] : modules)
      used[module] = true;
  }
  if (used.empty()) return Ok{};
  // 2. Materials per (style, kit material) as the modules need them; meshes per module.
  std::map<std::pair<std::uint32_t, std::size_t>, int> material_of;
  std::map<std::uint32_t, int> mesh_of;
  for (const auto& [module, yes] : used) {
    if (module >= library.module_count()) {
      return Error::invalid_input("buildings.instances", "module number " + std::to_string(module) +
                                                             " is not in the style library");
    }
    const std::uint32_t s = library.style_of(module);
    const buildings::Style& style = library.styles[s];
    const buildings::ModuleDef& def = library.module(module);
    const buildings::ModuleMesh kit = buildings::build_module_mesh(def, mesh_height(style, def));
    tinygltf::Mesh mesh;
    mesh.name = def.id;
    for (std::size_t m = 0; m < buildings::kMaterialCount; ++m) {
      if (kit.parts[m].empty()) continue;
      auto [it, fresh] = material_of.try_emplace({s, m}, static_cast<int>(model.materials.size()));
      if (fresh) {
        tinygltf::Material mat;
        mat.name = style.name + "." + buildings::to_string(static_cast<buildings::Material>(m));
        mat.pbrMetallicRoughness.baseColorFactor = {};
        const auto c = linear_colour(style.palette[m]);
        mat.pbrMetallicRoughness.baseColorFactor = {c[0], c[1], c[2], c[3]};
        mat.pbrMetallicRoughness.roughnessFactor = kFinish[m].roughness;
        mat.pbrMetallicRoughness.metallicFactor = kFinish[m].metallic;
        model.materials.push_back(std::move(mat));
      }
      Result<tinygltf::Primitive> prim =
          add_primitive(model, kit.parts[m], it->second,
                        def.id + "." + buildings::to_string(static_cast<buildings::Material>(m)));
      if (!prim) return prim.error();
      mesh.primitives.push_back(std::move(*prim));
    }
    if (mesh.primitives.empty()) continue;  // A module without geometry is placed but unseen.
    mesh_of[module] = static_cast<int>(model.meshes.size());
    model.meshes.push_back(std::move(mesh));
  }
  // 3. Instancing nodes, chunk by chunk, module by module.
  for (const auto& [key, modules] : groups) {
    const int parent = chunk_node.at(key);
    for (const auto& [module, list] : modules) {
      const auto found = mesh_of.find(module);
      if (found == mesh_of.end()) continue;
      std::vector<float> t;
      std::vector<std::int16_t> r;
      std::vector<float> sc;
      std::vector<float> building;
      std::vector<std::uint16_t> floor;
      std::vector<std::uint16_t> room;
      t.reserve(list.size() * 3);
      r.reserve(list.size() * 4);
      sc.reserve(list.size() * 3);
      for (const std::uint32_t i : list) {
        const buildings::Instance& in = out.instances[i];
        const std::array<float, 3> p = to_y_up(in.position);
        t.insert(t.end(), p.begin(), p.end());
        // A yaw about engine +z is the same angle about glTF +y; rotations are unit
        // quaternions, stored as normalised shorts (the extension allows it).
        const Quat q = quat_axis(1, in.yaw_rad);
        for (const double c : q)
          r.push_back(static_cast<std::int16_t>(std::lround(std::clamp(c, -1.0, 1.0) * 32767.0)));
        // Engine (x, y, z) scale -> glTF (x, z, y): width, height, depth.
        sc.insert(sc.end(), {in.scale_x, in.scale_z, 1.0f});
        building.push_back(static_cast<float>(in.building));
        floor.push_back(in.floor);
        room.push_back(in.room >= kNoRoomShort ? kNoRoomShort
                                               : static_cast<std::uint16_t>(in.room));
      }
      tinygltf::Value::Object attributes;
      attributes["TRANSLATION"] = tinygltf::Value(add_floats(model, t, TINYGLTF_TYPE_VEC3, 3));
      const int rot_view = add_view(model, r.data(), r.size() * sizeof(std::int16_t), 0);
      const int rot = add_accessor(model, rot_view, TINYGLTF_COMPONENT_TYPE_SHORT,
                                   TINYGLTF_TYPE_VEC4, list.size());
      model.accessors[static_cast<std::size_t>(rot)].normalized = true;
      attributes["ROTATION"] = tinygltf::Value(rot);
      attributes["SCALE"] = tinygltf::Value(add_floats(model, sc, TINYGLTF_TYPE_VEC3, 3));
      attributes["_BUILDING"] =
          tinygltf::Value(add_floats(model, building, TINYGLTF_TYPE_SCALAR, 1));
      const int floor_view = add_view(model, floor.data(), floor.size() * 2, 0);
      attributes["_FLOOR"] =
          tinygltf::Value(add_accessor(model, floor_view, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT,
                                       TINYGLTF_TYPE_SCALAR, floor.size()));
      const int room_view = add_view(model, room.data(), room.size() * 2, 0);
      attributes["_ROOM"] =
          tinygltf::Value(add_accessor(model, room_view, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT,
                                       TINYGLTF_TYPE_SCALAR, room.size()));
      tinygltf::Value::Object ext;
      ext["attributes"] = tinygltf::Value(std::move(attributes));
      tinygltf::Node node;
      node.name =
          model.nodes[static_cast<std::size_t>(parent)].name + "." + library.module(module).id;
      node.mesh = found->second;
      node.extensions[kInstancing] = tinygltf::Value(std::move(ext));
      model.nodes[static_cast<std::size_t>(parent)].children.push_back(
          static_cast<int>(model.nodes.size()));
      model.nodes.push_back(std::move(node));
    }
  }
  if (std::find(model.extensionsUsed.begin(), model.extensionsUsed.end(), kInstancing) ==
      model.extensionsUsed.end()) {
    model.extensionsUsed.emplace_back(kInstancing);
  }
  return Ok{};
}

}  // namespace cityforge::exporter::detail
