// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "cityforge/sim/component.hpp"
#include "cityforge/sim/entity.hpp"

namespace cityforge::sim {

/// Entities per chunk. Chunks are the unit of parallel work.
inline constexpr std::uint32_t kChunkCapacity = 1024;

/// All entities with exactly one set of component types. Rows are dense: row r lives in chunk
/// r / kChunkCapacity at offset r % kChunkCapacity; each chunk stores one column per component
/// (structure of arrays) plus the entity handle column. Removal moves the last row into the hole.
class Archetype {
 public:
  Archetype(ComponentMask mask, const ComponentRegistry& registry);

  [[nodiscard]] ComponentMask mask() const { return m_mask; }
  /// Component ids, ascending.
  [[nodiscard]] std::span<const ComponentId> components() const { return m_components; }
  /// Column of a component in this archetype, or -1.
  [[nodiscard]] int column_of(ComponentId id) const { return m_column_of[id]; }
  /// Bytes per element of a column.
  [[nodiscard]] std::uint32_t column_size(int column) const { return m_sizes[column]; }

  [[nodiscard]] std::uint32_t size() const { return m_size; }
  /// Chunks in use: ceil(size / kChunkCapacity).
  [[nodiscard]] std::uint32_t chunk_count() const {
    return (m_size + kChunkCapacity - 1) / kChunkCapacity;
  }
  /// Rows in use in a chunk.
  [[nodiscard]] std::uint32_t chunk_size(std::uint32_t chunk) const;
  [[nodiscard]] Entity* entities(std::uint32_t chunk) { return m_chunks[chunk].entities.get(); }
  [[nodiscard]] std::byte* column(std::uint32_t chunk, int column) {
    return m_chunks[chunk].columns[static_cast<std::size_t>(column)].get();
  }
  [[nodiscard]] const std::byte* column(std::uint32_t chunk, int column) const {
    return m_chunks[chunk].columns[static_cast<std::size_t>(column)].get();
  }
  /// Address of one element.
  [[nodiscard]] std::byte* at(std::uint32_t row, int column);
  [[nodiscard]] const std::byte* at(std::uint32_t row, int column) const;
  [[nodiscard]] Entity entity_at(std::uint32_t row) const;

  /// Appends a row for `e` with zeroed components; returns the row.
  std::uint32_t push(Entity e);
  /// Removes `row` by moving the last row into it. Returns the entity now at `row`, or the null
  /// handle when `row` was the last row.
  Entity swap_remove(std::uint32_t row);

 private:
  struct Chunk {
    std::unique_ptr<Entity[]> entities;
    std::vector<std::unique_ptr<std::byte[]>> columns;
  };

  ComponentMask m_mask;
  std::vector<ComponentId> m_components;
  std::vector<std::uint32_t> m_sizes;
  std::array<int, kMaxComponents> m_column_of{};
  std::vector<Chunk> m_chunks;
  std::uint32_t m_size = 0;
};

}  // namespace cityforge::sim
