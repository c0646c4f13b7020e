// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <vector>

#include "sim/components.hpp"

namespace cityforge::sim {
namespace {

using test::Lifetime;
using test::Position;
using test::Tag;
using test::Velocity;

TEST(SimCommands, DeferredToTickEndAndAppliedInCanonicalOrder) {
  World w;
  test::register_all(w);
  std::vector<Entity> es;
  for (int i = 0; i < 3000; ++i) {
    es.push_back(w.spawn(Position{float(i), 0}, Velocity{1, 0}));
  }
  Processor p;
  p.name = "churn";
  p.reads = w.mask<Position>();
  p.run = [&](const TickContext& ctx) {
    ctx.world.parallel_for_each_chunk(ctx.world.query<Position>(), [&](const ChunkView& c) {
      CommandWriter out = ctx.writer(c.ordinal());
      const auto pos = c.read<Position>();
      const auto ents = c.entities();
      for (std::size_t i = 0; i < c.size(); ++i) {
        const int x = static_cast<int>(pos[i].x_m);
        if (x % 10 == 0) {
          out.despawn(ents[i]);
          out.spawn(Position{-float(x), 0}, Tag{static_cast<std::uint32_t>(x)});
        } else if (x % 10 == 1) {
          out.add(ents[i], Tag{7});
          out.remove<Velocity>(ents[i]);
        }
      }
    });
    // Nothing applied yet.
    EXPECT_EQ(ctx.world.entity_count(), 3000U);
    EXPECT_GT(ctx.commands.size(), 0U);
  };
  w.schedule().add(std::move(p));
  w.tick();

  EXPECT_EQ(w.entity_count(), 3000U);
  EXPECT_EQ(w.commands().size(), 0U);
  EXPECT_EQ(w.count(w.query<Tag>()), 600U);
  EXPECT_EQ(w.count(w.query<Velocity>()), 2400U);
  for (int i = 0; i < 3000; ++i) {
    if (i % 10 == 0) {
      EXPECT_FALSE(w.alive(es[i]));
    } else if (i % 10 == 1) {
      EXPECT_EQ(w.get<Tag>(es[i])->value, 7U);
      EXPECT_FALSE(w.has<Velocity>(es[i]));
      EXPECT_EQ(w.get<Position>(es[i])->x_m, float(i));
    }
  }
  // Despawns ran in entity index order and spawns in key order (chunk ordinal, sequence), so
  // the freed indices 0, 10, 20, ... are reused FIFO by the spawns of x = 0, 10, 20, ...
  for (int i = 0; i < 3000; i += 10) {
    const Entity reused{es[i].index, es[i].generation + 1};
    ASSERT_TRUE(w.alive(reused));
    EXPECT_EQ(w.get<Tag>(reused)->value, static_cast<std::uint32_t>(i));
    EXPECT_EQ(w.get<Position>(reused)->x_m, -float(i));
  }
}

TEST(SimCommands, StaleTargetsAreSkipped) {
  World w;
  test::register_all(w);
  const Entity a = w.spawn(Position{1, 1});
  {
    CommandWriter out = w.commands().writer(0, 0);
    out.despawn(a);
    out.add(a, Tag{1});  // skipped: the despawn above has an earlier key
    out.despawn(a);
  }
  {
    CommandWriter out = w.commands().writer(0, 1);
    out.remove<Position>(a);
  }
  w.commands().apply(w);
  EXPECT_FALSE(w.alive(a));
  EXPECT_EQ(w.entity_count(), 0U);
}

}  // namespace
}  // namespace cityforge::sim
