// SPDX-License-Identifier: Apache-2.0
// Island tile kits (docs/islands.md "Tile kits"): the built-in kit written as a glb and read
// back gives the same tile set as the built-in path; a hand-made kit with deliberate mistakes
// (tests/data/islands/mismatch_kit.glb) is reported by tile name and side or corner; every bad
// kit is refused with its file and JSON pointer; a kit of one's own (the built-in one with a
// rock on its flat floor) makes an island with the rock on it.
#include "cityforge/islands/kit.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "../export/validator.hpp"
#include "cityforge/gltf/tinygltf_model.hpp"

namespace cityforge::islands {
namespace {

namespace fs = std::filesystem;

std::vector<std::uint8_t> builtin_glb() {
  Result<std::vector<std::uint8_t>> glb = write_kit_glb(builtin_kit());
  EXPECT_TRUE(glb.ok()) << (glb ? "" : glb.error().to_string());
  return glb ? *glb : std::vector<std::uint8_t>{};
}

TileSet tile_set(const std::vector<KitTile>& kit) {
  Result<TileSet> set = tile_set_from_kit(kit, "test kit");
  EXPECT_TRUE(set.ok()) << (set ? "" : set.error().to_string());
  return set ? std::move(*set) : TileSet{};
}

// The error of a kit given as glb bytes ("" when it is read and checked without one).
std::string kit_error(const std::vector<std::uint8_t>& glb, const std::string& file = "k.glb") {
  Result<std::vector<KitTile>> kit = read_kit_glb(glb, file);
  if (!kit) return kit.error().to_string();
  Result<TileSet> set = tile_set_from_kit(*kit, file);
  return set ? std::string() : set.error().to_string();
}

// The built-in kit's glb with one change made to its glTF model.
std::vector<std::uint8_t> edited(const std::function<void(tinygltf::Model&)>& edit) {
  const std::vector<std::uint8_t> glb = builtin_glb();
  tinygltf::Model model;
  tinygltf::TinyGLTF loader;
  std::string err, warn;
  EXPECT_TRUE(loader.LoadBinaryFromMemory(&model, &err, &warn, glb.data(),
                                          static_cast<unsigned>(glb.size())))
      << err;
  edit(model);
  model.scenes.clear();
  Result<std::vector<std::uint8_t>> out = gltf::serialise_glb(model, "kit");
  EXPECT_TRUE(out.ok());
  return out ? *out : std::vector<std::uint8_t>{};
}

// The node of a tile in the built-in kit's glb.
int node_of(const tinygltf::Model& m, const std::string& name) {
  for (std::size_t i = 0; i < m.nodes.size(); ++i) {
    if (m.nodes[i].name == name) return static_cast<int>(i);
  }
  ADD_FAILURE() << name;
  return 0;
}

TEST(IslandKit, TheBuiltInKitReadsBackFromItsGlbToTheSameTileSet) {
  const TileSet direct = tile_set(builtin_kit());
  Result<std::vector<KitTile>> read = read_kit_glb(builtin_glb(), "kit.glb");
  ASSERT_TRUE(read.ok()) << read.error().to_string();
  ASSERT_EQ(read->size(), builtin_kit().size());
  const TileSet via_glb = tile_set(*read);
  // Same variants with the same facts and profiles, the same constraints.
  ASSERT_EQ(direct.info.size(), via_glb.info.size());
  ASSERT_GT(direct.info.size(), 150U);
  for (std::size_t t = 0; t < direct.info.size(); ++t) {
    const TileInfo& a = direct.info[t];
    const TileInfo& b = via_glb.info[t];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.kind, b.kind) << a.name;
    EXPECT_EQ(a.corners, b.corners) << a.name;
    EXPECT_EQ(a.exits, b.exits) << a.name;
    EXPECT_EQ(a.ground_level, b.ground_level) << a.name;
    EXPECT_EQ(a.stair_high_slot, b.stair_high_slot) << a.name;
    EXPECT_EQ(a.side_profile, b.side_profile) << a.name;
    EXPECT_EQ(a.side_profile_mirrored, b.side_profile_mirrored) << a.name;
    EXPECT_EQ(a.up_profile, b.up_profile) << a.name;
    EXPECT_EQ(a.down_profile, b.down_profile) << a.name;
    EXPECT_EQ(direct.model.tiles[t].weight, via_glb.model.tiles[t].weight) << a.name;
    // The meshes: the same triangles (grouped by material in the file), hard edges and
    // vertices to float precision.
    const UnitMesh& ma = direct.meshes[t];
    const UnitMesh& mb = via_glb.meshes[t];
    EXPECT_EQ(ma.triangles.size(), mb.triangles.size()) << a.name;
    EXPECT_EQ(ma.vertices.size(), mb.vertices.size()) << a.name;
    EXPECT_EQ(ma.hard_edges.size(), mb.hard_edges.size()) << a.name;
    for (const Vec3& p : mb.vertices) {
      const bool near = std::any_of(ma.vertices.begin(), ma.vertices.end(), [&](const Vec3& q) {
        return std::abs(p.x - q.x) < 1e-6 && std::abs(p.y - q.y) < 1e-6 &&
               std::abs(p.z - q.z) < 1e-6;
      });
      EXPECT_TRUE(near) << a.name << " (" << p.x << ", " << p.y << ", " << p.z << ")";
    }
  }
  ASSERT_EQ(direct.model.constraints.size(), via_glb.model.constraints.size());
  for (std::size_t i = 0; i < direct.model.constraints.size(); ++i) {
    const wfc::Constraint& a = direct.model.constraints[i];
    const wfc::Constraint& b = via_glb.model.constraints[i];
    ASSERT_TRUE(a.key == b.key && a.label == b.label && a.adjacent == b.adjacent) << i;
  }
  // The program's own tile set is the built-in kit's.
  Result<TileSet> builtin = build_tile_set();
  ASSERT_TRUE(builtin.ok());
  EXPECT_EQ(builtin->model.constraints.size(), direct.model.constraints.size());
  EXPECT_EQ(builtin->info.size(), direct.info.size());
}

TEST(IslandKit, TheKitGlbIsByteIdenticalAndValid) {
  const std::vector<std::uint8_t> a = builtin_glb();
  EXPECT_EQ(a, builtin_glb());
  if (!exporter::testing::validator_installed()) GTEST_SKIP() << "gltf-validator not installed";
  EXPECT_TRUE(exporter::testing::validates(a, "island_kit"));
  const fs::path hand = fs::path(CITYFORGE_SOURCE_DIR) / "tests/data/islands/mismatch_kit.glb";
  std::ifstream in(hand, std::ios::binary);
  const std::vector<std::uint8_t> b((std::istreambuf_iterator<char>(in)),
                                    std::istreambuf_iterator<char>());
  EXPECT_TRUE(exporter::testing::validates(b, "island_mismatch_kit"));
}

TEST(IslandKit, AHandMadeKitWithMistakesIsReportedByTileAndSide) {
  const fs::path file = fs::path(CITYFORGE_SOURCE_DIR) / "tests/data/islands/mismatch_kit.glb";
  std::ifstream in(file, std::ios::binary);
  ASSERT_TRUE(in) << file;
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                        std::istreambuf_iterator<char>());
  Result<std::vector<KitTile>> kit = read_kit_glb(bytes, "mismatch_kit.glb");
  ASSERT_TRUE(kit.ok()) << kit.error().to_string();
  // The parent node has no extras: not a tile. "grass.001" reads as grass.
  ASSERT_EQ(kit->size(), 5U);
  EXPECT_EQ((*kit)[2].name, "floor");
  ASSERT_FALSE((*kit)[2].mesh.triangles.empty());
  EXPECT_EQ((*kit)[2].mesh.triangles[0].material, Material::grass);
  EXPECT_EQ((*kit)[2].weight, 10.0);
  const std::string e = kit_error(bytes, "mismatch_kit.glb");
  EXPECT_NE(e.find("mismatch_kit.glb: 3 problems in the tile kit"), std::string::npos) << e;
  // The side of floor_shifted whose midpoint was snapped to u 0.4 (s 0.6 from corner 2).
  EXPECT_NE(e.find("tile 'floor_shifted' side 2: no tile's side can face it; sampled profile (s "
                   "from corner 2 to corner 3): edge (s 0.000, w 0.000)-(s 0.600, w 0.000) "
                   "grass; edge (s 0.600, w 0.000)-(s 1.000, w 0.000) grass"),
            std::string::npos)
      << e;
  // The corners declared solid under a flat floor.
  EXPECT_NE(e.find("tile 'cliff_wrong_corner' corner 0: declared solid, but the mesh shows "
                   "ground at w = 0.000 over (u 0.04, v 0.04)"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("tile 'cliff_wrong_corner' corner 1: declared solid"), std::string::npos) << e;
  // The good tiles are not named.
  EXPECT_EQ(e.find("'floor' "), std::string::npos) << e;
  EXPECT_EQ(e.find("'sea'"), std::string::npos) << e;
}

TEST(IslandKit, BadKitsAreRefusedWithTheFileAndWhere) {
  struct Case {
    std::string name;
    std::function<void(tinygltf::Model&)> edit;
    std::string says;
  };
  const auto extras = [](tinygltf::Model& m, const std::string& tile, const std::string& key,
                         tinygltf::Value v) {
    tinygltf::Value::Object o =
        m.nodes[static_cast<std::size_t>(node_of(m, tile))].extras.Get<tinygltf::Value::Object>();
    o[key] = std::move(v);
    m.nodes[static_cast<std::size_t>(node_of(m, tile))].extras = tinygltf::Value(std::move(o));
  };
  const std::vector<Case> cases = {
      {"unknown kind",
       [&](tinygltf::Model& m) { extras(m, "stairs", "kind", tinygltf::Value(std::string("x"))); },
       "/extras/kind: expected water, air, ground, stairs, path or house"},
      {"bad corners",
       [&](tinygltf::Model& m) {
         extras(m, "ground_1111", "corners", tinygltf::Value(std::string("1131")));
       },
       "/extras/corners: expected four digits"},
      {"corners as a number",
       [&](tinygltf::Model& m) { extras(m, "ground_1111", "corners", tinygltf::Value(1111)); },
       "/extras/corners: expected four digits"},
      {"bad exits",
       [&](tinygltf::Model& m) {
         extras(m, "path_1", "exits", tinygltf::Value(std::string("12")));
       },
       "/extras/exits: expected four digits 0 or 1"},
      {"unknown property",
       [&](tinygltf::Model& m) { extras(m, "air", "colour", tinygltf::Value(3)); },
       "/extras/colour: unknown property"},
      {"negative weight",
       [&](tinygltf::Model& m) { extras(m, "water", "weight", tinygltf::Value(-2.0)); },
       "/extras/weight: expected a number > 0"},
      {"flag not a flag",
       [&](tinygltf::Model& m) { extras(m, "landing", "landing", tinygltf::Value(7)); },
       "/extras/landing: expected true or false"},
      {"stairs not 2211",
       [&](tinygltf::Model& m) {
         extras(m, "stairs", "corners", tinygltf::Value(std::string("2112")));
       },
       "tile 'stairs': stairs climb to side 0, so their corners must be 2211"},
      {"no water",
       [&](tinygltf::Model& m) { extras(m, "water", "kind", tinygltf::Value(std::string("air"))); },
       "the kit has no ground-level water tile"},
      {"a name twice",
       [&](tinygltf::Model& m) {
         m.nodes[static_cast<std::size_t>(node_of(m, "house_1"))].name = "house_0";
       },
       "tile 'house_0' is named twice"},
      {"unknown material", [&](tinygltf::Model& m) { m.materials[0].name = "marble"; },
       "expected a material named grass, sand, rock"},
      {"transforms applied",
       [&](tinygltf::Model& m) {
         // Moves every vertex of ground_1111's primitives 1.5 along x, as applying the
         // object's location in Blender would.
         const tinygltf::Node& n = m.nodes[static_cast<std::size_t>(node_of(m, "ground_1111"))];
         for (const tinygltf::Primitive& p :
              m.meshes[static_cast<std::size_t>(n.mesh)].primitives) {
           const tinygltf::Accessor& a =
               m.accessors[static_cast<std::size_t>(p.attributes.at("POSITION"))];
           const tinygltf::BufferView& v = m.bufferViews[static_cast<std::size_t>(a.bufferView)];
           auto* f = reinterpret_cast<float*>(m.buffers[0].data.data() + v.byteOffset);
           for (std::size_t i = 0; i < a.count; ++i)
             f[3 * i] += 1.5f;
         }
       },
       "tile 'ground_1111': vertex (u 1.5000"},
      {"a coordinate far out of range",
       [&](tinygltf::Model& m) {
         const tinygltf::Node& n = m.nodes[static_cast<std::size_t>(node_of(m, "ground_1111"))];
         const tinygltf::Primitive& p = m.meshes[static_cast<std::size_t>(n.mesh)].primitives[0];
         const tinygltf::Accessor& a =
             m.accessors[static_cast<std::size_t>(p.attributes.at("POSITION"))];
         const tinygltf::BufferView& v = m.bufferViews[static_cast<std::size_t>(a.bufferView)];
         reinterpret_cast<float*>(m.buffers[0].data.data() + v.byteOffset)[0] = 1e30f;
       },
       "is not finite or beyond 1000"},
      {"triangle strips",
       [&](tinygltf::Model& m) { m.meshes[0].primitives[0].mode = TINYGLTF_MODE_TRIANGLE_STRIP; },
       "/meshes/0/primitives/0/mode: expected triangles (4) or, for hard edges, lines (1)"},
      {"no tiles",
       [&](tinygltf::Model& m) {
         for (tinygltf::Node& n : m.nodes)
           n.extras = tinygltf::Value();
       },
       "/nodes: no node has the extras of a tile"},
  };
  for (const Case& c : cases) {
    const std::string e = kit_error(edited(c.edit));
    EXPECT_NE(e.find("k.glb"), std::string::npos) << c.name << ": " << e;
    EXPECT_NE(e.find(c.says), std::string::npos) << c.name << ": " << e;
  }
  // A JSON chunk nested 100,000 deep: refused before tinygltf would recurse through it.
  {
    std::string json = "{\"asset\":{\"version\":\"2.0\"},\"x\":" + std::string(100000, '[') +
                       std::string(100000, ']') + "}";
    json.resize((json.size() + 3) / 4 * 4, ' ');
    std::vector<std::uint8_t> deep = {'g', 'l', 'T', 'F', 2, 0, 0, 0};
    const auto u32 = [&](std::uint32_t x) {
      for (int i = 0; i < 4; ++i)
        deep.push_back(static_cast<std::uint8_t>(x >> (8 * i)));
    };
    u32(static_cast<std::uint32_t>(20 + json.size()));
    u32(static_cast<std::uint32_t>(json.size()));
    u32(0x4E4F534A);
    deep.insert(deep.end(), json.begin(), json.end());
    const std::string e = kit_error(deep);
    EXPECT_NE(e.find("k.glb (JSON chunk):1:"), std::string::npos) << e.substr(0, 200);
    EXPECT_NE(e.find("nested deeper than 64 levels"), std::string::npos) << e.substr(0, 200);
  }
  const std::vector<std::uint8_t> junk = {'n', 'o', 't', ' ', 'g', 'l', 'b'};
  EXPECT_NE(kit_error(junk).find("k.glb: not a glTF binary (.glb) kit"), std::string::npos)
      << kit_error(junk);
  // The edits above are what fails: the unedited kit reads and checks.
  EXPECT_EQ(kit_error(edited([](tinygltf::Model&) {})), "");
}

// A kit of one's own: the built-in one with a rock on the flat floor and the floor made rarer.
TEST(IslandKit, AKitOfOnesOwnMakesAnIslandWithItsTiles) {
  std::vector<KitTile> kit = builtin_kit();
  std::size_t rock_before = 0;
  for (KitTile& t : kit) {
    if (t.name != "ground_1111") continue;
    UnitMesh& m = t.mesh;
    const auto v = [&](double u, double vv, double w) {
      m.vertices.push_back({u, vv, w});
      return static_cast<std::uint16_t>(m.vertices.size() - 1);
    };
    // A pyramid standing on the floor in the cell's middle, away from every side face.
    const std::uint16_t a = v(0.4, 0.4, 0), b = v(0.6, 0.4, 0), c = v(0.6, 0.6, 0),
                        d = v(0.4, 0.6, 0), top = v(0.5, 0.5, 0.3);
    for (const auto& [p, q] : {std::pair{a, b}, {b, c}, {c, d}, {d, a}})
      m.triangles.push_back({{p, q, top}, Material::rock});
    t.weight = 150.0;
  }
  Result<std::vector<std::uint8_t>> glb = write_kit_glb(kit);
  ASSERT_TRUE(glb.ok());
  Result<std::vector<KitTile>> read = read_kit_glb(*glb, "own.glb");
  ASSERT_TRUE(read.ok()) << read.error().to_string();
  const TileSet set = tile_set(*read);
  const TileSet builtin = tile_set(builtin_kit());
  // The rock sits inside the cell: the profiles and constraints do not change.
  EXPECT_EQ(set.model.constraints.size(), builtin.model.constraints.size());
  const wfc::TileId floor = set.model.find("ground_1111");
  ASSERT_NE(floor, wfc::kNoTile);
  EXPECT_EQ(set.model.tiles[floor].weight, 150.0);
  IslandConfig config;
  config.grid.radius = 4;
  Result<Island> island = generate_island(config, 5, set);
  ASSERT_TRUE(island.ok()) << island.error().to_string();
  std::size_t floors = 0;
  for (const wfc::TileId t : island->tiles)
    floors += t == floor ? 1 : 0;
  ASSERT_GT(floors, 0U);
  for (std::size_t t = 0; t < island->mesh.material.size(); ++t) {
    rock_before +=
        island->mesh.material[t] == Material::rock && island->tiles[island->mesh.cell[t]] == floor
            ? 1
            : 0;
  }
  EXPECT_EQ(rock_before, floors * 4);  // Four rock faces on every flat floor.
}

}  // namespace
}  // namespace cityforge::islands
