// SPDX-License-Identifier: Apache-2.0
// The built-in styles (data/styles/*.json): they parse, make a library, and every grammar of
// every level covers walls from min_wall_m to long facades.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "cityforge/buildings/style.hpp"

namespace cityforge::buildings {
namespace {

std::vector<Style> builtin_styles() {
  std::vector<Style> styles;
  for (const auto& [file, text] : builtin_style_sources()) {
    Result<Style> s = parse_style(text, file);
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().to_string());
    if (s.ok()) styles.push_back(std::move(s.value()));
  }
  return styles;
}

TEST(BuiltinStyles, FourParseIntoALibrary) {
  const auto sources = builtin_style_sources();
  ASSERT_EQ(sources.size(), 4U);
  std::vector<Style> styles = builtin_styles();
  ASSERT_EQ(styles.size(), 4U);
  Result<StyleLibrary> lib = make_library(std::move(styles));
  ASSERT_TRUE(lib.ok()) << lib.error().to_string();
  for (const char* name : {"brick_walkup", "glass_tower", "art_deco", "industrial"}) {
    EXPECT_GE(lib->find(name), 0) << name;
  }
  EXPECT_EQ(lib->find("nope"), -1);
  Result<StyleLibrary> again = builtin_library();
  ASSERT_TRUE(again.ok()) << again.error().to_string();
  EXPECT_EQ(again->module_count(), lib->module_count());
  // Global numbering round-trips.
  std::set<std::string> ids;
  for (std::uint32_t g = 0; g < lib->module_count(); ++g) {
    const std::uint32_t s = lib->style_of(g);
    EXPECT_EQ(&lib->module(g), &lib->styles[s].modules[g - lib->first_module[s]]);
    EXPECT_TRUE(ids.insert(lib->module(g).id).second);
  }
}

TEST(BuiltinStyles, EveryStyleHasTheEssentials) {
  for (const Style& s : builtin_styles()) {
    SCOPED_TRACE(s.name);
    EXPECT_GE(s.entrance, 0);
    EXPECT_GE(s.corner_convex, 0);
    EXPECT_GE(s.corner_concave, 0);
    EXPECT_TRUE(s.corner_split >= 0 || s.corner_cap >= 0);
    EXPECT_GE(s.brands.size(), 2U);
    EXPECT_LE(s.min_height_m, s.max_height_m);
    EXPECT_GE(s.ground.grammars.size(), 2U);
    EXPECT_GE(s.typical.grammars.size(), 2U);
    EXPECT_GE(s.top.grammars.size(), 2U);
    for (const ModuleDef& m : s.modules) {
      EXPECT_GT(m.width_m, 0.0);
      EXPECT_LT(m.width_m, 6.0);
    }
  }
}

TEST(BuiltinStyles, GrammarsCoverShortAndLongWalls) {
  for (const Style& s : builtin_styles()) {
    std::vector<double> widths;
    for (const ModuleDef& m : s.modules)
      widths.push_back(m.width_m);
    for (const Level* level : {&s.ground, &s.typical, &s.top}) {
      std::set<std::size_t> used;
      for (double length = s.min_wall_m; length < 120.0; length += 0.37) {
        GrammarFit fit;
        used.insert(choose_grammar(level->grammars, widths, length, &fit));
        SCOPED_TRACE(s.name + " at " + std::to_string(length));
        ASSERT_TRUE(fit.fits);
        ASSERT_FALSE(fit.modules.empty());
        EXPECT_NEAR(fit.modules.back().offset_m + fit.modules.back().width_m, length, 1e-9);
        // Facades keep their look: modules are not stretched beyond recognition.
        for (const FittedModule& m : fit.modules) {
          EXPECT_LT(m.width_m, 3.0 * widths[m.module] + 1.0);
        }
      }
      EXPECT_GE(used.size(), 2U) << s.name << ": several grammars take part";
    }
  }
}

}  // namespace
}  // namespace cityforge::buildings
