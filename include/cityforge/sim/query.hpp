// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <span>

#include "cityforge/core/assert.hpp"
#include "cityforge/sim/archetype.hpp"

namespace cityforge::sim {

/// Selects archetypes having every component of `all` and none of `none`.
struct Query {
  ComponentMask all;   ///< Required components.
  ComponentMask none;  ///< Excluded components.

  [[nodiscard]] constexpr bool matches(ComponentMask m) const {
    return m.contains(all) && !m.intersects(none);
  }
  /// Adds an excluded component.
  constexpr Query& without(ComponentId id) {
    none.set(id);
    return *this;
  }
};

/// One chunk of one matching archetype, as handed to processors. `ordinal` is the chunk's
/// position in the query's deterministic order (archetypes by creation, then chunks), the same
/// for any thread count: use it as the command stream of work done on this chunk.
class ChunkView {
 public:
  ChunkView(Archetype* archetype, std::uint32_t chunk, std::uint32_t ordinal,
            const ComponentRegistry* registry)
      : m_archetype(archetype), m_chunk(chunk), m_ordinal(ordinal), m_registry(registry) {}

  [[nodiscard]] std::uint32_t ordinal() const { return m_ordinal; }
  [[nodiscard]] std::size_t size() const { return m_archetype->chunk_size(m_chunk); }
  [[nodiscard]] std::span<const Entity> entities() const {
    return {m_archetype->entities(m_chunk), size()};
  }
  template <Component T>
  [[nodiscard]] bool has() const {
    const auto id = m_registry->find<T>();
    return id && m_archetype->column_of(*id) >= 0;
  }
  /// Column of T, read-only (T must be in the archetype).
  template <Component T>
  [[nodiscard]] std::span<const T> read() const {
    return {reinterpret_cast<const T*>(column_bytes<T>()), size()};
  }
  /// Column of T, writable (T must be in the archetype and in the processor's write set).
  template <Component T>
  [[nodiscard]] std::span<T> write() const {
    return {reinterpret_cast<T*>(column_bytes<T>()), size()};
  }

 private:
  template <Component T>
  [[nodiscard]] std::byte* column_bytes() const {
    const int col = m_archetype->column_of(m_registry->id<T>());
    CF_ASSERT(col >= 0, "component not in this chunk's archetype");
    return m_archetype->column(m_chunk, col);
  }

  Archetype* m_archetype;
  std::uint32_t m_chunk;
  std::uint32_t m_ordinal;
  const ComponentRegistry* m_registry;
};

}  // namespace cityforge::sim
