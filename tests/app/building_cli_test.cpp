// SPDX-License-Identifier: Apache-2.0
// `cityforge building` (one building for iterating on a style) and bad building definition
// files, end to end through the executable.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_run.hpp"

namespace fs = std::filesystem;

namespace {

using namespace cityforge::clitest;

CliRun run(const std::string& args) { return cityforge::clitest::run_cli(args); }

const fs::path kStyles = fs::path(CITYFORGE_SOURCE_DIR) / "data" / "styles";

CliRun validate(const fs::path& glb) { return cityforge::clitest::validate_glb(glb); }

TEST(BuildingCli, EveryBuiltInStyleMakesAValidBuilding) {
  const fs::path dir = temp_dir("styles");
  struct Case {
    const char* style;
    const char* footprint;
    const char* size;
    const char* height;
    const char* massing;
  };
  for (const Case& c : {Case{"brick_walkup", "l_shape", "24x18", "16", "plain"},
                        Case{"glass_tower", "chamfered", "36x30", "120", "staggered"},
                        Case{"art_deco", "rectangle", "34x28", "90", "staggered"},
                        Case{"industrial", "rectangle", "40x30", "12", "plain"}}) {
    const fs::path out = dir / (std::string(c.style) + ".glb");
    const CliRun r = run(std::string("building --style ") + c.style + " --footprint " +
                         c.footprint + " --size " + c.size + " --height " + c.height +
                         " --massing " + c.massing + " -o " + out.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("module instances"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("entrance"), std::string::npos) << r.output;
    ASSERT_TRUE(fs::exists(out));
    EXPECT_EQ(slurp(out).substr(0, 4), "glTF");
    if (validator_installed()) {
      const CliRun v = validate(out);
      EXPECT_EQ(v.exit_code, 0) << c.style << ": " << v.output;
    }
  }
  fs::remove_all(dir);
}

TEST(BuildingCli, SameInputsSameBytes) {
  const fs::path dir = temp_dir("same");
  const std::string args =
      "building --style art_deco --footprint u_shape --size 30x24 --height 60 ";
  ASSERT_EQ(run(args + "-o " + (dir / "a.glb").string()).exit_code, 0);
  ASSERT_EQ(run(args + "-o " + (dir / "b.glb").string()).exit_code, 0);
  EXPECT_TRUE(slurp(dir / "a.glb") == slurp(dir / "b.glb"));
  fs::remove_all(dir);
}

TEST(BuildingCli, BadOptionsAreNamed) {
  const fs::path dir = temp_dir("opts");
  const fs::path out = dir / "b.glb";
  struct Case {
    const char* args;
    const char* says;
  };
  for (const Case& c : {Case{"--style gothic", "--style"}, Case{"--footprint blob", "--footprint"},
                        Case{"--size 20", "--size"}, Case{"--height 1", "--height"},
                        Case{"--massing wobbly", "--massing"}}) {
    const CliRun r = run(std::string("building ") + c.args + " -o " + out.string());
    EXPECT_EQ(r.exit_code, 2) << c.args << ": " << r.output;
    EXPECT_NE(r.output.find(c.says), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(out)) << c.args;
  }
  fs::remove_all(dir);
}

// A bad BDF, given to `cityforge building` and to `cityforge generate` through a city config:
// exit 2, the message names the file and the place, nothing is written.
struct BadStyle {
  const char* name;
  const char* from;  // replaced in brick_walkup.json
  const char* to;
  const char* must_say;
};
void PrintTo(const BadStyle& c, std::ostream* os) { *os << c.name; }

class BadStyleFile : public ::testing::TestWithParam<BadStyle> {};

TEST_P(BadStyleFile, ClearMessageNamingFileAndPlace) {
  const BadStyle& c = GetParam();
  const fs::path dir = temp_dir(c.name);
  std::string text = slurp(kStyles / "brick_walkup.json");
  ASSERT_FALSE(text.empty());
  const auto at = text.find(c.from);
  ASSERT_NE(at, std::string::npos) << c.from;
  text.replace(at, std::string(c.from).size(), c.to);
  const fs::path style = dir / "bad-style.json";
  std::ofstream(style) << text;
  const fs::path out = dir / "b.glb";
  const CliRun r = run("building --style " + style.string() + " -o " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("bad-style.json"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(c.must_say), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out));
  // The same file through a city config.
  const fs::path city = dir / "city.json";
  std::ofstream(city) << R"({
  "boundary": [[0, 0], [600, 0], [600, 500], [0, 500]],
  "arteries": [{"points": [[10, 250], [590, 260]]}],
  "zones": [{"kind": "residential", "polygon": [[0, 0], [600, 0], [600, 500], [0, 500]]}],
  "buildings": {"styles": ["bad-style.json"]}
})";
  const CliRun g = run("generate " + city.string() + " -q --no-sumo -o " + (dir / "out").string());
  EXPECT_EQ(g.exit_code, 2) << g.output;
  EXPECT_NE(g.output.find("bad-style.json"), std::string::npos) << g.output;
  EXPECT_NE(g.output.find(c.must_say), std::string::npos) << g.output;
  EXPECT_FALSE(fs::exists(dir / "out"));
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(
    Cli, BadStyleFile,
    ::testing::Values(BadStyle{"unknown_key", "\"weight\"", "\"wieght\"", "wieght"},
                      BadStyle{"unbalanced", "\"w|*D|w\"", "\"w|(*D|w\"", "column"},
                      BadStyle{"unknown_module", "\"*W\"", "\"*W|Q\"", "'Q'"},
                      BadStyle{"zero_width", "\"width_m\": 0.6", "\"width_m\": 0",
                               "/modules/C/width_m"}),
    [](const ::testing::TestParamInfo<BadStyle>& p) { return std::string(p.param.name); });

TEST(BuildingCli, StyleWallNoLotCanMeetIsNamed) {
  const fs::path dir = temp_dir("minwall");
  std::string text = slurp(kStyles / "brick_walkup.json");
  const auto at = text.find("\"min_wall_m\": 4");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::string("\"min_wall_m\": 4").size(), "\"min_wall_m\": 400");
  std::ofstream(dir / "wide-walls.json") << text;
  std::ofstream(dir / "city.json") << R"({
  "boundary": [[0, 0], [600, 0], [600, 500], [0, 500]],
  "arteries": [{"points": [[10, 250], [590, 260]]}],
  "zones": [{"kind": "residential", "polygon": [[0, 0], [600, 0], [600, 500], [0, 500]]}],
  "buildings": {"styles": ["wide-walls.json"]}
})";
  const CliRun g = run("generate " + (dir / "city.json").string() + " -q --no-sumo -o " +
                       (dir / "out").string());
  EXPECT_EQ(g.exit_code, 2) << g.output;
  EXPECT_NE(g.output.find("wide-walls.json"), std::string::npos) << g.output;
  EXPECT_NE(g.output.find("min_wall_m"), std::string::npos) << g.output;
  EXPECT_FALSE(fs::exists(dir / "out"));
  fs::remove_all(dir);
}

}  // namespace
