// SPDX-License-Identifier: Apache-2.0
// Symmetry expansion, multi-cell tiles and the checks of finalize_model.

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <tuple>

#include "cityforge/wfc/wfc.hpp"

namespace cityforge::wfc {
namespace {

TileDef def(std::string name, Symmetry s, std::vector<std::string> profiles = {}) {
  TileDef d;
  d.name = std::move(name);
  d.symmetry = s;
  d.profiles = std::move(profiles);
  return d;
}

std::size_t variants(Symmetry s, std::uint32_t dims) {
  auto m = expand_tiles({def("t", s)}, dims, "");
  EXPECT_TRUE(m.ok()) << m.error().to_string();
  return m.ok() ? m->tiles.size() : 0;
}

bool has(const Model& m, const std::string& a, Label d, const std::string& b) {
  const Constraint c{m.find(a), d, m.find(b)};
  return std::find(m.constraints.begin(), m.constraints.end(), c) != m.constraints.end();
}

TEST(WfcExpandTiles, SymmetryClassVariantCounts) {
  EXPECT_EQ(variants(Symmetry::X, 2), 1U);
  EXPECT_EQ(variants(Symmetry::I, 2), 2U);
  EXPECT_EQ(variants(Symmetry::D, 2), 2U);
  EXPECT_EQ(variants(Symmetry::T, 2), 4U);
  EXPECT_EQ(variants(Symmetry::L, 2), 4U);
  EXPECT_EQ(variants(Symmetry::F, 2), 8U);
  EXPECT_EQ(variants(Symmetry::F, 3), 8U);
  // 1D: only the reflection x -> -x applies.
  EXPECT_EQ(variants(Symmetry::X, 1), 1U);
  EXPECT_EQ(variants(Symmetry::I, 1), 1U);
  EXPECT_EQ(variants(Symmetry::T, 1), 1U);
  EXPECT_EQ(variants(Symmetry::L, 1), 2U);
  EXPECT_EQ(variants(Symmetry::F, 1), 2U);
}

TEST(WfcExpandTiles, VariantNamesAndTransforms) {
  auto m = expand_tiles({def("road", Symmetry::I), def("bend", Symmetry::L)}, 2, "");
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  std::vector<std::string> names;
  for (const TileVariant& v : m->tiles)
    names.push_back(v.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"road", "road#r1", "bend", "bend#r1", "bend#r2", "bend#r3"}));
  const TileVariant& r1 = m->tiles[m->find("road#r1")];
  EXPECT_EQ(r1.rotation, 1);
  EXPECT_FALSE(r1.reflected);
  EXPECT_EQ(r1.base, 0U);
  EXPECT_EQ(m->find("road#r2"), kNoTile);
  auto f = expand_tiles({def("stair", Symmetry::F)}, 2, "");
  ASSERT_TRUE(f.ok());
  EXPECT_NE(f->find("stair#r2m"), kNoTile);
  EXPECT_TRUE(f->tiles[f->find("stair#r2m")].reflected);
}

// Rotated variants' profiles move with their sides, so a road along x and its quarter turn
// join road-to-road only along their own axis.
TEST(WfcExpandTiles, RotatedVariantsConstraintsAreConsistent) {
  std::vector<TileDef> defs = {def("road", Symmetry::I, {"road", "road", "grass", "grass"}),
                               def("grass", Symmetry::X, {"grass", "grass", "grass", "grass"})};
  auto m = expand_tiles(defs, 2, "");
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  ASSERT_TRUE(learn_from_profiles(*m, defs).ok());
  ASSERT_TRUE(finalize_model(*m, "test").ok());
  EXPECT_TRUE(has(*m, "road", kPosX, "road"));
  EXPECT_TRUE(has(*m, "road", kPosY, "road"));  // side by side, grass to grass
  EXPECT_FALSE(has(*m, "road", kPosX, "road#r1"));
  EXPECT_TRUE(has(*m, "road#r1", kPosY, "road#r1"));
  EXPECT_FALSE(has(*m, "road#r1", kPosY, "road"));
  EXPECT_TRUE(has(*m, "road#r1", kPosX, "grass"));
  EXPECT_FALSE(has(*m, "road", kPosX, "grass"));
  // Every constraint of road turned by a quarter turn is a constraint of road#r1.
  const Label turn[4] = {kPosY, kNegY, kNegX, kPosX};
  const auto turned = [&](TileId t) {
    const std::string& n = m->tiles[t].name;
    if (n == "road") return m->find("road#r1");
    if (n == "road#r1") return m->find("road");
    return t;
  };
  for (const Constraint& c : m->constraints) {
    const Constraint r{turned(c.key), turn[c.label], turned(c.adjacent)};
    EXPECT_NE(std::find(m->constraints.begin(), m->constraints.end(), r), m->constraints.end())
        << m->tiles[c.key].name << " " << int(c.label) << " " << m->tiles[c.adjacent].name;
  }
}

TEST(WfcExpandTiles, SymmetryClassMustAgreeWithProfiles) {
  auto m = expand_tiles({def("road", Symmetry::I, {"road", "grass", "grass", "grass"})}, 2, "");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().to_string().find("road"), std::string::npos);
  EXPECT_NE(m.error().message.find("symmetry I"), std::string::npos) << m.error().message;
}

TEST(WfcExpandTiles, EmptyIsAddedAndBordersItself) {
  auto m = expand_tiles({def("a", Symmetry::X)}, 3, "empty");
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  ASSERT_NE(m->empty, kNoTile);
  EXPECT_EQ(m->tiles[m->empty].name, "empty");
  for (Label d = 0; d < 6; ++d)
    EXPECT_TRUE(has(*m, "empty", d, "empty")) << int(d);
  auto bad = expand_tiles({def("empty", Symmetry::L)}, 2, "empty");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("symmetry X"), std::string::npos);
}

TEST(WfcExpandTiles, MultiCellPartsAreForcedTogether) {
  TileDef big = def("big", Symmetry::T);
  big.size[0] = 2;
  auto m = expand_tiles({big}, 2, "");
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(m->tiles.size(), 8U);  // 4 turns x 2 parts
  const TileId a = m->find("big@0,0,0");
  const TileId b = m->find("big@1,0,0");
  ASSERT_NE(a, kNoTile);
  ASSERT_NE(b, kNoTile);
  EXPECT_TRUE(has(*m, "big@0,0,0", kPosX, "big@1,0,0"));
  EXPECT_TRUE(has(*m, "big@1,0,0", kNegX, "big@0,0,0"));
  // A quarter turn stands the tile along y.
  EXPECT_NE(m->find("big#r1@0,1,0"), kNoTile);
  EXPECT_EQ(m->find("big#r1@1,0,0"), kNoTile);
  EXPECT_TRUE(has(*m, "big#r1@0,0,0", kPosY, "big#r1@0,1,0"));
  // Non-square footprints cannot have quarter-turn symmetry.
  TileDef bad = def("bad", Symmetry::X);
  bad.size[0] = 2;
  EXPECT_FALSE(expand_tiles({bad}, 2, "").ok());
}

TEST(WfcExpandTiles, RejectsBadDefinitions) {
  EXPECT_FALSE(expand_tiles({def("a", Symmetry::X)}, 0, "").ok());
  EXPECT_FALSE(expand_tiles({def("a", Symmetry::X)}, 4, "").ok());
  EXPECT_FALSE(expand_tiles({def("a#b", Symmetry::X)}, 2, "").ok());
  EXPECT_FALSE(expand_tiles({def("a", Symmetry::X), def("a", Symmetry::X)}, 2, "").ok());
  TileDef w = def("w", Symmetry::X);
  w.weight = 0.0;
  EXPECT_FALSE(expand_tiles({w}, 2, "").ok());
  TileDef tall = def("tall", Symmetry::X);
  tall.size[2] = 2;
  EXPECT_FALSE(expand_tiles({tall}, 2, "").ok());
}

TEST(WfcModel, FindByName) {
  auto m = expand_tiles({def("a", Symmetry::T)}, 2, "e");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->find("a"), 0U);
  EXPECT_EQ(m->find("a#r3"), 3U);
  EXPECT_EQ(m->find("e"), m->empty);
  EXPECT_EQ(m->find("nope"), kNoTile);
}

Model line_model() {
  Model m;
  m.name = "line";
  m.label_count = 2;
  m.opposite = {1, 0};
  m.base_names = {"e", "a", "b"};
  for (std::uint32_t i = 0; i < 3; ++i) {
    TileVariant v;
    v.name = m.base_names[i];
    v.base = i;
    m.tiles.push_back(v);
  }
  m.empty = 0;
  for (Label d = 0; d < 2; ++d) {
    m.constraints.push_back({0, d, 0});
    m.constraints.push_back({0, d, 1});
    m.constraints.push_back({1, d, 0});
  }
  return m;
}

TEST(WfcFinalizeModel, AcceptsAndSortsAGoodModel) {
  Model m = line_model();
  m.constraints.push_back({1, kPosX, 0});  // a duplicate
  m.tiles.pop_back();
  m.base_names.pop_back();
  ASSERT_TRUE(finalize_model(m, "line").ok());
  EXPECT_TRUE(std::is_sorted(
      m.constraints.begin(), m.constraints.end(), [](const Constraint& x, const Constraint& y) {
        return std::tie(x.key, x.label, x.adjacent) < std::tie(y.key, y.label, y.adjacent);
      }));
  EXPECT_EQ(m.constraints.size(), 6U);
}

TEST(WfcFinalizeModel, AsymmetricListNamesTheMissingPair) {
  Model m = line_model();
  m.constraints.push_back({1, kPosX, 2});  // a +x b, but no b -x a
  m.constraints.push_back({2, kPosX, 0});
  m.constraints.push_back({0, kNegX, 2});
  m.constraints.push_back({2, kNegX, 0});
  m.constraints.push_back({0, kPosX, 2});
  const Status s = finalize_model(m, "line.json");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().where, "line.json");
  EXPECT_NE(s.error().message.find("(a, +x, b) has no reverse (b, -x, a)"), std::string::npos)
      << s.error().message;
}

TEST(WfcFinalizeModel, ReportsATileThatCanNeverBePlacedByName) {
  Model m = line_model();  // b has no constraints at all
  const Status s = finalize_model(m, "line");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("tile \"b\" can never be placed: nothing may sit on its +x"),
            std::string::npos)
      << s.error().message;
  // b may sit only between Empty (on its -x) and c (on its +x), and nothing may sit on c's +x:
  // c can never be placed, and so neither can b.
  Model m2 = line_model();
  m2.base_names.push_back("c");
  TileVariant c;
  c.name = "c";
  c.base = 3;
  m2.tiles.push_back(c);
  m2.constraints.push_back({2, kNegX, 0});
  m2.constraints.push_back({0, kPosX, 2});
  m2.constraints.push_back({2, kPosX, 3});
  m2.constraints.push_back({3, kNegX, 2});
  const Status s2 = finalize_model(m2, "line");
  ASSERT_FALSE(s2.ok());
  EXPECT_NE(s2.error().message.find("tile \"c\" can never be placed: nothing may sit on its +x"),
            std::string::npos)
      << s2.error().message;
  EXPECT_NE(s2.error().message.find("1 more"), std::string::npos) << s2.error().message;
}

// b and c may only alternate, never meeting Empty: every row through them would be infinite.
TEST(WfcFinalizeModel, ReportsTilesThatNeverReachTheEmptyBorder) {
  Model m = line_model();
  m.base_names.push_back("c");
  TileVariant c;
  c.name = "c";
  c.base = 3;
  m.tiles.push_back(c);
  for (Label d = 0; d < 2; ++d) {
    m.constraints.push_back({2, d, 3});
    m.constraints.push_back({3, static_cast<Label>(d ^ 1), 2});
  }
  const Status s = finalize_model(m, "line");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("tile \"b\" can never be placed: no chain of placeable "
                                   "neighbours on its +x side ever reaches the grid's Empty"),
            std::string::npos)
      << s.error().message;
  EXPECT_NE(s.error().message.find("1 more"), std::string::npos) << s.error().message;
  // Let c sit before Empty on +x and after it on -x: rows can now end, and the model is fine.
  for (Label d = 0; d < 2; ++d) {
    m.constraints.push_back({3, d, 0});
    m.constraints.push_back({0, static_cast<Label>(d ^ 1), 3});
  }
  EXPECT_TRUE(finalize_model(m, "line").ok()) << finalize_model(m, "line").error().message;
}

TEST(WfcFinalizeModel, EmptyMustBorderItself) {
  Model m = line_model();
  m.tiles.pop_back();
  m.base_names.pop_back();
  m.constraints.erase(m.constraints.begin());      // (e, +x, e)
  m.constraints.erase(m.constraints.begin() + 2);  // (e, -x, e)
  const Status s = finalize_model(m, "line");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("must border itself"), std::string::npos) << s.error().message;
}

TEST(WfcFinalizeModel, RejectsOutOfRangeIdsAndBadLabels) {
  Model m = line_model();
  m.constraints.push_back({7, 0, 0});
  EXPECT_FALSE(finalize_model(m, "x").ok());
  Model m2 = line_model();
  m2.opposite = {0, 0};
  EXPECT_FALSE(finalize_model(m2, "x").ok());
  Model m3 = line_model();
  m3.tiles[1].weight = -1.0;
  EXPECT_FALSE(finalize_model(m3, "x").ok());
}

TEST(WfcFinalizeModel, RejectsConstraintsInsideAMultiCellTile) {
  TileDef big = def("big", Symmetry::F);
  big.size[0] = 2;
  auto m = expand_tiles({big}, 1, "e");
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  // Close the outer sides with Empty so the tile is placeable.
  for (const char* n : {"big@0,0,0", "big#r0m@0,0,0"}) {
    m->constraints.push_back({m->find(n), kNegX, m->empty});
    m->constraints.push_back({m->empty, kPosX, m->find(n)});
  }
  for (const char* n : {"big@1,0,0", "big#r0m@1,0,0"}) {
    m->constraints.push_back({m->find(n), kPosX, m->empty});
    m->constraints.push_back({m->empty, kNegX, m->find(n)});
  }
  Model good = *m;
  ASSERT_TRUE(finalize_model(good, "big").ok()) << finalize_model(good, "big").error().message;
  m->constraints.push_back({m->find("big@0,0,0"), kPosX, m->empty});
  m->constraints.push_back({m->empty, kNegX, m->find("big@0,0,0")});
  const Status s = finalize_model(*m, "big");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("inside of a multi-cell tile"), std::string::npos)
      << s.error().message;
}

}  // namespace
}  // namespace cityforge::wfc
