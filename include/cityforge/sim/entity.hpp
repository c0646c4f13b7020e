// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <compare>
#include <cstdint>
#include <limits>

namespace cityforge::sim {

/// A stable entity handle: a slot index plus the slot's generation when the handle was made.
/// Despawning bumps the slot's generation, so every older handle becomes stale and resolves to
/// nothing; freed indices are reused first-in first-out. Handles are ids, never pointers.
struct Entity {
  std::uint32_t index = std::numeric_limits<std::uint32_t>::max();  ///< Slot in the world.
  std::uint32_t generation = 0;  ///< Slot generation this handle refers to.

  /// True unless this is the null handle (it may still be stale: ask `World::alive`).
  [[nodiscard]] constexpr bool valid() const {
    return index != std::numeric_limits<std::uint32_t>::max();
  }
  friend constexpr auto operator<=>(const Entity&, const Entity&) = default;
};

/// The handle that never resolves.
inline constexpr Entity kNullEntity{};

}  // namespace cityforge::sim
