// SPDX-License-Identifier: Apache-2.0
// The model JSON reader: the built-in models load, and every kind of bad input is reported with
// the file and the JSON pointer.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "cityforge/wfc/wfc.hpp"

namespace cityforge::wfc {
namespace {

std::string builtin(const std::string& file) {
  for (const auto& [name, text] : builtin_model_sources()) {
    if (name == file) return text;
  }
  return "";
}

bool has(const Model& m, const std::string& a, Label d, const std::string& b) {
  const Constraint c{m.find(a), d, m.find(b)};
  return std::find(m.constraints.begin(), m.constraints.end(), c) != m.constraints.end();
}

/// Parses `text` expecting an error; returns "where: message".
std::string error_of(const std::string& text) {
  auto m = parse_model(text, "bad.json");
  EXPECT_FALSE(m.ok()) << text;
  return m.ok() ? "" : m.error().to_string();
}

void expect_error(const std::string& text, const std::string& where, const std::string& part) {
  const std::string e = error_of(text);
  EXPECT_EQ(e.rfind("bad.json: " + where + ": ", 0), 0U) << e;
  EXPECT_NE(e.find(part), std::string::npos) << e;
}

TEST(WfcParseModel, BuiltinModelsLoad) {
  const auto sources = builtin_model_sources();
  ASSERT_FALSE(sources.empty());
  for (const auto& [name, text] : sources) {
    auto m = parse_model(text, name);
    EXPECT_TRUE(m.ok()) << name << ": " << (m.ok() ? "" : m.error().to_string());
  }
}

TEST(WfcParseModel, CatLearnsTheStripRules) {
  auto m = parse_model(builtin("wfc/cat.json"), "wfc/cat.json");
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(m->name, "cat");
  EXPECT_EQ(m->label_count, 2U);
  ASSERT_NE(m->empty, kNoTile);
  EXPECT_EQ(m->tiles[m->empty].name, "empty");
  EXPECT_TRUE(has(*m, "tail", kPosX, "body"));
  EXPECT_TRUE(has(*m, "body", kNegX, "tail"));
  EXPECT_TRUE(has(*m, "tail", kPosX, "head"));
  EXPECT_TRUE(has(*m, "body", kPosX, "head"));
  EXPECT_TRUE(has(*m, "empty", kPosX, "tail"));
  EXPECT_TRUE(has(*m, "head", kPosX, "empty"));
  EXPECT_FALSE(has(*m, "body", kPosX, "empty"));  // no open-ended cat
  EXPECT_FALSE(has(*m, "head", kPosX, "tail"));
  EXPECT_FALSE(has(*m, "empty", kPosX, "body"));
}

TEST(WfcParseModel, CityBlocksExpandsSymmetriesAndMultiCellTiles) {
  auto m = parse_model(builtin("wfc/city_blocks.json"), "wfc/city_blocks.json");
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(m->base_names.size(), 12U);
  EXPECT_EQ(m->tiles.size(), 37U);
  EXPECT_EQ(m->tiles[m->empty].name, "lot");
  EXPECT_TRUE(has(*m, "tower@0,0,0", kPosX, "tower@1,0,0"));
  EXPECT_TRUE(has(*m, "hall#r1@0,0,0", kPosY, "hall#r1@0,1,0"));
  EXPECT_TRUE(has(*m, "street", kPosX, "street"));
  EXPECT_FALSE(has(*m, "street", kPosX, "street#r1"));
  EXPECT_FALSE(has(*m, "street", kPosX, "lot"));  // streets close inside the grid
  // Park edges in a row: "ps" against its mirror "ps'".
  EXPECT_TRUE(has(*m, "park_edge", kPosX, "park_edge"));
  EXPECT_FALSE(has(*m, "park_edge", kPosX, "park_edge#r2"));
  EXPECT_TRUE(has(*m, "park_edge", kPosY, "park"));
}

// The talk's 1D case (seeds/000, 40:31): every solved strip reads as whole cats between Empty
// cells, checked here by a grammar of its own, not by the model.
TEST(WfcParseModel, CatStripsSolveToWholeCats) {
  auto m = parse_model(builtin("wfc/cat.json"), "wfc/cat.json");
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  int cats = 0;
  for (std::uint32_t n = 1; n <= 12; ++n) {
    for (Seed seed = 1; seed <= 8; ++seed) {
      const Grid g = square_grid(n, 1, 1);
      SolveOptions o;
      o.seed = seed;
      auto s = solve(*m, g, {}, o);
      ASSERT_TRUE(s.ok()) << n << ": " << s.error().to_string();
      std::string strip;
      for (const TileId t : s->tiles)
        strip += m->tiles[t].name.substr(0, 1);  // e, t, b, h
      // Outside the strip is Empty: a tail starts after Empty, a head ends before Empty.
      const std::string padded = "e" + strip + "e";
      for (std::size_t i = 1; i + 1 < padded.size(); ++i) {
        const char c = padded[i], l = padded[i - 1], r = padded[i + 1];
        bool ok = c == 'e';
        if (c == 't') ok = l == 'e' && (r == 'b' || r == 'h');
        if (c == 'b') ok = (l == 't' || l == 'b') && (r == 'b' || r == 'h');
        if (c == 'h') ok = (l == 't' || l == 'b') && r == 'e';
        EXPECT_TRUE(ok) << strip << " at " << i - 1;
        cats += c == 'h' ? 1 : 0;
      }
      EXPECT_TRUE(check_solution(*m, g, s->tiles).empty()) << strip;
    }
  }
  EXPECT_GT(cats, 0);
}

// The talk's 2D case (41:45): 6x6 grids of city blocks satisfy every constraint and the Empty
// boundary.
TEST(WfcParseModel, CityBlocks6x6SolvesValid) {
  auto m = parse_model(builtin("wfc/city_blocks.json"), "wfc/city_blocks.json");
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  for (Seed seed = 1; seed <= 10; ++seed) {
    const Grid g = square_grid(6, 6, 1);
    SolveOptions o;
    o.seed = seed;
    o.max_restarts = 4;
    auto s = solve(*m, g, {}, o);
    ASSERT_TRUE(s.ok()) << s.error().to_string();
    EXPECT_TRUE(check_solution(*m, g, s->tiles).empty()) << seed;
    // Streets and grass never run off the grid: no street along x in the first or last column,
    // none along y in the first or last row, no crossing or park anywhere on the border.
    for (std::uint32_t k = 0; k < 6; ++k) {
      for (const std::uint32_t e : {0U, 5U}) {
        const std::string& col = m->tiles[s->tiles[e + 6 * k]].name;
        const std::string& row = m->tiles[s->tiles[k + 6 * e]].name;
        EXPECT_NE(col, "street");
        EXPECT_NE(row, "street#r1");
        for (const std::string& n : {col, row}) {
          EXPECT_NE(n, "crossing");
          EXPECT_NE(n, "park");
        }
      }
    }
  }
}

TEST(WfcParseModel, ExplicitConstraintsAndLegendRows) {
  const std::string text = R"({
    "name": "t", "dimensions": 2, "empty": "e",
    "tiles": [{"name": "a"}, {"name": "b", "weight": 2.5}],
    "constraints": [["a", "+x", "b"], ["b", "-x", "a"]],
    "examples": [{"legend": {".": "e", "a": "a", "b": "b"}, "rows": ["....", ".ab.", "...."]}]
  })";
  auto m = parse_model(text, "t.json");
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_TRUE(has(*m, "a", kPosX, "b"));
  EXPECT_TRUE(has(*m, "e", kPosY, "a"));
  EXPECT_TRUE(has(*m, "a", kNegY, "e"));
  EXPECT_FALSE(has(*m, "a", kPosY, "b"));
  EXPECT_GT(m->tiles[m->find("b")].weight, m->tiles[m->find("a")].weight);
}

// Row j is y = j and layer k is z = k, and the example's cells are exactly what it shows.
TEST(WfcParseModel, RowsAndLayersAreYAndZ) {
  const std::string text = R"({
    "name": "t", "dimensions": 3, "empty": "e",
    "tiles": [{"name": "a"}, {"name": "b"}, {"name": "c"}],
    "examples": [{"layers": [["a b", "c c"], ["e e", "e a"]]},
                 {"size": [1, 1, 2], "cells": ["b", "c"], "empty_border": false}]
  })";
  auto m = parse_model(text, "t.json");
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_TRUE(has(*m, "a", kPosX, "b"));
  EXPECT_TRUE(has(*m, "a", kPosY, "c"));
  EXPECT_TRUE(has(*m, "c", kPosZ, "a"));  // (1,1,0) under (1,1,1)
  EXPECT_TRUE(has(*m, "a", kPosZ, "e"));
  EXPECT_TRUE(has(*m, "b", kPosZ, "c"));
  EXPECT_FALSE(has(*m, "a", kPosZ, "c"));
  EXPECT_FALSE(has(*m, "b", kPosY, "a"));
}

TEST(WfcParseModel, ErrorsNameFileAndPointer) {
  EXPECT_EQ(error_of("{").rfind("bad.json:1:", 0), 0U);
  EXPECT_NE(error_of("{").find("malformed JSON"), std::string::npos);
  expect_error(R"({"name": "t", "dimensions": 2, "tiles": [{"name": "a"}], "colour": 1})",
               "/colour", "unknown key");
  expect_error(R"({"name": "t", "dimensions": 4, "tiles": [{"name": "a"}]})", "/dimensions",
               "[1, 3]");
  expect_error(R"({"name": "t", "dimensions": 2, "tiles": [{"name": "a", "symmetry": "Q"}]})",
               "/tiles/0/symmetry", "unknown symmetry class \"Q\"");
  expect_error(R"({"name": "t", "dimensions": 2, "tiles": [{"name": "a", "weight": 0}]})",
               "/tiles/0/weight", "expected a number in (0");
  expect_error(R"({"name": "t", "dimensions": 2, "tiles": [{"name": "a"}, {"name": "a"}]})",
               "/tiles/1/name", "already used");
  expect_error(R"({"name": "t", "dimensions": 2,
                   "tiles": [{"name": "a", "profiles": {"+z": "p"}}]})",
               "/tiles/0/profiles/+z", "unknown direction");
  expect_error(R"({"name": "t", "dimensions": 2,
                   "tiles": [{"name": "r", "symmetry": "I",
                              "profiles": {"+x": "road", "-x": "g", "+y": "g", "-y": "g"}}]})",
               "/tiles/0", "symmetry I needs its -x profile to be \"road\"");
  const std::string head = R"({"name": "t", "dimensions": 1, "empty": "e",
                   "tiles": [{"name": "a"}, {"name": "b"}], )";
  expect_error(head + R"("constraints": [["a", "up", "b"]]})", "/constraints/0/1",
               "unknown direction \"up\"; expected one of: +x, -x");
  expect_error(head + R"("constraints": [["a", "+x", "c"]]})", "/constraints/0/2",
               "unknown tile \"c\"");
  expect_error(head + R"("constraints": [["a", "+x"]]})", "/constraints/0",
               "expected [key, direction, adjacent]");
  expect_error(head + R"("examples": [{"rows": ["e a bb e"]}]})", "/examples/0/rows/0",
               "x = 2: unknown tile \"bb\"");
  expect_error(head + R"("examples": [{"rows": ["e a", "e b"]}]})", "/examples/0",
               "a 1D model needs a single row");
  expect_error(head + R"("examples": [{"size": [3], "cells": ["e", "a"]}]})", "/examples/0/cells",
               "expected 3 cells");
  expect_error(head + R"("examples": [{"rows": ["e a"], "cells": ["e"]}]})", "/examples/0",
               "exactly one of");
  expect_error(head + R"("examples": [{"legend": {".": "e"}, "rows": [".x"]}]})",
               "/examples/0/rows/0", "character \"x\" at x = 1 is not in the legend");
}

TEST(WfcParseModel, AsymmetricConstraintListNamesTheMissingPair) {
  const std::string text = R"({"name": "t", "dimensions": 1, "empty": "e",
    "tiles": [{"name": "a"}, {"name": "b"}],
    "constraints": [["e", "+x", "a"], ["a", "-x", "e"], ["a", "+x", "b"],
                    ["b", "+x", "e"], ["e", "-x", "b"]]})";
  expect_error(text, "/constraints/2",
               "constraint [a, +x, b] has no reverse [b, -x, a]; constraint lists must hold both "
               "directions");
}

TEST(WfcParseModel, TileThatCanNeverBePlacedIsNamed) {
  const std::string text = R"({"name": "t", "dimensions": 1, "empty": "e",
    "tiles": [{"name": "a"}, {"name": "lonely"}],
    "examples": [{"rows": ["e a a e"]}]})";
  const std::string e = error_of(text);
  EXPECT_EQ(e, "bad.json: tile \"lonely\" can never be placed: nothing may sit on its +x side");
}

}  // namespace
}  // namespace cityforge::wfc
