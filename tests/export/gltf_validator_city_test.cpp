// SPDX-License-Identifier: Apache-2.0
// Runs the Khronos glTF validator (tools/gltf-validator, pinned npm package) on city.glb.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "cityforge/export/export.hpp"
#include "export/fixture.hpp"
#include "export/validator.hpp"

namespace cityforge::exporter {
namespace {

namespace fs = std::filesystem;

TEST(CityGlbValidator, KhronosValidatorReportsNoErrors) {
  if (!testing::validator_installed()) {
    GTEST_SKIP() << "the glTF validator is not installed: run `make validator`";
  }
  auto glb = fixture::city_glb_of(fixture::small_city(), fixture::small_ground(), Config{});
  ASSERT_TRUE(glb.ok()) << glb.error().to_string();

  EXPECT_TRUE(testing::validates(*glb, "city"));
}

}  // namespace
}  // namespace cityforge::exporter
