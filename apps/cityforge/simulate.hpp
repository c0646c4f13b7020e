// SPDX-License-Identifier: Apache-2.0
// The `simulate` subcommand (apps/cityforge/simulate.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cityforge::app {

struct SimulateOptions {
  std::string dir;      ///< A `generate` output folder (lanes.json, points/parking_spots.ply).
  std::string out;      ///< Recording path; default DIR/traffic.cfrec.
  double seconds = 60;  ///< Simulated time.
  std::uint32_t vehicles = 2000;
  int threads = 0;  ///< 0: all cores.
  std::uint64_t seed = 1;
  double dt_s = 0.1;
  double trip_share = 0.3;
  double parked_share = 0.75;  ///< Share of parking spots with a parked car.
  double record_hz = 10;
  bool record = true;
  bool audit = false;
  bool quiet = false;
  // The crowd (issue 7, docs/crowd.md).
  std::uint32_t pedestrians = 2000;
  /// "x,y,z,yaw_deg" (a fixed viewer) or a file of "t x y z yaw_deg" lines (a path, linearly
  /// interpolated); empty: a viewer at the origin looking east.
  std::string viewer;
  std::vector<std::string> events;  ///< "flee@x,y,t[,radius[,duration]]".
  bool lod = true;                  ///< false: every agent at full fidelity.
};

int simulate(const SimulateOptions& options);

}  // namespace cityforge::app
