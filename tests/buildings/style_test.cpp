// SPDX-License-Identifier: Apache-2.0
#include "cityforge/buildings/style.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace cityforge::buildings {
namespace {

using nlohmann::json;

// A small valid BDF; tests break one thing at a time.
json minimal() {
  return json::parse(R"({
    "name": "mini",
    "zones": ["residential", "park"],
    "height_m": [6, 20],
    "min_wall_m": 3,
    "palette": {"wall": "#ff0000", "trim": "#00ff00", "glass": "#0000ff", "frame": "#ffffff",
                "door": "#000000", "roof": "#808080", "metal": "#123456", "sign": "#abcdef"},
    "levels": {
      "ground": {"height_m": 4, "grammars": ["C|*D|C", "C|(W)|*D|(W)|C"]},
      "typical": {"height_m": 3, "grammars": ["C|*W|C", "C|(W)|C"]},
      "top": {"height_m": 3, "grammars": ["C|*(W)|C"]}
    },
    "modules": {
      "C": {"width_m": 0.5, "tags": ["corner"], "mesh": {"kind": "corner"}},
      "W": {"width_m": 1.5, "tags": ["window"], "mesh": {"kind": "window", "mullions_x": 2}},
      "D": {"width_m": 1.2, "tags": ["entrance"], "mesh": {"kind": "door"}},
      "sign_a": {"id": "custom.sign", "width_m": 0.8, "height_m": 1, "tags": ["signage", "prop"],
                 "mesh": {"kind": "sign"}}
    },
    "corners": {"convex": "C", "cap": "C"},
    "entrance": "D",
    "props": {"brands": [{"name": "acme", "sign": "sign_a"}]}
  })");
}

Result<Style> parse(const json& j, const std::string& file = "styles/mini.json") {
  return parse_style(j.dump(), file);
}

// Parses and expects an error at `where` whose message contains `needle`.
void expect_error(const json& j, const std::string& where, const std::string& needle) {
  Result<Style> s = parse(j);
  ASSERT_FALSE(s.ok()) << "expected an error at " << where;
  EXPECT_EQ(s.error().code, ErrorCode::invalid_input);
  EXPECT_EQ(s.error().where, where) << s.error().to_string();
  EXPECT_NE(s.error().message.find(needle), std::string::npos) << s.error().to_string();
}

TEST(ParseStyle, Minimal) {
  Result<Style> s = parse(minimal());
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  EXPECT_EQ(s->name, "mini");
  EXPECT_EQ(s->file, "styles/mini.json");
  EXPECT_EQ(s->zone_mask, (1U << 2U) | (1U << 4U));
  EXPECT_DOUBLE_EQ(s->min_height_m, 6.0);
  EXPECT_DOUBLE_EQ(s->max_height_m, 20.0);
  ASSERT_EQ(s->modules.size(), 4U);
  // Modules are numbered in sorted key order.
  EXPECT_EQ(s->modules[0].key, "C");
  EXPECT_EQ(s->modules[0].id, "mini.C");
  EXPECT_EQ(s->modules[3].id, "custom.sign");
  EXPECT_EQ(s->modules[3].mesh, MeshKind::sign);
  EXPECT_EQ(s->modules[3].tags, kTagSignage | kTagProp);
  EXPECT_EQ(s->modules[2].params.mullions_x, 2U);
  EXPECT_EQ(s->corner_convex, 0);
  EXPECT_EQ(s->corner_cap, 0);
  EXPECT_EQ(s->corner_split, -1);
  EXPECT_EQ(s->entrance, 1);
  EXPECT_EQ(s->fire_escape, -1);
  ASSERT_EQ(s->brands.size(), 1U);
  EXPECT_EQ(s->brands[0].sign_module, 3U);
  EXPECT_FLOAT_EQ(s->palette[0][0], 1.0F);
  EXPECT_FLOAT_EQ(s->palette[7][2], 239.0F / 255.0F);
  EXPECT_EQ(s->ground.grammars.size(), 2U);
  EXPECT_EQ(s->ground.grammars[1].text, "C|(W)|*D|(W)|C");
  // No "surfaces": the defaults (plaster walls, glass glazing, plain signs).
  EXPECT_EQ(s->surfaces[static_cast<std::size_t>(Material::wall)], materials::Surface::plaster);
  EXPECT_EQ(s->surfaces[static_cast<std::size_t>(Material::glass)], materials::Surface::glass);
  EXPECT_FALSE(s->surfaces[static_cast<std::size_t>(Material::sign)].has_value());
}

TEST(ParseStyle, SurfacesChooseEachMaterialsTexture) {
  json j = minimal();
  j["surfaces"] = {{"wall", "brick"}, {"glass", "none"}, {"sign", "metal"}};
  Result<Style> s = parse(j);
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  EXPECT_EQ(s->surfaces[static_cast<std::size_t>(Material::wall)], materials::Surface::brick);
  EXPECT_FALSE(s->surfaces[static_cast<std::size_t>(Material::glass)].has_value());
  EXPECT_EQ(s->surfaces[static_cast<std::size_t>(Material::sign)], materials::Surface::metal);
  EXPECT_EQ(s->surfaces[static_cast<std::size_t>(Material::trim)], materials::Surface::concrete);
}

TEST(ParseStyle, UnknownKeys) {
  json j = minimal();
  j["colour"] = "red";
  expect_error(j, "styles/mini.json: /colour", "unknown key 'colour'");
  j = minimal();
  j["modules"]["W"]["colour"] = "red";
  expect_error(j, "styles/mini.json: /modules/W/colour", "unknown key 'colour'");
  j = minimal();
  j["modules"]["W"]["mesh"]["glow"] = 1;
  expect_error(j, "styles/mini.json: /modules/W/mesh/glow", "unknown key 'glow'");
  j = minimal();
  j["levels"]["attic"] = json::object();
  expect_error(j, "styles/mini.json: /levels/attic", "unknown key");
}

TEST(ParseStyle, GrammarErrorsNameColumn) {
  json j = minimal();
  j["levels"]["typical"]["grammars"][1] = "|C|(WW|C|";
  expect_error(j, "styles/mini.json: /levels/typical/grammars/1",
               "column 7 of \"|C|(WW|C|\": '(' opened at column 4 is not closed");
  j = minimal();
  j["levels"]["ground"]["grammars"][0] = "C|*Q|C";
  expect_error(j, "styles/mini.json: /levels/ground/grammars/0",
               "column 4 of \"C|*Q|C\": unknown module key 'Q'");
  j = minimal();
  j["levels"]["top"]["grammars"][0] = "C|{sign_b}|C";
  expect_error(j, "styles/mini.json: /levels/top/grammars/0", "column 3");
}

TEST(ParseStyle, ModuleErrors) {
  json j = minimal();
  j["modules"]["W"]["width_m"] = 0;
  expect_error(j, "styles/mini.json: /modules/W/width_m", "expected a number in (0, 100], got 0");
  j["modules"]["W"]["width_m"] = -1.5;
  expect_error(j, "styles/mini.json: /modules/W/width_m", "got -1.5");
  j = minimal();
  j["modules"]["W"]["width_m"] = "wide";
  expect_error(j, "styles/mini.json: /modules/W/width_m", "expected a number, got string");
  j = minimal();
  j["modules"]["W"].erase("mesh");
  expect_error(j, "styles/mini.json: /modules/W", "missing required key 'mesh'");
  j = minimal();
  j["modules"]["W"]["mesh"]["kind"] = "dome";
  expect_error(j, "styles/mini.json: /modules/W/mesh/kind", "unknown mesh kind \"dome\"");
  j = minimal();
  j["modules"]["W"]["tags"][0] = "shiny";
  expect_error(j, "styles/mini.json: /modules/W/tags/0", "unknown tag \"shiny\"");
  j = minimal();
  j["modules"]["Wx"] = j["modules"]["W"];
  expect_error(j, "styles/mini.json: /modules/Wx", "must be one letter");
  j = minimal();
  j["modules"]["W"]["mesh"]["opening_h"] = 0.8;
  j["modules"]["W"]["mesh"]["sill_h"] = 0.5;
  expect_error(j, "styles/mini.json: /modules/W/mesh", "sill_h + opening_h");
  j = minimal();
  j["modules"]["W"]["id"] = "custom.sign";
  expect_error(j, "styles/mini.json: /modules/sign_a/id", "also used by /modules/W");
}

TEST(ParseStyle, ReferenceErrors) {
  json j = minimal();
  j["modules"]["D"]["tags"] = json::array({"wall"});
  expect_error(j, "styles/mini.json: /entrance", "must carry the \"entrance\" tag");
  j = minimal();
  j["entrance"] = "Z";
  expect_error(j, "styles/mini.json: /entrance", "unknown module key \"Z\"");
  j = minimal();
  j["corners"]["split"] = "P";
  expect_error(j, "styles/mini.json: /corners/split", "unknown module key \"P\"");
  j = minimal();
  j["props"]["brands"][0]["sign"] = "sign_b";
  expect_error(j, "styles/mini.json: /props/brands/0/sign", "unknown module key");
}

TEST(ParseStyle, ValueErrors) {
  json j = minimal();
  j.erase("entrance");
  expect_error(j, "styles/mini.json: /", "missing required key 'entrance'");
  j = minimal();
  j["zones"][1] = "suburb";
  expect_error(j, "styles/mini.json: /zones/1", "unknown zone \"suburb\"");
  j = minimal();
  j["shapes"] = json::array({"rectangle", "blob"});
  expect_error(j, "styles/mini.json: /shapes/1", "unknown footprint shape \"blob\"");
  j = minimal();
  j["height_m"] = json::array({30, 10});
  expect_error(j, "styles/mini.json: /height_m", "min <= max");
  j = minimal();
  j["height_m"] = 10;
  expect_error(j, "styles/mini.json: /height_m", "expected [min, max]");
  j = minimal();
  j["palette"]["glass"] = "blue";
  expect_error(j, "styles/mini.json: /palette/glass", "#rrggbb");
  j = minimal();
  j["palette"].erase("sign");
  expect_error(j, "styles/mini.json: /palette", "missing required key 'sign'");
  j = minimal();
  j["surfaces"] = {{"wall", "marble"}};
  expect_error(j, "styles/mini.json: /surfaces/wall",
               "unknown surface \"marble\"; expected one of: none, brick");
  j = minimal();
  j["surfaces"] = {{"walls", "brick"}};
  expect_error(j, "styles/mini.json: /surfaces/walls", "unknown key 'walls'");
  j = minimal();
  j["surfaces"] = {{"wall", 3}};
  expect_error(j, "styles/mini.json: /surfaces/wall", "string");
  j = minimal();
  j["massing"] = {{"staggered", 1.5}};
  expect_error(j, "styles/mini.json: /massing/staggered", "[0, 1]");
  j = minimal();
  j["levels"]["top"]["grammars"] = json::array();
  expect_error(j, "styles/mini.json: /levels/top/grammars", "non-empty array");
  j = minimal();
  j["min_wall_m"] = 1.0;
  expect_error(j, "styles/mini.json: /levels/ground/grammars", "no grammar fits a wall");
}

TEST(ParseStyle, MalformedJson) {
  Result<Style> s = parse_style("{\"name\": \"x\",", "styles/broken.json");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().where, "styles/broken.json:1:14");  // Where the next key should be.
  EXPECT_NE(s.error().message.find("malformed JSON"), std::string::npos);
  s = parse_style("[1, 2]", "styles/array.json");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().where, "styles/array.json: /");
}

TEST(MakeLibrary, DuplicateNamesAndIds) {
  Result<Style> a = parse(minimal(), "styles/a.json");
  Result<Style> b = parse(minimal(), "styles/b.json");
  ASSERT_TRUE(a.ok() && b.ok());
  Result<StyleLibrary> lib = make_library({a.value(), b.value()});
  ASSERT_FALSE(lib.ok());
  EXPECT_EQ(lib.error().where, "styles/b.json: /name");
  EXPECT_NE(lib.error().message.find("styles/a.json"), std::string::npos);
  // Same explicit module id under a different style name.
  json other = minimal();
  other["name"] = "other";
  Result<Style> c = parse(other, "styles/c.json");
  ASSERT_TRUE(c.ok());
  lib = make_library({a.value(), c.value()});
  ASSERT_FALSE(lib.ok());
  EXPECT_EQ(lib.error().where, "styles/c.json: /modules/sign_a/id");
  EXPECT_NE(lib.error().message.find("styles/a.json"), std::string::npos);
  EXPECT_NE(lib.error().message.find("custom.sign"), std::string::npos);
  // Unique: global numbering.
  other["modules"]["sign_a"]["id"] = "other.sign";
  c = parse(other, "styles/c.json");
  lib = make_library({a.value(), c.value()});
  ASSERT_TRUE(lib.ok()) << lib.error().to_string();
  EXPECT_EQ(lib->module_count(), 8U);
  EXPECT_EQ(lib->first_module[1], 4U);
  EXPECT_EQ(lib->global_module(1, 2), 6U);
  EXPECT_EQ(lib->style_of(6), 1U);
  EXPECT_EQ(lib->module(7).id, "other.sign");
  EXPECT_EQ(lib->find("other"), 1);
}

}  // namespace
}  // namespace cityforge::buildings
