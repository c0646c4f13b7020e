// SPDX-License-Identifier: Apache-2.0
// Lots and buildings in a whole city (issue 4 acceptance): buildings keep off roads, sidewalks,
// the freeway and each other; entrances face streets; every style shows up; determinism.
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include "city_once.hpp"
#include "cityforge/core/polygon.hpp"
#include "cityforge/core/rng.hpp"
#include "cityforge/pipeline/city_config.hpp"
#include "cityforge/pipeline/city_pipeline.hpp"
#include "facade_rays.hpp"

namespace cityforge::pipeline {
namespace {

// Four zones so every built-in style has a place, an artery and a freeway over the city.
const char* kCity = R"({
  "name": "mixed",
  "boundary": [[0, 0], [1000, 0], [1000, 900], [0, 900]],
  "arteries": [{"points": [[10, 450], [990, 470]]}, {"points": [[500, 10], [480, 890]]}],
  "zones": [
    {"kind": "downtown", "polygon": [[250, 200], [750, 200], [750, 700], [250, 700]],
     "height_m": [40, 140]},
    {"kind": "residential", "polygon": [[0, 450], [500, 450], [500, 900], [0, 900]],
     "height_m": [8, 18]},
    {"kind": "industrial", "polygon": [[500, 0], [1000, 0], [1000, 450], [500, 450]],
     "height_m": [8, 16]},
    {"kind": "commercial", "polygon": [[0, 0], [500, 0], [500, 450], [0, 450]],
     "height_m": [12, 40]}
  ],
  "freeways": [{"name": "skyway", "points": [[0, 120, 14], [1000, 160, 14]]}]
})";

double overlap_area(const Polygon& a, const Polygon& b) {
  double area = 0.0;
  for (const Polygon& p : polygon_intersection(a, b))
    area += polygon_area(p);
  return area;
}

bool boxes_meet(const Aabb2& a, const Aabb2& b) {
  return a.min.x <= b.max.x && b.min.x <= a.max.x && a.min.y <= b.max.y && b.min.y <= a.max.y;
}

class BuildingsCity : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { run_city_once(kCity, "mixed.json", s_config, s_city); }
  static void TearDownTestSuite() {
    delete s_city;
    delete s_config;
  }
  static CityConfig* s_config;
  static CityResult* s_city;
};
CityConfig* BuildingsCity::s_config = nullptr;
CityResult* BuildingsCity::s_city = nullptr;

TEST_F(BuildingsCity, HasBuildingsOfEveryStyle) {
  ASSERT_NE(s_city, nullptr);
  const auto& b = *s_city->buildings;
  EXPECT_GT(b.buildings.size(), 150U);
  std::set<std::uint32_t> styles;
  for (const auto& x : b.buildings)
    styles.insert(x.style);
  EXPECT_EQ(styles.size(), s_city->styles->styles.size()) << "some style never used";
  EXPECT_GT(b.stats.modules_occluded, 0U) << "narrow rows touch: some walls must be hidden";
  EXPECT_EQ(b.stats.buildings, b.buildings.size());
}

TEST_F(BuildingsCity, NoBuildingOnARoadSidewalkFreewayOrAnotherBuilding) {
  ASSERT_NE(s_city, nullptr);
  const auto& blds = s_city->buildings->buildings;
  const auto& net = s_city->layout->network;
  // Obstacles: carriageways (centre line buffered by half the width), sidewalk areas, freeway.
  std::vector<Polygon> obstacles;
  std::vector<std::string> names;
  for (const auto& e : net.edges) {
    for (Polygon& p : polyline_buffer(e.points, 0.5 * e.width_m)) {
      obstacles.push_back(std::move(p));
      names.push_back("road edge " + std::to_string(e.id));
    }
  }
  for (std::size_t i = 0; i < s_city->roads->sidewalks.size(); ++i) {
    obstacles.push_back(s_city->roads->sidewalks[i]);
    names.push_back("sidewalk " + std::to_string(i));
  }
  ASSERT_FALSE(s_city->freeway->footprints.empty()) << "the test city has a freeway";
  for (std::size_t i = 0; i < s_city->freeway->footprints.size(); ++i) {
    obstacles.push_back(s_city->freeway->footprints[i]);
    names.push_back("freeway footprint " + std::to_string(i));
  }
  std::vector<Aabb2> obstacle_box;
  for (const auto& o : obstacles)
    obstacle_box.push_back(ring_bounds(o.outer));
  std::vector<Aabb2> box;
  for (const auto& b : blds)
    box.push_back(ring_bounds(b.volumes.at(0).footprint.outer));
  std::size_t bad = 0;
  for (std::size_t i = 0; i < blds.size(); ++i) {
    // Upper tiers stand inside the base (tested in tests/buildings): the base is the footprint.
    const Polygon& f = blds[i].volumes[0].footprint;
    for (std::size_t k = 0; k < obstacles.size() && bad < 10; ++k) {
      if (!boxes_meet(box[i], obstacle_box[k])) continue;
      const double a = overlap_area(f, obstacles[k]);
      if (a > 0.01) {
        ++bad;
        ADD_FAILURE() << "building " << i << " overlaps " << names[k] << " by " << a << " m2";
      }
    }
    for (std::size_t j = i + 1; j < blds.size() && bad < 10; ++j) {
      if (!boxes_meet(box[i], box[j])) continue;
      const double a = overlap_area(f, blds[j].volumes[0].footprint);
      if (a > 0.01) {
        ++bad;
        ADD_FAILURE() << "buildings " << i << " and " << j << " overlap by " << a << " m2";
      }
    }
  }
}

// Every floor edge of every facade of the whole city: modules cover it end to end within 1 cm,
// without overlap (corner pieces included).
TEST_F(BuildingsCity, ModulesCoverEveryFloorEdgeOfEveryFacade) {
  ASSERT_NE(s_city, nullptr);
  buildings::Config cfg = s_config->buildings.generator;
  cfg.keep_facade_spans = true;
  auto out = buildings::run(*s_city->lots, *s_city->styles, s_config->buildings.tag_volumes,
                            *s_city->terrain, cfg, s_config->seed);
  ASSERT_TRUE(out.ok()) << out.error().to_string();
  ASSERT_GT(out->spans.size(), 10 * out->buildings.size());
  std::size_t bad = 0;
  for (const buildings::FacadeSpan& f : out->spans) {
    if (bad > 10) break;
    const auto fail = [&](const char* what) {
      ++bad;
      ADD_FAILURE() << what << ": building " << f.building << " volume " << f.volume << " floor "
                    << f.floor << " ring " << f.ring << " edge " << f.edge << " (" << f.length_m
                    << " m)";
    };
    if (f.spans.empty()) {
      fail("no modules");
      continue;
    }
    if (std::abs(f.spans.front()[0]) > 0.01 || std::abs(f.spans.back()[1] - f.length_m) > 0.01) {
      fail("ends not covered");
    }
    for (std::size_t i = 1; i < f.spans.size(); ++i) {
      if (f.spans[i][0] < f.spans[i - 1][1] - 0.01) fail("overlap");
      if (f.spans[i][0] > f.spans[i - 1][1] + 0.01) fail("gap");
    }
  }
  // The instances are the same as the pipeline's (spans are bookkeeping only).
  EXPECT_EQ(out->instances.size(), s_city->buildings->instances.size());
}

// Issue 30: occlusion removes only what nobody can see. Eyes 1.7 m above the ground every 20 m
// along both sides of every sidewalk; every removed module is sampled on a 3 x 3 grid 1 cm in
// front of its wall, and a straight line from each sample to each eye within 150 m on its
// front side must cross the shells left standing or pass under the ground (facade_rays.hpp).
// Cracks under twice the occlusion push (5 cm) between the wall ends of two buildings count as
// closed: occlusion takes walls that close as touching. The same check finds most
// street-facing ground-floor modules that were kept visible, so it can fail (and it did, on
// modules at the narrow end of wedge-shaped cracks between walls meeting at an angle).
TEST_F(BuildingsCity, NoRemovedModuleIsVisibleFromTheSidewalks) {
  ASSERT_NE(s_city, nullptr);
  buildings::Config cfg = s_config->buildings.generator;
  cfg.keep_facade_spans = true;
  auto out = buildings::run(*s_city->lots, *s_city->styles, s_config->buildings.tag_volumes,
                            *s_city->terrain, cfg, s_config->seed);
  ASSERT_TRUE(out.ok()) << out.error().to_string();
  const Visibility v =
      check_visibility(*out, s_city->roads->sidewalks, *s_city->terrain, cfg.occlusion_push_m);
  ASSERT_GT(v.removed, 1000U) << "the test city must have touching walls to check";
  ASSERT_GT(v.eyes, 500U);
  for (const std::string& e : v.examples)
    ADD_FAILURE() << e;
  EXPECT_EQ(v.seen, 0U) << "of " << v.removed << " removed modules";
  // The check finds visible modules: ground-floor modules kept on walls next to a sidewalk.
  ASSERT_GT(v.near, 100U);
  EXPECT_GT(v.near_seen, v.near * 9 / 10) << "street-facing ground-floor modules it should see";
}

TEST_F(BuildingsCity, EveryBuildingFacingAStreetHasAnEntrance) {
  ASSERT_NE(s_city, nullptr);
  const auto& out = *s_city->buildings;
  std::vector<int> entrances(out.buildings.size(), 0);
  for (const auto& e : out.entrances)
    ++entrances.at(e.building);
  std::size_t facing = 0;
  for (const auto& b : out.buildings) {
    if (!b.faces_street) continue;
    ++facing;
    EXPECT_GT(entrances[b.id], 0) << "building " << b.id << " faces a street but has no door";
  }
  EXPECT_GT(facing, out.buildings.size() / 2);
}

TEST_F(BuildingsCity, TallerZonesGetTallerBuildingsOnBiggerLots) {
  ASSERT_NE(s_city, nullptr);
  double down_h = 0, down_n = 0, res_h = 0, res_n = 0;
  for (const auto& b : s_city->buildings->buildings) {
    const auto zone = s_city->lots->lots[b.lot].zone;
    if (zone == layout::ZoneKind::downtown) {
      down_h += b.height_m;
      ++down_n;
    } else if (zone == layout::ZoneKind::residential) {
      res_h += b.height_m;
      ++res_n;
    }
  }
  ASSERT_GT(down_n, 0);
  ASSERT_GT(res_n, 0);
  EXPECT_GT(down_h / down_n, 2.0 * res_h / res_n);
}

// Same seed, 1 and 2 threads: identical lots, instances and roofs.
TEST_F(BuildingsCity, IdenticalWithOneAndTwoThreads) {
  ASSERT_NE(s_city, nullptr);
  tbb::global_control two(tbb::global_control::max_allowed_parallelism, 2);
  CityPipeline pipe;
  auto r = pipe.run(*s_config);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  const auto hash_instances = [](const buildings::Output& o) {
    std::uint64_t h = 0;
    for (const auto& in : o.instances) {
      h = hash_bytes(in.position.data(), sizeof(float) * 3, h);
      h = hash_combine(h, in.module);
      h = hash_combine(h, in.room);
      h = hash_combine(h, in.building);
      float f[3] = {in.yaw_rad, in.scale_x, in.scale_z};
      h = hash_bytes(f, sizeof f, h);
    }
    for (const auto& roof : o.roofs) {
      for (const Mesh& m : roof) {
        h = hash_bytes(m.positions.data(), m.positions.size() * sizeof(m.positions[0]), h);
        h = hash_bytes(m.indices.data(), m.indices.size() * 4, h);
      }
    }
    return h;
  };
  EXPECT_EQ(r->buildings->instances.size(), s_city->buildings->instances.size());
  EXPECT_EQ(hash_instances(*r->buildings), hash_instances(*s_city->buildings));
  ASSERT_EQ(r->lots->lots.size(), s_city->lots->lots.size());
  for (std::size_t i = 0; i < r->lots->lots.size(); ++i) {
    EXPECT_EQ(r->lots->lots[i].area.outer.size(), s_city->lots->lots[i].area.outer.size());
  }
}

// Editing a style re-runs styles, lots and buildings only.
TEST_F(BuildingsCity, StyleEditRerunsOnlyLotsAndBuildings) {
  ASSERT_NE(s_config, nullptr);
  CityConfig cfg = *s_config;
  CityPipeline pipe;
  ASSERT_TRUE(pipe.run(cfg).ok());
  ASSERT_FALSE(cfg.buildings.style_sources.empty());
  std::string& text = cfg.buildings.style_sources[0].second;
  const auto at = text.find("\"weight\"");
  ASSERT_NE(at, std::string::npos);
  text.insert(at, "\"description\": \"edited\", ");
  ASSERT_TRUE(pipe.run(cfg).ok());
  EXPECT_EQ(pipe.executions("layout"), 1U);
  EXPECT_EQ(pipe.executions("roads"), 1U);
  EXPECT_EQ(pipe.executions("freeway"), 1U);
  EXPECT_EQ(pipe.executions("styles"), 2U);
  EXPECT_EQ(pipe.executions("lots"), 2U);
  EXPECT_EQ(pipe.executions("buildings"), 2U);
}

// A style whose minimum wall no lot can meet is named, with the file and the key.
TEST(BuildingsConfig, StyleWallLongerThanAnyLotIsAnError) {
  auto cfg = parse_city_config(kCity, "mixed.json");
  ASSERT_TRUE(cfg.ok());
  std::string& text = cfg->buildings.style_sources[0].second;
  const auto at = text.find("\"min_wall_m\"");
  ASSERT_NE(at, std::string::npos);
  const auto end = text.find_first_of(",}", at);
  text.replace(at, end - at, "\"min_wall_m\": 900");
  CityPipeline pipe;
  auto r = pipe.run(*cfg);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().where.find(cfg->buildings.style_sources[0].first), std::string::npos)
      << r.error().to_string();
  EXPECT_NE(r.error().to_string().find("min_wall_m"), std::string::npos) << r.error().to_string();
  EXPECT_NE(r.error().message.find("900"), std::string::npos) << r.error().to_string();
}

TEST(BuildingsConfig, LotsAndBuildingsKeysAreReadAndChecked) {
  std::string text = kCity;
  text.insert(text.rfind('}'),
              R"(, "lots": {"narrow_height_m": 20, "footprint_mix": {"rectangle": 1, "l_shape": 1}},
  "buildings": {"tag_volumes": [{"tag": "fire_escape", "polygon": [[0, 0], [100, 0], [100, 100]]}]})");
  auto cfg = parse_city_config(text, "mixed.json");
  ASSERT_TRUE(cfg.ok()) << cfg.error().to_string();
  EXPECT_EQ(cfg->lots.narrow_height_m, 20);
  EXPECT_EQ(cfg->lots.footprint_mix[0], 1);
  EXPECT_EQ(cfg->lots.footprint_mix[2], 0);
  ASSERT_EQ(cfg->buildings.tag_volumes.size(), 1U);
  EXPECT_EQ(cfg->buildings.tag_volumes[0].tag, "fire_escape");
  struct Case {
    const char* from;
    const char* to;
    const char* says;
  };
  for (const Case& c :
       {Case{"\"rectangle\": 1", "\"blob\": 1", "/lots/footprint_mix/blob"},
        Case{"\"narrow_height_m\"", "\"narrow_hieght_m\"", "narrow_hieght_m"},
        Case{"\"fire_escape\"", "\"sprinkler\"", "/buildings/tag_volumes/0/tag"},
        Case{"\"tag_volumes\"", "\"styles\": [], \"tag_volumes\"", "/buildings/styles"}}) {
    std::string bad = text;
    bad.replace(bad.find(c.from), std::strlen(c.from), c.to);
    auto r = parse_city_config(bad, "mixed.json");
    ASSERT_FALSE(r.ok()) << c.to;
    EXPECT_NE(r.error().to_string().find(c.says), std::string::npos) << r.error().to_string();
  }
}

}  // namespace
}  // namespace cityforge::pipeline
