// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "sim/components.hpp"

namespace cityforge::sim {
namespace {

using test::Lifetime;
using test::Position;
using test::Tag;
using test::Velocity;

TEST(SimWorld, SpawnDespawnReusesIndicesFifoWithNewGenerations) {
  World world;
  test::register_all(world);
  const Entity a = world.spawn(Position{1, 2});
  const Entity b = world.spawn(Position{3, 4});
  const Entity c = world.spawn(Position{5, 6});
  EXPECT_EQ(world.entity_count(), 3U);
  EXPECT_TRUE(world.despawn(b));
  EXPECT_TRUE(world.despawn(a));
  EXPECT_FALSE(world.despawn(a));
  EXPECT_FALSE(world.alive(a));
  EXPECT_FALSE(world.alive(b));
  EXPECT_EQ(world.get<Position>(a), nullptr);
  EXPECT_EQ(world.get<Position>(b), nullptr);
  // The moved row (c) keeps its values after swap-and-pop.
  ASSERT_NE(world.get<Position>(c), nullptr);
  EXPECT_EQ(world.get<Position>(c)->x_m, 5.0f);

  // FIFO: b's index first, then a's; generations bumped.
  const Entity d = world.spawn(Position{7, 8});
  const Entity e = world.spawn(Position{9, 10});
  EXPECT_EQ(d.index, b.index);
  EXPECT_EQ(d.generation, b.generation + 1);
  EXPECT_EQ(e.index, a.index);
  EXPECT_EQ(e.generation, a.generation + 1);
  // Stale handles to reused slots still resolve to nothing.
  EXPECT_FALSE(world.alive(a));
  EXPECT_EQ(world.get<Position>(b), nullptr);
  EXPECT_FALSE(world.add(b, Tag{1}));
  EXPECT_FALSE(world.remove<Position>(a));
  EXPECT_EQ(world.get<Position>(d)->x_m, 7.0f);
  EXPECT_FALSE(world.alive(kNullEntity));
  EXPECT_EQ(world.entity_count(), 3U);
}

TEST(SimWorld, AddRemoveMovesArchetypeAndKeepsOtherValues) {
  World world;
  test::register_all(world);
  std::vector<Entity> es;
  for (int i = 0; i < 3000; ++i) {
    es.push_back(world.spawn(Position{float(i), float(-i)}, Velocity{float(2 * i), 1.0f}));
  }
  const Entity e = es[1500];
  ASSERT_TRUE(world.add(e, Tag{42}));
  EXPECT_EQ(world.get<Tag>(e)->value, 42U);
  EXPECT_EQ(world.get<Position>(e)->x_m, 1500.0f);
  EXPECT_EQ(world.get<Velocity>(e)->x_mps, 3000.0f);
  EXPECT_EQ(world.count(world.query<Tag>()), 1U);
  // Overwrite in place.
  ASSERT_TRUE(world.add(e, Tag{43}));
  EXPECT_EQ(world.get<Tag>(e)->value, 43U);
  ASSERT_TRUE(world.remove<Velocity>(e));
  EXPECT_FALSE(world.has<Velocity>(e));
  EXPECT_FALSE(world.remove<Velocity>(e));
  EXPECT_EQ(world.get<Position>(e)->y_m, -1500.0f);
  EXPECT_EQ(world.get<Tag>(e)->value, 43U);
  // Everyone else unchanged (the hole was filled by swap-and-pop).
  for (int i = 0; i < 3000; ++i) {
    if (i == 1500) {
      continue;
    }
    ASSERT_EQ(world.get<Position>(es[i])->x_m, float(i));
    ASSERT_EQ(world.get<Velocity>(es[i])->x_mps, float(2 * i));
    ASSERT_FALSE(world.has<Tag>(es[i]));
  }
}

TEST(SimWorld, QueryVisitsExactlyMatchingEntities) {
  World world;
  test::register_all(world);
  std::set<Entity> moving;
  std::set<Entity> moving_untagged;
  for (std::uint32_t i = 0; i < 5000; ++i) {
    Entity e;
    switch (i % 4) {
      case 0:
        e = world.spawn(Position{}, Velocity{});
        moving.insert(e);
        moving_untagged.insert(e);
        break;
      case 1:
        e = world.spawn(Position{}, Velocity{}, Tag{i});
        moving.insert(e);
        break;
      case 2:
        e = world.spawn(Position{});
        break;
      default:
        e = world.spawn(Velocity{}, Lifetime{i});
        break;
    }
  }
  std::set<Entity> seen;
  std::uint32_t expected_ordinal = 0;
  world.for_each_chunk(world.query<Position, Velocity>(), [&](const ChunkView& c) {
    EXPECT_EQ(c.ordinal(), expected_ordinal++);
    EXPECT_LE(c.size(), kChunkCapacity);
    EXPECT_EQ(c.read<Position>().size(), c.size());
    for (const Entity e : c.entities()) {
      EXPECT_TRUE(seen.insert(e).second);
    }
  });
  EXPECT_EQ(seen, moving);

  seen.clear();
  world.for_each_chunk(world.query<Position, Velocity>().without(world.id<Tag>()),
                       [&](const ChunkView& c) {
                         EXPECT_FALSE(c.has<Tag>());
                         for (const Entity e : c.entities()) {
                           seen.insert(e);
                         }
                       });
  EXPECT_EQ(seen, moving_untagged);
  EXPECT_EQ(world.count(world.query<Velocity>()), 3750U);
}

// place() and first_rows() give an entity's row among a query's rows in chunks() order, after
// removals (swap-and-pop) and moves between archetypes; a dead index has no place.
TEST(SimWorld, PlacesAreTheRowsOfTheQuerysChunks) {
  World world;
  test::register_all(world);
  std::vector<Entity> all;
  for (std::uint32_t i = 0; i < 3000; ++i) {
    all.push_back(i % 3 == 0   ? world.spawn(Position{}, Velocity{}, Tag{i})
                  : i % 3 == 1 ? world.spawn(Position{}, Velocity{})
                               : world.spawn(Position{}));
  }
  for (std::uint32_t i = 0; i < 3000; i += 7)
    world.despawn(all[i]);
  for (std::uint32_t i = 1; i < 3000; i += 11)
    world.add(all[i], Tag{i});  // Moved to the tagged archetype (where it matches).
  const Query q = world.query<Position, Velocity>();
  const std::vector<std::uint32_t> first = world.first_rows(q);
  std::uint32_t row = 0;
  std::size_t seen = 0;
  for (const ChunkView& c : world.chunks(q)) {
    for (const Entity e : c.entities()) {
      const World::Place at = world.place(e.index);
      ASSERT_NE(at.archetype, World::kNowhere);
      ASSERT_LT(at.archetype, first.size());
      EXPECT_EQ(first[at.archetype] + at.row, row) << "entity " << e.index;
      ++row;
      ++seen;
    }
  }
  EXPECT_EQ(seen, world.count(q));
  EXPECT_EQ(world.place(all[7].index).archetype, World::kNowhere) << "despawned";
  EXPECT_EQ(world.place(99999).archetype, World::kNowhere) << "never spawned";
  const World::Place only_position = world.place(all[2].index);
  ASSERT_NE(only_position.archetype, World::kNowhere);
  EXPECT_EQ(first[only_position.archetype], World::kNowhere) << "its archetype does not match";
}

TEST(SimWorld, ChunkColumnsAreWritable) {
  World world;
  test::register_all(world);
  std::vector<Entity> es;
  for (int i = 0; i < 2500; ++i) {
    es.push_back(world.spawn(Position{float(i), 0}, Velocity{1, 2}));
  }
  world.parallel_for_each_chunk(world.query<Position, Velocity>(), [](const ChunkView& c) {
    const std::span<Position> pos = c.write<Position>();
    const std::span<const Velocity> vel = c.read<Velocity>();
    for (std::size_t i = 0; i < pos.size(); ++i) {
      pos[i].x_m += vel[i].x_mps;
      pos[i].y_m += vel[i].y_mps;
    }
  });
  for (int i = 0; i < 2500; ++i) {
    ASSERT_EQ(world.get<Position>(es[i])->x_m, float(i) + 1.0f);
    ASSERT_EQ(world.get<Position>(es[i])->y_m, 2.0f);
  }
}

}  // namespace
}  // namespace cityforge::sim
