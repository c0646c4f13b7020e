// SPDX-License-Identifier: Apache-2.0
// Traffic on the default city: the acceptance checks of the simulation (no overlaps, no red
// entries, no conflicting movements at once, flowing for an hour, deterministic at any thread
// count) and `cityforge simulate` with its bad inputs.
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "app/cli_run.hpp"
#include "cityforge/traffic/network.hpp"
#include "cityforge/traffic/recording.hpp"
#include "cityforge/traffic/traffic.hpp"
#include "traffic/continuity.hpp"

namespace fs = std::filesystem;
using namespace cityforge;
using namespace cityforge::traffic;
using clitest::run_cli;

namespace {

class TrafficCity : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // The default city made once for the build's test processes, linked into a folder of
    // this process's own (the tests simulate into it).
    s_dir = new fs::path(clitest::temp_dir("traffic"));
    const auto r = clitest::private_city("default-t2", clitest::kDefaultCityArgs, *s_dir);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    Result<LanesFile> f = load_lanes_json((*s_dir / "lanes.json").string());
    ASSERT_TRUE(f.ok()) << f.error().to_string();
    s_file = new LanesFile(std::move(*f));
  }
  static void TearDownTestSuite() {
    fs::remove_all(*s_dir);
    delete s_dir;
    delete s_file;
  }
  static Network network() {
    Result<Network> net = build_network(s_file->graph, s_file->controls);
    EXPECT_TRUE(net.ok()) << net.error().to_string();
    return std::move(*net);
  }
  static std::unique_ptr<Simulation> make(std::uint32_t vehicles, Seed seed = 7) {
    Config cfg;
    cfg.vehicles = vehicles;
    Result<std::unique_ptr<Simulation>> sim = Simulation::create(network(), cfg, {}, seed);
    EXPECT_TRUE(sim.ok()) << sim.error().to_string();
    return std::move(*sim);
  }
  static double longest_cycle_s() {
    double cycle = 0;
    for (const roads::SignalPlan& p : s_file->graph.signals)
      cycle = std::max(cycle, p.cycle_s());
    return cycle;
  }

  static fs::path* s_dir;
  static LanesFile* s_file;
};
fs::path* TrafficCity::s_dir = nullptr;
LanesFile* TrafficCity::s_file = nullptr;

// One simulated hour, 1000 vehicles, every tick audited from the components.
TEST_F(TrafficCity, OneHourWithoutOverlapsConflictsOrRedEntries) {
  auto sim = make(1000);
  const auto ticks = static_cast<int>(std::lround(3600.0 / sim->config().dt_s));
  std::uint64_t overlaps = 0;
  std::uint64_t conflicts = 0;
  std::uint64_t bad = 0;
  float min_gap = 1e9f;
  for (int t = 0; t < ticks; ++t) {
    sim->tick();
    const Audit a = audit(*sim);
    overlaps += a.overlaps;
    conflicts += a.conflicts;
    bad += a.bad_positions;
    min_gap = std::min(min_gap, a.min_gap_m);
  }
  const Stats& s = sim->stats();
  EXPECT_EQ(overlaps, 0U) << "min gap " << min_gap;
  EXPECT_GE(min_gap, -1e-3f);
  EXPECT_EQ(conflicts, 0U);
  EXPECT_EQ(bad, 0U);
  EXPECT_EQ(s.red_violations, 0U);
  // The behaviours under test actually happen.
  EXPECT_GT(s.lane_changes, 100U);
  EXPECT_GT(s.junction_entries, 10000U);
  EXPECT_GT(s.trips_completed, 100U);
  EXPECT_EQ(s.vehicles_moving, 1000U);
  EXPECT_GT(s.mean_speed_mps, 1.0);
}

// The flow criterion of the traffic issue: trips complete every minute and fewer than 1% of
// the vehicles stand for more than two signal cycles, over an hour (docs/traffic.md has the
// figures: at 1000 vehicles the worst minute holds about 0.4%).
TEST_F(TrafficCity, OneHourKeepsFlowing) {
  auto sim = make(1000);
  const auto ticks_per_minute = static_cast<int>(std::lround(60.0 / sim->config().dt_s));
  const double long_stop_s = 2.0 * longest_cycle_s();
  std::uint64_t trips_before = 0;
  std::size_t worst_long_stops = 0;
  int minutes_without_trips = 0;
  for (int minute = 0; minute < 60; ++minute) {
    for (int t = 0; t < ticks_per_minute; ++t)
      sim->tick();
    const Stats& s = sim->stats();
    if (minute >= 2 && s.trips_completed == trips_before) ++minutes_without_trips;
    trips_before = s.trips_completed;
    std::size_t long_stops = 0;
    for (const VehicleView& v : sim->vehicles())
      long_stops += v.stopped_s > long_stop_s ? 1 : 0;
    worst_long_stops = std::max(worst_long_stops, long_stops);
  }
  EXPECT_EQ(minutes_without_trips, 0) << sim->stats().trips_completed << " trips in the hour";
  EXPECT_LT(static_cast<double>(worst_long_stops), 0.01 * sim->stats().vehicles_moving)
      << "vehicles stopped for more than " << long_stop_s << " s";
}

TEST_F(TrafficCity, SameStateHashWithOneAndTwoThreadsAndAcrossRuns) {
  const auto run = [&](int threads) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                              static_cast<std::size_t>(threads));
    auto sim = make(3000, 11);
    for (int t = 0; t < 900; ++t)
      sim->tick();
    EXPECT_GT(sim->stats().lane_changes, 0U);
    return sim->state_hash();
  };
  const std::uint64_t one = run(1);
  EXPECT_EQ(one, run(2));
  EXPECT_EQ(one, run(2));
  auto other = make(3000, 12);
  for (int t = 0; t < 900; ++t)
    other->tick();
  EXPECT_NE(one, other->state_hash()) << "the seed must matter";
}

// Levels of detail as a viewer gives them: a point sweeping across the city (about 2.2 km
// square, from (0, 0)), vehicles within
// 250 m of it high, beyond off (driven at 1 s steps between lane ends). Vehicles cross the
// boundary all the time; none overlaps another, enters red or a conflicting movement, leaves
// the network or jumps, and the state is the same at 1 and 2 threads. (Clearing a junction
// cluster on red, counted apart, happens at every level: 3 in this run driven every tick.)
TEST_F(TrafficCity, LevelsOfDetailFromAMovingViewerKeepEveryInvariant) {
  const auto run = [&](int threads, bool check) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                              static_cast<std::size_t>(threads));
    auto sim = make(1500, 13);
    const std::uint32_t total = sim->stats().vehicles_moving + sim->stats().vehicles_pooled;
    std::vector<std::uint8_t> levels;
    traffic::testing::Continuity continuity;
    Audit sum;
    std::uint64_t off_updates = 0;  // Vehicle-ticks at level off.
    std::uint64_t off_now = 0;
    const int ticks = 3000;
    for (int t = 0; t < ticks; ++t) {
      if (t % 3 == 0) {  // Every 0.3 s, as the LOD assigner does every 0.25 s.
        const double u = static_cast<double>(t) / ticks;
        const Vec3 viewer{100.0 + 2000.0 * u, 1050.0 + 600.0 * std::sin(6.0 * u), 0.0};
        levels.assign(total + 64, 0);
        for (const VehicleSample& v : sim->positions()) {
          const double d = std::hypot(v.position.x - viewer.x, v.position.y - viewer.y);
          levels[v.id] = d < 250.0 ? 0 : 3;
        }
        off_now = static_cast<std::uint64_t>(std::count(levels.begin(), levels.end(), 3));
        sim->set_lod(levels);
      }
      sim->tick();
      off_updates += off_now;
      if (!check) continue;
      const Audit a = audit(*sim);
      sum.overlaps += a.overlaps;
      sum.conflicts += a.conflicts;
      sum.bad_positions += a.bad_positions;
      sum.min_gap_m = std::min(sum.min_gap_m, a.min_gap_m);
      const Stats& s = sim->stats();
      EXPECT_EQ(s.vehicles_moving + s.vehicles_pooled, total) << "tick " << t;
      // Moved on by at most a second's drive at the fastest lane's limit x the largest driver
      // factor (1.1), except arrivals (pooled, or back from the pool elsewhere).
      const auto [left_or_moved, arrivals] = continuity.step(*sim, 25.0);
      EXPECT_LE(left_or_moved, arrivals) << "tick " << t;
    }
    if (check) {
      const Stats& s = sim->stats();
      EXPECT_EQ(sum.overlaps, 0U) << "min gap " << sum.min_gap_m;
      EXPECT_EQ(sum.conflicts, 0U);
      EXPECT_EQ(sum.bad_positions, 0U);
      EXPECT_EQ(s.red_violations, 0U);
      // Off vehicles were left out of the driving model in a good share of their ticks (in
      // this city's short blocks they are often within a second's drive of a lane end or the
      // vehicle ahead, where they are driven every tick).
      const std::uint64_t skipped = s.vehicle_updates - s.vehicles_driven;
      EXPECT_GT(static_cast<double>(skipped), 0.3 * static_cast<double>(off_updates));
      EXPECT_GT(s.trips_completed, 10U);
      std::printf(
          "driven %llu of %llu vehicle updates (%llu at level off, %.1f %% of them "
          "skipped), %llu trips, %llu emergency stops\n",
          static_cast<unsigned long long>(s.vehicles_driven),
          static_cast<unsigned long long>(s.vehicle_updates),
          static_cast<unsigned long long>(off_updates),
          100.0 * static_cast<double>(skipped) / static_cast<double>(off_updates),
          static_cast<unsigned long long>(s.trips_completed),
          static_cast<unsigned long long>(s.emergency_stops));
    }
    return sim->state_hash();
  };
  const std::uint64_t one = run(1, true);
  EXPECT_EQ(one, run(2, false));
}

TEST_F(TrafficCity, VehiclesStopForAnObstacleAndGoWhenItLeaves) {
  auto sim = make(400);
  // The busiest spawn lane gets a crash half way along it.
  const Network& net = sim->network();
  LaneId lane = net.spawn_lanes.front();
  for (const LaneId l : net.spawn_lanes) {
    if (net.length_m[l] > net.length_m[lane]) lane = l;
  }
  const std::uint32_t crash = sim->add_obstacle(lane, 0.5f * net.length_m[lane], 5.0f);
  for (int t = 0; t < 1200; ++t) {
    sim->tick();
    for (const QueueEntry& e : sim->queue(lane)) {
      if (e.s_m < 0.5f * net.length_m[lane] - 5.0f) continue;
      ASSERT_LE(e.s_m, 0.5f * net.length_m[lane] - 5.0f + 1e-3f) << "drove into the crash";
    }
  }
  sim->remove_obstacle(crash);
  for (int t = 0; t < 600; ++t)
    sim->tick();
  EXPECT_EQ(audit(*sim).overlaps, 0U);
}

TEST_F(TrafficCity, CrossingPedestriansHoldTurningTraffic) {
  auto sim = make(1500);
  const Network& net = sim->network();
  // Every crosswalk busy: no vehicle may enter a connector that crosses one.
  for (LaneId l = 0; l < net.lane_count(); ++l) {
    if (net.is(l, roads::kCrosswalk)) sim->set_crosswalk_occupancy(l, 3);
  }
  for (int t = 0; t < 100; ++t)
    sim->tick();  // Vehicles already granted clear the junctions.
  std::vector<std::uint32_t> inside_before;
  for (const VehicleView& v : sim->vehicles()) {
    if (net.is(v.lane, roads::kIntersection)) inside_before.push_back(v.entity.index);
  }
  for (int t = 0; t < 300; ++t) {
    sim->tick();
    for (const VehicleView& v : sim->vehicles()) {
      if (!net.is(v.lane, roads::kIntersection) ||
          net.crosswalk_begin[v.lane] == net.crosswalk_begin[v.lane + 1]) {
        continue;
      }
      ASSERT_TRUE(std::binary_search(inside_before.begin(), inside_before.end(), v.entity.index))
          << "entity " << v.entity.index << " entered connector " << v.lane
          << " across a busy crosswalk";
    }
  }
}

class SimulateCli : public TrafficCity {};

TEST_F(SimulateCli, WritesARecordingAndSimStats) {
  const auto r =
      run_cli("simulate " + s_dir->string() + " --seconds 20 --vehicles 600 --threads 2 -q");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto stats = nlohmann::json::parse(clitest::slurp(*s_dir / "sim_stats.json"));
  for (const char* key : {"ticks", "simulated_s", "wall_s", "ticks_per_wall_s", "vehicles_moving",
                          "vehicles_parked", "vehicle_updates_per_s", "threads", "state_hash",
                          "mean_speed_mps", "stops", "trips_completed"}) {
    EXPECT_TRUE(stats.contains(key)) << key;
  }
  EXPECT_EQ(stats["ticks"], 200);
  EXPECT_EQ(stats["vehicles_moving"], 600);
  EXPECT_GT(stats["vehicles_parked"].get<int>(), 100);
  EXPECT_EQ(stats["threads"], 2);
  Result<Recording> rec = read_recording((*s_dir / "traffic.cfrec").string());
  ASSERT_TRUE(rec.ok()) << rec.error().to_string();
  EXPECT_EQ(rec->frames.size(), 201U);
  // Records: the moving vehicles, then every pedestrian (roaming ones and shepherds).
  const auto& last = rec->frames.back().vehicles;
  const auto peds =
      static_cast<std::size_t>(std::count_if(last.begin(), last.end(), [](const VehicleSample& v) {
        return v.kind == EntityKind::pedestrian;
      }));
  EXPECT_EQ(last.size() - peds, 600U);
  ASSERT_TRUE(stats.contains("crowd"));
  EXPECT_EQ(peds, stats["crowd"]["pedestrians"].get<std::size_t>());
  EXPECT_GT(stats["crowd"]["shepherd_members"].get<int>(), 0);
  EXPECT_GT(stats["crowd"]["wandering_members"].get<int>(), 0);
  EXPECT_EQ(rec->info.parked.size(), stats["vehicles_parked"].get<std::size_t>());
  EXPECT_FALSE(rec->info.signal_lanes.empty());
  EXPECT_EQ(rec->frames.back().lights.size(), rec->info.signal_lanes.size());
  // Same seed, same threads or not: same hash.
  const auto again = run_cli("simulate " + s_dir->string() +
                             " --seconds 20 --vehicles 600 --threads 1 --no-record -q");
  ASSERT_EQ(again.exit_code, 0) << again.output;
  const auto stats1 = nlohmann::json::parse(clitest::slurp(*s_dir / "sim_stats.json"));
  EXPECT_EQ(stats1["state_hash"], stats["state_hash"]);
  EXPECT_EQ(stats1["crowd"]["state_hash"], stats["crowd"]["state_hash"]);
}

// --no-lod: every vehicle high, driven every tick and recorded so, those that leave the pool
// between two updates of the levels too (they used to be off, driven once a second, until the
// next update).
// Short trips (--trip-reach-km) so that many end and their vehicles start again.
TEST_F(SimulateCli, WithoutLevelsOfDetailEveryVehicleIsHighFromItsFirstFrame) {
  const fs::path out = clitest::temp_dir("nolod");
  const auto r = run_cli("simulate " + s_dir->string() +
                         " --seconds 60 --vehicles 600 --trip-share 1 --trip-reach-km 0.4 "
                         "--pedestrians 0 --no-lod -q -o " +
                         (out / "t.cfrec").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto stats = nlohmann::json::parse(clitest::slurp(out / "sim_stats.json"));
  EXPECT_EQ(stats["trip_reach_m"].get<double>(), 400.0);
  EXPECT_GT(stats["trips_completed"].get<int>(), 50);
  // Every vehicle driven every tick (an off vehicle is driven once a second).
  EXPECT_EQ(stats["vehicles_driven"].get<std::uint64_t>(),
            stats["vehicle_updates"].get<std::uint64_t>());
  EXPECT_EQ(stats["vehicles_per_lod_max"]["off"].get<int>(), 0);
  EXPECT_EQ(stats["vehicles_per_lod_max"]["high"].get<int>(), 600);
  Result<Recording> rec = read_recording((out / "t.cfrec").string());
  ASSERT_TRUE(rec.ok()) << rec.error().to_string();
  std::size_t samples = 0;
  for (const auto& frame : rec->frames) {
    for (const VehicleSample& v : frame.vehicles) {
      if (v.kind == EntityKind::pedestrian) continue;
      ++samples;
      ASSERT_EQ(v.lod, 0) << "vehicle " << v.id << " not high at " << frame.time_s << " s";
    }
  }
  EXPECT_GT(samples, 600U * 600U);
  fs::remove_all(out);
}

TEST_F(SimulateCli, ClampsRequestsAboveTheLaneCapacity) {
  const auto r =
      run_cli("simulate " + s_dir->string() + " --seconds 1 --vehicles 1000000 --no-record -q");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("clamped"), std::string::npos) << r.output;
  const auto stats = nlohmann::json::parse(clitest::slurp(*s_dir / "sim_stats.json"));
  EXPECT_LT(stats["vehicles_moving"].get<int>(), 1000000);
  EXPECT_LE(stats["vehicles_moving"].get<int>(), stats["capacity"].get<int>());
  EXPECT_FALSE(stats["warnings"].empty());
}

// Each bad lanes.json: exit 2, a message naming the file and the place, no recording.
class SimulateBadLanes : public TrafficCity {
 protected:
  std::string run_with(const std::function<void(nlohmann::json&)>& edit, int* code) {
    const fs::path dir = clitest::temp_dir("badlanes");
    nlohmann::json j = nlohmann::json::parse(clitest::slurp(*s_dir / "lanes.json"));
    edit(j);
    std::ofstream(dir / "lanes.json") << j.dump();
    const auto r = run_cli("simulate " + dir.string() + " --seconds 1 --vehicles 10");
    *code = r.exit_code;
    EXPECT_FALSE(fs::exists(dir / "traffic.cfrec"));
    EXPECT_FALSE(fs::exists(dir / "sim_stats.json"));
    fs::remove_all(dir);
    return r.output;
  }
};

TEST_F(SimulateBadLanes, DanglingSuccessor) {
  int code = 0;
  const std::string out =
      run_with([](nlohmann::json& j) { j["lanes"][5]["successors"] = {999999}; }, &code);
  EXPECT_EQ(code, 2) << out;
  EXPECT_NE(out.find("lanes.json"), std::string::npos) << out;
  EXPECT_NE(out.find("lanes[5].successors[0]"), std::string::npos) << out;
}

TEST_F(SimulateBadLanes, ZeroLengthLane) {
  int code = 0;
  const std::string out = run_with(
      [](nlohmann::json& j) {
        auto& pts = j["lanes"][3]["points"];
        pts = nlohmann::json::array({pts[0], pts[0]});
        j["lanes"][3]["length_m"] = 0.0;
      },
      &code);
  EXPECT_EQ(code, 2) << out;
  EXPECT_NE(out.find("lanes[3]"), std::string::npos) << out;
}

TEST_F(SimulateBadLanes, ConflictingGreens) {
  // Put a crossing, non-yielding movement into a phase's greens.
  const Network net = network();
  std::size_t sig = 0;
  std::size_t phase = 0;
  LaneId add = kNoLane;
  for (sig = 0; sig < net.signals.size() && add == kNoLane; ++sig) {
    const auto& plan = net.signals[sig];
    for (phase = 0; phase < plan.phases.size() && add == kNoLane; ++phase) {
      for (const LaneId g : plan.phases[phase].green) {
        if (net.is(g, roads::kYield)) continue;
        for (std::uint32_t q = net.conflict_begin[g]; q < net.conflict_begin[g + 1]; ++q) {
          const LaneId c = net.conflicts[q];
          const auto& green = plan.phases[phase].green;
          const bool crosses = net.conflict_s[q] < net.length_m[g] - 1.0f;
          if (!net.is(c, roads::kYield) && crosses &&
              !std::binary_search(green.begin(), green.end(), c) &&
              net.succ[net.succ_begin[c]] != net.succ[net.succ_begin[g]]) {
            add = c;
            break;
          }
        }
        if (add != kNoLane) break;
      }
    }
  }
  ASSERT_NE(add, kNoLane) << "no crossing movement found to make a bad plan";
  --sig;
  --phase;
  int code = 0;
  const std::string out = run_with(
      [&](nlohmann::json& j) {
        auto& green = j["signals"][sig]["phases"][phase]["green"];
        green.push_back(add);
        std::vector<LaneId> sorted = green.get<std::vector<LaneId>>();
        std::sort(sorted.begin(), sorted.end());
        green = sorted;
      },
      &code);
  EXPECT_EQ(code, 2) << out;
  EXPECT_NE(out.find("signals[" + std::to_string(sig) + "].phases[" + std::to_string(phase) + "]"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("cross"), std::string::npos) << out;
}

TEST_F(SimulateBadLanes, NotJson) {
  const fs::path dir = clitest::temp_dir("notjson");
  std::ofstream(dir / "lanes.json") << "{\"lanes\": [";
  const auto r = run_cli("simulate " + dir.string() + " --seconds 1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("lanes.json"), std::string::npos) << r.output;
  fs::remove_all(dir);
}

}  // namespace
