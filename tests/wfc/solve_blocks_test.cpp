// SPDX-License-Identifier: Apache-2.0
// Block-wise solving with local repair, checked by the tests' own adjacency check.
#include <gtest/gtest.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include <string>
#include <vector>

#include "cityforge/wfc/wfc.hpp"
#include "wfc/solve_util.hpp"

namespace cityforge::wfc {
namespace {

using namespace test;  // NOLINT(google-build-using-namespace)

TEST(WfcSolveBlocks, FailedBlocksAreRepairedLocally) {
  // No restarts: a block that fails goes straight to local repair.
  const Model m = parity_model(kEmptyWeight);
  const Grid g = square_grid(200, 200, 1);
  std::uint32_t repairs = 0;
  for (Seed seed = 1; seed <= 3; ++seed) {
    SolveOptions o;
    o.seed = seed;
    o.block_size = 20;
    Result<Solution> r = solve(m, g, {}, o);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    EXPECT_TRUE(violations(m, g, r->tiles).empty()) << "seed " << seed;
    repairs += r->stats.block_repairs;
  }
  EXPECT_GT(repairs, 0U);
}

TEST(WfcSolveBlocks, KeepPreplacedTilesAndTheEmptyBoundaryIn3d) {
  const Model m = connector_model(3, 2);
  const Grid g = square_grid(40, 30, 3);
  const CellId a = 5 + 40 * (7 + 30 * 1);
  const CellId b = 33 + 40 * (21 + 30 * 2);
  const std::vector<Fixed> fixed{{a, 63}, {b, 0}};
  SolveOptions o;
  o.block_size = 12;
  o.block_overlap = 3;
  o.seed = 5;
  Result<Solution> r = solve(m, g, fixed, o);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_TRUE(violations(m, g, r->tiles).empty());
  EXPECT_EQ(r->tiles[a], 63U);
  EXPECT_EQ(r->tiles[b], 0U);
  EXPECT_GT(r->stats.blocks, 1U);
}

TEST(WfcSolveBlocks, PreplacementContradictionIsNamedAsInAWholeSolve) {
  const Model m = connector_model(2, 2);
  const Grid g = square_grid(50, 50, 1);
  SolveOptions o;
  o.block_size = 16;
  // Tile 1 has a connector on +x: not at the grid's right edge.
  Result<Solution> r = solve(m, g, {{49, 1}}, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("pre-placed tile 'c1000' at cell 49 (x 49, y 0, z 0)"),
            std::string::npos)
      << r.error().message;
}

TEST(WfcSolveBlocks, TraceNamesBlocksAndGridCells) {
  const Model m = connector_model(2, 2);
  const Grid g = square_grid(40, 40, 1);
  SolveOptions o;
  o.block_size = 16;
  o.trace = true;
  Result<Solution> r = solve(m, g, {}, o);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  std::uint32_t blocks = 0;
  std::uint64_t observes = 0;
  for (const TraceStep& s : r->trace) {
    EXPECT_LT(s.cell, g.cell_count);
    blocks += s.kind == TraceStep::Kind::block ? 1U : 0U;
    observes += s.kind == TraceStep::Kind::observe ? 1U : 0U;
  }
  EXPECT_EQ(blocks, r->stats.blocks);
  EXPECT_EQ(blocks, 9U);
  EXPECT_EQ(observes, r->stats.observations);
  o.trace = false;
  Result<Solution> plain = solve(m, g, {}, o);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->tiles, r->tiles);
}

TEST(WfcSolveBlocks, SameSeedSameSolutionAtAnyThreadCount) {
  const Model m = parity_model(kEmptyWeight);
  const Grid g = square_grid(64, 64, 1);
  auto run = [&](int threads) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                              static_cast<std::size_t>(threads));
    std::vector<std::vector<TileId>> out(4);
    tbb::parallel_for(0, 4, [&](int i) {
      SolveOptions o;
      o.seed = 3;
      o.object_id = static_cast<std::uint64_t>(i);
      o.block_size = 16;
      Result<Solution> r = solve(m, g, {}, o);
      if (r.ok()) out[static_cast<std::size_t>(i)] = r->tiles;
    });
    return out;
  };
  const auto one = run(1);
  EXPECT_EQ(one, run(2));
  for (const auto& tiles : one) {
    EXPECT_TRUE(violations(m, g, tiles).empty());
  }
}

}  // namespace
}  // namespace cityforge::wfc
