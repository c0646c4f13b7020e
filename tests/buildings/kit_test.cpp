// SPDX-License-Identifier: Apache-2.0
#include "cityforge/buildings/kit.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace cityforge::buildings {
namespace {

using V = std::array<double, 3>;

V sub(const V& a, const V& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
V crs(const V& a, const V& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double dt(const V& a, const V& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
V to_v(const std::array<float, 3>& f) { return {f[0], f[1], f[2]}; }

ModuleDef make_def(MeshKind kind, double width_m = 1.5) {
  ModuleDef def;
  def.key = "X";
  def.id = "test." + std::to_string(static_cast<int>(kind));
  def.width_m = width_m;
  def.mesh = kind;
  return def;
}

struct Case {
  std::string name;
  ModuleDef def;
  double height_m = 3.2;
};

// Default and extreme parameter sets for every kind.
std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (std::size_t i = 0; i < kMeshKindCount; ++i) {
    const auto kind = static_cast<MeshKind>(i);
    const std::string kn = std::to_string(i);
    cases.push_back({"default/" + kn, make_def(kind), 3.2});
    ModuleDef small = make_def(kind);
    small.params.opening_w = 0.1;
    small.params.opening_h = 0.1;
    small.params.mullions_x = 0;
    small.params.mullions_y = 0;
    cases.push_back({"small_opening/" + kn, small, 3.2});
    ModuleDef big = make_def(kind);
    big.params.opening_w = 0.95;
    big.params.opening_h = 0.95;
    big.params.mullions_x = 6;
    big.params.mullions_y = 6;
    cases.push_back({"big_opening/" + kn, big, 3.2});
    cases.push_back({"tiny_width/" + kn, make_def(kind, 0.3), 3.2});
    ModuleDef tiny_bars = make_def(kind, 0.3);
    tiny_bars.params.mullions_x = 6;
    tiny_bars.params.mullions_y = 6;
    cases.push_back({"tiny_width_bars/" + kn, tiny_bars, 3.2});
    cases.push_back({"tall/" + kn, make_def(kind, 2.4), 8.0});
    cases.push_back({"short/" + kn, make_def(kind), 0.6});
    ModuleDef flat = make_def(kind);
    flat.params.projection_m = 0.0;
    flat.params.inset_m = 0.0;
    flat.params.frame_m = 0.0;
    flat.params.sill_h = 0.0;
    cases.push_back({"flat/" + kn, flat, 3.2});
    ModuleDef wide = make_def(kind, 6.0);
    wide.params.projection_m = 1.5;
    cases.push_back({"wide_projecting/" + kn, wide, 4.5});
  }
  return cases;
}

void check_mesh_invariants(const Case& c, const ModuleMesh& mm) {
  SCOPED_TRACE(c.name);
  ASSERT_GT(mm.triangle_count(), 0U);
  const ModuleBounds b = module_bounds(c.def, c.height_m);
  const double p = c.def.params.projection_m;
  const double eps = 1e-4;
  // The bounds are the documented envelope.
  EXPECT_GE(b.min[0], -p - eps);
  EXPECT_LE(b.max[0], c.def.width_m + p + eps);
  EXPECT_NEAR(b.min[1], -c.def.params.depth_m, eps);
  EXPECT_NEAR(b.min[2], 0.0, eps);
  EXPECT_NEAR(b.max[2], c.height_m, eps);
  const double reach = c.def.mesh == MeshKind::fire_escape ? (p > 0.8 ? p : 1.2)
                       : c.def.mesh == MeshKind::sign      ? std::max(p, 0.6)
                                                           : std::max(p, 0.1);
  EXPECT_NEAR(b.max[1], reach, eps);
  for (std::size_t m = 0; m < kMaterialCount; ++m) {
    const Mesh& mesh = mm.parts[m];
    SCOPED_TRACE("material " + std::to_string(m));
    ASSERT_EQ(mesh.positions.size(), mesh.normals.size());
    ASSERT_EQ(mesh.indices.size() % 3, 0U);
    for (std::size_t v = 0; v < mesh.positions.size(); ++v) {
      const V pos = to_v(mesh.positions[v]);
      const V n = to_v(mesh.normals[v]);
      for (int a = 0; a < 3; ++a) {
        ASSERT_TRUE(std::isfinite(pos[a]) && std::isfinite(n[a]));
        ASSERT_GE(pos[a], b.min[a] - eps) << "axis " << a;
        ASSERT_LE(pos[a], b.max[a] + eps) << "axis " << a;
      }
      ASSERT_NEAR(std::sqrt(dt(n, n)), 1.0, 1e-5);
    }
    for (std::size_t t = 0; t < mesh.indices.size(); t += 3) {
      const std::uint32_t i0 = mesh.indices[t];
      const std::uint32_t i1 = mesh.indices[t + 1];
      const std::uint32_t i2 = mesh.indices[t + 2];
      ASSERT_LT(std::max({i0, i1, i2}), mesh.positions.size());
      const V p0 = to_v(mesh.positions[i0]);
      const V fn = crs(sub(to_v(mesh.positions[i1]), p0), sub(to_v(mesh.positions[i2]), p0));
      const double area2 = std::sqrt(dt(fn, fn));
      ASSERT_GT(area2, 1e-7) << "degenerate triangle " << t / 3;
      for (const std::uint32_t i : {i0, i1, i2}) {
        ASSERT_GT(dt(fn, to_v(mesh.normals[i])) / area2, 0.99) << "winding " << t / 3;
      }
    }
  }
}

// Does a ray from far in front along -y at (x, z) hit a triangle of `mesh`?
bool ray_hits(const Mesh& mesh, double x, double z) {
  for (std::size_t t = 0; t < mesh.indices.size(); t += 3) {
    std::array<V, 3> p;
    for (int k = 0; k < 3; ++k) {
      p[k] = to_v(mesh.positions[mesh.indices[t + k]]);
    }
    // Point-in-triangle in the xz projection.
    double s[3];
    for (int k = 0; k < 3; ++k) {
      const V& a = p[k];
      const V& b = p[(k + 1) % 3];
      s[k] = (b[0] - a[0]) * (z - a[2]) - (b[2] - a[2]) * (x - a[0]);
    }
    const bool pos = s[0] > 1e-12 && s[1] > 1e-12 && s[2] > 1e-12;
    const bool neg = s[0] < -1e-12 && s[1] < -1e-12 && s[2] < -1e-12;
    if (pos || neg) {
      return true;
    }
  }
  return false;
}

TEST(KitBuildModuleMesh, InvariantsForEveryKindAndExtremeParams) {
  for (const Case& c : all_cases()) {
    check_mesh_invariants(c, build_module_mesh(c.def, c.height_m));
  }
}

TEST(KitBuildModuleMesh, DeterministicBytes) {
  for (const Case& c : all_cases()) {
    const ModuleMesh a = build_module_mesh(c.def, c.height_m);
    const ModuleMesh b = build_module_mesh(c.def, c.height_m);
    for (std::size_t m = 0; m < kMaterialCount; ++m) {
      const Mesh& x = a.parts[m];
      const Mesh& y = b.parts[m];
      ASSERT_EQ(x.positions.size(), y.positions.size()) << c.name;
      ASSERT_EQ(x.indices, y.indices) << c.name;
      // Bit for bit (memcmp on empty parts would pass a null pointer).
      if (!x.positions.empty()) {
        EXPECT_EQ(0, std::memcmp(x.positions.data(), y.positions.data(),
                                 x.positions.size() * sizeof(x.positions[0])))
            << c.name;
        EXPECT_EQ(0, std::memcmp(x.normals.data(), y.normals.data(),
                                 x.normals.size() * sizeof(x.normals[0])))
            << c.name;
      }
    }
  }
}

TEST(KitBuildModuleMesh, TriangleBudgets) {
  for (const Case& c : all_cases()) {
    const std::size_t n = build_module_mesh(c.def, c.height_m).triangle_count();
    EXPECT_LT(n, 600U) << c.name;
    if (c.name.rfind("default/", 0) == 0) {
      EXPECT_LT(n, 500U) << c.name;
    }
  }
}

TEST(KitBuildModuleMesh, WindowGlassSitsAtInsetAndOpeningIsOpen) {
  for (const Case& c : all_cases()) {
    const MeshKind k = c.def.mesh;
    if (k != MeshKind::window && k != MeshKind::balcony && k != MeshKind::storefront) {
      continue;
    }
    SCOPED_TRACE(c.name);
    const ModuleMesh mm = build_module_mesh(c.def, c.height_m);
    const Mesh& glass = mm.parts[static_cast<std::size_t>(Material::glass)];
    ASSERT_FALSE(glass.empty());
    double x0 = 1e9;
    double x1 = -1e9;
    double z0 = 1e9;
    double z1 = -1e9;
    for (const auto& p : glass.positions) {
      EXPECT_NEAR(p[1], -c.def.params.inset_m, 1e-6);
      x0 = std::min<double>(x0, p[0]);
      x1 = std::max<double>(x1, p[0]);
      z0 = std::min<double>(z0, p[2]);
      z1 = std::max<double>(z1, p[2]);
    }
    for (const auto& n : glass.normals) {
      EXPECT_GT(n[1], 0.99F);
    }
    if (k == MeshKind::window || k == MeshKind::balcony) {
      EXPECT_FALSE(ray_hits(mm.parts[static_cast<std::size_t>(Material::wall)], 0.5 * (x0 + x1),
                            0.5 * (z0 + z1)));
      EXPECT_NEAR(0.5 * (x0 + x1), 0.5 * c.def.width_m, 1e-5);
    }
  }
}

TEST(KitBuildModuleMesh, DoorLeavesTheDoorwayOpen) {
  const ModuleDef def = make_def(MeshKind::door);
  const ModuleMesh mm = build_module_mesh(def, 3.2);
  EXPECT_FALSE(ray_hits(mm.parts[static_cast<std::size_t>(Material::wall)], 0.75, 1.0));
  EXPECT_TRUE(ray_hits(mm.parts[static_cast<std::size_t>(Material::door)], 0.75, 1.0));
  EXPECT_FALSE(mm.parts[static_cast<std::size_t>(Material::metal)].empty());  // canopy
}

TEST(KitBuildModuleMesh, PropsHaveNoWallPanel) {
  for (const MeshKind k : {MeshKind::fire_escape, MeshKind::sign}) {
    const ModuleMesh mm = build_module_mesh(make_def(k), 3.2);
    EXPECT_TRUE(mm.parts[static_cast<std::size_t>(Material::wall)].empty());
    EXPECT_GT(mm.triangle_count(), 0U);
  }
}

TEST(KitBuildModuleMesh, CornerOverhangsBothEnds) {
  const ModuleDef def = make_def(MeshKind::corner, 0.5);
  const ModuleMesh mm = build_module_mesh(def, 3.2);
  double x0 = 1e9;
  double x1 = -1e9;
  for (const Mesh& m : mm.parts) {
    for (const auto& p : m.positions) {
      x0 = std::min<double>(x0, p[0]);
      x1 = std::max<double>(x1, p[0]);
    }
  }
  EXPECT_NEAR(x0, -def.params.projection_m, 1e-5);
  EXPECT_NEAR(x1, 0.5 + def.params.projection_m, 1e-5);
}

TEST(KitBuildModuleMesh, NonFiniteParamsFallBackToDefaults) {
  for (std::size_t i = 0; i < kMeshKindCount; ++i) {
    const ModuleDef def = make_def(static_cast<MeshKind>(i));
    ModuleDef bad = def;
    bad.params.depth_m = NAN;
    bad.params.inset_m = INFINITY;
    bad.params.frame_m = NAN;
    bad.params.opening_w = NAN;
    bad.params.opening_h = -INFINITY;
    bad.params.sill_h = NAN;
    bad.params.projection_m = NAN;
    const ModuleMesh a = build_module_mesh(def, 3.2);
    const ModuleMesh b = build_module_mesh(bad, 3.2);
    for (std::size_t m = 0; m < kMaterialCount; ++m) {
      EXPECT_EQ(a.parts[m].positions, b.parts[m].positions) << i;
    }
  }
}

TEST(KitBuildModuleMesh, ManyMullionsAreCapped) {
  ModuleDef def = make_def(MeshKind::window);
  def.params.mullions_x = 1000;
  def.params.mullions_y = 1000;
  EXPECT_LT(build_module_mesh(def, 3.2).triangle_count(), 600U);
}

TEST(KitBuildModuleMesh, UnusableSizeGivesEmptyParts) {
  EXPECT_EQ(build_module_mesh(make_def(MeshKind::window, 0.0), 3.2).triangle_count(), 0U);
  EXPECT_EQ(build_module_mesh(make_def(MeshKind::window), NAN).triangle_count(), 0U);
}

}  // namespace
}  // namespace cityforge::buildings
