// SPDX-License-Identifier: Apache-2.0
// The block solver on 200 x 200 cells of a hard model, where whole-grid solves fail (slow: label
// city).
#include <gtest/gtest.h>

#include <string>

#include "cityforge/wfc/wfc.hpp"
#include "wfc/solve_util.hpp"

namespace cityforge::wfc {
namespace {

using namespace test;  // NOLINT(google-build-using-namespace)

TEST(WfcSolveBlocks, SucceedWhereAWholeGridSolveWithRestartsFails) {
  const Model m = parity_model(kEmptyWeight);
  const Grid g = square_grid(200, 200, 1);
  int whole_failures = 0;
  for (Seed seed = 1; seed <= 3; ++seed) {
    SolveOptions o;
    o.seed = seed;
    o.max_restarts = 3;
    Result<Solution> whole = solve(m, g, {}, o);
    if (!whole.ok()) {
      ++whole_failures;
      EXPECT_NE(whole.error().message.find("no solution within 64 backtracks and 3 restarts"),
                std::string::npos)
          << whole.error().message;
    }
    o.block_size = 20;
    Result<Solution> blocks = solve(m, g, {}, o);
    ASSERT_TRUE(blocks.ok()) << blocks.error().to_string();
    EXPECT_TRUE(violations(m, g, blocks->tiles).empty()) << "seed " << seed;
    EXPECT_EQ(blocks->stats.blocks, 13U * 13U);
    EXPECT_GT(blocks->stats.contradictions, 0U) << "the model should be hard for blocks too";
  }
  EXPECT_GE(whole_failures, 2) << "the whole-grid solve was meant to fail usually";
}

}  // namespace
}  // namespace cityforge::wfc
