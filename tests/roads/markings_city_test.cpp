// SPDX-License-Identifier: Apache-2.0
// Road markings over a laid-out small city, checked and built twice (slow: label city).
#include <gtest/gtest.h>

#include <cstdio>

#include "cityforge/layout/layout.hpp"
#include "cityforge/roads/roads.hpp"
#include "roads/markings_checks.hpp"
#include "roads/small_city_fixture.hpp"

namespace cityforge::roads {
namespace {

using namespace markings_test;

TEST(RoadsMarkings, SmallLayoutCity) {
  const test::SmallCity small = test::small_layout_city();
  const terrain::Heightfield& g = small.ground;
  const layout::Output& city = small.city;
  const Config config;
  const Painted roads = build(city, g, config);
  check_all(city, roads, g, config, "small city");
  const auto n = count_kinds(roads.markings);
  for (const auto& [k, c] : n)
    std::printf("  %s: %d\n", to_string(k), c);
  EXPECT_GT(n.count(MarkingKind::centre_double_solid), 0U);
  EXPECT_GT(n.count(MarkingKind::stop_line), 0U);
  EXPECT_GT(n.count(MarkingKind::crosswalk_stripe), 0U);
  // Determinism: the same inputs give the same decals, bit for bit.
  const Painted again = build(city, g, config);
  ASSERT_EQ(again.markings.size(), roads.markings.size());
  for (std::size_t i = 0; i < roads.markings.size(); ++i) {
    const Decal& x = roads.markings[i];
    const Decal& y = again.markings[i];
    ASSERT_TRUE(x.kind == y.kind && x.position == y.position && x.yaw_rad == y.yaw_rad &&
                x.section_or_intersection == y.section_or_intersection && x.outline == y.outline)
        << i;
  }
}

}  // namespace
}  // namespace cityforge::roads
