// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "cityforge/core/atomic_file.hpp"

/// The Khronos glTF validator (tools/gltf-validator, pinned npm package) for the export tests.
namespace cityforge::exporter::testing {

/// Whether the validator is installed (`make validator`).
inline bool validator_installed() {
  return std::filesystem::exists(std::filesystem::path(CITYFORGE_SOURCE_DIR) / "tools" /
                                 "gltf-validator" / "node_modules" / "gltf-validator");
}

/// Writes `glb` to a scratch file named after `tag` and runs the validator on it: success when
/// it reports no errors (its summary line is printed either way).
inline ::testing::AssertionResult validates(const std::vector<std::uint8_t>& glb,
                                            const std::string& tag) {
  namespace fs = std::filesystem;
  const fs::path tool = fs::path(CITYFORGE_SOURCE_DIR) / "tools" / "gltf-validator";
  const fs::path dir =
      fs::temp_directory_path() / ("cityforge-" + tag + "-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / (tag + ".glb");
  if (!write_file_atomic(file.string(), glb.data(), glb.size()).ok()) {
    return ::testing::AssertionFailure() << "cannot write " << file;
  }
  const std::string command =
      "node '" + (tool / "validate.mjs").string() + "' '" + file.string() + "'";
  const int status = std::system(command.c_str());
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (status == -1 || !WIFEXITED(status)) {
    return ::testing::AssertionFailure() << "could not run: " << command;
  }
  if (WEXITSTATUS(status) != 0) {
    return ::testing::AssertionFailure()
           << command << " exited " << WEXITSTATUS(status)
           << " (1: validator errors, 2: usage or I/O; see the summary line above)";
  }
  return ::testing::AssertionSuccess();
}

}  // namespace cityforge::exporter::testing
