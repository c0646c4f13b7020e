// SPDX-License-Identifier: Apache-2.0
// End-to-end tests of the `cityforge` executable: bad inputs, determinism, outputs.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "cli_run.hpp"

namespace fs = std::filesystem;

namespace {

using namespace cityforge::clitest;

const char* kValid = R"({
  "boundary": [[0, 0], [900, 0], [900, 800], [0, 800]],
  "arteries": [{"points": [[10, 400], [890, 420]]}],
  "zones": [{"kind": "residential", "polygon": [[0, 0], [900, 0], [900, 800], [0, 800]]}],
  "layout": {"classes": {"main": {"width_m": 14}}}
})";

struct BadCase {
  const char* name;
  const char* from;  // replaced in kValid (empty: the whole text is `to`)
  const char* to;
  const char* must_say;  // the offending value or place, in the message
};

void PrintTo(const BadCase& c, std::ostream* os) { *os << c.name; }

class BadInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadInput, ClearMessageNonZeroExitNoOutput) {
  const BadCase& c = GetParam();
  const fs::path dir = temp_dir(c.name);
  std::string text = kValid;
  if (std::string(c.from).empty()) {
    text = c.to;
  } else {
    const auto at = text.find(c.from);
    ASSERT_NE(at, std::string::npos);
    text.replace(at, std::string(c.from).size(), c.to);
  }
  const fs::path cfg = dir / "bad-city.json";
  std::ofstream(cfg) << text;
  const fs::path out = dir / "out";
  const CliRun r = run_cli("generate " + cfg.string() + " -o " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("bad-city.json"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(c.must_say), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out)) << "partial output written";
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(
    Cli, BadInput,
    ::testing::Values(
        BadCase{"malformed", "\"zones\":", "\"zones\" ", "malformed JSON"},
        BadCase{"unknown_key", "\"layout\"", "\"lay_out\"", "lay_out"},
        BadCase{"missing_boundary", "\"boundary\": [[0, 0], [900, 0], [900, 800], [0, 800]],", "",
                "/boundary"},
        BadCase{"self_intersecting", "[[0, 0], [900, 0], [900, 800], [0, 800]],\n  \"arteries\"",
                "[[0, 0], [900, 800], [900, 0], [0, 800]],\n  \"arteries\"", "self-intersecting"},
        BadCase{"artery_outside", "[890, 420]", "[2890, 420]", "2890"},
        BadCase{"nan", "[890, 420]", "[NaN, 420]", "malformed JSON"},
        BadCase{"huge", "[890, 420]", "[1e12, 420]", "1e+12"},
        BadCase{"negative_width", "\"width_m\": 14", "\"width_m\": -14", "-14"},
        BadCase{"freeway_kink", "\"layout\"",
                "\"freeways\": [{\"points\": [[50, 100, 12], [400, 100, 12], [410, 140, 12], [800, "
                "140, 12]]}],"
                " \"layout\"",
                "freeways[0]"},
        BadCase{"empty_zoning",
                R"([{"kind": "residential", "polygon": [[0, 0], [900, 0], [900, 800], [0, 800]]}])",
                "[]", "zoning is empty"}),
    [](const ::testing::TestParamInfo<BadCase>& p) { return std::string(p.param.name); });

TEST(Cli, MissingConfigFileIsNamed) {
  const fs::path dir = temp_dir("missing");
  const CliRun r =
      run_cli("generate " + (dir / "nope.json").string() + " -o " + (dir / "out").string());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("nope.json"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "out"));
  fs::remove_all(dir);
}

// GEOS is loaded on first use rather than linked (start-up time): without it, every command
// stops before any work with an error naming the library and the package, and writes nothing;
// --help does not need it.
TEST(Cli, MissingGeosLibraryIsAClearErrorBeforeAnyWork) {
  const fs::path dir = temp_dir("no_geos");
  const std::string env = "CITYFORGE_GEOS_LIBRARY=" + (dir / "libgeos_c.so.1").string() + " ";
  for (const std::string command : {"generate", "island"}) {
    const CliRun r =
        run_command(env + CITYFORGE_EXE + " " + command + " -q -o " + (dir / command).string());
    EXPECT_EQ(r.exit_code, 1) << command << ": " << r.output;
    EXPECT_NE(r.output.find("cannot load " + (dir / "libgeos_c.so.1").string()), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("libgeos-c1v5"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir / command)) << command << " wrote output";
  }
  EXPECT_EQ(run_command(env + CITYFORGE_EXE + " --help").exit_code, 0);
  fs::remove_all(dir);
}

// Output to a log (not a terminal): a "running:" line per progress interval while a stage runs,
// none with -q.
TEST(Cli, ALongRunInALogIsNeverSilent) {
  const fs::path dir = temp_dir("progress");
  const CliRun r = run_command("CITYFORGE_PROGRESS_S=0.25 " + std::string(CITYFORGE_EXE) +
                               " generate --no-sumo -o " + (dir / "out").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::istringstream lines(r.output);
  int running = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("  running: ", 0) != 0) continue;
    ++running;
    EXPECT_NE(line.find(" s"), std::string::npos) << line;
    EXPECT_EQ(line.find('\r'), std::string::npos) << "a log gets whole lines";
  }
  EXPECT_GE(running, 2) << r.output;
  const CliRun quiet = run_command("CITYFORGE_PROGRESS_S=0.25 " + std::string(CITYFORGE_EXE) +
                                   " generate -q --no-sumo -o " + (dir / "out").string());
  ASSERT_EQ(quiet.exit_code, 0) << quiet.output;
  EXPECT_EQ(quiet.output.find("running:"), std::string::npos) << quiet.output;
  fs::remove_all(dir);
}

// A config far beyond the machine is refused in a second from its estimate, naming the
// boundary, the area and the ways out; --max-memory bounds the refusal too.
TEST(Cli, AConfigFarBeyondTheMemoryIsRefusedBeforeItStarts) {
  const fs::path dir = temp_dir("estimate");
  std::ofstream(dir / "huge.json") << R"({
  "boundary": [[0, 0], [50000, 0], [50000, 50000], [0, 50000]],
  "arteries": [{"points": [[100, 25000], [49900, 25100]]}],
  "zones": [{"kind": "residential", "polygon": [[0, 0], [50000, 0], [50000, 50000], [0, 50000]]}]
})";
  for (const std::string bound : {"", " --max-memory 4096"}) {
    const CliRun r = run_cli("generate " + (dir / "huge.json").string() + bound + " -o " +
                             (dir / "out").string());
    EXPECT_EQ(r.exit_code, 2) << r.output;
    for (const char* says : {"huge.json: /boundary", "2500.0 km^2", "--force", "--no-city-glb"})
      EXPECT_NE(r.output.find(says), std::string::npos) << says << " in " << r.output;
    EXPECT_FALSE(fs::exists(dir / "out"));
  }
  // The estimate of a small city is printed and passes.
  std::ofstream(dir / "small.json") << kValid;
  const CliRun small = run_cli("generate " + (dir / "small.json").string() +
                               " --no-sumo --max-memory 2048 -o " + (dir / "out").string());
  EXPECT_EQ(small.exit_code, 0) << small.output;
  EXPECT_NE(small.output.find("estimate: 0.7 km^2"), std::string::npos) << small.output;
  fs::remove_all(dir);
}

// --max-memory while running: past the bound the run stops like an interrupted one, exit 1,
// naming the bound and the stage, nothing written.
TEST(Cli, MaxMemoryStopsARunCleanly) {
  const fs::path dir = temp_dir("maxmem");
  std::ofstream(dir / "small.json") << kValid;
  const fs::path out = dir / "out";
  const CliRun refused = run_cli("generate " + (dir / "small.json").string() +
                                 " --no-sumo --max-memory 60 -o " + out.string());
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("--max-memory"), std::string::npos) << refused.output;
  const CliRun r = run_cli("generate " + (dir / "small.json").string() +
                           " --no-sumo --tiles --max-memory 60 --force -o " + out.string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("passed --max-memory 60 MiB in "), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out / "stats.json"));
  if (fs::exists(out)) {
    for (const auto& e : fs::recursive_directory_iterator(out))
      ADD_FAILURE() << "left behind: " << e.path();
  }
  fs::remove_all(dir);
}

// Huge pages for malloc (the restart in apps/cityforge/main.cpp) change where memory lies,
// never what is written: a small city with them and with CITYFORGE_HUGE_PAGES=0 is the same,
// file by file and byte by byte, stats.json up to its timings.
TEST(Cli, HugePagesChangeNoByteOfTheCity) {
  const fs::path dir = temp_dir("huge_pages");
  std::ofstream(dir / "small.json") << kSmallCommercialCity;
  const std::string args = "generate " + (dir / "small.json").string() + " -q --no-sumo -o ";
  const CliRun with = run_cli(args + (dir / "with").string());
  ASSERT_EQ(with.exit_code, 0) << with.output;
  const CliRun without = run_command("CITYFORGE_HUGE_PAGES=0 " + std::string(CITYFORGE_EXE) + " " +
                                     args + (dir / "without").string());
  ASSERT_EQ(without.exit_code, 0) << without.output;
  std::size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir / "with")) {
    if (!e.is_regular_file()) continue;
    const fs::path rel = fs::relative(e.path(), dir / "with");
    ASSERT_TRUE(fs::exists(dir / "without" / rel)) << rel;
    std::string a = slurp(e.path());
    std::string b = slurp(dir / "without" / rel);
    if (rel == "stats.json") {
      auto ja = nlohmann::json::parse(a);
      auto jb = nlohmann::json::parse(b);
      ja.erase("timings");
      jb.erase("timings");
      a = ja.dump();
      b = jb.dump();
    }
    EXPECT_TRUE(a == b) << rel << " differs";
    ++files;
  }
  EXPECT_GT(files, 10U);
  fs::remove_all(dir);
}

TEST(Cli, HelpExplainsEveryOption) {
  const CliRun top = run_cli("--help");
  EXPECT_EQ(top.exit_code, 0);
  EXPECT_NE(top.output.find("generate"), std::string::npos);
  const CliRun gen = run_cli("generate --help");
  EXPECT_EQ(gen.exit_code, 0);
  for (const char* opt : {"--out", "--seed", "--threads", "config"}) {
    EXPECT_NE(gen.output.find(opt), std::string::npos) << opt;
  }
}

// The default city at one and at two threads, generated once for every test process of the
// build (clitest::shared_city; the tests only read them): s_dir / "t1" and s_dir / "t2".
class DefaultCity : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    fs::path t1;
    fs::path t2;
    s_run1 = shared_city("default-t1", "generate --threads 1", &t1);
    s_run2 = shared_city("default-t2", kDefaultCityArgs, &t2);
    s_dir = temp_dir("default");
    fs::create_directory_symlink(t1, s_dir / "t1");
    fs::create_directory_symlink(t2, s_dir / "t2");
  }
  static void TearDownTestSuite() { fs::remove_all(s_dir); }
  static fs::path s_dir;
  static CliRun s_run1;
  static CliRun s_run2;
};
fs::path DefaultCity::s_dir;
CliRun DefaultCity::s_run1;
CliRun DefaultCity::s_run2;

TEST_F(DefaultCity, WritesAllOutputsAndASummary) {
  ASSERT_EQ(s_run1.exit_code, 0) << s_run1.output;
  for (const char* f : {"city.glb", "layout.geojson", "map.svg", "stats.json", "lanes.json",
                        "points/road_modules.ply", "points/building_modules.ply",
                        "sumo/city.nod.xml", "sumo/city.edg.xml"}) {
    EXPECT_TRUE(fs::exists(s_dir / "t1" / f)) << f;
  }
  EXPECT_NE(s_run1.output.find("km of roads"), std::string::npos);
  EXPECT_NE(s_run1.output.find("blocks"), std::string::npos);
  for (const auto& e : fs::directory_iterator(s_dir / "t1")) {
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << "temp file left";
  }
  // With SUMO installed the network is converted too (install-deps installs it).
  if (run_command("command -v netconvert").exit_code == 0) {
    EXPECT_TRUE(fs::exists(s_dir / "t1" / "sumo" / "city.net.xml")) << s_run1.output;
    EXPECT_NE(slurp(s_dir / "t1" / "sumo" / "city.net.xml").find("<tlLogic"), std::string::npos);
  }
  const auto stats = nlohmann::json::parse(slurp(s_dir / "t1" / "stats.json"));
  EXPECT_GT(stats["road_km"]["artery"].get<double>(), 3.0);
  EXPECT_GT(stats["road_km"]["main"].get<double>(), 3.0);
  EXPECT_GT(stats["road_km"]["local"].get<double>(), 10.0);
  EXPECT_GT(stats["counts"]["blocks"].get<int>(), 100);
  // How the run went is one section, last: everything before it is the same on every run.
  ASSERT_TRUE(stats["timings"]["stages"].is_array());
  EXPECT_EQ(stats["timings"]["stages"][2]["name"], "layout");
  EXPECT_GT(stats["timings"]["stages"][2]["peak_rss_mib"].get<double>(), 0.0);
  // What the outputs hold once the stage ended: never more than the peak while it ran.
  EXPECT_GT(stats["timings"]["stages"][2]["resident_mib"].get<double>(), 0.0);
  EXPECT_LE(stats["timings"]["stages"][2]["resident_mib"].get<double>(),
            stats["timings"]["stages"][2]["peak_rss_mib"].get<double>());
  EXPECT_EQ(stats["timings"]["threads"], 1);
  EXPECT_EQ(stats["timings"]["ranks"], 1);
  EXPECT_FALSE(stats.contains("threads"));
  const auto in_order = nlohmann::ordered_json::parse(slurp(s_dir / "t1" / "stats.json"));
  std::string last;
  for (auto it = in_order.begin(); it != in_order.end(); ++it)
    last = it.key();
  EXPECT_EQ(last, "timings");
  // Issue 4: buildings, floors, modules by tag, the occlusion reduction, footprints by shape.
  const auto& b = stats["buildings"];
  EXPECT_GT(b["buildings"].get<int>(), 200);
  EXPECT_GT(b["floors"].get<int>(), b["buildings"].get<int>());
  EXPECT_GT(b["instances"].get<int>(), 10 * b["buildings"].get<int>());
  EXPECT_GT(b["modules_by_tag"]["window"].get<int>(), 0);
  EXPECT_GT(b["modules_by_tag"]["entrance"].get<int>(), 0);
  EXPECT_GT(b["modules_by_tag"]["corner"].get<int>(), 0);
  EXPECT_GT(b["occlusion_reduction"].get<double>(), 0.0);
  EXPECT_LT(b["occlusion_reduction"].get<double>(), 0.6);
  int shapes_used = 0;
  for (const auto& [shape, n] : b["footprints_by_shape"].items())
    shapes_used += n.get<int>() > 0 ? 1 : 0;
  EXPECT_GE(shapes_used, 8) << b["footprints_by_shape"].dump();
  EXPECT_GT(stats["lots"]["lots"].get<int>(), stats["counts"]["blocks"].get<int>());
  EXPECT_NE(s_run1.output.find("buildings:"), std::string::npos) << s_run1.output;
  // The lots and footprints in layout.geojson and every instance in building_modules.ply.
  const auto geo = nlohmann::json::parse(slurp(s_dir / "t1" / "layout.geojson"));
  int lot_features = 0;
  int building_features = 0;
  for (const auto& f : geo["features"]) {
    const std::string layer = f["properties"]["layer"];
    lot_features += layer == "lot" ? 1 : 0;
    building_features += layer == "building" ? 1 : 0;
  }
  EXPECT_EQ(lot_features, stats["lots"]["lots"].get<int>());
  EXPECT_EQ(building_features, b["buildings"].get<int>());
  const std::string ply = slurp(s_dir / "t1" / "points" / "building_modules.ply");
  EXPECT_NE(ply.find("element vertex " + std::to_string(b["instances"].get<long long>()) + "\n"),
            std::string::npos);
  EXPECT_NE(ply.find("comment module 0 "), std::string::npos);
}

TEST_F(DefaultCity, ByteIdenticalWithOneAndTwoThreads) {
  ASSERT_EQ(s_run1.exit_code, 0) << s_run1.output;
  ASSERT_EQ(s_run2.exit_code, 0) << s_run2.output;
  for (const char* f :
       {"city.glb", "layout.geojson", "map.svg", "lanes.json", "points/road_modules.ply",
        "points/building_modules.ply", "sumo/city.nod.xml", "sumo/city.edg.xml"}) {
    const std::string a = slurp(s_dir / "t1" / f);
    EXPECT_FALSE(a.empty()) << f;
    EXPECT_TRUE(a == slurp(s_dir / "t2" / f)) << f << " differs between 1 and 2 threads";
  }
}

// Issue 10: the default city shows WFC rooftops on its flat roofs, in city.glb and stats.json.
TEST_F(DefaultCity, FlatRoofsGetWfcRooftopsInTheGlbAndStats) {
  ASSERT_EQ(s_run1.exit_code, 0) << s_run1.output;
  const auto stats = nlohmann::json::parse(slurp(s_dir / "t1" / "stats.json"));
  ASSERT_TRUE(stats.contains("rooftops")) << "stats.json has no rooftops object";
  const auto& r = stats["rooftops"];
  for (const char* key : {"rooftops", "failed", "cells", "instances", "props", "constraints",
                          "base_tiles", "variants", "backtracks"}) {
    EXPECT_TRUE(r.contains(key)) << key;
  }
  EXPECT_GT(r["rooftops"].get<int>(), 100) << r.dump();
  EXPECT_GT(r["instances"].get<int>(), r["rooftops"].get<int>());
  EXPECT_GT(r["constraints"].get<int>(), 100);
  EXPECT_GE(r["base_tiles"].get<int>(), 25);
  EXPECT_LT(r["failed"].get<int>() * 10, r["rooftops"].get<int>() + 1) << r.dump();
  EXPECT_GT(stats["instances"]["rooftop_tiles"].get<int>(), 0);
  const std::string glb = slurp(s_dir / "t1" / "city.glb");
  EXPECT_NE(glb.find("\"rooftops\""), std::string::npos);
  EXPECT_NE(glb.find("rooftops.region_"), std::string::npos);
  EXPECT_NE(glb.find(".rooftop.tank"), std::string::npos) << "water tanks on the roofs";
  EXPECT_NE(s_run1.output.find("rooftops:"), std::string::npos) << s_run1.output;
}

TEST_F(DefaultCity, AnotherSeedGivesAnotherLayout) {
  const CliRun r = run_cli("generate -o " + (s_dir / "seed2").string() + " --seed 2 -q");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(slurp(s_dir / "t1" / "layout.geojson") == slurp(s_dir / "seed2" / "layout.geojson"));
}

TEST_F(DefaultCity, GlbPassesTheKhronosValidator) {
  ASSERT_EQ(s_run1.exit_code, 0) << s_run1.output;
  const fs::path tool = fs::path(CITYFORGE_SOURCE_DIR) / "tools" / "gltf-validator";
  if (!fs::exists(tool / "node_modules" / "gltf-validator")) {
    GTEST_SKIP() << "gltf-validator not installed: run `make validator` (make test does)";
  }
  const CliRun r = run_command("node " + (tool / "validate.mjs").string() + " " +
                               (s_dir / "t1" / "city.glb").string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::printf("%s", r.output.c_str());
}

}  // namespace

namespace {

// Reads city.glb back: header, JSON chunk, and checks meshes, accessors and bounds against the
// layout the same run wrote.
TEST_F(DefaultCity, GlbReadsBackWithChunksAccessorsAndBounds) {
  ASSERT_EQ(s_run1.exit_code, 0) << s_run1.output;
  const std::string glb = slurp(s_dir / "t1" / "city.glb");
  ASSERT_GT(glb.size(), 20U);
  auto u32 = [&](std::size_t at) {
    std::uint32_t v = 0;
    std::memcpy(&v, glb.data() + at, 4);
    return v;
  };
  EXPECT_EQ(u32(0), 0x46546C67U) << "magic 'glTF'";
  EXPECT_EQ(u32(4), 2U) << "version";
  EXPECT_EQ(u32(8), glb.size()) << "length";
  const std::uint32_t json_len = u32(12);
  EXPECT_EQ(u32(16), 0x4E4F534AU) << "first chunk is JSON";
  const auto doc = nlohmann::json::parse(glb.substr(20, json_len));
  const std::uint32_t bin_len = u32(20 + json_len);
  EXPECT_EQ(u32(24 + json_len), 0x004E4942U) << "second chunk is BIN";
  EXPECT_EQ(doc["buffers"][0]["byteLength"].get<std::uint32_t>(), bin_len);

  // One chunk node per chunk mesh, named chunk_<cx>_<cy>, under the root node "city"; building
  // modules are instanced meshes under their chunk ("chunk_<cx>_<cy>.<module id>").
  const auto& nodes = doc["nodes"];
  std::size_t chunks = 0;
  std::size_t instancing = 0;
  std::set<std::size_t> chunk_meshes;
  for (const auto& n : nodes) {
    if (!n.contains("mesh")) continue;
    const std::string name = n["name"].get<std::string>();
    // Set dressing props hang under their category: props_<category>.chunk_<cx>_<cy>.<prop>;
    // WFC rooftop tiles under rooftops: rooftops.region_<rx>_<ry>.rooftop.<tile>...
    if (name.rfind("props_", 0) == 0 || name.rfind("rooftops.", 0) == 0) continue;
    EXPECT_EQ(name.rfind("chunk_", 0), 0U) << name;
    if (n.contains("extensions") && n["extensions"].contains("EXT_mesh_gpu_instancing")) {
      ++instancing;
      const auto& attrs = n["extensions"]["EXT_mesh_gpu_instancing"]["attributes"];
      for (const char* a : {"TRANSLATION", "ROTATION", "SCALE", "_BUILDING", "_FLOOR", "_ROOM"})
        EXPECT_TRUE(attrs.contains(a)) << a;
    } else {
      ++chunks;
      EXPECT_EQ(n["name"].get<std::string>().find('.'), std::string::npos);
      chunk_meshes.insert(n["mesh"].get<std::size_t>());
    }
  }
  EXPECT_EQ(chunks, chunk_meshes.size()) << "each chunk has its own mesh";
  EXPECT_GT(chunks, 300U) << "a 2x2 km city in 100 m chunks";
  EXPECT_GT(instancing, chunks) << "building modules are instanced per chunk";

  // Every primitive: POSITION with min/max, NORMAL of the same count, indices a multiple of 3.
  std::set<std::string> materials;
  double min_x = 1e300, max_x = -1e300, min_z = 1e300, max_z = -1e300;
  for (const auto& mesh : doc["meshes"]) {
    for (const auto& prim : mesh["primitives"]) {
      const auto& pos = doc["accessors"][prim["attributes"]["POSITION"].get<std::size_t>()];
      const auto& nor = doc["accessors"][prim["attributes"]["NORMAL"].get<std::size_t>()];
      const auto& idx = doc["accessors"][prim["indices"].get<std::size_t>()];
      ASSERT_TRUE(pos.contains("min") && pos.contains("max"));
      EXPECT_EQ(pos["count"], nor["count"]);
      EXPECT_EQ(idx["count"].get<std::size_t>() % 3, 0U);
      min_x = std::min(min_x, pos["min"][0].get<double>());
      max_x = std::max(max_x, pos["max"][0].get<double>());
      min_z = std::min(min_z, pos["min"][2].get<double>());
      max_z = std::max(max_z, pos["max"][2].get<double>());
      materials.insert(
          doc["materials"][prim["material"].get<std::size_t>()]["name"].get<std::string>());
    }
  }
  for (const char* m :
       {"terrain", "road_artery", "road_main", "road_local", "sidewalk", "block", "roof", "parapet",
        "brick_walkup.wall", "brick_walkup.glass", "glass_tower.glass"}) {
    EXPECT_TRUE(materials.count(m)) << m;
  }
  // The default city's boundary spans x -100..2200 and y 0..2100 (glTF z = -y), plus terrain
  // margin.
  EXPECT_LE(min_x, -100.0);
  EXPECT_GE(max_x, 2200.0);
  EXPECT_LE(min_z, -2100.0);
  EXPECT_GE(max_z, 0.0);
  EXPECT_LT(max_x - min_x, 2600.0);
}

}  // namespace

namespace {

// What a simulation reads from lanes.json: following successors and changing lanes, every
// vehicle lane of the default city can reach every other (one strongly connected component).
TEST_F(DefaultCity, LanesJsonVehicleGraphIsStronglyConnected) {
  ASSERT_EQ(s_run1.exit_code, 0) << s_run1.output;
  const auto j = nlohmann::json::parse(slurp(s_dir / "t1" / "lanes.json"));
  const auto& lanes = j["lanes"];
  const std::size_t n = lanes.size();
  std::vector<char> vehicle(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (const auto& t : lanes[i]["tags"])
      vehicle[i] |= t == "vehicle" ? 1 : 0;
  }
  std::vector<std::vector<std::size_t>> out(n), in(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!vehicle[i]) continue;
    auto link = [&](const nlohmann::json& to) {
      if (to.is_null()) return;
      const auto k = to.get<std::size_t>();
      if (k < n && vehicle[k]) {
        out[i].push_back(k);
        in[k].push_back(i);
      }
    };
    for (const auto& s : lanes[i]["successors"])
      link(s);
    link(lanes[i]["left_neighbour"]);
    link(lanes[i]["right_neighbour"]);
  }
  // Kosaraju, iterative: finish order on `out`, then components on `in`.
  std::vector<std::size_t> order;
  std::vector<char> seen(n, 0);
  for (std::size_t s = 0; s < n; ++s) {
    if (!vehicle[s] || seen[s]) continue;
    std::vector<std::pair<std::size_t, std::size_t>> stack{{s, 0}};
    seen[s] = 1;
    while (!stack.empty()) {
      auto& [v, k] = stack.back();
      if (k < out[v].size()) {
        const std::size_t w = out[v][k++];
        if (!seen[w]) {
          seen[w] = 1;
          stack.emplace_back(w, 0);
        }
      } else {
        order.push_back(v);
        stack.pop_back();
      }
    }
  }
  std::vector<char> done(n, 0);
  std::size_t largest = 0;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    if (done[*it]) continue;
    std::size_t size = 0;
    std::vector<std::size_t> stack{*it};
    done[*it] = 1;
    while (!stack.empty()) {
      const std::size_t v = stack.back();
      stack.pop_back();
      ++size;
      for (std::size_t w : in[v]) {
        if (!done[w]) {
          done[w] = 1;
          stack.push_back(w);
        }
      }
    }
    largest = std::max(largest, size);
  }
  EXPECT_GE(static_cast<double>(largest), 0.99 * static_cast<double>(order.size()))
      << largest << " of " << order.size() << " vehicle lanes in the largest component";
}

}  // namespace
