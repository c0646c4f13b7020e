// SPDX-License-Identifier: Apache-2.0
// Every kind of JSON file the program reads, broken in the ways users break them by mistake (a
// number beyond double range, 100,000 nested brackets, invalid UTF-8, a cut-off file): exit 2, a
// message naming the file, the place and what was expected, and no output. A byte order mark
// is accepted. The parser itself: tests/core/json_parse_test.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "cli_run.hpp"

namespace fs = std::filesystem;

namespace {

using namespace cityforge::clitest;

const char* kCity = R"({
  "boundary": [[0, 0], [900, 0], [900, 800], [0, 800]],
  "arteries": [{"points": [[10, 400], [890, 420]]}],
  "zones": [{"kind": "residential", "polygon": [[0, 0], [900, 0], [900, 800], [0, 800]]}],
  "layout": {"classes": {"main": {"width_m": 14}}},
  "crowd": {}
})";

/// A small generated city (lanes.json, layout.geojson, shepherds.json), made once for all the
/// test processes of the build (clitest::shared_city; each case is a process of its own). The
/// config is staged and renamed into place, so a process generating never reads it half written.
const fs::path& city_dir() {
  static const fs::path dir = [] {
    const fs::path root = fs::path(CITYFORGE_BINARY_DIR) / "test-cities";
    fs::create_directories(root);
    // Named by its text: an edited kCity is another city, not a stale one.
    const std::string name = "json-inputs-" + std::to_string(std::hash<std::string>{}(kCity));
    const fs::path config = root / (name + ".json");
    const fs::path staged = root / (name + ".json." + std::to_string(::getpid()));
    std::ofstream(staged) << kCity;
    fs::rename(staged, config);
    fs::path d;
    const CliRun r = shared_city(name, "generate " + config.string() + " -q --no-sumo", &d);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return d;
  }();
  return dir;
}

/// One kind of file: its valid text, and how a run reads it from `dir` (where the test has
/// written it as `file`); `outputs` are what that run would write, none of which may appear.
struct Kind {
  const char* name;
  const char* file;
  std::function<std::string()> valid_text;
  std::function<std::string(const fs::path& dir)> command;
  std::vector<const char*> outputs;
};

std::string source_file(const char* relative) {
  return slurp(fs::path(CITYFORGE_SOURCE_DIR) / relative);
}

/// Copies the generated city's traffic and crowd files into `dir`, except `except`.
void copy_city_files(const fs::path& dir, const std::string& except) {
  for (const char* f : {"lanes.json", "layout.geojson", "shepherds.json"}) {
    if (f != except) fs::copy_file(city_dir() / f, dir / f, fs::copy_options::overwrite_existing);
  }
}

std::string simulate(const fs::path& dir, const std::string& file) {
  copy_city_files(dir, file);
  return "simulate " + dir.string() + " --seconds 1 --vehicles 10 --pedestrians 10 -q";
}

const std::vector<Kind>& kinds() {
  static const std::vector<Kind> k = {
      {"city",
       "bad.json",
       [] { return std::string(kCity); },
       [](const fs::path& dir) {
         return "generate " + (dir / "bad.json").string() + " -q --no-sumo -o " +
                (dir / "out").string();
       },
       {"out"}},
      {"style",
       "bad.json",
       [] { return source_file("data/styles/brick_walkup.json"); },
       [](const fs::path& dir) {
         return "building --style " + (dir / "bad.json").string() + " -q -o " +
                (dir / "out.glb").string();
       },
       {"out.glb"}},
      {"biome",
       "bad.json",
       [] { return source_file("data/biomes/plaza_benches.json"); },
       [](const fs::path& dir) {
         std::string city = kCity;
         city.insert(city.rfind('}'), ", \"dressing\": {\"biomes\": [\"bad.json\"]}");
         std::ofstream(dir / "city.json") << city;
         return "generate " + (dir / "city.json").string() + " -q --no-sumo -o " +
                (dir / "out").string();
       },
       {"out"}},
      {"wfc_model",
       "bad.json",
       [] { return source_file("data/wfc/city_blocks.json"); },
       [](const fs::path& dir) {
         return "wfc --model " + (dir / "bad.json").string() + " --size 6,6 -q -o " +
                (dir / "out.json").string();
       },
       {"out.json"}},
      {"lanes",
       "lanes.json",
       [] { return slurp(city_dir() / "lanes.json"); },
       [](const fs::path& dir) { return simulate(dir, "lanes.json"); },
       {"traffic.cfrec", "sim_stats.json"}},
      {"layout",
       "layout.geojson",
       [] { return slurp(city_dir() / "layout.geojson"); },
       [](const fs::path& dir) { return simulate(dir, "layout.geojson"); },
       {"traffic.cfrec", "sim_stats.json"}},
      {"shepherds",
       "shepherds.json",
       [] { return slurp(city_dir() / "shepherds.json"); },
       [](const fs::path& dir) { return simulate(dir, "shepherds.json"); },
       {"traffic.cfrec", "sim_stats.json"}},
  };
  return k;
}

/// Replaces the first number that is an object member's value with `number` (or, in a file
/// with none, adds a member with that value).
std::string with_first_number(std::string text, const std::string& number) {
  std::smatch m;
  const std::regex member(R"(:\s*(-?[0-9][0-9.eE+-]*))");
  const std::string head = text.substr(0, 1 << 20);
  if (!std::regex_search(head, m, member))
    return text.insert(text.find('{') + 1, "\"x\": " + number + ",");
  return text.replace(static_cast<std::size_t>(m.position(1)),
                      static_cast<std::size_t>(m.length(1)), number);
}

/// A way to break a file, and what the message must then say.
struct Break {
  const char* name;
  std::function<std::string(const std::string&)> edit;
  std::vector<const char*> must_say;
};

const std::vector<Break>& breaks() {
  static const std::vector<Break> b = {
      {"overflow",
       [](const std::string& t) { return with_first_number(t, "1e400"); },
       {"1e400", ": /", "beyond the range of a double"}},
      {"negative_overflow",
       [](const std::string& t) { return with_first_number(t, "-1e400"); },
       {"-1e400", ": /", "beyond the range of a double"}},
      {"deep_nesting",
       [](const std::string&) { return std::string(100000, '[') + std::string(100000, ']'); },
       {":1:257", "nested deeper than 256 levels"}},
      {"invalid_utf8",
       [](const std::string& t) {
         std::string s = t;
         s.insert(s.find('"') + 1, "\xC3(");
         return s;
       },
       {"invalid UTF-8", "0xC3", "expected a UTF-8 text"}},
      {"truncated",
       [](const std::string& t) { return t.substr(0, t.size() / 2); },
       {"malformed JSON"}},
  };
  return b;
}

struct Case {
  std::size_t kind;
  std::size_t broken;  // index into breaks(), or breaks().size() for "a byte order mark"
};

std::string case_name(const Case& c) {
  return std::string(kinds()[c.kind].name) + "_" +
         (c.broken < breaks().size() ? breaks()[c.broken].name : "byte_order_mark");
}

void PrintTo(const Case& c, std::ostream* os) { *os << case_name(c); }

std::vector<Case> all_cases() {
  std::vector<Case> out;
  for (std::size_t k = 0; k < kinds().size(); ++k) {
    for (std::size_t b = 0; b <= breaks().size(); ++b)
      out.push_back({k, b});
  }
  return out;
}

class JsonInput : public ::testing::TestWithParam<Case> {};

TEST_P(JsonInput, BrokenFilesExitTwoNamingFilePlaceAndReasonWithNoOutput) {
  const Kind& kind = kinds()[GetParam().kind];
  const bool bom = GetParam().broken == breaks().size();
  const fs::path dir = temp_dir("json_input_" + case_name(GetParam()));
  const std::string valid = kind.valid_text();
  ASSERT_FALSE(valid.empty());
  const std::string text = bom ? "\xEF\xBB\xBF" + valid : breaks()[GetParam().broken].edit(valid);
  ASSERT_NE(text, valid);
  std::ofstream(dir / kind.file, std::ios::binary) << text;
  const CliRun r = run_cli(kind.command(dir));
  if (bom) {
    EXPECT_EQ(r.exit_code, 0) << r.output;
  } else {
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find((dir / kind.file).string()), std::string::npos) << r.output;
    for (const char* s : breaks()[GetParam().broken].must_say)
      EXPECT_NE(r.output.find(s), std::string::npos) << "expected '" << s << "' in: " << r.output;
    for (const char* out : kind.outputs)
      EXPECT_FALSE(fs::exists(dir / out)) << out << " written by a run that failed";
  }
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(EveryKind, JsonInput, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<Case>& p) {
                           return case_name(p.param);
                         });

TEST(JsonInputs, AHandWrittenFileLongerThanTheLimitIsRefusedBeforeItIsRead) {
  const fs::path dir = temp_dir("json_input_too_long");
  {
    std::ofstream f(dir / "bad.json", std::ios::binary);
    f << kCity;
    f << std::string((std::size_t{64} << 20) + 1, ' ');
  }
  const CliRun r =
      run_cli("generate " + (dir / "bad.json").string() + " -q -o " + (dir / "out").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("bad.json"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("expected at most 67108864 bytes"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "out"));
  fs::remove_all(dir);
}

}  // namespace
