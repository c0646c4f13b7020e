// SPDX-License-Identifier: Apache-2.0
// `cityforge serve DIR --live --scenario FILE` (docs/scenarios.md) end to end: each bad input
// (an unknown key, a hazard outside the city, a start off every lane, a vehicle file with a
// negative mass) exits 2 with a message naming the file and the JSON pointer, and nothing
// listens; a good scenario is served normalised at /scenario.json with its vehicle, file name
// and hash, and the live simulation takes its weather; the three shipped scenarios check out
// against the default city.
#include "cityforge/server/scenario.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/cli_run.hpp"
#include "app/http_client.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using cityforge::clitest::get;
using cityforge::clitest::Reply;
using cityforge::clitest::run_cli;

const fs::path kFixtures = fs::path(CITYFORGE_TEST_DATA) / "scenarios";

/// The small city of the live tests (420 x 320 m), generated once into the build tree (to a
/// temporary folder, then renamed: parallel test processes never see half of one).
fs::path small_city() {
  const fs::path dir = fs::path(CITYFORGE_BINARY_DIR) / "test_cities" / "scenario_small";
  if (fs::exists(dir / "lanes.json")) return dir;
  const fs::path tmp = dir.string() + ".tmp" + std::to_string(::getpid());
  fs::create_directories(tmp);
  std::ofstream(tmp / "small.json") << cityforge::clitest::kSmallCommercialCity;
  const auto r = run_cli("generate " + (tmp / "small.json").string() + " -q --no-sumo -o " +
                         (tmp / "city").string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::error_code ec;
  fs::rename(tmp / "city", dir, ec);  // Another process may have won: fine.
  fs::remove_all(tmp);
  return dir;
}

/// A port nothing listens on right now.
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

bool listening(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

/// `cityforge serve CITY --port 0 --live [--scenario FILE]` running until SIGTERM.
class Serve {
 public:
  Serve(const fs::path& city, const std::string& scenario) {
    int out[2];
    EXPECT_EQ(::pipe(out), 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, out[0]);
    std::vector<std::string> args = {
        CITYFORGE_EXE, "serve",      city.string(), "--port",        "0",
        "--live",      "--vehicles", "20",          "--pedestrians", "20"};
    if (!scenario.empty()) {
      args.emplace_back("--scenario");
      args.push_back(scenario);
    }
    std::vector<char*> argv;
    for (std::string& a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    std::string no_viewer = "CITYFORGE_VIEWER=none";
    std::vector<char*> env = {no_viewer.data()};
    for (char** e = environ; *e != nullptr; ++e)
      if (std::string(*e).rfind("CITYFORGE_VIEWER=", 0) != 0) env.push_back(*e);
    env.push_back(nullptr);
    EXPECT_EQ(posix_spawn(&m_pid, CITYFORGE_EXE, &fa, nullptr, argv.data(), env.data()), 0);
    posix_spawn_file_actions_destroy(&fa);
    ::close(out[1]);
    m_out = ::fdopen(out[0], "r");
    char line[512] = {};
    while (std::fgets(line, sizeof line, m_out) != nullptr) {
      const std::string l = line;
      m_lines += l;
      if (l.rfind("http://127.0.0.1:", 0) == 0) m_port = std::stoi(l.substr(17));
      if (l.rfind("serving ", 0) == 0) break;
    }
    if (!scenario.empty() && std::fgets(line, sizeof line, m_out) != nullptr) m_lines += line;
  }
  ~Serve() {
    if (m_pid > 0) {
      ::kill(m_pid, SIGTERM);
      int status = 0;
      ::waitpid(m_pid, &status, 0);
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "no clean shutdown";
    }
    if (m_out) std::fclose(m_out);
  }
  Serve(const Serve&) = delete;
  Serve& operator=(const Serve&) = delete;
  int port() const { return m_port; }
  const std::string& lines() const { return m_lines; }

 private:
  pid_t m_pid = -1;
  FILE* m_out = nullptr;
  int m_port = 0;
  std::string m_lines;
};

struct BadCase {
  const char* file;
  const char* names;  ///< What the message starts with: the file (and pointer).
  const char* then;   ///< And what it says after.
};

class ScenarioBadInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(ScenarioBadInput, ExitsTwoNamingTheFileAndPointerAndNothingListens) {
  const BadCase& c = GetParam();
  const fs::path city = small_city();
  const int port = free_port();
  const std::string file = (kFixtures / c.file).string();
  const auto r = run_cli("serve " + city.string() + " --live --port " + std::to_string(port) +
                         " --scenario " + file);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  const std::string names = (kFixtures / c.names).string();
  EXPECT_NE(r.output.find("serve: " + names), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(c.then), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("http://"), std::string::npos) << "it started: " << r.output;
  EXPECT_FALSE(listening(port));
}

INSTANTIATE_TEST_SUITE_P(
    Files, ScenarioBadInput,
    ::testing::Values(
        BadCase{"unknown_key.json", "unknown_key.json: /colour:", "unknown key 'colour'"},
        BadCase{"hazard_outside.json", "hazard_outside.json: /hazards/0/at:",
                "expected a point inside the city (the lanes' bounding box"},
        BadCase{"start_off_lane.json", "start_off_lane.json: /start:",
                "expected a pose within 3 m of a vehicle lane of lanes.json, got [-500, -500]"},
        BadCase{"negative_mass.json",
                "vehicles/neg_mass.json: /body/mass_kg:", "expected a number > 0, got -1200"}),
    [](const ::testing::TestParamInfo<BadCase>& p) {
      std::string n = p.param.file;
      return n.substr(0, n.find('.'));
    });

TEST(ScenarioServe, MissingScenarioFileAndScenarioWithoutLive) {
  const fs::path city = small_city();
  auto r = run_cli("serve " + city.string() + " --live --port 0 --scenario " +
                   (kFixtures / "no_such.json").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("no_such.json"), std::string::npos) << r.output;
  r = run_cli("serve " + city.string() + " --port 0 --scenario " +
              (kFixtures / "good.json").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("needs --live"), std::string::npos) << r.output;
}

TEST(ScenarioServe, ServesTheNormalisedScenario) {
  const fs::path city = small_city();
  const fs::path file = kFixtures / "good.json";
  Serve serve(city, file.string());
  ASSERT_GT(serve.port(), 0) << serve.lines();
  EXPECT_NE(serve.lines().find("scenario: test-good"), std::string::npos) << serve.lines();
  const Reply r = get(serve.port(), "/scenario.json");
  ASSERT_EQ(r.status, 200);
  const json j = json::parse(r.body);
  EXPECT_EQ(j["name"], "test-good");
  EXPECT_EQ(j["file"], "good.json");
  EXPECT_EQ(j["file_hash"], cityforge::server::sha256_hex(cityforge::clitest::slurp(file)));
  EXPECT_EQ(j["vehicle"], "vehicles/test_car.json");
  EXPECT_EQ(j["vehicle_spec"]["name"], "test_car");
  EXPECT_EQ(j["vehicle_spec"]["body"]["mass_kg"].is_number(), true);
  // Defaults filled, the start's pose filled from its lane.
  EXPECT_EQ(j["thresholds"]["reaction_brake"], 0.1);
  EXPECT_EQ(j["thresholds"]["harsh_brake_mps2"], 5.0);
  EXPECT_EQ(j["hazards"][0]["speed_mps"], 1.5);
  EXPECT_EQ(j["hazards"][1]["trigger"]["radius_m"], 10.0);
  EXPECT_EQ(j["hazards"][2]["visibility_m"], 30.0);
  EXPECT_FALSE(j["hazards"][2].contains("at"));
  EXPECT_EQ(j["start"]["lane"], 0);
  EXPECT_TRUE(j["start"]["x"].is_number());
  EXPECT_EQ(j["weather"]["changes"][0]["kind"], "storm");
  // The live simulation runs the scenario's weather and traffic.
  const json stats = json::parse(get(serve.port(), "/live/stats").body);
  EXPECT_EQ(stats["weather"], "rain");
  EXPECT_NE(serve.lines().find("live: 50 vehicles"), std::string::npos) << serve.lines();
}

TEST(ScenarioServe, NoScenarioIs404) {
  Serve serve(small_city(), "");
  ASSERT_GT(serve.port(), 0) << serve.lines();
  EXPECT_EQ(get(serve.port(), "/scenario.json").status, 404);
}

TEST(ScenarioServe, ShippedScenariosCheckOutAgainstTheDefaultCity) {
  fs::path city;
  const auto made =
      cityforge::clitest::shared_city("default-t2", cityforge::clitest::kDefaultCityArgs, &city);
  ASSERT_EQ(made.exit_code, 0) << made.output;
  const fs::path shipped = fs::path(CITYFORGE_SOURCE_DIR) / "data" / "scenarios";
  int n = 0;
  for (const char* name : {"night-rain-downtown", "school-zone-child", "red-light-runner"}) {
    const fs::path file = shipped / (std::string(name) + ".json");
    const cityforge::Result<cityforge::server::Scenario> s =
        cityforge::server::load_scenario(file.string(), city.string());
    ASSERT_TRUE(s.ok()) << s.error().to_string();
    EXPECT_EQ(s->name, name);
    EXPECT_NE(s->start.lane, cityforge::traffic::kNoLane);
    EXPECT_FALSE(s->hazards.empty());
    EXPECT_FALSE(s->vehicle_spec.empty());
    ++n;
  }
  EXPECT_EQ(n, 3);
  // What each is about.
  const auto load = [&](const char* name) {
    return *cityforge::server::load_scenario((shipped / name).string(), city.string());
  };
  using cityforge::server::HazardKind;
  using cityforge::server::HazardTrigger;
  const auto night = load("night-rain-downtown.json");
  EXPECT_GE(night.time_of_day_h, 21.0);
  EXPECT_EQ(night.weather, cityforge::traffic::WeatherKind::rain);
  ASSERT_GE(night.weather_changes.size(), 2U);
  EXPECT_EQ(night.weather_changes.back().kind, cityforge::traffic::WeatherKind::storm);
  EXPECT_TRUE(night.weather_changes.back().fog);
  const auto school = load("school-zone-child.json");
  bool child = false;
  bool door = false;
  for (const auto& h : school.hazards) {
    child = child || (h.kind == HazardKind::pedestrian_steps_out &&
                      h.trigger.kind == HazardTrigger::Kind::distance);
    door = door || h.kind == HazardKind::door_opens;
  }
  EXPECT_TRUE(child && door);
  const auto runner = load("red-light-runner.json");
  ASSERT_EQ(runner.hazards.size(), 1U);
  EXPECT_EQ(runner.hazards[0].kind, HazardKind::red_light_runner);
  EXPECT_EQ(runner.hazards[0].trigger.kind, HazardTrigger::Kind::position);
}

}  // namespace
