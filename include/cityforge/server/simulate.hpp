// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cityforge/core/result.hpp"

namespace cityforge {
class Ranks;
}

/// `cityforge simulate` (docs/traffic.md, docs/crowd.md): a generated city's traffic and crowd,
/// headless, for a fixed simulated time, with a recording for the viewer and sim_stats.json.
namespace cityforge::server {

struct SimulateOptions {
  std::string dir;      ///< A `generate` output folder (lanes.json, points/parking_spots.ply).
  std::string out;      ///< Recording path; default DIR/traffic.cfrec.
  double seconds = 60;  ///< Simulated time.
  std::uint32_t vehicles = 2000;
  /// Worker threads, for the figures only: the caller sets oneTBB's limit (results are the
  /// same for any count).
  int threads = 1;
  std::uint64_t seed = 1;
  double dt_s = 0.1;
  double trip_share = 0.3;
  double trip_reach_m = 0;     ///< traffic::Config::trip_reach_m (0: anywhere in the city).
  double parked_share = 0.75;  ///< Share of parking spots with a parked car.
  double record_hz = 10;
  bool record = true;  ///< false: no recording; sim_stats.json goes to DIR.
  bool audit = false;  ///< Check invariants after every tick (slower).
  // The crowd (issue 7, docs/crowd.md).
  std::uint32_t pedestrians = 2000;
  /// "x,y,z,yaw_deg" (a fixed viewer) or a file of "t x y z yaw_deg" lines (a path, linearly
  /// interpolated); empty: a viewer at the origin looking east.
  std::string viewer;
  std::vector<std::string> events;  ///< "flee@x,y,t[,radius[,duration]]".
  bool lod = true;                  ///< false: every agent at full fidelity.
  /// Step of vehicles at level off (traffic::Config::off_step_s, whose default this is).
  double off_step_s = 1.0;
  /// The ranks of `mpirun -np N cityforge simulate` (docs/traffic.md, "Over MPI ranks"): the
  /// driving is shared over them, rank 0 writes the recording and sim_stats.json, the others
  /// write nothing; the state hashes are those of one process. Null: one process.
  const Ranks* ranks = nullptr;
  /// Called after every tick with the ticks done (the tests' injected faults). Optional.
  std::function<void(std::uint64_t)> after_tick;
  /// Told each warning of the traffic set-up (no newline). Optional.
  std::function<void(const std::string&)> warning;
  /// Told a one-line status (simulated time, vehicles, speed, ticks/s) about four times a wall
  /// second while ticking. Optional.
  std::function<void(const std::string&)> progress;
};

/// What run_simulation did.
struct SimulateReport {
  std::string summary;  ///< Console lines, each ending in '\n'.
  std::string stats_path;
  std::string recording_path;  ///< Empty without a recording.
};

/// Checks the viewer and the events, builds the city's traffic and crowd (build_city_sim),
/// ticks for `seconds`, writes the recording (a frame every 1 / record_hz simulated seconds)
/// and sim_stats.json beside it (through a temporary name). Same folder and options give the
/// same state hashes at any thread count. Errors name the option (invalid_input: --viewer,
/// --event) or the city file that was wrong.
Result<SimulateReport> run_simulation(const SimulateOptions& options);

}  // namespace cityforge::server
