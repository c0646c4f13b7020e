// SPDX-License-Identifier: Apache-2.0
// Layout invariants over 40 seeds and determinism across thread counts (slow: label city).
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <string>

#include "cityforge/layout/layout.hpp"
#include "layout_checks.hpp"
#include "layout_fixture.hpp"

namespace cityforge::layout {
namespace {

using test::small_city;

TEST(LayoutRun, SameSeedSameLayoutAtAnyThreadCountOtherSeedDiffers) {
  const Inputs in = small_city();
  terrain::Config hills;
  hills.amplitude_m = 20;
  auto layout_hash = [&](int threads, Seed seed) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
    const terrain::Heightfield g = *terrain::run(ring_bounds(in.boundary.outer), hills, seed);
    return test::hash_output(*run(in, g, Config{}, seed));
  };
  EXPECT_EQ(layout_hash(1, 11), layout_hash(2, 11));
  EXPECT_NE(layout_hash(2, 11), layout_hash(2, 12));
}

// Invariants over many seeds and hilly terrain: planar, connected, simple blocks clear of roads.
TEST(LayoutRun, InvariantsHoldOverManySeeds) {
  Inputs in;
  in.boundary.outer = {{0, 0}, {1400, 100}, {1500, 900}, {900, 1300}, {100, 1150}, {-80, 600}};
  in.arteries.push_back({"a", {{20, 560}, {700, 640}, {1420, 500}}});
  in.arteries.push_back({"b", {{700, 60}, {640, 700}, {800, 1250}}});
  in.arteries.push_back({"c", {{150, 150}, {1100, 1000}}});
  Zone z;
  z.area.outer = in.boundary.outer;
  in.zones = {z};
  terrain::Config hills;
  hills.amplitude_m = 25;
  hills.scale_m = 500;
  for (Seed seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const terrain::Heightfield g = *terrain::run(ring_bounds(in.boundary.outer), hills, seed);
    Config cfg;
    cfg.block_long_m = 120 + 10.0 * static_cast<double>(seed % 9);
    const Result<Output> r = run(in, g, cfg, seed);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    ASSERT_EQ(test::first_crossing(r->network), "");
    ASSERT_TRUE(test::is_connected(r->network));
    for (const Block& b : r->blocks) {
      ASSERT_TRUE(b.area.holes.empty()) << "block " << b.id;
      ASSERT_TRUE(ring_self_intersections(b.area.outer).empty()) << "block " << b.id;
    }
  }
}

}  // namespace
}  // namespace cityforge::layout
