// SPDX-License-Identifier: Apache-2.0
// sumo/city.net.xml from our plain XML with SUMO's netconvert (a child process, when installed).
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "cityforge/export/city_writer.hpp"

namespace cityforge::exporter {
namespace {

namespace fs = std::filesystem;

// Whether an executable is on PATH.
bool on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return false;
  std::string_view rest(path);
  while (!rest.empty()) {
    const auto colon = rest.find(':');
    const std::string dir(rest.substr(0, colon));
    if (!dir.empty() && access((fs::path(dir) / name).c_str(), X_OK) == 0) return true;
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return false;
}

}  // namespace

std::string convert_for_sumo(const std::string& sumo_dir_text) {
  const fs::path sumo_dir(sumo_dir_text);
  if (!on_path("netconvert")) return "netconvert not installed: sumo/city.net.xml not built";
  const fs::path tmp = sumo_dir / "city.net.xml.tmp";
  const fs::path log = sumo_dir / "netconvert.log";
  std::vector<std::string> args = {"netconvert",
                                   "--node-files",
                                   (sumo_dir / "city.nod.xml").string(),
                                   "--edge-files",
                                   (sumo_dir / "city.edg.xml").string(),
                                   "--connection-files",
                                   (sumo_dir / "city.con.xml").string(),
                                   "--tllogic-files",
                                   (sumo_dir / "city.tll.xml").string(),
                                   "--offset.disable-normalization",
                                   "true",
                                   "--no-turnarounds",
                                   "false",
                                   "--junctions.corner-detail",
                                   "5",
                                   "--tls.default-type",
                                   "static",
                                   "--log",
                                   log.string(),
                                   "-o",
                                   tmp.string()};
  std::vector<char*> argv;
  for (std::string& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // Its console output is in the log already.
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, "netconvert", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  if (spawned != 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    std::error_code ec;
    fs::remove(tmp, ec);
    return "netconvert failed (see " + log.string() + "): sumo/city.net.xml not built";
  }
  std::error_code ec;
  fs::rename(tmp, sumo_dir / "city.net.xml", ec);
  if (ec) return "cannot rename " + tmp.string() + ": " + ec.message();
  return "netconvert built sumo/city.net.xml";
}

}  // namespace cityforge::exporter
