// SPDX-License-Identifier: Apache-2.0
// Island tile kits as glTF binaries (docs/islands.md "Tile kits"): the writer of the built-in
// kit and the reader of any kit, as an artist exports one from Blender (seeds/003, 10:42-10:57).
// Based on: The Khronos Group, glTF 2.0 Specification (nodes, extras, primitive modes,
// accessors with byte strides); Blender's glTF exporter writes object custom properties as
// node extras and loose edges as LINES primitives.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cityforge/core/format.hpp"
#include "cityforge/core/json_parse.hpp"
#include "cityforge/gltf/builder.hpp"
#include "cityforge/gltf/tinygltf_model.hpp"
#include "cityforge/islands/io.hpp"
#include "cityforge/islands/kit.hpp"

namespace cityforge::islands {

namespace {

constexpr std::array<Material, 9> kMaterials = {Material::grass, Material::sand, Material::rock,
                                                Material::water, Material::path, Material::wall,
                                                Material::roof,  Material::wood, Material::leaves};

constexpr double kLattice = 1e6;           // Read coordinates snap to 1e-6.
constexpr float kMaxCoordinate = 1000.0F;  // Beyond this a vertex is an error, not a key.
constexpr std::size_t kMaxJsonDepth = 64;  // Deepest nesting of the glb's JSON.
constexpr std::uint32_t kColumns = 12;
constexpr double kSpacing = 1.5;  // Between tiles laid out for viewing.

// Unit (u, v, w) to glTF (u, w, -v): Blender's (x, y, z) after its exporter's y-up turn.
std::array<float, 3> to_gltf(const Vec3& p) {
  return gltf::to_y_up({static_cast<float>(p.x), static_cast<float>(p.y), static_cast<float>(p.z)});
}

std::string corners_text(const std::array<std::uint8_t, 4>& c) {
  std::string s;
  for (const std::uint8_t x : c)
    s += static_cast<char>('0' + x);
  return s;
}

std::string exits_text(std::uint8_t exits) {
  std::string s;
  for (std::uint32_t k = 0; k < 4; ++k)
    s += (exits & (1U << k)) != 0 ? '1' : '0';
  return s;
}

tinygltf::Value node_extras(const KitTile& t) {
  tinygltf::Value::Object o;
  o["kind"] = tinygltf::Value(std::string(tile_kind_name(t.kind)));
  if (t.kind != TileKind::water && t.kind != TileKind::air) {
    o["corners"] = tinygltf::Value(corners_text(t.corners));
  }
  if (t.exits != 0) o["exits"] = tinygltf::Value(exits_text(t.exits));
  if (t.ground_level) o["ground_level"] = tinygltf::Value(true);
  if (t.landing) o["landing"] = tinygltf::Value(true);
  o["weight"] = tinygltf::Value(t.weight);
  return tinygltf::Value(std::move(o));
}

// One tile's triangles of one material as a primitive: three vertices per triangle with its
// face normal, so the tile shows crisp in any viewer.
Result<tinygltf::Primitive> material_primitive(tinygltf::Model& model, const UnitMesh& mesh,
                                               Material m, int material, const std::string& where) {
  Mesh out;
  for (const UnitMesh::Triangle& t : mesh.triangles) {
    if (t.material != m) continue;
    const Vec3& a = mesh.vertices[t.v[0]];
    const Vec3& b = mesh.vertices[t.v[1]];
    const Vec3& c = mesh.vertices[t.v[2]];
    Vec3 n = cross(b - a, c - a);
    const double len = std::sqrt(dot(n, n));
    n = len > 0 ? n * (1.0 / len) : Vec3{0, 0, 1};
    for (const Vec3* p : {&a, &b, &c}) {
      out.indices.push_back(static_cast<std::uint32_t>(out.positions.size()));
      out.positions.push_back(
          {static_cast<float>(p->x), static_cast<float>(p->y), static_cast<float>(p->z)});
      out.normals.push_back(
          {static_cast<float>(n.x), static_cast<float>(n.y), static_cast<float>(n.z)});
    }
  }
  return gltf::add_primitive(model, out, material, where);
}

// The hard edges as a LINES primitive (Blender imports them as loose edges).
tinygltf::Primitive hard_edge_primitive(tinygltf::Model& model, const UnitMesh& mesh) {
  std::vector<std::array<float, 3>> points;
  for (const auto& [i, j] : mesh.hard_edges) {
    points.push_back(to_gltf(mesh.vertices[i]));
    points.push_back(to_gltf(mesh.vertices[j]));
  }
  std::vector<double> lo(3), hi(3);
  for (std::size_t i = 0; i < points.size(); ++i) {
    for (std::size_t k = 0; k < 3; ++k) {
      lo[k] = i == 0 ? points[i][k] : std::min<double>(lo[k], points[i][k]);
      hi[k] = i == 0 ? points[i][k] : std::max<double>(hi[k], points[i][k]);
    }
  }
  tinygltf::Primitive prim;
  prim.mode = TINYGLTF_MODE_LINE;
  const int view = gltf::add_view(model, points.data(), points.size() * sizeof(points[0]),
                                  TINYGLTF_TARGET_ARRAY_BUFFER);
  const int acc = gltf::add_accessor(model, view, TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_TYPE_VEC3,
                                     points.size());
  model.accessors[static_cast<std::size_t>(acc)].minValues = lo;
  model.accessors[static_cast<std::size_t>(acc)].maxValues = hi;
  prim.attributes["POSITION"] = acc;
  return prim;
}

// ---- Reading --------------------------------------------------------------------------------

class KitReader {
 public:
  KitReader(const tinygltf::Model& model, std::string file)
      : m_model(model), m_file(std::move(file)) {}

  Result<std::vector<KitTile>> read() {
    if (m_model.nodes.empty()) return fail("/nodes", "expected one node per tile, found none");
    std::vector<KitTile> kit;
    for (std::size_t n = 0; n < m_model.nodes.size(); ++n) {
      const tinygltf::Node& node = m_model.nodes[n];
      const std::string at = "/nodes/" + std::to_string(n);
      // A node without kit extras (a camera, a light, a parent empty) is not a tile.
      const tinygltf::Value* extras = tile_extras(node);
      if (extras == nullptr) continue;
      KitTile t;
      t.name = node.name;
      if (t.name.empty()) return fail(at + "/name", "expected the tile's name");
      if (Status s = read_facts(*extras, extras_at(node, at), t); !s) return s.error();
      if (node.mesh >= 0) {
        if (Status s = read_mesh(node.mesh, t); !s) return s.error();
      }
      kit.push_back(std::move(t));
    }
    if (kit.empty()) {
      return fail("/nodes",
                  "no node has the extras of a tile (a \"kind\" custom property on the object)");
    }
    return kit;
  }

 private:
  Error fail(const std::string& pointer, const std::string& what) const {
    return Error::invalid_input(m_file + ": " + pointer, what);
  }

  // The tile's facts: the node's extras (Blender object properties), else its mesh's.
  const tinygltf::Value* tile_extras(const tinygltf::Node& node) const {
    if (node.extras.IsObject() && node.extras.Has("kind")) return &node.extras;
    if (node.mesh >= 0 && static_cast<std::size_t>(node.mesh) < m_model.meshes.size()) {
      const tinygltf::Value& e = m_model.meshes[static_cast<std::size_t>(node.mesh)].extras;
      if (e.IsObject() && e.Has("kind")) return &e;
    }
    return nullptr;
  }
  std::string extras_at(const tinygltf::Node& node, const std::string& at) const {
    if (node.extras.IsObject() && node.extras.Has("kind")) return at + "/extras";
    return "/meshes/" + std::to_string(node.mesh) + "/extras";
  }

  Status read_facts(const tinygltf::Value& e, const std::string& at, KitTile& t) const {
    static const std::map<std::string, TileKind> kKinds = {
        {"water", TileKind::water},   {"air", TileKind::air},   {"ground", TileKind::ground},
        {"stairs", TileKind::stairs}, {"path", TileKind::path}, {"house", TileKind::house}};
    for (const std::string& key : e.Keys()) {
      static const std::array<const char*, 6> kKeys = {"kind",         "corners", "exits",
                                                       "ground_level", "landing", "weight"};
      if (std::none_of(kKeys.begin(), kKeys.end(), [&](const char* k) { return key == k; })) {
        return fail(at + "/" + key,
                    "unknown property; a tile has kind, corners, exits, ground_level, landing "
                    "and weight");
      }
    }
    const tinygltf::Value& kind = e.Get("kind");
    const auto it = kind.IsString() ? kKinds.find(kind.Get<std::string>()) : kKinds.end();
    if (it == kKinds.end()) {
      return fail(at + "/kind", "expected water, air, ground, stairs, path or house");
    }
    t.kind = it->second;
    const bool open = t.kind == TileKind::water || t.kind == TileKind::air;
    if (e.Has("corners")) {
      const tinygltf::Value& c = e.Get("corners");
      const std::string s = c.IsString() ? c.Get<std::string>() : std::string();
      const bool ok = s.size() == 4 && std::all_of(s.begin(), s.end(),
                                                   [](char ch) { return ch >= '0' && ch <= '2'; });
      if (!ok) {
        return fail(at + "/corners",
                    "expected four digits, one per corner from (u 0, v 0) counter-clockwise: "
                    "0 empty, 1 floor, 2 solid (e.g. \"2211\")");
      }
      for (std::size_t k = 0; k < 4; ++k)
        t.corners[k] = static_cast<std::uint8_t>(s[k] - '0');
    } else if (!open) {
      return fail(at + "/corners", "a " + std::string(tile_kind_name(t.kind)) +
                                       " tile needs its corner states (e.g. \"1111\")");
    }
    if (e.Has("exits")) {
      const tinygltf::Value& x = e.Get("exits");
      const std::string s = x.IsString() ? x.Get<std::string>() : std::string();
      const bool ok = s.size() == 4 && std::all_of(s.begin(), s.end(),
                                                   [](char ch) { return ch == '0' || ch == '1'; });
      if (!ok) {
        return fail(at + "/exits", "expected four digits 0 or 1, one per side (e.g. \"0101\")");
      }
      for (std::size_t k = 0; k < 4; ++k)
        t.exits |= static_cast<std::uint8_t>((s[k] == '1' ? 1U : 0U) << k);
    }
    if (Result<bool> b = flag(e, "ground_level", at); b) {
      t.ground_level = *b;
    } else {
      return b.error();
    }
    if (Result<bool> b = flag(e, "landing", at); b) {
      t.landing = *b;
    } else {
      return b.error();
    }
    // Water is the sea at ground level; air is everything above it.
    if (t.kind == TileKind::water) t.ground_level = true;
    if (e.Has("weight")) {
      const tinygltf::Value& w = e.Get("weight");
      if (!w.IsNumber() || !(w.GetNumberAsDouble() > 0) || !std::isfinite(w.GetNumberAsDouble())) {
        return fail(at + "/weight", "expected a number > 0");
      }
      t.weight = w.GetNumberAsDouble();
    }
    return Ok{};
  }

  // true, false, 1 or 0 (Blender writes boolean properties as either).
  Result<bool> flag(const tinygltf::Value& e, const char* key, const std::string& at) const {
    if (!e.Has(key)) return false;
    const tinygltf::Value& v = e.Get(key);
    if (v.IsBool()) return v.Get<bool>();
    if (v.IsInt() && (v.Get<int>() == 0 || v.Get<int>() == 1)) return v.Get<int>() == 1;
    return fail(at + "/" + key, "expected true or false");
  }

  // The float VEC3 values of an accessor (any byte stride).
  Result<std::vector<Vec3>> vec3s(int index, const std::string& at) const {
    if (index < 0 || static_cast<std::size_t>(index) >= m_model.accessors.size()) {
      return fail(at, "expected an accessor index");
    }
    const tinygltf::Accessor& a = m_model.accessors[static_cast<std::size_t>(index)];
    const std::string where = "/accessors/" + std::to_string(index);
    if (a.componentType != TINYGLTF_COMPONENT_TYPE_FLOAT || a.type != TINYGLTF_TYPE_VEC3 ||
        a.sparse.isSparse || a.bufferView < 0) {
      return fail(where, "expected a float VEC3 accessor over a buffer view (not sparse)");
    }
    Result<Strided> bytes = view_bytes(a, 12, where);
    if (!bytes) return bytes.error();
    std::vector<Vec3> out(a.count);
    for (std::size_t i = 0; i < a.count; ++i) {
      std::array<float, 3> f{};
      std::memcpy(f.data(), bytes->data + i * bytes->stride, 12);
      const auto sane = [](float x) { return std::isfinite(x) && std::abs(x) <= kMaxCoordinate; };
      if (!sane(f[0]) || !sane(f[1]) || !sane(f[2])) {
        return fail(where, "value " + std::to_string(i) +
                               " is not finite or beyond 1000 (a tile lies in its unit cell)");
      }
      // glTF (x, y, z) is unit (x, -z, y), snapped to the lattice.
      const auto snap = [](double x) { return std::round(x * kLattice) / kLattice + 0.0; };
      out[i] = {snap(f[0]), snap(-static_cast<double>(f[2])), snap(f[1])};
    }
    return out;
  }

  Result<std::vector<std::uint32_t>> indices(const tinygltf::Primitive& p, std::size_t vertices,
                                             const std::string& at) const {
    std::vector<std::uint32_t> out;
    if (p.indices < 0) {
      for (std::uint32_t i = 0; i < vertices; ++i)
        out.push_back(i);
      return out;
    }
    if (static_cast<std::size_t>(p.indices) >= m_model.accessors.size()) {
      return fail(at + "/indices", "expected an accessor index");
    }
    const tinygltf::Accessor& a = m_model.accessors[static_cast<std::size_t>(p.indices)];
    const std::string where = "/accessors/" + std::to_string(p.indices);
    std::size_t size = 0;
    if (a.componentType == TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE) size = 1;
    if (a.componentType == TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT) size = 2;
    if (a.componentType == TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT) size = 4;
    if (size == 0 || a.type != TINYGLTF_TYPE_SCALAR || a.sparse.isSparse || a.bufferView < 0) {
      return fail(where, "expected unsigned SCALAR indices over a buffer view");
    }
    Result<Strided> bytes = view_bytes(a, size, where);
    if (!bytes) return bytes.error();
    for (std::size_t i = 0; i < a.count; ++i) {
      std::uint32_t v = 0;
      std::memcpy(&v, bytes->data + i * bytes->stride, size);
      if (v >= vertices) {
        return fail(where, "index " + std::to_string(i) + " is " + std::to_string(v) +
                               ", past the " + std::to_string(vertices) + " vertices");
      }
      out.push_back(v);
    }
    return out;
  }

  // An accessor's elements in its buffer: where the first starts and the step to the next.
  struct Strided {
    const unsigned char* data = nullptr;
    std::size_t stride = 0;
  };

  Result<Strided> view_bytes(const tinygltf::Accessor& a, std::size_t element,
                             const std::string& where) const {
    if (static_cast<std::size_t>(a.bufferView) >= m_model.bufferViews.size()) {
      return fail(where + "/bufferView", "expected a buffer view index");
    }
    const tinygltf::BufferView& v = m_model.bufferViews[static_cast<std::size_t>(a.bufferView)];
    if (v.buffer < 0 || static_cast<std::size_t>(v.buffer) >= m_model.buffers.size()) {
      return fail(where, "its buffer view has no buffer");
    }
    const std::vector<unsigned char>& data =
        m_model.buffers[static_cast<std::size_t>(v.buffer)].data;
    const std::size_t stride = v.byteStride != 0 ? v.byteStride : element;
    const std::size_t need = a.count == 0 ? 0 : (a.count - 1) * stride + element;
    if (v.byteOffset + v.byteLength > data.size() || a.byteOffset + need > v.byteLength) {
      return fail(where, "reaches past the end of its buffer");
    }
    return Strided{data.data() + v.byteOffset + a.byteOffset, stride};
  }

  Status read_mesh(int mesh_index, KitTile& t) {
    if (static_cast<std::size_t>(mesh_index) >= m_model.meshes.size()) {
      return fail("/meshes", "a node names a mesh that does not exist");
    }
    const tinygltf::Mesh& mesh = m_model.meshes[static_cast<std::size_t>(mesh_index)];
    std::map<std::array<std::int64_t, 3>, std::uint16_t> index;
    const auto vertex = [&](const Vec3& p) -> Result<std::uint16_t> {
      const std::array<std::int64_t, 3> key = {
          std::llround(p.x * kLattice), std::llround(p.y * kLattice), std::llround(p.z * kLattice)};
      if (const auto it = index.find(key); it != index.end()) return it->second;
      if (t.mesh.vertices.size() >= 65535) {
        return fail("/meshes/" + std::to_string(mesh_index),
                    "tile '" + t.name + "' has more than 65535 distinct vertices");
      }
      const auto id = static_cast<std::uint16_t>(t.mesh.vertices.size());
      index.emplace(key, id);
      t.mesh.vertices.push_back(p);
      return id;
    };
    std::vector<std::pair<Vec3, Vec3>> lines;
    for (std::size_t pi = 0; pi < mesh.primitives.size(); ++pi) {
      const tinygltf::Primitive& p = mesh.primitives[pi];
      const std::string at =
          "/meshes/" + std::to_string(mesh_index) + "/primitives/" + std::to_string(pi);
      const auto pos = p.attributes.find("POSITION");
      if (pos == p.attributes.end()) return fail(at + "/attributes", "expected POSITION");
      Result<std::vector<Vec3>> points = vec3s(pos->second, at + "/attributes/POSITION");
      if (!points) return points.error();
      Result<std::vector<std::uint32_t>> idx = indices(p, points->size(), at);
      if (!idx) return idx.error();
      if (p.mode == TINYGLTF_MODE_LINE) {
        for (std::size_t i = 0; i + 1 < idx->size(); i += 2)
          lines.emplace_back((*points)[(*idx)[i]], (*points)[(*idx)[i + 1]]);
        continue;
      }
      if (p.mode != TINYGLTF_MODE_TRIANGLES) {
        return fail(at + "/mode", "expected triangles (4) or, for hard edges, lines (1)");
      }
      Material m = Material::none;
      const std::string mat_name =
          p.material >= 0 && static_cast<std::size_t>(p.material) < m_model.materials.size()
              ? m_model.materials[static_cast<std::size_t>(p.material)].name
              : std::string();
      if (!parse_material(base_name(mat_name), m)) {
        return fail(at + "/material", "tile '" + t.name +
                                          "': expected a material named grass, sand, rock, water, "
                                          "path, wall, roof, wood or leaves, got '" +
                                          mat_name + "'");
      }
      for (std::size_t i = 0; i + 2 < idx->size(); i += 3) {
        UnitMesh::Triangle tri;
        for (std::size_t k = 0; k < 3; ++k) {
          Result<std::uint16_t> v = vertex((*points)[(*idx)[i + k]]);
          if (!v) return v.error();
          tri.v[k] = *v;
        }
        if (tri.v[0] == tri.v[1] || tri.v[1] == tri.v[2] || tri.v[0] == tri.v[2]) continue;
        tri.material = m;
        t.mesh.triangles.push_back(tri);
      }
    }
    // Hard edges join two of the tile's vertices; an end on no vertex is reported.
    for (const auto& [a, b] : lines) {
      const auto find = [&](const Vec3& p) -> int {
        const std::array<std::int64_t, 3> key = {std::llround(p.x * kLattice),
                                                 std::llround(p.y * kLattice),
                                                 std::llround(p.z * kLattice)};
        const auto it = index.find(key);
        return it == index.end() ? -1 : it->second;
      };
      const int i = find(a), j = find(b);
      if (i < 0 || j < 0) {
        std::string m;
        append_printf(m,
                      "tile '%s': a hard edge ends at (u %.4f, v %.4f, w %.4f), on none of the "
                      "tile's triangle corners",
                      t.name.c_str(), i < 0 ? a.x : b.x, i < 0 ? a.y : b.y, i < 0 ? a.z : b.z);
        return fail("/meshes/" + std::to_string(mesh_index), m);
      }
      if (i == j) continue;
      t.mesh.hard_edges.push_back(
          {static_cast<std::uint16_t>(std::min(i, j)), static_cast<std::uint16_t>(std::max(i, j))});
    }
    std::sort(t.mesh.hard_edges.begin(), t.mesh.hard_edges.end());
    t.mesh.hard_edges.erase(std::unique(t.mesh.hard_edges.begin(), t.mesh.hard_edges.end()),
                            t.mesh.hard_edges.end());
    return Ok{};
  }

  // "grass.001" (Blender's duplicate names) reads as "grass".
  static std::string base_name(const std::string& name) {
    const std::size_t dot = name.find('.');
    return dot == std::string::npos ? name : name.substr(0, dot);
  }

  const tinygltf::Model& m_model;
  std::string m_file;
};

}  // namespace

const char* material_name(Material m) {
  switch (m) {
    case Material::grass:
      return "grass";
    case Material::sand:
      return "sand";
    case Material::rock:
      return "rock";
    case Material::water:
      return "water";
    case Material::path:
      return "path";
    case Material::wall:
      return "wall";
    case Material::roof:
      return "roof";
    case Material::wood:
      return "wood";
    case Material::leaves:
      return "leaves";
    case Material::none:
      break;
  }
  return "none";
}

bool parse_material(const std::string& name, Material& out) {
  for (const Material m : kMaterials) {
    if (name == material_name(m)) {
      out = m;
      return true;
    }
  }
  return false;
}

Result<std::vector<std::uint8_t>> write_kit_glb(const std::vector<KitTile>& kit) {
  const std::string where = "kit.glb";
  tinygltf::Model model;
  model.asset.version = "2.0";
  model.asset.generator = "cityforge";
  model.buffers.emplace_back();
  // The materials the kit uses, in kMaterials' order.
  std::array<int, kMaterials.size()> material_index{};
  material_index.fill(-1);
  for (std::size_t k = 0; k < kMaterials.size(); ++k) {
    const Material m = kMaterials[k];
    const bool used = std::any_of(kit.begin(), kit.end(), [m](const KitTile& t) {
      return std::any_of(t.mesh.triangles.begin(), t.mesh.triangles.end(),
                         [m](const UnitMesh::Triangle& tri) { return tri.material == m; });
    });
    if (!used) continue;
    tinygltf::Material mat;
    mat.name = material_name(m);
    const std::array<float, 3> c = material_colour(m);
    mat.pbrMetallicRoughness.baseColorFactor = {c[0], c[1], c[2], 1.0};
    mat.pbrMetallicRoughness.metallicFactor = 0.0;
    mat.pbrMetallicRoughness.roughnessFactor = 0.9;
    material_index[k] = static_cast<int>(model.materials.size());
    model.materials.push_back(std::move(mat));
  }
  tinygltf::Node root;
  root.name = "kit";
  model.nodes.push_back(root);
  for (std::size_t i = 0; i < kit.size(); ++i) {
    const KitTile& t = kit[i];
    tinygltf::Node node;
    node.name = t.name;
    node.extras = node_extras(t);
    node.translation = {static_cast<double>(i % kColumns) * kSpacing, 0.0,
                        static_cast<double>(i / kColumns) * kSpacing};
    tinygltf::Mesh mesh;
    mesh.name = t.name;
    for (std::size_t k = 0; k < kMaterials.size(); ++k) {
      const Material m = kMaterials[k];
      if (std::none_of(t.mesh.triangles.begin(), t.mesh.triangles.end(),
                       [m](const UnitMesh::Triangle& tri) { return tri.material == m; })) {
        continue;
      }
      Result<tinygltf::Primitive> p =
          material_primitive(model, t.mesh, m, material_index[k], where + ": " + t.name);
      if (!p) return p.error();
      mesh.primitives.push_back(std::move(*p));
    }
    if (!t.mesh.hard_edges.empty()) mesh.primitives.push_back(hard_edge_primitive(model, t.mesh));
    if (!mesh.primitives.empty()) {
      node.mesh = static_cast<int>(model.meshes.size());
      model.meshes.push_back(std::move(mesh));
    }
    model.nodes[0].children.push_back(static_cast<int>(model.nodes.size()));
    model.nodes.push_back(std::move(node));
  }
  return gltf::serialise_glb(model, "kit");
}

Result<std::vector<KitTile>> read_kit_glb(std::span<const std::uint8_t> bytes,
                                          const std::string& file) {
  // tinygltf turns the JSON chunk into values recursively: nesting thousands deep would
  // overflow the stack, so the chunk is checked first (GLB 2.0: a 12-byte header, then the
  // JSON chunk's length and type; tinygltf checks the rest).
  if (bytes.size() >= 20 && std::memcmp(bytes.data(), "glTF", 4) == 0) {
    std::uint32_t length = 0;
    std::memcpy(&length, bytes.data() + 12, 4);
    const std::string_view json(reinterpret_cast<const char*>(bytes.data()) + 20,
                                std::min<std::size_t>(length, bytes.size() - 20));
    if (Status st = json_detail::prescan(json, 0, file + " (JSON chunk)", json, kMaxJsonDepth);
        !st) {
      return st.error();
    }
  }
  tinygltf::Model model;
  tinygltf::TinyGLTF loader;
  gltf::skip_image_decoding(loader);
  std::string err, warn;
  if (!loader.LoadBinaryFromMemory(&model, &err, &warn, bytes.data(),
                                   static_cast<unsigned>(bytes.size()))) {
    return Error::invalid_input(file, "not a glTF binary (.glb) kit: " + err);
  }
  return KitReader(model, file).read();
}

}  // namespace cityforge::islands
