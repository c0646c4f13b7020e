// SPDX-License-Identifier: Apache-2.0
#include "cityforge/sim/commands.hpp"

#include <algorithm>
#include <bit>

#include "cityforge/core/assert.hpp"
#include "cityforge/sim/world.hpp"

namespace cityforge::sim {

CommandWriter CommandBuffer::writer(std::uint32_t processor, std::uint32_t stream) {
  return CommandWriter(*this, *m_registry, processor, stream);
}

void CommandBuffer::merge(std::vector<Command>& commands) {
  const std::lock_guard lock(m_mutex);
  for (Command& c : commands) {
    m_commands.push_back(std::move(c));
  }
}

std::size_t CommandBuffer::size() const {
  const std::lock_guard lock(m_mutex);
  return m_commands.size();
}

void CommandBuffer::clear() {
  const std::lock_guard lock(m_mutex);
  m_commands.clear();
}

void CommandBuffer::apply(World& world) {
  std::vector<Command> commands;
  {
    const std::lock_guard lock(m_mutex);
    commands.swap(m_commands);
  }
  // 1. Canonical order: commands on existing entities by (entity index, key), then spawns by
  //    key. Keys are unique, so the order is total and independent of merge (thread) order.
  std::sort(commands.begin(), commands.end(), [](const Command& a, const Command& b) {
    const bool sa = a.kind == Command::Kind::spawn;
    const bool sb = b.kind == Command::Kind::spawn;
    if (sa != sb) {
      return sb;
    }
    if (!sa && a.target.index != b.target.index) {
      return a.target.index < b.target.index;
    }
    return a.key < b.key;
  });
#ifndef NDEBUG
  {
    std::vector<CommandKey> keys;
    keys.reserve(commands.size());
    for (const Command& c : commands) {
      keys.push_back(c.key);
    }
    std::sort(keys.begin(), keys.end());
    CF_ASSERT(std::adjacent_find(keys.begin(), keys.end()) == keys.end(),
              "two command writers used the same (processor, stream)");
  }
#endif
  // 2. Apply; commands naming stale handles are skipped by the world.
  const ComponentRegistry& registry = world.registry();
  for (const Command& c : commands) {
    switch (c.kind) {
      case Command::Kind::despawn:
        world.despawn(c.target);
        break;
      case Command::Kind::add:
        world.set_raw(c.target, static_cast<ComponentId>(std::countr_zero(c.mask.bits)),
                      c.payload.data());
        break;
      case Command::Kind::remove:
        world.remove_raw(c.target, static_cast<ComponentId>(std::countr_zero(c.mask.bits)));
        break;
      case Command::Kind::spawn: {
        const Entity e = world.spawn_empty(c.mask);
        std::size_t offset = 0;
        for (ComponentId id = 0; id < registry.size(); ++id) {
          if (c.mask.has(id)) {
            world.set_raw(e, id, c.payload.data() + offset);
            offset += registry.info(id).size;
          }
        }
        break;
      }
    }
  }
}

}  // namespace cityforge::sim
