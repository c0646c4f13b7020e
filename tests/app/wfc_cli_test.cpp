// SPDX-License-Identifier: Apache-2.0
// `cityforge wfc` through the executable: solves to JSON and glTF (the glb passes the Khronos
// validator), every solved grid satisfies the model's constraints (checked here from the JSON,
// not by the solver), pre-placed tiles stay, same seed same bytes, and bad input is refused with
// a message that names the place and nothing written.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>

#include "cityforge/wfc/wfc.hpp"
#include "cli_run.hpp"

namespace fs = std::filesystem;
using namespace cityforge::clitest;

namespace {

/// Every adjacency of a solved square grid, checked against the model's constraint list
/// (boundary sides against Empty), from the tile names the CLI wrote.
int violations(const cityforge::wfc::Model& model, const nlohmann::json& out) {
  const auto size = out["size"];
  const std::uint32_t sx = size[0], sy = size[1], sz = size[2];
  const auto& names = out["tiles"];
  std::set<std::tuple<std::uint32_t, int, std::uint32_t>> allowed;
  for (const auto& c : model.constraints)
    allowed.insert({c.key, c.label, c.adjacent});
  const auto tile_at = [&](std::uint32_t x, std::uint32_t y, std::uint32_t z) {
    return model.find(names[x + sx * (y + sy * z)].get<std::string>());
  };
  int bad = 0;
  const int dims = static_cast<int>(model.label_count / 2);
  for (std::uint32_t z = 0; z < sz; ++z) {
    for (std::uint32_t y = 0; y < sy; ++y) {
      for (std::uint32_t x = 0; x < sx; ++x) {
        const auto t = tile_at(x, y, z);
        if (t == cityforge::wfc::kNoTile) {
          ++bad;
          continue;
        }
        for (int d = 0; d < 2 * dims; ++d) {
          const int axis = d / 2;
          const int step = d % 2 == 0 ? 1 : -1;
          std::int64_t c[3] = {x, y, z};
          c[axis] += step;
          const std::int64_t lim[3] = {sx, sy, sz};
          cityforge::wfc::TileId n = model.empty;
          if (c[axis] >= 0 && c[axis] < lim[axis]) {
            n = tile_at(static_cast<std::uint32_t>(c[0]), static_cast<std::uint32_t>(c[1]),
                        static_cast<std::uint32_t>(c[2]));
          } else if (model.empty == cityforge::wfc::kNoTile) {
            continue;
          }
          if (allowed.count({t, d, n}) == 0U) ++bad;
        }
      }
    }
  }
  return bad;
}

cityforge::wfc::Model builtin(const std::string& name) {
  for (const auto& [file, text] : cityforge::wfc::builtin_model_sources()) {
    if (file == "wfc/" + name + ".json") {
      auto m = cityforge::wfc::parse_model(text, file);
      EXPECT_TRUE(m.ok()) << m.error().to_string();
      if (m) return *m;
    }
  }
  ADD_FAILURE() << "no built-in model " << name;
  return {};
}

TEST(WfcCli, SolvesAModelToJsonAndGlb) {
  const fs::path dir = temp_dir("wfc");
  const CliRun r =
      run_cli("wfc --model city_blocks --size 16,12 --seed 3 -o " + (dir / "a.json").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("0 violations"), std::string::npos) << r.output;
  const auto out = nlohmann::json::parse(slurp(dir / "a.json"));
  EXPECT_EQ(out["size"], nlohmann::json({16, 12, 1}));
  ASSERT_EQ(out["tiles"].size(), 16U * 12U);
  const cityforge::wfc::Model model = builtin("city_blocks");
  EXPECT_EQ(violations(model, out), 0);
  EXPECT_EQ(out["stats"]["cells"].get<int>(), 16 * 12);
  EXPECT_GT(out["stats"]["constraints"].get<int>(), 0);
  std::set<std::string> kinds;
  for (const auto& t : out["tiles"])
    kinds.insert(t.get<std::string>());
  EXPECT_GT(kinds.size(), 2U) << "a solve that uses one or two tiles is suspicious";

  const CliRun g =
      run_cli("wfc --model city_blocks --size 16,12 --seed 3 -q -o " + (dir / "a.glb").string());
  ASSERT_EQ(g.exit_code, 0) << g.output;
  const std::string glb = slurp(dir / "a.glb");
  ASSERT_GT(glb.size(), 100U);
  EXPECT_EQ(glb.substr(0, 4), "glTF");
  EXPECT_NE(glb.find("EXT_mesh_gpu_instancing"), std::string::npos);
  if (validator_installed()) {
    const CliRun v = validate_glb(dir / "a.glb");
    EXPECT_EQ(v.exit_code, 0) << v.output;
  }
  for (const auto& e : fs::directory_iterator(dir))
    EXPECT_EQ(e.path().string().find(".tmp"), std::string::npos) << "temp file left";
  fs::remove_all(dir);
}

TEST(WfcCli, CatStripsAreValidAndTheTraceHasEverySolveStep) {
  const fs::path dir = temp_dir("wfc_cat");
  const cityforge::wfc::Model model = builtin("cat");
  for (int seed = 1; seed <= 5; ++seed) {
    const fs::path out = dir / ("cat" + std::to_string(seed) + ".json");
    const CliRun r = run_cli("wfc --model builtin:cat --size 24 -q --seed " + std::to_string(seed) +
                             " -o " + out.string() + " --trace " + (dir / "trace.json").string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(violations(model, nlohmann::json::parse(slurp(out))), 0) << "seed " << seed;
  }
  const auto trace = nlohmann::json::parse(slurp(dir / "trace.json"));
  ASSERT_TRUE(trace["steps"].is_array());
  std::set<std::string> kinds;
  for (const auto& s : trace["steps"])
    kinds.insert(s["kind"].get<std::string>());
  EXPECT_EQ(kinds.count("observe"), 1U);
  EXPECT_EQ(kinds.count("propagate"), 1U);
  fs::remove_all(dir);
}

TEST(WfcCli, SameSeedSameBytesAndPreplacedTilesStay) {
  const fs::path dir = temp_dir("wfc_det");
  const std::string base = "wfc --model city_blocks --size 20,20 -q ";
  ASSERT_EQ(run_cli(base + "--seed 7 -o " + (dir / "a.json").string()).exit_code, 0);
  ASSERT_EQ(run_cli(base + "--seed 7 -o " + (dir / "b.json").string()).exit_code, 0);
  ASSERT_EQ(run_cli(base + "--seed 8 -o " + (dir / "c.json").string()).exit_code, 0);
  EXPECT_EQ(slurp(dir / "a.json"), slurp(dir / "b.json"));
  EXPECT_NE(slurp(dir / "a.json"), slurp(dir / "c.json"));
  ASSERT_EQ(run_cli(base + "--seed 7 -o " + (dir / "a.glb").string()).exit_code, 0);
  ASSERT_EQ(run_cli(base + "--seed 7 -o " + (dir / "b.glb").string()).exit_code, 0);
  EXPECT_EQ(slurp(dir / "a.glb"), slurp(dir / "b.glb"));
  // Pre-place the tile seed 8 put at (5, 6) into the seed 7 solve: it stays there.
  const auto c = nlohmann::json::parse(slurp(dir / "c.json"));
  const std::string tile = c["tiles"][5 + 20 * 6];
  const CliRun f =
      run_cli(base + "--seed 7 --fix 5,6=" + tile + " -o " + (dir / "f.json").string());
  ASSERT_EQ(f.exit_code, 0) << f.output;
  const auto fixed = nlohmann::json::parse(slurp(dir / "f.json"));
  EXPECT_EQ(fixed["tiles"][5 + 20 * 6], tile);
  EXPECT_EQ(violations(builtin("city_blocks"), fixed), 0);
  fs::remove_all(dir);
}

TEST(WfcCli, RooftopModelSolvesInThreeDimensionsWithItsKit) {
  const fs::path dir = temp_dir("wfc_roof");
  const CliRun r =
      run_cli("wfc --model builtin:rooftop --size 6,5,2 --seed 2 -o " + (dir / "r.glb").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string glb = slurp(dir / "r.glb");
  EXPECT_EQ(glb.substr(0, 4), "glTF");
  if (validator_installed()) {
    const CliRun v = validate_glb(dir / "r.glb");
    EXPECT_EQ(v.exit_code, 0) << v.output;
  }
  fs::remove_all(dir);
}

TEST(WfcCli, SizeOfZeroIsRefused) {
  const fs::path dir = temp_dir("wfc_zero");
  for (const char* size : {"0,4", "4,0,1", "", "4,4,4,4", "a,b"}) {
    const CliRun r = run_cli(std::string("wfc --model city_blocks --size '") + size + "' -o " +
                             (dir / "z.json").string());
    EXPECT_EQ(r.exit_code, 2) << size << ": " << r.output;
    EXPECT_NE(r.output.find("--size"), std::string::npos) << r.output;
  }
  const CliRun r = run_cli("wfc --model city_blocks --size 0,4 -o " + (dir / "z.json").string());
  EXPECT_NE(r.output.find("at least one cell"), std::string::npos) << r.output;
  // A 2D model on a 3D grid.
  const CliRun deep =
      run_cli("wfc --model city_blocks --size 4,4,3 -o " + (dir / "z.json").string());
  EXPECT_EQ(deep.exit_code, 2) << deep.output;
  EXPECT_NE(deep.output.find("2D"), std::string::npos) << deep.output;
  EXPECT_FALSE(fs::exists(dir / "z.json"));
  fs::remove_all(dir);
}

TEST(WfcCli, BadModelsAndOptionsAreNamed) {
  const fs::path dir = temp_dir("wfc_bad");
  // A tile that can never be placed: nothing may sit beside it.
  std::ofstream(dir / "lonely.json") << R"({"name": "lonely", "dimensions": 1, "empty": "empty",
    "tiles": [{"name": "empty"}, {"name": "a"}, {"name": "b"}],
    "constraints": [["a", "+x", "empty"], ["empty", "-x", "a"]]})";
  // An asymmetric constraint list.
  std::ofstream(dir / "asym.json") << R"({"name": "asym", "dimensions": 1, "empty": "empty",
    "tiles": [{"name": "empty"}, {"name": "a"}],
    "constraints": [["a", "+x", "empty"]]})";
  std::ofstream(dir / "broken.json") << R"({"name": "broken", "tiles": [)";
  const std::string out = " --size 8 -o " + (dir / "never.json").string();
  const CliRun lonely = run_cli("wfc --model " + (dir / "lonely.json").string() + out);
  EXPECT_EQ(lonely.exit_code, 2) << lonely.output;
  EXPECT_NE(lonely.output.find("lonely.json"), std::string::npos) << lonely.output;
  EXPECT_NE(lonely.output.find("never be placed"), std::string::npos) << lonely.output;
  const CliRun asym = run_cli("wfc --model " + (dir / "asym.json").string() + out);
  EXPECT_EQ(asym.exit_code, 2) << asym.output;
  EXPECT_NE(asym.output.find("asym.json"), std::string::npos) << asym.output;
  const CliRun broken = run_cli("wfc --model " + (dir / "broken.json").string() + out);
  EXPECT_EQ(broken.exit_code, 2) << broken.output;
  EXPECT_NE(broken.output.find("broken.json"), std::string::npos) << broken.output;
  const CliRun missing = run_cli("wfc --model " + (dir / "missing.json").string() + out);
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.output.find("missing.json"), std::string::npos) << missing.output;
  const CliRun unknown = run_cli("wfc --model builtin:nosuch" + out);
  EXPECT_EQ(unknown.exit_code, 2) << unknown.output;
  EXPECT_NE(unknown.output.find("city_blocks"), std::string::npos) << "lists the built-ins";
  const CliRun tile = run_cli("wfc --model cat --fix 3=dog" + out);
  EXPECT_EQ(tile.exit_code, 2) << tile.output;
  EXPECT_NE(tile.output.find("dog"), std::string::npos) << tile.output;
  const CliRun cell = run_cli("wfc --model cat --fix 9=body" + out);
  EXPECT_EQ(cell.exit_code, 2) << cell.output;
  EXPECT_NE(cell.output.find("outside the grid"), std::string::npos) << cell.output;
  // A pre-placement the constraints rule out: a cat's body at the strip's end.
  const CliRun contra = run_cli("wfc --model cat --fix 0=body" + out);
  EXPECT_EQ(contra.exit_code, 2) << contra.output;
  EXPECT_NE(contra.output.find("'body' at cell 0"), std::string::npos) << contra.output;
  const CliRun ext = run_cli("wfc --model cat --size 8 -o " + (dir / "x.txt").string());
  EXPECT_EQ(ext.exit_code, 2) << ext.output;
  EXPECT_FALSE(fs::exists(dir / "never.json"));
  fs::remove_all(dir);
}

}  // namespace
