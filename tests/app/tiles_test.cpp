// SPDX-License-Identifier: Apache-2.0
// `cityforge generate --tiles`: the tileset of the default city read back. The tree's bounding
// volumes contain their content (computed here from the glb accessors and instance transforms),
// geometric errors fall from parent to child, every building of layout.geojson is in exactly
// one leaf (its property table), tileset.json passes the 3D Tiles 1.1 schemas, every content
// file passes the Khronos validator, the files are identical at 1 and 2 threads, and a folder
// that cannot take a tileset gets a clear error and no tileset.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "app/cli_run.hpp"
#include "cityforge/gltf/tinygltf_model.hpp"
#include "export/meshopt_glb.hpp"

namespace cityforge {
namespace {

namespace fs = std::filesystem;
using clitest::CliRun;
using clitest::run_cli;
using clitest::run_command;
using clitest::shared_city;
using clitest::slurp;
using clitest::temp_dir;
using clitest::validate_glb;
using clitest::validator_installed;
using nlohmann::json;

struct Box {
  std::array<double, 3> lo{1e300, 1e300, 1e300};
  std::array<double, 3> hi{-1e300, -1e300, -1e300};
  void add(double x, double y, double z) {
    const double p[3] = {x, y, z};
    for (int k = 0; k < 3; ++k) {
      lo[k] = std::min(lo[k], p[k]);
      hi[k] = std::max(hi[k], p[k]);
    }
  }
};

/// The generated default city with --tiles (2 threads), made once for every test process
/// (the MPI tests compare their runs with it too).
class Tiles : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path();
    run_ = new CliRun(shared_city("default-tiles", clitest::kDefaultTilesArgs, dir_));
  }
  static void TearDownTestSuite() {
    delete dir_;
    delete run_;
  }
  static fs::path* dir_;
  static CliRun* run_;
};
fs::path* Tiles::dir_ = nullptr;
CliRun* Tiles::run_ = nullptr;

std::vector<float> floats(const tinygltf::Model& m, int accessor) {
  const tinygltf::Accessor& a = m.accessors.at(static_cast<std::size_t>(accessor));
  const tinygltf::BufferView& v = m.bufferViews.at(static_cast<std::size_t>(a.bufferView));
  const unsigned char* p = m.buffers.at(0).data.data() + v.byteOffset + a.byteOffset;
  const std::size_t n = a.count * static_cast<std::size_t>(tinygltf::GetNumComponentsInType(
                                      static_cast<std::uint32_t>(a.type)));
  std::vector<float> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (a.componentType == TINYGLTF_COMPONENT_TYPE_FLOAT) {
      std::memcpy(&out[i], p + 4 * i, 4);
    } else if (a.componentType == TINYGLTF_COMPONENT_TYPE_SHORT) {
      std::int16_t s = 0;
      std::memcpy(&s, p + 2 * i, 2);
      out[i] = std::max(s / 32767.0f, -1.0f);
    } else {
      ADD_FAILURE() << "unexpected component type " << a.componentType;
    }
  }
  return out;
}

/// What a content glb draws, in the tileset's z-up frame (glb (x, y, z) -> (x, -z, y)).
Box content_bounds(const tinygltf::Model& m) {
  Box box;
  for (const tinygltf::Node& node : m.nodes) {
    EXPECT_TRUE(node.translation.empty() && node.rotation.empty() && node.matrix.empty())
        << node.name << ": content nodes carry no transform";
    if (node.mesh < 0) continue;
    std::array<double, 3> lo{1e300, 1e300, 1e300};
    std::array<double, 3> hi{-1e300, -1e300, -1e300};
    for (const tinygltf::Primitive& p :
         m.meshes.at(static_cast<std::size_t>(node.mesh)).primitives) {
      const tinygltf::Accessor& a =
          m.accessors.at(static_cast<std::size_t>(p.attributes.at("POSITION")));
      for (int k = 0; k < 3; ++k) {
        lo[k] = std::min(lo[k], a.minValues.at(k));
        hi[k] = std::max(hi[k], a.maxValues.at(k));
      }
    }
    const auto ext = node.extensions.find("EXT_mesh_gpu_instancing");
    if (ext == node.extensions.end()) {
      box.add(lo[0], -lo[2], lo[1]);
      box.add(hi[0], -hi[2], hi[1]);
      continue;
    }
    const tinygltf::Value& at = ext->second.Get("attributes");
    const std::vector<float> t = floats(m, at.Get("TRANSLATION").GetNumberAsInt());
    const std::vector<float> r = floats(m, at.Get("ROTATION").GetNumberAsInt());
    const std::vector<float> s = floats(m, at.Get("SCALE").GetNumberAsInt());
    for (std::size_t i = 0; i < t.size() / 3; ++i) {
      double q[4] = {r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]};
      const double len = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
      for (double& c : q)
        c /= len;
      // Rotation matrix of q applied to the scaled corners.
      const double xx = q[0] * q[0], yy = q[1] * q[1], zz = q[2] * q[2];
      const double xy = q[0] * q[1], xz = q[0] * q[2], yz = q[1] * q[2];
      const double wx = q[3] * q[0], wy = q[3] * q[1], wz = q[3] * q[2];
      const double R[3][3] = {{1 - 2 * (yy + zz), 2 * (xy - wz), 2 * (xz + wy)},
                              {2 * (xy + wz), 1 - 2 * (xx + zz), 2 * (yz - wx)},
                              {2 * (xz - wy), 2 * (yz + wx), 1 - 2 * (xx + yy)}};
      for (int c = 0; c < 8; ++c) {
        const double v[3] = {((c & 1) ? hi[0] : lo[0]) * s[3 * i],
                             ((c & 2) ? hi[1] : lo[1]) * s[3 * i + 1],
                             ((c & 4) ? hi[2] : lo[2]) * s[3 * i + 2]};
        double w[3];
        for (int k = 0; k < 3; ++k)
          w[k] = R[k][0] * v[0] + R[k][1] * v[1] + R[k][2] * v[2] + t[3 * i + k];
        box.add(w[0], -w[2], w[1]);
      }
    }
  }
  return box;
}

/// The "id" column of a glb's building property table.
std::vector<std::uint32_t> building_ids(const tinygltf::Model& m) {
  std::vector<std::uint32_t> ids;
  const auto ext = m.extensions.find("EXT_structural_metadata");
  if (ext == m.extensions.end()) return ids;
  const tinygltf::Value& table = ext->second.Get("propertyTables").Get(0);
  EXPECT_EQ(table.Get("class").Get<std::string>(), "building");
  const int count = table.Get("count").GetNumberAsInt();
  const tinygltf::BufferView& v = m.bufferViews.at(
      static_cast<std::size_t>(table.Get("properties").Get("id").Get("values").GetNumberAsInt()));
  EXPECT_EQ(v.byteOffset % 8, 0U) << "property table views start on 8-byte boundaries";
  ids.resize(static_cast<std::size_t>(count));
  std::memcpy(ids.data(), m.buffers.at(0).data.data() + v.byteOffset, ids.size() * 4);
  return ids;
}

/// Whether a glb requires EXT_meshopt_compression (its JSON chunk says so).
bool meshopt_compressed(const std::vector<unsigned char>& glb) {
  std::uint32_t len = 0;
  std::memcpy(&len, glb.data() + 12, 4);
  const json j = json::parse(glb.begin() + 20, glb.begin() + 20 + len);
  const auto req = j.value("extensionsRequired", std::vector<std::string>{});
  return std::find(req.begin(), req.end(), "EXT_meshopt_compression") != req.end();
}

/// A content glb, its EXT_meshopt_compression views decoded with meshoptimizer first (tinygltf
/// cannot read fallback buffers), so every check reads the data a client draws.
tinygltf::Model load(const fs::path& file, bool* compressed = nullptr) {
  const std::string text = slurp(file);
  const std::vector<unsigned char> glb(text.begin(), text.end());
  if (compressed != nullptr) *compressed = glb.size() > 20 && meshopt_compressed(glb);
  std::vector<unsigned char> plain;
  try {
    plain = cityforge::exporter::testing::plain_glb(glb);
  } catch (const std::exception& e) {
    ADD_FAILURE() << file << ": " << e.what();
    return {};
  }
  tinygltf::TinyGLTF loader;
  tinygltf::Model model;
  std::string err;
  std::string warn;
  EXPECT_TRUE(loader.LoadBinaryFromMemory(&model, &err, &warn, plain.data(),
                                          static_cast<unsigned>(plain.size())))
      << file << ": " << err;
  return model;
}

struct Walk {
  std::map<std::uint32_t, int> leaf_hits;  ///< building id -> leaves holding it
  std::size_t tiles = 0;
  std::size_t leaves = 0;
  std::size_t compressed = 0;  ///< Content files with EXT_meshopt_compression.
  std::vector<fs::path> files;
};

void walk(const json& tile, const fs::path& root, double parent_error, Walk& w, int level) {
  ++w.tiles;
  const double error = tile.at("geometricError").get<double>();
  if (level > 0) {
    EXPECT_LT(error, parent_error) << "a child's error is below its parent's";
  }
  const std::vector<double> b = tile.at("boundingVolume").at("box").get<std::vector<double>>();
  ASSERT_EQ(b.size(), 12U);
  EXPECT_TRUE(b[4] == 0 && b[5] == 0 && b[6] == 0 && b[8] == 0 && b[9] == 0 && b[10] == 0);
  const bool leaf = !tile.contains("children");
  if (leaf) {
    ++w.leaves;
    EXPECT_EQ(error, 0.0) << "leaves hold full detail";
  }
  if (tile.contains("content")) {
    const fs::path file = root / tile.at("content").at("uri").get<std::string>();
    ASSERT_TRUE(fs::exists(file)) << file;
    w.files.push_back(file);
    bool compressed = false;
    const tinygltf::Model m = load(file, &compressed);
    w.compressed += compressed ? 1 : 0;
    const Box c = content_bounds(m);
    for (int k = 0; k < 3; ++k) {
      EXPECT_LE(b[k] - b[3 + 4 * k], c.lo[k] + 1e-3) << file << " axis " << k;
      EXPECT_GE(b[k] + b[3 + 4 * k], c.hi[k] - 1e-3) << file << " axis " << k;
    }
    if (leaf) {
      for (const std::uint32_t id : building_ids(m))
        ++w.leaf_hits[id];
    } else {
      ASSERT_FALSE(m.nodes.empty());
      EXPECT_EQ(m.nodes[0].name, "hlod") << file;
    }
  }
  if (tile.contains("children")) {
    for (const json& c : tile.at("children")) {
      // Children lie inside their parent's box.
      const std::vector<double> cb = c.at("boundingVolume").at("box").get<std::vector<double>>();
      for (int k = 0; k < 3; ++k) {
        EXPECT_LE(b[k] - b[3 + 4 * k], cb[k] - cb[3 + 4 * k] + 1e-3);
        EXPECT_GE(b[k] + b[3 + 4 * k], cb[k] + cb[3 + 4 * k] - 1e-3);
      }
      walk(c, root, error, w, level + 1);
    }
  }
}

TEST_F(Tiles, TreeReadsBack) {
  ASSERT_EQ(run_->exit_code, 0) << run_->output;
  const fs::path root = *dir_ / "tiles";
  const json ts = json::parse(slurp(root / "tileset.json"));
  EXPECT_EQ(ts.at("asset").at("version"), "1.1");
  ASSERT_EQ(ts.at("root").at("transform").size(), 16U);
  EXPECT_EQ(ts.at("root").at("refine"), "REPLACE");
  EXPECT_GE(ts.at("geometricError").get<double>(),
            ts.at("root").at("geometricError").get<double>());
  Walk w;
  walk(ts.at("root"), root, 1e300, w, 0);
  EXPECT_GT(w.leaves, 4U) << "the default city is cut into several leaves";
  EXPECT_EQ(w.compressed, w.files.size()) << "export.tile_compression is meshopt by default";
  // Every building of layout.geojson is in exactly one leaf.
  const json layout = json::parse(slurp(*dir_ / "layout.geojson"));
  std::size_t buildings = 0;
  for (const json& f : layout.at("features")) {
    if (f.at("properties").value("layer", "") != "building") continue;
    ++buildings;
    const auto id = f.at("properties").at("id").get<std::uint32_t>();
    const auto it = w.leaf_hits.find(id);
    ASSERT_NE(it, w.leaf_hits.end()) << "building " << id << " is in no leaf";
    EXPECT_EQ(it->second, 1) << "building " << id << " is in " << it->second << " leaves";
  }
  EXPECT_GT(buildings, 100U);
  EXPECT_EQ(w.leaf_hits.size(), buildings) << "leaves hold no building layout.geojson lacks";
  // stats.json counts the tiles.
  const json stats = json::parse(slurp(*dir_ / "stats.json"));
  EXPECT_EQ(stats.at("tiles").at("tiles").get<std::size_t>(), w.tiles);
  EXPECT_EQ(stats.at("tiles").at("buildings").get<std::size_t>(), buildings);
}

TEST_F(Tiles, LeavesReferToSharedTextureFiles) {
  // The leaves' textured materials take their images from tiles/textures/ (one file per
  // surface and map, and per decal picture, written once), so no tile repeats an image;
  // parents have colours only.
  ASSERT_EQ(run_->exit_code, 0) << run_->output;
  const fs::path root = *dir_ / "tiles";
  std::set<std::string> files;
  std::size_t bytes = 0;
  for (const auto& e : fs::directory_iterator(root / "textures")) {
    const std::string png = slurp(e.path());
    EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8)) << e.path();
    files.insert(e.path().filename().string());
    bytes += png.size();
  }
  EXPECT_EQ(files.size(), 41U) << "12 surfaces x base colour, normal, metallic-roughness; "
                                  "4 decals' base colours and the crack's normal map";
  EXPECT_TRUE(files.count("brick.base_colour.png") && files.count("asphalt.normal.png") &&
              files.count("concrete.metallic_roughness.png"));
  EXPECT_TRUE(files.count("decal_grime.base_colour.png") &&
              files.count("decal_tyre_marks.base_colour.png") &&
              files.count("decal_oil.base_colour.png") &&
              files.count("decal_crack.base_colour.png") && files.count("decal_crack.normal.png"));
  const json stats = json::parse(slurp(*dir_ / "stats.json"));
  EXPECT_EQ(stats.at("tiles").at("textures").get<std::size_t>(), files.size());
  EXPECT_EQ(stats.at("tiles").at("texture_bytes").get<std::size_t>(), bytes);
  std::set<std::string> used;
  std::size_t leaves = 0;
  std::size_t textured_primitives = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.path().extension() != ".glb") continue;
    const tinygltf::Model m = load(e.path());
    const bool hlod = !m.nodes.empty() && m.nodes[0].name == "hlod";
    if (hlod) {
      EXPECT_TRUE(m.images.empty()) << e.path();
      continue;
    }
    ++leaves;
    for (const tinygltf::Image& image : m.images) {
      EXPECT_EQ(image.bufferView, -1) << e.path();
      ASSERT_EQ(image.uri.rfind("../../textures/", 0), 0U) << e.path() << ": " << image.uri;
      const fs::path target = (e.path().parent_path() / image.uri).lexically_normal();
      EXPECT_TRUE(fs::exists(target)) << e.path() << ": " << image.uri;
      used.insert(target.filename().string());
    }
    for (const tinygltf::Mesh& mesh : m.meshes) {
      for (const tinygltf::Primitive& p : mesh.primitives) {
        if (p.material < 0) continue;
        const tinygltf::Material& mat = m.materials.at(static_cast<std::size_t>(p.material));
        if (mat.normalTexture.index < 0) continue;
        ++textured_primitives;
        EXPECT_TRUE(p.attributes.count("TEXCOORD_0") && p.attributes.count("TANGENT"))
            << e.path() << ": " << mat.name;
        EXPECT_GE(mat.pbrMetallicRoughness.baseColorTexture.index, 0) << mat.name;
      }
    }
  }
  EXPECT_GT(leaves, 4U);
  EXPECT_GT(textured_primitives, leaves) << "walls, roads, roofs and ground take textures";
  for (const char* f :
       {"brick.base_colour.png", "asphalt.base_colour.png", "paving.normal.png",
        "grass.metallic_roughness.png", "decal_grime.base_colour.png", "decal_crack.normal.png"}) {
    EXPECT_TRUE(used.count(f)) << f << " is used by no leaf";
  }
}

TEST_F(Tiles, TilesetPassesThe3DTilesSchemas) {
  ASSERT_EQ(run_->exit_code, 0) << run_->output;
  const fs::path schemas = fs::path(CITYFORGE_SOURCE_DIR) / ".." / "shared" / "schemas";
  const fs::path modules =
      fs::path(CITYFORGE_SOURCE_DIR) / "tools" / "schema-check" / "node_modules";
  if (!fs::exists(schemas / "validate-tileset.mjs")) {
    GTEST_SKIP() << "the 3D Tiles schemas are not at " << schemas << " (../shared/schemas)";
  }
  if (!fs::exists(modules / "ajv")) GTEST_SKIP() << "run `make validator` (tools/schema-check)";
  const CliRun r = run_command("node " + (schemas / "validate-tileset.mjs").string() + " " +
                               (*dir_ / "tiles" / "tileset.json").string() + " " +
                               (schemas / "3d-tiles").string() + " --modules " + modules.string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("0 errors"), std::string::npos) << r.output;
}

/// The glb's JSON chunk.
json glb_json(const fs::path& file) {
  const std::string bytes = slurp(file);
  std::uint32_t n = 0;
  std::memcpy(&n, bytes.data() + 12, 4);
  return json::parse(bytes.substr(20, n));
}

TEST_F(Tiles, MetadataExtensionsPassTheirSchemas) {
  // The Khronos validator does not know EXT_mesh_features, EXT_instance_features and
  // EXT_structural_metadata: their objects are checked against the extensions' own schemas.
  ASSERT_EQ(run_->exit_code, 0) << run_->output;
  const fs::path schemas = fs::path(CITYFORGE_SOURCE_DIR) / ".." / "shared" / "schemas";
  const fs::path modules =
      fs::path(CITYFORGE_SOURCE_DIR) / "tools" / "schema-check" / "node_modules";
  if (!fs::exists(schemas / "gltf-ext")) GTEST_SKIP() << "no " << schemas / "gltf-ext";
  if (!fs::exists(modules / "ajv")) GTEST_SKIP() << "run `make validator` (tools/schema-check)";
  const fs::path scratch = temp_dir("tiles_ext");
  std::size_t checked = 0;
  auto check = [&](const json& object, const std::string& ext, const std::string& schema) {
    const fs::path file = scratch / (std::to_string(checked++) + ".json");
    std::ofstream(file) << object.dump();
    const CliRun r = run_command(
        "node " + (schemas / "validate-tileset.mjs").string() + " " + file.string() + " " +
        (schemas / "gltf-ext" / ext / "schema").string() + " --schema " + schema + " --search " +
        (schemas / "gltf-ext" / "gltf-2.0-core").string() + " --modules " + modules.string());
    EXPECT_EQ(r.exit_code, 0) << ext << " " << object.dump().substr(0, 400) << "\n" << r.output;
  };
  std::size_t leaves = 0;
  std::size_t parents = 0;
  for (const auto& e : fs::recursive_directory_iterator(*dir_ / "tiles")) {
    if (e.path().extension() != ".glb") continue;
    const json j = glb_json(e.path());
    if (!j.contains("extensions")) continue;
    const bool leaf = j.at("nodes").at(0).at("name") == "city";
    // One leaf and one parent suffice: every file is written by the same code.
    if ((leaf && leaves++ > 0) || (!leaf && parents++ > 0)) continue;
    check(j.at("extensions").at("EXT_structural_metadata"), "EXT_structural_metadata",
          "glTF.EXT_structural_metadata.schema.json");
    for (const json& mesh : j.at("meshes")) {
      for (const json& prim : mesh.at("primitives")) {
        if (prim.contains("extensions")) {
          check(prim.at("extensions").at("EXT_mesh_features"), "EXT_mesh_features",
                "mesh.primitive.EXT_mesh_features.schema.json");
        }
      }
    }
    for (const json& node : j.at("nodes")) {
      if (node.contains("extensions") && node.at("extensions").contains("EXT_instance_features")) {
        check(node.at("extensions").at("EXT_instance_features"), "EXT_instance_features",
              "node.EXT_instance_features.schema.json");
        break;
      }
    }
  }
  EXPECT_GT(leaves, 0U);
  EXPECT_GT(parents, 0U);
  EXPECT_GE(checked, 4U);
  std::error_code ec;
  fs::remove_all(scratch, ec);
}

TEST_F(Tiles, EveryContentFilePassesTheKhronosValidator) {
  ASSERT_EQ(run_->exit_code, 0) << run_->output;
  if (!validator_installed()) GTEST_SKIP() << "run `make validator`";
  std::string files;
  std::size_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(*dir_ / "tiles")) {
    if (e.path().extension() == ".glb") {
      files += ' ';
      files += e.path().string();
      ++n;
    }
  }
  ASSERT_GT(n, 4U);
  const CliRun r = validate_glb(files);
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST_F(Tiles, IdenticalAtOneAndTwoThreads) {
  ASSERT_EQ(run_->exit_code, 0) << run_->output;
  const fs::path one = temp_dir("tiles_one");
  const CliRun r =
      run_cli("generate -q --no-sumo --tiles --no-city-glb --threads 1 -o " + one.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(fs::exists(one / "city.glb")) << "--no-city-glb";
  std::size_t compared = 0;
  for (const auto& e : fs::recursive_directory_iterator(*dir_ / "tiles")) {
    if (!e.is_regular_file()) continue;
    const fs::path rel = fs::relative(e.path(), *dir_);
    ASSERT_TRUE(fs::exists(one / rel)) << rel;
    EXPECT_TRUE(slurp(e.path()) == slurp(one / rel)) << rel << " differs between 1 and 2 threads";
    ++compared;
  }
  std::size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(one / "tiles"))
    files += e.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files, compared);
  // Without city.glb the buildings stage keeps no facade modules: the tiles above and the point
  // cloud make them again per lot, to the same bytes.
  const fs::path ply = fs::path("points") / "building_modules.ply";
  EXPECT_GT(fs::file_size(one / ply), 1000000U);
  EXPECT_TRUE(slurp(*dir_ / ply) == slurp(one / ply)) << ply << " differs";
  std::error_code ec;
  fs::remove_all(one, ec);
}

/// The "osm_id" column of a leaf's building table (empty when there is none).
std::vector<std::int64_t> osm_ids(const tinygltf::Model& m) {
  std::vector<std::int64_t> ids;
  const auto ext = m.extensions.find("EXT_structural_metadata");
  if (ext == m.extensions.end()) return ids;
  const tinygltf::Value& table = ext->second.Get("propertyTables").Get(0);
  if (!table.Get("properties").Has("osm_id")) return ids;
  const tinygltf::BufferView& v = m.bufferViews.at(static_cast<std::size_t>(
      table.Get("properties").Get("osm_id").Get("values").GetNumberAsInt()));
  ids.resize(static_cast<std::size_t>(table.Get("count").GetNumberAsInt()));
  std::memcpy(ids.data(), m.buffers.at(0).data.data() + v.byteOffset, ids.size() * 8);
  return ids;
}

TEST(TilesImport, ImportedPlaceLandsAtItsOriginWithOsmIds) {
  const fs::path dir = temp_dir("tiles_import");
  const CliRun r =
      run_cli("import " + std::string(CITYFORGE_TEST_DATA) +
              "/osm/aberdeen_centre.osm -q --no-sumo --tiles --no-city-glb -o " + dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(fs::exists(dir / "city.glb"));
  const json stats = json::parse(slurp(dir / "stats.json"));
  const double lon0 = stats.at("import").at("origin").at("lon_deg").get<double>();
  const double lat0 = stats.at("import").at("origin").at("lat_deg").get<double>();
  // The root transform's translation is the origin in ECEF; back to geodetic (Bowring's
  // iteration), it must be the import's origin at height 0.
  const json ts = json::parse(slurp(dir / "tiles" / "tileset.json"));
  const std::vector<double> m = ts.at("root").at("transform").get<std::vector<double>>();
  ASSERT_EQ(m.size(), 16U);
  constexpr double a = 6378137.0;
  constexpr double f = 1.0 / 298.257223563;
  const double e2 = f * (2 - f);
  const double p = std::hypot(m[12], m[13]);
  double lat = std::atan2(m[14], p * (1 - e2));
  double h = 0.0;
  for (int i = 0; i < 8; ++i) {
    const double n = a / std::sqrt(1 - e2 * std::sin(lat) * std::sin(lat));
    h = p / std::cos(lat) - n;
    lat = std::atan2(m[14], p * (1 - e2 * n / (n + h)));
  }
  constexpr double kDeg = 180.0 / 3.14159265358979323846;
  EXPECT_NEAR(std::atan2(m[13], m[12]) * kDeg, lon0, 1e-9);
  EXPECT_NEAR(lat * kDeg, lat0, 1e-9);
  EXPECT_NEAR(h, 0.0, 1e-3);
  // Column 2 (up) is the ellipsoid normal there; column 0 (east) is horizontal.
  EXPECT_NEAR(m[10], std::sin(lat), 1e-9);
  EXPECT_NEAR(m[2], 0.0, 1e-12);
  // Every leaf's buildings carry their OSM way (or relation) id.
  std::size_t with_osm = 0;
  std::size_t rows = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir / "tiles")) {
    if (e.path().extension() != ".glb") continue;
    const tinygltf::Model model = load(e.path());
    if (model.nodes.empty() || model.nodes[0].name != "city") continue;
    for (const std::int64_t id : osm_ids(model)) {
      ++rows;
      with_osm += id != 0 ? 1 : 0;
    }
  }
  EXPECT_GT(rows, 50U);
  EXPECT_EQ(with_osm, rows) << "every imported building has its OSM id";
  EXPECT_EQ(stats.at("tiles").at("buildings").get<std::size_t>(), rows);
  std::error_code ec;
  fs::remove_all(dir, ec);
}

TEST(TilesBadInput, FolderThatCannotTakeATilesetFailsCleanly) {
  // OUT/tiles is a file the user made: refused before anything is written, and kept.
  const fs::path dir = temp_dir("tiles_bad");
  {
    std::ofstream f(dir / "tiles");
    f << "mine\n";
  }
  const CliRun r = run_cli("generate -q --no-sumo --tiles -o " + dir.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("tiles"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("not a tileset"), std::string::npos) << r.output;
  EXPECT_EQ(slurp(dir / "tiles"), "mine\n");
  for (const auto& e : fs::directory_iterator(dir))
    EXPECT_EQ(e.path().filename().string().find(".tiles"), std::string::npos) << e.path();
  // An output folder below a regular file cannot be created at all.
  const CliRun r2 = run_cli("generate -q --no-sumo --tiles -o " + (dir / "tiles" / "out").string());
  EXPECT_NE(r2.exit_code, 0) << r2.output;
  EXPECT_NE(r2.output.find("cannot create"), std::string::npos) << r2.output;
  std::error_code ec;
  fs::remove_all(dir, ec);
}

}  // namespace
}  // namespace cityforge
