// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>

#include "cityforge/sim/entities.hpp"

namespace cityforge::sim::test {

struct Position {
  float x_m = 0.0f;
  float y_m = 0.0f;
};
struct Velocity {
  float x_mps = 0.0f;
  float y_mps = 0.0f;
};
struct Lifetime {
  std::uint32_t ticks_left = 0;
};
struct Tag {
  std::uint32_t value = 0;
};

/// Registers the test components in a fixed order.
inline void register_all(World& world) {
  world.register_component<Position>("Position");
  world.register_component<Velocity>("Velocity");
  world.register_component<Lifetime>("Lifetime");
  world.register_component<Tag>("Tag");
}

}  // namespace cityforge::sim::test
