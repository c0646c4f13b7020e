// SPDX-License-Identifier: Apache-2.0
// The estimate of a run from its boundary's area (pipeline/run_estimate.hpp).
#include "cityforge/pipeline/run_estimate.hpp"

#include <cmath>

#include "cityforge/core/polygon.hpp"

namespace cityforge::pipeline {

namespace {

// Straight lines through two measured runs (README "Performance" and "Reliability"), one
// process, 2 threads: the default city (its boundary holds 4.33 km^2) and
// data/examples/metropolis-4x5km.json (20.33 km^2).
constexpr double kGlbBaseMib = 96.0;  // with city.glb: 585 and 2,392 MiB
constexpr double kGlbMibPerKm2 = 113.0;
constexpr double kTilesBaseMib = 127.0;  // --tiles --no-city-glb: 213 and 530 MiB
constexpr double kTilesMibPerKm2 = 19.8;
constexpr double kSecondsPerKm2 = 0.91;  // 3.8 and 18.6 s

}  // namespace

RunEstimate estimate_run(const CityConfig& config, bool city_glb) {
  RunEstimate e;
  e.area_km2 = std::abs(polygon_area(config.inputs.boundary)) / 1.0e6;
  e.peak_mib = city_glb ? kGlbBaseMib + kGlbMibPerKm2 * e.area_km2
                        : kTilesBaseMib + kTilesMibPerKm2 * e.area_km2;
  e.seconds = kSecondsPerKm2 * e.area_km2;
  return e;
}

}  // namespace cityforge::pipeline
