// SPDX-License-Identifier: Apache-2.0
// Set dressing in a whole city (issue 5 acceptance): no two props overlap, none on a road or in
// an entrance exclusion, every category present, bad biomes are warnings, determinism.
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <cmath>
#include <string>

#include "city_once.hpp"
#include "cityforge/core/rng.hpp"
#include "cityforge/core/spatial_hash.hpp"
#include "cityforge/pipeline/city_config.hpp"
#include "cityforge/pipeline/city_pipeline.hpp"

namespace cityforge::pipeline {
namespace {

const char* kCity = R"({
  "name": "dressed",
  "boundary": [[0, 0], [900, 0], [900, 800], [0, 800]],
  "arteries": [{"points": [[10, 400], [890, 420]]}, {"points": [[450, 10], [430, 790]]}],
  "zones": [
    {"kind": "downtown", "polygon": [[250, 250], [650, 250], [650, 600], [250, 600]],
     "height_m": [40, 120]},
    {"kind": "residential", "polygon": [[0, 400], [450, 400], [450, 800], [0, 800]],
     "height_m": [8, 18]},
    {"kind": "park", "polygon": [[600, 620], [880, 620], [880, 790], [600, 790]]},
    {"kind": "commercial", "polygon": [[0, 0], [900, 0], [900, 400], [0, 400]],
     "height_m": [12, 30]}
  ],
  "freeways": [{"name": "skyway", "points": [[0, 120, 14], [900, 150, 14]]}]
})";

std::uint64_t hash_output(const dressing::Output& o) {
  std::uint64_t h = 0;
  for (const dressing::Item& it : o.items) {
    h = hash_bytes(it.position.data(), sizeof(float) * 3, h);
    const float f[4] = {it.yaw_rad, it.scale_x, it.scale_y, it.scale_z};
    h = hash_bytes(f, sizeof f, h);
    h = hash_combine(h, it.prop);
    h = hash_combine(h, it.variant);
  }
  for (const dressing::ParkingSpot& p : o.parking)
    h = hash_bytes(p.position.data(), sizeof(float) * 3, h);
  for (const dressing::AudioPoint& a : o.audio) {
    h = hash_bytes(a.position.data(), sizeof(float) * 3, h);
    h = hash_bytes(&a.reverb, sizeof a.reverb, h);
  }
  return h;
}

class DressingCity : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { run_city_once(kCity, "dressed.json", s_config, s_city); }
  static void TearDownTestSuite() {
    delete s_city;
    delete s_config;
  }
  static CityConfig* s_config;
  static CityResult* s_city;
};
CityConfig* DressingCity::s_config = nullptr;
CityResult* DressingCity::s_city = nullptr;

TEST_F(DressingCity, EveryKindOfDressingIsThere) {
  ASSERT_NE(s_city, nullptr);
  const dressing::Output& d = *s_city->dressing;
  for (std::size_t c = 0; c < dressing::kCategoryCount; ++c) {
    EXPECT_GT(d.stats.items_by_category[c], 0U)
        << dressing::to_string(static_cast<dressing::Category>(c));
  }
  for (const char* id : {"street_light", "street_tree", "park_tree", "hydrant", "bench", "bin",
                         "signal_pole", "signal_head", "stop_sign", "sidewalk_tile", "ground_tile",
                         "decal_grime", "decal_tyre_marks", "decal_oil", "decal_crack"}) {
    const std::int32_t p = dressing::find_prop(id);
    ASSERT_GE(p, 0) << id;
    EXPECT_GT(d.stats.items_by_prop[static_cast<std::size_t>(p)], 0U) << id;
  }
  EXPECT_GT(d.stats.parking_spots, 0U);
  EXPECT_GT(d.stats.audio_points, 1000U);
  EXPECT_GT(d.stats.furnished_sidewalk_km, 5.0);
  EXPECT_TRUE(d.warnings.empty()) << d.warnings.front();
}

// No two props' footprint discs overlap, whichever generator placed them.
TEST_F(DressingCity, NoTwoPropsOverlap) {
  ASSERT_NE(s_city, nullptr);
  const auto& catalog = dressing::prop_catalog();
  const auto& items = s_city->dressing->items;
  SpatialHash hash(4.0);
  std::vector<std::size_t> discs;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (catalog[items[i].prop].radius_m > 0.0) discs.push_back(i);
  }
  for (std::size_t k = 0; k < discs.size(); ++k) {
    const auto& it = items[discs[k]];
    hash.insert(static_cast<std::uint32_t>(k), Vec2{it.position[0], it.position[1]});
  }
  std::size_t bad = 0;
  std::vector<std::uint32_t> near;
  for (std::size_t k = 0; k < discs.size() && bad < 10; ++k) {
    const auto& a = items[discs[k]];
    const double ra = catalog[a.prop].radius_m;
    hash.query_radius(Vec2{a.position[0], a.position[1]}, 8.0, near);
    for (const std::uint32_t other : near) {
      if (other <= k || bad >= 10) continue;
      const auto& b = items[discs[other]];
      const double d = std::hypot(a.position[0] - b.position[0], a.position[1] - b.position[1]);
      // Props on roofs and on the ground below may share x, y.
      if (std::abs(a.position[2] - b.position[2]) > 3.0) continue;
      if (d < ra + catalog[b.prop].radius_m - 1e-3) {
        ++bad;
        ADD_FAILURE() << catalog[a.prop].id << " and " << catalog[b.prop].id << " overlap at ("
                      << a.position[0] << ", " << a.position[1] << ")";
      }
    }
  }
}

// Props stand off the carriageways and out of the entrance exclusion boxes.
TEST_F(DressingCity, NothingOnRoadsOrInFrontOfEntrances) {
  ASSERT_NE(s_city, nullptr);
  const auto& catalog = dressing::prop_catalog();
  const auto& items = s_city->dressing->items;
  std::size_t bad = 0;
  for (const auto& it : items) {
    const auto& def = catalog[it.prop];
    if (def.radius_m <= 0.0 || def.category == dressing::Category::signals) continue;
    const Vec2 p{it.position[0], it.position[1]};
    for (const auto& s : s_city->roads->sections) {
      if (bad < 10 && polygon_contains(s.surface, p)) {
        ++bad;
        ADD_FAILURE() << def.id << " on the carriageway of edge " << s.edge;
      }
    }
    for (const auto& e : s_city->buildings->entrances) {
      // The exclusion box in its own frame: x along the facade, y outward.
      const double c = std::cos(e.yaw_rad);
      const double sn = std::sin(e.yaw_rad);
      const double dx = p.x - e.exclusion_centre[0];
      const double dy = p.y - e.exclusion_centre[1];
      const double u = c * dx + sn * dy;
      const double v = -sn * dx + c * dy;
      if (bad < 10 && std::abs(u) < e.exclusion_half[0] && std::abs(v) < e.exclusion_half[1] &&
          std::abs(it.position[2] - e.exclusion_centre[2]) < e.exclusion_half[2] + 1.0) {
        ++bad;
        ADD_FAILURE() << def.id << " in front of an entrance of building " << e.building;
      }
    }
  }
}

TEST_F(DressingCity, IdenticalWithOneAndTwoThreads) {
  ASSERT_NE(s_city, nullptr);
  tbb::global_control two(tbb::global_control::max_allowed_parallelism, 2);
  CityPipeline pipe;
  auto r = pipe.run(*s_config);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->dressing->items.size(), s_city->dressing->items.size());
  EXPECT_EQ(hash_output(*r->dressing), hash_output(*s_city->dressing));
}

// Props stand on the surfaces the roads stage draws: its block raise, read from its output.
TEST(DressingConfig, PropsStandOnTheRoadsStageBlockRaise) {
  std::string text = kCity;
  text.insert(text.rfind('}'), R"(, "roads": {"block_raise_m": 0.4})");
  auto cfg = parse_city_config(text, "dressed.json");
  ASSERT_TRUE(cfg.ok()) << cfg.error().to_string();
  EXPECT_DOUBLE_EQ(cfg->roads.block_raise_m, 0.4);
  // The key's old place is rejected naming the new one.
  std::string old = kCity;
  old.insert(old.rfind('}'), R"(, "export": {"block_raise_m": 0.4})");
  auto moved = parse_city_config(old, "dressed.json");
  ASSERT_FALSE(moved.ok());
  EXPECT_EQ(moved.error().where, "dressed.json: /export/block_raise_m");
  EXPECT_NE(moved.error().message.find("/roads/block_raise_m"), std::string::npos)
      << moved.error().message;
}

// A bad biome is a clear warning naming its file; the rest of the city still generates.
TEST(DressingConfig, BadBiomesAreWarningsNotFailures) {
  auto cfg = parse_city_config(kCity, "dressed.json");
  ASSERT_TRUE(cfg.ok());
  auto& sources = cfg->dressing.biome_sources;
  sources.emplace_back("biomes/unknown_prop.json",
                       R"({"name": "u", "zone": "plaza", "size_m": [4, 4],
                           "parts": [{"prop": "statue_of_liberty", "x": 0, "y": 0}]})");
  sources.emplace_back("biomes/overlap.json",
                       R"({"name": "o", "zone": "plaza", "size_m": [6, 6],
                           "parts": [{"prop": "bench", "x": 0, "y": 0},
                                     {"prop": "bench", "x": 0.2, "y": 0}]})");
  sources.emplace_back("biomes/huge.json",
                       R"({"name": "huge", "zone": "plaza", "size_m": [400, 300],
                           "parts": [{"prop": "fountain", "x": 0, "y": 0}]})");
  CityPipeline pipe;
  auto r = pipe.run(*cfg);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  const auto& w = r->dressing->warnings;
  auto said = [&](const std::string& file, const std::string& what) {
    for (const auto& line : w) {
      if (line.find(file) != std::string::npos && line.find(what) != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_TRUE(said("biomes/unknown_prop.json", "statue_of_liberty")) << ::testing::PrintToString(w);
  EXPECT_TRUE(said("biomes/overlap.json", "overlap")) << ::testing::PrintToString(w);
  EXPECT_TRUE(said("biomes/huge.json", "huge")) << ::testing::PrintToString(w);
  EXPECT_GT(r->dressing->items.size(), 1000U) << "the rest of the city is dressed";
}

}  // namespace
}  // namespace cityforge::pipeline
