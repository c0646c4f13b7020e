// SPDX-License-Identifier: Apache-2.0
// Decals over a whole small city: grime at the foot of facades, tyre marks in the approach
// lanes before stop lines, oil stains in parking spots, cracks on roads and sidewalks; each on
// its surface (never buried, never floating), seeded, the same at any thread count.
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>
#include <iostream>

#include "city_fixture.hpp"
#include "cityforge/core/polyline.hpp"
#include "dressing/detail.hpp"
#include "dressing/detail/exclusions.hpp"

namespace cityforge::dressing {
namespace {

constexpr Seed kSeed = 11;

const testing::City& city() {
  const testing::City& c = testing::shared_city();
  EXPECT_TRUE(c.error.empty()) << c.error;
  return c;
}

Inputs inputs() { return city().inputs_with(city().layout, city().styles); }

struct Decals {
  std::vector<ParkingSpot> parking;
  std::vector<Item> items;
  std::array<std::size_t, 4> counts{};
};

Decals lay_decals(const Config& config = {}) {
  Decals d;
  const Inputs in = inputs();
  std::vector<Item> furniture;
  detail::furniture(in, config, kSeed, furniture);
  d.parking = detail::parking_spots(in, config, furniture);
  detail::decals(in, config, kSeed, d.parking, d.items, d.counts);
  return d;
}

const Decals& decals() {
  static const Decals d = lay_decals();
  return d;
}

std::uint32_t prop(const char* id) { return static_cast<std::uint32_t>(find_prop(id)); }
Vec2 xy(const Item& it) { return {it.position[0], it.position[1]}; }

std::vector<Item> of_kind(const char* id) {
  std::vector<Item> out;
  for (const Item& it : decals().items) {
    if (it.prop == prop(id)) out.push_back(it);
  }
  return out;
}

// Corners of a flat decal.
std::array<Vec2, 4> corners(const Item& it) {
  const Vec2 a{std::cos(it.yaw_rad), std::sin(it.yaw_rad)};
  const Vec2 b = perp(a);
  const Vec2 p = xy(it);
  const double hx = 0.5 * it.scale_x, hy = 0.5 * it.scale_y;
  return {p - a * hx - b * hy, p + a * hx - b * hy, p + a * hx + b * hy, p - a * hx + b * hy};
}

// Arc length and signed offset (+ left) of p on a polyline.
std::pair<double, double> project(const Polyline& line, Vec2 p) {
  double best = 1e18, s_best = 0.0, off = 0.0, s = 0.0;
  for (std::size_t k = 0; k + 1 < line.size(); ++k) {
    const Vec2 a = line[k];
    const Vec2 d = line[k + 1] - a;
    const double len = length(d);
    const double t = std::clamp(dot(p - a, d) / (len * len), 0.0, 1.0);
    const double dist = distance(a + d * t, p);
    if (dist < best) {
      best = dist;
      s_best = s + t * len;
      off = cross(d, p - a) > 0.0 ? dist : -dist;
    }
    s += len;
  }
  return {s_best, off};
}

double road_z(std::uint32_t section, Vec2 p) {
  const auto [s, off] = project(city().roads.sections[section].centre, p);
  return roads::road_surface_z(city().layout, city().roads, city().ground, roads::Config{}, section,
                               off, s);
}

// A flat decal lies on its surface: no corner below it, the centre at most a few cm above.
template <class SurfaceZ>
void expect_on(const Item& it, SurfaceZ&& surface, const char* what) {
  const double z = it.position[2];
  for (const Vec2 c : corners(it)) {
    EXPECT_GE(z - surface(c), kDecalLiftM - 1e-3) << what << " buried at a corner";
  }
  EXPECT_LE(z - surface(xy(it)), kDecalLiftM + 0.12) << what << " floats";
}

TEST(Decals, EveryKindIsPlacedAndCounted) {
  const Decals& d = decals();
  const char* ids[] = {"decal_grime", "decal_tyre_marks", "decal_oil", "decal_crack"};
  for (std::size_t k = 0; k < 4; ++k) {
    EXPECT_GT(d.counts[k], 0U) << ids[k];
    EXPECT_EQ(of_kind(ids[k]).size(), d.counts[k]) << ids[k];
  }
  for (const Item& it : d.items) {
    EXPECT_EQ(prop_catalog()[it.prop].category, Category::decal);
    EXPECT_EQ(prop_catalog()[it.prop].radius_m, 0.0);
    EXPECT_GT(it.scale_x, 0.1f);
    EXPECT_GT(it.scale_y, 0.1f);
    EXPECT_GT(it.scale_z, 0.1f);
  }
  std::cout << "decals: grime " << d.counts[0] << ", tyre marks " << d.counts[1] << ", oil "
            << d.counts[2] << ", cracks " << d.counts[3] << " (parking spots " << d.parking.size()
            << ")\n";
}

TEST(Decals, GrimeStandsJustInFrontOfItsFacadeAtTheFoot) {
  const auto& b = city().buildings;
  for (const Item& it : of_kind("decal_grime")) {
    ASSERT_LT(it.owner, b.buildings.size());
    const buildings::Building& bld = b.buildings[it.owner];
    const Polygon& foot = bld.volumes.at(0).footprint;
    // The quad's plane: through the item's position, facing +y of its frame.
    const Vec2 along{std::cos(it.yaw_rad), std::sin(it.yaw_rad)};
    const Vec2 out = perp(along);
    double nearest = 1e9;
    std::vector<const Ring*> rings{&foot.outer};
    for (const Ring& h : foot.holes)
      rings.push_back(&h);
    for (const Ring* ring : rings) {
      for (std::size_t k = 0; k < ring->size(); ++k) {
        nearest = std::min(nearest,
                           segment_distance((*ring)[k], (*ring)[(k + 1) % ring->size()], xy(it)));
      }
    }
    EXPECT_GT(nearest, 0.005) << "building " << it.owner;
    EXPECT_LT(nearest, kGrimeOffsetM + 0.03) << "building " << it.owner;
    EXPECT_FALSE(polygon_contains(foot, xy(it)));
    EXPECT_TRUE(polygon_contains(foot, xy(it) - out * 0.3)) << "faces away from its wall";
    // Near the ground: its foot at the facade's foot or just under the sidewalk, at most a
    // few metres tall.
    const double sidewalk = city().ground.sample(xy(it)) + city().roads.block_raise_m;
    EXPECT_GE(it.position[2], bld.base_z_m - 1e-3);
    EXPECT_LE(it.position[2], std::max(bld.base_z_m, sidewalk) + 1e-3);
    EXPECT_LE(it.scale_z, 2.5f);
  }
}

TEST(Decals, TyreMarksLieInTheirLaneBeforeTheStopLine) {
  const roads::Output& rd = city().roads;
  const std::vector<roads::Decal> marks =
      roads::build_markings(city().layout, rd, city().ground, roads::Config{});
  std::size_t checked = 0;
  for (const Item& it : of_kind("decal_tyre_marks")) {
    ASSERT_LT(it.owner, rd.lanes.lanes.size());
    const roads::Lane& lane = rd.lanes.lanes[it.owner];
    ASSERT_NE(lane.tags & roads::kVehicle, 0U);
    ASSERT_GE(lane.section, 0);
    const auto section = static_cast<std::uint32_t>(lane.section);
    // Inside its lane: the centre on the lane's centre line, no wider than the lane.
    Polyline lane_line;
    for (const Vec3& p : lane.points)
      lane_line.push_back({p.x, p.y});
    EXPECT_LT(polyline_distance(lane_line, xy(it)), 0.35);
    EXPECT_LE(it.scale_y, lane.width_m + 1e-3);
    // Behind a stop line of its section, along the travel direction: its front 0.3 m behind
    // the line's back edge, across within the line.
    const Vec2 travel{std::cos(it.yaw_rad), std::sin(it.yaw_rad)};
    const Vec2 front = xy(it) + travel * (0.5 * it.scale_x);
    bool behind_a_stop_line = false;
    for (const roads::Decal& m : marks) {
      if (m.kind != roads::MarkingKind::stop_line || m.section_or_intersection != section) continue;
      const Vec2 t{std::cos(m.yaw_rad), std::sin(m.yaw_rad)};
      const Vec2 c{m.position.x, m.position.y};
      const double ahead = dot(front - c, t) + 0.5 * m.length_m;  // <= 0: behind the line
      if (dot(t, travel) > 0.99 && ahead <= 1e-3 && ahead > -0.5 &&
          std::fabs(dot(xy(it) - c, perp(t))) <= 0.5 * m.width_m + 0.2)
        behind_a_stop_line = true;
    }
    EXPECT_TRUE(behind_a_stop_line) << "lane " << lane.id;
    expect_on(
        it, [&](Vec2 q) { return road_z(section, q); }, "tyre marks");
    ++checked;
  }
  EXPECT_GT(checked, 10U);
}

TEST(Decals, OilStainsLieInTheirParkingSpot) {
  const Decals& d = decals();
  for (const Item& it : of_kind("decal_oil")) {
    ASSERT_LT(it.owner, d.parking.size());
    const ParkingSpot& spot = d.parking[it.owner];
    Polygon area;
    area.outer = detail::parking_spot_ring(spot);
    EXPECT_TRUE(polygon_contains(area, xy(it)));
    EXPECT_LE(std::max(it.scale_x, it.scale_y), detail::kParkingSpotWidthM);
    expect_on(
        it, [&](Vec2 q) { return road_z(spot.edge, q); }, "oil");
  }
}

TEST(Decals, CracksLieOnCarriagewaysOrSidewalkTiles) {
  const roads::Output& rd = city().roads;
  std::size_t on_road = 0, on_sidewalk = 0;
  for (const Item& it : of_kind("decal_crack")) {
    ASSERT_LT(it.owner, rd.sections.size());
    if (polygon_contains(rd.sections[it.owner].surface, xy(it))) {
      ++on_road;
      expect_on(
          it, [&](Vec2 q) { return road_z(it.owner, q); }, "road crack");
    } else {
      ++on_sidewalk;
      EXPECT_TRUE(std::any_of(rd.sidewalks.begin(), rd.sidewalks.end(),
                              [&](const Polygon& s) { return polygon_contains(s, xy(it)); }));
      expect_on(
          it, [&](Vec2 q) { return city().ground.sample(q) + rd.block_raise_m + kTileThicknessM; },
          "sidewalk crack");
    }
  }
  EXPECT_GT(on_road, 0U);
  EXPECT_GT(on_sidewalk, 0U);
}

TEST(Decals, SharesAndSpacingSetTheDensities) {
  Config none;
  none.grime_share = 0.0;
  none.tyre_mark_share = 0.0;
  none.oil_share = 0.0;
  none.crack_spacing_m = 1e9;
  EXPECT_TRUE(lay_decals(none).items.empty());
  Config all;
  all.oil_share = 1.0;
  all.grime_share = 1.0;
  const Decals full = lay_decals(all);
  EXPECT_EQ(full.counts[2], full.parking.size());
  EXPECT_GT(full.counts[0], 2 * decals().counts[0]);
}

TEST(Decals, GrimeIsTheSameWithoutTheFacadeModules) {
  // --no-city-glb keeps no facade modules (buildings::Config::keep_instances): the decals must
  // not change.
  buildings::Output bare = city().buildings;
  bare.instances.clear();
  bare.instances_kept = false;
  const Inputs with = inputs();
  const Inputs without{.city = with.city,
                       .roads = with.roads,
                       .freeway = with.freeway,
                       .lots = with.lots,
                       .buildings = bare,
                       .ground = with.ground,
                       .styles = with.styles,
                       .rooftops = with.rooftops};
  std::vector<Item> a, b;
  std::array<std::size_t, 4> ca{}, cb{};
  detail::decals(with, Config{}, kSeed, decals().parking, a, ca);
  detail::decals(without, Config{}, kSeed, decals().parking, b, cb);
  EXPECT_EQ(ca, cb);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].position, b[i].position) << i;
    ASSERT_EQ(a[i].scale_x, b[i].scale_x) << i;
  }
}

TEST(Decals, SameAtOneAndTwoThreads) {
  auto run = [](int threads) {
    tbb::global_control gc(tbb::global_control::max_allowed_parallelism,
                           static_cast<std::size_t>(threads));
    return lay_decals().items;
  };
  const std::vector<Item> a = run(1);
  const std::vector<Item> b = run(2);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].prop, b[i].prop) << i;
    ASSERT_EQ(a[i].position, b[i].position) << i;
    ASSERT_EQ(a[i].yaw_rad, b[i].yaw_rad) << i;
    ASSERT_EQ(a[i].scale_x, b[i].scale_x) << i;
    ASSERT_EQ(a[i].scale_y, b[i].scale_y) << i;
    ASSERT_EQ(a[i].scale_z, b[i].scale_z) << i;
    ASSERT_EQ(a[i].owner, b[i].owner) << i;
    ASSERT_EQ(a[i].variant, b[i].variant) << i;
  }
}

TEST(Decals, RunAppendsThemLastAndCountsThem) {
  const Inputs in = inputs();
  Result<Output> out = run(in, {}, Config{}, kSeed);
  ASSERT_TRUE(out.ok()) << out.error().to_string();
  std::size_t n = 0;
  bool tail = true;
  for (std::size_t i = out->items.size(); i-- > 0;) {
    const bool decal = prop_catalog()[out->items[i].prop].category == Category::decal;
    if (decal && !tail) ADD_FAILURE() << "a decal before another category at " << i;
    if (!decal) tail = false;
    n += decal ? 1 : 0;
  }
  std::size_t counted = 0;
  for (std::size_t c : out->stats.decals)
    counted += c;
  EXPECT_EQ(n, counted);
  EXPECT_EQ(out->stats.items_by_category[static_cast<std::size_t>(Category::decal)], n);
  EXPECT_GT(n, 0U);
  Config bad;
  bad.oil_share = 1.5;
  Result<Output> refused = run(in, {}, bad, kSeed);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().to_string().find("oil_share"), std::string::npos);
}

}  // namespace
}  // namespace cityforge::dressing
