// SPDX-License-Identifier: Apache-2.0
// `mpirun -np N cityforge generate|import ... --tiles` (issue 23): every file is the same, byte
// for byte, for N = 1..4 and for the run without mpirun (stats.json up to its "timings"); a rank
// that fails or is killed stops the job with a clear message and no tileset; commands that do
// not share work refuse an MPI launcher. Skipped where the build has no MPI or mpirun is absent.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "app/cli_run.hpp"

namespace cityforge {
namespace {

namespace fs = std::filesystem;
using clitest::CliRun;
using clitest::mpirun;
using clitest::no_mpi;
using clitest::run_cli;
using clitest::run_command;
using clitest::shared_city;
using clitest::slurp;
using clitest::temp_dir;

/// Every file under `dir` by its path: its bytes, except stats.json without "timings".
std::map<std::string, std::string> files_of(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    const std::string rel = fs::relative(e.path(), dir).string();
    std::string bytes = slurp(e.path());
    if (rel == "stats.json") {
      nlohmann::ordered_json j = nlohmann::ordered_json::parse(bytes);
      j.erase("timings");
      bytes = j.dump(2);
    }
    out[rel] = std::move(bytes);
  }
  return out;
}

/// The files that differ between two folders (missing on one side included).
std::string differences(const std::map<std::string, std::string>& a,
                        const std::map<std::string, std::string>& b) {
  std::string out;
  for (const auto& [path, bytes] : a) {
    const auto it = b.find(path);
    if (it == b.end()) {
      out += " missing:" + path;
    } else if (it->second != bytes) {
      out += " differs:" + path;
    }
  }
  for (const auto& [path, bytes] : b) {
    if (!a.count(path)) out += " extra:" + path;
  }
  return out;
}

int timings_ranks(const fs::path& dir) {
  return nlohmann::json::parse(slurp(dir / "stats.json"))["timings"]["ranks"].get<int>();
}

TEST(Mpi, DefaultCityIsTheSameOnOneToFourRanks) {
  if (const std::string why = no_mpi(); !why.empty()) GTEST_SKIP() << why;
  fs::path ref;
  const CliRun made = shared_city("default-tiles", clitest::kDefaultTilesArgs, &ref);
  ASSERT_EQ(made.exit_code, 0) << made.output;
  const auto expected = files_of(ref);
  ASSERT_GT(expected.size(), 50U);
  ASSERT_TRUE(expected.count("tiles/tileset.json"));
  const fs::path dir = temp_dir("mpi_default");
  for (int np = 1; np <= 4; ++np) {
    const fs::path out = dir / ("np" + std::to_string(np));
    const CliRun r = run_command(mpirun(np) + CITYFORGE_EXE +
                                 " generate -q --no-sumo --tiles --threads 1 -o " + out.string());
    ASSERT_EQ(r.exit_code, 0) << "np " << np << ": " << r.output;
    EXPECT_EQ(differences(expected, files_of(out)), "") << "np " << np;
    EXPECT_EQ(timings_ranks(out), np);
    fs::remove_all(out);
  }
  fs::remove_all(dir);
}

TEST(Mpi, ImportedPlaceIsTheSameOnOneToFourRanks) {
  if (const std::string why = no_mpi(); !why.empty()) GTEST_SKIP() << why;
  const std::string args = std::string(" import ") + CITYFORGE_TEST_DATA +
                           "/osm/andorra.osm.pbf --dem " + CITYFORGE_TEST_DATA +
                           "/dem/andorra_srtm3.tif --bbox 1.518,42.503,1.530,42.510 -q --no-sumo "
                           "--tiles --threads 1 -o ";
  const fs::path dir = temp_dir("mpi_import");
  const CliRun plain = run_command(std::string(CITYFORGE_EXE) + args + (dir / "plain").string());
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  const auto expected = files_of(dir / "plain");
  ASSERT_TRUE(expected.count("tiles/tileset.json"));
  for (int np = 1; np <= 4; ++np) {
    const fs::path out = dir / ("np" + std::to_string(np));
    const CliRun r = run_command(mpirun(np) + CITYFORGE_EXE + args + out.string());
    ASSERT_EQ(r.exit_code, 0) << "np " << np << ": " << r.output;
    EXPECT_EQ(differences(expected, files_of(out)), "") << "np " << np;
    EXPECT_EQ(timings_ranks(out), np);
  }
  fs::remove_all(dir);
}

/// A small city cut into many tiles, so that every rank gets some.
fs::path small_city(const fs::path& dir) {
  std::ofstream(dir / "small.json") << R"({
  "boundary": [[0, 0], [900, 0], [900, 800], [0, 800]],
  "arteries": [{"points": [[10, 400], [890, 410]]}],
  "zones": [{"kind": "commercial", "polygon": [[0, 0], [900, 0], [900, 800], [0, 800]],
             "height_m": [10, 30]}],
  "export": {"tile_bytes": 65536}
})";
  return dir / "small.json";
}

TEST(Mpi, AFailingRankStopsTheJobNamingTheTile) {
  if (const std::string why = no_mpi(); !why.empty()) GTEST_SKIP() << why;
  const fs::path dir = temp_dir("mpi_fail");
  const fs::path cfg = small_city(dir);
  const CliRun r = run_command("CITYFORGE_FAULT=fail:1 " + mpirun(2) + CITYFORGE_EXE +
                               " generate " + cfg.string() + " -q --no-sumo --tiles --threads 1 " +
                               "-o " + (dir / "out").string());
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("cityforge: error: rank 1: tiles/"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("injected fault"), std::string::npos) << r.output;
  // One message, from rank 0, not one per rank.
  EXPECT_EQ(r.output.find("cityforge: error:"), r.output.rfind("cityforge: error:")) << r.output;
  EXPECT_FALSE(fs::exists(dir / "out" / "tiles")) << "no partial tileset";
  EXPECT_FALSE(fs::exists(dir / "out" / "stats.json"));
  // Nothing half-written left beside it either: the folder did not exist, so it is gone too.
  if (fs::exists(dir / "out")) {
    for (const auto& e : fs::directory_iterator(dir / "out"))
      ADD_FAILURE() << "left behind: " << e.path();
    ADD_FAILURE() << "left behind: the folder the run made";
  }
  fs::remove_all(dir);
}

TEST(Mpi, AKilledRankFailsTheJobAndTheNextRunCleansUp) {
  if (const std::string why = no_mpi(); !why.empty()) GTEST_SKIP() << why;
  const fs::path dir = temp_dir("mpi_kill");
  const fs::path cfg = small_city(dir);
  const std::string args = " generate " + cfg.string() + " -q --no-sumo --tiles --threads 1 -o " +
                           (dir / "out").string();
  const CliRun killed = run_command("CITYFORGE_FAULT=kill:1 " + mpirun(2) + CITYFORGE_EXE + args);
  EXPECT_NE(killed.exit_code, 0) << killed.output;
  EXPECT_FALSE(fs::exists(dir / "out" / "tiles")) << "no partial tileset";
  EXPECT_FALSE(fs::exists(dir / "out" / "stats.json"));
  // The dead job's temporary folder goes with the next run, which completes.
  const CliRun again = run_command(mpirun(2) + CITYFORGE_EXE + args);
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_TRUE(fs::exists(dir / "out" / "tiles" / "tileset.json"));
  for (const auto& e : fs::recursive_directory_iterator(dir / "out")) {
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos)
        << "left behind: " << e.path();
  }
  fs::remove_all(dir);
}

/// sim_stats.json of a run.
nlohmann::json sim_stats(const fs::path& dir) {
  return nlohmann::json::parse(slurp(dir / "sim_stats.json"));
}

/// The default city the simulations run on (the one the tiles tests share).
fs::path simulated_city() {
  fs::path city;
  const CliRun made = shared_city("default-tiles", clitest::kDefaultTilesArgs, &city);
  EXPECT_EQ(made.exit_code, 0) << made.output;
  return city;
}

// Issue 24: the traffic and the crowd of the default city, 3,000 vehicles and 3,000
// pedestrians for 120 simulated seconds, give the same state hashes and the same recording,
// byte for byte, without mpirun and on 1 to 4 ranks; every vehicle update and every
// full-fidelity pedestrian update (the viewer in the middle of the city) ran on one rank. A
// frame a second: the ranks gather every vehicle for rank 0 to record only every 10th tick,
// and run the 9 between on their own vehicles and halos (a read outside a halo would show).
TEST(Mpi, SimulationIsTheSameOnOneToFourRanks) {
  if (const std::string why = no_mpi(); !why.empty()) GTEST_SKIP() << why;
  const fs::path city = simulated_city();
  ASSERT_FALSE(HasFailure());
  const fs::path dir = temp_dir("mpi_simulate");
  const std::string args = std::string(" simulate ") + city.string() +
                           " -q --vehicles 3000 --pedestrians 3000 --seconds 120 --threads 1 "
                           "--record-hz 1 --viewer 1000,1000,2,45 -o ";
  const CliRun alone =
      run_command(std::string(CITYFORGE_EXE) + args + (dir / "alone.cfrec").string());
  ASSERT_EQ(alone.exit_code, 0) << alone.output;
  const nlohmann::json ref = sim_stats(dir);
  const std::string ref_rec = slurp(dir / "alone.cfrec");
  ASSERT_GT(ref_rec.size(), 10000U);
  EXPECT_EQ(ref["ranks"].get<int>(), 1);
  for (int np = 1; np <= 4; ++np) {
    const fs::path out = dir / ("np" + std::to_string(np));
    fs::create_directories(out);
    const CliRun r = run_command(mpirun(np) + CITYFORGE_EXE + args + (out / "t.cfrec").string());
    ASSERT_EQ(r.exit_code, 0) << "np " << np << ": " << r.output;
    const nlohmann::json j = sim_stats(out);
    EXPECT_EQ(j["ranks"].get<int>(), np);
    EXPECT_EQ(j["state_hash"], ref["state_hash"]) << "np " << np;
    EXPECT_EQ(j["crowd"]["state_hash"], ref["crowd"]["state_hash"]) << "np " << np;
    EXPECT_EQ(j["distance_km"], ref["distance_km"]) << "np " << np;
    EXPECT_EQ(j["vehicles_moving"], ref["vehicles_moving"]) << "np " << np;
    EXPECT_TRUE(slurp(out / "t.cfrec") == ref_rec) << "np " << np << ": recordings differ";
    std::uint64_t updates = 0;
    for (const auto& p : j["per_rank"]) {
      EXPECT_GT(p["vehicle_updates"].get<std::uint64_t>(), 0U) << "np " << np;
      updates += p["vehicle_updates"].get<std::uint64_t>();
      // Each rank's CPU time over the ticks, and the part of it inside the collectives (only
      // a launched run measures that; a rank that waits for the others spends some there).
      const double cpu = p["cpu_s"].get<double>();
      const double in_collectives = p["collective_cpu_s"].get<double>();
      EXPECT_GT(cpu, 0.0) << "np " << np;
      EXPECT_GE(in_collectives, 0.0) << "np " << np;
      EXPECT_LT(in_collectives, cpu) << "np " << np;
      if (np > 1) {
        EXPECT_GT(in_collectives, 0.0) << "np " << np;
      }
      EXPECT_GT(p["peak_rss_mib"].get<double>(), 10.0) << "np " << np;  // Each rank's own.
    }
    EXPECT_EQ(updates, ref["vehicle_updates"].get<std::uint64_t>()) << "np " << np;
    // The crowd's full-fidelity updates are dealt out by geography (the rank of each agent's
    // lane): all ranks together ran them all. With levels of detail they are the agents round
    // the viewer, so some ranks may run none (Mpi.CrowdWithoutLevelsOfDetailIsSplitByGeography
    // runs them all at full fidelity).
    const auto pedestrian_updates = ref["per_rank"][0]["pedestrian_updates"].get<std::uint64_t>();
    ASSERT_GT(pedestrian_updates, 0U);
    std::uint64_t ped = 0;
    for (const auto& p : j["per_rank"])
      ped += p["pedestrian_updates"].get<std::uint64_t>();
    EXPECT_EQ(ped, pedestrian_updates) << "np " << np;
    if (np > 1) {
      EXPECT_GT(j["partition"]["cut_lanes"].get<int>(), 0);
      EXPECT_GT(j["migrations"].get<std::uint64_t>(), 0U);
      EXPECT_GT(j["exchange_bytes_per_tick"].get<double>(), 0.0);
    }
    fs::remove_all(out);
  }
  fs::remove_all(dir);
}

// Issue 24: every pedestrian at full fidelity (no levels of detail), 3 ranks: each rank updates
// the agents on its blocks' lanes, agents walk from one rank's lanes onto another's, and the
// crowd's state hash is the one process's.
TEST(Mpi, CrowdWithoutLevelsOfDetailIsSplitByGeography) {
  if (const std::string why = no_mpi(); !why.empty()) GTEST_SKIP() << why;
  const fs::path city = simulated_city();
  ASSERT_FALSE(HasFailure());
  const fs::path dir = temp_dir("mpi_crowd_geography");
  const std::string args = std::string(" simulate ") + city.string() +
                           " -q --vehicles 500 --pedestrians 2000 --seconds 60 --threads 1 "
                           "--no-lod --record-hz 1 -o ";
  fs::create_directories(dir / "a");
  fs::create_directories(dir / "b");
  const CliRun alone =
      run_command(std::string(CITYFORGE_EXE) + args + (dir / "a" / "t.cfrec").string());
  ASSERT_EQ(alone.exit_code, 0) << alone.output;
  const nlohmann::json ref = sim_stats(dir / "a");
  const CliRun r = run_command(mpirun(3) + CITYFORGE_EXE + args + (dir / "b" / "t.cfrec").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json j = sim_stats(dir / "b");
  EXPECT_EQ(j["crowd"]["state_hash"], ref["crowd"]["state_hash"]);
  EXPECT_EQ(j["state_hash"], ref["state_hash"]);
  std::uint64_t ped = 0;
  std::uint64_t arrived = 0;
  for (const auto& p : j["per_rank"]) {
    EXPECT_GT(p["pedestrian_updates"].get<std::uint64_t>(), 0U) << p.dump();
    ped += p["pedestrian_updates"].get<std::uint64_t>();
    arrived += p["pedestrians_arrived"].get<std::uint64_t>();
  }
  EXPECT_EQ(ped, ref["per_rank"][0]["pedestrian_updates"].get<std::uint64_t>());
  EXPECT_GT(arrived, 0U);
  // Between the recording's frames (one a second) each rank sends its agents only to the ranks
  // whose agents may meet them; a frame makes the crowd whole.
  for (const auto& p : j["per_rank"]) {
    EXPECT_GT(p["crowd_halo_items"].get<std::uint64_t>(), 0U) << p.dump();
    EXPECT_GE(p["crowd_syncs"].get<std::uint64_t>(), 60U) << p.dump();
    EXPECT_LT(p["crowd_syncs"].get<std::uint64_t>(), 100U) << p.dump();
  }
  EXPECT_TRUE(slurp(dir / "a" / "t.cfrec") == slurp(dir / "b" / "t.cfrec")) << "recordings differ";
  fs::remove_all(dir);
}

TEST(Mpi, AKilledRankStopsTheSimulationWithoutOutput) {
  if (const std::string why = no_mpi(); !why.empty()) GTEST_SKIP() << why;
  const fs::path city = simulated_city();
  ASSERT_FALSE(HasFailure());
  const fs::path dir = temp_dir("mpi_simulate_kill");
  const CliRun r = run_command(
      "CITYFORGE_FAULT=kill:1 " + mpirun(2) + CITYFORGE_EXE + " simulate " + city.string() +
      " -q --vehicles 500 --pedestrians 0 --seconds 60 -o " + (dir / "t.cfrec").string());
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_FALSE(fs::exists(dir / "sim_stats.json"));
  EXPECT_FALSE(fs::exists(dir / "t.cfrec"));
  // Only rank 0 writes: a recording it cannot create stops every rank at once, saying why
  // (the others would otherwise wait for it in the first exchange).
  const CliRun bad = run_command(mpirun(2) + CITYFORGE_EXE + " simulate " + city.string() +
                                 " -q --vehicles 500 --pedestrians 0 --seconds 60 -o " +
                                 (dir / "missing" / "t.cfrec").string());
  EXPECT_NE(bad.exit_code, 0) << bad.output;
  EXPECT_NE(bad.output.find("t.cfrec.tmp: cannot create"), std::string::npos) << bad.output;
  fs::remove_all(dir);
}

// METIS is loaded when a cut needs it (partition.cpp), not linked: without it a simulation on
// two ranks stops on every rank with an error naming the library, and writes nothing.
TEST(Mpi, MissingMetisLibraryIsAClearError) {
  if (const std::string why = no_mpi(); !why.empty()) GTEST_SKIP() << why;
  const fs::path city = simulated_city();
  ASSERT_FALSE(HasFailure());
  const fs::path dir = temp_dir("mpi_no_metis");
  const std::string lib = (dir / "libmetis.so.5").string();
  const CliRun r = run_command("CITYFORGE_METIS_LIBRARY=" + lib + " " + mpirun(2) + CITYFORGE_EXE +
                               " simulate " + city.string() +
                               " -q --vehicles 100 --pedestrians 0 --seconds 5 -o " +
                               (dir / "t.cfrec").string());
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("cannot load " + lib), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("libmetis5"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "sim_stats.json"));
  EXPECT_FALSE(fs::exists(dir / "t.cfrec"));
  fs::remove_all(dir);
}

TEST(Mpi, CommandsThatDoNotShareWorkRefuseALauncher) {
  // What an MPI launcher sets: the program must not run N copies of an island.
  const CliRun r = run_command("OMPI_COMM_WORLD_SIZE=2 " + std::string(CITYFORGE_EXE) +
                               " island --seed 1 -q -o " + temp_dir("mpi_refuse").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("only `generate`, `import`, `simulate` and `serve --live` run on "
                          "several ranks"),
            std::string::npos)
      << r.output;
  // serve shares only its live simulation: N copies of a file server would fight for the port.
  const CliRun s = run_command("OMPI_COMM_WORLD_SIZE=2 " + std::string(CITYFORGE_EXE) + " serve " +
                               temp_dir("mpi_refuse").string() + " --port 0");
  EXPECT_EQ(s.exit_code, 2) << s.output;
  EXPECT_NE(s.output.find("serve shares only its live simulation over ranks: add --live"),
            std::string::npos)
      << s.output;
}

// MPI is a module loaded only under a launcher: a program started alone never maps libmpi (nor
// GDAL and PROJ, which only imports load, nor GEOS, which commands load before their work, nor
// METIS, which only a cut over ranks loads),
// and a launcher without the module is a clear error.
TEST(Mpi, AProgramStartedAloneLoadsNeitherMpiNorGdalNorProj) {
  const CliRun r = run_command("LD_DEBUG=libs " + std::string(CITYFORGE_EXE) + " --help");
  ASSERT_EQ(r.exit_code, 0) << r.output.substr(0, 2000);
  ASSERT_NE(r.output.find("libtbb"), std::string::npos) << "LD_DEBUG printed no libraries";
  for (const char* lib : {"libmpi", "libgdal", "libproj", "libgeos", "libmetis"}) {
    EXPECT_EQ(r.output.find(lib), std::string::npos) << lib << " loaded by `cityforge --help`";
  }
}

TEST(Mpi, ALauncherWithoutTheMpiModuleIsAClearError) {
  if (const std::string why = no_mpi(); !why.empty()) GTEST_SKIP() << why;
  const fs::path out = temp_dir("mpi_no_module") / "city";
  const CliRun r =
      run_command("CITYFORGE_MPI_MODULE=/nonexistent/libcityforge_mpi_ranks.so " + mpirun(1) +
                  CITYFORGE_EXE + " " + clitest::kDefaultTilesArgs + " -o " + out.string());
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("/nonexistent/libcityforge_mpi_ranks.so"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("MPI, needed under mpirun"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out / "stats.json")) << "half-written output";
}

}  // namespace
}  // namespace cityforge
