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
#include "export/detail/gltf_instances.hpp"
#include "export/detail/gltf_model.hpp"

namespace cityforge::exporter::detail {
namespace {

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
/// The module's extent across the facade and up, over all its parts: {x0, x1, z0, z1} (module
/// frame: x along the facade, y out of the wall, z up).
std::array<double, 4> module_extent(const buildings::ModuleMesh& mesh) {
  std::array<double, 4> e{1e300, -1e300, 1e300, -1e300};
  for (const Mesh& part : mesh.parts) {
    for (const auto& p : part.positions) {
      e[0] = std::min(e[0], double{p[0]});
      e[1] = std::max(e[1], double{p[0]});
      e[2] = std::min(e[2], double{p[2]});
      e[3] = std::max(e[3], double{p[2]});
    }
  }
  return e;
}

/// TEXCOORD_1 of a module part: 0..1 across the module's extent, u left to right seen from
/// outside (along +x), v down from its top (glTF's image convention), every vertex projected
/// onto the facade plane. The same numbers for every instance, whatever its scale: a per-module
/// mask space (grime towards a module's foot, worn edges, a per-module variation).
std::vector<std::array<float, 2>> module_uvs(const Mesh& part, const std::array<double, 4>& e) {
  const double w = std::max(e[1] - e[0], 1e-6);
  const double h = std::max(e[3] - e[2], 1e-6);
  std::vector<std::array<float, 2>> uv;
  uv.reserve(part.positions.size());
  for (const auto& p : part.positions) {
    uv.push_back({static_cast<float>((e[1] - p[0]) / w), static_cast<float>((e[3] - p[2]) / h)});
  }
  return uv;
}

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
  if (!out.instances_kept) {
    return Error::internal("buildings.instances",
                           "not kept (buildings keep_instances false): city.glb needs them all");
  }
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
                          const std::vector<buildings::Instance>& instances,
                          const buildings::StyleLibrary& library, InstanceWriter& writer,
                          const std::vector<std::uint32_t>* feature_of, const KitCache* kits) {
  // 1. Which modules occur, in module number order.
  std::map<std::uint32_t, bool> used;
  for (const auto& [key, modules] : groups) {
    for (const auto& [module, list] : modules)
      used[module] = true;
  }
  if (used.empty()) return Ok{};
  // 2. Materials per (style, kit material) as the modules need them; a kit mesh per module.
  std::map<std::pair<std::uint32_t, std::size_t>, int> material_of;
  std::map<std::uint32_t, KitMesh> kit_of;
  for (const auto& [module, yes] : used) {
    if (module >= library.module_count()) {
      return Error::invalid_input("buildings.instances", "module number " + std::to_string(module) +
                                                             " is not in the style library");
    }
    const std::uint32_t s = library.style_of(module);
    const buildings::Style& style = library.styles[s];
    const buildings::ModuleDef& def = library.module(module);
    buildings::ModuleMesh mesh = cached_or(kits != nullptr ? &kits->modules : nullptr, module, [&] {
      return buildings::build_module_mesh(def, mesh_height(style, def));
    });
    KitMesh kit;
    kit.name = def.id;
    const std::array<double, 4> frame = module_extent(mesh);
    for (std::size_t m = 0; m < buildings::kMaterialCount; ++m) {
      if (mesh.parts[m].empty()) continue;
      kit.uv1.push_back(module_uvs(mesh.parts[m], frame));
      auto [it, fresh] = material_of.try_emplace({s, m}, static_cast<int>(model.materials.size()));
      if (fresh) {
        tinygltf::Material mat;
        mat.name = style.name + "." + buildings::to_string(static_cast<buildings::Material>(m));
        const auto c = linear_colour(style.palette[m]);
        mat.pbrMetallicRoughness.baseColorFactor = {c[0], c[1], c[2], c[3]};
        mat.pbrMetallicRoughness.roughnessFactor = kFinish[m].roughness;
        mat.pbrMetallicRoughness.metallicFactor = kFinish[m].metallic;
        model.materials.push_back(std::move(mat));
      }
      kit.parts.emplace_back(it->second, std::move(mesh.parts[m]));
    }
    kit_of.emplace(module, std::move(kit));
  }
  // 3. Instances, chunk by chunk, module by module.
  for (const auto& [key, modules] : groups) {
    const int parent = chunk_node.at(key);
    for (const auto& [module, list] : modules) {
      std::vector<Placement> placements;
      placements.reserve(list.size());
      InstanceAttribute building{"_BUILDING", true, {}, {}};
      InstanceAttribute floor{"_FLOOR", false, {}, {}};
      InstanceAttribute room{"_ROOM", false, {}, {}};
      InstanceAttribute feature{"_FEATURE_ID_0", true, {}, {}};
      for (const std::uint32_t i : list) {
        const buildings::Instance& in = instances[i];
        // Module frame: x along the facade (width), y out of the wall, z up (height).
        placements.push_back(Placement{in.position, in.yaw_rad, {in.scale_x, 1.0f, in.scale_z}});
        building.floats.push_back(static_cast<float>(in.building));
        floor.shorts.push_back(in.floor);
        room.shorts.push_back(in.room >= kNoRoomShort ? kNoRoomShort
                                                      : static_cast<std::uint16_t>(in.room));
        if (feature_of != nullptr)
          feature.floats.push_back(static_cast<float>(feature_of->at(in.building)));
      }
      std::vector<InstanceAttribute> attributes{building, floor, room};
      if (feature_of != nullptr) attributes.push_back(std::move(feature));
      if (Status s = writer.add(parent, kit_of.at(module), placements, attributes); !s) return s;
    }
  }
  return Ok{};
}

buildings::ModuleMesh module_kit_mesh(const buildings::StyleLibrary& library,
                                      std::uint32_t module) {
  const buildings::Style& style = library.styles[library.style_of(module)];
  const buildings::ModuleDef& def = library.module(module);
  return buildings::build_module_mesh(def, mesh_height(style, def));
}

}  // namespace cityforge::exporter::detail
