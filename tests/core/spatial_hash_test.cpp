// SPDX-License-Identifier: Apache-2.0
#include "cityforge/core/spatial_hash.hpp"

#include <gtest/gtest.h>

#include <algorithm>
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

TEST(BoxIndex, FindsEveryOverlappingBoxOnceWithFewEntriesForLongOnes) {
  BoxIndex index(16.0);
  // A 20 km long thin box (a mountain road's surface), small boxes, a point, a bad box.
  index.insert(4, Aabb2{{-10000, -2}, {10000, 2}});
  index.insert(1, Aabb2{{0, 0}, {3, 3}});
  index.insert(7, Aabb2{{500, 40}, {560, 90}});
  index.insert(2, Aabb2{{-300, 1}, {-300, 1}});
  index.insert(9, Aabb2{{NAN, 0}, {1, 1}});
  std::vector<std::uint32_t> out{77};
  index.query(Aabb2{{1, 1}, {2, 2}}, out);
  EXPECT_EQ(out, (std::vector<std::uint32_t>{1, 4}));
  index.query_radius({-300, 1}, 0.5, out);
  EXPECT_EQ(out, (std::vector<std::uint32_t>{2, 4}));
  index.query(Aabb2{{510, 50}, {520, 60}}, out);
  EXPECT_EQ(out, (std::vector<std::uint32_t>{4, 7}));  // The long box's big cell reaches y 50.
  index.query(Aabb2{{200000, 200000}, {200100, 200100}}, out);
  EXPECT_TRUE(out.empty());
  index.query(Aabb2{{-1e6, -1e6}, {1e6, 1e6}}, out);
  EXPECT_EQ(out, (std::vector<std::uint32_t>{1, 2, 4, 7}));
  // Whatever the sizes, a query finds every box it overlaps (a superset, never fewer).
  BoxIndex many(16.0);
  std::vector<Aabb2> boxes;
  for (std::uint32_t i = 0; i < 400; ++i) {
    const double x = std::fmod(i * 137.0, 2000.0) - 1000.0;
    const double y = std::fmod(i * 71.0, 1500.0) - 750.0;
    const double w = std::pow(2.0, static_cast<double>(i % 13));
    boxes.push_back(Aabb2{{x, y}, {x + w, y + 0.5 * w}});
    many.insert(i, boxes.back());
  }
  for (int q = 0; q < 200; ++q) {
    const Aabb2 box{{q * 9.0 - 900.0, q * 7.0 - 700.0}, {q * 9.0 - 880.0, q * 7.0 - 690.0}};
    many.query(box, out);
    for (std::uint32_t i = 0; i < boxes.size(); ++i) {
      const bool overlaps = boxes[i].min.x <= box.max.x && box.min.x <= boxes[i].max.x &&
                            boxes[i].min.y <= box.max.y && box.min.y <= boxes[i].max.y;
      if (overlaps) {
        EXPECT_TRUE(std::binary_search(out.begin(), out.end(), i)) << i << " " << q;
      }
    }
  }
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
