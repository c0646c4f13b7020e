// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cityforge/buildings/style.hpp"

namespace cityforge::buildings {
namespace {

// Keys of a small module dictionary: C corner 0.5, W window 1.5, P pilaster 0.3, E entrance 2,
// D door 1.2, {shop} 3.
const std::vector<std::string> kKeys = {"C", "W", "P", "E", "D", "shop"};
const std::vector<double> kWidths = {0.5, 1.5, 0.3, 2.0, 1.2, 3.0};

Grammar parse_ok(const std::string& text) {
  auto g = parse_grammar(text, "test.json: /g", kKeys);
  EXPECT_TRUE(g.ok()) << (g.ok() ? "" : g.error().to_string());
  return g.ok() ? g.value() : Grammar{};
}

std::string parse_error(const std::string& text) {
  auto g = parse_grammar(text, "test.json: /levels/ground/grammars/2", kKeys);
  EXPECT_FALSE(g.ok()) << text;
  if (g.ok()) return "";
  EXPECT_EQ(g.error().where, "test.json: /levels/ground/grammars/2");
  return g.error().message;
}

void expect_covers(const GrammarFit& fit, double length_m) {
  ASSERT_FALSE(fit.modules.empty());
  double offset = 0.0;
  for (const FittedModule& m : fit.modules) {
    EXPECT_NEAR(m.offset_m, offset, 1e-9);
    EXPECT_GE(m.width_m, 0.0);
    offset = m.offset_m + m.width_m;
  }
  EXPECT_NEAR(fit.modules.front().offset_m, 0.0, 1e-12);
  EXPECT_NEAR(fit.modules.back().offset_m + fit.modules.back().width_m, length_m, 1e-9);
}

TEST(GrammarParse, Buckets) {
  const Grammar g = parse_ok("|C|(WWP)|*E|(WWP)|C|");
  ASSERT_EQ(g.buckets.size(), 5U);
  EXPECT_EQ(g.text, "|C|(WWP)|*E|(WWP)|C|");
  EXPECT_FALSE(g.buckets[0].scalable);
  EXPECT_TRUE(g.buckets[2].scalable);
  ASSERT_EQ(g.buckets[1].terms.size(), 1U);
  EXPECT_EQ(g.buckets[1].terms[0].kind, GrammarTerm::Kind::repeat);
  EXPECT_EQ(g.buckets[1].terms[0].body.size(), 3U);
  EXPECT_EQ(g.buckets[2].terms[0].module, 3U);
}

TEST(GrammarParse, OptionalBarsSpacesNamesAndNesting) {
  const Grammar g = parse_ok("  C | ( W [ P {shop} ]2 W ) | * E D  ");
  ASSERT_EQ(g.buckets.size(), 3U);
  const GrammarTerm& rep = g.buckets[1].terms[0];
  ASSERT_EQ(rep.kind, GrammarTerm::Kind::repeat);
  ASSERT_EQ(rep.body.size(), 3U);
  EXPECT_EQ(rep.body[1].kind, GrammarTerm::Kind::fixed_repeat);
  EXPECT_EQ(rep.body[1].count, 2U);
  EXPECT_EQ(rep.body[1].body[1].module, 5U);
  EXPECT_TRUE(g.buckets[2].scalable);
  EXPECT_EQ(g.buckets[2].terms.size(), 2U);
  // Several terms in one bucket, nested fixed repeats, (...) inside [...].
  const Grammar h = parse_ok("C[[WP]3E]12|[C(W)]2");
  EXPECT_EQ(h.buckets[0].terms[1].count, 12U);
  EXPECT_EQ(h.buckets[0].terms[1].body[0].count, 3U);
  EXPECT_EQ(h.buckets[1].terms[0].body[1].kind, GrammarTerm::Kind::repeat);
  EXPECT_EQ(parse_ok("{C}").buckets[0].terms[0].module, 0U);
}

TEST(GrammarParse, Errors) {
  std::string m = parse_error("|C|(WW|C|");
  EXPECT_NE(m.find("column 7 of \"|C|(WW|C|\""), std::string::npos) << m;
  EXPECT_NE(m.find("'(' opened at column 4 is not closed"), std::string::npos) << m;
  m = parse_error("C|[WP");
  EXPECT_NE(m.find("column 6"), std::string::npos) << m;
  EXPECT_NE(m.find("'[' opened at column 3"), std::string::npos) << m;
  m = parse_error("C|{shop");
  EXPECT_NE(m.find("'{' opened at column 3"), std::string::npos) << m;
  m = parse_error("C|[WP]|C");
  EXPECT_NE(m.find("column 7"), std::string::npos) << m;
  EXPECT_NE(m.find("repeat count"), std::string::npos) << m;
  m = parse_error("C|[WP]0");
  EXPECT_NE(m.find("column 7"), std::string::npos) << m;
  EXPECT_NE(m.find("got 0"), std::string::npos) << m;
  m = parse_error("C|WQW");
  EXPECT_NE(m.find("column 4"), std::string::npos) << m;
  EXPECT_NE(m.find("unknown module key 'Q'"), std::string::npos) << m;
  m = parse_error("C|{awning}");
  EXPECT_NE(m.find("column 3"), std::string::npos) << m;
  EXPECT_NE(m.find("{awning}"), std::string::npos) << m;
  m = parse_error("C||W");
  EXPECT_NE(m.find("column 3"), std::string::npos) << m;
  EXPECT_NE(m.find("empty bucket"), std::string::npos) << m;
  m = parse_error("C|()|W");
  EXPECT_NE(m.find("column 4"), std::string::npos) << m;
  EXPECT_NE(m.find("empty macro"), std::string::npos) << m;
  m = parse_error("C|(W(P))");
  EXPECT_NE(m.find("column 5"), std::string::npos) << m;
  EXPECT_NE(m.find("nested '('"), std::string::npos) << m;
  m = parse_error("C|([W(P)]2)");
  EXPECT_NE(m.find("column 6"), std::string::npos) << m;
  m = parse_error("C|W*P");
  EXPECT_NE(m.find("column 4"), std::string::npos) << m;
  EXPECT_NE(m.find("'*'"), std::string::npos) << m;
  m = parse_error("C|W)");
  EXPECT_NE(m.find("column 4"), std::string::npos) << m;
  m = parse_error("C|W]2");
  EXPECT_NE(m.find("column 4"), std::string::npos) << m;
  m = parse_error("C|W-");
  EXPECT_NE(m.find("column 4"), std::string::npos) << m;
  EXPECT_NE(m.find("'-'"), std::string::npos) << m;
  m = parse_error("");
  EXPECT_NE(m.find("empty grammar"), std::string::npos) << m;
  m = parse_error("  |  ");
  EXPECT_NE(m.find("column"), std::string::npos) << m;
  m = parse_error("C|*");
  EXPECT_NE(m.find("empty bucket"), std::string::npos) << m;
}

TEST(GrammarParse, Limits) {
  std::string deep = "C|";
  for (int i = 0; i < 40; ++i)
    deep += "[";
  deep += "W";
  for (int i = 0; i < 40; ++i)
    deep += "]2";
  std::string m = parse_error(deep);
  EXPECT_NE(m.find("nested deeper"), std::string::npos) << m;
  m = parse_error("C|[[[W]1000]1000]1000");
  EXPECT_NE(m.find("expands to more than"), std::string::npos) << m;
  EXPECT_NE(m.find("column 13"), std::string::npos) << m;
}

// Random strings over the grammar alphabet: the parser never crashes, and whatever parses fits.
TEST(GrammarParse, RandomStrings) {
  const std::string alphabet = "CWPED{}()[]|*0123 shopx";
  std::uint64_t state = 12345;
  int parsed = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const auto len = static_cast<std::size_t>((state >> 33) % 14);
    for (std::size_t k = 0; k < len; ++k) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      text += alphabet[(state >> 33) % alphabet.size()];
    }
    auto g = parse_grammar(text, "fuzz", kKeys);
    if (!g.ok()) {
      EXPECT_NE(g.error().message.find("column "), std::string::npos) << text;
      continue;
    }
    ++parsed;
    for (double length : {0.7, 3.0, 11.3, 40.0}) {
      const GrammarFit fit = fit_grammar(g.value(), kWidths, length);
      SCOPED_TRACE(text);
      expect_covers(fit, length);
    }
  }
  EXPECT_GT(parsed, 100);
}

TEST(GrammarFit, CoversManyLengths) {
  const std::vector<std::string> grammars = {
      "|C|(WWP)|*E|(WWP)|C|", "C(W)C", "*C|[WP]2|(W)", "(W[PD]2)|E", "{shop}|*(W)|C", "WP"};
  for (const std::string& text : grammars) {
    const Grammar g = parse_ok(text);
    for (int i = 1; i <= 400; ++i) {
      const double length = 0.137 * i;
      const GrammarFit fit = fit_grammar(g, kWidths, length);
      SCOPED_TRACE(text + " at " + std::to_string(length));
      expect_covers(fit, length);
      if (fit.fits) {
        EXPECT_GE(fit.gap_m, 0.0);
      } else {
        EXPECT_LT(fit.gap_m, 0.0);
      }
    }
  }
}

TEST(GrammarFit, SymmetricRepeatsAndScalableBuckets) {
  const Grammar g = parse_ok("|C|(WWP)|*E|(WWP)|C|");
  // Fixed 0.5 + 2 + 0.5 = 3; one repeat of both macros = 2 * 3.3 = 6.6.
  const GrammarFit fit = fit_grammar(g, kWidths, 17.0);
  ASSERT_TRUE(fit.fits);
  // n = 2: 3 + 13.2 = 16.2, gap 0.8 absorbed by E (2 -> 2.8).
  EXPECT_NEAR(fit.gap_m, 0.8, 1e-9);
  ASSERT_EQ(fit.modules.size(), 2U + 1U + 6U * 2U);
  EXPECT_NEAR(fit.scale, 2.8 / 2.0, 1e-12);
  int windows_left = 0;
  int windows_right = 0;
  bool after_entrance = false;
  for (const FittedModule& m : fit.modules) {
    if (m.module == 3U) {
      EXPECT_NEAR(m.width_m, 2.8, 1e-9);
      after_entrance = true;
    } else {
      EXPECT_NEAR(m.width_m, kWidths[m.module], 1e-9);  // only * buckets scale
      if (m.module == 1U) (after_entrance ? windows_right : windows_left)++;
    }
  }
  EXPECT_EQ(windows_left, 4);
  EXPECT_EQ(windows_right, 4);
  expect_covers(fit, 17.0);
}

TEST(GrammarFit, NoScalableBucketScalesAll) {
  const Grammar g = parse_ok("C|(W)|C");
  const GrammarFit fit = fit_grammar(g, kWidths, 5.0);
  ASSERT_TRUE(fit.fits);
  // 1 + 2 * 1.5 = 4, gap 1, every module scaled by 5 / 4.
  EXPECT_NEAR(fit.gap_m, 1.0, 1e-9);
  EXPECT_NEAR(fit.scale, 1.25, 1e-12);
  ASSERT_EQ(fit.modules.size(), 4U);
  EXPECT_NEAR(fit.modules[0].width_m, 0.625, 1e-9);
  EXPECT_NEAR(fit.modules[1].width_m, 1.875, 1e-9);
  expect_covers(fit, 5.0);
}

TEST(GrammarFit, FixedRepeatIsExact) {
  const Grammar g = parse_ok("C|[W]3|*P");
  const GrammarFit fit = fit_grammar(g, kWidths, 20.0);
  ASSERT_TRUE(fit.fits);
  EXPECT_EQ(fit.modules.size(), 5U);
  EXPECT_NEAR(fit.modules[4].width_m, 20.0 - 0.5 - 4.5, 1e-9);
}

TEST(GrammarFit, ExactLengthHasZeroGap) {
  const Grammar g = parse_ok("C|(W)|C");
  const GrammarFit fit = fit_grammar(g, kWidths, 0.5 + 0.5 + 1.5 * 7);
  EXPECT_TRUE(fit.fits);
  EXPECT_NEAR(fit.gap_m, 0.0, 1e-9);
  EXPECT_EQ(fit.modules.size(), 9U);
}

TEST(GrammarFit, NoFitFallbackStillCovers) {
  const Grammar g = parse_ok("C|*[W]2E|C");
  // Natural 0.5 + 3 + 2 + 0.5 = 6 > 3.
  const GrammarFit fit = fit_grammar(g, kWidths, 3.0);
  EXPECT_FALSE(fit.fits);
  EXPECT_NEAR(fit.gap_m, -3.0, 1e-9);
  EXPECT_NEAR(fit.scale, 0.5, 1e-12);
  ASSERT_EQ(fit.modules.size(), 5U);
  EXPECT_NEAR(fit.modules[0].width_m, 0.25, 1e-9);  // all modules scaled uniformly
  expect_covers(fit, 3.0);
}

TEST(GrammarFit, OnlyRepeatsPlacesOnePass) {
  const Grammar g = parse_ok("(WP)");
  GrammarFit fit = fit_grammar(g, kWidths, 1.0);
  EXPECT_FALSE(fit.fits);
  EXPECT_NEAR(fit.gap_m, 1.0 - 1.8, 1e-9);
  ASSERT_EQ(fit.modules.size(), 2U);
  expect_covers(fit, 1.0);
  fit = fit_grammar(g, kWidths, 4.0);
  EXPECT_TRUE(fit.fits);
  EXPECT_EQ(fit.modules.size(), 4U);
  expect_covers(fit, 4.0);
}

TEST(GrammarChoose, SmallestNonNegativeGap) {
  const std::vector<Grammar> gs = {parse_ok("C|[W]4|C"), parse_ok("C|[W]2|C"), parse_ok("C|E|C"),
                                   parse_ok("C|[W]2|C")};
  // Natural lengths: 7, 4, 3, 4.
  GrammarFit fit;
  EXPECT_EQ(choose_grammar(gs, kWidths, 7.5, &fit), 0U);
  EXPECT_NEAR(fit.gap_m, 0.5, 1e-9);
  EXPECT_EQ(choose_grammar(gs, kWidths, 4.2, &fit), 1U);  // tie with 3: the earlier one
  EXPECT_EQ(choose_grammar(gs, kWidths, 3.5, &fit), 2U);
  EXPECT_EQ(choose_grammar(gs, kWidths, 4.0, &fit), 1U);
  EXPECT_TRUE(fit.fits);
  // None fits: smallest overshoot (3 for length 2), fallback scaling.
  EXPECT_EQ(choose_grammar(gs, kWidths, 2.0, &fit), 2U);
  EXPECT_FALSE(fit.fits);
  EXPECT_NEAR(fit.gap_m, -1.0, 1e-9);
  expect_covers(fit, 2.0);
  EXPECT_EQ(choose_grammar(gs, kWidths, 2.0, nullptr), 2U);
}

TEST(GrammarChoose, RepeatingGrammarsCompeteOnGap) {
  const std::vector<Grammar> gs = {parse_ok("C|(W)|C"), parse_ok("C|(E)|C")};
  GrammarFit fit;
  // Length 9: (W) gives 1 + 5 * 1.5 = 8.5 (gap 0.5); (E) gives 1 + 4 * 2 = 9 (gap 0).
  EXPECT_EQ(choose_grammar(gs, kWidths, 9.0, &fit), 1U);
  EXPECT_NEAR(fit.gap_m, 0.0, 1e-9);
  // Length 8.6: (W) 8.5 (gap 0.1), (E) 7 (gap 1.6).
  EXPECT_EQ(choose_grammar(gs, kWidths, 8.6, &fit), 0U);
}

}  // namespace
}  // namespace cityforge::buildings
