// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <atomic>
#include <chrono>
#include <set>
#include <thread>

#include "cityforge/pipeline/city_pipeline.hpp"
#include "cityforge/pipeline/default_city.hpp"

namespace cityforge::pipeline {
namespace {

CityConfig small_config() {
  const char* text = R"({
    "boundary": [[0, 0], [900, 0], [900, 800], [0, 800]],
    "arteries": [{"points": [[10, 400], [890, 420]]}],
    "zones": [{"kind": "residential", "polygon": [[0, 0], [900, 0], [900, 800], [0, 800]]}],
    "terrain": {"amplitude_m": 5}
  })";
  return *parse_city_config(text, "small.json");
}

TEST(CityPipeline, SecondRunAfterOneKeyChangeRerunsOnlyDownstreamStages) {
  CityPipeline pipe;
  CityConfig cfg = small_config();
  ASSERT_TRUE(pipe.run(cfg).ok());
  EXPECT_EQ(pipe.executions("terrain"), 1U);
  EXPECT_EQ(pipe.executions("layout"), 1U);

  // Same config: everything from the cache.
  Result<CityResult> again = pipe.run(cfg);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(pipe.executions("terrain"), 1U);
  EXPECT_EQ(pipe.executions("layout"), 1U);
  for (const StageStats& st : again->stages)
    EXPECT_TRUE(st.cached) << st.name;

  // A layout rule: the layout and the zoning (which checks the whole layout config) re-run.
  cfg.layout.block_long_m = 160;
  ASSERT_TRUE(pipe.run(cfg).ok());
  EXPECT_EQ(pipe.executions("terrain"), 1U);
  EXPECT_EQ(pipe.executions("zoning"), 2U);
  EXPECT_EQ(pipe.executions("layout"), 2U);

  // A terrain rule: terrain and everything downstream of it, not zoning beside it.
  cfg.terrain.amplitude_m = 9;
  ASSERT_TRUE(pipe.run(cfg).ok());
  EXPECT_EQ(pipe.executions("terrain"), 2U);
  EXPECT_EQ(pipe.executions("zoning"), 2U) << "zoning does not read the terrain";
  EXPECT_EQ(pipe.executions("layout"), 3U);

  // A zone's heights: zoning and layout, not terrain.
  cfg.inputs.zones[0].max_height_m = 30;
  ASSERT_TRUE(pipe.run(cfg).ok());
  EXPECT_EQ(pipe.executions("terrain"), 2U);
  EXPECT_EQ(pipe.executions("zoning"), 3U);
  EXPECT_EQ(pipe.executions("layout"), 4U);

  // A road rule: only the roads stage.
  cfg.roads.min_green_s = 15;
  ASSERT_TRUE(pipe.run(cfg).ok());
  EXPECT_EQ(pipe.executions("layout"), 4U);
  EXPECT_EQ(pipe.executions("roads"), 5U) << "roads ran once per run that changed anything so far";

  // An export-only setting touches no stage.
  cfg.exports.chunk_m = 250;
  ASSERT_TRUE(pipe.run(cfg).ok());
  EXPECT_EQ(pipe.executions("terrain"), 2U);
  EXPECT_EQ(pipe.executions("zoning"), 3U);
  EXPECT_EQ(pipe.executions("layout"), 4U);
  EXPECT_EQ(pipe.executions("roads"), 5U);
}

TEST(StageGraph, IndependentStagesRunInParallel) {
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 2);
  std::atomic<int> arrived{0};
  // Each of the two stages waits until the other has started: only possible if both run at
  // once. A time limit keeps a serial runner from hanging the test.
  auto rendezvous = [&](const std::vector<Value>&) -> Result<Value> {
    arrived.fetch_add(1);
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (arrived.load() < 2 && std::chrono::steady_clock::now() < until)
      std::this_thread::yield();
    return Value(std::make_shared<const int>(arrived.load()));
  };
  std::vector<StageNode> nodes = {
      {"a", 1, {}, "", rendezvous},
      {"b", 1, {}, "", rendezvous},
      {"sum", 1, {0, 1}, "", [](const std::vector<Value>& in) -> Result<Value> {
         return Value(std::make_shared<const int>(*static_cast<const int*>(in[0].get()) +
                                                  *static_cast<const int*>(in[1].get())));
       }}};
  StageCache cache;
  Result<std::vector<Value>> r = run_graph(nodes, cache, nullptr, nullptr);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*static_cast<const int*>((*r)[2].get()), 4) << "stages a and b did not overlap";
}

TEST(StageGraph, FirstErrorStopsTheRun) {
  std::vector<StageNode> nodes = {
      {"bad",
       1,
       {},
       "",
       [](const std::vector<Value>&) -> Result<Value> {
         return Error::invalid_input("x", "broken");
       }},
      {"after", 1, {0}, "", [](const std::vector<Value>&) -> Result<Value> {
         ADD_FAILURE() << "a stage downstream of a failed one ran";
         return Value(std::make_shared<const int>(0));
       }}};
  StageCache cache;
  Result<std::vector<Value>> r = run_graph(nodes, cache, nullptr, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "broken");
}

TEST(CityPipeline, DefaultCityHasAllClassesAndManyBlocks) {
  Result<CityConfig> cfg = parse_city_config(default_city_json(), "default");
  ASSERT_TRUE(cfg.ok()) << cfg.error().to_string();
  CityPipeline pipe;
  Result<CityResult> r = pipe.run(*cfg);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  std::set<layout::RoadClass> classes;
  for (const auto& e : r->layout->network.edges)
    classes.insert(e.road_class);
  EXPECT_EQ(classes.size(), 3U);
  EXPECT_GT(r->layout->blocks.size(), 100U);
  const auto km = layout::road_length_by_class(r->layout->network);
  EXPECT_GT(km[0] + km[1] + km[2], 30000.0) << "a 2x2 km grid city has tens of km of streets";
}

}  // namespace
}  // namespace cityforge::pipeline
