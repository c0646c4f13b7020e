// SPDX-License-Identifier: Apache-2.0
// `cityforge island` through the executable: the four files, island.glb valid for the Khronos
// validator on all three grid kinds, the same seed giving the same bytes and another seed
// another island, and bad input refused with a message naming the option, exit 2 and nothing
// written; the built-in tile kit written with --write-kit and read back with --kit.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_run.hpp"

namespace fs = std::filesystem;
using namespace cityforge::clitest;

namespace {

const char* const kFiles[] = {"island.glb", "island_nav.json", "island_tiles.json",
                              "island_light.png", "stats.json"};

/// stats.json without its timings (the only part that differs between equal runs).
nlohmann::json untimed_stats(const fs::path& dir) {
  nlohmann::json j = nlohmann::json::parse(slurp(dir / "stats.json"));
  j.erase("times_ms");
  j.erase("tile_set_ms");
  j.erase("generate_ms");
  j.erase("export_ms");
  return j;
}

TEST(IslandCli, WritesAValidIsland) {
  const fs::path dir = temp_dir("island_default");
  const CliRun r = run_cli("island --seed 3 -o " + (dir / "out").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("navigable"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("stairs"), std::string::npos) << r.output;
  for (const char* f : kFiles)
    EXPECT_TRUE(fs::exists(dir / "out" / f)) << f;
  for (const auto& e : fs::directory_iterator(dir / "out")) {
    EXPECT_EQ(e.path().filename().string().find(".part-"), std::string::npos) << e.path();
  }
  const auto nav = nlohmann::json::parse(slurp(dir / "out" / "island_nav.json"));
  const auto tiles = nlohmann::json::parse(slurp(dir / "out" / "island_tiles.json"));
  const auto stats = nlohmann::json::parse(slurp(dir / "out" / "stats.json"));
  EXPECT_GT(nav["nodes"].size(), 0U);
  EXPECT_EQ(nav["nodes"].size(), stats["counts"]["navigable"].get<std::size_t>());
  EXPECT_GT(tiles["tiles"].size(), 0U);
  EXPECT_EQ(tiles["grid"]["kind"], "mixed");
  EXPECT_EQ(stats["seed"], 3);
  EXPECT_GT(stats["counts"]["triangles"].get<int>(), 0);
  if (validator_installed()) {
    const CliRun v = validate_glb(dir / "out" / "island.glb");
    EXPECT_EQ(v.exit_code, 0) << v.output;
    EXPECT_NE(v.output.find(" 0 errors"), std::string::npos) << v.output;
  }
  fs::remove_all(dir);
}

TEST(IslandCli, SameSeedSameBytesOtherSeedOtherIsland) {
  const fs::path dir = temp_dir("island_determinism");
  for (const char* name : {"a", "b"}) {
    const CliRun r = run_cli("island --seed 11 --size 5 -q -o " + (dir / name).string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(r.output.empty()) << r.output;  // -q
  }
  const CliRun c = run_cli("island --seed 12 --size 5 -q -o " + (dir / "c").string());
  ASSERT_EQ(c.exit_code, 0) << c.output;
  for (const char* f : {"island.glb", "island_nav.json", "island_tiles.json", "island_light.png"}) {
    EXPECT_EQ(slurp(dir / "a" / f), slurp(dir / "b" / f)) << f;
  }
  EXPECT_EQ(untimed_stats(dir / "a"), untimed_stats(dir / "b"));
  EXPECT_NE(slurp(dir / "a" / "island.glb"), slurp(dir / "c" / "island.glb"));
  EXPECT_NE(slurp(dir / "a" / "island_tiles.json"), slurp(dir / "c" / "island_tiles.json"));
  fs::remove_all(dir);
}

TEST(IslandCli, SquareAndTriangleGrids) {
  const fs::path dir = temp_dir("island_kinds");
  for (const char* kind : {"square", "triangle"}) {
    const fs::path out = dir / kind;
    const CliRun r =
        run_cli(std::string("island --seed 2 --size 4 --grid ") + kind + " -q -o " + out.string());
    ASSERT_EQ(r.exit_code, 0) << kind << ": " << r.output;
    const auto tiles = nlohmann::json::parse(slurp(out / "island_tiles.json"));
    EXPECT_EQ(tiles["grid"]["kind"], kind);
    EXPECT_GT(tiles["tiles"].size(), 0U) << kind;
    if (validator_installed()) {
      const CliRun v = validate_glb(out / "island.glb");
      EXPECT_EQ(v.exit_code, 0) << kind << ": " << v.output;
    }
  }
  fs::remove_all(dir);
}

TEST(IslandCli, BadInputIsRefusedAndNothingWritten) {
  const fs::path dir = temp_dir("island_bad");
  std::ofstream(dir / "a_file") << "x";
  struct Case {
    std::string args;
    std::string says;
  };
  const Case cases[] = {
      {"--grid hex", "--grid: expected mixed, square or triangle, got 'hex'"},
      {"--size 1",
       "--size: expected the island's radius in cells, a whole number in 2..24, "
       "got '1'"},
      {"--size 25", "got '25'"},
      {"--size 4.5", "got '4.5'"},
      {"--layers 0", "--layers: expected the number of layers"},
      {"--seed=-3", "--seed: expected a whole number"},
      {"--seed 18446744073709551616", "--seed: expected a whole number"},
      {"--edit 4x", "--edit: expected CELL:raise, CELL:lower or CELL:paint:COLOUR"},
      {"--edit 12:up", "got '12:up'"},
      {"--edit 12:paint:8", "COLOUR 0..7), got '12:paint:8'"},
      {"--edit 12:paint:", "got '12:paint:'"},
      {"--edit 12:raise:3", "got '12:raise:3'"},
      {"--size 3 --edit 99999:paint:1", "--edit 99999:paint:1: expected a cell of the grid"},
      {"--size 3 --edit 99999:raise", "--edit 99999:raise: expected a cell of the grid"},
  };
  for (const Case& c : cases) {
    const CliRun r = run_cli("island " + c.args + " -o " + (dir / "out").string());
    EXPECT_EQ(r.exit_code, 2) << c.args << ": " << r.output;
    EXPECT_NE(r.output.find(c.says), std::string::npos) << c.args << ": " << r.output;
    EXPECT_FALSE(fs::exists(dir / "out")) << c.args;
  }
  const CliRun no_out = run_cli("island --size 3");
  EXPECT_EQ(no_out.exit_code, 2) << no_out.output;
  EXPECT_NE(no_out.output.find("-o: expected an output folder"), std::string::npos)
      << no_out.output;
  // An output folder that cannot be made: its parent is a file.
  const CliRun r = run_cli("island --size 3 -o " + (dir / "a_file" / "out").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("cannot create the output folder"), std::string::npos) << r.output;
  std::size_t entries = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    (void)e;
    ++entries;
  }
  EXPECT_EQ(entries, 1U);  // a_file only
  fs::remove_all(dir);
}

TEST(IslandCli, TheWrittenKitReadBackMakesTheSameIsland) {
  const fs::path dir = temp_dir("island_kit");
  const CliRun w = run_cli("island --write-kit " + (dir / "kit.glb").string());
  ASSERT_EQ(w.exit_code, 0) << w.output;
  EXPECT_NE(w.output.find("wrote the built-in tile kit to"), std::string::npos) << w.output;
  ASSERT_TRUE(fs::exists(dir / "kit.glb"));
  EXPECT_FALSE(fs::exists(dir / "out"));
  const CliRun a = run_cli("island --seed 4 --size 4 -q -o " + (dir / "a").string());
  ASSERT_EQ(a.exit_code, 0) << a.output;
  const CliRun b = run_cli("island --seed 4 --size 4 -q --kit " + (dir / "kit.glb").string() +
                           " -o " + (dir / "b").string());
  ASSERT_EQ(b.exit_code, 0) << b.output;
  // The same tiles in the same cells; the meshes differ only by the kit's float coordinates.
  EXPECT_EQ(slurp(dir / "a" / "island_tiles.json"), slurp(dir / "b" / "island_tiles.json"));
  EXPECT_EQ(nlohmann::json::parse(slurp(dir / "a" / "stats.json"))["kit"], "built-in");
  EXPECT_EQ(nlohmann::json::parse(slurp(dir / "b" / "stats.json"))["kit"],
            (dir / "kit.glb").string());
  if (validator_installed()) {
    const CliRun v = validate_glb(dir / "kit.glb");
    EXPECT_EQ(v.exit_code, 0) << v.output;
  }
  fs::remove_all(dir);
}

TEST(IslandCli, ABadKitIsRefusedAndNothingWritten) {
  const fs::path dir = temp_dir("island_bad_kit");
  std::ofstream(dir / "not_a_kit.glb") << "{}";
  const fs::path mismatch =
      fs::path(CITYFORGE_SOURCE_DIR) / "tests" / "data" / "islands" / "mismatch_kit.glb";
  struct Case {
    std::string kit;
    std::string says;
  };
  const Case cases[] = {
      {(dir / "missing.glb").string(), "--kit: cannot read the tile kit"},
      {(dir / "not_a_kit.glb").string(), "not_a_kit.glb: not a glTF binary (.glb) kit"},
      {mismatch.string(), "tile 'floor_shifted' side 2: no tile's side can face it"},
  };
  for (const Case& c : cases) {
    const CliRun r = run_cli("island --kit " + c.kit + " -o " + (dir / "out").string());
    EXPECT_EQ(r.exit_code, 2) << c.kit << ": " << r.output;
    EXPECT_NE(r.output.find(c.says), std::string::npos) << c.kit << ": " << r.output;
    EXPECT_FALSE(fs::exists(dir / "out")) << c.kit;
  }
  fs::remove_all(dir);
}

TEST(IslandCli, EditsAreAppliedInOrderAndRecorded) {
  const fs::path dir = temp_dir("island_edit");
  const CliRun plain = run_cli("island --seed 5 --size 4 -q -o " + (dir / "a").string());
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  // A walkable cell of the plain island, raised.
  const auto nav = nlohmann::json::parse(slurp(dir / "a" / "island_nav.json"));
  ASSERT_GT(nav["nodes"].size(), 8U);
  // A walkable floor on layer 1 (not stairs), the last one: away from the start.
  std::string cell;
  for (const auto& n : nav["nodes"]) {
    if (n["layer"] == 1 && !n["stairs"].get<bool>()) cell = std::to_string(n["cell"].get<int>());
  }
  ASSERT_FALSE(cell.empty());
  const CliRun r =
      run_cli("island --seed 5 --size 4 --edit " + cell + ":raise -o " + (dir / "b").string());
  if (r.exit_code == 2) {
    // The one refusal an edit of a walkable cell may get: no repair within three rings.
    EXPECT_NE(r.output.find("rings"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir / "b"));
  } else {
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("edit " + cell + ":raise: "), std::string::npos) << r.output;
    const auto stats = nlohmann::json::parse(slurp(dir / "b" / "stats.json"));
    ASSERT_EQ(stats["edits"].size(), 1U);
    EXPECT_EQ(stats["edits"][0], cell + ":raise");
    EXPECT_NE(slurp(dir / "a" / "island_tiles.json"), slurp(dir / "b" / "island_tiles.json"));
    if (validator_installed()) {
      const CliRun v = validate_glb(dir / "b" / "island.glb");
      EXPECT_EQ(v.exit_code, 0) << v.output;
    }
  }
  fs::remove_all(dir);
}

}  // namespace

// --trace keeps the solver's steps in island_trace.json (named in stats.json) and changes
// nothing else; without it, a trace left by an earlier run is removed with the new files.
TEST(IslandCli, TraceKeepsTheSolversStepsAndChangesNothingElse) {
  const fs::path dir = temp_dir("island_trace");
  const CliRun traced = run_cli("island --seed 4 --size 4 --trace -q -o " + (dir / "a").string());
  ASSERT_EQ(traced.exit_code, 0) << traced.output;
  const CliRun plain = run_cli("island --seed 4 --size 4 -q -o " + (dir / "b").string());
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  EXPECT_TRUE(slurp(dir / "a" / "island.glb") == slurp(dir / "b" / "island.glb"));
  EXPECT_EQ(slurp(dir / "a" / "island_tiles.json"), slurp(dir / "b" / "island_tiles.json"));
  EXPECT_FALSE(fs::exists(dir / "b" / "island_trace.json"));
  const auto stats = nlohmann::json::parse(slurp(dir / "a" / "stats.json"));
  EXPECT_EQ(stats["trace"], "island_trace.json");
  EXPECT_FALSE(nlohmann::json::parse(slurp(dir / "b" / "stats.json")).contains("trace"));

  const auto t = nlohmann::json::parse(slurp(dir / "a" / "island_trace.json"));
  EXPECT_EQ(t["format"], "cityforge island trace");
  const long long cells = t["plane_cells"].get<long long>() * t["layers"].get<long long>();
  const auto tiles = static_cast<long long>(t["tiles"].size());
  ASSERT_GE(t["solves"].size(), 2U);  // A first pass and at least one later pass.
  int kept_first = 0;
  for (const auto& s : t["solves"]) {
    const std::string label = s["label"];
    if (label.rfind("first pass", 0) == 0) {
      kept_first += s["kept"].get<bool>() ? 1 : 0;
    } else {
      EXPECT_TRUE(s["kept"].get<bool>()) << label;
      EXPECT_FALSE(s["fixed"].empty()) << label << ": a later pass keeps the reachable columns";
    }
    std::size_t observed = 0;
    for (const auto& step : s["steps"]) {
      const int kind = step[0];
      const long long cell = step[1];
      const long long tile = step[2];
      EXPECT_TRUE(kind == 0 || kind == 2 || kind == 3 || kind == 4 || kind == 5) << label;
      EXPECT_TRUE((cell >= 0 && cell < cells) || (kind == 3 && cell == -1) || kind == 4) << label;
      if (kind == 0) {
        ++observed;
        EXPECT_TRUE(tile >= 0 && tile < tiles) << label;
      }
    }
    EXPECT_GT(observed, 0U) << label;
  }
  EXPECT_EQ(kept_first, 1);

  // The same folder made again without --trace: the stale trace goes.
  const CliRun again = run_cli("island --seed 4 --size 4 -q -o " + (dir / "a").string());
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_FALSE(fs::exists(dir / "a" / "island_trace.json"));
  fs::remove_all(dir);
}
