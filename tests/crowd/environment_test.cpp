// SPDX-License-Identifier: Apache-2.0
// The crowd's environment on a small block grid: weather (fewer pedestrians out and faster
// walking in rain), the active count (n out, the same ones first, back where they went in),
// hazards (a car driving at a pedestrian makes it get out of the way; a slow one or one driving
// away does not), a pedestrian knocked down by a driven car (falls, stays down, the others
// around flee) and determinism at 1 and 2 threads with all of them changing.
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numbers>
#include <set>
#include <vector>

#include "cityforge/crowd/crowd.hpp"
#include "environment_fixture.hpp"
#include "traffic/net_fixture.hpp"

using namespace cityforge;
using namespace cityforge::crowd;
using cityforge::traffic::testing::NetBuilder;

namespace {

using namespace cityforge::crowd::test;

TEST(CrowdWeather, TableAndFog) {
  EXPECT_EQ(crowd::weather_effect(traffic::WeatherKind::clear), WeatherEffect{});
  const WeatherEffect rain = crowd::weather_effect(traffic::WeatherKind::rain);
  const WeatherEffect storm = crowd::weather_effect(traffic::WeatherKind::storm);
  EXPECT_LT(rain.outdoor_share, crowd::weather_effect(traffic::WeatherKind::cloudy).outdoor_share);
  EXPECT_LT(storm.outdoor_share, rain.outdoor_share);
  EXPECT_GT(rain.speed_factor, 1.0f);
  EXPECT_GT(storm.speed_factor, rain.speed_factor);
  EXPECT_EQ(crowd::weather_effect(traffic::WeatherKind::clear, true),
            crowd::weather_effect(traffic::WeatherKind::fog));
  EXPECT_EQ(crowd::weather_effect(traffic::WeatherKind::storm, true), storm);
}

TEST(CrowdActiveCount, GivesNOutAndBackTheSameOnesFirst) {
  for (const bool lod : {false, true}) {
    auto c = make(300, lod, 3, 0.0f);
    run(*c, 30);
    c->set_active_count(100);
    c->tick();
    EXPECT_EQ(outdoors(*c), 100U);
    EXPECT_EQ(c->samples().size(), 100U);
    EXPECT_EQ(c->stats().indoors, 200U);
    EXPECT_EQ(lod_sum(c->stats()), 100U);
    // Indoors: not moved.
    std::vector<PedestrianView> in;
    for (const PedestrianView& v : c->views()) {
      if ((v.flags & kPedIndoors) != 0U) in.push_back(v);
    }
    ASSERT_EQ(in.size(), 200U);
    run(*c, 90);
    EXPECT_EQ(lod_sum(c->stats()), 100U);
    for (const PedestrianView& v : in) {
      const PedestrianView now = c->view(v.id);
      EXPECT_EQ(now.lane, v.lane);
      EXPECT_EQ(now.s_m, v.s_m);
      EXPECT_EQ(now.speed_mps, 0.0f);
    }
    // The same ones go in first whatever the history: 150 then 100 = 100 at once.
    auto d = make(300, lod, 3, 0.0f);
    run(*d, 30);
    d->set_active_count(150);
    run(*d, 10);
    d->set_active_count(100);
    d->tick();
    std::set<std::uint32_t> out_c;
    std::set<std::uint32_t> out_d;
    for (const traffic::VehicleSample& s : c->samples())
      out_c.insert(s.id);
    for (const traffic::VehicleSample& s : d->samples())
      out_d.insert(s.id);
    EXPECT_EQ(out_c, out_d);
    // Back out: where they went in (one tick of walking at most).
    c->set_active_count(0xffffffffU);
    c->tick();
    EXPECT_EQ(outdoors(*c), 300U);
    EXPECT_EQ(c->stats().indoors, 0U);
    EXPECT_EQ(c->samples().size(), 300U);
    for (const PedestrianView& v : in) {
      const PedestrianView now = c->view(v.id);
      if (now.lane == v.lane) {
        EXPECT_LT(std::abs(now.s_m - v.s_m), 0.5f) << "pedestrian " << v.id;
      }
      EXPECT_LT(distance(Vec2{now.position.x, now.position.y}, Vec2{v.position.x, v.position.y}),
                1.5)
          << "pedestrian " << v.id;
    }
    run(*c, 30);
    EXPECT_EQ(lod_sum(c->stats()), 300U);
  }
}

TEST(CrowdActiveCount, ChangesSpreadOverTheTransition) {
  auto c = make(300, true);  // 10 s: 1 a tick at 30 Hz.
  c->set_active_count(0);
  c->tick();
  EXPECT_EQ(outdoors(*c), 299U);
  run(*c, 149);
  EXPECT_EQ(outdoors(*c), 150U);
  run(*c, 160);
  EXPECT_EQ(outdoors(*c), 0U);
  EXPECT_TRUE(c->samples().empty());
}

/// A pedestrian out walking on a sidewalk (not a crosswalk) after a second of walking.
std::uint32_t pick_walker(const Crowd& c) {
  for (const PedestrianView& v : c.views()) {
    if (v.behaviour == Behaviour::walk && (v.flags & (kPedCrossing | kPedHurry)) == 0U &&
        v.speed_mps > 1.0f)
      return v.id;
  }
  return 0xffffffffU;
}

/// Distance of a point from the line through `origin` along unit `dir`.
double off_path(Vec3 p, Vec2 origin, Vec2 dir) {
  const Vec2 r = Vec2{p.x, p.y} - origin;
  return std::abs(r.x * dir.y - r.y * dir.x);
}

TEST(CrowdHazard, CarDrivingAtAPedestrianMakesItGetOutOfTheWay) {
  for (const bool lod : {false, true}) {
    auto with = make(300, lod);
    auto without = make(300, lod);
    Viewer viewer;
    viewer.position = Vec3{100, 100, 10};
    with->set_viewer(viewer);
    without->set_viewer(viewer);
    run(*with, 30);
    run(*without, 30);
    const std::uint32_t id = pick_walker(*with);
    ASSERT_NE(id, 0xffffffffU);
    const PedestrianView v = with->view(id);
    ASSERT_NE(v.lod, Lod::off);
    // The car comes from the side, 8 m away, at 10 m/s, straight at the pedestrian.
    const Vec2 walk{std::cos(v.heading_rad), std::sin(v.heading_rad)};
    const Vec2 u{-walk.y, walk.x};
    const Vec2 p{v.position.x, v.position.y};
    const Vec2 origin = p - u * 8.0;
    Hazard h;
    h.position = Vec3{origin.x, origin.y, 0};
    h.velocity = u * 10.0;
    with->set_hazards(std::span<const Hazard>(&h, 1));
    with->tick();
    without->tick();
    EXPECT_EQ(with->view(id).behaviour, Behaviour::flee);
    EXPECT_NE(without->view(id).behaviour, Behaviour::flee);
    EXPECT_GE(with->stats().hazard_reactions, 1U);
    EXPECT_EQ(without->stats().hazard_reactions, 0U);
    with->set_hazards({});
    run(*with, 30);
    run(*without, 30);
    // A second later: further from the car's path than without it.
    const double away_with = off_path(with->view(id).position, origin, u);
    const double away_without = off_path(without->view(id).position, origin, u);
    EXPECT_GT(away_with, away_without + 0.5) << "lod " << lod;
    std::printf("lod %d: %.2f m off the path with the car, %.2f m without\n", lod, away_with,
                away_without);
  }
}

TEST(CrowdHazard, CarFromBehindMakesAPedestrianStepAside) {
  for (const bool lod : {false, true}) {
    auto with = make(300, lod);
    auto without = make(300, lod);
    Viewer viewer;
    viewer.position = Vec3{100, 100, 10};
    with->set_viewer(viewer);
    without->set_viewer(viewer);
    run(*with, 30);
    run(*without, 30);
    const std::uint32_t id = pick_walker(*with);
    ASSERT_NE(id, 0xffffffffU);
    const PedestrianView v = with->view(id);
    // Down the sidewalk behind it (the player on the pavement), 6 m back, at 8 m/s.
    const Vec2 walk{std::cos(v.heading_rad), std::sin(v.heading_rad)};
    const Vec2 origin = Vec2{v.position.x, v.position.y} - walk * 6.0;
    Hazard h;
    h.position = Vec3{origin.x, origin.y, 0};
    h.velocity = walk * 8.0;
    h.radius_m = 1.0f;
    with->set_hazards(std::span<const Hazard>(&h, 1));
    with->tick();
    without->tick();
    with->set_hazards({});
    EXPECT_EQ(with->view(id).behaviour, Behaviour::flee);
    run(*with, 15);
    run(*without, 15);
    const double aside_with = off_path(with->view(id).position, origin, walk);
    const double aside_without = off_path(without->view(id).position, origin, walk);
    EXPECT_GT(aside_with, aside_without + 0.4) << "lod " << lod;
    std::printf("lod %d: %.2f m beside the path with the car, %.2f m without\n", lod, aside_with,
                aside_without);
  }
}

TEST(CrowdHazard, SlowOrReceedingCarsAreIgnored) {
  auto c = make(300, false);
  run(*c, 30);
  const std::uint32_t id = pick_walker(*c);
  ASSERT_NE(id, 0xffffffffU);
  const PedestrianView v = c->view(id);
  const Vec2 walk{std::cos(v.heading_rad), std::sin(v.heading_rad)};
  const Vec2 u{-walk.y, walk.x};
  const Vec2 p{v.position.x, v.position.y};
  Hazard slow;  // Creeping at 1 m/s towards it.
  slow.position = Vec3{(p - u * 4.0).x, (p - u * 4.0).y, 0};
  slow.velocity = u * 1.0;
  Hazard leaving;  // Just past it, driving away.
  leaving.position = Vec3{(p + u * 5.0).x, (p + u * 5.0).y, 0};
  leaving.velocity = u * 10.0;
  const std::vector<Hazard> hs{slow, leaving};
  c->set_hazards(hs);
  c->tick();
  EXPECT_NE(c->view(id).behaviour, Behaviour::flee);
}

TEST(CrowdEnvironment, SameStateHashWithOneAndTwoThreads) {
  const auto run_all = [](int threads, bool env) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                              static_cast<std::size_t>(threads));
    auto c = make(600, true, 11);
    Viewer viewer;
    viewer.position = Vec3{100, 100, 10};
    c->set_viewer(viewer);
    for (int t = 0; t < 450; ++t) {
      if (env && t == 30) c->set_weather(crowd::weather_effect(traffic::WeatherKind::rain));
      if (env && t == 90) c->set_active_count(300);
      if (env && t >= 120 && t < 240) {
        Hazard h;  // Down the sidewalk of x = 60 (a player on the pavement).
        h.position = Vec3{60, -10 + (t - 120) * 0.4, 0};
        h.velocity = Vec2{0, 12};
        c->set_hazards(std::span<const Hazard>(&h, 1));
      }
      if (env && t == 240) c->set_hazards({});
      if (env && t == 300) c->set_weather(crowd::weather_effect(traffic::WeatherKind::storm, true));
      c->tick();
    }
    return std::make_pair(c->state_hash(), c->stats().hazard_reactions);
  };
  const auto one = run_all(1, true);
  EXPECT_EQ(one, run_all(2, true));
  EXPECT_GT(one.second, 0U) << "the car met nobody";
  EXPECT_NE(one.first, run_all(2, false).first);
}

}  // namespace

namespace cityforge::crowd::test {
namespace {

TEST(CrowdKnockDown, FallsStaysDownAndTheOthersAroundFlee) {
  for (const bool lod : {false, true}) {
    auto c = make(300, lod);
    Viewer viewer;
    viewer.position = Vec3{100, 100, 10};
    c->set_viewer(viewer);
    run(*c, 30);
    const std::uint32_t id = pick_walker(*c);
    ASSERT_NE(id, 0xffffffffU);
    const PedestrianView before = c->view(id);
    ASSERT_TRUE(c->knock_down(id));
    EXPECT_FALSE(c->knock_down(id)) << "once";
    EXPECT_FALSE(c->knock_down(c->size())) << "out of range";
    run(*c, 2);
    // Its neighbours within the flee radius flee from the spot; farther ones do not.
    std::uint32_t near = 0, fled = 0, far_fled = 0;
    for (const PedestrianView& v : c->views()) {
      if (v.id == id || (v.flags & kPedIndoors) != 0U) continue;
      const double d =
          distance(Vec2{v.position.x, v.position.y}, Vec2{before.position.x, before.position.y});
      if (d < 25) {
        near += 1;
        fled += v.behaviour == Behaviour::flee ? 1U : 0U;
      } else if (d > 40) {
        far_fled += v.behaviour == Behaviour::flee ? 1U : 0U;
      }
    }
    EXPECT_GT(near, 0U);
    EXPECT_EQ(fled, near) << "lod " << lod;
    EXPECT_EQ(far_fled, 0U);
    run(*c, 300);  // Ten seconds on: still where it fell, down.
    const PedestrianView after = c->view(id);
    EXPECT_EQ(after.behaviour, Behaviour::down);
    EXPECT_NE(after.flags & kPedDown, 0U);
    EXPECT_EQ(after.speed_mps, 0.0f);
    EXPECT_LT(distance(Vec2{after.position.x, after.position.y},
                       Vec2{before.position.x, before.position.y}),
              0.2);
    EXPECT_EQ(c->stats().down, 1U);
    EXPECT_EQ(c->stats().indoors, 0U);
    EXPECT_EQ(lod_sum(c->stats()), 299U) << "down is no level";
    // Shown lying in the recording samples (state byte = behaviour down).
    bool shown = false;
    for (const traffic::VehicleSample& s : c->samples()) {
      if (s.id != id) continue;
      shown = true;
      EXPECT_EQ(s.state, static_cast<std::uint8_t>(Behaviour::down));
      EXPECT_EQ(s.speed_mps, 0.0f);
    }
    EXPECT_TRUE(shown);
    // Bad weather sends people in; the one down stays where it lies.
    c->set_active_count(0);
    run(*c, 400);
    EXPECT_EQ(c->view(id).behaviour, Behaviour::down);
    EXPECT_EQ(c->stats().down, 1U);
    EXPECT_EQ(c->stats().indoors, 299U);
    c->set_active_count(300);
    run(*c, 400);
    EXPECT_EQ(c->stats().indoors, 0U);
    EXPECT_EQ(c->view(id).behaviour, Behaviour::down);
  }
}

TEST(CrowdKnockDown, SameStateHashWithOneAndTwoThreads) {
  const auto run_all = [](int threads, bool hit) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                              static_cast<std::size_t>(threads));
    auto c = make(300, true);
    Viewer viewer;
    viewer.position = Vec3{100, 100, 10};
    c->set_viewer(viewer);
    run(*c, 30);
    if (hit) {
      EXPECT_TRUE(c->knock_down(pick_walker(*c)));
    }
    run(*c, 200);
    return c->state_hash();
  };
  EXPECT_EQ(run_all(1, true), run_all(2, true));
  EXPECT_NE(run_all(1, true), run_all(1, false));
}

}  // namespace
}  // namespace cityforge::crowd::test
