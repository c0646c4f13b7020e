// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <string>
#include <vector>

#include "city_fixture.hpp"
#include "dressing/detail.hpp"

namespace cityforge::dressing {
namespace {

using testing::shared_city;

std::vector<Biome> builtin_biomes() {
  std::vector<Biome> out;
  for (const auto& [file, text] : builtin_biome_sources()) {
    auto r = parse_biome(text, file);
    EXPECT_TRUE(r.ok()) << r.error().to_string();
    if (r) out.push_back(std::move(*r));
  }
  return out;
}

struct Scattered {
  std::vector<LeftoverZone> zones;
  std::vector<Item> items;
  std::vector<std::string> warnings;
};

Scattered scatter(const std::vector<Biome>& biomes, Seed seed = 11) {
  const auto& city = shared_city();
  const Inputs in = city.inputs_with(city.layout, city.styles);
  Scattered s;
  s.zones = detail::leftover_zones(in, Config{});
  detail::scatter_biomes(s.zones, biomes, in, Config{}, seed, s.items, s.warnings);
  return s;
}

/// The scatter of the built-in biomes over the shared city (computed once).
const Scattered& shared_scatter() {
  static const Scattered s = scatter(builtin_biomes());
  return s;
}

double overlap_area(const Polygon& a, const Polygon& b) {
  double area = 0.0;
  for (const Polygon& p : polygon_intersection(a, b))
    area += polygon_area(p);
  return area;
}

bool boxes_overlap(const Aabb2& a, const Aabb2& b) {
  return a.min.x <= b.max.x && b.min.x <= a.max.x && a.min.y <= b.max.y && b.min.y <= a.max.y;
}

Biome box_biome(double sx, double sy, double spacing, ZoneKind kind = ZoneKind::plaza) {
  Biome b;
  b.name = "box";
  b.file = "biomes/box.json";
  b.zone = kind;
  b.size_x_m = sx;
  b.size_y_m = sy;
  b.spacing_m = spacing;
  b.parts.push_back({static_cast<std::uint32_t>(find_prop("bin")), Vec2{0, 0}, 0.0});
  return b;
}

TEST(Scatter, PacksARotatedRectangleOnItsGrid) {
  // 20 x 10 m at 30 degrees; 4 x 4 m stamps with 1 m spacing: 4 along x, 2 across.
  const double a = std::numbers::pi / 6;
  const double c = std::cos(a);
  const double s = std::sin(a);
  LeftoverZone z;
  for (Vec2 p : {Vec2{0, 0}, Vec2{20, 0}, Vec2{20, 10}, Vec2{0, 10}})
    z.area.outer.push_back({100 + p.x * c - p.y * s, 50 + p.x * s + p.y * c});
  z.angle_rad = a;
  z.kind = ZoneKind::rooftop;
  z.z_m = 12.0;
  std::vector<LeftoverZone> zones{z};
  std::vector<Item> items;
  std::vector<std::string> warnings;
  detail::scatter_biomes(zones, {box_biome(4, 4, 1, ZoneKind::rooftop)},
                         testing::nothing().inputs(), Config{}, 1, items, warnings);
  EXPECT_EQ(zones[0].stamps, 8U);
  ASSERT_EQ(items.size(), 8U);
  EXPECT_TRUE(warnings.empty());
  for (const Item& it : items) {
    EXPECT_FLOAT_EQ(it.position[2], 12.0f);
    EXPECT_NEAR(it.yaw_rad, a, 1e-6);
    EXPECT_TRUE(polygon_contains(z.area, {it.position[0], it.position[1]}));
  }
  // A biome wider than the zone fits nowhere: one warning naming file and sizes, no items.
  zones[0].stamps = 0;
  items.clear();
  detail::scatter_biomes(zones, {box_biome(30, 4, 1, ZoneKind::rooftop)},
                         testing::nothing().inputs(), Config{}, 1, items, warnings);
  EXPECT_TRUE(items.empty());
  ASSERT_EQ(warnings.size(), 1U);
  EXPECT_NE(warnings[0].find("biomes/box.json: biome 'box' (30 x 4 m) fits no rooftop zone; "
                             "the largest is 20 x 10 m"),
            std::string::npos)
      << warnings[0];
}

TEST(Scatter, ZonesOfEveryGroundKindAndRooftops) {
  const Scattered& s = shared_scatter();
  std::array<std::size_t, kZoneKindCount> kinds{};
  std::array<std::size_t, kZoneKindCount> stamps{};
  for (const LeftoverZone& z : s.zones) {
    ++kinds[static_cast<std::size_t>(z.kind)];
    stamps[static_cast<std::size_t>(z.kind)] += z.stamps;
    EXPECT_GE(polygon_area(z.area), Config{}.min_zone_area_m2);
  }
  for (std::size_t k = 0; k < kZoneKindCount; ++k) {
    EXPECT_GT(kinds[k], 0U) << to_string(static_cast<ZoneKind>(k));
    EXPECT_GT(stamps[k], 0U) << to_string(static_cast<ZoneKind>(k));
  }
  EXPECT_TRUE(s.warnings.empty()) << s.warnings.front();
  EXPECT_FALSE(s.items.empty());
}

TEST(Scatter, ItemsNeverOverlapAndLieInTheirZone) {
  const Scattered& s = shared_scatter();
  const auto& cat = prop_catalog();
  std::vector<std::size_t> order(s.items.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return s.items[a].position[0] < s.items[b].position[0];
  });
  std::size_t overlaps = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const Item& a = s.items[order[i]];
    const double ra = cat[a.prop].radius_m;
    if (ra <= 0.0) continue;
    for (std::size_t j = i + 1; j < order.size(); ++j) {
      const Item& b = s.items[order[j]];
      if (b.position[0] - a.position[0] > 6.0) break;
      const double rb = cat[b.prop].radius_m;
      if (rb <= 0.0) continue;
      const double d = std::hypot(a.position[0] - b.position[0], a.position[1] - b.position[1]);
      if (d < ra + rb - 1e-3) ++overlaps;
    }
  }
  EXPECT_EQ(overlaps, 0U);
  std::size_t outside = 0;
  for (const Item& it : s.items) {
    ASSERT_LT(it.owner, s.zones.size());
    const LeftoverZone& z = s.zones[it.owner];
    const double r = cat[it.prop].radius_m * 0.999;
    for (int k = 0; k < 9; ++k) {
      const double a = k * std::numbers::pi / 4;
      const Vec2 p{it.position[0] + (k < 8 ? r * std::cos(a) : 0.0),
                   it.position[1] + (k < 8 ? r * std::sin(a) : 0.0)};
      if (!polygon_contains(z.area, p)) {
        ++outside;
        break;
      }
    }
    if (z.kind == ZoneKind::rooftop) {
      EXPECT_FLOAT_EQ(it.position[2], static_cast<float>(z.z_m));
    }
  }
  EXPECT_EQ(outside, 0U);
}

TEST(Scatter, GroundZonesAvoidBuildingsAndSidewalks) {
  const auto& city = shared_city();
  const Scattered& s = shared_scatter();
  for (std::size_t zi = 0; zi < s.zones.size(); ++zi) {
    const LeftoverZone& z = s.zones[zi];
    if (z.kind == ZoneKind::rooftop) continue;
    const Aabb2 zb = ring_bounds(z.area.outer);
    for (const buildings::Building& b : city.buildings.buildings) {
      const Polygon& fp = b.volumes[0].footprint;
      if (!boxes_overlap(zb, ring_bounds(fp.outer))) continue;
      EXPECT_LT(overlap_area(z.area, fp), 0.01) << "zone " << zi << " building " << b.id;
    }
    for (std::size_t w = 0; w < city.roads.sidewalks.size(); ++w) {
      const Polygon& sw = city.roads.sidewalks[w];
      if (!boxes_overlap(zb, ring_bounds(sw.outer))) continue;
      EXPECT_LT(overlap_area(z.area, sw), 0.01) << "zone " << zi << " sidewalk " << w;
    }
  }
}

TEST(Scatter, RooftopsLieOnTheirBuildingAtRoofHeight) {
  const auto& city = shared_city();
  const Scattered& s = shared_scatter();
  for (std::size_t zi = 0; zi < s.zones.size(); ++zi) {
    const LeftoverZone& z = s.zones[zi];
    if (z.kind != ZoneKind::rooftop) continue;
    ASSERT_LT(z.owner, city.buildings.buildings.size());
    const buildings::Building& b = city.buildings.buildings[z.owner];
    const double h = z.z_m - b.base_z_m;
    std::vector<Polygon> tops;    // Volumes whose top is at the zone's height.
    std::vector<Polygon> higher;  // Volumes reaching above it.
    for (const buildings::Volume& v : b.volumes) {
      if (std::abs(v.z1_m - h) < 1e-6) tops.push_back(v.footprint);
      if (v.z1_m > h + 1e-6 && v.z0_m <= h + 1e-6) higher.push_back(v.footprint);
    }
    ASSERT_FALSE(tops.empty()) << "zone " << zi;
    double outside = 0.0;
    for (const Polygon& p : polygon_difference(z.area, polygon_union(tops)))
      outside += polygon_area(p);
    EXPECT_LT(outside, 0.01) << "zone " << zi;
    for (const Polygon& hp : higher)
      EXPECT_LT(overlap_area(z.area, hp), 0.01) << "zone " << zi;
  }
}

TEST(Scatter, OversizedBiomeWarnsOnceAndTheRestStillScatters) {
  std::vector<Biome> biomes = builtin_biomes();
  Biome huge = box_biome(400, 300, 1.0, ZoneKind::plaza);
  huge.name = "huge";
  huge.file = "biomes/huge.json";
  huge.weight = 1000.0;  // Drawn first in every plaza; never fits, so the others take over.
  biomes.push_back(huge);
  const Scattered s = scatter(biomes);
  ASSERT_EQ(s.warnings.size(), 1U);
  EXPECT_EQ(s.warnings[0].rfind("biomes/huge.json: biome 'huge' (400 x 300 m) fits no plaza zone; "
                                "the largest is ",
                                0),
            0U)
      << s.warnings[0];
  EXPECT_FALSE(s.items.empty());
  std::size_t plaza_stamps = 0;
  for (const LeftoverZone& z : s.zones)
    plaza_stamps += z.kind == ZoneKind::plaza ? z.stamps : 0;
  EXPECT_GT(plaza_stamps, 0U);
}

TEST(Scatter, SameOutputAtAnyThreadCount) {
  const std::vector<Biome> biomes = builtin_biomes();
  Scattered one;
  Scattered two;
  {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 1);
    one = scatter(biomes, 5);
  }
  {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 2);
    two = scatter(biomes, 5);
  }
  ASSERT_EQ(one.zones.size(), two.zones.size());
  for (std::size_t i = 0; i < one.zones.size(); ++i) {
    EXPECT_EQ(one.zones[i].stamps, two.zones[i].stamps);
    EXPECT_EQ(one.zones[i].area.outer.size(), two.zones[i].area.outer.size());
  }
  ASSERT_EQ(one.items.size(), two.items.size());
  EXPECT_EQ(std::memcmp(one.items.data(), two.items.data(), one.items.size() * sizeof(Item)), 0);
}

}  // namespace
}  // namespace cityforge::dressing
