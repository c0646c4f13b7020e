// SPDX-License-Identifier: Apache-2.0
// Imported places' ground and barrier kinds (the mapped city itself is in mapped_city_test.cpp).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "cityforge/dressing/dressing.hpp"

namespace cityforge::dressing {
namespace {

TEST(Mapped, EnumNamesAreDistinct) {
  std::set<std::string> names;
  for (std::size_t i = 0; i < kGroundKindCount; ++i)
    names.insert(to_string(static_cast<GroundKind>(i)));
  for (std::size_t i = 0; i < kBarrierKindCount; ++i)
    names.insert(to_string(static_cast<BarrierKind>(i)));
  EXPECT_EQ(names.size(), kGroundKindCount + kBarrierKindCount);
  EXPECT_EQ(names.count("unknown"), 0U);
}

}  // namespace
}  // namespace cityforge::dressing
