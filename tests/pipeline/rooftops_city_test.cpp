// SPDX-License-Identifier: Apache-2.0
// The rooftops stage in a whole city (issue 10): WFC rooftops on flat roofs after the buildings,
// cached on its own config slice, the same at any thread count, roof tiers with a WFC rooftop
// left out of the rooftop biome zones, and the `rooftops` object of the city JSON checked.
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <string>

#include "city_once.hpp"
#include "cityforge/core/rng.hpp"
#include "cityforge/pipeline/city_config.hpp"
#include "cityforge/pipeline/city_pipeline.hpp"

namespace cityforge::pipeline {
namespace {

const char* kCity = R"({
  "name": "roofs",
  "boundary": [[0, 0], [700, 0], [700, 600], [0, 600]],
  "arteries": [{"points": [[10, 300], [690, 310]]}],
  "zones": [
    {"kind": "downtown", "polygon": [[150, 150], [550, 150], [550, 450], [150, 450]],
     "height_m": [30, 90]},
    {"kind": "commercial", "polygon": [[0, 0], [700, 0], [700, 600], [0, 600]],
     "height_m": [12, 30]}
  ]
})";

std::uint64_t hash_rooftops(const rooftops::RooftopOutput& o) {
  std::uint64_t h = 0;
  for (const rooftops::RooftopInstance& in : o.instances) {
    h = hash_bytes(in.position.data(), sizeof(float) * 3, h);
    h = hash_bytes(&in.yaw_rad, sizeof in.yaw_rad, h);
    h = hash_combine(h, in.tile);
    h = hash_combine(h, in.colour);
    h = hash_combine(h, in.reflected ? 1U : 0U);
    h = hash_combine(h, in.building);
  }
  for (const rooftops::Rooftop& r : o.rooftops) {
    h = hash_combine(h, r.building);
    h = hash_combine(h, r.volume);
    h = hash_combine(h, r.solved ? 1U : 0U);
  }
  return h;
}

class RooftopsCity : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { run_city_once(kCity, "roofs.json", s_config, s_city); }
  static void TearDownTestSuite() {
    delete s_city;
    delete s_config;
  }
  static CityConfig* s_config;
  static CityResult* s_city;
};
CityConfig* RooftopsCity::s_config = nullptr;
CityResult* RooftopsCity::s_city = nullptr;

TEST_F(RooftopsCity, StageRunsAfterBuildingsAndBeforeDressing) {
  const auto names = CityPipeline::stage_names();
  const auto at = [&](const char* n) { return std::find(names.begin(), names.end(), n); };
  ASSERT_NE(at("rooftops"), names.end());
  EXPECT_LT(at("buildings"), at("rooftops"));
  EXPECT_LT(at("rooftops"), at("dressing"));
  ASSERT_NE(s_city, nullptr);
  bool seen = false;
  for (const StageStats& s : s_city->stages)
    seen = seen || s.name == "rooftops";
  EXPECT_TRUE(seen);
}

TEST_F(RooftopsCity, FlatRoofsGetSolvedRooftopsStandingOnThem) {
  ASSERT_NE(s_city, nullptr);
  ASSERT_NE(s_city->rooftops, nullptr);
  const rooftops::RooftopOutput& r = *s_city->rooftops;
  EXPECT_GT(r.stats.rooftops, 10U);
  EXPECT_EQ(r.stats.rooftops + r.stats.failed, r.rooftops.size());
  EXPECT_LT(r.stats.failed * 10, r.stats.rooftops + 1) << "at most ~10 % of roofs fail";
  EXPECT_GT(r.stats.constraints, 100U);
  EXPECT_GT(r.stats.base_tiles, 20U);
  EXPECT_FALSE(r.instances.empty());
  EXPECT_DOUBLE_EQ(r.cell_m, s_config->rooftops.cell_m);
  const auto& bs = s_city->buildings->buildings;
  for (const rooftops::Rooftop& roof : r.rooftops) {
    ASSERT_LT(roof.building, bs.size());
    ASSERT_LT(roof.volume, bs[roof.building].volumes.size());
    ASSERT_LE(roof.first_instance + roof.instance_count, r.instances.size());
    for (std::uint32_t i = roof.first_instance; i < roof.first_instance + roof.instance_count;
         ++i) {
      const rooftops::RooftopInstance& in = r.instances[i];
      EXPECT_EQ(in.building, roof.building);
      EXPECT_GE(in.position[2], roof.z_m - 1e-3) << "tile below its roof";
      EXPECT_LT(in.tile, r.tile_names.size());
      EXPECT_LT(in.colour, rooftops::kRooftopColours);
    }
  }
}

TEST_F(RooftopsCity, SameRooftopsAtAnyThreadCountAndCachedOnTheirSlice) {
  ASSERT_NE(s_city, nullptr);
  CityPipeline pipe;
  CityResult two;
  {
    tbb::global_control g(tbb::global_control::max_allowed_parallelism, 2);
    auto r = pipe.run(*s_config);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    two = *r;
  }
  EXPECT_EQ(hash_rooftops(*two.rooftops), hash_rooftops(*s_city->rooftops));
  // Another level count re-runs the rooftops and the dressing only.
  CityConfig taller = *s_config;
  taller.rooftops.levels = 1;
  auto r = pipe.run(taller);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(pipe.executions("buildings"), 1U);
  EXPECT_EQ(pipe.executions("rooftops"), 2U);
  EXPECT_EQ(pipe.executions("dressing"), 2U);
  // Disabled: no rooftops, and the roofs go back to the rooftop biomes.
  CityConfig off = *s_config;
  off.rooftops.enabled = false;
  auto o = pipe.run(off);
  ASSERT_TRUE(o.ok()) << o.error().to_string();
  EXPECT_TRUE(o->rooftops->instances.empty());
  EXPECT_EQ(o->rooftops->stats.rooftops, 0U);
  const auto kRoof = static_cast<std::size_t>(dressing::ZoneKind::rooftop);
  EXPECT_GT(o->dressing->stats.zones_by_kind[kRoof],
            s_city->dressing->stats.zones_by_kind[kRoof] + s_city->rooftops->stats.rooftops / 2)
      << "tiers with a WFC rooftop get no rooftop biome zone";
}

TEST(RooftopsConfig, KeysAreCheckedAndNamed) {
  const std::string head = R"({"boundary": [[0, 0], [300, 0], [300, 300], [0, 300]],
    "zones": [{"kind": "commercial", "polygon": [[0, 0], [300, 0], [300, 300], [0, 300]]}],
    "rooftops": )";
  auto ok = parse_city_config(head + R"({"enabled": false, "cell_m": 4, "levels": 3,
      "backtrack_budget": 10, "max_restarts": 1, "min_area_m2": 60, "inset_m": 1,
      "level_m": 2.5}})",
                              "r.json");
  ASSERT_TRUE(ok.ok()) << ok.error().to_string();
  EXPECT_FALSE(ok->rooftops.enabled);
  EXPECT_DOUBLE_EQ(ok->rooftops.cell_m, 4.0);
  EXPECT_EQ(ok->rooftops.levels, 3U);
  EXPECT_EQ(ok->rooftops.backtrack_budget, 10U);
  EXPECT_NE(config_slice(*ok, "rooftops").find("\"levels\":3"), std::string::npos);
  const std::pair<const char*, const char*> bad[] = {
      {R"({"levels": 0}})", "r.json: /rooftops/levels"},
      {R"({"levels": 9}})", "r.json: /rooftops/levels"},
      {R"({"cell_m": 0.5}})", "r.json: /rooftops/cell_m"},
      {R"({"enabled": "yes"}})", "r.json: /rooftops/enabled"},
      {R"({"tiles": 3}})", "r.json: /rooftops/tiles"},
      {R"(3})", "r.json: /rooftops"},
  };
  for (const auto& [text, where] : bad) {
    auto e = parse_city_config(head + text, "r.json");
    ASSERT_FALSE(e.ok()) << text;
    EXPECT_EQ(e.error().where, where) << text << ": " << e.error().to_string();
  }
}

}  // namespace
}  // namespace cityforge::pipeline
