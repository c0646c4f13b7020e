// SPDX-License-Identifier: Apache-2.0
#pragma once

// Runs the whole pipeline once on an inline city JSON, with one thread, for a test suite's
// SetUpTestSuite (the suites keep the results in statics and compare other runs to them).

#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <optional>

#include "cityforge/pipeline/city_config.hpp"
#include "cityforge/pipeline/city_pipeline.hpp"
#include "cityforge/pipeline/default_city.hpp"
#include "cityforge/roads/roads.hpp"

namespace cityforge::pipeline {

/// Parses `text` (named `name` in errors) and runs it; leaves both pointers null on failure
/// (after a fatal test failure naming the error). The caller deletes them.
inline void run_city_once(const char* text, const char* name, CityConfig*& config,
                          CityResult*& city) {
  auto cfg = parse_city_config(text, name);
  ASSERT_TRUE(cfg.ok()) << cfg.error().to_string();
  config = new CityConfig(*cfg);
  tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
  CityPipeline pipe;
  auto r = pipe.run(*config);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  city = new CityResult(*r);
}

/// The built-in default city through the pipeline, and its road geometry built again with the
/// default road rules (what the road acceptance tests check).
inline void default_city_geometry(CityResult& city, std::optional<roads::Output>& geo) {
  Result<CityConfig> cfg = parse_city_config(default_city_json(), "<built-in>");
  ASSERT_TRUE(cfg.ok()) << cfg.error().to_string();
  CityPipeline pipe;
  Result<CityResult> r = pipe.run(*cfg);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  city = *r;
  Result<roads::Output> g = roads::build_geometry(*city.layout, *city.terrain, roads::Config{});
  ASSERT_TRUE(g.ok()) << g.error().to_string();
  geo = std::move(*g);
}

}  // namespace cityforge::pipeline
