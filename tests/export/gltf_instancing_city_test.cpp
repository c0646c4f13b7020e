// SPDX-License-Identifier: Apache-2.0
// city.glb with export.road_modules = "instanced": road bricks and EXT_mesh_gpu_instancing.
// tinygltf's implementation lives in cityforge_export (tinygltf_impl.cpp); this file only reads,
// with the same image options so the declarations match.
#define TINYGLTF_NO_STB_IMAGE
#define TINYGLTF_NO_STB_IMAGE_WRITE
#define TINYGLTF_NO_EXTERNAL_IMAGE
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <tiny_gltf.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "cityforge/export/export.hpp"
#include "cityforge/gltf/tinygltf_model.hpp"
#include "cityforge/layout/layout.hpp"
#include "cityforge/pipeline/city_config.hpp"
#include "cityforge/roads/roads.hpp"
#include "cityforge/terrain/heightfield.hpp"
#include "export/fixture.hpp"
#include "export/validator.hpp"

namespace cityforge::exporter {
namespace {

namespace fs = std::filesystem;

constexpr const char* kExt = "EXT_mesh_gpu_instancing";

/// Rolling ground (the default terrain noise), so module starts sit at different heights.
terrain::Heightfield hilly_ground() {
  return *terrain::run(ring_bounds({{0, 0}, {600, 0}, {600, 600}, {0, 600}}), terrain::Config{}, 3);
}

/// A ~600 m city with two crossing arteries, built by the layout and road stages.
struct SmallCity {
  terrain::Heightfield ground = hilly_ground();
  layout::Output layout;
  roads::Output roads;
};

const SmallCity& small_city() {
  static const SmallCity city = [] {
    SmallCity c;
    layout::Inputs in;
    in.boundary.outer = {{0, 0}, {600, 0}, {600, 600}, {0, 600}};
    in.arteries.push_back({"east-west", {{10, 280}, {300, 320}, {590, 300}}});
    in.arteries.push_back({"north-south", {{320, 10}, {280, 300}, {330, 590}}});
    layout::Zone res;
    res.area.outer = in.boundary.outer;
    in.zones = {res};
    auto l = layout::run(in, c.ground, layout::Config{}, 7);
    EXPECT_TRUE(l.ok()) << l.error().to_string();
    c.layout = std::move(l).value();
    auto r = roads::run(c.layout, c.ground, roads::Config{}, 7);
    EXPECT_TRUE(r.ok()) << r.error().to_string();
    c.roads = std::move(r).value();
    return c;
  }();
  return city;
}

Config instanced() {
  Config c;
  c.road_modules = pipeline::RoadModules::instanced;
  return c;
}

std::vector<std::uint8_t> glb_of(const Config& config) {
  const SmallCity& c = small_city();
  fixture::Extras extras;
  extras.roads = &c.roads;
  auto glb = fixture::city_glb_of(c.layout, c.ground, config, extras);
  EXPECT_TRUE(glb.ok()) << glb.error().to_string();
  return glb.ok() ? *glb : std::vector<std::uint8_t>{};
}

tinygltf::Model load(const std::vector<std::uint8_t>& glb) {
  tinygltf::TinyGLTF loader;
  gltf::skip_image_decoding(loader);
  tinygltf::Model model;
  std::string err;
  std::string warn;
  const bool ok = loader.LoadBinaryFromMemory(&model, &err, &warn, glb.data(),
                                              static_cast<unsigned int>(glb.size()));
  EXPECT_TRUE(ok) << err;
  EXPECT_TRUE(err.empty()) << err;
  return model;
}

/// An accessor of float32 elements of n components.
std::vector<float> read_floats(const tinygltf::Model& m, int accessor, std::size_t n) {
  const tinygltf::Accessor& a = m.accessors.at(static_cast<std::size_t>(accessor));
  EXPECT_EQ(a.componentType, TINYGLTF_COMPONENT_TYPE_FLOAT);
  EXPECT_EQ(a.type, n == 4 ? TINYGLTF_TYPE_VEC4 : TINYGLTF_TYPE_VEC3);
  const tinygltf::BufferView& v = m.bufferViews.at(static_cast<std::size_t>(a.bufferView));
  std::vector<float> out(a.count * n);
  EXPECT_GE(v.byteLength, out.size() * 4);
  std::memcpy(out.data(), m.buffers[0].data.data() + v.byteOffset + a.byteOffset, out.size() * 4);
  return out;
}

int attribute(const tinygltf::Value& ext, const char* name) {
  const tinygltf::Value& v = ext.Get("attributes").Get(name);
  EXPECT_TRUE(v.IsInt()) << name;
  return v.IsInt() ? v.Get<int>() : -1;
}

std::string brick_of(const roads::ModuleInstance& m) {
  static const char* kClass[3] = {"road_artery", "road_main", "road_local"};
  static const char* kLength[3] = {"20m", "10m", "5m"};
  return std::string(kClass[m.road_class]) + "_" + kLength[m.size];
}

TEST(CityGlbInstancing, OneInstancePerSectionModuleAtItsStart) {
  const SmallCity& c = small_city();
  const tinygltf::Model m = load(glb_of(instanced()));
  EXPECT_NE(std::find(m.extensionsUsed.begin(), m.extensionsUsed.end(), kExt),
            m.extensionsUsed.end());
  EXPECT_EQ(std::find(m.extensionsRequired.begin(), m.extensionsRequired.end(), kExt),
            m.extensionsRequired.end());

  // Expected instances per node name, in module order.
  std::map<std::string, std::vector<const roads::ModuleInstance*>> expected;
  std::size_t sections = 0;
  for (const roads::ModuleInstance& mod : c.roads.modules) {
    if (mod.in_intersection) continue;
    ++sections;
    const auto cx = static_cast<int>(std::floor(mod.position.x / 100.0));
    const auto cy = static_cast<int>(std::floor(mod.position.y / 100.0));
    expected["chunk_" + std::to_string(cx) + "_" + std::to_string(cy) + "." + brick_of(mod)]
        .push_back(&mod);
  }
  ASSERT_GT(sections, 20U);
  ASSERT_LT(sections, c.roads.modules.size()) << "the city should have junction fill too";

  std::size_t count = 0;
  std::size_t nodes = 0;
  for (const tinygltf::Node& node : m.nodes) {
    const auto it = node.extensions.find(kExt);
    if (it == node.extensions.end()) continue;
    ++nodes;
    SCOPED_TRACE(node.name);
    ASSERT_TRUE(expected.count(node.name));
    const auto& mods = expected[node.name];
    const std::vector<float> t = read_floats(m, attribute(it->second, "TRANSLATION"), 3);
    const std::vector<float> r = read_floats(m, attribute(it->second, "ROTATION"), 4);
    const std::vector<float> s = read_floats(m, attribute(it->second, "SCALE"), 3);
    ASSERT_EQ(t.size(), mods.size() * 3);
    ASSERT_EQ(r.size(), mods.size() * 4);
    ASSERT_EQ(s.size(), mods.size() * 3);
    // The node's mesh is the brick named after it.
    ASSERT_GE(node.mesh, 0);
    EXPECT_EQ(node.name.substr(node.name.find('.') + 1),
              m.meshes.at(static_cast<std::size_t>(node.mesh)).name);
    for (std::size_t i = 0; i < mods.size(); ++i) {
      const roads::ModuleInstance& mod = *mods[i];
      // y-up: (x, z, -y).
      EXPECT_NEAR(t[3 * i], mod.position.x, 1e-3);
      EXPECT_NEAR(t[3 * i + 1], mod.position.z, 1e-3);
      EXPECT_NEAR(t[3 * i + 2], -mod.position.y, 1e-3);
      const double norm =
          std::hypot(std::hypot(r[4 * i], r[4 * i + 1]), std::hypot(r[4 * i + 2], r[4 * i + 3]));
      EXPECT_NEAR(norm, 1.0, 1e-6);
      // The rotation turns the local +x axis onto the module heading (engine (cos, sin)) in
      // plan, pitched so the brick ends on the ground at its end: rotate (1, 0, 0) by q.
      const double qx = r[4 * i];
      const double qy = r[4 * i + 1];
      const double qz = r[4 * i + 2];
      const double qw = r[4 * i + 3];
      const double ax = 1.0 - 2.0 * (qy * qy + qz * qz);
      const double ay = 2.0 * (qx * qy + qz * qw);
      const double az = 2.0 * (qx * qz - qy * qw);  // glTF z = -engine y
      const double plan = std::hypot(ax, az);
      EXPECT_NEAR(ax / plan, std::cos(mod.yaw_rad), 1e-5);
      EXPECT_NEAR(-az / plan, std::sin(mod.yaw_rad), 1e-5);
      const double run = roads::Config{}.module_lengths_m[mod.size] * mod.scale;
      const Vec2 end = Vec2{mod.position.x, mod.position.y} +
                       Vec2{std::cos(mod.yaw_rad), std::sin(mod.yaw_rad)} * run;
      const double rise = c.ground.sample(end) - mod.position.z;
      EXPECT_NEAR(ay / plan, rise / run, 1e-4) << "the brick does not follow the ground";
      // Its cross-section leans with the ground: the rotated +z (right of travel) rises by the
      // ground's slope from left to right.
      double width = 0.0;
      for (const layout::RoadEdge& e : c.layout.network.edges) {
        if (static_cast<std::uint8_t>(e.road_class) == mod.road_class) {
          width = e.width_m;
          break;
        }
      }
      const Vec2 dir{std::cos(mod.yaw_rad), std::sin(mod.yaw_rad)};
      const Vec2 start{mod.position.x, mod.position.y};
      // perp(dir) is the left of travel: the ground's rise from left to right, per metre.
      const double slope = (c.ground.sample(start - perp(dir) * (0.5 * width)) -
                            c.ground.sample(start + perp(dir) * (0.5 * width))) /
                           width;
      const double zy = 2.0 * (qy * qz - qw * qx);
      EXPECT_NEAR(zy, slope, 1e-3) << "the brick does not lean with the cross slope";
      EXPECT_EQ(s[3 * i], static_cast<float>(mod.scale));
      EXPECT_EQ(s[3 * i + 1], 1.0f);
      EXPECT_EQ(s[3 * i + 2], 1.0f);
    }
    count += mods.size();
  }
  EXPECT_EQ(nodes, expected.size());
  EXPECT_EQ(count, sections);
}

TEST(CityGlbInstancing, BricksSpanTheirModuleLengthAndClassWidth) {
  const SmallCity& c = small_city();
  const tinygltf::Model m = load(glb_of(instanced()));
  std::size_t bricks = 0;
  for (const tinygltf::Mesh& mesh : m.meshes) {
    if (mesh.name.rfind("road_", 0) != 0) continue;
    ++bricks;
    SCOPED_TRACE(mesh.name);
    ASSERT_EQ(mesh.primitives.size(), 1U);
    const tinygltf::Accessor& pos =
        m.accessors.at(static_cast<std::size_t>(mesh.primitives[0].attributes.at("POSITION")));
    const double length = std::stod(mesh.name.substr(mesh.name.rfind('_') + 1));
    EXPECT_EQ(pos.minValues[0], 0.0);
    EXPECT_NEAR(pos.maxValues[0], length, 1e-6);
    const int cls = mesh.name.find("artery") != std::string::npos ? 0
                    : mesh.name.find("main") != std::string::npos ? 1
                                                                  : 2;
    double width = 0.0;
    for (const layout::RoadEdge& e : c.layout.network.edges) {
      if (static_cast<int>(e.road_class) == cls) {
        width = e.width_m;
        break;
      }
    }
    EXPECT_NEAR(pos.maxValues[2] - pos.minValues[2], width, 1e-5);
    // Crowned top above the curbs, skirts below.
    EXPECT_GT(pos.maxValues[1], pos.minValues[1] + roads::Config{}.skirt_m);
  }
  EXPECT_GE(bricks, 3U);
  EXPECT_LE(bricks, 9U);
}

TEST(CityGlbInstancing, BakedIsTheDefaultAndInstancedDiffers) {
  Config baked;
  baked.road_modules = pipeline::RoadModules::baked;
  const std::vector<std::uint8_t> plain = glb_of(Config{});
  EXPECT_EQ(glb_of(baked), plain);
  const std::vector<std::uint8_t> inst = glb_of(instanced());
  EXPECT_NE(inst, plain);
  // Without ribbons the file is smaller: the bricks replace every section's strips.
  EXPECT_LT(inst.size(), plain.size());
  EXPECT_EQ(glb_of(instanced()), inst) << "instanced output is deterministic";
  // Baked: no instancing (the textures' KHR_texture_transform is the only extension).
  const tinygltf::Model m = load(plain);
  EXPECT_EQ(m.extensionsUsed, std::vector<std::string>{"KHR_texture_transform"});
}

TEST(CityGlbInstancing, ConfigReadsRoadModules) {
  const std::string base = R"({
    "boundary": [[0, 0], [900, 0], [900, 800], [0, 800]],
    "arteries": [{"points": [[10, 400], [890, 420]]}],
    "zones": [{"kind": "residential", "polygon": [[0, 0], [900, 0], [900, 800], [0, 800]]}],
    "export": {"road_modules": )";
  auto d = pipeline::parse_city_config(base.substr(0, base.rfind(',')) + "}", "c.json");
  ASSERT_TRUE(d.ok()) << d.error().to_string();
  EXPECT_EQ(d->exports.road_modules, pipeline::RoadModules::baked);
  auto i = pipeline::parse_city_config(base + "\"instanced\"}}", "c.json");
  ASSERT_TRUE(i.ok()) << i.error().to_string();
  EXPECT_EQ(i->exports.road_modules, pipeline::RoadModules::instanced);
  EXPECT_NE(pipeline::config_slice(*i, "export"), pipeline::config_slice(*d, "export"));
  EXPECT_NE(pipeline::config_slice(*i, "export").find("\"road_modules\":\"instanced\""),
            std::string::npos);
  for (const char* bad : {"\"bent\"", "1", "true"}) {
    auto e = pipeline::parse_city_config(base + bad + "}}", "c.json");
    ASSERT_FALSE(e.ok()) << bad;
    EXPECT_EQ(e.error().where, "c.json: /export/road_modules") << bad;
  }
}

TEST(CityGlbInstancing, KhronosValidatorReportsNoErrors) {
  if (!testing::validator_installed()) {
    GTEST_SKIP() << "the glTF validator is not installed: run `make validator`";
  }
  const std::vector<std::uint8_t> glb = glb_of(instanced());
  ASSERT_FALSE(glb.empty());
  EXPECT_TRUE(testing::validates(glb, "instancing"));
}

}  // namespace
}  // namespace cityforge::exporter
