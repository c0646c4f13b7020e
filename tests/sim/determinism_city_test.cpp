// SPDX-License-Identifier: Apache-2.0
// The toy simulation's state hash with 50,000 entities at 1 and 2 threads (slow: label city).
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <cstdint>

#include "cityforge/core/rng.hpp"
#include "sim/components.hpp"

namespace cityforge::sim {
namespace {

using test::Lifetime;
using test::Position;
using test::Tag;
using test::Velocity;

float unit(std::uint64_t h) { return static_cast<float>(h >> 40U) / static_cast<float>(1U << 24U); }

// Toy simulation: positions integrated by velocities; entities whose lifetime runs out despawn
// and are replaced by a spawn; some gain or lose a Tag (archetype moves), all via commands.
std::uint64_t run_toy(int threads, std::uint32_t entities, int ticks) {
  const tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                  static_cast<std::size_t>(threads));
  World w(WorldConfig{0.1f});
  test::register_all(w);
  for (std::uint32_t i = 0; i < entities; ++i) {
    const std::uint64_t h = mix64(i);
    w.spawn(Position{unit(h) * 1000.0f, unit(mix64(h)) * 1000.0f},
            Velocity{unit(h + 1) * 20.0f - 10.0f, unit(h + 2) * 20.0f - 10.0f},
            Lifetime{1 + static_cast<std::uint32_t>(h % 200)});
  }

  Processor integrate;
  integrate.name = "integrate";
  integrate.reads = w.mask<Velocity>();
  integrate.writes = w.mask<Position>();
  integrate.run = [](const TickContext& ctx) {
    ctx.world.parallel_for_each_chunk(ctx.world.query<Position, Velocity>(),
                                      [&](const ChunkView& c) {
                                        const std::span<Position> pos = c.write<Position>();
                                        const std::span<const Velocity> vel = c.read<Velocity>();
                                        for (std::size_t i = 0; i < pos.size(); ++i) {
                                          pos[i].x_m += vel[i].x_mps * ctx.dt_s;
                                          pos[i].y_m += vel[i].y_mps * ctx.dt_s;
                                        }
                                      });
  };
  w.schedule().add(std::move(integrate));

  Processor age;
  age.name = "age";
  age.writes = w.mask<Lifetime>();
  age.run = [](const TickContext& ctx) {
    ctx.world.parallel_for_each_chunk(ctx.world.query<Lifetime>(), [&](const ChunkView& c) {
      CommandWriter out = ctx.writer(c.ordinal());
      const std::span<Lifetime> life = c.write<Lifetime>();
      const std::span<const Entity> ents = c.entities();
      const bool tagged = c.has<Tag>();
      for (std::size_t i = 0; i < life.size(); ++i) {
        const std::uint64_t h = hash_combine(ctx.tick, ents[i].index);
        if (--life[i].ticks_left == 0) {
          out.despawn(ents[i]);
          out.spawn(Position{unit(h) * 1000.0f, unit(h + 1) * 1000.0f},
                    Velocity{unit(h + 2) * 20.0f - 10.0f, unit(h + 3) * 20.0f - 10.0f},
                    Lifetime{1 + static_cast<std::uint32_t>(h % 200)});
        } else if (!tagged && h % 97 == 0) {
          out.add(ents[i], Tag{static_cast<std::uint32_t>(ctx.tick)});
        } else if (tagged && h % 13 == 0) {
          out.remove<Tag>(ents[i]);
        }
      }
    });
  };
  w.schedule().add(std::move(age));
  EXPECT_EQ(w.schedule().phases().size(), 1U);

  std::uint64_t start = w.state_hash();
  for (int t = 0; t < ticks; ++t) {
    w.tick();
  }
  EXPECT_EQ(w.entity_count(), entities);
  EXPECT_GT(w.count(w.query<Tag>()), 0U);
  EXPECT_NE(w.state_hash(), start);
  return w.state_hash();
}

TEST(SimDeterminism, StateHashIdenticalForOneAndTwoThreads) {
  const std::uint64_t one = run_toy(1, 50000, 100);
  const std::uint64_t two = run_toy(2, 50000, 100);
  EXPECT_EQ(one, two);
  EXPECT_EQ(run_toy(2, 50000, 100), two);
}

}  // namespace
}  // namespace cityforge::sim
