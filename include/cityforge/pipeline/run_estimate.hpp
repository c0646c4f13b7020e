// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "cityforge/pipeline/city_config.hpp"

namespace cityforge::pipeline {

/// What generating a city config will take, estimated before any stage runs from the area of
/// its boundary: a straight-line fit to measured runs of the default city (4.33 km^2) and the
/// 4x5 km example (20.3 km^2), one process, 2 threads, on the project's reference machine
/// (README "Reliability"). Rough (zoning and terrain move it by tens of percent), but enough to
/// refuse in a second a config that would need ten times the machine's memory.
struct RunEstimate {
  double area_km2 = 0.0;
  double peak_mib = 0.0;  ///< Peak resident memory of one process.
  double seconds = 0.0;   ///< Wall time at 2 threads.
};

/// `city_glb`: whether city.glb is written (it holds every chunk's meshes at once; without it
/// the tiles are written a subtree at a time and the peak grows far more slowly).
RunEstimate estimate_run(const CityConfig& config, bool city_glb);

}  // namespace cityforge::pipeline
