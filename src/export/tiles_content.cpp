// SPDX-License-Identifier: Apache-2.0
// The content of one tile: a leaf is a small city.glb of its chunks with its buildings' metadata
// (EXT_mesh_features, EXT_instance_features, EXT_structural_metadata); a parent is its HLOD
// stand-in. Based on: OGC 3D Tiles 1.1 (glTF content) and the Cesium glTF extensions
// EXT_mesh_features and EXT_structural_metadata (property tables: one bufferView per
// property, 8-byte aligned; strings as UTF-8 bytes with UINT32 offsets).

#include "export/detail/tiles_content.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <utility>

#include "export/detail/gltf_buildings.hpp"
#include "export/detail/gltf_compress.hpp"
#include "export/detail/gltf_instances.hpp"
#include "export/detail/gltf_model.hpp"
#include "export/detail/gltf_props.hpp"
#include "export/detail/gltf_rooftops.hpp"

namespace cityforge::exporter::detail {

namespace {

constexpr const char* kMeshFeatures = "EXT_mesh_features";
constexpr const char* kInstanceFeatures = "EXT_instance_features";
constexpr const char* kMetadata = "EXT_structural_metadata";
constexpr const char* kGpuInstancing = "EXT_mesh_gpu_instancing";

/// glTF y-up back to the engine's z-up: glb (x, y, z) = engine (x, z, -y).
std::array<double, 3> to_engine(double x, double y, double z) { return {x, -z, y}; }

/// An accessor's elements as floats (float32, or normalised signed shorts).
std::vector<float> read_floats(const tinygltf::Model& model, int accessor) {
  const tinygltf::Accessor& a = model.accessors.at(static_cast<std::size_t>(accessor));
  const tinygltf::BufferView& v = model.bufferViews.at(static_cast<std::size_t>(a.bufferView));
  const unsigned char* p = model.buffers[0].data.data() + v.byteOffset + a.byteOffset;
  const std::size_t n = a.count * static_cast<std::size_t>(tinygltf::GetNumComponentsInType(
                                      static_cast<std::uint32_t>(a.type)));
  std::vector<float> out(n);
  if (a.componentType == TINYGLTF_COMPONENT_TYPE_FLOAT) {
    std::memcpy(out.data(), p, n * sizeof(float));
  } else if (a.componentType == TINYGLTF_COMPONENT_TYPE_SHORT) {
    for (std::size_t i = 0; i < n; ++i) {
      std::int16_t s = 0;
      std::memcpy(&s, p + 2 * i, 2);
      out[i] = std::max(static_cast<float>(s) / 32767.0f, -1.0f);
    }
  }
  return out;
}

/// The bounds of a mesh's POSITION accessors (glTF frame).
void mesh_bounds(const tinygltf::Model& model, int mesh, std::array<double, 3>& lo,
                 std::array<double, 3>& hi) {
  lo = {1e300, 1e300, 1e300};
  hi = {-1e300, -1e300, -1e300};
  for (const tinygltf::Primitive& p : model.meshes.at(static_cast<std::size_t>(mesh)).primitives) {
    const tinygltf::Accessor& a =
        model.accessors.at(static_cast<std::size_t>(p.attributes.at("POSITION")));
    for (std::size_t k = 0; k < 3; ++k) {
      lo[k] = std::min(lo[k], a.minValues.at(k));
      hi[k] = std::max(hi[k], a.maxValues.at(k));
    }
  }
}

/// Everything the model draws, in the engine frame: plain meshes by their accessor bounds,
/// instanced meshes by the eight corners of their mesh box under every instance's transform.
/// Nodes carry no transforms of their own (city.glb's convention).
Box3 model_bounds(const tinygltf::Model& model) {
  Box3 box;
  for (const tinygltf::Node& node : model.nodes) {
    if (node.mesh < 0) continue;
    std::array<double, 3> lo{};
    std::array<double, 3> hi{};
    mesh_bounds(model, node.mesh, lo, hi);
    const auto ext = node.extensions.find(kGpuInstancing);
    if (ext == node.extensions.end()) {
      box.add(to_engine(lo[0], lo[1], lo[2]));
      box.add(to_engine(hi[0], hi[1], hi[2]));
      continue;
    }
    const tinygltf::Value& attrs = ext->second.Get("attributes");
    const std::vector<float> t = read_floats(model, attrs.Get("TRANSLATION").GetNumberAsInt());
    const std::vector<float> r = read_floats(model, attrs.Get("ROTATION").GetNumberAsInt());
    const std::vector<float> s = read_floats(model, attrs.Get("SCALE").GetNumberAsInt());
    const std::array<double, 3> c{(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2};
    const std::array<double, 3> h{(hi[0] - lo[0]) / 2, (hi[1] - lo[1]) / 2, (hi[2] - lo[2]) / 2};
    const std::size_t n = t.size() / 3;
    for (std::size_t i = 0; i < n; ++i) {
      // The instance's box: its centre moved by the instance transform, its half extents by
      // the absolute rotation matrix (the box of the rotated box).
      double q[4] = {r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]};
      const double len = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
      for (double& v : q)
        v /= len > 0.0 ? len : 1.0;
      const double xx = q[0] * q[0], yy = q[1] * q[1], zz = q[2] * q[2];
      const double xy = q[0] * q[1], xz = q[0] * q[2], yz = q[1] * q[2];
      const double wx = q[3] * q[0], wy = q[3] * q[1], wz = q[3] * q[2];
      const double rm[3][3] = {{1 - 2 * (yy + zz), 2 * (xy - wz), 2 * (xz + wy)},
                               {2 * (xy + wz), 1 - 2 * (xx + zz), 2 * (yz - wx)},
                               {2 * (xz - wy), 2 * (yz + wx), 1 - 2 * (xx + yy)}};
      const double sc[3] = {c[0] * s[3 * i], c[1] * s[3 * i + 1], c[2] * s[3 * i + 2]};
      const double sh[3] = {h[0] * std::fabs(s[3 * i]), h[1] * std::fabs(s[3 * i + 1]),
                            h[2] * std::fabs(s[3 * i + 2])};
      std::array<double, 3> mid{};
      std::array<double, 3> half{};
      for (std::size_t k = 0; k < 3; ++k) {
        mid[k] = rm[k][0] * sc[0] + rm[k][1] * sc[1] + rm[k][2] * sc[2] + t[3 * i + k];
        half[k] = std::fabs(rm[k][0]) * sh[0] + std::fabs(rm[k][1]) * sh[1] +
                  std::fabs(rm[k][2]) * sh[2] + 1e-4;
      }
      box.add(to_engine(mid[0] - half[0], mid[1] - half[1], mid[2] - half[2]));
      box.add(to_engine(mid[0] + half[0], mid[1] + half[1], mid[2] + half[2]));
    }
  }
  return box;
}

/// Appends bytes as a bufferView of buffer 0 starting on an 8-byte boundary (property tables
/// require it).
int add_view8(tinygltf::Model& model, const void* data, std::size_t bytes) {
  std::vector<unsigned char>& buf = model.buffers[0].data;
  buf.resize((buf.size() + 7) / 8 * 8, 0);
  return add_view(model, data, bytes, 0);
}

tinygltf::Value object(std::initializer_list<std::pair<const std::string, tinygltf::Value>> kv) {
  return tinygltf::Value(tinygltf::Value::Object(kv));
}

/// Adds the EXT_structural_metadata schema and one property table of class "building" with a
/// row per id of `ids` (in that order); returns the table's index (0).
int add_building_table(tinygltf::Model& model, const CityGlbInputs& in,
                       const std::vector<std::uint32_t>& ids) {
  const buildings::Output& bo = *in.buildings;
  std::vector<std::uint32_t> id;
  std::vector<std::uint16_t> floors;
  std::vector<float> height;
  std::vector<std::int64_t> osm;
  std::string style_bytes;
  std::string zone_bytes;
  std::vector<std::uint32_t> style_offsets{0};
  std::vector<std::uint32_t> zone_offsets{0};
  bool any_osm = false;
  for (const std::uint32_t b : ids) {
    const buildings::Building& bd = bo.buildings.at(b);
    id.push_back(bd.id);
    floors.push_back(static_cast<std::uint16_t>(std::min<std::uint32_t>(bd.floors, 65535)));
    height.push_back(static_cast<float>(bd.height_m));
    style_bytes += bd.style < in.styles->styles.size() ? in.styles->styles[bd.style].name : "";
    style_offsets.push_back(static_cast<std::uint32_t>(style_bytes.size()));
    std::int64_t osm_id = 0;
    if (in.lots != nullptr && bd.lot < in.lots->lots.size()) {
      const lots::Lot& lot = in.lots->lots[bd.lot];
      zone_bytes += layout::to_string(lot.zone);
      if (bd.parcel < lot.parcels.size()) osm_id = lot.parcels[bd.parcel].dna.osm_id;
    }
    zone_offsets.push_back(static_cast<std::uint32_t>(zone_bytes.size()));
    osm.push_back(osm_id);
    any_osm = any_osm || osm_id != 0;
  }
  tinygltf::Value::Object props;
  tinygltf::Value::Object table_props;
  auto scalar = [&](const std::string& key, const char* component, const void* data,
                    std::size_t bytes, const std::string& description) {
    props[key] = object({{"type", tinygltf::Value(std::string("SCALAR"))},
                         {"componentType", tinygltf::Value(std::string(component))},
                         {"description", tinygltf::Value(description)}});
    table_props[key] = object({{"values", tinygltf::Value(add_view8(model, data, bytes))}});
  };
  auto text = [&](const std::string& key, const std::string& bytes,
                  const std::vector<std::uint32_t>& offsets, const std::string& description) {
    props[key] = object({{"type", tinygltf::Value(std::string("STRING"))},
                         {"description", tinygltf::Value(description)}});
    const int values = add_view8(model, bytes.data(), bytes.size());
    const int offs = add_view8(model, offsets.data(), offsets.size() * 4);
    table_props[key] = object({{"values", tinygltf::Value(values)},
                               {"stringOffsets", tinygltf::Value(offs)},
                               {"stringOffsetType", tinygltf::Value(std::string("UINT32"))}});
  };
  scalar("id", "UINT32", id.data(), id.size() * 4, "Building id (layout.geojson layer building)");
  text("style", style_bytes, style_offsets, "Building style name");
  scalar("floors", "UINT16", floors.data(), floors.size() * 2, "Number of floors");
  scalar("height_m", "FLOAT32", height.data(), height.size() * 4, "Height above its base (m)");
  if (in.lots != nullptr) text("zone", zone_bytes, zone_offsets, "Zone of its lot");
  if (any_osm) {
    scalar("osm_id", "INT64", osm.data(), osm.size() * 8,
           "OpenStreetMap way (> 0) or relation (< 0) id");
  }
  tinygltf::Value::Object classes;
  classes["building"] = object({{"name", tinygltf::Value(std::string("Building"))},
                                {"properties", tinygltf::Value(std::move(props))}});
  tinygltf::Value::Object schema;
  schema["id"] = tinygltf::Value(std::string("cityforge"));
  schema["classes"] = tinygltf::Value(std::move(classes));
  tinygltf::Value::Object table;
  table["class"] = tinygltf::Value(std::string("building"));
  table["count"] = tinygltf::Value(static_cast<int>(ids.size()));
  table["properties"] = tinygltf::Value(std::move(table_props));
  tinygltf::Value::Array tables{tinygltf::Value(std::move(table))};
  tinygltf::Value::Object ext;
  ext["schema"] = tinygltf::Value(std::move(schema));
  ext["propertyTables"] = tinygltf::Value(std::move(tables));
  model.extensions[kMetadata] = tinygltf::Value(std::move(ext));
  return 0;
}

/// featureIds entry of EXT_mesh_features / EXT_instance_features.
tinygltf::Value feature_ids(std::size_t count, int table) {
  tinygltf::Value::Object f;
  f["featureCount"] = tinygltf::Value(static_cast<int>(count));
  f["attribute"] = tinygltf::Value(0);
  f["propertyTable"] = tinygltf::Value(table);
  tinygltf::Value::Object ext;
  ext["featureIds"] = tinygltf::Value(tinygltf::Value::Array{tinygltf::Value(std::move(f))});
  return tinygltf::Value(std::move(ext));
}

/// Marks every instancing node that carries _FEATURE_ID_0 with EXT_instance_features.
void mark_instance_features(tinygltf::Model& model, int table) {
  for (tinygltf::Node& node : model.nodes) {
    const auto ext = node.extensions.find(kGpuInstancing);
    if (ext == node.extensions.end() || !ext->second.Get("attributes").Has("_FEATURE_ID_0")) {
      continue;
    }
    const int acc = ext->second.Get("attributes").Get("_FEATURE_ID_0").GetNumberAsInt();
    const std::vector<float> ids = read_floats(model, acc);
    const std::set<float> distinct(ids.begin(), ids.end());
    node.extensions[kInstanceFeatures] = feature_ids(distinct.size(), table);
  }
}

/// A Mesh primitive with a per-vertex _FEATURE_ID_0 (float) and EXT_mesh_features.
Result<tinygltf::Primitive> feature_primitive(tinygltf::Model& model, const Mesh& mesh,
                                              const std::vector<float>& feature, int material,
                                              int table, const std::string& where) {
  Result<tinygltf::Primitive> prim = add_primitive(model, mesh, material, where);
  if (!prim) return prim;
  const int view =
      add_view(model, feature.data(), feature.size() * 4, TINYGLTF_TARGET_ARRAY_BUFFER);
  prim->attributes["_FEATURE_ID_0"] = add_accessor(model, view, TINYGLTF_COMPONENT_TYPE_FLOAT,
                                                   TINYGLTF_TYPE_SCALAR, feature.size());
  const std::set<float> distinct(feature.begin(), feature.end());
  prim->extensions[kMeshFeatures] = feature_ids(distinct.size(), table);
  return prim;
}

void use_extensions(tinygltf::Model& model, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    if (std::find(model.extensionsUsed.begin(), model.extensionsUsed.end(), n) ==
        model.extensionsUsed.end()) {
      model.extensionsUsed.emplace_back(n);
    }
  }
  std::sort(model.extensionsUsed.begin(), model.extensionsUsed.end());
}

tinygltf::Model new_model(const CityGlbInputs& in) {
  tinygltf::Model model;
  model.asset.version = "2.0";
  model.asset.generator = "cityforge";
  if (!in.settings.attribution.empty()) model.asset.copyright = in.settings.attribution;
  model.buffers.emplace_back();
  return model;
}

Result<TileFile> finish(tinygltf::Model& model, const std::string& name, bool meshopt) {
  TileFile out;
  out.bounds = model_bounds(model);
  if (meshopt) {
    if (Status s = compress_meshopt(model); !s) {
      return Error{s.error().code, name + ": " + s.error().where, s.error().message};
    }
  }
  Result<std::vector<std::uint8_t>> glb = serialise_glb(model, name);
  if (!glb) return glb.error();
  out.bytes = std::move(*glb);
  return out;
}

/// A linear colour as opaque 8-bit RGBA.
std::array<std::uint8_t, 4> rgba(double r, double g, double b) {
  auto u8 = [](double v) {
    return static_cast<std::uint8_t>(std::lround(std::clamp(v, 0.0, 1.0) * 255.0));
  };
  return {u8(r), u8(g), u8(b), 255};
}

std::array<std::uint8_t, 4> part_rgba(Part p) {
  const std::array<double, 3> c = part_colour(p);
  return rgba(c[0], c[1], c[2]);
}

std::array<std::uint8_t, 4> rgba(const std::array<double, 4>& c) { return rgba(c[0], c[1], c[2]); }

}  // namespace

void Box3::add(const std::array<double, 3>& p) {
  for (std::size_t k = 0; k < 3; ++k) {
    lo[k] = std::min(lo[k], p[k]);
    hi[k] = std::max(hi[k], p[k]);
  }
}

void Box3::add(const Box3& b) {
  if (b.empty()) return;
  add(b.lo);
  add(b.hi);
}

Result<TileFile> leaf_tile(const CityGlbInputs& in, const CityTiling& tiling,
                           const LeafItems& items, const KitCache& kits, double group_m,
                           const std::string& name, bool meshopt, const TextureSet* textures,
                           const std::string& texture_uri) {
  tinygltf::Model model = new_model(in);
  // 1. Materials of the parts that occur (chunk meshes, road bricks, roofs), in part order.
  std::array<bool, kPartCount> used{};
  for (const ChunkMeshes* c : items.chunks) {
    for (std::size_t p = 0; p < kPartCount; ++p)
      used[p] = used[p] || !c->parts[p].empty();
  }
  for (const ChunkKey& key : items.brick_chunks) {
    const auto& bricks = tiling.bricks.at(key);
    for (std::size_t b = 0; b < roads::kBrickCount; ++b) {
      if (!bricks[b].empty()) {
        used[static_cast<std::size_t>(road_part(static_cast<layout::RoadClass>(b / 3)))] = true;
      }
    }
  }
  constexpr std::array<std::pair<buildings::Material, Part>, 3> kRoofParts{
      {{buildings::Material::roof, Part::roof},
       {buildings::Material::trim, Part::parapet},
       {buildings::Material::wall, Part::volume}}};
  if (in.buildings != nullptr) {
    for (const std::uint32_t b : items.buildings) {
      for (const auto& [m, p] : kRoofParts) {
        if (!in.buildings->roofs.at(b)[static_cast<std::size_t>(m)].empty()) {
          used[static_cast<std::size_t>(p)] = true;
        }
      }
    }
  }
  std::array<int, kPartCount> material_of{};
  material_of.fill(-1);
  for (std::size_t p = 0; p < kPartCount; ++p) {
    if (!used[p]) continue;
    material_of[p] = static_cast<int>(model.materials.size());
    model.materials.push_back(part_material(static_cast<Part>(p)));
  }
  // 2. Root and chunk nodes: every chunk with meshes, road bricks or buildings.
  tinygltf::Node root;
  root.name = "city";
  model.nodes.push_back(root);
  std::map<ChunkKey, const ChunkMeshes*> keys;
  for (const ChunkMeshes* c : items.chunks)
    keys[{c->cy, c->cx}] = c;
  for (const ChunkKey& k : items.brick_chunks)
    keys.try_emplace(k, nullptr);
  // The leaf's facade modules: the buildings stage's, or made again here from their lots when
  // it kept none (a tiled region: no rank holds the whole city's).
  BuildingGroups groups;
  std::vector<buildings::Instance> instances;
  if (in.buildings != nullptr) {
    Result<std::vector<buildings::Instance>> mine =
        buildings::instances_of(*in.buildings, items.buildings, in.facades);
    if (!mine) return mine.error();
    instances = std::move(*mine);
    std::uint32_t i = 0;
    for (const std::uint32_t b : items.buildings) {
      const buildings::Building& bd = in.buildings->buildings[b];
      if (bd.instance_count == 0) continue;
      const ChunkKey key = tiling.building_chunk[b];
      keys.try_emplace(key, nullptr);
      for (std::uint32_t k = 0; k < bd.instance_count; ++k, ++i)
        groups[key][instances[i].module].push_back(i);
    }
  }
  Result<std::map<ChunkKey, int>> chunk_nodes =
      add_chunk_nodes(model, keys, material_of, name + ": ");
  if (!chunk_nodes) return chunk_nodes.error();
  const std::map<ChunkKey, int>& chunk_node = *chunk_nodes;
  // 3. Road bricks of this leaf's chunks.
  if (!items.brick_chunks.empty()) {
    BrickInstances mine;
    for (const ChunkKey& k : items.brick_chunks)
      mine.emplace(k, tiling.bricks.at(k));
    if (Status s =
            add_road_bricks(model, mine, chunk_node, in.terrain, tiling.brick_meshes, material_of);
        !s) {
      return s.error();
    }
  }
  // 4. Buildings: the property table, roofs with feature ids, facade modules.
  InstanceWriter writer(model, pipeline::InstanceMode::ext);
  const bool with_buildings = in.buildings != nullptr && !items.buildings.empty();
  if (with_buildings) {
    const int table = add_building_table(model, in, items.buildings);
    std::vector<std::uint32_t> row_of(in.buildings->buildings.size(), 0);
    for (std::size_t r = 0; r < items.buildings.size(); ++r)
      row_of[items.buildings[r]] = static_cast<std::uint32_t>(r);
    tinygltf::Mesh roofs;
    roofs.name = "buildings";
    for (const auto& [m, p] : kRoofParts) {
      Mesh merged;
      std::vector<float> feature;
      for (const std::uint32_t b : items.buildings) {
        const Mesh& part = in.buildings->roofs[b][static_cast<std::size_t>(m)];
        merged.append(part);
        feature.insert(feature.end(), part.positions.size(), static_cast<float>(row_of[b]));
      }
      if (merged.empty()) continue;
      Result<tinygltf::Primitive> prim =
          feature_primitive(model, merged, feature, material_of[static_cast<std::size_t>(p)], table,
                            name + ": buildings." + part_name(p));
      if (!prim) return prim.error();
      roofs.primitives.push_back(std::move(*prim));
    }
    if (!roofs.primitives.empty()) {
      model.meshes.push_back(std::move(roofs));
      tinygltf::Node node;
      node.name = "buildings";
      node.mesh = static_cast<int>(model.meshes.size() - 1);
      model.nodes[0].children.push_back(static_cast<int>(model.nodes.size()));
      model.nodes.push_back(std::move(node));
    }
    if (Status s = add_building_nodes(model, groups, chunk_node, instances, *in.styles, writer,
                                      &row_of, &kits);
        !s) {
      return s.error();
    }
  }
  // 5. Props and rooftops of this leaf.
  if (in.dressing != nullptr && !items.props.empty()) {
    if (Status s = add_prop_nodes(model, 0, *in.dressing, group_m, writer, &items.props, &kits);
        !s) {
      return s.error();
    }
  }
  if (in.rooftops != nullptr && !items.rooftops.empty()) {
    if (Status s =
            add_rooftop_nodes(model, 0, *in.rooftops, group_m, writer, &items.rooftops, &kits);
        !s) {
      return s.error();
    }
  }
  if (Status s = writer.finish(); !s) return s.error();
  if (with_buildings) {
    mark_instance_features(model, 0);
    use_extensions(model, {kMeshFeatures, kInstanceFeatures, kMetadata});
  }
  if (textures != nullptr) {
    apply_textures(model, in.styles, *textures, texture_uri);
    std::sort(model.extensionsUsed.begin(), model.extensionsUsed.end());
  }
  return finish(model, name, meshopt);
}

Result<TileFile> parent_tile(const CityGlbInputs& in, const HlodMesh& ground,
                             const HlodMesh& buildings, const std::string& name, bool meshopt) {
  tinygltf::Model model = new_model(in);
  tinygltf::Node root;
  root.name = "hlod";
  model.nodes.push_back(root);
  auto material = [&](const char* mname) {
    tinygltf::Material m;
    m.name = mname;
    m.pbrMetallicRoughness.baseColorFactor = {1.0, 1.0, 1.0, 1.0};
    m.pbrMetallicRoughness.metallicFactor = 0.0;
    m.pbrMetallicRoughness.roughnessFactor = 0.9;
    model.materials.push_back(std::move(m));
    return static_cast<int>(model.materials.size() - 1);
  };
  auto add_node = [&](const char* nname, tinygltf::Primitive prim) {
    tinygltf::Mesh mesh;
    mesh.name = nname;
    mesh.primitives.push_back(std::move(prim));
    model.meshes.push_back(std::move(mesh));
    tinygltf::Node node;
    node.name = nname;
    node.mesh = static_cast<int>(model.meshes.size() - 1);
    model.nodes[0].children.push_back(static_cast<int>(model.nodes.size()));
    model.nodes.push_back(std::move(node));
  };
  if (!ground.empty()) {
    Result<tinygltf::Primitive> prim =
        add_hlod_primitive(model, ground, material("hlod_ground"), -1, name + ": hlod.ground");
    if (!prim) return prim.error();
    add_node("hlod.ground", std::move(*prim));
  }
  if (!buildings.empty() && in.buildings != nullptr) {
    // Feature ids are building ids: rows of this tile's table in ascending id order.
    std::vector<std::uint32_t> ids(buildings.features.begin(), buildings.features.end());
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    if (!ids.empty() && ids.back() == kNoFeature) ids.pop_back();
    HlodMesh rows = buildings;
    for (std::uint32_t& f : rows.features) {
      f = static_cast<std::uint32_t>(std::lower_bound(ids.begin(), ids.end(), f) - ids.begin());
    }
    const int table = add_building_table(model, in, ids);
    Result<tinygltf::Primitive> prim = add_hlod_primitive(model, rows, material("hlod_buildings"),
                                                          table, name + ": hlod.buildings");
    if (!prim) return prim.error();
    add_node("hlod.buildings", std::move(*prim));
    use_extensions(model, {kMeshFeatures, kMetadata});
  }
  return finish(model, name, meshopt);
}

namespace {

/// Cells of kCoverCell metres a side that the chunk's paved surfaces (roads, sidewalks, blocks,
/// ground patches, paths, freeway) cover, over the chunk's triangles' bounds.
constexpr double kCoverCell = 2.0;

struct Cover {
  double x0 = 0.0;
  double y0 = 0.0;
  std::size_t nx = 0;
  std::size_t ny = 0;
  std::vector<std::uint8_t> cells;
  bool at(double x, double y) const {
    const double fx = std::floor((x - x0) / kCoverCell);
    const double fy = std::floor((y - y0) / kCoverCell);
    if (fx < 0 || fy < 0 || fx >= static_cast<double>(nx) || fy >= static_cast<double>(ny)) {
      return false;
    }
    return cells[static_cast<std::size_t>(fy) * nx + static_cast<std::size_t>(fx)] != 0;
  }
};

bool paved(Part p) {
  return p != Part::terrain && p != Part::marking && p != Part::roof && p != Part::parapet &&
         p != Part::volume;
}

/// Marks every cell whose centre lies in a triangle of the paved parts.
Cover paved_cover(const ChunkMeshes& c) {
  Cover cover;
  double x1 = -1e300;
  double y1 = -1e300;
  cover.x0 = 1e300;
  cover.y0 = 1e300;
  for (std::size_t p = 0; p < kPartCount; ++p) {
    if (!paved(static_cast<Part>(p))) continue;
    for (const auto& v : c.parts[p].positions) {
      cover.x0 = std::min(cover.x0, static_cast<double>(v[0]));
      cover.y0 = std::min(cover.y0, static_cast<double>(v[1]));
      x1 = std::max(x1, static_cast<double>(v[0]));
      y1 = std::max(y1, static_cast<double>(v[1]));
    }
  }
  if (cover.x0 > x1) return cover;
  cover.nx = static_cast<std::size_t>((x1 - cover.x0) / kCoverCell) + 1;
  cover.ny = static_cast<std::size_t>((y1 - cover.y0) / kCoverCell) + 1;
  cover.cells.assign(cover.nx * cover.ny, 0);
  for (std::size_t p = 0; p < kPartCount; ++p) {
    if (!paved(static_cast<Part>(p))) continue;
    const Mesh& m = c.parts[p];
    for (std::size_t t = 0; t + 2 < m.indices.size(); t += 3) {
      const auto& a = m.positions[m.indices[t]];
      const auto& b = m.positions[m.indices[t + 1]];
      const auto& d = m.positions[m.indices[t + 2]];
      const double ax = a[0], ay = a[1], bx = b[0], by = b[1], dx = d[0], dy = d[1];
      const double area = (bx - ax) * (dy - ay) - (by - ay) * (dx - ax);
      if (std::fabs(area) < 1e-9) continue;
      const auto lo_x = static_cast<std::size_t>(
          std::max(0.0, std::floor((std::min({ax, bx, dx}) - cover.x0) / kCoverCell)));
      const auto lo_y = static_cast<std::size_t>(
          std::max(0.0, std::floor((std::min({ay, by, dy}) - cover.y0) / kCoverCell)));
      const auto hi_x = std::min(
          cover.nx - 1, static_cast<std::size_t>((std::max({ax, bx, dx}) - cover.x0) / kCoverCell));
      const auto hi_y = std::min(
          cover.ny - 1, static_cast<std::size_t>((std::max({ay, by, dy}) - cover.y0) / kCoverCell));
      for (std::size_t iy = lo_y; iy <= hi_y; ++iy) {
        for (std::size_t ix = lo_x; ix <= hi_x; ++ix) {
          const double px = cover.x0 + (static_cast<double>(ix) + 0.5) * kCoverCell;
          const double py = cover.y0 + (static_cast<double>(iy) + 0.5) * kCoverCell;
          const double w0 = (bx - px) * (dy - py) - (by - py) * (dx - px);
          const double w1 = (dx - px) * (ay - py) - (dy - py) * (ax - px);
          const double w2 = (ax - px) * (by - py) - (ay - py) * (bx - px);
          const bool inside =
              area > 0 ? (w0 >= 0 && w1 >= 0 && w2 >= 0) : (w0 <= 0 && w1 <= 0 && w2 <= 0);
          if (inside) cover.cells[iy * cover.nx + ix] = 1;
        }
      }
    }
  }
  return cover;
}

}  // namespace

HlodMesh leaf_ground(const std::vector<const ChunkMeshes*>& chunks) {
  // What a far view needs of the ground: the paved surfaces without their vertical skirts and
  // curbs (simplified, they stretch into slivers) and the terrain, 0.5 m lower and in the
  // paving's colour where paving covers it: simplified, it would poke through the roads and
  // blocks that sit centimetres above it in green blobs, and where the simplified paving
  // shrinks it fills the gap instead of the sky.
  constexpr float kTerrainDrop = 0.5f;
  HlodMesh out;
  for (const ChunkMeshes* c : chunks) {
    const Cover cover = paved_cover(*c);
    for (std::size_t p = 0; p < kPartCount; ++p) {
      const Part part = static_cast<Part>(p);
      const Mesh& m = c->parts[p];
      if (part == Part::marking || m.empty()) continue;
      Mesh kept;
      kept.positions = m.positions;
      kept.normals = m.normals;
      Mesh under;  // terrain under paving
      if (part == Part::terrain) {
        for (auto& v : kept.positions)
          v[2] -= kTerrainDrop;
        under.positions = kept.positions;
        under.normals = kept.normals;
      }
      for (std::size_t t = 0; t + 2 < m.indices.size(); t += 3) {
        const auto& a = m.positions[m.indices[t]];
        const auto& b = m.positions[m.indices[t + 1]];
        const auto& d = m.positions[m.indices[t + 2]];
        const std::initializer_list<std::uint32_t> tri{m.indices[t], m.indices[t + 1],
                                                       m.indices[t + 2]};
        if (part == Part::terrain) {
          const double cx = (a[0] + b[0] + d[0]) / 3.0;
          const double cy = (a[1] + b[1] + d[1]) / 3.0;
          Mesh& dst = cover.at(cx, cy) ? under : kept;
          dst.indices.insert(dst.indices.end(), tri);
          continue;
        }
        const double ux = b[0] - a[0], uy = b[1] - a[1], uz = b[2] - a[2];
        const double vx = d[0] - a[0], vy = d[1] - a[1], vz = d[2] - a[2];
        const double nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
        const double len = std::sqrt(nx * nx + ny * ny + nz * nz);
        if (len <= 0.0 || std::fabs(nz) < 0.2 * len) continue;
        kept.indices.insert(kept.indices.end(), tri);
      }
      if (!kept.indices.empty()) append_hlod(out, kept, part_rgba(part), kNoFeature);
      if (!under.indices.empty()) append_hlod(out, under, part_rgba(Part::block), kNoFeature);
    }
  }
  return out;
}

HlodMesh leaf_shells(const CityGlbInputs& in, const std::vector<std::uint32_t>& buildings) {
  HlodMesh out;
  if (in.buildings == nullptr) return out;
  for (const std::uint32_t b : buildings) {
    const buildings::Building& bd = in.buildings->buildings[b];
    const buildings::Style& style = in.styles->styles.at(bd.style);
    const auto wall =
        rgba(linear_colour(style.palette[static_cast<std::size_t>(buildings::Material::wall)]));
    const auto roof =
        rgba(linear_colour(style.palette[static_cast<std::size_t>(buildings::Material::roof)]));
    append_hlod(out, building_shell(bd, in.buildings->roofs[b], wall, roof, b));
  }
  return out;
}

}  // namespace cityforge::exporter::detail
