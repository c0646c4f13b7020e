// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

#include "cityforge/sim/component.hpp"
#include "cityforge/sim/entity.hpp"

namespace cityforge::sim {

class World;

/// Orders commands independently of threads: (stream, sequence within the stream). A stream is
/// one unit of work done by one thread, e.g. (processor index, chunk ordinal).
struct CommandKey {
  std::uint32_t processor = 0;  ///< Processor index in the schedule (or any caller number).
  std::uint32_t stream = 0;     ///< Chunk ordinal or another per-processor unique number.
  std::uint32_t seq = 0;        ///< Order of recording within the stream.
  friend constexpr auto operator<=>(const CommandKey&, const CommandKey&) = default;
};

/// One deferred structural change.
struct Command {
  enum class Kind : std::uint8_t { spawn, despawn, add, remove };
  Kind kind = Kind::spawn;
  Entity target;  ///< Null for spawn.
  CommandKey key;
  ComponentMask mask;  ///< spawn: all components; add/remove: the one component.
  /// spawn/add: component bytes packed in ascending component id order.
  std::vector<std::byte> payload;
};

class CommandWriter;

/// Commands recorded during a tick, applied at its end. Recording is thread-safe: each
/// `CommandWriter` buffers locally and merges under a lock when destroyed; the merged order is
/// then made canonical by sorting, so it never depends on which thread ran what.
///
/// Apply order: commands on existing entities first, by (target entity index, key); then spawns
/// by key. Commands naming a stale handle (e.g. despawned earlier in the same apply) are skipped.
/// Spawns reuse freed indices first-in first-out.
class CommandBuffer {
 public:
  explicit CommandBuffer(const ComponentRegistry& registry) : m_registry(&registry) {}
  /// A writer for one stream; (processor, stream) must be unique within a tick (asserted).
  CommandWriter writer(std::uint32_t processor, std::uint32_t stream);
  /// Applies and clears. Not thread-safe; the world calls it at the end of `tick()`.
  void apply(World& world);
  /// Commands merged so far.
  [[nodiscard]] std::size_t size() const;
  void clear();

 private:
  friend class CommandWriter;
  void merge(std::vector<Command>& commands);

  const ComponentRegistry* m_registry;
  mutable std::mutex m_mutex;
  std::vector<Command> m_commands;
};

/// Records commands of one stream. Use from one thread at a time; flushes on destruction.
class CommandWriter {
 public:
  CommandWriter(CommandBuffer& buffer, const ComponentRegistry& registry, std::uint32_t processor,
                std::uint32_t stream)
      : m_buffer(&buffer), m_registry(&registry), m_processor(processor), m_stream(stream) {}
  CommandWriter(const CommandWriter&) = delete;
  CommandWriter& operator=(const CommandWriter&) = delete;
  CommandWriter(CommandWriter&& o) noexcept
      : m_buffer(o.m_buffer),
        m_registry(o.m_registry),
        m_processor(o.m_processor),
        m_stream(o.m_stream),
        m_seq(o.m_seq),
        m_local(std::move(o.m_local)) {
    o.m_buffer = nullptr;
  }
  CommandWriter& operator=(CommandWriter&&) = delete;
  ~CommandWriter() { flush(); }

  /// Spawns an entity with these components (distinct, registered types).
  template <Component... T>
  void spawn(const T&... values) {
    Command c = make(Command::Kind::spawn, kNullEntity);
    (c.mask.set(m_registry->id<T>()), ...);
    std::size_t total = 0;
    for (ComponentId id = 0; id < m_registry->size(); ++id) {
      if (c.mask.has(id)) {
        total += m_registry->info(id).size;
      }
    }
    c.payload.resize(total);
    (pack(c, m_registry->id<T>(), &values, sizeof(T)), ...);
    m_local.push_back(std::move(c));
  }
  /// Despawns `e` (no-op if stale when applied).
  void despawn(Entity e) { m_local.push_back(make(Command::Kind::despawn, e)); }
  /// Adds T to `e`, or overwrites it if present.
  template <Component T>
  void add(Entity e, const T& value) {
    Command c = make(Command::Kind::add, e);
    c.mask.set(m_registry->id<T>());
    c.payload.resize(sizeof(T));
    std::memcpy(c.payload.data(), &value, sizeof(T));
    m_local.push_back(std::move(c));
  }
  /// Removes T from `e` (no-op if absent).
  template <Component T>
  void remove(Entity e) {
    Command c = make(Command::Kind::remove, e);
    c.mask.set(m_registry->id<T>());
    m_local.push_back(std::move(c));
  }
  /// Hands the recorded commands to the buffer (also done on destruction).
  void flush() {
    if (m_buffer != nullptr && !m_local.empty()) {
      m_buffer->merge(m_local);
      m_local.clear();
    }
  }

 private:
  Command make(Command::Kind kind, Entity target) {
    Command c;
    c.kind = kind;
    c.target = target;
    c.key = {m_processor, m_stream, m_seq++};
    return c;
  }
  // Places one component at its packed offset (components in ascending id order).
  void pack(Command& c, ComponentId id, const void* value, std::size_t size) const {
    std::size_t offset = 0;
    for (ComponentId i = 0; i < id; ++i) {
      if (c.mask.has(i)) {
        offset += m_registry->info(i).size;
      }
    }
    std::memcpy(c.payload.data() + offset, value, size);
  }

  CommandBuffer* m_buffer;
  const ComponentRegistry* m_registry;
  std::uint32_t m_processor;
  std::uint32_t m_stream;
  std::uint32_t m_seq = 0;
  std::vector<Command> m_local;
};

}  // namespace cityforge::sim
