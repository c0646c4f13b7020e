// SPDX-License-Identifier: Apache-2.0
#pragma once

// Running the `cityforge` executable from tests: output capture, files, scratch folders.

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
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

/// `mpirun -np N ` with what Open MPI needs here (CI runs as root on 2 cores).
inline std::string mpirun(int np) {
  static const bool open_mpi =
      run_command("mpirun --version").output.find("Open MPI") != std::string::npos;
  std::string cmd = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun ";
  if (open_mpi) cmd += "--oversubscribe ";
  return cmd + "-np " + std::to_string(np) + " ";
}

/// Why MPI cannot be tested here, or "" when it can.
inline std::string no_mpi() {
#ifndef CITYFORGE_TEST_MPI
  return "this build has no MPI (install libopenmpi-dev and reconfigure)";
#else
  if (run_command("mpirun --version").exit_code != 0) return "mpirun is not on PATH";
  return "";
#endif
}

/// A fresh, empty scratch folder unique to this process.
inline std::filesystem::path temp_dir(const std::string& name) {
  const std::filesystem::path d = std::filesystem::temp_directory_path() /
                                  ("cityforge_cli_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

/// A small commercial city (420 x 320 m, one artery, a park in a corner): every style's modules,
/// props and rooftops in a few seconds, for the tests of what city.glb holds.
inline const char* const kSmallCommercialCity = R"({
  "boundary": [[0, 0], [420, 0], [420, 320], [0, 320]],
  "arteries": [{"points": [[10, 160], [410, 170]]}],
  "zones": [{"kind": "commercial", "polygon": [[0, 0], [420, 0], [420, 320], [0, 320]],
             "height_m": [10, 24]},
            {"kind": "park", "polygon": [[300, 200], [420, 200], [420, 320], [300, 320]]}]
})";

/// The default city with its tileset, as the Tiles and MPI tests share it.
inline const char* const kDefaultTilesArgs = "generate -q --no-sumo --tiles --threads 2";

/// A city made once for all the test processes of a build: `cityforge ARGS -o DIR` with DIR =
/// BINARY_DIR/test-cities/NAME, kept while the executable and ARGS stay the same (a stamp file
/// next to it). Processes that ask at the same time wait for the first (a file lock). Tests
/// only read it. Returns the run that made it (its output is kept beside it too).
inline CliRun shared_city(const std::string& name, const std::string& args,
                          std::filesystem::path* dir) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(CITYFORGE_BINARY_DIR) / "test-cities";
  fs::create_directories(root);
  *dir = root / name;
  const int lock = ::open((root / (name + ".lock")).c_str(), O_CREAT | O_RDWR, 0644);
  if (lock >= 0) ::flock(lock, LOCK_EX);
  struct stat exe {};
  ::stat(CITYFORGE_EXE, &exe);
  const std::string stamp = args + "\n" + std::to_string(exe.st_mtim.tv_sec) + "." +
                            std::to_string(exe.st_mtim.tv_nsec) + " " +
                            std::to_string(exe.st_size) + "\n";
  const fs::path stamp_file = root / (name + ".stamp");
  const fs::path output_file = root / (name + ".output");
  CliRun r;
  if (fs::exists(stamp_file) && slurp(stamp_file) == stamp) {
    r.exit_code = 0;
    r.output = slurp(output_file);
  } else {
    fs::remove(stamp_file);
    fs::remove_all(*dir);
    r = run_cli(args + " -o " + dir->string());
    std::ofstream(output_file, std::ios::binary) << r.output;
    if (r.exit_code == 0) std::ofstream(stamp_file, std::ios::binary) << stamp;
  }
  if (lock >= 0) ::close(lock);
  return r;
}

/// The default city as cli_test makes it (two threads, SUMO files included), shared.
inline const char* const kDefaultCityArgs = "generate --threads 2";

/// A private copy of a shared city (shared_city(name, args)) in `dest`, for tests that write
/// into the city's folder (simulate puts its recording and sim_stats.json there): its files
/// hard-linked, so copying costs nothing, or symbolically linked where hard links fail (a
/// temporary folder on another file system). A link is never written through: every writer of
/// ours stages a file and renames it over the old one (write_file_atomic, the recording), which
/// replaces the link, not the shared file.
inline CliRun private_city(const std::string& name, const std::string& args,
                           const std::filesystem::path& dest) {
  namespace fs = std::filesystem;
  fs::path shared;
  CliRun r = shared_city(name, args, &shared);
  if (r.exit_code != 0) return r;
  fs::remove_all(dest);
  std::error_code ec;
  fs::copy(shared, dest, fs::copy_options::recursive | fs::copy_options::create_hard_links, ec);
  if (ec) {
    // fs::copy makes no symbolic links to folders: the tree made here, a link per file.
    fs::remove_all(dest);
    ec.clear();
    fs::create_directories(dest, ec);
    for (fs::recursive_directory_iterator it(shared, ec), end; !ec && it != end; it.increment(ec)) {
      const fs::path to = dest / fs::relative(it->path(), shared);
      if (it->is_directory()) {
        fs::create_directories(to, ec);
      } else {
        fs::create_symlink(fs::absolute(it->path()), to, ec);
      }
    }
  }
  if (ec) {
    r.exit_code = 1;
    r.output += "\ncopying " + shared.string() + " to " + dest.string() + ": " + ec.message();
  }
  return r;
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
