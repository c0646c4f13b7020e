// SPDX-License-Identifier: Apache-2.0
#include "cityforge/core/json_parse.hpp"

#include <gtest/gtest.h>

#include <string>

namespace cityforge {
namespace {

Error parse_error(const std::string& text, const JsonLimits& limits = {}) {
  Result<nlohmann::json> r = parse_json(text, "f.json", limits);
  EXPECT_FALSE(r.ok()) << text.substr(0, 80);
  return r ? Error{} : r.error();
}

TEST(JsonParse, ReadsADocumentAsTheLibraryDoes) {
  const std::string text =
      R"({"a": [1, -2, 3.5, 18446744073709551615, "x\u00e9", true, null, {}], "b": {"c": []},)"
      R"( "d": 1e308, "e": 123456789012345678901234567890})";
  Result<nlohmann::json> r = parse_json(text, "f.json");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(*r, nlohmann::json::parse(text));
  EXPECT_EQ(r->dump(), nlohmann::json::parse(text).dump());
}

TEST(JsonParse, AcceptsAByteOrderMark) {
  Result<nlohmann::json> r = parse_json("\xEF\xBB\xBF{\"a\": 1}", "f.json");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ((*r)["a"], 1);
}

TEST(JsonParse, NumbersBeyondDoubleRangeNameTheirPointer) {
  Error e = parse_error("{\"a\": {\"b c/d\": [0, 1, 1e400]}}");
  EXPECT_EQ(e.code, ErrorCode::invalid_input);
  EXPECT_EQ(e.where, "f.json: /a/b c~1d/2");
  EXPECT_NE(e.message.find("1e400"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("1:24"), std::string::npos) << e.message;
  EXPECT_EQ(parse_error("{\"x\": 1,\n \"y\": -1e400}").where, "f.json: /y");
  EXPECT_EQ(parse_error("-1e400").where, "f.json: /");
  EXPECT_EQ(parse_error("[[1], [2, 3e999]]").where, "f.json: /1/1");
}

TEST(JsonParse, DeepNestingIsAnErrorNotACrash) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  Error e = parse_error(deep);
  EXPECT_EQ(e.where, "f.json:1:257");
  EXPECT_NE(e.message.find("deeper than 256"), std::string::npos) << e.message;
  // Brackets inside strings do not count; the limit itself is allowed.
  EXPECT_TRUE(parse_json("[\"" + std::string(1000, '[') + "\"]", "f.json").ok());
  EXPECT_TRUE(parse_json(std::string(256, '[') + std::string(256, ']'), "f.json").ok());
  const std::string objects = [] {
    std::string s;
    for (int i = 0; i < 300; ++i)
      s += "{\"a\":";
    return s + "1" + std::string(300, '}');
  }();
  EXPECT_NE(parse_error(objects).message.find("deeper"), std::string::npos);
}

TEST(JsonParse, InvalidUtf8IsNamedByLineAndColumn) {
  Error e = parse_error("{\n  \"name\": \"caf\xC3\"\n}");
  EXPECT_EQ(e.where, "f.json:2:15");
  EXPECT_NE(e.message.find("0xC3"), std::string::npos) << e.message;
  // Overlong forms, surrogates and code points above U+10FFFF are not UTF-8 either.
  EXPECT_EQ(parse_error("\"\xC0\xAF\"").where, "f.json:1:2");
  EXPECT_EQ(parse_error("\"\xED\xA0\x80\"").where, "f.json:1:2");
  EXPECT_EQ(parse_error("\"\xF4\x90\x80\x80\"").where, "f.json:1:2");
  EXPECT_EQ(parse_error("\"\xE2\x82\"").where, "f.json:1:2");
  EXPECT_TRUE(parse_json("\"\xE2\x82\xAC \xF0\x9F\x98\x80\"", "f.json").ok());
}

TEST(JsonParse, SyntaxErrorsNameLineAndColumn) {
  Error e = parse_error("{\n  \"a\": 1,\n  \"b\": tru\n}");
  EXPECT_EQ(e.where.substr(0, 9), "f.json:3:");
  EXPECT_NE(e.message.find("malformed JSON"), std::string::npos) << e.message;
  EXPECT_EQ(e.message.find("[json.exception"), std::string::npos) << e.message;
  EXPECT_FALSE(parse_json("", "f.json").ok());
  EXPECT_FALSE(parse_json("{\"a\": 1} x", "f.json").ok());
  EXPECT_FALSE(parse_json("[NaN]", "f.json").ok());
}

TEST(JsonParse, TextsLongerThanTheLimitAreRefusedBeforeParsing) {
  Error e = parse_error("[1, 2, 3]", JsonLimits{.max_bytes = 4});
  EXPECT_EQ(e.where, "f.json");
  EXPECT_NE(e.message.find("at most 4 bytes"), std::string::npos) << e.message;
}

}  // namespace
}  // namespace cityforge
