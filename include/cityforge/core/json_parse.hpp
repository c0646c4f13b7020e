// SPDX-License-Identifier: Apache-2.0
#pragma once

// The one entry point for every JSON text we read (the city JSON, building definition files,
// biomes, WFC models, shepherds, lanes.json, layout.geojson, live messages): the text is checked
// against a size and a nesting limit and for UTF-8 before it is parsed, numbers beyond double
// range are errors naming their JSON pointer, a UTF-8 byte order mark is accepted, and every
// failure is an Error naming "<source>:<line>:<column>" or "<source>: <pointer>" - never an
// exception. Header-only, like json_reader.hpp: the modules that read JSON link nlohmann_json
// themselves.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cityforge/core/result.hpp"

namespace cityforge {

/// What a JSON text may be. The defaults suit hand-written files (configs, styles, models);
/// readers of files we write ourselves (lanes.json, layout.geojson) raise max_bytes.
struct JsonLimits {
  std::uint64_t max_bytes = std::uint64_t{64} << 20;  ///< Longest text, in bytes.
  std::size_t max_depth = 256;                        ///< Deepest nesting of arrays and objects.
};

/// Limits for the files our own commands write and read back (lanes.json, layout.geojson,
/// shepherds.json): as long as a whole region's can be.
inline constexpr JsonLimits kWrittenFileLimits{std::uint64_t{4} << 30, 256};

namespace json_detail {

/// "12:7": the line and column (both from 1, columns in bytes) of byte `at` of `text`.
inline std::string line_col(std::string_view text, std::size_t at) {
  at = std::min(at, text.size());
  std::size_t line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < at; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return std::to_string(line) + ":" + std::to_string(at - line_start + 1);
}

/// Length of the UTF-8 sequence starting at text[i], or 0 when it is not well formed (RFC 3629:
/// no overlong forms, no surrogates, nothing above U+10FFFF).
inline std::size_t utf8_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) -> unsigned {
    return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0u;
  };
  const auto cont = [&](std::size_t k, unsigned lo, unsigned hi) {
    const unsigned b = byte(k);
    return i + k < text.size() && b >= lo && b <= hi;
  };
  const unsigned b0 = byte(0);
  if (b0 < 0x80) return 1;
  if (b0 >= 0xC2 && b0 <= 0xDF) return cont(1, 0x80, 0xBF) ? 2 : 0;
  if (b0 == 0xE0) return cont(1, 0xA0, 0xBF) && cont(2, 0x80, 0xBF) ? 3 : 0;
  if ((b0 >= 0xE1 && b0 <= 0xEC) || b0 == 0xEE || b0 == 0xEF)
    return cont(1, 0x80, 0xBF) && cont(2, 0x80, 0xBF) ? 3 : 0;
  if (b0 == 0xED) return cont(1, 0x80, 0x9F) && cont(2, 0x80, 0xBF) ? 3 : 0;
  if (b0 == 0xF0) return cont(1, 0x90, 0xBF) && cont(2, 0x80, 0xBF) && cont(3, 0x80, 0xBF) ? 4 : 0;
  if (b0 >= 0xF1 && b0 <= 0xF3)
    return cont(1, 0x80, 0xBF) && cont(2, 0x80, 0xBF) && cont(3, 0x80, 0xBF) ? 4 : 0;
  if (b0 == 0xF4) return cont(1, 0x80, 0x8F) && cont(2, 0x80, 0xBF) && cont(3, 0x80, 0xBF) ? 4 : 0;
  return 0;
}

/// One pass before parsing: invalid UTF-8 anywhere, or arrays and objects nested deeper than
/// the limit (counted outside strings), as an Error at the byte where it happens.
inline Status prescan(std::string_view text, std::size_t offset, const std::string& source,
                      std::string_view whole, std::size_t max_depth) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (static_cast<unsigned char>(c) >= 0x80) {
      const std::size_t n = utf8_length(text, i);
      if (n == 0) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(c));
        return Error::invalid_input(source + ":" + line_col(whole, offset + i),
                                    std::string("invalid UTF-8: byte ") + hex +
                                        " does not begin a well-formed UTF-8 character; "
                                        "expected a UTF-8 text");
      }
      i += n;
      continue;
    }
    if (in_string) {
      if (c == '\\') {
        i += 2;
        continue;
      }
      if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) {
        return Error::invalid_input(source + ":" + line_col(whole, offset + i),
                                    "arrays and objects nested deeper than " +
                                        std::to_string(max_depth) +
                                        " levels; expected at most that many");
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
    ++i;
  }
  return Ok{};
}

/// JSON pointer escaping of one reference token (RFC 6901).
inline std::string pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

/// Builds the document from the parser's events (as nlohmann's own builder does) and knows
/// where it is, so an out-of-range number can be reported by its JSON pointer.
template <class Json>
class DomBuilder {
 public:
  using number_integer_t = typename Json::number_integer_t;
  using number_unsigned_t = typename Json::number_unsigned_t;
  using number_float_t = typename Json::number_float_t;
  using string_t = typename Json::string_t;
  using binary_t = typename Json::binary_t;

  explicit DomBuilder(Json& root) : m_root(root) {}

  bool null() { return value(nullptr); }
  bool boolean(bool v) { return value(v); }
  bool number_integer(number_integer_t v) { return value(v); }
  bool number_unsigned(number_unsigned_t v) { return value(v); }
  bool number_float(number_float_t v, const string_t& /*text*/) { return value(v); }
  bool string(string_t& v) { return value(std::move(v)); }
  bool binary(binary_t& v) { return value(std::move(v)); }
  bool start_object(std::size_t /*elements*/) {
    value(Json::value_t::object);
    m_stack.push_back(m_last);
    return true;
  }
  bool key(string_t& k) {
    m_element = &(*m_stack.back())[std::move(k)];
    return true;
  }
  bool end_object() {
    m_stack.pop_back();
    return true;
  }
  bool start_array(std::size_t /*elements*/) {
    value(Json::value_t::array);
    m_stack.push_back(m_last);
    return true;
  }
  bool end_array() {
    m_stack.pop_back();
    return true;
  }
  bool parse_error(std::size_t position, const std::string& token,
                   const nlohmann::detail::exception& e) {
    m_error_position = position;
    m_error_token = token;
    m_error_id = e.id;
    m_error_what = e.what();
    return false;
  }

  std::size_t error_position() const { return m_error_position; }
  const std::string& error_token() const { return m_error_token; }
  int error_id() const { return m_error_id; }
  const std::string& error_what() const { return m_error_what; }

  /// The JSON pointer of the value being read when parsing stopped.
  std::string pointer() const {
    std::string out;
    for (std::size_t i = 0; i < m_stack.size(); ++i) {
      const Json* parent = m_stack[i];
      const Json* child = i + 1 < m_stack.size() ? m_stack[i + 1] : nullptr;
      if (parent->is_array()) {
        out += '/';
        out += std::to_string(child ? parent->size() - 1 : parent->size());
      } else {
        const Json* target = child ? child : m_element;
        for (auto it = parent->begin(); it != parent->end(); ++it) {
          if (&*it == target) {
            out += '/';
            out += pointer_token(it.key());
            break;
          }
        }
      }
    }
    return out.empty() ? "/" : out;
  }

 private:
  template <class V>
  bool value(V&& v) {
    if (m_stack.empty()) {
      m_root = Json(std::forward<V>(v));
      m_last = &m_root;
    } else if (m_stack.back()->is_array()) {
      m_stack.back()->emplace_back(std::forward<V>(v));
      m_last = &m_stack.back()->back();
    } else {
      *m_element = Json(std::forward<V>(v));
      m_last = m_element;
    }
    return true;
  }

  Json& m_root;
  std::vector<Json*> m_stack;
  Json* m_element = nullptr;
  Json* m_last = nullptr;
  std::size_t m_error_position = 0;
  std::string m_error_token;
  int m_error_id = 0;
  std::string m_error_what;
};

}  // namespace json_detail

/// Parses `text` (named `source` in errors) under `limits`. Errors (invalid_input): too long;
/// invalid UTF-8, too deep or malformed, at "<source>:<line>:<column>"; a number beyond double
/// range ("1e400"), at "<source>: <JSON pointer>". Never throws.
template <class Json = nlohmann::json>
Result<Json> parse_json(std::string_view text, const std::string& source,
                        const JsonLimits& limits = {}) {
  if (text.size() > limits.max_bytes) {
    return Error::invalid_input(
        source, "the text is " + std::to_string(text.size()) + " bytes long; expected at most " +
                    std::to_string(limits.max_bytes) + " bytes for this kind of file");
  }
  const std::string_view whole = text;
  std::size_t offset = 0;
  if (text.starts_with("\xEF\xBB\xBF")) offset = 3;  // A UTF-8 byte order mark.
  text.remove_prefix(offset);
  if (Status s = json_detail::prescan(text, offset, source, whole, limits.max_depth); !s)
    return s.error();
  Json doc;
  json_detail::DomBuilder<Json> builder(doc);
  bool parsed = false;
  try {
    parsed = Json::sax_parse(text.begin(), text.end(), &builder, Json::input_format_t::json, true);
  } catch (const std::exception& e) {  // Allocation failure: reported, never escaping.
    return Error::invalid_input(source, std::string("cannot parse the JSON: ") + e.what());
  }
  if (parsed) return doc;
  const std::size_t at = builder.error_position() > 0 ? builder.error_position() - 1 : 0;
  if (builder.error_id() == 406) {  // out_of_range: a number beyond double range.
    const std::size_t start =
        builder.error_position() - std::min(builder.error_position(), builder.error_token().size());
    return Error::invalid_input(source + ": " + builder.pointer(),
                                "the number " + builder.error_token() + " (at " +
                                    json_detail::line_col(whole, offset + start) +
                                    ") is beyond the range of a double; expected a finite number "
                                    "within +-1.7976931348623157e308");
  }
  std::string what = builder.error_what();
  if (const auto p = what.find("syntax error"); p != std::string::npos) what = what.substr(p);
  if (const auto p = what.find("] "); p != std::string::npos && what.starts_with("[json"))
    what = what.substr(p + 2);
  return Error::invalid_input(source + ":" + json_detail::line_col(whole, offset + at),
                              "malformed JSON: " + what);
}

}  // namespace cityforge
