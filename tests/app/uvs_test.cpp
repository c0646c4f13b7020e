// SPDX-License-Identifier: Apache-2.0
// Texture coordinates in city.glb (docs/materials.md): every primitive carries TEXCOORD_0 in
// metres; facades are mapped without stretch and, baked, tile across the modules' seams;
// module kit meshes carry their own metre coordinates.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "cityforge/gltf/tinygltf_model.hpp"
#include "cli_run.hpp"

namespace fs = std::filesystem;
using namespace cityforge::clitest;

namespace {

tinygltf::Model load(const fs::path& glb) {
  tinygltf::TinyGLTF loader;
  cityforge::gltf::skip_image_decoding(loader);
  tinygltf::Model model;
  std::string err;
  std::string warn;
  EXPECT_TRUE(loader.LoadBinaryFromFile(&model, &err, &warn, glb.string())) << err;
  return model;
}

template <std::size_t N>
std::vector<std::array<float, N>> read(const tinygltf::Model& m, int accessor) {
  const tinygltf::Accessor& a = m.accessors.at(static_cast<std::size_t>(accessor));
  EXPECT_EQ(a.componentType, TINYGLTF_COMPONENT_TYPE_FLOAT);
  const tinygltf::BufferView& v = m.bufferViews.at(static_cast<std::size_t>(a.bufferView));
  std::vector<std::array<float, N>> out(a.count);
  const std::size_t stride = v.byteStride != 0 ? v.byteStride : N * 4;
  for (std::size_t i = 0; i < a.count; ++i)
    std::memcpy(out[i].data(), m.buffers[0].data.data() + v.byteOffset + a.byteOffset + i * stride,
                N * 4);
  return out;
}

struct Triangles {
  std::vector<std::array<float, 3>> p, n;
  std::vector<std::array<float, 2>> uv;
  std::vector<std::uint32_t> idx;
};

Triangles triangles(const tinygltf::Model& m, const tinygltf::Primitive& pr) {
  Triangles t;
  t.p = read<3>(m, pr.attributes.at("POSITION"));
  t.n = read<3>(m, pr.attributes.at("NORMAL"));
  t.uv = read<2>(m, pr.attributes.at("TEXCOORD_0"));
  const tinygltf::Accessor& a = m.accessors.at(static_cast<std::size_t>(pr.indices));
  const tinygltf::BufferView& v = m.bufferViews.at(static_cast<std::size_t>(a.bufferView));
  t.idx.resize(a.count);
  std::memcpy(t.idx.data(), m.buffers[0].data.data() + v.byteOffset + a.byteOffset, a.count * 4);
  return t;
}

/// Texture area over surface area of triangle k (1: no stretch); 0 for slivers.
double density(const Triangles& t, std::size_t k) {
  const auto& a = t.p[t.idx[k]];
  const auto& b = t.p[t.idx[k + 1]];
  const auto& c = t.p[t.idx[k + 2]];
  const double e[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  const double f[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  const double cx = e[1] * f[2] - e[2] * f[1], cy = e[2] * f[0] - e[0] * f[2],
               cz = e[0] * f[1] - e[1] * f[0];
  const double area = 0.5 * std::sqrt(cx * cx + cy * cy + cz * cz);
  if (area < 0.01) return 0.0;
  const auto& ua = t.uv[t.idx[k]];
  const auto& ub = t.uv[t.idx[k + 1]];
  const auto& uc = t.uv[t.idx[k + 2]];
  const double tex =
      0.5 * std::fabs((ub[0] - ua[0]) * (uc[1] - ua[1]) - (uc[0] - ua[0]) * (ub[1] - ua[1]));
  return tex / area;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

struct Census {
  std::size_t images = 0;
  std::size_t tangent_primitives = 0;  ///< Normal-mapped primitives (all with tangents).
  std::size_t textured_walls = 0;      ///< ".wall" materials with brick/plaster/... textures.
  std::size_t primitives = 0;
  std::size_t wall_triangles = 0;   ///< Facade wall triangles measured.
  std::size_t wall_stretched = 0;   ///< Of those, mapped with more than 0.1 % stretch.
  std::size_t seam_vertices = 0;    ///< Wall vertices that meet another at one point.
  std::size_t seam_mismatches = 0;  ///< Of those, with other texture coordinates.
  // TEXCOORD_1 (facade modules: 0..1 across each module).
  std::size_t uv1_walls = 0;        ///< ".wall" primitives with a TEXCOORD_1.
  std::size_t uv1_missing = 0;      ///< ".wall" primitives without one.
  std::size_t uv1_outside = 0;      ///< Coordinates outside [0, 1].
  std::size_t uv1_meshes = 0;       ///< Meshes with a TEXCOORD_1.
  std::size_t uv1_full_span = 0;    ///< Of those, spanning [0, 1] in u and v over the mesh.
  std::size_t uv1_edges = 0;        ///< Front wall edges compared with TEXCOORD_0.
  std::size_t uv1_against_uv0 = 0;  ///< Of those, running against TEXCOORD_0's direction.
};

/// Reads every primitive of city.glb and checks its TEXCOORD_0; measures the facade walls.
Census census(const fs::path& glb) {
  const tinygltf::Model m = load(glb);
  Census c;
  c.images = m.images.size();
  for (const tinygltf::Material& mat : m.materials) {
    if (!ends_with(mat.name, ".wall")) continue;
    const tinygltf::TextureInfo& base = mat.pbrMetallicRoughness.baseColorTexture;
    if (base.index < 0) continue;
    ++c.textured_walls;
    // One repeat of the texture covers its surface's square of the world (1 or 2 m for walls).
    const auto t = base.extensions.find("KHR_texture_transform");
    EXPECT_NE(t, base.extensions.end()) << mat.name;
    if (t == base.extensions.end()) continue;
    const double scale = t->second.Get("scale").Get(0).GetNumberAsDouble();
    EXPECT_TRUE(scale == 1.0 || scale == 0.5) << mat.name << ": " << scale;
    EXPECT_GE(mat.normalTexture.index, 0) << mat.name;
    EXPECT_GE(mat.pbrMetallicRoughness.metallicRoughnessTexture.index, 0) << mat.name;
  }
  using Key = std::tuple<long, long, long, int, int, int>;
  std::map<Key, std::array<float, 2>> seen;
  for (const tinygltf::Mesh& mesh : m.meshes) {
    std::array<float, 4> span{1e30f, -1e30f, 1e30f, -1e30f};  // u lo, u hi, v lo, v hi
    bool any_uv1 = false;
    for (const tinygltf::Primitive& pr : mesh.primitives) {
      const auto uv1_at = pr.attributes.find("TEXCOORD_1");
      if (uv1_at == pr.attributes.end()) continue;
      any_uv1 = true;
      const auto uv1 = read<2>(m, uv1_at->second);
      const Triangles t = triangles(m, pr);
      EXPECT_EQ(uv1.size(), t.p.size()) << mesh.name;
      if (uv1.size() != t.p.size()) continue;
      for (const auto& q : uv1) {
        if (!(q[0] >= -1e-5f && q[0] <= 1.00001f && q[1] >= -1e-5f && q[1] <= 1.00001f))
          ++c.uv1_outside;
        span = {std::min(span[0], q[0]), std::max(span[1], q[0]), std::min(span[2], q[1]),
                std::max(span[3], q[1])};
      }
      // On walls facing out of the module (kit frame, ext mode: glTF -z), both sets run the
      // same way: u left to right seen from outside, v down.
      const std::string material =
          pr.material >= 0 ? m.materials.at(static_cast<std::size_t>(pr.material)).name : "";
      if (!ends_with(material, ".wall")) continue;
      for (std::size_t k = 0; k + 2 < t.idx.size(); k += 3) {
        if (!(t.n[t.idx[k]][2] < -0.99f)) continue;
        for (std::size_t e = 0; e < 3; ++e) {
          const std::uint32_t a = t.idx[k + e], b = t.idx[k + (e + 1) % 3];
          for (std::size_t d = 0; d < 2; ++d) {
            const float d0 = t.uv[b][d] - t.uv[a][d];
            const float d1 = uv1[b][d] - uv1[a][d];
            if (std::fabs(d0) < 1e-3f || std::fabs(d1) < 1e-6f) continue;
            ++c.uv1_edges;
            if ((d0 > 0) != (d1 > 0)) ++c.uv1_against_uv0;
          }
        }
      }
    }
    if (any_uv1) {
      ++c.uv1_meshes;
      if (span[0] < 1e-4f && span[1] > 1.0f - 1e-4f && span[2] < 1e-4f && span[3] > 1.0f - 1e-4f)
        ++c.uv1_full_span;
    }
    for (const tinygltf::Primitive& pr : mesh.primitives) {
      ++c.primitives;
      const auto it = pr.attributes.find("TEXCOORD_0");
      if (it == pr.attributes.end()) {
        ADD_FAILURE() << mesh.name << ": no TEXCOORD_0";
        continue;
      }
      const tinygltf::Accessor& uv = m.accessors.at(static_cast<std::size_t>(it->second));
      const tinygltf::Accessor& pos =
          m.accessors.at(static_cast<std::size_t>(pr.attributes.at("POSITION")));
      EXPECT_EQ(uv.type, TINYGLTF_TYPE_VEC2) << mesh.name;
      EXPECT_EQ(uv.count, pos.count) << mesh.name;
      const Triangles t = triangles(m, pr);
      for (const auto& q : t.uv) {
        EXPECT_TRUE(std::isfinite(q[0]) && std::isfinite(q[1])) << mesh.name;
      }
      const std::string material =
          pr.material >= 0 ? m.materials.at(static_cast<std::size_t>(pr.material)).name : "";
      if (pr.material >= 0 &&
          m.materials.at(static_cast<std::size_t>(pr.material)).normalTexture.index >= 0) {
        // Normal-mapped: unit tangents in the surface, w = +-1.
        EXPECT_EQ(pr.attributes.count("TANGENT"), 1U) << mesh.name << " " << material;
        if (pr.attributes.count("TANGENT") == 0U) continue;
        const auto tangents = read<4>(m, pr.attributes.at("TANGENT"));
        EXPECT_EQ(tangents.size(), t.p.size()) << mesh.name;
        if (tangents.size() != t.p.size()) continue;
        for (std::size_t v = 0; v < tangents.size(); ++v) {
          const auto& q = tangents[v];
          EXPECT_NEAR(q[0] * q[0] + q[1] * q[1] + q[2] * q[2], 1.0, 1e-3) << mesh.name;
          EXPECT_NEAR(q[0] * t.n[v][0] + q[1] * t.n[v][1] + q[2] * t.n[v][2], 0.0, 1e-3)
              << mesh.name;
          EXPECT_EQ(std::fabs(q[3]), 1.0f) << mesh.name;
        }
        ++c.tangent_primitives;
      }
      if (!ends_with(material, ".wall")) continue;
      if (pr.attributes.count("TEXCOORD_1") != 0U) {
        ++c.uv1_walls;
      } else {
        ++c.uv1_missing;
      }
      for (std::size_t k = 0; k + 2 < t.idx.size(); k += 3) {
        const double d = density(t, k);
        if (d == 0.0) continue;
        ++c.wall_triangles;
        if (std::fabs(d - 1.0) > 1e-3) ++c.wall_stretched;
      }
      for (std::size_t v = 0; v < t.p.size(); ++v) {
        const Key key{std::lround(t.p[v][0] * 200.0),
                      std::lround(t.p[v][1] * 200.0),
                      std::lround(t.p[v][2] * 200.0),
                      static_cast<int>(std::lround(t.n[v][0] * 50.0)),
                      static_cast<int>(std::lround(t.n[v][1] * 50.0)),
                      static_cast<int>(std::lround(t.n[v][2] * 50.0))};
        const auto [at, fresh] = seen.try_emplace(key, t.uv[v]);
        if (fresh) continue;
        ++c.seam_vertices;
        if (std::fabs(at->second[0] - t.uv[v][0]) > 0.01 ||
            std::fabs(at->second[1] - t.uv[v][1]) > 0.01)
          ++c.seam_mismatches;
      }
    }
  }
  return c;
}

TEST(TextureCoordinates, EveryPrimitiveIsMappedInMetresAndBakedFacadesTileAcrossModules) {
  const fs::path dir = temp_dir("uvs");
  std::ofstream(dir / "small.json") << kSmallCommercialCity;
  for (const char* mode : {"bake", "ext"}) {
    const fs::path out = dir / mode;
    const CliRun r = run_cli("generate " + (dir / "small.json").string() + " -q --no-sumo -o " +
                             out.string() + " --instances " + mode);
    ASSERT_EQ(r.exit_code, 0) << mode << ": " << r.output;
    const Census c = census(out / "city.glb");
    std::printf(
        "%s: %zu primitives, %zu facade wall triangles, %zu shared wall vertices, %zu "
        "images, %zu normal-mapped primitives, %zu modules with TEXCOORD_1 (%zu edges "
        "compared)\n",
        mode, c.primitives, c.wall_triangles, c.seam_vertices, c.images, c.tangent_primitives,
        c.uv1_meshes, c.uv1_edges);
    EXPECT_GT(c.primitives, 50U) << mode;
    // Procedural textures (export.textures, 256 px by default) on every facade wall.
    EXPECT_GE(c.images, 9U) << mode;
    EXPECT_GT(c.textured_walls, 0U) << mode;
    EXPECT_GT(c.tangent_primitives, 10U) << mode;
    // Facade walls: exactly one texture metre per metre, baked in the world, as kit meshes in
    // the module frame.
    EXPECT_GT(c.wall_triangles, 100U) << mode;
    EXPECT_EQ(c.wall_stretched, 0U) << mode << ": of " << c.wall_triangles;
    // TEXCOORD_1: every facade wall has the per-module set, inside [0, 1].
    EXPECT_GT(c.uv1_walls, 0U) << mode;
    EXPECT_EQ(c.uv1_missing, 0U) << mode;
    EXPECT_EQ(c.uv1_outside, 0U) << mode;
    if (std::string(mode) == "ext") {
      // Each module's kit mesh spans the whole square, and the second set runs as the first on
      // the module's front.
      EXPECT_GT(c.uv1_meshes, 10U);
      EXPECT_EQ(c.uv1_full_span, c.uv1_meshes);
      EXPECT_GT(c.uv1_edges, 100U);
      EXPECT_EQ(c.uv1_against_uv0, 0U) << "of " << c.uv1_edges;
    }
    if (std::string(mode) == "bake") {
      // Baked, the modules of a facade meet with the same coordinates: a material tiles across
      // their seams instead of restarting at every module.
      EXPECT_GT(c.seam_vertices, 1000U);
      EXPECT_EQ(c.seam_mismatches, 0U) << "of " << c.seam_vertices;
    }
    if (validator_installed()) {
      const CliRun v = validate_glb(out / "city.glb");
      EXPECT_EQ(v.exit_code, 0) << mode << ": " << v.output;
    }
  }
  // "textures": "none": plain colours, no image, the coordinates still there.
  std::ofstream(dir / "plain.json")
      << std::string(kSmallCommercialCity).substr(0, std::string(kSmallCommercialCity).rfind('}'))
      << R"(, "export": {"textures": "none"}})";
  const CliRun r = run_cli("generate " + (dir / "plain.json").string() + " -q --no-sumo -o " +
                           (dir / "plain").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const Census plain = census(dir / "plain" / "city.glb");
  EXPECT_EQ(plain.images, 0U);
  EXPECT_EQ(plain.textured_walls, 0U);
  EXPECT_EQ(plain.tangent_primitives, 0U);
  EXPECT_GT(plain.primitives, 50U);
  fs::remove_all(dir);
}

}  // namespace
