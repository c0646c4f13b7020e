// SPDX-License-Identifier: Apache-2.0
// The audio grid over the dressing tests' whole city, at 1 and 2 threads (label city).
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <chrono>
#include <cstdio>
#include <cstring>

#include "city_fixture.hpp"
#include "dressing/detail.hpp"

namespace cityforge::dressing {
namespace {

using testing::shared_city;

TEST(AudioGrid, CitySurfacesAndDeterminism) {
  const auto& city = shared_city();
  ASSERT_TRUE(city.error.empty()) << city.error;
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<AudioPoint> one;
  {
    tbb::global_control c(tbb::global_control::max_allowed_parallelism, 1);
    one = detail::audio_grid(city.inputs(), Config{});
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::vector<AudioPoint> two;
  {
    tbb::global_control c(tbb::global_control::max_allowed_parallelism, 2);
    two = detail::audio_grid(city.inputs(), Config{});
  }
  // Bit for bit, field by field (a point's padding bytes are no part of it: nothing writes them).
  ASSERT_EQ(one.size(), two.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < one.size(); ++i) {
    const AudioPoint& a = one[i];
    const AudioPoint& b = two[i];
    if (std::memcmp(a.position.data(), b.position.data(), sizeof(a.position)) != 0 ||
        a.surface != b.surface || std::memcmp(&a.reverb, &b.reverb, sizeof(float)) != 0) {
      ++differ;
    }
  }
  EXPECT_EQ(differ, 0U) << "points that differ between 1 and 2 threads";
  std::size_t by_surface[6] = {};
  double reverb = 0.0;
  for (const AudioPoint& p : one) {
    ++by_surface[static_cast<int>(p.surface)];
    EXPECT_GE(p.reverb, 0.0f);
    EXPECT_LE(p.reverb, 1.0f);
    reverb += p.reverb;
  }
  std::printf(
      "audio points %zu (%.3f s, 1 thread): road %zu sidewalk %zu plaza %zu park %zu "
      "ground %zu; mean reverb %.3f\n",
      one.size(), secs, by_surface[0], by_surface[1], by_surface[2], by_surface[3], by_surface[4],
      reverb / static_cast<double>(one.size()));
  // 600 x 500 m at 3 m, minus the buildings.
  EXPECT_GT(one.size(), 15000U);
  EXPECT_LT(one.size(), 600U * 500U / 9U);
  for (int k : {0, 1, 2, 3, 4})
    EXPECT_GT(by_surface[k], 100U) << to_string(static_cast<Surface>(k));
}

}  // namespace
}  // namespace cityforge::dressing
