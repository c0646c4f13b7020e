// SPDX-License-Identifier: Apache-2.0
#include "cityforge/core/assert.hpp"
#include "cityforge/sim/component.hpp"

namespace cityforge::sim {

ComponentId ComponentRegistry::add_raw(const void* key, std::string name, std::uint32_t size,
                                       std::uint32_t align) {
  if (const auto existing = find_raw(key)) {
    return *existing;
  }
  CF_ASSERT(m_infos.size() < kMaxComponents, "too many component types");
  m_infos.push_back(ComponentInfo{std::move(name), size, align, key});
  return static_cast<ComponentId>(m_infos.size() - 1);
}

std::optional<ComponentId> ComponentRegistry::find_raw(const void* key) const {
  // Few types (<= 64): a linear scan beats a map and keeps no unordered state.
  for (std::size_t i = 0; i < m_infos.size(); ++i) {
    if (m_infos[i].key == key) {
      return static_cast<ComponentId>(i);
    }
  }
  return std::nullopt;
}

ComponentId ComponentRegistry::id_raw(const void* key) const {
  const auto id = find_raw(key);
  CF_ASSERT(id.has_value(), "component type not registered");
  return id.value_or(0);
}

}  // namespace cityforge::sim
