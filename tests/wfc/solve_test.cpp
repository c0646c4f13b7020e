// SPDX-License-Identifier: Apache-2.0
// The solver on hand-built models: every solution is checked by the tests' own adjacency
// check (solve_util.hpp), not check_solution.
#include <gtest/gtest.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <bit>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "cityforge/wfc/wfc.hpp"
#include "wfc/solve_util.hpp"

namespace cityforge::wfc {
namespace {

using namespace test;  // NOLINT(google-build-using-namespace)

// The cat of seeds/000: Empty, tail, body, head along x (labels 0 +x, 1 -x).
Model cat_model() {
  Model m = make_model({"Empty", "tail", "body", "head"}, 2);
  m.empty = 0;
  allow(m, 0, kPosX, 0);
  allow(m, 0, kPosX, 1);
  allow(m, 1, kPosX, 2);
  allow(m, 2, kPosX, 2);
  allow(m, 2, kPosX, 3);
  allow(m, 3, kPosX, 0);
  finish(m);
  return m;
}

std::string strip(const Model& m, const std::vector<TileId>& tiles) {
  std::string s;
  for (TileId t : tiles) {
    s += m.tiles[t].name.substr(0, 1);
  }
  return s;
}

// ---- Tests -----------------------------------------------------------------------------------

TEST(WfcSolve, CatStripsAreValidForManySeeds) {
  const Model m = cat_model();
  const Grid g = square_grid(6, 1, 1);
  std::set<std::string> seen;
  for (Seed seed = 1; seed <= 300; ++seed) {
    SolveOptions o;
    o.seed = seed;
    Result<Solution> r = solve(m, g, {}, o);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    EXPECT_TRUE(violations(m, g, r->tiles).empty()) << strip(m, r->tiles);
    seen.insert(strip(m, r->tiles));
  }
  // Valid strips: E, and cats t b.. h, never a part alone.
  for (const std::string& s : seen) {
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] == 't') {
        EXPECT_TRUE(i + 1 < s.size() && s[i + 1] == 'b') << s;
      }
      if (s[i] == 'h') {
        EXPECT_TRUE(i > 0 && s[i - 1] == 'b') << s;
      }
    }
  }
  EXPECT_TRUE(seen.count("tbbbbh") == 1 || seen.count("EtbbhE") == 1 || seen.count("tbhEEE") == 1);
  EXPECT_GE(seen.size(), 5U) << "the seed should change the strip";
}

TEST(WfcSolve, WithoutEmptyTheBoundaryConstrainsNothing) {
  Model m = make_model({"tail", "body", "head"}, 2);
  allow(m, 0, kPosX, 1);
  allow(m, 1, kPosX, 1);
  allow(m, 1, kPosX, 2);
  allow(m, 2, kPosX, 0);
  finish(m);
  // Cats follow each other with no Empty; the strip may start or end mid-cat.
  const Grid g = square_grid(6, 1, 1);
  std::set<char> first;
  for (Seed seed = 1; seed <= 60; ++seed) {
    SolveOptions o;
    o.seed = seed;
    Result<Solution> r = solve(m, g, {}, o);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    EXPECT_TRUE(violations(m, g, r->tiles).empty()) << strip(m, r->tiles);
    first.insert(strip(m, r->tiles)[0]);
  }
  EXPECT_EQ(first.size(), 3U);
}

TEST(WfcSolve, TwoDimensionalSixBySixIsValid) {
  const Model m = connector_model(2, 2);
  const Grid g = square_grid(6, 6, 1);
  std::set<std::vector<TileId>> seen;
  for (Seed seed = 1; seed <= 100; ++seed) {
    SolveOptions o;
    o.seed = seed;
    Result<Solution> r = solve(m, g, {}, o);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    EXPECT_TRUE(violations(m, g, r->tiles).empty()) << "seed " << seed;
    seen.insert(r->tiles);
  }
  EXPECT_GT(seen.size(), 90U);
}

TEST(WfcSolve, MultiWordTileSetsAreValid) {
  // 3 connector kinds on 4 sides: 81 tiles, two bitset words.
  const Model m = connector_model(2, 3);
  const Grid g = square_grid(12, 9, 1);
  for (Seed seed = 1; seed <= 20; ++seed) {
    SolveOptions o;
    o.seed = seed;
    Result<Solution> r = solve(m, g, {}, o);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    EXPECT_TRUE(violations(m, g, r->tiles).empty()) << "seed " << seed;
    EXPECT_GT(std::count_if(r->tiles.begin(), r->tiles.end(), [](TileId t) { return t >= 64; }), 0);
  }
}

TEST(WfcSolve, ThreeDimensionalThreeByThreeByThreeIsValid) {
  const Model m = connector_model(3, 2);
  ASSERT_EQ(m.tiles.size(), 64U);
  const Grid g = square_grid(3, 3, 3);
  for (Seed seed = 1; seed <= 50; ++seed) {
    SolveOptions o;
    o.seed = seed;
    Result<Solution> r = solve(m, g, {}, o);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    EXPECT_TRUE(violations(m, g, r->tiles).empty()) << "seed " << seed;
  }
}

TEST(WfcSolve, EmptyBoundaryHolds) {
  const Model m = connector_model(2, 2);
  const Grid g = square_grid(7, 5, 1);
  for (Seed seed = 1; seed <= 30; ++seed) {
    SolveOptions o;
    o.seed = seed;
    Result<Solution> r = solve(m, g, {}, o);
    ASSERT_TRUE(r.ok());
    // No connector may point off the grid: tile digits are +x,-x,+y,-y.
    for (std::uint32_t y = 0; y < 5; ++y) {
      for (std::uint32_t x = 0; x < 7; ++x) {
        const std::string& n = m.tiles[r->tiles[x + 7 * y]].name;
        if (x == 6) {
          EXPECT_EQ(n[1], '0');
        }
        if (x == 0) {
          EXPECT_EQ(n[2], '0');
        }
        if (y == 4) {
          EXPECT_EQ(n[3], '0');
        }
        if (y == 0) {
          EXPECT_EQ(n[4], '0');
        }
      }
    }
  }
}

TEST(WfcSolve, PreplacedTilesStay) {
  const Model m = connector_model(2, 2);
  const Grid g = square_grid(6, 6, 1);
  // A cross in the middle and a straight road next to it.
  TileId cross_id = kNoTile;
  TileId straight_id = kNoTile;
  for (TileId t = 0; t < m.tiles.size(); ++t) {
    if (m.tiles[t].name == "c1111") cross_id = t;
    if (m.tiles[t].name == "c1100") straight_id = t;
  }
  const std::vector<Fixed> fixed{{14, cross_id}, {15, straight_id}, {0, 0}};
  for (Seed seed = 1; seed <= 30; ++seed) {
    SolveOptions o;
    o.seed = seed;
    Result<Solution> r = solve(m, g, fixed, o);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    EXPECT_TRUE(violations(m, g, r->tiles).empty());
    for (const Fixed& f : fixed) {
      EXPECT_EQ(r->tiles[f.cell], f.tile);
    }
  }
}

TEST(WfcSolve, PreplacementContradictionIsNamed) {
  const Model m = cat_model();
  const Grid g = square_grid(6, 1, 1);
  // A head at the left edge would need a body outside the grid.
  Result<Solution> r = solve(m, g, {{0, 3}}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::invalid_input);
  EXPECT_NE(r.error().message.find("pre-placed tile 'head'"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("cell 0"), std::string::npos) << r.error().message;
  // Two tails side by side: the second cannot follow the first.
  r = solve(m, g, {{1, 1}, {2, 1}}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("pre-placed tile 'tail' at cell 2"), std::string::npos)
      << r.error().message;
  // A tail whose cat cannot end before the grid does: found by propagation.
  r = solve(m, g, {{4, 1}}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("pre-placed tile 'tail' at cell 4"), std::string::npos)
      << r.error().message;
}

// placeable() says which pre-placements the boundary, allow and the tiles already placed rule
// out at once, as solve() would find them: a caller can draw a goal that may stand.
TEST(WfcSolve, PlaceableTellsWhichPreplacementsTheConstraintsRuleOut) {
  const Model m = cat_model();  // 0 Empty, 1 tail, 2 body, 3 head; cats run +x, 3+ long.
  const Grid g = square_grid(6, 1, 1);
  Result<CompiledModel> cm = compile_model(m);
  ASSERT_TRUE(cm.ok());
  // A head in cell 0 or cell 1 has no body before it; a tail in cell 4 no room for its cat;
  // a tail in cell 1 and a head in cell 5 may stand.
  const std::vector<Fixed> candidates{{0, 3}, {1, 3}, {4, 1}, {1, 1}, {5, 3}, {0, 1}};
  Result<std::vector<std::uint8_t>> r = placeable(*cm, g, {}, {}, candidates);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(*r, (std::vector<std::uint8_t>{0, 0, 0, 1, 1, 1}));
  // Each answer agrees with solve(): a 0 is a pre-placement it refuses, a 1 one it solves.
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    EXPECT_EQ(solve(*cm, g, {candidates[i]}, {}).ok(), (*r)[i] == 1) << "candidate " << i;
  }
  // After a tail in cell 1, cell 2 holds a body: a second tail or a head there is ruled out.
  r = placeable(*cm, g, {{1, 1}}, {}, {{2, 1}, {2, 3}, {2, 2}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, (std::vector<std::uint8_t>{0, 0, 1}));
  // allow rules out too.
  SolveOptions o;
  o.allow = [](CellId c, TileId t) { return !(c == 5 && t == 3); };
  r = placeable(*cm, g, {}, o, {{5, 3}, {1, 1}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, (std::vector<std::uint8_t>{0, 1}));
  // Errors: pre-placed tiles that contradict, a candidate out of range.
  r = placeable(*cm, g, {{0, 3}}, {}, {{1, 1}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("pre-placed tile 'head'"), std::string::npos);
  r = placeable(*cm, g, {}, {}, {{6, 1}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("out of range"), std::string::npos) << r.error().message;
}

TEST(WfcSolve, AllowRestrictsCellsAndCanMakeTheGridUnsolvable) {
  const Model m = cat_model();
  const Grid g = square_grid(8, 1, 1);
  // No Empty in cells 2..5: a cat must cover them, so every strip holds one there.
  SolveOptions o;
  o.allow = [](CellId c, TileId t) { return !(c >= 2 && c <= 5 && t == 0); };
  for (Seed seed = 1; seed <= 40; ++seed) {
    o.seed = seed;
    Result<Solution> r = solve(m, g, {}, o);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    EXPECT_TRUE(violations(m, g, r->tiles).empty());
    for (CellId c = 2; c <= 5; ++c) {
      EXPECT_NE(r->tiles[c], 0U) << strip(m, r->tiles);
    }
  }
  // No Empty anywhere and heads only in cell 0: the cat that must start at cell 0 can never
  // end, so there is no solution; it is reported, not looped on.
  o.allow = [](CellId c, TileId t) { return t != 0 && (c == 0 || t != 3); };
  Result<Solution> r = solve(m, g, {}, o);
  EXPECT_FALSE(r.ok());
}

TEST(WfcSolve, ACheckIsAConstraintPropagationCannotExpress) {
  const Model m = cat_model();
  const Grid g = square_grid(12, 1, 1);
  const auto tails = [](const std::vector<TileId>& tiles) {
    return std::count(tiles.begin(), tiles.end(), TileId{1});
  };
  // Without the check some strips hold two cats or more.
  SolveOptions plain;
  std::size_t most = 0;
  for (Seed seed = 1; seed <= 40; ++seed) {
    plain.seed = seed;
    Result<Solution> r = solve(m, g, {}, plain);
    ASSERT_TRUE(r.ok());
    most = std::max<std::size_t>(most, static_cast<std::size_t>(tails(r->tiles)));
  }
  ASSERT_GE(most, 2U);
  // "At most one cat", watched on tails: every strip holds one cat or none, and the check
  // is told only cells that were decided to a tail or lost their last tail.
  SolveOptions o;
  o.watch = {1};
  bool only_watched = true;
  o.check = [&](const SearchView& v, std::span<const CellId> changed) {
    for (const CellId c : changed) {
      const TileId t = v.tile(c);
      const std::uint64_t tail = 2;  // Bit 1.
      only_watched = only_watched && (t == 1 || !v.may_hold_any(c, &tail));
    }
    int decided = 0;
    for (CellId c = 0; c < g.cell_count; ++c)
      decided += v.tile(c) == 1 ? 1 : 0;
    return decided <= 1;
  };
  for (Seed seed = 1; seed <= 40; ++seed) {
    o.seed = seed;
    Result<Solution> r = solve(m, g, {}, o);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    EXPECT_TRUE(violations(m, g, r->tiles).empty());
    EXPECT_LE(tails(r->tiles), 1) << strip(m, r->tiles);
  }
  EXPECT_TRUE(only_watched);
  // Traced, the same solves: a contradiction the check found names no cell (kBoundary); it
  // read past the cell counts before (a crash of `cityforge island --trace`).
  o.trace = true;
  std::size_t refused = 0;
  for (Seed seed = 1; seed <= 40; ++seed) {
    o.seed = seed;
    Result<Solution> r = solve(m, g, {}, o);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    for (const TraceStep& st : r->trace) {
      if (st.kind != TraceStep::Kind::contradiction) continue;
      EXPECT_TRUE(st.cell < g.cell_count || st.cell == kBoundary);
      refused += st.cell == kBoundary ? 1 : 0;
    }
  }
  EXPECT_GT(refused, 0U);
  o.trace = false;
  // A check nothing passes: no solution, reported, not looped on.
  o.check = [](const SearchView&, std::span<const CellId>) { return false; };
  o.max_restarts = 2;
  EXPECT_FALSE(solve(m, g, {}, o).ok());
}

TEST(WfcSolve, KeepFavoursTheGivenTilesWhereTheyStillFit) {
  const Model m = cat_model();
  const Grid g = square_grid(16, 1, 1);
  SolveOptions o;
  o.seed = 4;
  Result<Solution> first = solve(m, g, {}, o);
  ASSERT_TRUE(first.ok());
  // Solving again on other seeds with the first solution kept gives it back...
  SolveOptions k;
  k.keep = first->tiles;
  k.keep_factor = 1e9;
  std::size_t differs_without = 0;
  for (Seed seed = 10; seed < 30; ++seed) {
    k.seed = seed;
    o.seed = seed;
    Result<Solution> again = solve(m, g, {}, k);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->tiles, first->tiles) << seed;
    differs_without += solve(m, g, {}, o)->tiles != first->tiles ? 1 : 0;
  }
  EXPECT_GT(differs_without, 0U);  // ...which those seeds alone would not.
  // A keep list that is not one tile per cell is refused.
  SolveOptions bad;
  bad.keep.assign(3, 0);
  EXPECT_FALSE(solve(m, g, {}, bad).ok());
}

TEST(WfcSolve, OrderBiasSteersWhichCellIsObservedFirst) {
  const Model m = cat_model();
  const Grid g = square_grid(12, 1, 1);
  for (const CellId first : {CellId{0}, CellId{7}, CellId{11}}) {
    SolveOptions o;
    o.seed = 3;
    o.trace = true;
    o.order_bias.assign(g.cell_count, 0.0);
    o.order_bias[first] = -10.0;
    Result<Solution> r = solve(m, g, {}, o);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    const auto it = std::find_if(r->trace.begin(), r->trace.end(), [](const TraceStep& s) {
      return s.kind == TraceStep::Kind::observe;
    });
    ASSERT_NE(it, r->trace.end());
    EXPECT_EQ(it->cell, first);
  }
  SolveOptions bad;
  bad.order_bias.assign(3, 0.0);
  EXPECT_FALSE(solve(m, g, {}, bad).ok());
}

TEST(WfcSolve, PerCellWeightSetsSteerEachCellsChoices) {
  const Model m = cat_model();
  const Grid g = square_grid(16, 1, 1);
  SolveOptions o;
  o.weight_class.assign(g.cell_count, 0);
  for (CellId c = 8; c < 16; ++c)
    o.weight_class[c] = 1;
  // Set 0: cats everywhere (Empty rare); set 1: Empty almost always.
  o.weight_sets = {{1e-4, 1.0, 1.0, 1.0}, {1e4, 1.0, 1.0, 1.0}};
  std::uint32_t empty_left = 0;
  std::uint32_t empty_right = 0;
  for (Seed seed = 1; seed <= 30; ++seed) {
    o.seed = seed;
    Result<Solution> r = solve(m, g, {}, o);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    EXPECT_TRUE(violations(m, g, r->tiles).empty());
    for (CellId c = 0; c < 16; ++c)
      (c < 8 ? empty_left : empty_right) += r->tiles[c] == 0 ? 1 : 0;
  }
  EXPECT_LT(empty_left * 4, empty_right) << empty_left << " vs " << empty_right;
  SolveOptions bad = o;
  bad.weight_sets[1].pop_back();
  EXPECT_FALSE(solve(m, g, {}, bad).ok());
  bad = o;
  bad.weight_class[3] = 7;
  EXPECT_FALSE(solve(m, g, {}, bad).ok());
  bad = o;
  bad.weight_sets[0][2] = 0.0;
  EXPECT_FALSE(solve(m, g, {}, bad).ok());
}

// A cycle of `n` cells with labels 0 (next) and 1 (previous).
Grid cycle_grid(std::uint32_t n) {
  Grid g;
  g.cell_count = n;
  g.label_count = 2;
  g.opposite = {1, 0};
  for (CellId c = 0; c < n; ++c) {
    g.offsets.push_back(2 * c);
    g.sides.push_back({(c + 1) % n, 0});
    g.sides.push_back({(c + n - 1) % n, 1});
  }
  g.offsets.push_back(2 * n);
  return g;
}

TEST(WfcSolve, KnownContradictionIsReportedNotLooped) {
  // Two colours that must alternate, each in two variants, around an odd cycle: every cell
  // keeps supported options, so only search finds there is no solution.
  Model m = make_model({"a1", "a2", "b1", "b2"}, 2);
  for (TileId a : {0U, 1U}) {
    for (TileId b : {2U, 3U}) {
      allow(m, a, 0, b);
      allow(m, b, 0, a);
    }
  }
  finish(m);
  ASSERT_TRUE(solve(m, cycle_grid(8), {}, {}).ok());
  SolveOptions o;
  o.max_restarts = 3;
  Result<Solution> r = solve(m, cycle_grid(9), {}, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::invalid_input);
  EXPECT_NE(r.error().message.find("no solution"), std::string::npos) << r.error().message;
}

// A size x size torus: a square grid whose opposite edges are joined (no boundary).
Grid torus_grid(std::uint32_t size) {
  Grid g = square_grid(size, size, 1);
  for (CellId c = 0; c < g.cell_count; ++c) {
    const std::uint32_t x = c % size;
    const std::uint32_t y = c / size;
    for (std::uint32_t s = g.offsets[c]; s < g.offsets[c + 1]; ++s) {
      Side& side = g.sides[s];
      if (side.label == kPosX) side.cell = (x + 1) % size + size * y;
      if (side.label == kNegX) side.cell = (x + size - 1) % size + size * y;
      if (side.label == kPosY) side.cell = x + size * ((y + 1) % size);
      if (side.label == kNegY) side.cell = x + size * ((y + size - 1) % size);
    }
  }
  g.size_x = g.size_y = g.size_z = 0;  // Not a plain square grid any more.
  return g;
}

TEST(WfcSolve, ParityContradictionStopsAtTheBudget) {
  // Tiles with a bit on each side, neighbours' facing bits equal, every tile with an odd
  // number of ones, on a torus. Each edge's bit is counted by both its cells, so the cells'
  // ones sum to an even number: an odd cell count has no solution. No cell sees it until the
  // torus is almost full, so without a budget the search would run for ages.
  std::vector<std::string> names;
  std::vector<TileId> ids;
  for (TileId t = 0; t < 16; ++t) {
    if (std::popcount(t) % 2 == 1) {
      names.push_back("p" + std::to_string(t));
      ids.push_back(t);
    }
  }
  Model m = make_model(names, 4);
  for (TileId a = 0; a < ids.size(); ++a) {
    for (TileId b = 0; b < ids.size(); ++b) {
      for (Label d = 0; d < 4; ++d) {
        if (((ids[a] >> d) & 1U) == ((ids[b] >> (d ^ 1U)) & 1U)) {
          m.constraints.push_back({a, d, b});
        }
      }
    }
  }
  finish(m);
  SolveOptions o;
  o.backtrack_budget = 200;
  o.max_restarts = 4;
  Result<Solution> even = solve(m, torus_grid(4), {}, o);
  ASSERT_TRUE(even.ok()) << even.error().to_string();
  EXPECT_TRUE(violations(m, torus_grid(4), even->tiles).empty());
  Result<Solution> r = solve(m, torus_grid(25), {}, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::invalid_input);
  EXPECT_NE(r.error().message.find("no solution within 200 backtracks and 4 restarts"),
            std::string::npos)
      << r.error().message;
}

TEST(WfcSolve, IrregularGraphWithCustomLabels) {
  // A hub joined to a ring of 7 cells. Labels: 0 clockwise, 1 counter-clockwise, 2 spoke out
  // of the hub, 3 spoke into the hub. Ring neighbours differ in colour (three colours, so the
  // odd ring can be coloured), the hub is its own tile.
  Grid g;
  const std::uint32_t ring = 7;
  g.cell_count = ring + 1;
  g.label_count = 4;
  g.opposite = {1, 0, 3, 2};
  g.offsets.push_back(0);
  for (CellId c = 1; c <= ring; ++c) {
    g.sides.push_back({c, 2});
  }
  for (CellId c = 1; c <= ring; ++c) {
    g.offsets.push_back(static_cast<std::uint32_t>(g.sides.size()));
    g.sides.push_back({c % ring + 1, 0});
    g.sides.push_back({(c + ring - 2) % ring + 1, 1});
    g.sides.push_back({0, 3});
  }
  g.offsets.push_back(static_cast<std::uint32_t>(g.sides.size()));
  ASSERT_TRUE(validate_grid(g).ok());
  Model m = make_model({"hub", "red", "green", "blue"}, 4);
  m.opposite = g.opposite;
  m.constraints.clear();
  for (TileId a = 1; a <= 3; ++a) {
    m.constraints.push_back({0, 2, a});
    m.constraints.push_back({a, 3, 0});
    for (TileId b = 1; b <= 3; ++b) {
      if (a == b) continue;
      m.constraints.push_back({a, 0, b});
      m.constraints.push_back({a, 1, b});
    }
  }
  finish(m);
  std::set<std::vector<TileId>> seen;
  for (Seed seed = 1; seed <= 60; ++seed) {
    SolveOptions o;
    o.seed = seed;
    o.max_restarts = 2;
    Result<Solution> r = solve(m, g, {}, o);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    EXPECT_TRUE(violations(m, g, r->tiles).empty());
    EXPECT_EQ(r->tiles[0], 0U);
    seen.insert(r->tiles);
  }
  EXPECT_GT(seen.size(), 10U);
}

TEST(WfcSolve, SameSeedSameSolutionAtAnyThreadCount) {
  const Model m = connector_model(2, 3);
  const Grid g = square_grid(20, 20, 1);
  auto run = [&](int threads) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                              static_cast<std::size_t>(threads));
    std::vector<std::vector<TileId>> out(16);
    tbb::parallel_for(0, 16, [&](int i) {
      SolveOptions o;
      o.seed = 7;
      o.object_id = static_cast<std::uint64_t>(i);
      o.max_restarts = 3;
      Result<Solution> r = solve(m, g, {}, o);
      if (r.ok()) out[static_cast<std::size_t>(i)] = r->tiles;
    });
    return out;
  };
  const auto one = run(1);
  const auto two = run(2);
  EXPECT_EQ(one, two);
  for (const auto& tiles : one) {
    EXPECT_TRUE(violations(m, g, tiles).empty());
  }
  EXPECT_NE(one[0], one[1]) << "object ids should draw different streams";
}

TEST(WfcSolve, TraceRecordsObservationsAndPropagation) {
  const Model m = cat_model();
  const Grid g = square_grid(6, 1, 1);
  SolveOptions o;
  o.trace = true;
  Result<Solution> r = solve(m, g, {}, o);
  ASSERT_TRUE(r.ok());
  const auto observes = std::count_if(r->trace.begin(), r->trace.end(), [](const TraceStep& s) {
    return s.kind == TraceStep::Kind::observe;
  });
  EXPECT_EQ(static_cast<std::uint64_t>(observes), r->stats.observations);
  EXPECT_GT(r->stats.observations, 0U);
  EXPECT_TRUE(std::any_of(r->trace.begin(), r->trace.end(),
                          [](const TraceStep& s) { return s.kind == TraceStep::Kind::propagate; }));
  o.trace = false;
  Result<Solution> plain = solve(m, g, {}, o);
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE(plain->trace.empty());
  EXPECT_EQ(plain->tiles, r->tiles) << "tracing must not change the solve";
}

TEST(WfcSolve, MultiCellTilesStayWhole) {
  // A 2 x 1 bench as two parts forced together across their shared side.
  Model m = make_model({"Empty", "crate", "bench@0,0,0", "bench@1,0,0"}, 4);
  m.empty = 0;
  for (TileId a : {0U, 1U}) {
    for (TileId b : {0U, 1U}) {
      allow(m, a, kPosX, b);
      allow(m, a, kPosY, b);
    }
    allow(m, a, kPosX, 2);
    allow(m, 3, kPosX, a);
    for (TileId part : {2U, 3U}) {
      allow(m, a, kPosY, part);
      allow(m, part, kPosY, a);
    }
  }
  allow(m, 2, kPosX, 3);
  allow(m, 2, kPosY, 2);
  allow(m, 3, kPosY, 3);
  finish(m);
  m.tiles[2].weight = m.tiles[3].weight = 3.0;
  const Grid g = square_grid(9, 7, 1);
  std::size_t benches = 0;
  for (Seed seed = 1; seed <= 20; ++seed) {
    SolveOptions o;
    o.seed = seed;
    Result<Solution> r = solve(m, g, {}, o);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    EXPECT_TRUE(violations(m, g, r->tiles).empty());
    for (CellId c = 0; c < g.cell_count; ++c) {
      if (r->tiles[c] == 2) {
        ++benches;
        ASSERT_LT(c % 9, 8U);
        EXPECT_EQ(r->tiles[c + 1], 3U);
      }
      if (r->tiles[c] == 3) {
        ASSERT_GT(c % 9, 0U);
        EXPECT_EQ(r->tiles[c - 1], 2U);
      }
    }
  }
  EXPECT_GT(benches, 0U);
}

TEST(WfcSolve, CompiledModelSolvesAsTheModelDoes) {
  const Model m = connector_model(2, 3);
  Result<CompiledModel> compiled = compile_model(m);
  ASSERT_TRUE(compiled.ok()) << compiled.error().to_string();
  const Grid g = square_grid(15, 11, 1);
  for (Seed seed = 1; seed <= 5; ++seed) {
    SolveOptions o;
    o.seed = seed;
    Result<Solution> a = solve(m, g, {}, o);
    Result<Solution> b = solve(*compiled, g, {}, o);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->tiles, b->tiles);
  }
  Result<Solution> wrong = solve(*compiled, square_grid(5, 1, 1), {}, {});
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message.find("model has 4 side labels but the grid has 2"),
            std::string::npos)
      << wrong.error().message;
  EXPECT_FALSE(solve(CompiledModel{}, g, {}, {}).ok());
}

TEST(WfcSolve, BadInputIsReported) {
  const Model m = cat_model();
  Result<Solution> r = solve(m, square_grid(4, 4, 1), {}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("labels"), std::string::npos) << r.error().message;
  r = solve(m, square_grid(4, 1, 1), {{9, 1}}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("out of range"), std::string::npos) << r.error().message;
  r = solve(m, square_grid(0, 1, 1), {}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("no cells"), std::string::npos) << r.error().message;
  Model zero = cat_model();
  zero.tiles[2].weight = 0.0;
  r = solve(zero, square_grid(4, 1, 1), {}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("'body'"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace cityforge::wfc
