// SPDX-License-Identifier: Apache-2.0
// The crowd in the rain: 400 pedestrians over 30 simulated seconds, with and without LOD
// (slow: label city).
#include <gtest/gtest.h>

#include <cstdio>

#include "cityforge/crowd/crowd.hpp"
#include "environment_fixture.hpp"

using namespace cityforge;
using namespace cityforge::crowd;

namespace {

using namespace cityforge::crowd::test;

TEST(CrowdWeather, RainSendsPeopleInAndTheRestWalkFaster) {
  for (const bool lod : {false, true}) {
    auto clear = make(400, lod);
    auto rain = make(400, lod);
    rain->set_weather(crowd::weather_effect(traffic::WeatherKind::rain));
    run(*clear, 30 * 15);  // 15 s: past the 10 s transition.
    run(*rain, 30 * 15);
    EXPECT_EQ(outdoors(*clear), 400U);
    EXPECT_EQ(outdoors(*rain), 240U) << "0.6 of 400";
    EXPECT_EQ(rain->stats().indoors, 160U);
    EXPECT_EQ(rain->samples().size(), 240U);
    EXPECT_EQ(lod_sum(rain->stats()), 240U);
    const double vc = mean_walking_speed(*clear);
    const double vr = mean_walking_speed(*rain);
    EXPECT_GT(vr, 1.08 * vc) << "clear " << vc << " rain " << vr << " lod " << lod;
    EXPECT_LT(vr, 1.25 * vc) << "clear " << vc << " rain " << vr << " lod " << lod;
    std::printf("lod %d: outdoors clear %u rain %u; walking clear %.3f rain %.3f m/s\n", lod,
                outdoors(*clear), outdoors(*rain), vc, vr);
    // Back to clear: everyone out again, speeds back.
    rain->set_weather(crowd::weather_effect(traffic::WeatherKind::clear));
    run(*rain, 30 * 15);
    EXPECT_EQ(outdoors(*rain), 400U);
    EXPECT_EQ(rain->stats().indoors, 0U);
    EXPECT_NEAR(mean_walking_speed(*rain), vc, 0.05 * vc);
  }
}

}  // namespace
