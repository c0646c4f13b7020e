// SPDX-License-Identifier: Apache-2.0
// Runs the Khronos glTF validator (tools/gltf-validator, pinned npm package) on city.glb.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "cityforge/export/export.hpp"
#include "export/fixture.hpp"

namespace cityforge::exporter {
namespace {

namespace fs = std::filesystem;

TEST(CityGlbValidator, KhronosValidatorReportsNoErrors) {
  const fs::path tool = fs::path(CITYFORGE_SOURCE_DIR) / "tools" / "gltf-validator";
  if (!fs::exists(tool / "node_modules" / "gltf-validator")) {
    GTEST_SKIP() << "the glTF validator is not installed: run `npm ci` in " << tool.string();
  }
  auto glb = fixture::city_glb_of(fixture::small_city(), fixture::small_ground(), Config{});
  ASSERT_TRUE(glb.ok()) << glb.error().to_string();

  const fs::path dir =
      fs::temp_directory_path() / ("cityforge-validator-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / "city.glb";
  ASSERT_TRUE(write_file_atomic(file.string(), glb->data(), glb->size()).ok());

  const std::string command =
      "node '" + (tool / "validate.mjs").string() + "' '" + file.string() + "'";
  const int status = std::system(command.c_str());
  std::error_code ec;
  fs::remove_all(dir, ec);
  ASSERT_NE(status, -1) << "could not run: " << command;
  ASSERT_TRUE(WIFEXITED(status)) << command;
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << command << " (1: validator errors, 2: usage or I/O; see the summary line above)";
}

}  // namespace
}  // namespace cityforge::exporter
