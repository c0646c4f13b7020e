// SPDX-License-Identifier: Apache-2.0
// Set dressing through the executable: the point clouds, stats, and the three ways of writing
// instances (ext, nodes, bake), each passing the Khronos validator.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_run.hpp"

namespace fs = std::filesystem;
using namespace cityforge::clitest;

namespace {

TEST(DressingCli, EveryInstanceModeWritesAValidCity) {
  const fs::path dir = temp_dir("dress");
  std::ofstream(dir / "small.json") << kSmallCommercialCity;
  for (const char* mode : {"ext", "nodes", "bake"}) {
    const fs::path out = dir / mode;
    const CliRun r = run_cli("generate " + (dir / "small.json").string() + " -q --no-sumo -o " +
                             out.string() + " --instances " + mode);
    ASSERT_EQ(r.exit_code, 0) << mode << ": " << r.output;
    const std::string glb = slurp(out / "city.glb");
    ASSERT_GT(glb.size(), 1000U);
    const bool has_ext = glb.find("EXT_mesh_gpu_instancing") != std::string::npos;
    EXPECT_EQ(has_ext, std::string(mode) == "ext") << mode;
    EXPECT_NE(glb.find("props_lighting"), std::string::npos) << mode << ": category node";
    if (validator_installed()) {
      const CliRun v = validate_glb(out / "city.glb");
      EXPECT_EQ(v.exit_code, 0) << mode << ": " << v.output;
    }
  }
  // The point clouds and the stats of the ext run.
  const fs::path ext = dir / "ext";
  for (const char* f : {"points/parking_spots.ply", "points/audio.ply",
                        "points/props/street_light.ply", "points/props/sidewalk_tile.ply"}) {
    EXPECT_TRUE(fs::exists(ext / f)) << f;
  }
  const auto stats = nlohmann::json::parse(slurp(ext / "stats.json"));
  const auto& d = stats["dressing"];
  EXPECT_GT(d["items"].get<int>(), 1000);
  EXPECT_GT(d["by_prop"]["street_light"].get<int>(), 10);
  EXPECT_GT(d["furnished_sidewalk_km"].get<double>(), 1.0);
  EXPECT_GT(d["audio_points"].get<int>(), 1000);
  EXPECT_EQ(stats["instances"]["total"].get<long long>(),
            stats["instances"]["building_modules"].get<long long>() +
                stats["instances"]["props"].get<long long>() +
                stats["instances"]["road_modules"].get<long long>() +
                stats["instances"]["rooftop_tiles"].get<long long>());
  fs::remove_all(dir);
}

TEST(DressingCli, UnknownInstanceModeIsRefused) {
  const CliRun r = run_cli("generate -q --no-sumo -o /tmp/never_written --instances copies");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("--instances"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists("/tmp/never_written"));
}

}  // namespace
