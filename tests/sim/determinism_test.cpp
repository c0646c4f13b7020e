// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include "sim/components.hpp"

namespace cityforge::sim {
namespace {

using test::Position;
using test::Tag;

TEST(SimDeterminism, HashIgnoresStorageOrder) {
  // Same entities and values reached through different archetype histories hash the same.
  World a;
  test::register_all(a);
  World b;
  test::register_all(b);
  const Entity a0 = a.spawn(Position{1, 2});
  const Entity a1 = a.spawn(Position{3, 4}, Tag{5});
  b.spawn(Position{1, 2}, Tag{9});
  const Entity b1 = b.spawn(Position{3, 4});
  b.remove<Tag>(Entity{0, 0});
  b.add(b1, Tag{5});
  (void)a0;
  (void)a1;
  EXPECT_EQ(a.state_hash(), b.state_hash());
  b.add(b1, Tag{6});
  EXPECT_NE(a.state_hash(), b.state_hash());
}

}  // namespace
}  // namespace cityforge::sim
