// SPDX-License-Identifier: Apache-2.0
// Interrupted runs: SIGINT, SIGTERM or SIGKILL at the start of every stage of a `generate
// --tiles` into a folder that holds a previous city. SIGINT and SIGTERM stop with 128 + the
// signal, say so, and leave no temporary file or folder (also after the export and the tiles,
// when every file is staged and none is in place yet); SIGKILL leaves temporaries that the
// next run removes. Either way the folder keeps its previous files, byte for byte: every file
// and the tileset go into place together at the end (StagedFiles::commit). The kill points come
// from CITYFORGE_STOP_AT=STAGE:SIGNAL (apps/cityforge/main.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_run.hpp"

namespace fs = std::filesystem;

namespace {

using namespace cityforge::clitest;

const char* kCity = R"({
  "boundary": [[0, 0], [700, 0], [700, 600], [0, 600]],
  "arteries": [{"points": [[10, 300], [690, 310]]}],
  "zones": [{"kind": "residential", "polygon": [[0, 0], [700, 0], [700, 600], [0, 600]]}],
  "crowd": {"wandering": {"paths": 2, "members": 20}}
})";

/// Every file under `dir` (relative path -> bytes), leaving out `.tmp-` / `.old-` debris.
std::map<std::string, std::string> files_of(const fs::path& dir, std::vector<std::string>* debris) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string rel = fs::relative(e.path(), dir).string();
    if (rel.find(".tmp-") != std::string::npos || rel.find(".old-") != std::string::npos) {
      if (debris) debris->push_back(rel);
      continue;
    }
    if (e.is_regular_file()) out[rel] = slurp(e.path());
  }
  return out;
}

/// The files that differ between two folders' contents, missing in one of them included ("" when
/// none): names only, never the bytes.
std::string differences(const std::map<std::string, std::string>& a,
                        const std::map<std::string, std::string>& b) {
  std::string out;
  for (const auto& [name, bytes] : a) {
    const auto it = b.find(name);
    if (it == b.end() || it->second != bytes) out += " " + name;
  }
  for (const auto& [name, bytes] : b)
    if (a.count(name) == 0U) out += " " + name;
  return out;
}

TEST(Interrupt, EveryStageAnySignalLeavesThePreviousOutputAsItWas) {
  const fs::path dir = temp_dir("interrupt");
  std::ofstream(dir / "city.json") << kCity;
  const fs::path out = dir / "out";
  const std::string run = std::string(CITYFORGE_EXE) + " generate " + (dir / "city.json").string() +
                          " -q --no-sumo --tiles -o " + out.string();
  const CliRun first = run_command(run);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const std::map<std::string, std::string> before = files_of(out, nullptr);
  ASSERT_TRUE(before.count("tiles/tileset.json") && before.count("shepherds.json"));
  std::vector<std::string> stages;
  const nlohmann::json stats = nlohmann::json::parse(before.at("stats.json"));
  for (const auto& s : stats["timings"]["stages"])
    stages.push_back(s["name"].get<std::string>());
  ASSERT_GE(stages.size(), 12U);  // The city's stages, export and tiles.
  // And once every file and the tileset are staged, none yet in place.
  stages.push_back("after-export");
  stages.push_back("after-tiles");

  for (const std::string& stage : stages) {
    for (const char* sig : {"INT", "TERM", "KILL"}) {
      SCOPED_TRACE(stage + ":" + sig);
      const CliRun r =
          run_command("CITYFORGE_STOP_AT=" + stage + ":" + sig + " " + run + " --seed 7");
      std::vector<std::string> debris;
      const std::string changed = differences(files_of(out, &debris), before);
      EXPECT_TRUE(changed.empty()) << "the previous output changed:" << changed;
      if (std::string(sig) == "KILL") {
        EXPECT_TRUE(r.exit_code == -1 || r.exit_code == 137) << r.exit_code << r.output;
      } else {
        EXPECT_EQ(r.exit_code, std::string(sig) == "INT" ? 130 : 143) << r.output;
        EXPECT_NE(r.output.find("interrupted"), std::string::npos) << r.output;
        EXPECT_TRUE(debris.empty()) << debris.size() << " temporaries left, e.g. " << debris[0];
      }
    }
  }
  // The next whole run clears what the killed ones left, and writes the new city.
  const CliRun next = run_command(run + " --seed 7");
  ASSERT_EQ(next.exit_code, 0) << next.output;
  std::vector<std::string> debris;
  const std::map<std::string, std::string> after = files_of(out, &debris);
  EXPECT_TRUE(debris.empty()) << debris.size() << " temporaries left, e.g. " << debris[0];
  EXPECT_NE(after.at("layout.geojson"), before.at("layout.geojson"));
  EXPECT_EQ(after.size(), before.size());
  fs::remove_all(dir);
}

}  // namespace
