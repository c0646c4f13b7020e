// SPDX-License-Identifier: Apache-2.0
#include "cityforge/sim/schedule.hpp"

#include <tbb/task_group.h>

#include <algorithm>

namespace cityforge::sim {

bool conflicts(const Processor& a, const Processor& b) {
  if (a.writes.intersects(b.reads | b.writes) || b.writes.intersects(a.reads)) {
    return true;
  }
  return (a.resource_writes & (b.resource_reads | b.resource_writes)) != 0U ||
         (b.resource_writes & a.resource_reads) != 0U;
}

std::uint32_t Schedule::add(Processor processor) {
  const auto index = static_cast<std::uint32_t>(m_processors.size());
  // One phase after the latest earlier processor this one conflicts with.
  std::uint32_t phase = 0;
  for (std::uint32_t q = 0; q < index; ++q) {
    if (conflicts(processor, m_processors[q])) {
      phase = std::max(phase, m_phase_of[q] + 1);
    }
  }
  m_processors.push_back(std::move(processor));
  m_phase_of.push_back(phase);
  if (phase == m_phases.size()) {
    m_phases.emplace_back();
  }
  m_phases[phase].push_back(index);
  return index;
}

void Schedule::run(World& world, CommandBuffer& commands, float dt_s, std::uint64_t tick) const {
  for (const std::vector<std::uint32_t>& phase : m_phases) {
    const auto run_one = [&](std::uint32_t p) {
      m_processors[p].run(TickContext{world, commands, dt_s, tick, p});
    };
    if (phase.size() == 1) {
      run_one(phase.front());
      continue;
    }
    tbb::task_group group;
    for (const std::uint32_t p : phase) {
      group.run([&run_one, p] { run_one(p); });
    }
    group.wait();
  }
}

}  // namespace cityforge::sim
