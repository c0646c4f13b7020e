// SPDX-License-Identifier: Apache-2.0
#include "cityforge/core/spatial_hash.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "cityforge/core/mesh.hpp"

namespace cityforge {
namespace {

TEST(SpatialHash, QueriesAreSortedUniqueAndCoverNegativeCells) {
  SpatialHash hash(10.0);
  hash.insert(5, Aabb2{{-25, -25}, {25, 25}});  // Many cells.
  hash.insert(2, Vec2{-1, -1});
  hash.insert(9, Vec2{100, 100});
  std::vector<std::uint32_t> out{77};
  hash.query(Aabb2{{-5, -5}, {5, 5}}, out);
  EXPECT_EQ(out, (std::vector<std::uint32_t>{2, 5}));
  hash.query_radius({100, 100}, 1.0, out);
  EXPECT_EQ(out, (std::vector<std::uint32_t>{9}));
  // A box much larger than the occupied area.
  hash.query(Aabb2{{-1e6, -1e6}, {1e6, 1e6}}, out);
  EXPECT_EQ(out, (std::vector<std::uint32_t>{2, 5, 9}));
  hash.query(Aabb2{{500, 500}, {600, 600}}, out);
  EXPECT_TRUE(out.empty());
  hash.insert(3, Vec2{NAN, 0});
  hash.query(Aabb2{{-1e6, -1e6}, {1e6, 1e6}}, out);
  EXPECT_EQ(out.size(), 3U);
  hash.clear();
  hash.query(Aabb2{{-5, -5}, {5, 5}}, out);
  EXPECT_TRUE(out.empty());
}

TEST(Mesh, AppendOffsetsIndices) {
  Mesh a;
  a.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  a.normals = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}};
  a.indices = {0, 1, 2};
  Mesh b = a;
  a.append(b);
  EXPECT_EQ(a.positions.size(), 6U);
  EXPECT_EQ(a.normals.size(), 6U);
  EXPECT_EQ(a.triangle_count(), 2U);
  EXPECT_EQ(a.indices, (std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5}));
}

}  // namespace
}  // namespace cityforge
