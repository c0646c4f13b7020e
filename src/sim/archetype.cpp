// SPDX-License-Identifier: Apache-2.0
#include "cityforge/sim/archetype.hpp"

#include <cstring>

#include "cityforge/core/assert.hpp"

namespace cityforge::sim {

Archetype::Archetype(ComponentMask mask, const ComponentRegistry& registry) : m_mask(mask) {
  m_column_of.fill(-1);
  for (ComponentId id = 0; id < registry.size(); ++id) {
    if (mask.has(id)) {
      m_column_of[id] = static_cast<int>(m_components.size());
      m_components.push_back(id);
      m_sizes.push_back(registry.info(id).size);
    }
  }
  CF_ASSERT(static_cast<int>(m_components.size()) == mask.count(), "unregistered component");
}

std::uint32_t Archetype::chunk_size(std::uint32_t chunk) const {
  const std::uint32_t begin = chunk * kChunkCapacity;
  return m_size - begin < kChunkCapacity ? m_size - begin : kChunkCapacity;
}

std::byte* Archetype::at(std::uint32_t row, int column) {
  return this->column(row / kChunkCapacity, column) +
         std::size_t{row % kChunkCapacity} * m_sizes[static_cast<std::size_t>(column)];
}

const std::byte* Archetype::at(std::uint32_t row, int column) const {
  return this->column(row / kChunkCapacity, column) +
         std::size_t{row % kChunkCapacity} * m_sizes[static_cast<std::size_t>(column)];
}

Entity Archetype::entity_at(std::uint32_t row) const {
  return m_chunks[row / kChunkCapacity].entities[row % kChunkCapacity];
}

std::uint32_t Archetype::push(Entity e) {
  const std::uint32_t row = m_size;
  const std::uint32_t chunk = row / kChunkCapacity;
  if (chunk == m_chunks.size()) {
    // Chunks are kept once allocated, so an archetype that shrinks and grows again reuses them.
    Chunk c;
    c.entities = std::make_unique<Entity[]>(kChunkCapacity);
    for (const std::uint32_t size : m_sizes) {
      c.columns.push_back(std::make_unique<std::byte[]>(std::size_t{kChunkCapacity} * size));
    }
    m_chunks.push_back(std::move(c));
  }
  m_chunks[chunk].entities[row % kChunkCapacity] = e;
  ++m_size;
  for (std::size_t col = 0; col < m_sizes.size(); ++col) {
    std::memset(at(row, static_cast<int>(col)), 0, m_sizes[col]);
  }
  return row;
}

Entity Archetype::swap_remove(std::uint32_t row) {
  CF_ASSERT(row < m_size, "row out of range");
  const std::uint32_t last = m_size - 1;
  Entity moved = kNullEntity;
  if (row != last) {
    moved = entity_at(last);
    m_chunks[row / kChunkCapacity].entities[row % kChunkCapacity] = moved;
    for (std::size_t col = 0; col < m_sizes.size(); ++col) {
      std::memcpy(at(row, static_cast<int>(col)), at(last, static_cast<int>(col)), m_sizes[col]);
    }
  }
  --m_size;
  return moved;
}

}  // namespace cityforge::sim
