// SPDX-License-Identifier: Apache-2.0
// Vehicle continuity from tick to tick, for the level-of-detail tests (traffic and city): a
// vehicle that was moving and still is has moved on by at most a bound; only arrivals leave
// the network for the pool, or come back from it elsewhere.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <utility>

#include "cityforge/traffic/traffic.hpp"

namespace cityforge::traffic::testing {

class Continuity {
 public:
  /// After a tick: how many vehicles of the previous tick left or moved farther than max_m
  /// (in plan) and how many trips completed meanwhile (each may account for one).
  std::pair<std::uint64_t, std::uint64_t> step(const Simulation& sim, double max_m) {
    std::map<std::uint32_t, Vec3> now;
    for (const VehicleSample& v : sim.samples())
      now.emplace(v.id, v.position);
    std::uint64_t left_or_moved = 0;
    for (const auto& [id, p] : m_before) {
      const auto it = now.find(id);
      if (it == now.end() || std::hypot(p.x - it->second.x, p.y - it->second.y) > max_m) {
        ++left_or_moved;
      }
    }
    const std::uint64_t arrivals = sim.stats().trips_completed - m_arrivals;
    m_arrivals = sim.stats().trips_completed;
    m_before = std::move(now);
    return {left_or_moved, arrivals};
  }

 private:
  std::map<std::uint32_t, Vec3> m_before;
  std::uint64_t m_arrivals = 0;
};

}  // namespace cityforge::traffic::testing
