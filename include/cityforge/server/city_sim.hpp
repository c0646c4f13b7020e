// SPDX-License-Identifier: Apache-2.0
// A generated city's traffic and crowd, built from its folder (src/server/city_sim.cpp):
// the set-up shared by `cityforge simulate` and `cityforge serve --live`.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cityforge/core/result.hpp"
#include "cityforge/crowd/crowd.hpp"
#include "cityforge/traffic/partition.hpp"
#include "cityforge/traffic/recording.hpp"
#include "cityforge/traffic/traffic.hpp"

namespace cityforge::server {

struct CitySimOptions {
  std::string dir;  ///< A `generate` output folder (lanes.json, points/, layout.geojson, ...).
  double dt_s = 0.1;
  std::uint32_t vehicles = 2000;
  double trip_share = 0.3;
  double trip_reach_m = 0;     ///< traffic::Config::trip_reach_m (0: anywhere).
  double parked_share = 0.75;  ///< Share of parking spots with a parked car.
  double record_hz = 10;
  std::uint64_t seed = 1;
  std::uint32_t pedestrians = 2000;
  bool lod = true;  ///< false: every agent at full fidelity.
  /// Step of vehicles at level off (traffic::Config::off_step_s).
  double off_step_s = traffic::Config{}.off_step_s;
  /// traffic::Config::route_trips_later (the caller calls share() before the first tick).
  bool route_trips_later = false;
};

/// The simulations of one city. `crowd` is null when there are no pedestrians and no
/// shepherds.json. The crowd refers to `traffic`'s network: destroy it first (member order).
struct CitySim {
  traffic::Config traffic_config;
  crowd::Config crowd_config;
  std::unique_ptr<traffic::Simulation> traffic;
  std::unique_ptr<crowd::Crowd> crowd;
};

/// The crowd settings the options give (before the city is read: events need them).
crowd::Config crowd_config(const CitySimOptions& options);

/// Reads lanes.json, points/parking_spots.ply, points/props/*.ply, layout.geojson and
/// shepherds.json from `options.dir` and builds the traffic and the crowd on the same network.
/// Errors name the file and what was wrong; a folder without lanes.json is an io error that
/// says to run `generate` first. Same folder and options give the same state hashes.
Result<CitySim> build_city_sim(const CitySimOptions& options);

/// Collective, before the first tick: the traffic and the crowd shared over `ranks` (docs/
/// traffic.md and docs/crowd.md, "Over MPI ranks"). Rank 0 cuts the lane graph (METIS, seeded
/// by `seed`), every rank takes its part; a failure on any rank (METIS) is every rank's error.
/// One rank: a partition of one part (the initial trips are routed here when the options said
/// route_trips_later). Returns the partition, for the figures.
Result<traffic::Partition> share_city_sim(CitySim& city, const Ranks& ranks, std::uint64_t seed);

/// Vehicles' levels of detail from a viewer (crowd::vehicle_lod()), handed to the traffic.
class VehicleLod {
 public:
  explicit VehicleLod(bool enabled);
  /// Assigns levels to the moving vehicles within reach_m() of the viewer from their positions
  /// (Simulation::positions(viewer.position, reach_m()): over ranks a collective call, made by
  /// every rank alike), every other vehicle off, and passes them to `sim`
  /// (Simulation::set_lod_near): work of the vehicles within reach only. Disabled: counts the
  /// moving vehicles high and passes nothing, reading no position: the simulation's vehicles
  /// are all high until it is given levels (levels passed would make those not shown, such as
  /// pooled ones that start moving before the next update, off).
  void update(traffic::Simulation& sim, const crowd::Viewer& viewer);
  /// The level of an entity (off when never assigned; high when disabled).
  std::uint8_t level(std::uint32_t id) const {
    if (!config().enabled) return static_cast<std::uint8_t>(crowd::Lod::high);
    return static_cast<std::uint8_t>(id < m_levels.size() ? m_levels[id] : crowd::Lod::off);
  }
  const std::array<std::uint32_t, crowd::kLods>& per_lod() const { return m_per_lod; }
  const std::array<std::uint32_t, crowd::kLods>& per_lod_max() const { return m_per_lod_max; }
  const crowd::LodConfig& config() const { return m_assigner.config(); }
  /// Farther from the viewer every vehicle is off (the farthest level's distance, its
  /// hysteresis and a metre): update() needs the positions within it only
  /// (Simulation::positions(centre, reach_m()); over ranks only those are exchanged).
  double reach_m() const {
    const crowd::LodConfig& c = config();
    return c.enabled ? double{c.low_m} + double{c.hysteresis_m} + 1.0 : 0.0;
  }

 private:
  crowd::LodAssigner m_assigner;
  std::vector<crowd::Lod> m_levels;  // By entity index.
  std::array<std::uint32_t, crowd::kLods> m_per_lod{};
  std::array<std::uint32_t, crowd::kLods> m_per_lod_max{};
  std::vector<std::uint32_t> m_ids;   // The vehicles within reach at the last update.
  std::vector<Vec3> m_pos;            // Scratch.
  std::vector<crowd::Lod> m_lv;       // Scratch.
  std::vector<std::uint8_t> m_bytes;  // Scratch.
};

}  // namespace cityforge::server
