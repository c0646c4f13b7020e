// SPDX-License-Identifier: Apache-2.0
// Metre-scale texture coordinates of meshes without their own (planar_uvs) and Mesh::append.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "cityforge/core/mesh.hpp"
#include "cityforge/core/mesh_build.hpp"
#include "cityforge/core/vec.hpp"

namespace cityforge {
namespace {

using Uv = std::array<float, 2>;

Vec3 at(const Mesh& m, std::uint32_t i) {
  return {m.positions[i][0], m.positions[i][1], m.positions[i][2]};
}

/// Texture area over world area of triangle t (1: no stretch).
double density(const Mesh& m, const std::vector<Uv>& uv, std::size_t t) {
  const std::uint32_t a = m.indices[t], b = m.indices[t + 1], c = m.indices[t + 2];
  const double world = 0.5 * length(cross(at(m, b) - at(m, a), at(m, c) - at(m, a)));
  const double tex = 0.5 * std::fabs((uv[b][0] - uv[a][0]) * (uv[c][1] - uv[a][1]) -
                                     (uv[c][0] - uv[a][0]) * (uv[b][1] - uv[a][1]));
  return tex / world;
}

/// World direction in which u (k = 0) or v (k = 1) grows on triangle t, unit length.
Vec3 gradient(const Mesh& m, const std::vector<Uv>& uv, std::size_t t, int k) {
  const std::uint32_t a = m.indices[t], b = m.indices[t + 1], c = m.indices[t + 2];
  const Vec3 e1 = at(m, b) - at(m, a);
  const Vec3 e2 = at(m, c) - at(m, a);
  const double d1 = uv[b][k] - uv[a][k];
  const double d2 = uv[c][k] - uv[a][k];
  // Solve g . e1 = d1, g . e2 = d2 with g in the triangle's plane.
  const double a11 = dot(e1, e1), a12 = dot(e1, e2), a22 = dot(e2, e2);
  const double det = a11 * a22 - a12 * a12;
  const double x = (d1 * a22 - d2 * a12) / det;
  const double y = (d2 * a11 - d1 * a12) / det;
  return e1 * x + e2 * y;
}

TEST(MeshUvs, FlatShadedFacesAreMappedWithoutStretchFarFromTheOrigin) {
  Mesh box;
  meshing::add_box(box, {2400.0, -1800.0, 12.0}, {2413.0, -1791.5, 31.0});
  ASSERT_EQ(uv_rule(box), UvRule::faces);
  const std::vector<Uv> uv = planar_uvs(box);
  ASSERT_EQ(uv.size(), box.positions.size());
  for (std::size_t t = 0; t < box.indices.size(); t += 3) {
    EXPECT_NEAR(density(box, uv, t), 1.0, 1e-3) << "triangle " << t / 3;
    const auto& n = box.normals[box.indices[t]];
    if (std::fabs(n[2]) > 0.5f) continue;
    // Walls: u grows to the right seen from outside (up x n), v grows downwards.
    const Vec3 right = normalize(cross(Vec3{0, 0, 1}, Vec3{n[0], n[1], n[2]}));
    EXPECT_NEAR(dot(gradient(box, uv, t, 0), right), 1.0, 1e-3) << "triangle " << t / 3;
    EXPECT_NEAR(gradient(box, uv, t, 1).z, -1.0, 1e-3) << "triangle " << t / 3;
  }
}

TEST(MeshUvs, NeighbouringCoplanarFacesMeetWithTheSameCoordinates) {
  // Two facade modules side by side on a wall at 30 degrees, each its own quad: the shared edge
  // has one texture coordinate, so a material tiles across the seam.
  const double a = std::numbers::pi / 6.0;
  const Vec3 along{std::cos(a), std::sin(a), 0.0};
  const Vec3 o{-730.0, 1210.0, 4.0};
  Mesh wall;
  for (int k = 0; k < 2; ++k) {
    const Vec3 l = o + along * (3.2 * k);
    const Vec3 r = o + along * (3.2 * (k + 1));
    meshing::add_quad(wall, l, r, r + Vec3{0, 0, 3.5}, l + Vec3{0, 0, 3.5});
  }
  const std::vector<Uv> uv = planar_uvs(wall);
  // Corners 1 and 2 of the first quad are corners 0 and 3 of the second.
  for (const auto& [p, q] : {std::pair{1U, 4U}, std::pair{2U, 7U}}) {
    ASSERT_NEAR(length(at(wall, p) - at(wall, q)), 0.0, 1e-3);
    EXPECT_NEAR(uv[p][0], uv[q][0], 1e-3);
    EXPECT_NEAR(uv[p][1], uv[q][1], 1e-3);
  }
  EXPECT_NEAR(std::fabs(uv[1][0] - uv[0][0]), 3.2, 1e-3);
}

TEST(MeshUvs, GentleSlopesTakeTheTopViewSteepRoofsTheirOwnPlane) {
  for (const double deg : {0.0, 5.0, 9.0, 12.0, 30.0, 45.0, 60.0}) {
    const double s = std::tan(deg * std::numbers::pi / 180.0);
    Mesh roof;  // A pitch rising to the north, 8 m wide, 5 m deep (plan).
    meshing::add_quad(roof, {100, 50, 10}, {108, 50, 10}, {108, 55, 10 + 5 * s},
                      {100, 55, 10 + 5 * s});
    const std::vector<Uv> uv = planar_uvs(roof);
    const double want = deg < 10.0 ? std::cos(deg * std::numbers::pi / 180.0) : 1.0;
    EXPECT_NEAR(density(roof, uv, 0), want, 1e-3) << deg << " degrees";
    // u runs along the eave (east) either way.
    EXPECT_NEAR(gradient(roof, uv, 0, 0).x, 1.0, 1e-3) << deg << " degrees";
  }
}

TEST(MeshUvs, SmoothMeshesTakeTheTopViewOrTheNearestSideView) {
  // A smooth hill: one normal per vertex, different on every vertex.
  Mesh hill;
  const int n = 12;
  for (int j = 0; j <= n; ++j) {
    for (int i = 0; i <= n; ++i) {
      const double x = 3000.0 + i, y = -2000.0 + j;
      const double z = 4.0 * std::sin(0.4 * i) * std::cos(0.3 * j);
      const Vec3 nrm = normalize(Vec3{-0.6 * std::cos(0.4 * i) * std::cos(0.3 * j),
                                      0.5 * std::sin(0.4 * i) * std::sin(0.3 * j), 1.0});
      hill.positions.push_back(
          {static_cast<float>(x), static_cast<float>(y), static_cast<float>(z)});
      hill.normals.push_back(
          {static_cast<float>(nrm.x), static_cast<float>(nrm.y), static_cast<float>(nrm.z)});
    }
  }
  for (std::uint32_t j = 0; j < n; ++j) {
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::uint32_t v = j * (n + 1) + i;
      hill.indices.insert(hill.indices.end(), {v, v + 1, v + n + 2, v, v + n + 2, v + n + 1});
    }
  }
  ASSERT_EQ(uv_rule(hill), UvRule::ground);
  const std::vector<Uv> uv = planar_uvs(hill);
  for (std::size_t i = 0; i < uv.size(); ++i) {
    ASSERT_GE(hill.normals[i][2], 0.5f);
    EXPECT_EQ(uv[i][0], hill.positions[i][0]);
    EXPECT_EQ(uv[i][1], -hill.positions[i][1]);
  }
  // A steep vertex facing west reads its wall from outside: u = -y, v = -z.
  const Uv w = ground_uv({5.0f, 7.0f, 2.0f}, {-0.9f, 0.1f, 0.42f});
  EXPECT_EQ(w[0], -7.0f);
  EXPECT_EQ(w[1], -2.0f);
}

TEST(MeshUvs, AppendKeepsOneCoordinatePerVertexOrNone) {
  Mesh plain;
  meshing::add_box(plain, {0, 0, 0}, {1, 1, 1});
  Mesh textured;
  meshing::add_quad(textured, {5, 0, 0}, {6, 0, 0}, {6, 1, 0}, {5, 1, 0});
  textured.uvs = {{0.f, 0.f}, {1.f, 0.f}, {1.f, 1.f}, {0.f, 1.f}};

  Mesh none = plain;
  none.append(plain);
  EXPECT_TRUE(none.uvs.empty());

  Mesh mixed = plain;
  mixed.append(textured);
  ASSERT_EQ(mixed.uvs.size(), mixed.positions.size());
  const std::vector<Uv> own = planar_uvs(plain);
  for (std::size_t i = 0; i < own.size(); ++i)
    EXPECT_EQ(mixed.uvs[i], own[i]);
  for (std::size_t i = 0; i < textured.uvs.size(); ++i)
    EXPECT_EQ(mixed.uvs[own.size() + i], textured.uvs[i]);

  Mesh other_way;
  other_way.append(textured);
  other_way.append(plain);
  ASSERT_EQ(other_way.uvs.size(), other_way.positions.size());
  EXPECT_EQ(other_way.uvs[0], textured.uvs[0]);
}

}  // namespace
}  // namespace cityforge
