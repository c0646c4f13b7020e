// SPDX-License-Identifier: Apache-2.0
#include "cityforge/pipeline/run_estimate.hpp"

#include <gtest/gtest.h>

#include "cityforge/pipeline/config_file.hpp"

namespace cityforge::pipeline {
namespace {

// The estimate goes through the runs it was fitted to (README "Reliability"): a change to the
// constants or to the area shows here.
TEST(RunEstimate, GoesThroughTheMeasuredRuns) {
  Result<CityConfig> def = load_city_config_file("");
  Result<CityConfig> metro =
      load_city_config_file(CITYFORGE_SOURCE_DIR "/data/examples/metropolis-4x5km.json");
  ASSERT_TRUE(def && metro);
  const RunEstimate d = estimate_run(*def, true);
  const RunEstimate m = estimate_run(*metro, true);
  EXPECT_NEAR(d.area_km2, 4.33, 0.01);
  EXPECT_NEAR(m.area_km2, 20.325, 0.01);
  EXPECT_NEAR(d.peak_mib, 585.0, 3.0);
  EXPECT_NEAR(m.peak_mib, 2392.0, 3.0);
  EXPECT_NEAR(estimate_run(*def, false).peak_mib, 213.0, 3.0);
  EXPECT_NEAR(estimate_run(*metro, false).peak_mib, 530.0, 3.0);
  EXPECT_NEAR(m.seconds, 18.6, 0.3);
  EXPECT_NEAR(d.seconds, 3.8, 0.3);
}

}  // namespace
}  // namespace cityforge::pipeline
