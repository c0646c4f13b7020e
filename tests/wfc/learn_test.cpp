// SPDX-License-Identifier: Apache-2.0
// Learning constraints from painted examples and edge profiles, and check_solution.

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <tuple>

#include "cityforge/wfc/wfc.hpp"

namespace cityforge::wfc {
namespace {

TileDef def(std::string name, Symmetry s = Symmetry::X, std::vector<std::string> profiles = {}) {
  TileDef d;
  d.name = std::move(name);
  d.symmetry = s;
  d.profiles = std::move(profiles);
  return d;
}

using Triple = std::tuple<std::string, int, std::string>;

std::set<Triple> named(const Model& m) {
  std::set<Triple> out;
  for (const Constraint& c : m.constraints)
    out.insert({m.tiles[c.key].name, c.label, m.tiles[c.adjacent].name});
  return out;
}

bool has(const Model& m, const std::string& a, Label d, const std::string& b) {
  return named(m).count({a, d, b}) > 0;
}

Example painted(std::uint32_t x, std::uint32_t y, std::vector<std::string> cells) {
  Example e;
  e.size_x = x;
  e.size_y = y;
  e.size_z = 1;
  e.cells = std::move(cells);
  return e;
}

// The adjacencies of a 2D example, computed here directly from the cells.
std::set<Triple> adjacencies(const Example& e, const std::string& empty) {
  std::set<Triple> out;
  const auto at = [&](int x, int y) -> std::string {
    if (x < 0 || y < 0 || x >= static_cast<int>(e.size_x) || y >= static_cast<int>(e.size_y)) {
      return empty;
    }
    return e.cells[static_cast<std::size_t>(x + static_cast<int>(e.size_x) * y)];
  };
  const int dx[4] = {1, -1, 0, 0};
  const int dy[4] = {0, 0, 1, -1};
  for (int y = 0; y < static_cast<int>(e.size_y); ++y) {
    for (int x = 0; x < static_cast<int>(e.size_x); ++x) {
      for (int d = 0; d < 4; ++d) {
        const std::string n = at(x + dx[d], y + dy[d]);
        out.insert({at(x, y), d, n});
        if (n == empty) out.insert({n, d ^ 1, at(x, y)});
      }
    }
  }
  return out;
}

TEST(WfcLearnFromExamples, ReproducesExactlyTheAdjacenciesOfTheExample) {
  auto m = expand_tiles({def("house"), def("road"), def("park")}, 2, "e");
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  const Example ex = painted(4, 3,
                             {"house", "road", "road", "park",  //
                              "house", "road", "park", "park",  //
                              "e", "road", "e", "house"});
  auto counts = learn_from_examples(*m, {ex});
  ASSERT_TRUE(counts.ok()) << counts.error().to_string();
  std::set<Triple> want = adjacencies(ex, "e");
  for (int d = 0; d < 4; ++d)
    want.insert({"e", d, "e"});  // Empty borders itself, always
  EXPECT_EQ(named(*m), want);
  // Learned pairs are counted; Empty-to-Empty is only counted where the example shows it.
  ASSERT_EQ(counts->size(), m->constraints.size());
  for (std::size_t i = 0; i < counts->size(); ++i) {
    const Constraint& c = m->constraints[i];
    if (m->tiles[c.key].name != "e" || m->tiles[c.adjacent].name != "e") {
      EXPECT_GT((*counts)[i], 0U) << i;
    }
  }
  const TileId road = m->find("road");
  const auto it =
      std::find(m->constraints.begin(), m->constraints.end(), Constraint{road, kPosY, road});
  ASSERT_NE(it, m->constraints.end());
  EXPECT_EQ((*counts)[static_cast<std::size_t>(it - m->constraints.begin())], 2U);
  ASSERT_TRUE(finalize_model(*m, "test").ok()) << finalize_model(*m, "test").error().message;
  // The example itself is a valid solution of the learned model.
  const Grid g = square_grid(4, 3, 1);
  std::vector<TileId> tiles;
  for (const std::string& n : ex.cells)
    tiles.push_back(m->find(n));
  EXPECT_TRUE(check_solution(*m, g, tiles).empty());
}

TEST(WfcLearnFromExamples, WithoutEmptyBorderLearnsNoBoundaryPairs) {
  auto m = expand_tiles({def("a"), def("b")}, 1, "e");
  ASSERT_TRUE(m.ok());
  Example ex = painted(3, 1, {"a", "b", "a"});
  ex.empty_border = false;
  ASSERT_TRUE(learn_from_examples(*m, {ex}).ok());
  const std::set<Triple> want = {{"a", 0, "b"}, {"b", 1, "a"}, {"b", 0, "a"},
                                 {"a", 1, "b"}, {"e", 0, "e"}, {"e", 1, "e"}};
  EXPECT_EQ(named(*m), want);
}

TEST(WfcLearnFromExamples, WeightsBecomeFrequencies) {
  auto m = expand_tiles({def("a"), def("b"), def("never")}, 1, "");
  ASSERT_TRUE(m.ok());
  m->tiles[m->find("never")].weight = 0.25;
  ASSERT_TRUE(learn_from_examples(*m, {painted(4, 1, {"a", "a", "a", "b"})}).ok());
  // 3 a, 1 b over two kinds: 1.5 and 0.5 (mean 1); the unseen tile keeps its weight.
  EXPECT_DOUBLE_EQ(m->tiles[m->find("a")].weight, 1.5);
  EXPECT_DOUBLE_EQ(m->tiles[m->find("b")].weight, 0.5);
  EXPECT_DOUBLE_EQ(m->tiles[m->find("never")].weight, 0.25);
}

// A T junction painted once, with rotations and reflections on: every variant gets the
// turned constraints, and the learned set is closed under the quarter turn.
TEST(WfcLearnFromExamples, RotatedExamplesGiveConsistentVariantConstraints) {
  auto m = expand_tiles({def("t", Symmetry::T), def("g")}, 2, "e");
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  Example ex = painted(3, 2, {"g", "g", "g", "g", "t", "g"});
  ex.rotations = true;
  ex.reflections = true;
  ASSERT_TRUE(learn_from_examples(*m, {ex}).ok());
  ASSERT_TRUE(finalize_model(*m, "t").ok()) << finalize_model(*m, "t").error().message;
  // t has g on +x, -x and -y, the example's Empty border on +y; turned once, Empty is on its
  // -x.
  EXPECT_TRUE(has(*m, "t", kPosY, "e"));
  EXPECT_TRUE(has(*m, "t#r1", kNegX, "e"));
  EXPECT_TRUE(has(*m, "t#r2", kNegY, "e"));
  EXPECT_TRUE(has(*m, "t#r3", kPosX, "e"));
  EXPECT_FALSE(has(*m, "t", kNegY, "e"));
  // Closed under the quarter turn: (a, d, b) -> (turn a, turn d, turn b).
  const Label turn[4] = {kPosY, kNegY, kNegX, kPosX};
  const auto turned = [](const std::string& n) -> std::string {
    if (n == "t") return "t#r1";
    if (n == "t#r1") return "t#r2";
    if (n == "t#r2") return "t#r3";
    if (n == "t#r3") return "t";
    return n;
  };
  const std::set<Triple> all = named(*m);
  for (const auto& [a, d, b] : all) {
    EXPECT_EQ(all.count({turned(a), turn[d], turned(b)}), 1U) << a << " " << d << " " << b;
  }
}

// A diagonal (D) mirrored x -> -x is its quarter-turned variant: "\\" becomes "/".
TEST(WfcLearnFromExamples, MirroredDiagonalBecomesItsTurnedVariant) {
  auto m = expand_tiles({def("d", Symmetry::D), def("g")}, 2, "");
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  Example ex = painted(2, 1, {"d", "g"});
  ex.empty_border = false;
  ex.reflections = true;
  ASSERT_TRUE(learn_from_examples(*m, {ex}).ok());
  const std::set<Triple> want = {
      {"d", kPosX, "g"}, {"g", kNegX, "d"}, {"g", kPosX, "d#r1"}, {"d#r1", kNegX, "g"}};
  EXPECT_EQ(named(*m), want);
}

TEST(WfcLearnFromExamples, WithoutRotationsOnlyThePaintedVariantLearns) {
  auto m = expand_tiles({def("t", Symmetry::T), def("g")}, 2, "e");
  ASSERT_TRUE(m.ok());
  ASSERT_TRUE(learn_from_examples(*m, {painted(2, 1, {"t", "g"})}).ok());
  for (const auto& [a, d, b] : named(*m)) {
    EXPECT_TRUE(a != "t#r1" && b != "t#r1") << a << " " << d << " " << b;
  }
  const Status s = finalize_model(*m, "t.json");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("tile \"t#r1\" can never be placed"), std::string::npos)
      << s.error().message;
}

TEST(WfcLearnFromExamples, MultiCellPartsMustBePaintedTogether) {
  TileDef big = def("big", Symmetry::F);
  big.size[0] = 2;
  auto m = expand_tiles({big, def("g")}, 1, "e");
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  ASSERT_TRUE(learn_from_examples(*m, {painted(4, 1, {"g", "big@0,0,0", "big@1,0,0", "g"})}).ok());
  EXPECT_TRUE(has(*m, "g", kPosX, "big@0,0,0"));
  auto bad = learn_from_examples(*m, {painted(3, 1, {"g", "big@0,0,0", "g"})});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().where, "example 0");
  EXPECT_NE(bad.error().message.find("needs \"big@1,0,0\" on its +x side, found \"g\""),
            std::string::npos)
      << bad.error().message;
}

// Turning an example turns a multi-cell tile's footprint with it: the left part of a 2x1 tile
// becomes the bottom part of its quarter-turned variant.
TEST(WfcLearnFromExamples, RotatedExamplesTurnMultiCellFootprints) {
  TileDef big = def("big", Symmetry::T);
  big.size[0] = 2;
  auto m = expand_tiles({big, def("g")}, 2, "e");
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  Example ex = painted(4, 1, {"g", "big@0,0,0", "big@1,0,0", "g"});
  ex.rotations = true;
  ASSERT_TRUE(learn_from_examples(*m, {ex}).ok());
  EXPECT_TRUE(has(*m, "g", kPosY, "big#r1@0,0,0"));
  EXPECT_TRUE(has(*m, "big#r1@0,1,0", kPosY, "g"));
  EXPECT_TRUE(has(*m, "g", kNegX, "big#r2@1,0,0"));  // half turn: the left part is on the right
  EXPECT_TRUE(has(*m, "big#r3@0,0,0", kNegY, "g"));
  EXPECT_FALSE(has(*m, "g", kPosY, "big#r1@0,1,0"));
  ASSERT_TRUE(finalize_model(*m, "big").ok()) << finalize_model(*m, "big").error().message;
}

TEST(WfcLearnFromExamples, RejectsBadExamples) {
  auto m = expand_tiles({def("a")}, 1, "e");
  ASSERT_TRUE(m.ok());
  EXPECT_FALSE(learn_from_examples(*m, {painted(2, 1, {"a"})}).ok());
  EXPECT_FALSE(learn_from_examples(*m, {painted(2, 1, {"a", "zz"})}).ok());
  EXPECT_FALSE(learn_from_examples(*m, {painted(1, 2, {"a", "a"})}).ok());  // 2D example, 1D model
}

TEST(WfcLearnFromProfiles, EqualSymmetricProfilesMatch) {
  std::vector<TileDef> defs = {def("grass", Symmetry::X, {"g", "g", "g", "g"}),
                               def("road", Symmetry::I, {"r", "r", "g", "g"})};
  auto m = expand_tiles(defs, 2, "");
  ASSERT_TRUE(m.ok());
  ASSERT_TRUE(learn_from_profiles(*m, defs).ok());
  EXPECT_TRUE(has(*m, "grass", kPosX, "grass"));
  EXPECT_TRUE(has(*m, "road", kPosX, "road"));
  EXPECT_TRUE(has(*m, "grass", kPosY, "road"));
  EXPECT_TRUE(has(*m, "grass", kPosX, "road#r1"));
  EXPECT_FALSE(has(*m, "grass", kPosX, "road"));
  ASSERT_TRUE(finalize_model(*m, "p").ok());
}

// An asymmetric edge (a kerb on one side of the edge) fits its mirror, not itself; reflecting a
// tile swaps its profiles with their mirrors.
TEST(WfcLearnFromProfiles, MirroredProfilesPair) {
  std::vector<TileDef> defs = {def("k", Symmetry::F, {"a", "a'", "s", "s"})};
  auto m = expand_tiles(defs, 2, "");
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  ASSERT_TRUE(learn_from_profiles(*m, defs).ok());
  // k's +x is "a", k's -x is "a'": k next to k along x fits.
  EXPECT_TRUE(has(*m, "k", kPosX, "k"));
  // Mirrored k has +x "a" (its old -x "a'", mirrored) and -x "a'": it also fits k along x.
  EXPECT_TRUE(has(*m, "k", kPosX, "k#r0m"));
  // k turned twice has "a'" on +x and "a" on -x: k's +x "a" against its -x "a" does not fit.
  EXPECT_FALSE(has(*m, "k", kPosX, "k#r2"));
  EXPECT_TRUE(has(*m, "k#r2", kPosX, "k#r2"));
  // Symmetric "s" fits itself.
  EXPECT_TRUE(has(*m, "k", kPosY, "k"));
  // Every profile constraint comes with its reverse.
  EXPECT_TRUE(finalize_model(*m, "p").ok());
}

TEST(WfcLearnFromProfiles, VerticalProfilesStack) {
  std::vector<TileDef> defs = {def("base", Symmetry::X, {"", "", "", "", "top", ""}),
                               def("tank", Symmetry::L, {"", "", "", "", "", "top"})};
  auto m = expand_tiles(defs, 3, "");
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  ASSERT_TRUE(learn_from_profiles(*m, defs).ok());
  EXPECT_TRUE(has(*m, "base", kPosZ, "tank"));
  EXPECT_TRUE(has(*m, "base", kPosZ, "tank#r3"));
  EXPECT_TRUE(has(*m, "tank#r2", kNegZ, "base"));
  EXPECT_FALSE(has(*m, "tank", kPosZ, "base"));
}

TEST(WfcCheckSolution, ReportsEveryBadSideAndTheBoundary) {
  auto m = expand_tiles({def("a"), def("b")}, 1, "e");
  ASSERT_TRUE(m.ok());
  ASSERT_TRUE(learn_from_examples(*m, {painted(4, 1, {"e", "a", "b", "e"})}).ok());
  ASSERT_TRUE(finalize_model(*m, "c").ok());
  const Grid g = square_grid(3, 1, 1);
  const TileId e = m->find("e"), a = m->find("a"), b = m->find("b");
  EXPECT_TRUE(check_solution(*m, g, {a, b, e}).empty());
  // b then a: both sides of b|a and of a|e, plus b at the -x boundary (b may not border Empty
  // on its -x).
  const auto v = check_solution(*m, g, {b, a, e});
  ASSERT_EQ(v.size(), 5U);
  EXPECT_EQ(v[0].cell, 0U);
  EXPECT_EQ(v[0].label, kPosX);
  EXPECT_EQ(v[0].neighbour, 1U);
  EXPECT_EQ(v[1].cell, 0U);
  EXPECT_EQ(v[1].label, kNegX);
  EXPECT_EQ(v[1].neighbour, kBoundary);
  // An unsolved cell fails on every side.
  EXPECT_EQ(check_solution(*m, g, {a, kNoTile, e}).size(), 4U);
}

}  // namespace
}  // namespace cityforge::wfc
