// SPDX-License-Identifier: Apache-2.0
// Fixed-time signal plans (the lane graph's SignalPlans) evaluated at the simulation time:
// green, then yellow, then all-red per phase. A connector green in the next phase too stays
// green through the clearance. Crosswalks with walk in a phase show walk for the first walk_s
// of its green, then flashing don't-walk until the green ends.
#include <algorithm>
#include <cmath>

#include "traffic/detail/processors.hpp"

namespace cityforge::traffic::detail {

PlanClock plan_clock(const roads::SignalPlan& plan, double time_s) {
  const double cycle = plan.cycle_s();
  if (plan.phases.empty() || !(cycle > 0)) return {};
  double t = std::fmod(time_s - plan.offset_s, cycle);
  if (t < 0) t += cycle;
  std::uint32_t k = 0;
  while (k + 1 < plan.phases.size()) {
    const roads::Phase& p = plan.phases[k];
    const double len = p.green_s + p.yellow_s + p.all_red_s;
    if (t < len) break;
    t -= len;
    ++k;
  }
  return {k, t};
}

void update_signals(Simulation::Impl& m) {
  const Network& net = m.net;
  for (const roads::SignalPlan& plan : net.signals) {
    const std::uint32_t j = plan.intersection;
    for (std::uint32_t k = net.connector_begin[j]; k < net.connector_begin[j + 1]; ++k) {
      m.light[net.connectors[k]] = LightState::red;
    }
    const auto [k, t] = plan_clock(plan, m.time_s);
    if (k == kNone) continue;
    const roads::Phase& phase = plan.phases[k];
    const roads::Phase& next = plan.phases[(k + 1) % plan.phases.size()];
    const bool in_green = t < phase.green_s;
    const bool in_yellow = !in_green && t < phase.green_s + phase.yellow_s;
    for (const LaneId c : phase.green) {
      if (in_green || std::binary_search(next.green.begin(), next.green.end(), c)) {
        m.light[c] = LightState::green;
      } else if (in_yellow) {
        m.light[c] = LightState::yellow;
      }
    }
    for (const LaneId x : m.crosswalks_of_signal[&plan - net.signals.data()]) {
      m.walk[x] = WalkState::dont_walk;
    }
    if (in_green) {
      const WalkState w = t < m.config.walk_s ? WalkState::walk : WalkState::flashing;
      for (const LaneId x : phase.walk)
        m.walk[x] = w;
    }
  }
}

}  // namespace cityforge::traffic::detail
