// SPDX-License-Identifier: Apache-2.0
// `cityforge simulate OUT_DIR`: the traffic of a generated city, headless. Reads lanes.json and
// points/parking_spots.ply, runs the fixed tick for --seconds, writes a .cfrec recording and
// sim_stats.json (docs/traffic.md).
#include "simulate.hpp"

#include <tbb/global_control.h>
#include <tbb/info.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cityforge/export/export.hpp"
#include "cityforge/traffic/network.hpp"
#include "cityforge/traffic/recording.hpp"
#include "cityforge/traffic/traffic.hpp"

namespace fs = std::filesystem;

namespace cityforge::app {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// Parking spots written by `generate` (points/parking_spots.ply): binary little endian,
/// float x y z yaw length_m, uint edge lane. Errors name the file and what was expected.
Result<std::vector<traffic::ParkedVehicle>> read_parking(const std::string& path, double share,
                                                         Seed seed) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return std::vector<traffic::ParkedVehicle>{};  // No dressing output: no parked cars.
  std::string line;
  std::size_t count = 0;
  std::vector<std::string> props;
  bool binary = false;
  while (std::getline(f, line)) {
    if (line == "end_header") break;
    if (line.rfind("format binary_little_endian", 0) == 0) binary = true;
    if (line.rfind("element vertex ", 0) == 0) count = std::stoul(line.substr(15));
    if (line.rfind("property ", 0) == 0) props.push_back(line.substr(9));
  }
  const std::vector<std::string> want = {"float x",        "float y",   "float z",  "float yaw",
                                         "float length_m", "uint edge", "uint lane"};
  if (!binary || props != want) {
    return Error::invalid_input(path,
                                "expected a binary little-endian PLY with float x y z yaw "
                                "length_m, uint edge lane (as `generate` writes it)");
  }
  std::vector<traffic::ParkedVehicle> out;
  for (std::size_t i = 0; i < count; ++i) {
    float v[5];
    std::uint32_t ids[2];
    if (!f.read(reinterpret_cast<char*>(v), sizeof v) ||
        !f.read(reinterpret_cast<char*>(ids), sizeof ids)) {
      return Error::invalid_input(path, "vertex " + std::to_string(i) + " of " +
                                            std::to_string(count) + ": file ends early");
    }
    Rng rng(seed, Stage::sim, i, 9);
    if (!rng.chance(share)) continue;
    traffic::ParkedVehicle p;
    p.position = Vec3{v[0], v[1], v[2]};
    p.heading_rad = v[3];
    p.type =
        v[4] >= 6.5f && rng.chance(0.15) ? traffic::VehicleType::van : traffic::VehicleType::car;
    out.push_back(p);
  }
  return out;
}

std::string hex(std::uint64_t h) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, h);
  return buf;
}

}  // namespace

int simulate(const SimulateOptions& opt) {
  const auto t_start = Clock::now();
  const bool tty = isatty(fileno(stderr)) != 0 && !opt.quiet;
  const int threads = opt.threads > 0 ? opt.threads : tbb::info::default_concurrency();
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                            static_cast<std::size_t>(threads));
  const auto fail = [](const Error& e) {
    std::fprintf(stderr, "cityforge: error: %s\n", e.to_string().c_str());
    return e.code == ErrorCode::invalid_input ? 2 : 1;
  };
  // 1. The city: lanes and parking spots.
  const std::string lanes_path = (fs::path(opt.dir) / "lanes.json").string();
  if (!fs::exists(lanes_path)) {
    return fail(Error::io(lanes_path,
                          "no lanes.json here: run `cityforge generate -o " + opt.dir + "` first"));
  }
  Result<traffic::LanesFile> file = traffic::load_lanes_json(lanes_path);
  if (!file) return fail(file.error());
  Result<traffic::Network> net = traffic::build_network(file->graph, file->controls);
  if (!net)
    return fail(
        Error{net.error().code, lanes_path + ": " + net.error().where, net.error().message});
  Result<std::vector<traffic::ParkedVehicle>> parked = read_parking(
      (fs::path(opt.dir) / "points" / "parking_spots.ply").string(), opt.parked_share, opt.seed);
  if (!parked) return fail(parked.error());

  // 2. The simulation.
  traffic::Config cfg;
  cfg.dt_s = static_cast<float>(opt.dt_s);
  cfg.vehicles = opt.vehicles;
  cfg.trip_share = static_cast<float>(opt.trip_share);
  cfg.record_interval_s = static_cast<float>(1.0 / opt.record_hz);
  Result<std::unique_ptr<traffic::Simulation>> made =
      traffic::Simulation::create(std::move(*net), cfg, std::move(*parked), opt.seed);
  if (!made) return fail(made.error());
  traffic::Simulation& sim = **made;
  for (const std::string& w : sim.stats().warnings) {
    std::fprintf(stderr, "cityforge: warning: %s\n", w.c_str());
  }
  const double setup_s = seconds_since(t_start);

  // 3. The recording.
  const std::string rec_path =
      opt.out.empty() ? (fs::path(opt.dir) / "traffic.cfrec").string() : opt.out;
  std::optional<traffic::RecordingWriter> writer;
  traffic::RecordingInfo info;
  if (opt.record) {
    info = sim.recording_info(opt.seed);
    Result<traffic::RecordingWriter> w = traffic::RecordingWriter::open(rec_path, info);
    if (!w) return fail(w.error());
    writer.emplace(std::move(*w));
  }
  const auto every = static_cast<std::uint64_t>(
      std::max(1.0, std::round(info.frame_interval_s / static_cast<double>(cfg.dt_s))));
  std::vector<traffic::LightState> lights;
  std::vector<traffic::WalkState> walks;
  const auto record = [&]() -> Status {
    sim.lights(info.signal_lanes, lights);
    sim.walks(info.crosswalk_lanes, walks);
    const std::vector<traffic::VehicleSample> samples = sim.samples(false);
    return writer->write_frame(sim.stats().ticks, sim.time_s(), samples, lights, walks);
  };

  // 4. Tick.
  const auto ticks = static_cast<std::uint64_t>(std::llround(opt.seconds / opt.dt_s));
  double tick_s = 0;
  double record_s = 0;
  traffic::Audit worst;
  std::uint64_t audit_overlaps = 0;
  std::uint64_t audit_conflicts = 0;
  auto last_print = Clock::now();
  if (writer) {
    if (Status s = record(); !s) return fail(s.error());
  }
  for (std::uint64_t t = 0; t < ticks; ++t) {
    const auto t0 = Clock::now();
    sim.tick();
    tick_s += seconds_since(t0);
    if (writer && sim.stats().ticks % every == 0) {
      const auto t1 = Clock::now();
      if (Status s = record(); !s) return fail(s.error());
      record_s += seconds_since(t1);
    }
    if (opt.audit) {
      const traffic::Audit a = traffic::audit(sim);
      audit_overlaps += a.overlaps;
      audit_conflicts += a.conflicts;
      worst.min_gap_m = std::min(worst.min_gap_m, a.min_gap_m);
      worst.bad_positions += a.bad_positions;
    }
    if (tty && std::chrono::duration<double>(Clock::now() - last_print).count() > 0.25) {
      last_print = Clock::now();
      const traffic::Stats& s = sim.stats();
      std::fprintf(stderr,
                   "\r\033[K  %6.0f / %.0f s simulated, %u vehicles, %.1f m/s, %.0f ticks/s",
                   sim.time_s(), opt.seconds, s.vehicles_moving, s.mean_speed_mps,
                   static_cast<double>(t + 1) / std::max(tick_s, 1e-9));
    }
  }
  if (tty) std::fprintf(stderr, "\r\033[K");
  std::uint64_t rec_bytes = 0;
  std::uint32_t rec_frames = 0;
  if (writer) {
    rec_frames = writer->frames_written();
    if (Status s = writer->close(); !s) return fail(s.error());
    rec_bytes = writer->bytes_written();
  }

  // 5. Figures.
  const traffic::Stats& s = sim.stats();
  const double updates_per_s = tick_s > 0 ? static_cast<double>(s.vehicle_updates) / tick_s : 0;
  nlohmann::ordered_json j;
  j["format"] = "cityforge-sim-stats";
  j["version"] = 1;
  j["city"] = opt.dir;
  j["seed"] = opt.seed;
  j["threads"] = threads;
  j["dt_s"] = cfg.dt_s;
  j["ticks"] = s.ticks;
  j["simulated_s"] = sim.time_s();
  j["setup_s"] = setup_s;
  j["wall_s"] = tick_s;
  j["record_s"] = record_s;
  j["ticks_per_wall_s"] = tick_s > 0 ? static_cast<double>(s.ticks) / tick_s : 0;
  j["vehicle_updates"] = s.vehicle_updates;
  j["vehicle_updates_per_s"] = updates_per_s;
  j["vehicles_requested"] = s.vehicles_requested;
  j["capacity"] = s.capacity;
  j["vehicles_moving"] = s.vehicles_moving;
  j["vehicles_parked"] = s.vehicles_parked;
  j["vehicles_pooled"] = s.vehicles_pooled;
  j["mean_speed_mps"] = s.mean_speed_mps;
  j["distance_km"] = s.distance_km;
  j["stops"] = s.stops;
  j["trips_started"] = s.trips_started;
  j["trips_completed"] = s.trips_completed;
  j["reroutes"] = s.reroutes;
  j["lane_changes"] = s.lane_changes;
  j["lane_changes_aborted"] = s.lane_changes_aborted;
  j["junction_entries"] = s.junction_entries;
  j["entries_on_yellow"] = s.entries_on_yellow;
  j["red_violations"] = s.red_violations;
  j["clearing_on_red"] = s.clearing_on_red;
  j["emergency_stops"] = s.emergency_stops;
  j["state_hash"] = hex(sim.state_hash());
  if (opt.audit) {
    j["audit"] = {{"overlaps", audit_overlaps},
                  {"conflicts", audit_conflicts},
                  {"bad_positions", worst.bad_positions},
                  {"min_gap_m", worst.min_gap_m}};
  }
  if (writer) {
    j["recording"] = {{"path", rec_path}, {"frames", rec_frames}, {"bytes", rec_bytes}};
  }
  j["warnings"] = s.warnings;
  const std::string stats_path =
      ((opt.record ? fs::path(rec_path).parent_path() : fs::path(opt.dir)) / "sim_stats.json")
          .string();
  const std::string text = j.dump(2) + "\n";
  if (Status w = exporter::write_file_atomic(stats_path, text.data(), text.size()); !w) {
    return fail(w.error());
  }
  if (!opt.quiet) {
    std::printf("simulated %.0f s (%" PRIu64
                " ticks of %.3f s) in %.2f s wall: %.0f ticks/s, %.3g vehicle "
                "updates/s on %d thread%s\n",
                sim.time_s(), s.ticks, static_cast<double>(cfg.dt_s), tick_s,
                static_cast<double>(s.ticks) / std::max(tick_s, 1e-9), updates_per_s, threads,
                threads == 1 ? "" : "s");
    std::printf(
        "vehicles: %u moving (%u requested, capacity %u), %u parked; mean speed %.1f m/s "
        "(%.0f km/h), %.0f km driven\n",
        s.vehicles_moving, s.vehicles_requested, s.capacity, s.vehicles_parked, s.mean_speed_mps,
        s.mean_speed_mps * 3.6, s.distance_km);
    std::printf("throughput: %" PRIu64 " junction entries, %" PRIu64 " trips completed, %" PRIu64
                " lane changes, %" PRIu64 " stops; %" PRIu64 " red-light entries\n",
                s.junction_entries, s.trips_completed, s.lane_changes, s.stops, s.red_violations);
    if (opt.audit) {
      std::printf("audit: %" PRIu64 " overlaps, %" PRIu64
                  " conflicting occupancies, min gap %.2f m\n",
                  audit_overlaps, audit_conflicts, static_cast<double>(worst.min_gap_m));
    }
    if (writer) {
      std::printf("wrote %s (%u frames, %.1f MB) and %s; setup %.2f s, recording %.2f s\n",
                  rec_path.c_str(), rec_frames, static_cast<double>(rec_bytes) / 1e6,
                  stats_path.c_str(), setup_s, record_s);
    } else {
      std::printf("wrote %s; setup %.2f s\n", stats_path.c_str(), setup_s);
    }
  }
  return 0;
}

}  // namespace cityforge::app
