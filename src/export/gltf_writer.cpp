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
// With export.road_modules = "instanced" (and roads built), section carriageways are not baked:
//   meshes n.. are the road bricks that occur ("road_<class>_<length>m", brick order class then
//   size, one primitive in the class's road material), built in the module frame (+x along the
//   road from 0 to the module length, +y up, +z to the right of travel; curbs at road_raise_m +
//   class raise above the module origin, crowned, with skirts). After the chunk nodes come, per
//   chunk and brick, nodes "chunk_<cx>_<cy>.<brick>" (children of their chunk) carrying
//   EXT_mesh_gpu_instancing: TRANSLATION = module start (y-up), ROTATION = yaw about +y, pitch and
//   roll to the ground, SCALE = (module scale, 1, 1), float32, one element per module of that brick
//   whose start lies in the chunk. The extension is used, not required: viewers without it still
//   show the rest. A chunk holding only instances gets a chunk node without a mesh.
// tinygltf writes JSON through nlohmann::json (objects keyed in sorted order, doubles printed
// to round-trip), so the output is byte identical for identical inputs.

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cityforge/core/format.hpp"
#include "cityforge/export/export.hpp"
#include "export/city_meshes.hpp"
#include "export/detail/gltf_buildings.hpp"
#include "export/detail/gltf_city.hpp"
#include "export/detail/gltf_instances.hpp"
#include "export/detail/gltf_model.hpp"
#include "export/detail/gltf_props.hpp"
#include "export/detail/gltf_rooftops.hpp"
#include "export/detail/gltf_textures.hpp"
#include "export/detail/tinygltf.hpp"

namespace cityforge::exporter {

namespace {

static_assert(std::endian::native == std::endian::little,
              "glTF buffers are little endian; this writer copies memory as is");

using detail::add_accessor;
using detail::add_floats;
using detail::add_primitive;
using detail::add_view;
using detail::ChunkMeshes;
using detail::kPartCount;
using detail::Part;
using detail::Quat;
using detail::quat_axis;
using detail::quat_mul;
using detail::serialise_glb;
using detail::to_y_up;

/// Base colour (linear RGB) and roughness per part; nothing but water is metallic.
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
    {{0.16, 0.16, 0.17}, 0.95},  // roof: tar / membrane
    {{0.55, 0.53, 0.50}, 0.85},  // parapet: coping stone
    {{0.26, 0.45, 0.16}, 0.95},  // ground_grass
    {{0.22, 0.42, 0.14}, 0.95},  // ground_park
    {{0.08, 0.20, 0.06}, 0.95},  // ground_forest: dark green
    {{0.24, 0.30, 0.12}, 0.95},  // ground_scrub
    {{0.45, 0.40, 0.18}, 0.95},  // ground_farmland
    {{0.76, 0.68, 0.48}, 0.90},  // ground_sand
    {{0.42, 0.40, 0.37}, 0.90},  // ground_bare: rock
    {{0.06, 0.18, 0.30}, 0.15},  // ground_water (metallic, see make_material)
    {{0.40, 0.39, 0.37}, 0.90},  // ground_pavement
    {{0.20, 0.34, 0.16}, 0.95},  // ground_cemetery
    {{0.48, 0.46, 0.42}, 0.90},  // path: paved
}};

tinygltf::Material make_material(Part part) {
  tinygltf::Material m;
  m.name = detail::part_name(part);
  const Look& look = kLooks[static_cast<std::size_t>(part)];
  m.pbrMetallicRoughness.baseColorFactor = {look.rgb[0], look.rgb[1], look.rgb[2], 1.0};
  m.pbrMetallicRoughness.metallicFactor = part == Part::ground_water ? 0.3 : 0.0;
  m.pbrMetallicRoughness.roughnessFactor = look.roughness;
  return m;
}

// ---- Instanced road bricks (export.road_modules = "instanced") ------------------------------

constexpr const char* kInstancing = "EXT_mesh_gpu_instancing";
using roads::kBrickCount;  // 3 classes x 3 module sizes, brick = class * 3 + size

using detail::BrickInstances;
using detail::ChunkKey;

/// Groups the section modules (junction fill stays baked) by the chunk of their start point.
Result<BrickInstances> group_instances(const roads::Output& roads, double chunk_m) {
  BrickInstances out;
  for (std::size_t i = 0; i < roads.modules.size(); ++i) {
    const roads::ModuleInstance& m = roads.modules[i];
    if (m.in_intersection) continue;
    const std::string where = "roads.modules[" + std::to_string(i) + "]";
    if (m.road_class >= 3 || m.size >= 3) {
      return Error::invalid_input(where, "expected road_class and size < 3, got " +
                                             std::to_string(m.road_class) + " and " +
                                             std::to_string(m.size));
    }
    const double cx = std::floor(m.position.x / chunk_m);
    const double cy = std::floor(m.position.y / chunk_m);
    if (!std::isfinite(m.position.z) || !std::isfinite(m.yaw_rad) || !std::isfinite(m.scale) ||
        !(std::fabs(cx) < 1.0e9) || !(std::fabs(cy) < 1.0e9)) {
      return Error::invalid_input(where, "position, yaw or scale is not finite (or too far)");
    }
    const ChunkKey key{static_cast<std::int32_t>(cy), static_cast<std::int32_t>(cx)};
    out[key][std::size_t{m.road_class} * 3 + m.size].push_back(&m);
  }
  return out;
}

/// "road_local_20m": the brick's mesh name.
std::string brick_name(std::size_t brick, const roads::Brick& b) {
  return std::string(
             detail::part_name(detail::road_part(static_cast<layout::RoadClass>(brick / 3)))) +
         "_" + format_g9(b.length_m) + "m";
}

/// Each instance is pitched and rolled so the brick runs from the ground at its start to the
/// ground at its end and leans with the cross slope: a level brick would sink into the ground.
tinygltf::Node instance_node(tinygltf::Model& model, const std::string& name, int mesh,
                             const std::vector<const roads::ModuleInstance*>& modules,
                             const terrain::Heightfield& ground, const roads::Brick& brick) {
  std::vector<float> t;
  std::vector<float> r;
  std::vector<float> s;
  for (const roads::ModuleInstance* m : modules) {
    const std::array<float, 3> p =
        to_y_up({static_cast<float>(m->position.x), static_cast<float>(m->position.y),
                 static_cast<float>(m->position.z)});
    t.insert(t.end(), p.begin(), p.end());
    // A yaw about engine +z is the same angle about glTF +y (the axes map (x, y, z) -> (x, z, -y)).
    // The brick is first rolled about its own +x (so its cross-section follows the ground's
    // cross slope) and pitched about its own +z (so it ends on the ground at its end):
    // q = q_yaw * q_pitch * q_roll.
    const double run = brick.length_m * m->scale;
    const Vec2 start{m->position.x, m->position.y};
    const Vec2 dir{std::cos(m->yaw_rad), std::sin(m->yaw_rad)};
    const double pitch =
        run > 0.0 ? std::atan2(ground.sample(start + dir * run) - m->position.z, run) : 0.0;
    const double reach = 0.5 * brick.width_m;
    // `cross` is the ground's rise from the left of travel (perp(dir), the brick's -z) to the
    // right (+z) per metre; rolling about +x by -atan(cross) raises +z by that slope.
    const double cross = reach > 0.0 ? (ground.sample(start - perp(dir) * reach) -
                                        ground.sample(start + perp(dir) * reach)) /
                                           (2.0 * reach)
                                     : 0.0;
    const Quat q = quat_mul(quat_mul(quat_axis(1, m->yaw_rad), quat_axis(2, pitch)),
                            quat_axis(0, -std::atan(cross)));
    r.insert(r.end(), {static_cast<float>(q[0]), static_cast<float>(q[1]), static_cast<float>(q[2]),
                       static_cast<float>(q[3])});
    s.insert(s.end(), {static_cast<float>(m->scale), 1.0f, 1.0f});
  }
  tinygltf::Value::Object attributes;
  attributes["TRANSLATION"] = tinygltf::Value(add_floats(model, t, TINYGLTF_TYPE_VEC3, 3));
  attributes["ROTATION"] = tinygltf::Value(add_floats(model, r, TINYGLTF_TYPE_VEC4, 4));
  attributes["SCALE"] = tinygltf::Value(add_floats(model, s, TINYGLTF_TYPE_VEC3, 3));
  tinygltf::Value::Object ext;
  ext["attributes"] = tinygltf::Value(std::move(attributes));
  tinygltf::Node node;
  node.name = name;
  node.mesh = mesh;
  node.extensions[kInstancing] = tinygltf::Value(std::move(ext));
  return node;
}

/// Adds the used brick meshes and, under each chunk node, one instancing node per brick.
Status add_instanced_bricks(tinygltf::Model& model, const BrickInstances& instances,
                            const std::map<ChunkKey, int>& chunk_node,
                            const terrain::Heightfield& ground,
                            const std::array<roads::Brick, kBrickCount>& bricks_built,
                            const std::array<int, kPartCount>& material_of) {
  // 1. One mesh per brick that occurs somewhere, in brick order.
  std::array<int, kBrickCount> mesh_of{};
  mesh_of.fill(-1);
  for (std::size_t b = 0; b < kBrickCount; ++b) {
    bool used = false;
    for (const auto& [key, bricks] : instances)
      used = used || !bricks[b].empty();
    if (!used) continue;
    const auto c = static_cast<layout::RoadClass>(b / 3);
    const std::string name = brick_name(b, bricks_built[b]);
    const Mesh& brick = bricks_built[b].mesh;
    if (brick.indices.empty()) {
      return Error::invalid_input(name, "expected a module length and road width > 0");
    }
    const int material = material_of[static_cast<std::size_t>(detail::road_part(c))];
    Result<tinygltf::Primitive> prim = add_primitive(model, brick, material, name);
    if (!prim) return prim.error();
    tinygltf::Mesh mesh;
    mesh.name = name;
    mesh.primitives.push_back(std::move(*prim));
    mesh_of[b] = static_cast<int>(model.meshes.size());
    model.meshes.push_back(std::move(mesh));
  }
  // 2. Instancing nodes, chunk by chunk, brick by brick.
  for (const auto& [key, bricks] : instances) {
    const int parent = chunk_node.at(key);
    for (std::size_t b = 0; b < kBrickCount; ++b) {
      if (bricks[b].empty()) continue;
      const std::string name =
          model.nodes[static_cast<std::size_t>(parent)].name + "." + brick_name(b, bricks_built[b]);
      tinygltf::Node node =
          instance_node(model, name, mesh_of[b], bricks[b], ground, bricks_built[b]);
      model.nodes[static_cast<std::size_t>(parent)].children.push_back(
          static_cast<int>(model.nodes.size()));
      model.nodes.push_back(std::move(node));
    }
  }
  model.extensionsUsed.emplace_back(kInstancing);
  return Ok{};
}

}  // namespace

namespace detail {

tinygltf::Material part_material(Part part) { return make_material(part); }

std::array<double, 3> part_colour(Part part) { return kLooks[static_cast<std::size_t>(part)].rgb; }

Result<BrickInstances> group_road_instances(const roads::Output& roads, double chunk_m) {
  return group_instances(roads, chunk_m);
}

Status add_road_bricks(tinygltf::Model& model, const BrickInstances& instances,
                       const std::map<ChunkKey, int>& chunk_node,
                       const terrain::Heightfield& ground,
                       const std::array<roads::Brick, roads::kBrickCount>& bricks,
                       const std::array<int, kPartCount>& material_of) {
  return add_instanced_bricks(model, instances, chunk_node, ground, bricks, material_of);
}

Result<std::map<ChunkKey, int>> add_chunk_nodes(tinygltf::Model& model,
                                                const std::map<ChunkKey, const ChunkMeshes*>& keys,
                                                const std::array<int, kPartCount>& material_of,
                                                const std::string& where) {
  std::map<ChunkKey, int> chunk_node;
  for (const auto& [key, chunk] : keys) {
    const std::string name =
        "chunk_" + std::to_string(key.second) + "_" + std::to_string(key.first);
    tinygltf::Node node;
    node.name = name;
    if (chunk != nullptr) {
      tinygltf::Mesh mesh;
      mesh.name = name;
      for (std::size_t p = 0; p < kPartCount; ++p) {
        if (chunk->parts[p].empty()) continue;
        Result<tinygltf::Primitive> prim =
            add_primitive(model, chunk->parts[p], material_of[p],
                          where + name + "." + part_name(static_cast<Part>(p)));
        if (!prim) return prim.error();
        mesh.primitives.push_back(std::move(*prim));
      }
      model.meshes.push_back(std::move(mesh));
      node.mesh = static_cast<int>(model.meshes.size() - 1);
    }
    chunk_node[key] = static_cast<int>(model.nodes.size());
    model.nodes[0].children.push_back(static_cast<int>(model.nodes.size()));
    model.nodes.push_back(std::move(node));
  }
  return chunk_node;
}

}  // namespace detail

Result<std::vector<std::uint8_t>> city_glb(const CityGlbInputs& in) {
  const Config& config = in.settings;
  const buildings::Output* buildings = in.buildings;
  const dressing::Output* dressing = in.dressing;
  const rooftops::RooftopOutput* rooftops = in.rooftops;
  if ((buildings == nullptr) != (in.styles == nullptr)) {
    return Error::internal("city.glb", "buildings need their style library (and back)");
  }
  Result<detail::ChunkList> built = detail::chunk_city_meshes(in);
  if (!built) {
    return built.error();
  }
  const detail::ChunkList& chunks = *built;
  // Section modules become instances only when the road stage built one section per edge, as
  // chunk_city_meshes then leaves their ribbons out.
  const bool instanced = detail::instanced_roads(in);
  BrickInstances instances;
  if (instanced) {
    Result<BrickInstances> grouped = group_instances(*in.roads, config.chunk_m);
    if (!grouped) return grouped.error();
    instances = std::move(*grouped);
  }
  detail::BuildingGroups building_groups;
  if (buildings != nullptr) {
    Result<detail::BuildingGroups> grouped =
        detail::group_building_instances(*buildings, config.chunk_m);
    if (!grouped) return grouped.error();
    building_groups = std::move(*grouped);
  }

  tinygltf::Model model;
  model.asset.version = "2.0";
  model.asset.generator = "cityforge";
  // Imported places carry their data's attribution and where the local frame sits on Earth.
  if (!config.attribution.empty()) model.asset.copyright = config.attribution;
  if (config.georeferenced) {
    tinygltf::Value::Object geo;
    geo["origin_lon_deg"] = tinygltf::Value(config.origin_lon_deg);
    geo["origin_lat_deg"] = tinygltf::Value(config.origin_lat_deg);
    geo["local_crs"] = tinygltf::Value(config.local_crs);
    geo["axes"] = tinygltf::Value(std::string("glTF x = east, y = up, z = south (metres)"));
    tinygltf::Value::Object extras;
    extras["cityforge_georeference"] = tinygltf::Value(std::move(geo));
    model.asset.extras = tinygltf::Value(std::move(extras));
  }
  model.buffers.emplace_back();
  {
    // Reserve the BIN chunk once: growing a buffer of hundreds of MB copies it again and again.
    // Per vertex: position, normal, TEXCOORD_0 and, normal-mapped, TANGENT.
    const bool textured = config.textures != pipeline::TextureSize::none;
    std::size_t bytes = 0;
    for (const ChunkMeshes& chunk : chunks) {
      for (const Mesh& m : chunk.parts)
        bytes += m.positions.size() * (textured ? 48 : 32) + m.indices.size() * 4 + 24;
    }
    if (buildings != nullptr) bytes += buildings->instances.size() * 48;
    if (dressing != nullptr) bytes += dressing->items.size() * 44;
    if (rooftops != nullptr) bytes += rooftops->instances.size() * 40;
    if (instanced) bytes += in.roads->modules.size() * 48;
    // The PNG images (36 at most, about a quarter of their raw size; 5 decal images).
    const std::size_t px = pipeline::texture_pixels(config.textures);
    bytes += px * px * 3 * 36 / 4 + px * px * 4 * 5 / 4;
    model.buffers[0].data.reserve(bytes + (1U << 20));
  }

  // 1. Materials that occur somewhere, in part order (unused ones would be validator notes).
  std::array<int, kPartCount> material_of{};
  material_of.fill(-1);
  for (std::size_t p = 0; p < kPartCount; ++p) {
    bool used = false;
    for (const ChunkMeshes& chunk : chunks)
      used = used || !chunk.parts[p].empty();
    for (const auto& [key, bricks] : instances) {
      for (std::size_t b = 0; b < kBrickCount; ++b) {
        used = used ||
               (!bricks[b].empty() &&
                detail::road_part(static_cast<layout::RoadClass>(b / 3)) == static_cast<Part>(p));
      }
    }
    if (used) {
      material_of[p] = static_cast<int>(model.materials.size());
      model.materials.push_back(make_material(static_cast<Part>(p)));
    }
  }

  // 2. The root node, then one node per chunk (chunks holding only instances get a node without
  // a mesh) and one mesh per chunk with meshes.
  tinygltf::Node root;
  root.name = "city";
  model.nodes.push_back(root);
  std::map<ChunkKey, const ChunkMeshes*> keys;
  for (const ChunkMeshes& chunk : chunks)
    keys[{chunk.cy, chunk.cx}] = &chunk;
  for (const auto& [key, bricks] : instances)
    keys.try_emplace(key, nullptr);
  for (const auto& [key, modules] : building_groups)
    keys.try_emplace(key, nullptr);
  Result<std::map<ChunkKey, int>> chunk_nodes =
      detail::add_chunk_nodes(model, keys, material_of, "");
  if (!chunk_nodes) return chunk_nodes.error();
  const std::map<ChunkKey, int>& chunk_node = *chunk_nodes;
  if (instanced) {
    if (Status s = add_instanced_bricks(model, instances, chunk_node, in.terrain,
                                        roads::road_bricks(*in.road_surfaces), material_of);
        !s) {
      return s.error();
    }
  }
  detail::InstanceWriter writer(model, config.instances);
  if (buildings != nullptr) {
    if (Status st = detail::add_building_nodes(model, building_groups, chunk_node,
                                               buildings->instances, *in.styles, writer);
        !st) {
      return st.error();
    }
  }
  if (dressing != nullptr) {
    if (Status st = detail::add_prop_nodes(model, 0, *dressing, config.chunk_m, writer); !st) {
      return st.error();
    }
  }
  if (rooftops != nullptr) {
    if (Status st = detail::add_rooftop_nodes(
            model, 0, *rooftops, config.chunk_m * detail::kRooftopRegionChunks, writer);
        !st) {
      return st.error();
    }
  }
  if (Status st = writer.finish(); !st) return st.error();
  if (Status st = detail::add_textures(model, in.styles, pipeline::texture_pixels(config.textures),
                                       "city.glb");
      !st) {
    return st.error();
  }
  return serialise_glb(model, "city");
}

Result<std::vector<std::uint8_t>> building_glb(const buildings::Output& building,
                                               const buildings::StyleLibrary& styles) {
  tinygltf::Model model;
  model.asset.version = "2.0";
  model.asset.generator = "cityforge";
  model.buffers.emplace_back();
  tinygltf::Node root;
  root.name = "building";
  model.nodes.push_back(root);
  // Roofs in their style's roof and trim colours, one primitive each.
  tinygltf::Mesh roof;
  roof.name = "roof";
  for (std::size_t b = 0; b < building.roofs.size() && b < building.buildings.size(); ++b) {
    const buildings::Style& style = styles.styles.at(building.buildings[b].style);
    for (const buildings::Material m : {buildings::Material::roof, buildings::Material::trim}) {
      const Mesh& part = building.roofs[b][static_cast<std::size_t>(m)];
      if (part.empty()) continue;
      tinygltf::Material mat;
      mat.name = style.name + ".roof." + buildings::to_string(m);
      const auto c = detail::linear_colour(style.palette[static_cast<std::size_t>(m)]);
      mat.pbrMetallicRoughness.baseColorFactor = {c[0], c[1], c[2], c[3]};
      mat.pbrMetallicRoughness.metallicFactor = 0.0;
      mat.pbrMetallicRoughness.roughnessFactor = 0.9;
      const std::string where = mat.name;
      model.materials.push_back(std::move(mat));
      Result<tinygltf::Primitive> prim =
          add_primitive(model, part, static_cast<int>(model.materials.size() - 1), where);
      if (!prim) return prim.error();
      roof.primitives.push_back(std::move(*prim));
    }
  }
  if (!roof.primitives.empty()) {
    model.meshes.push_back(std::move(roof));
    tinygltf::Node node;
    node.name = "building.roof";
    node.mesh = static_cast<int>(model.meshes.size() - 1);
    model.nodes[0].children.push_back(static_cast<int>(model.nodes.size()));
    model.nodes.push_back(std::move(node));
  }
  // Every module in one group under the root.
  Result<detail::BuildingGroups> grouped = detail::group_building_instances(building, 1.0e6);
  if (!grouped) return grouped.error();
  detail::BuildingGroups one;
  for (auto& [key, modules] : *grouped) {
    for (auto& [module, list] : modules) {
      auto& dst = one[{0, 0}][module];
      dst.insert(dst.end(), list.begin(), list.end());
    }
  }
  for (auto& [key, modules] : one) {
    for (auto& [module, list] : modules)
      std::sort(list.begin(), list.end());
  }
  detail::InstanceWriter writer(model, pipeline::InstanceMode::ext);
  if (Status s =
          detail::add_building_nodes(model, one, {{{0, 0}, 0}}, building.instances, styles, writer);
      !s) {
    return s.error();
  }
  if (Status s = detail::add_textures(model, &styles, pipeline::texture_pixels(Config{}.textures),
                                      "building.glb");
      !s) {
    return s.error();
  }
  return serialise_glb(model, "building");
}

}  // namespace cityforge::exporter
