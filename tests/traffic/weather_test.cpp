// SPDX-License-Identifier: Apache-2.0
// Weather: the table (names, fog combined as the worse of each factor) and its effect on a
// small grid with the same seed: rain lowers the mean speed and lengthens the time gaps of
// following vehicles; back to clear the speeds recover, and a weather set and reset before any
// tick leaves the run as it was.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <memory>

#include "cityforge/traffic/traffic.hpp"
#include "net_fixture.hpp"

using namespace cityforge;
using namespace cityforge::traffic;

namespace {

std::unique_ptr<Simulation> make_grid_sim(Seed seed = 3) {
  traffic::testing::GridSpec spec;
  spec.nx = 4;
  spec.ny = 4;
  spec.lanes = 2;
  spec.block_m = 250;
  Config cfg;
  cfg.vehicles = 160;
  cfg.trip_share = 0;
  Result<std::unique_ptr<Simulation>> sim =
      Simulation::create(traffic::testing::make_grid(spec).net, cfg, {}, seed);
  EXPECT_TRUE(sim.ok()) << sim.error().to_string();
  return std::move(*sim);
}

/// Means over a window of ticks: speed of the moving vehicles, and the time gap (bumper to
/// bumper over speed) of vehicles following another on their lane within 40 m above 3 m/s.
struct Figures {
  double speed_mps = 0;
  double time_gap_s = 0;
  std::size_t gaps = 0;
  std::uint64_t overlaps = 0;
};

Figures run_window(Simulation& sim, int ticks) {
  Figures f;
  const Network& net = sim.network();
  for (int t = 0; t < ticks; ++t) {
    sim.tick();
    f.speed_mps += sim.stats().mean_speed_mps;
    f.overlaps += audit(sim).overlaps;
    for (LaneId l = 0; l < net.lane_count(); ++l) {
      const auto q = sim.queue(l);
      for (std::size_t k = 1; k < q.size(); ++k) {
        if (((q[k].flags | q[k - 1].flags) & kQueueGhost) != 0U) continue;
        const float gap = q[k - 1].s_m - q[k - 1].length_m - q[k].s_m;
        if (q[k].speed_mps > 3.0f && gap < 40.0f) {
          f.time_gap_s += gap / q[k].speed_mps;
          ++f.gaps;
        }
      }
    }
  }
  f.speed_mps /= ticks;
  if (f.gaps > 0) f.time_gap_s /= static_cast<double>(f.gaps);
  return f;
}

TEST(Weather, NamesParseAndPrint) {
  for (std::size_t i = 0; i < kWeatherKinds; ++i) {
    const auto k = static_cast<WeatherKind>(i);
    Result<WeatherKind> back = parse_weather(to_string(k));
    ASSERT_TRUE(back.ok()) << to_string(k);
    EXPECT_EQ(*back, k);
  }
  EXPECT_FALSE(parse_weather("Rain").ok());
  EXPECT_FALSE(parse_weather("").ok());
  EXPECT_NE(parse_weather("snow").error().message.find("snow"), std::string::npos);
}

TEST(Weather, TableOrdersTheKindsAndFogTakesTheWorse) {
  const WeatherEffect clear = weather_effect(WeatherKind::clear);
  EXPECT_EQ(clear, WeatherEffect{});
  EXPECT_EQ(weather_effect(WeatherKind::cloudy), WeatherEffect{});
  const WeatherEffect rain = weather_effect(WeatherKind::rain);
  const WeatherEffect storm = weather_effect(WeatherKind::storm);
  const WeatherEffect fog = weather_effect(WeatherKind::fog);
  // Worse weather: slower, gentler braking, longer gaps.
  EXPECT_LT(rain.speed_factor, 1.0f);
  EXPECT_LT(storm.speed_factor, rain.speed_factor);
  EXPECT_LT(rain.comfort_decel_factor, 1.0f);
  EXPECT_LT(storm.comfort_decel_factor, rain.comfort_decel_factor);
  EXPECT_GT(rain.time_gap_factor, 1.0f);
  EXPECT_GT(storm.time_gap_factor, rain.time_gap_factor);
  EXPECT_GT(storm.min_gap_factor, rain.min_gap_factor);
  EXPECT_LT(fog.speed_factor, 1.0f);
  EXPECT_GT(fog.time_gap_factor, 1.0f);
  // The fog flag: the fog row over clear, the worse of each over rain and storm.
  EXPECT_EQ(weather_effect(WeatherKind::clear, true), fog);
  EXPECT_EQ(weather_effect(WeatherKind::fog, true), fog);
  const WeatherEffect rain_fog = weather_effect(WeatherKind::rain, true);
  EXPECT_EQ(rain_fog.speed_factor, std::min(rain.speed_factor, fog.speed_factor));
  EXPECT_EQ(rain_fog.comfort_decel_factor,
            std::min(rain.comfort_decel_factor, fog.comfort_decel_factor));
  EXPECT_EQ(rain_fog.time_gap_factor, std::max(rain.time_gap_factor, fog.time_gap_factor));
  EXPECT_EQ(rain_fog.min_gap_factor, std::max(rain.min_gap_factor, fog.min_gap_factor));
  EXPECT_EQ(weather_effect(WeatherKind::storm, true).speed_factor, storm.speed_factor);
}

TEST(Weather, SetWeatherClampsBadFactors) {
  auto sim = make_grid_sim();
  WeatherEffect bad;
  bad.speed_factor = 0.0f;
  bad.comfort_decel_factor = std::numeric_limits<float>::quiet_NaN();
  bad.time_gap_factor = 100.0f;
  bad.min_gap_factor = -1.0f;
  sim->set_weather(bad);
  EXPECT_EQ(sim->weather().speed_factor, 0.1f);
  EXPECT_EQ(sim->weather().comfort_decel_factor, 1.0f);
  EXPECT_EQ(sim->weather().time_gap_factor, 4.0f);
  EXPECT_EQ(sim->weather().min_gap_factor, 0.1f);
  for (int t = 0; t < 100; ++t)
    sim->tick();
  EXPECT_EQ(audit(*sim).bad_positions, 0U);
}

TEST(Weather, RainLowersSpeedsAndLengthensGaps) {
  auto clear = make_grid_sim();
  auto rain = make_grid_sim();
  rain->set_weather(weather_effect(WeatherKind::rain));
  auto storm = make_grid_sim();
  storm->set_weather(weather_effect(WeatherKind::storm));
  // Settle, then measure over a minute.
  run_window(*clear, 300);
  run_window(*rain, 300);
  run_window(*storm, 300);
  const Figures c = run_window(*clear, 600);
  const Figures r = run_window(*rain, 600);
  const Figures s = run_window(*storm, 600);
  EXPECT_EQ(c.overlaps + r.overlaps + s.overlaps, 0U);
  ASSERT_GT(c.gaps, 1000U);
  ASSERT_GT(r.gaps, 1000U);
  EXPECT_LT(r.speed_mps, 0.95 * c.speed_mps) << "clear " << c.speed_mps << " rain " << r.speed_mps;
  EXPECT_LT(s.speed_mps, r.speed_mps) << "rain " << r.speed_mps << " storm " << s.speed_mps;
  EXPECT_GT(r.time_gap_s, 1.05 * c.time_gap_s)
      << "clear " << c.time_gap_s << " s, rain " << r.time_gap_s << " s";
  EXPECT_GT(s.time_gap_s, r.time_gap_s);
  std::printf(
      "mean speed clear %.2f rain %.2f storm %.2f m/s; time gap clear %.2f rain %.2f "
      "storm %.2f s\n",
      c.speed_mps, r.speed_mps, s.speed_mps, c.time_gap_s, r.time_gap_s, s.time_gap_s);
}

TEST(Weather, BackToClearRestores) {
  // Set and reset before any tick: the same run as without weather.
  auto plain = make_grid_sim();
  auto reset = make_grid_sim();
  reset->set_weather(weather_effect(WeatherKind::storm, true));
  reset->set_weather(weather_effect(WeatherKind::clear));
  for (int t = 0; t < 300; ++t) {
    plain->tick();
    reset->tick();
  }
  EXPECT_EQ(plain->state_hash(), reset->state_hash());

  // Rain for a minute, then clear: speeds come back to the clear run's.
  auto rained = make_grid_sim();
  rained->set_weather(weather_effect(WeatherKind::rain));
  run_window(*rained, 600);
  EXPECT_NE(rained->state_hash(), plain->state_hash());
  rained->set_weather(weather_effect(WeatherKind::clear));
  EXPECT_EQ(rained->weather(), WeatherEffect{});
  run_window(*rained, 300);
  run_window(*plain, 600);
  const Figures back = run_window(*rained, 600);
  const Figures base = run_window(*plain, 600);
  EXPECT_NEAR(back.speed_mps, base.speed_mps, 0.03 * base.speed_mps);
  EXPECT_NEAR(back.time_gap_s, base.time_gap_s, 0.05 * base.time_gap_s);
}

}  // namespace
