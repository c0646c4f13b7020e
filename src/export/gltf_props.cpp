// SPDX-License-Identifier: Apache-2.0
// Set dressing props in city.glb: category -> chunk -> instances, so a viewer can stream and cull
// each kind of prop on its own (issue 5: streaming chunks).
#include "export/detail/gltf_props.hpp"

#include <cmath>
#include <map>
#include <string>

namespace cityforge::exporter::detail {
namespace {

/// Linear base colour and roughness per prop material.
struct Look {
  std::array<double, 3> rgb;
  double roughness;
  double metallic;
};
constexpr std::array<Look, dressing::kPropMaterialCount> kLooks{{
    {{0.42, 0.41, 0.39}, 0.9, 0.0},  // concrete
    {{0.33, 0.31, 0.29}, 0.9, 0.0},  // paving
    {{0.20, 0.21, 0.22}, 0.5, 0.8},  // metal
    {{0.55, 0.05, 0.04}, 0.6, 0.0},  // paint (hydrants, cars)
    {{0.30, 0.17, 0.08}, 0.8, 0.0},  // wood
    {{0.09, 0.22, 0.06}, 0.9, 0.0},  // foliage
    {{0.16, 0.10, 0.06}, 0.9, 0.0},  // bark
    {{0.20, 0.28, 0.33}, 0.1, 0.5},  // glass
    {{1.00, 0.85, 0.55}, 0.3, 0.0},  // light (emissive at night in the viewer)
    {{0.75, 0.75, 0.72}, 0.6, 0.0},  // sign
    {{0.03, 0.03, 0.03}, 0.9, 0.0},  // rubber
    // Decals: their images bring colour and opacity (add_textures); untextured they are fully
    // transparent (alpha 0 below), not dark rectangles.
    {{1.00, 1.00, 1.00}, 0.9, 0.0},   // grime
    {{1.00, 1.00, 1.00}, 0.9, 0.0},   // tyre_marks
    {{1.00, 1.00, 1.00}, 0.25, 0.0},  // oil
    {{1.00, 1.00, 1.00}, 0.9, 0.0},   // crack
}};

using ChunkKey = std::pair<std::int32_t, std::int32_t>;

}  // namespace

Status add_prop_nodes(tinygltf::Model& model, int root, const dressing::Output& dressing,
                      double chunk_m, InstanceWriter& writer,
                      const std::vector<std::uint32_t>* subset, const KitCache* kits) {
  const std::vector<dressing::PropDef>& catalog = dressing::prop_catalog();
  const std::size_t n = subset != nullptr ? subset->size() : dressing.items.size();
  // 1. Group: category -> chunk -> prop -> item indices (all in input order).
  std::map<std::size_t, std::map<ChunkKey, std::map<std::uint32_t, std::vector<std::uint32_t>>>>
      groups;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = subset != nullptr ? (*subset)[k] : k;
    const dressing::Item& it = dressing.items.at(i);
    const double cx = std::floor(it.position[0] / chunk_m);
    const double cy = std::floor(it.position[1] / chunk_m);
    if (it.prop >= catalog.size() || !std::isfinite(it.position[2]) || !std::isfinite(it.yaw_rad) ||
        !std::isfinite(it.scale_x) || !std::isfinite(it.scale_y) || !std::isfinite(it.scale_z) ||
        !(std::fabs(cx) < 1.0e9) || !(std::fabs(cy) < 1.0e9)) {
      return Error::invalid_input("dressing.items[" + std::to_string(i) + "]",
                                  "unknown prop, or a position, yaw or scale that is not finite");
    }
    groups[static_cast<std::size_t>(catalog[it.prop].category)]
          [{static_cast<std::int32_t>(cy), static_cast<std::int32_t>(cx)}][it.prop]
              .push_back(static_cast<std::uint32_t>(i));
  }
  if (groups.empty()) return Ok{};
  // 2. Materials and kit meshes of the props that occur.
  std::array<int, dressing::kPropMaterialCount> material_of{};
  material_of.fill(-1);
  std::map<std::uint32_t, KitMesh> kit_of;
  for (const auto& [category, chunks] : groups) {
    for (const auto& [key, props] : chunks) {
      for (const auto& [prop, list] : props) {
        if (kit_of.count(prop) != 0U) continue;
        const std::uint32_t id = prop;  // Structured bindings are not captured before clang 16.
        dressing::PropMesh mesh = cached_or(kits != nullptr ? &kits->props : nullptr, id,
                                            [&] { return dressing::build_prop_mesh(id); });
        KitMesh kit;
        kit.name = catalog[prop].id;
        for (std::size_t m = 0; m < dressing::kPropMaterialCount; ++m) {
          if (mesh.parts[m].empty()) continue;
          if (material_of[m] < 0) {
            tinygltf::Material mat;
            const auto pm = static_cast<dressing::PropMaterial>(m);
            const bool decal = dressing::is_decal(pm);
            mat.name = std::string(decal ? "decal." : "prop.") + dressing::to_string(pm);
            mat.pbrMetallicRoughness.baseColorFactor = {kLooks[m].rgb[0], kLooks[m].rgb[1],
                                                        kLooks[m].rgb[2], decal ? 0.0 : 1.0};
            // Decals blend over the surface under them (their alpha fades to 0 at the
            // borders), single sided.
            if (decal) mat.alphaMode = "BLEND";
            mat.pbrMetallicRoughness.roughnessFactor = kLooks[m].roughness;
            mat.pbrMetallicRoughness.metallicFactor = kLooks[m].metallic;
            material_of[m] = static_cast<int>(model.materials.size());
            model.materials.push_back(std::move(mat));
          }
          kit.parts.emplace_back(material_of[m], std::move(mesh.parts[m]));
        }
        kit_of.emplace(prop, std::move(kit));
      }
    }
  }
  // 3. Nodes: category, chunk, instances.
  for (const auto& [category, chunks] : groups) {
    const std::string cat_name =
        std::string("props_") + dressing::to_string(static_cast<dressing::Category>(category));
    tinygltf::Node cat_node;
    cat_node.name = cat_name;
    const int cat_index = static_cast<int>(model.nodes.size());
    model.nodes[static_cast<std::size_t>(root)].children.push_back(cat_index);
    model.nodes.push_back(std::move(cat_node));
    for (const auto& [key, props] : chunks) {
      tinygltf::Node chunk;
      chunk.name =
          cat_name + ".chunk_" + std::to_string(key.second) + "_" + std::to_string(key.first);
      const int chunk_index = static_cast<int>(model.nodes.size());
      model.nodes[static_cast<std::size_t>(cat_index)].children.push_back(chunk_index);
      model.nodes.push_back(std::move(chunk));
      for (const auto& [prop, list] : props) {
        std::vector<Placement> placements;
        placements.reserve(list.size());
        InstanceAttribute variant{"_VARIANT", false, {}, {}};
        InstanceAttribute state{"_STATE", false, {}, {}};
        for (const std::uint32_t i : list) {
          const dressing::Item& it = dressing.items[i];
          placements.push_back(
              Placement{it.position, it.yaw_rad, {it.scale_x, it.scale_y, it.scale_z}});
          variant.shorts.push_back(it.variant);
          state.shorts.push_back(it.state);
        }
        std::vector<InstanceAttribute> attrs{variant};
        if (catalog[prop].category == dressing::Category::lighting) attrs.push_back(state);
        if (Status s = writer.add(chunk_index, kit_of.at(prop), placements, attrs); !s) return s;
      }
    }
  }
  return Ok{};
}

}  // namespace cityforge::exporter::detail
