// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cityforge/sim/commands.hpp"
#include "cityforge/sim/component.hpp"

namespace cityforge::sim {

class World;

/// What a processor gets each tick.
struct TickContext {
  World& world;
  CommandBuffer& commands;
  float dt_s;               ///< Fixed tick length, seconds.
  std::uint64_t tick;       ///< Index of the tick being run (0 for the first).
  std::uint32_t processor;  ///< This processor's index in the schedule.

  /// A command writer for one unit of this processor's work (use the chunk ordinal).
  [[nodiscard]] CommandWriter writer(std::uint32_t stream) const {
    return commands.writer(processor, stream);
  }
};

/// A stateless function run once per tick over queries. `reads` and `writes` are the component
/// types it touches, `resource_*` the shared non-component data; the scheduler trusts them
/// (writing outside `writes` is a data race).
struct Processor {
  std::string name;
  ComponentMask reads;
  ComponentMask writes;
  /// Shared data outside the components (lane queues, signal states...), one bit per resource
  /// as the caller numbers them; they order processors like component sets do.
  std::uint64_t resource_reads = 0;
  std::uint64_t resource_writes = 0;
  std::function<void(const TickContext&)> run;
};

/// True when a and b may not run at the same time: one writes what the other reads or writes
/// (components or resources).
[[nodiscard]] bool conflicts(const Processor& a, const Processor& b);

/// Processors in declaration order, grouped into phases. A processor goes one phase after the
/// latest earlier processor it conflicts with, so conflicting processors keep their declaration
/// order and never overlap, while processors in one phase run in parallel (oneTBB).
class Schedule {
 public:
  /// Appends a processor; returns its index.
  std::uint32_t add(Processor processor);
  [[nodiscard]] const std::vector<Processor>& processors() const { return m_processors; }
  /// Processor indices per phase, ascending within a phase.
  [[nodiscard]] const std::vector<std::vector<std::uint32_t>>& phases() const { return m_phases; }
  /// Runs all phases in order; processors of one phase concurrently.
  void run(World& world, CommandBuffer& commands, float dt_s, std::uint64_t tick) const;

 private:
  std::vector<Processor> m_processors;
  std::vector<std::uint32_t> m_phase_of;
  std::vector<std::vector<std::uint32_t>> m_phases;
};

}  // namespace cityforge::sim
