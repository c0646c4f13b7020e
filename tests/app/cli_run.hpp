// SPDX-License-Identifier: Apache-2.0
#pragma once

// Running the `cityforge` executable from tests: output capture, files, scratch folders.

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace cityforge::clitest {

struct CliRun {
  int exit_code = -1;
  std::string output;  // stdout + stderr
};

/// Runs a shell command, capturing stdout and stderr together.
inline CliRun run_command(const std::string& command) {
  const std::string cmd = command + " 2>&1";
  CliRun r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), p))
    r.output += buf.data();
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

/// Runs `cityforge ARGS`.
inline CliRun run_cli(const std::string& args) {
  return run_command(std::string(CITYFORGE_EXE) + " " + args);
}

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// A fresh, empty scratch folder unique to this process.
inline std::filesystem::path temp_dir(const std::string& name) {
  const std::filesystem::path d = std::filesystem::temp_directory_path() /
                                  ("cityforge_cli_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

/// Whether the pinned Khronos validator is installed (`make validator`; `make test` does it).
inline bool validator_installed() {
  return std::filesystem::exists(std::filesystem::path(CITYFORGE_SOURCE_DIR) / "tools" /
                                 "gltf-validator" / "node_modules" / "gltf-validator");
}

/// Runs the Khronos validator on a .glb (exit 0: no errors).
inline CliRun validate_glb(const std::filesystem::path& glb) {
  const std::filesystem::path tool =
      std::filesystem::path(CITYFORGE_SOURCE_DIR) / "tools" / "gltf-validator";
  return run_command("node " + (tool / "validate.mjs").string() + " " + glb.string());
}

}  // namespace cityforge::clitest
