// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <cmath>

#include "cityforge/roads/roads.hpp"
#include "hand_networks.hpp"

namespace cityforge::roads {
namespace {

using layout::RoadClass;

// Isolated straight roads of the given lengths: dead ends only, so sections are untrimmed.
layout::Output roads_of_length(const std::vector<double>& lengths) {
  test::NetBuilder b;
  double y = 0;
  for (double len : lengths) {
    const auto a = b.node({0, y});
    const auto c = b.node({len, y});
    b.edge(a, c, RoadClass::local);
    y += 50;
  }
  return b.finish();
}

void check_sections(const layout::Output& city, const Output& geo,
                    const std::vector<ModuleInstance>& modules, const Config& config) {
  std::vector<double> sum(geo.sections.size(), 0.0);
  std::vector<int> scaled(geo.sections.size(), 0);
  std::vector<int> count(geo.sections.size(), 0);
  for (const ModuleInstance& m : modules) {
    if (m.in_intersection) continue;
    ASSERT_LT(m.owner, geo.sections.size());
    sum[m.owner] += config.module_lengths_m[m.size] * m.scale;
    ++count[m.owner];
    if (std::abs(m.scale - 1.0) > 1e-12) {
      ++scaled[m.owner];
      EXPECT_EQ(m.size, 2) << "only a 5 m module is scaled";
      const double len = polyline_length(geo.sections[m.owner].centre);
      if (len >= config.min_module_scale * config.module_lengths_m[2]) {
        EXPECT_GE(m.scale, config.min_module_scale - 1e-12) << "section " << m.owner;
        EXPECT_LE(m.scale, config.max_module_scale + 1e-12) << "section " << m.owner;
      }
    }
  }
  for (std::size_t i = 0; i < geo.sections.size(); ++i) {
    const double len = polyline_length(geo.sections[i].centre);
    EXPECT_NEAR(sum[i], len, 0.01) << "section " << i;
    EXPECT_LE(scaled[i], 1) << "section " << i;
    (void)city;
  }
}

TEST(RoadsModules, SumMatchesLengthWithAtMostOneScaledModule) {
  std::vector<double> lengths;
  for (double l = 0.3; l < 130; l += 0.37)
    lengths.push_back(l);
  for (double l : {5.0, 10.0, 20.0, 22.0, 40.0, 2.5, 7.5, 12.4999})
    lengths.push_back(l);
  const layout::Output city = roads_of_length(lengths);
  const Config config;
  const Output geo = *build_geometry(city, test::flat_ground(), config);
  const std::vector<ModuleInstance> mods = fit_modules(city, geo, test::flat_ground(), config);
  check_sections(city, geo, mods, config);
}

TEST(RoadsModules, GreedyOrderAndExamples) {
  const layout::Output city = roads_of_length({22, 40, 8, 1});
  const Config config;
  const Output geo = *build_geometry(city, test::flat_ground(), config);
  const std::vector<ModuleInstance> mods = fit_modules(city, geo, test::flat_ground(), config);
  auto sizes = [&](std::uint32_t owner) {
    std::vector<int> s;
    for (const ModuleInstance& m : mods) {
      if (m.owner == owner && !m.in_intersection) s.push_back(m.size);
    }
    return s;
  };
  EXPECT_EQ(sizes(0), (std::vector<int>{1, 2, 2}));  // 22 = 10 + 5 + 5 * 1.4
  EXPECT_EQ(sizes(1), (std::vector<int>{0, 0}));     // 40 = 20 + 20
  EXPECT_EQ(sizes(2), (std::vector<int>{2, 2}));     // 8 = 5 + 5 * 0.6
  EXPECT_EQ(sizes(3), (std::vector<int>{2}));        // 1 = 5 * 0.2, the documented short case
  // Modules start where the previous one ends, along the centre line.
  EXPECT_NEAR(mods[1].position.x, 10.0, 1e-9);
  EXPECT_NEAR(mods[2].position.x, 15.0, 1e-9);
  EXPECT_NEAR(mods[2].scale, 1.4, 1e-9);
}

TEST(RoadsModules, JunctionFillPivotsAtCentreAndReachesEachMouth) {
  const layout::Output city = test::star({0, 90, 180, 270}, {RoadClass::artery, RoadClass::local});
  const Config config;
  const Output geo = *build_geometry(city, test::flat_ground(), config);
  const std::vector<ModuleInstance> mods = fit_modules(city, geo, test::flat_ground(), config);
  check_sections(city, geo, mods, config);
  int fill = 0;
  for (const ModuleInstance& m : mods) {
    if (!m.in_intersection) continue;
    ++fill;
    EXPECT_EQ(m.owner, 0U);
    EXPECT_NEAR(m.position.x, 0.0, 1e-12);
    EXPECT_NEAR(m.position.y, 0.0, 1e-12);
    const Vec2 dir{std::cos(m.yaw_rad), std::sin(m.yaw_rad)};
    bool matched = false;
    for (const Leg& leg : geo.intersections[0].legs) {
      if (dot(dir, leg.direction) > 0.9999) {
        EXPECT_NEAR(config.module_lengths_m[m.size] * m.scale, leg.trim_m, 1e-9);
        matched = true;
      }
    }
    EXPECT_TRUE(matched);
  }
  EXPECT_EQ(fill, 4);
}

TEST(RoadsModules, FollowTheTerrainAndAreDeterministic) {
  const layout::Output city = test::ring(6, 30);
  terrain::Heightfield ground = test::flat_ground();
  ground.heights = {0, 10, 20, 5, 15, 25, 10, 20, 30};
  const Config config;
  const Output geo = *build_geometry(city, ground, config);
  const auto a = fit_modules(city, geo, ground, config);
  const auto b = fit_modules(city, geo, ground, config);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].position, b[i].position);
    EXPECT_EQ(a[i].scale, b[i].scale);
    EXPECT_NEAR(a[i].position.z, ground.sample({a[i].position.x, a[i].position.y}), 1e-9);
  }
  check_sections(city, geo, a, config);
}

}  // namespace
}  // namespace cityforge::roads
