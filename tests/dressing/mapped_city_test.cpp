// SPDX-License-Identifier: Apache-2.0
// Imported places: mapped ground areas and paths become patches clipped off roads, sidewalks
// and buildings; mapped props stand where mapped; procedural furniture stays off; barriers are
// chains of segment props along their polylines; unlit roads get no lights; all deterministic.
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <set>
#include <string>

#include "city_fixture.hpp"
#include "cityforge/core/polyline.hpp"
#include "dressing/detail.hpp"
#include "dressing/detail/exclusions.hpp"

namespace cityforge::dressing {
namespace {

constexpr Seed kSeed = 5;

const testing::City& city() {
  const testing::City& c = testing::shared_city();
  EXPECT_TRUE(c.error.empty()) << c.error;
  return c;
}

std::uint32_t prop(const char* id) { return static_cast<std::uint32_t>(find_prop(id)); }
Vec2 xy(const Item& item) { return {item.position[0], item.position[1]}; }

Polygon rect(double x0, double y0, double x1, double y1) {
  return Polygon{{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}}, {}};
}

// A point well inside the largest park block (no buildings, off every road).
Vec2 park_point(const testing::City& c, double inset_m, Polygon* inset_out = nullptr) {
  const layout::Block* best = nullptr;
  for (const layout::Block& b : c.layout.blocks) {
    if (b.zone == layout::ZoneKind::park &&
        (best == nullptr || polygon_area(b.area) > polygon_area(best->area)))
      best = &b;
  }
  if (best == nullptr) return {};
  const std::vector<Polygon> inset = polygon_offset(best->area, -inset_m);
  if (inset.empty()) return {};
  if (inset_out != nullptr) *inset_out = inset.front();
  const Triangulation t = triangulate(inset.front());
  return (t.points[t.indices[0]] + t.points[t.indices[1]] + t.points[t.indices[2]]) / 3.0;
}

// A point inside the first sidewalk polygon.
Vec2 sidewalk_point(const testing::City& c) {
  const Triangulation t = triangulate(c.roads.sidewalks.front());
  std::size_t best = 0;
  double best_area = 0.0;
  for (std::size_t i = 0; i + 2 < t.indices.size(); i += 3) {
    const Vec2 a = t.points[t.indices[i]];
    const double area =
        std::abs(cross(t.points[t.indices[i + 1]] - a, t.points[t.indices[i + 2]] - a));
    if (area > best_area) {
      best_area = area;
      best = i;
    }
  }
  return (t.points[t.indices[best]] + t.points[t.indices[best + 1]] +
          t.points[t.indices[best + 2]]) /
         3.0;
}

struct Scene {
  Mapped mapped;
  Vec2 bench, tree;
  Polyline fence;
};

Scene make_scene(const testing::City& c) {
  Scene s;
  // The park zone (x 300..600, y 0..250) is crossed by roads and the freeway; the areas span
  // them on purpose.
  s.mapped.areas.push_back({GroundKind::park, rect(310, 110, 590, 240), 1});
  s.mapped.areas.push_back({GroundKind::forest, rect(320, 10, 450, 100), 2});
  Polygon pond = rect(480, 150, 560, 230);
  pond.holes.push_back({{510, 180}, {510, 200}, {530, 200}, {530, 180}});  // clockwise
  s.mapped.areas.push_back({GroundKind::water, pond, 3});
  s.mapped.areas.push_back({GroundKind::pavement, rect(100, 100, 200, 200), 4});
  s.bench = sidewalk_point(c);
  Polygon inset;
  const Vec2 p = park_point(c, 12.0, &inset);
  s.tree = p;
  // A fence of two segments (7 m and 4 m) inside the park block.
  s.fence = {p + Vec2{2.0, 2.0}, p + Vec2{9.0, 2.0}, p + Vec2{9.0, 6.0}};
  s.mapped.props.push_back({prop("bench"), s.bench, 0.0, true, 10});
  s.mapped.props.push_back({prop("park_tree"), s.tree, 0.3, false, 11});
  s.mapped.barriers.push_back({BarrierKind::fence, s.fence, 0.0, 20});
  s.mapped.barriers.push_back(
      {BarrierKind::wall, {p + Vec2{-6.0, -2.0}, p + Vec2{-6.0, -4.5}}, 3.0, 21});
  MappedPath path;
  path.points = {{20, 20}, {280, 240}};
  path.width_m = 2.5;
  path.osm_id = 30;
  s.mapped.paths.push_back(path);
  return s;
}

Result<Output> dress(const testing::City& c, const Mapped* mapped) {
  Inputs in = c.inputs();
  in.mapped = mapped;
  return run(in, {}, Config{}, kSeed);
}

const Scene& scene() {
  static const Scene s = make_scene(city());
  return s;
}

const Output& dressed() {
  static const Output out = [] {
    Result<Output> r = dress(city(), &scene().mapped);
    EXPECT_TRUE(r.ok()) << (r ? "" : r.error().to_string());
    return r ? std::move(*r) : Output{};
  }();
  return out;
}

TEST(Mapped, GeneratedCitiesGetNoPatchesAndNoMappedStats) {
  Result<Output> out = dress(city(), nullptr);
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out->ground.empty());
  EXPECT_EQ(out->stats.mapped_props, 0U);
  EXPECT_EQ(out->stats.path_patches, 0U);
  for (std::size_t k = 0; k < kBarrierKindCount; ++k)
    EXPECT_EQ(out->stats.barrier_pieces[k], 0U);
  EXPECT_GT(out->stats.items_by_prop[prop("bench")], 0U);  // Procedural furniture is on.
}

TEST(Mapped, PatchesKeepOffRoadsSidewalksAndFootprints) {
  const testing::City& c = city();
  const Output& out = dressed();
  ASSERT_FALSE(out.ground.empty());
  std::vector<Polygon> blockers;
  for (const roads::Section& s : c.roads.sections) {
    const layout::RoadEdge& e = c.layout.network.edges[s.edge];
    if (!e.bridge && !e.tunnel) blockers.push_back(s.surface);
  }
  for (const roads::Intersection& x : c.roads.intersections)
    blockers.push_back(x.surface);
  for (const Polygon& w : c.roads.sidewalks)
    blockers.push_back(w);
  for (const buildings::Building& b : c.buildings.buildings)
    for (const buildings::Volume& v : b.volumes)
      if (v.layer == 0) blockers.push_back(v.footprint);
  double overlap = 0.0;
  double total = 0.0;
  for (const GroundPatch& g : out.ground) {
    total += polygon_area(g.area);
    const Aabb2 gb = ring_bounds(g.area.outer);
    for (const Polygon& b : blockers) {
      if (b.outer.size() < 3) continue;
      const Aabb2 bb = ring_bounds(b.outer);
      if (bb.max.x < gb.min.x || bb.min.x > gb.max.x || bb.max.y < gb.min.y || bb.min.y > gb.max.y)
        continue;
      for (const Polygon& x : polygon_intersection(g.area, b))
        overlap += polygon_area(x);
    }
  }
  EXPECT_GT(total, 1000.0);
  // Boolean round-off only.
  EXPECT_LT(overlap, 1e-3 * total) << overlap << " of " << total;
  // Every kind asked for is there, and the path too.
  EXPECT_GT(out.stats.patches_by_kind[static_cast<std::size_t>(GroundKind::park)], 0U);
  EXPECT_GT(out.stats.patches_by_kind[static_cast<std::size_t>(GroundKind::forest)], 0U);
  EXPECT_GT(out.stats.patches_by_kind[static_cast<std::size_t>(GroundKind::water)], 0U);
  EXPECT_GT(out.stats.path_patches, 0U);
}

TEST(Mapped, WaterIsFlatAtItsLowestShoreAndKeepsItsHole) {
  const testing::City& c = city();
  const Output& out = dressed();
  const Polygon& pond = scene().mapped.areas[2].area;
  double lowest = 1e18;
  for (const Vec2& p : pond.outer)
    lowest = std::min(lowest, c.ground.sample(p));
  bool any = false;
  for (const GroundPatch& g : out.ground) {
    if (g.kind != GroundKind::water) continue;
    any = true;
    EXPECT_LE(g.z_m, lowest + 1e-9);
    // Nothing of the island is water.
    EXPECT_FALSE(polygon_contains(g.area, {520, 190}));
  }
  EXPECT_TRUE(any);
  // Land areas give way to the water.
  for (const GroundPatch& g : out.ground) {
    if (g.kind == GroundKind::park) {
      EXPECT_FALSE(polygon_contains(g.area, {500, 160}));
    }
  }
}

TEST(Mapped, PropsStandWhereMappedAndFaceTheRoad) {
  const testing::City& c = city();
  const Output& out = dressed();
  const Scene& s = scene();
  Config config;
  int benches_at = 0;
  int trees_at = 0;
  for (const Item& it : out.items) {
    if (it.prop == prop("bench") && distance(xy(it), s.bench) < 1e-3) {
      ++benches_at;
      EXPECT_NEAR(it.position[2], c.ground.sample(s.bench) + c.roads.block_raise_m, 1e-3);
      // Facing the nearest road: a step along the facing gets closer to a section centre line.
      double before = 1e18;
      double after = 1e18;
      const Vec2 step = Vec2{std::cos(it.yaw_rad), std::sin(it.yaw_rad)} * 0.5;
      for (const roads::Section& sec : c.roads.sections) {
        before = std::min(before, polyline_distance(sec.centre, s.bench));
        after = std::min(after, polyline_distance(sec.centre, s.bench + step));
      }
      EXPECT_LT(after, before);
    }
    if (it.prop == prop("park_tree") && distance(xy(it), s.tree) < 1e-3) {
      ++trees_at;
      EXPECT_NEAR(it.yaw_rad, 0.3, 1e-6);  // Its own yaw.
    }
  }
  EXPECT_EQ(benches_at, 1);
  EXPECT_EQ(trees_at, 1);
  EXPECT_EQ(out.stats.mapped_props, 2U);
}

TEST(Mapped, ProceduralFurnitureOnlyWhenAsked) {
  const Output& out = dressed();
  // Only the mapped bench; no generated bins, hydrants or bus stops.
  EXPECT_EQ(out.stats.items_by_prop[prop("bench")], 1U);
  EXPECT_EQ(out.stats.items_by_prop[prop("bin")], 0U);
  EXPECT_EQ(out.stats.items_by_prop[prop("hydrant")], 0U);
  EXPECT_EQ(out.stats.items_by_prop[prop("bus_stop")], 0U);
  // Signals and lights still come with the roads.
  EXPECT_GT(out.stats.lights, 0U);
  Mapped more = scene().mapped;
  more.procedural_furniture = true;
  Result<Output> with = dress(city(), &more);
  ASSERT_TRUE(with.ok());
  EXPECT_GT(with->stats.items_by_prop[prop("bench")], 1U);
  EXPECT_GT(with->stats.items_by_prop[prop("hydrant")], 0U);
}

TEST(Mapped, UnlitRoadsGetNoStreetLights) {
  const testing::City& c = city();
  layout::Output unlit = c.layout;
  for (layout::RoadEdge& e : unlit.network.edges)
    e.lit = false;
  std::vector<Item> lights;
  detail::street_lights(c.inputs(), Config{}, kSeed, lights);
  EXPECT_GT(lights.size(), 0U);
  lights.clear();
  detail::street_lights(c.inputs_with(unlit, testing::nothing().styles), Config{}, kSeed, lights);
  EXPECT_TRUE(lights.empty());
}

TEST(Mapped, BarriersAreChainsOfSegmentsAlongThePolyline) {
  const testing::City& c = city();
  const Output& out = dressed();
  const Scene& s = scene();
  const PropDef& fence = prop_catalog()[prop("barrier_fence")];
  double length = 0.0;
  int pieces = 0;
  for (const Item& it : out.items) {
    if (it.prop != prop("barrier_fence")) continue;
    ++pieces;
    EXPECT_LT(polyline_distance(s.fence, xy(it)), 1e-3);
    EXPECT_NEAR(it.position[2], c.ground.sample(xy(it)) + c.roads.block_raise_m, 1e-3);
    EXPECT_LE(it.scale_x * fence.length_m, 3.0 + 1e-6);
    EXPECT_FLOAT_EQ(it.scale_z, 1.0f);
    length += it.scale_x * fence.length_m;
  }
  // 7 m in 3 pieces, 4 m in 2.
  EXPECT_EQ(pieces, 5);
  EXPECT_NEAR(length, polyline_length(s.fence), 1e-3);
  EXPECT_EQ(out.stats.barrier_pieces[static_cast<std::size_t>(BarrierKind::fence)], 5U);
  // The wall is 3 m high: its 2 m prop scaled by 1.5.
  int walls = 0;
  for (const Item& it : out.items) {
    if (it.prop != prop("barrier_wall")) continue;
    ++walls;
    EXPECT_NEAR(it.scale_z, 1.5f, 1e-6);
    EXPECT_NEAR(it.scale_x, 2.5f, 1e-5);
  }
  EXPECT_EQ(walls, 1);
}

TEST(Mapped, ForestsAreDenserThanParksAndPlantsStayOnTheirPatches) {
  const Output& out = dressed();
  std::array<double, kGroundKindCount> area{};
  for (const GroundPatch& g : out.ground)
    if (!g.path) {
      area[static_cast<std::size_t>(g.kind)] += polygon_area(g.area);
    }
  Inputs in = city().inputs();
  in.mapped = &scene().mapped;
  std::vector<Item> plants;
  detail::mapped_plants(in, Config{}, kSeed, out.ground, plants);
  std::array<std::size_t, kGroundKindCount> trees{};
  for (const Item& it : plants) {
    ASSERT_LT(it.owner, out.ground.size());
    const GroundPatch& on = out.ground[it.owner];
    EXPECT_TRUE(polygon_contains(on.area, xy(it)));
    EXPECT_TRUE(on.kind == GroundKind::park || on.kind == GroundKind::forest);
    EXPECT_GT(distance(xy(it), scene().tree), 2.0 - 1e-9);  // Clear of the mapped tree.
    if (it.prop == prop("park_tree")) ++trees[static_cast<std::size_t>(on.kind)];
  }
  const auto park = static_cast<std::size_t>(GroundKind::park);
  const auto forest = static_cast<std::size_t>(GroundKind::forest);
  ASSERT_GT(area[park], 0.0);
  ASSERT_GT(area[forest], 0.0);
  EXPECT_GT(trees[park], 0U);
  EXPECT_GT(trees[forest] / area[forest], 3.0 * trees[park] / area[park]);
  EXPECT_GT(out.stats.mapped_plants, 0U);
  // Nothing generated stands in the water (the fixture's park blocks get park trees).
  for (const Item& it : out.items) {
    if (prop_catalog()[it.prop].radius_m <= 0.0) continue;
    for (const GroundPatch& g : out.ground) {
      if (g.kind == GroundKind::water) {
        EXPECT_FALSE(polygon_contains(g.area, xy(it))) << it.prop;
      }
    }
  }
}

TEST(Mapped, NoPlazaOrParkingZonesOnMappedLandOrHugeLeftovers) {
  const Output& out = dressed();
  std::size_t ground_zones = 0;
  for (const LeftoverZone& z : out.zones) {
    if (z.kind == ZoneKind::rooftop) continue;
    ++ground_zones;
    EXPECT_LE(polygon_area(z.area), detail::kMaxMappedZoneM2);
    const Vec2 c = ring_centroid(z.area.outer);
    for (const GroundPatch& g : out.ground) {
      if (!g.path && g.kind != GroundKind::pavement) {
        EXPECT_FALSE(polygon_contains(g.area, c)) << to_string(g.kind);
      }
    }
  }
  EXPECT_GT(ground_zones, 0U);
}

TEST(Mapped, SameInputsGiveIdenticalOutputAtAnyThreadCount) {
  auto bytes = [](const Output& o) {
    std::vector<std::uint8_t> b(o.items.size() * sizeof(Item));
    if (!b.empty()) std::memcpy(b.data(), o.items.data(), b.size());
    for (const GroundPatch& g : o.ground) {
      for (const Vec2& p : g.area.outer) {
        const auto* q = reinterpret_cast<const std::uint8_t*>(&p);
        b.insert(b.end(), q, q + sizeof(Vec2));
      }
      b.push_back(static_cast<std::uint8_t>(g.kind));
    }
    return b;
  };
  std::optional<Result<Output>> one;
  {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 1);
    one.emplace(dress(city(), &scene().mapped));
  }
  ASSERT_TRUE(one->ok());
  EXPECT_EQ(bytes(**one), bytes(dressed()));
  EXPECT_EQ((*one)->ground.size(), dressed().ground.size());
}

}  // namespace
}  // namespace cityforge::dressing
