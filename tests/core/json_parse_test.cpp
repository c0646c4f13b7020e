// SPDX-License-Identifier: Apache-2.0
#include "cityforge/core/json_parse.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

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

// Files are read in pieces, twice (parse_json_file): every text, cut anywhere, must give what
// the whole text gives, the same document or the same error at the same line and column.
TEST(JsonParse, FilesReadInPiecesGiveWhatTheirWholeTextGives) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("cityforge-json-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "f.json").string();
  std::string deep_objects;
  for (int i = 0; i < 300; ++i)
    deep_objects += "{\"a\":";
  deep_objects += "1" + std::string(300, '}');
  const std::vector<std::string> texts = {
      R"({"a": [1, -2, 3.5, 18446744073709551615, "x\u00e9", true, null, {}], "b": {"c": []}})",
      "\xEF\xBB\xBF{\"a\": 1}",
      "\xEF\xBB\xBF{\"a\":\n 1e400}",
      "\xEF\xBB",
      "{\"a\": {\"b c/d\": [0, 1, 1e400]}}",
      "{\"x\": 1,\n \"y\": -1e400}",
      "[[1], [2, 3e999]]",
      std::string(300, '[') + std::string(300, ']'),
      std::string(256, '[') + std::string(256, ']'),
      "[\"" + std::string(1000, '[') + "\"]",
      deep_objects,
      "{\n  \"name\": \"caf\xC3\"\n}",
      "\"\xC0\xAF\"",
      "\"\xED\xA0\x80\"",
      "\"\xF4\x90\x80\x80\"",
      "\"\xE2\x82\"",
      "\"\xE2\x82\xAC \xF0\x9F\x98\x80 \xC3\xA9\"",
      "[\"\xE2\x82\xAC\",\n\"\xF0\x9F\x98\x80\", \"\xC3\xA9\",\n \"\xC3\"]",
      "[\"a\\\"b\", \"\\\\\", \"\\[\", [[]], \"\\u00e9\"]",
      "[\"\\\xC3\xA9\"]",
      "{\n  \"a\": 1,\n  \"b\": tru\n}",
      "",
      "{\"a\": 1} x",
      "[NaN]",
      "[1,\n2,\n3,\n]"};
  for (const std::string& text : texts) {
    {
      std::ofstream f(path, std::ios::binary);
      f << text;
    }
    const Result<nlohmann::json> whole = parse_json(text, path);
    for (const std::size_t piece : {1, 2, 3, 4, 5, 7, 64, 1 << 20}) {
      SCOPED_TRACE("text " + text.substr(0, 40) + ", pieces of " + std::to_string(piece));
      const Result<nlohmann::json> read = parse_json_file(path, {}, piece);
      ASSERT_EQ(read.ok(), whole.ok()) << (read ? whole.error() : read.error()).to_string();
      if (whole) {
        EXPECT_EQ(*read, *whole);
      } else {
        EXPECT_EQ(read.error().where, whole.error().where);
        EXPECT_EQ(read.error().message, whole.error().message);
      }
    }
  }
  // What read_file_text says of a file too long, missing or a folder.
  {
    std::ofstream f(path, std::ios::binary);
    f << "[1, 2, 3]";
  }
  Result<nlohmann::json> r = parse_json_file(path, JsonLimits{.max_bytes = 4});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().where, path);
  EXPECT_NE(r.error().message.find("9 bytes; expected at most 4 bytes"), std::string::npos)
      << r.error().message;
  r = parse_json_file((dir / "none.json").string());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::io);
  r = parse_json_file(dir.string());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::io);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cityforge
