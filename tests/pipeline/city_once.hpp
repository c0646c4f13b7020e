// SPDX-License-Identifier: Apache-2.0
#pragma once

// Runs the whole pipeline once on an inline city JSON, with one thread, for a test suite's
// SetUpTestSuite (the suites keep the results in statics and compare other runs to them).

#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include "cityforge/pipeline/city_config.hpp"
#include "cityforge/pipeline/city_pipeline.hpp"

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

}  // namespace cityforge::pipeline
