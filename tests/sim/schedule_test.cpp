// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "sim/components.hpp"

namespace cityforge::sim {
namespace {

using test::Lifetime;
using test::Position;
using test::Tag;
using test::Velocity;

Processor make(World& w, const char* name, ComponentMask reads, ComponentMask writes,
               std::vector<int>* log = nullptr, int id = 0) {
  (void)w;
  Processor p;
  p.name = name;
  p.reads = reads;
  p.writes = writes;
  p.run = [log, id](const TickContext&) {
    if (log != nullptr) {
      log->push_back(id);
    }
  };
  return p;
}

TEST(SimSchedule, ConflictsAreWriteAgainstReadOrWrite) {
  World w;
  test::register_all(w);
  const auto pos = w.mask<Position>();
  const auto vel = w.mask<Velocity>();
  EXPECT_TRUE(conflicts(make(w, "a", vel, pos), make(w, "b", pos, {})));
  EXPECT_TRUE(conflicts(make(w, "a", {}, pos), make(w, "b", {}, pos)));
  EXPECT_TRUE(conflicts(make(w, "a", pos, {}), make(w, "b", {}, pos)));
  EXPECT_FALSE(conflicts(make(w, "a", pos, {}), make(w, "b", pos, {})));
  EXPECT_FALSE(conflicts(make(w, "a", vel, pos), make(w, "b", vel, w.mask<Tag>())));
}

TEST(SimSchedule, ResourcesConflictLikeComponents) {
  World w;
  test::register_all(w);
  const auto with = [&](std::uint64_t reads, std::uint64_t writes) {
    Processor p = make(w, "r", {}, {});
    p.resource_reads = reads;
    p.resource_writes = writes;
    return p;
  };
  EXPECT_TRUE(conflicts(with(0, 1), with(1, 0)));
  EXPECT_TRUE(conflicts(with(1, 0), with(0, 1)));
  EXPECT_TRUE(conflicts(with(0, 2), with(0, 2)));
  EXPECT_FALSE(conflicts(with(1, 0), with(1, 0)));
  EXPECT_FALSE(conflicts(with(0, 1), with(0, 2)));
  Schedule s;
  s.add(with(0, 1));
  s.add(with(2, 0));
  s.add(with(1, 0));
  ASSERT_EQ(s.phases().size(), 2U);
  EXPECT_EQ(s.phases()[0], (std::vector<std::uint32_t>{0, 1}));
}

TEST(SimSchedule, PhasesSerialiseConflictsAndGroupTheRest) {
  World w;
  test::register_all(w);
  Schedule& s = w.schedule();
  s.add(make(w, "integrate", w.mask<Velocity>(), w.mask<Position>()));  // 0
  s.add(make(w, "age", {}, w.mask<Lifetime>()));                        // 0
  s.add(make(w, "tag", w.mask<Velocity>(), w.mask<Tag>()));             // 0
  s.add(make(w, "steer", w.mask<Position>(), w.mask<Velocity>()));      // 1 (after 0, 2)
  s.add(make(w, "reap", w.mask<Lifetime, Position>(), {}));             // 1 (after 0, 1)
  s.add(make(w, "clamp", {}, w.mask<Position>()));                      // 2 (after 0, 3?, 4)
  const std::vector<std::vector<std::uint32_t>> expected{{0, 1, 2}, {3, 4}, {5}};
  EXPECT_EQ(s.phases(), expected);
  // Within each phase no two processors conflict; each conflicting pair is in distinct phases.
  for (const auto& phase : s.phases()) {
    for (std::size_t i = 0; i < phase.size(); ++i) {
      for (std::size_t j = i + 1; j < phase.size(); ++j) {
        EXPECT_FALSE(conflicts(s.processors()[phase[i]], s.processors()[phase[j]]));
      }
    }
  }
}

TEST(SimSchedule, ConflictingProcessorsRunInDeclarationOrder) {
  World w;
  test::register_all(w);
  std::vector<int> log;
  for (int i = 0; i < 5; ++i) {
    w.schedule().add(make(w, "writer", {}, w.mask<Position>(), &log, i));
  }
  EXPECT_EQ(w.schedule().phases().size(), 5U);
  w.tick();
  w.tick();
  EXPECT_EQ(log, (std::vector<int>{0, 1, 2, 3, 4, 0, 1, 2, 3, 4}));
}

TEST(SimSchedule, NonConflictingProcessorsAllRunOncePerTick) {
  World w;
  test::register_all(w);
  std::atomic<int> runs{0};
  for (int i = 0; i < 4; ++i) {
    Processor p;
    p.name = "reader";
    p.reads = w.mask<Position, Velocity>();
    p.run = [&runs](const TickContext& ctx) {
      EXPECT_TRUE(ctx.world.in_tick());
      runs.fetch_add(1);
    };
    w.schedule().add(std::move(p));
  }
  ASSERT_EQ(w.schedule().phases().size(), 1U);
  for (int t = 0; t < 10; ++t) {
    w.tick();
  }
  EXPECT_EQ(runs.load(), 40);
  EXPECT_EQ(w.tick_count(), 10U);
}

}  // namespace
}  // namespace cityforge::sim
