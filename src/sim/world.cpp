// SPDX-License-Identifier: Apache-2.0
#include "cityforge/sim/world.hpp"

#include <cstring>

#include "cityforge/core/rng.hpp"

namespace cityforge::sim {

World::World(WorldConfig config) : m_config(config) {
  CF_ASSERT(config.dt_s > 0.0f, "dt_s must be > 0");
}

World::~World() = default;

std::uint32_t World::archetype_for(ComponentMask mask) {
  for (std::size_t i = 0; i < m_archetypes.size(); ++i) {
    if (m_archetypes[i]->mask() == mask) {
      return static_cast<std::uint32_t>(i);
    }
  }
  m_archetypes.push_back(std::make_unique<Archetype>(mask, m_registry));
  return static_cast<std::uint32_t>(m_archetypes.size() - 1);
}

Entity World::spawn_empty(ComponentMask mask) {
  CF_ASSERT(!m_in_tick, "structural change during tick: use commands");
  std::uint32_t index = 0;
  if (!m_free.empty()) {
    index = m_free.front();
    m_free.pop_front();
  } else {
    index = static_cast<std::uint32_t>(m_slots.size());
    m_slots.emplace_back();
  }
  Slot& slot = m_slots[index];
  const Entity e{index, slot.generation};
  slot.archetype = archetype_for(mask);
  slot.row = m_archetypes[slot.archetype]->push(e);
  slot.alive = true;
  ++m_live;
  return e;
}

bool World::alive(Entity e) const {
  return e.index < m_slots.size() && m_slots[e.index].alive &&
         m_slots[e.index].generation == e.generation;
}

void World::erase_row(std::uint32_t archetype, std::uint32_t row) {
  const Entity moved = m_archetypes[archetype]->swap_remove(row);
  if (moved.valid()) {
    m_slots[moved.index].row = row;
  }
}

bool World::despawn(Entity e) {
  CF_ASSERT(!m_in_tick, "structural change during tick: use commands");
  if (!alive(e)) {
    return false;
  }
  Slot& slot = m_slots[e.index];
  erase_row(slot.archetype, slot.row);
  slot.alive = false;
  ++slot.generation;
  m_free.push_back(e.index);
  --m_live;
  return true;
}

void World::move_to(Entity e, std::uint32_t target) {
  Slot& slot = m_slots[e.index];
  Archetype& from = *m_archetypes[slot.archetype];
  Archetype& to = *m_archetypes[target];
  const std::uint32_t row = to.push(e);
  for (const ComponentId id : to.components()) {
    const int src = from.column_of(id);
    if (src >= 0) {
      const int dst = to.column_of(id);
      std::memcpy(to.at(row, dst), from.at(slot.row, src), to.column_size(dst));
    }
  }
  erase_row(slot.archetype, slot.row);
  slot.archetype = target;
  slot.row = row;
}

bool World::set_raw(Entity e, ComponentId id, const void* value) {
  CF_ASSERT(!m_in_tick, "structural change during tick: use commands");
  if (!alive(e)) {
    return false;
  }
  const Slot& slot = m_slots[e.index];
  if (m_archetypes[slot.archetype]->column_of(id) < 0) {
    move_to(e, archetype_for(m_archetypes[slot.archetype]->mask() | ComponentMask{}.set(id)));
  }
  Archetype& a = *m_archetypes[slot.archetype];
  std::memcpy(a.at(slot.row, a.column_of(id)), value, m_registry.info(id).size);
  return true;
}

bool World::remove_raw(Entity e, ComponentId id) {
  CF_ASSERT(!m_in_tick, "structural change during tick: use commands");
  if (!alive(e) || m_archetypes[m_slots[e.index].archetype]->column_of(id) < 0) {
    return false;
  }
  ComponentMask mask = m_archetypes[m_slots[e.index].archetype]->mask();
  move_to(e, archetype_for(mask.reset(id)));
  return true;
}

std::byte* World::get_raw(Entity e, ComponentId id) {
  if (!alive(e)) {
    return nullptr;
  }
  const Slot& slot = m_slots[e.index];
  Archetype& a = *m_archetypes[slot.archetype];
  const int col = a.column_of(id);
  return col < 0 ? nullptr : a.at(slot.row, col);
}

std::vector<ChunkView> World::chunks(const Query& q) {
  std::vector<ChunkView> out;
  std::uint32_t ordinal = 0;
  for (const auto& a : m_archetypes) {
    if (!q.matches(a->mask())) {
      continue;
    }
    for (std::uint32_t c = 0; c < a->chunk_count(); ++c) {
      out.emplace_back(a.get(), c, ordinal++, &m_registry);
    }
  }
  return out;
}

std::size_t World::count(const Query& q) const {
  std::size_t n = 0;
  for (const auto& a : m_archetypes) {
    if (q.matches(a->mask())) {
      n += a->size();
    }
  }
  return n;
}

World::Place World::place(std::uint32_t index) const {
  if (index >= m_slots.size() || !m_slots[index].alive) return Place{};
  return Place{m_slots[index].archetype, m_slots[index].row};
}

std::vector<std::uint32_t> World::first_rows(const Query& q) const {
  std::vector<std::uint32_t> out(m_archetypes.size(), kNowhere);
  std::uint32_t n = 0;
  for (std::size_t a = 0; a < m_archetypes.size(); ++a) {
    if (!q.matches(m_archetypes[a]->mask())) continue;
    out[a] = n;
    n += m_archetypes[a]->size();
  }
  return out;
}

void World::tick() {
  CF_ASSERT(!m_in_tick, "tick() is not reentrant");
  m_in_tick = true;
  m_schedule.run(*this, m_commands, m_config.dt_s, m_tick);
  m_in_tick = false;
  m_commands.apply(*this);
  ++m_tick;
}

std::uint64_t World::state_hash() const {
  // Canonical order: entity index, so archetype creation order and row moves do not matter.
  std::uint64_t h = hash_combine(0, m_live);
  for (std::uint32_t index = 0; index < m_slots.size(); ++index) {
    const Slot& slot = m_slots[index];
    if (!slot.alive) {
      continue;
    }
    const Archetype& a = *m_archetypes[slot.archetype];
    h = hash_combine(h, index);
    h = hash_combine(h, slot.generation);
    h = hash_combine(h, a.mask().bits);
    for (const ComponentId id : a.components()) {
      const int col = a.column_of(id);
      h = hash_bytes(a.at(slot.row, col), a.column_size(col), h);
    }
  }
  return h;
}

}  // namespace cityforge::sim
