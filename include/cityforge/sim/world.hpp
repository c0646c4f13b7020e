// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cityforge/core/assert.hpp"
#include "cityforge/sim/archetype.hpp"
#include "cityforge/sim/commands.hpp"
#include "cityforge/sim/component.hpp"
#include "cityforge/sim/entity.hpp"
#include "cityforge/sim/query.hpp"
#include "cityforge/sim/schedule.hpp"

namespace cityforge::sim {

/// World settings.
struct WorldConfig {
  float dt_s = 1.0f / 30.0f;  ///< Fixed tick length, seconds. [Limit: > 0]
};

/// Entities, their components (per archetype, chunked structure of arrays), the processor
/// schedule and the end-of-tick command buffer. Structural changes (spawn, despawn, add,
/// remove) are immediate outside `tick()` and must go through commands inside it.
/// Same registrations, same calls and same schedule give the same `state_hash()` at any thread
/// count.
class World {
 public:
  explicit World(WorldConfig config = {});
  World(const World&) = delete;
  World& operator=(const World&) = delete;
  ~World();

  // -- Components ----------------------------------------------------------------------------
  /// Registers a component type (idempotent); register in a fixed order for stable ids.
  template <Component T>
  ComponentId register_component(std::string name) {
    return m_registry.add<T>(std::move(name));
  }
  template <Component T>
  [[nodiscard]] ComponentId id() const {
    return m_registry.id<T>();
  }
  [[nodiscard]] const ComponentRegistry& registry() const { return m_registry; }
  /// Mask of the given registered types.
  template <Component... T>
  [[nodiscard]] ComponentMask mask() const {
    ComponentMask m;
    (m.set(id<T>()), ...);
    return m;
  }

  // -- Entities (immediate; not during tick) -------------------------------------------------
  template <Component... T>
  Entity spawn(const T&... values) {
    const Entity e = spawn_empty(mask<T...>());
    (set_raw(e, id<T>(), &values), ...);
    return e;
  }
  /// Despawns; false if `e` is stale.
  bool despawn(Entity e);
  /// Adds T (or overwrites it); false if `e` is stale.
  template <Component T>
  bool add(Entity e, const T& value) {
    return set_raw(e, id<T>(), &value);
  }
  /// Removes T; false if `e` is stale or lacks T.
  template <Component T>
  bool remove(Entity e) {
    return remove_raw(e, id<T>());
  }
  /// True if `e` names a live entity (false for stale and null handles).
  [[nodiscard]] bool alive(Entity e) const;
  /// The entity's T, or null when `e` is stale or lacks T. Valid until the next structural
  /// change.
  template <Component T>
  [[nodiscard]] T* get(Entity e) {
    return reinterpret_cast<T*>(get_raw(e, id<T>()));
  }
  template <Component T>
  [[nodiscard]] const T* get(Entity e) const {
    return reinterpret_cast<const T*>(const_cast<World*>(this)->get_raw(e, id<T>()));
  }
  template <Component T>
  [[nodiscard]] bool has(Entity e) const {
    return get<T>(e) != nullptr;
  }
  /// Live entities.
  [[nodiscard]] std::size_t entity_count() const { return m_live; }

  // -- Queries -------------------------------------------------------------------------------
  /// Query requiring all of T.
  template <Component... T>
  [[nodiscard]] Query query() const {
    return Query{mask<T...>(), {}};
  }
  /// Matching non-empty chunks in canonical order (archetypes by creation, chunks ascending),
  /// with ordinals 0, 1, ...
  [[nodiscard]] std::vector<ChunkView> chunks(const Query& q);
  /// Calls f on each matching chunk, in order, on this thread.
  template <class F>
  void for_each_chunk(const Query& q, F&& f) {
    for (const ChunkView& c : chunks(q)) {
      f(c);
    }
  }
  /// Calls f on each matching chunk, chunks in parallel (oneTBB). Chunks are independent;
  /// record commands with `ctx.writer(chunk.ordinal())` to keep their order thread-free.
  void parallel_for_each_chunk(const Query& q, const std::function<void(const ChunkView&)>& f);
  /// Entities matching q.
  [[nodiscard]] std::size_t count(const Query& q) const;
  /// Where a live entity is stored: its archetype (in creation order) and its row there.
  struct Place {
    std::uint32_t archetype = kNowhere;  ///< kNowhere: no live entity has the index.
    std::uint32_t row = 0;
  };
  static constexpr std::uint32_t kNowhere = 0xffffffffU;
  /// The place of the live entity with this index (generations aside), in O(1): a tool to find
  /// a few known entities' rows without passing over every chunk. Valid until the next
  /// structural change.
  [[nodiscard]] Place place(std::uint32_t index) const;
  /// Per archetype (creation order): the position of its first row among the rows of `q`'s
  /// chunks taken in chunks() order, or kNowhere when it does not match q. An entity at `place`
  /// is then row first_rows[archetype] + row of the query.
  [[nodiscard]] std::vector<std::uint32_t> first_rows(const Query& q) const;

  // -- Ticking -------------------------------------------------------------------------------
  Schedule& schedule() { return m_schedule; }
  [[nodiscard]] const Schedule& schedule() const { return m_schedule; }
  /// Runs the schedule (phase by phase), then applies the commands recorded during it.
  void tick();
  [[nodiscard]] std::uint64_t tick_count() const { return m_tick; }
  [[nodiscard]] float dt_s() const { return m_config.dt_s; }
  /// Commands recorded so far in the current tick (for processors run outside `tick()`).
  CommandBuffer& commands() { return m_commands; }
  [[nodiscard]] bool in_tick() const { return m_in_tick; }

  /// Hash of all live entities in index order: index, generation, component ids and component
  /// bytes. Independent of thread count and archetype storage order.
  [[nodiscard]] std::uint64_t state_hash() const;

  // -- Raw access (commands) -----------------------------------------------------------------
  /// Spawns with the given components zeroed.
  Entity spawn_empty(ComponentMask mask);
  /// Copies `size` bytes of component `id` into e (adding it if absent); false if stale.
  bool set_raw(Entity e, ComponentId id, const void* value);
  bool remove_raw(Entity e, ComponentId id);
  [[nodiscard]] std::byte* get_raw(Entity e, ComponentId id);

 private:
  struct Slot {
    std::uint32_t generation = 0;
    std::uint32_t archetype = 0;
    std::uint32_t row = 0;
    bool alive = false;
  };

  std::uint32_t archetype_for(ComponentMask mask);
  void move_to(Entity e, std::uint32_t target);
  void erase_row(std::uint32_t archetype, std::uint32_t row);

  WorldConfig m_config;
  ComponentRegistry m_registry;
  std::vector<std::unique_ptr<Archetype>> m_archetypes;
  std::vector<Slot> m_slots;
  std::deque<std::uint32_t> m_free;
  std::size_t m_live = 0;
  Schedule m_schedule;
  CommandBuffer m_commands{m_registry};
  std::uint64_t m_tick = 0;
  bool m_in_tick = false;
};

}  // namespace cityforge::sim
