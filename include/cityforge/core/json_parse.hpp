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
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cityforge/core/result.hpp"
#include "cityforge/core/text_file.hpp"

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

/// The checks made before parsing: invalid UTF-8 anywhere, or arrays and objects nested deeper
/// than the limit (counted outside strings), as an Error at "<source>:<line>:<column>" of the
/// byte where it happens. Takes the text piece by piece (a file read in chunks) or whole:
/// `feed` the pieces in order, each cut where no UTF-8 character is split (utf8_cut).
class Prescan {
 public:
  /// `before`: bytes of the text ahead of what will be fed (a byte order mark), counted in
  /// line and column numbers.
  Prescan(const std::string& source, std::size_t max_depth, std::string_view before = {})
      : m_source(source), m_max_depth(max_depth) {
    count_lines(before);
  }

  Status feed(std::string_view piece) {
    std::size_t i = m_skip;
    m_skip = 0;
    while (i < piece.size()) {
      const char c = piece[i];
      if (static_cast<unsigned char>(c) >= 0x80) {
        const std::size_t n = utf8_length(piece, i);
        if (n == 0) {
          char hex[8];
          std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(c));
          return Error::invalid_input(m_source + ":" + line_col(piece, i),
                                      std::string("invalid UTF-8: byte ") + hex +
                                          " does not begin a well-formed UTF-8 character; "
                                          "expected a UTF-8 text");
        }
        i += n;
        continue;
      }
      if (m_in_string) {
        if (c == '\\') {
          i += 2;  // The escaped character may be the next piece's first.
          continue;
        }
        if (c == '"') m_in_string = false;
      } else if (c == '"') {
        m_in_string = true;
      } else if (c == '[' || c == '{') {
        if (++m_depth > m_max_depth) {
          return Error::invalid_input(m_source + ":" + line_col(piece, i),
                                      "arrays and objects nested deeper than " +
                                          std::to_string(m_max_depth) +
                                          " levels; expected at most that many");
        }
      } else if ((c == ']' || c == '}') && m_depth > 0) {
        --m_depth;
      }
      ++i;
    }
    m_skip = i - piece.size();
    count_lines(piece);
    return Ok{};
  }

 private:
  void count_lines(std::string_view piece) {
    const char* p = piece.data();
    const char* end = p + piece.size();
    while (p != end) {
      const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
      if (nl == nullptr) break;
      ++m_line;
      p = static_cast<const char*>(nl) + 1;
      m_line_start = m_offset + static_cast<std::size_t>(p - piece.data());
    }
    m_offset += piece.size();
  }
  /// "12:7" for byte i of the piece being fed (line_col's numbers for the whole text).
  std::string line_col(std::string_view piece, std::size_t i) const {
    std::size_t line = m_line;
    std::size_t start = m_line_start;
    for (std::size_t k = 0; k < i && k < piece.size(); ++k) {
      if (piece[k] == '\n') {
        ++line;
        start = m_offset + k + 1;
      }
    }
    return std::to_string(line) + ":" + std::to_string(m_offset + i - start + 1);
  }

  std::string m_source;
  std::size_t m_max_depth;
  std::size_t m_depth = 0;
  bool m_in_string = false;
  std::size_t m_skip = 0;        ///< Bytes of the next piece already stepped over (an escape).
  std::size_t m_offset = 0;      ///< Bytes before the piece being fed.
  std::size_t m_line = 1;        ///< Line of the piece's first byte.
  std::size_t m_line_start = 0;  ///< Offset of that line's first byte.
};

/// The length of the longest start of `piece` that does not end inside a UTF-8 character (its
/// last bytes, a lead byte and fewer continuation bytes than it calls for, left for the next
/// piece). Text that is not UTF-8 is cut anywhere: Prescan reports it.
inline std::size_t utf8_cut(std::string_view piece) {
  for (std::size_t back = 1; back <= 4 && back <= piece.size(); ++back) {
    const auto b = static_cast<unsigned char>(piece[piece.size() - back]);
    if ((b & 0xC0) == 0x80) continue;  // A continuation byte: look further back.
    const std::size_t need = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
    return need > back ? piece.size() - back : piece.size();
  }
  return piece.size();
}

/// One pass before parsing (Prescan) over `text`, which is `whole` from byte `offset` on.
inline Status prescan(std::string_view text, std::size_t offset, const std::string& source,
                      std::string_view whole, std::size_t max_depth) {
  Prescan scan(source, max_depth, whole.substr(0, offset));
  return scan.feed(text);
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

namespace json_detail {

/// The Error for a parse `handler` stopped (see parse_json_events), `line_col(at)` giving
/// "<line>:<column>" of byte `at` of the whole text (byte order mark included: `offset`).
template <class Handler, class LineCol>
Error parse_failure(const std::string& source, const Handler& handler, std::size_t offset,
                    LineCol&& line_col) {
  const std::size_t at = handler.error_position() > 0 ? handler.error_position() - 1 : 0;
  if (handler.error_id() == 406) {  // out_of_range: a number beyond double range.
    const std::size_t start =
        handler.error_position() - std::min(handler.error_position(), handler.error_token().size());
    return Error::invalid_input(source + ": " + handler.pointer(),
                                "the number " + handler.error_token() + " (at " +
                                    line_col(offset + start) +
                                    ") is beyond the range of a double; expected a finite number "
                                    "within +-1.7976931348623157e308");
  }
  std::string what = handler.error_what();
  if (const auto p = what.find("syntax error"); p != std::string::npos) what = what.substr(p);
  if (const auto p = what.find("] "); p != std::string::npos && what.starts_with("[json"))
    what = what.substr(p + 2);
  return Error::invalid_input(source + ":" + line_col(offset + at), "malformed JSON: " + what);
}

}  // namespace json_detail

/// Runs the parser's events for `text` (named `source` in errors) under `limits` into
/// `handler`: a SAX handler for `Json` (as nlohmann::json::sax_parse takes) that also keeps its
/// parse error as DomBuilder does (error_position, error_token, error_id, error_what) and can
/// give the JSON pointer of where parsing stopped (pointer()). For readers that build part of
/// a document at a time (lanes.json's lanes, one after another). Errors as parse_json's.
template <class Json, class Handler>
Status parse_json_events(std::string_view text, const std::string& source, const JsonLimits& limits,
                         Handler& handler) {
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
  bool parsed = false;
  try {
    parsed = Json::sax_parse(text.begin(), text.end(), &handler, Json::input_format_t::json, true);
  } catch (const std::exception& e) {  // Allocation failure: reported, never escaping.
    return Error::invalid_input(source, std::string("cannot parse the JSON: ") + e.what());
  }
  if (parsed) return Ok{};
  return json_detail::parse_failure(
      source, handler, offset, [&](std::size_t at) { return json_detail::line_col(whole, at); });
}

/// parse_json_events on the file at `path` (named by its path in errors), read in pieces of
/// `piece_bytes` instead of whole: twice, once for Prescan's checks and once for the parser,
/// so that reading a file takes no memory for its text (lanes.json: a region's is gigabytes).
/// The same results and errors as parse_json_events on the file's text, and read_file_text's
/// for a file that is missing, a folder or longer than limits.max_bytes.
template <class Json, class Handler>
Status parse_json_file_events(const std::string& path, const JsonLimits& limits, Handler& handler,
                              std::size_t piece_bytes = std::size_t{1} << 20) {
  if (Result<std::uintmax_t> size = check_file_to_read(path, limits.max_bytes); !size)
    return size.error();
  std::ifstream f(path, std::ios::binary);
  if (!f) return Error::io(path, "cannot open the file for reading");
  piece_bytes = std::max<std::size_t>(piece_bytes, 1);
  // 1. The checks, piece by piece; a piece ends where no UTF-8 character is cut.
  std::string buffer;
  std::size_t offset = 0;
  std::uint64_t total = 0;
  std::optional<json_detail::Prescan> scan;
  for (;;) {
    const std::size_t kept = buffer.size();
    buffer.resize(kept + piece_bytes);
    f.read(buffer.data() + kept, static_cast<std::streamsize>(piece_bytes));
    const auto got = static_cast<std::size_t>(f.gcount());
    buffer.resize(kept + got);
    total += got;
    // Not a regular file, or one that grew since it was checked.
    if (total > limits.max_bytes) return file_too_long(path, limits.max_bytes);
    const bool end = got < piece_bytes;
    std::string_view piece = buffer;
    if (!scan) {
      // A UTF-8 byte order mark (the first piece may be shorter than it: read on).
      if (!end && piece.size() < 3) continue;
      if (piece.starts_with("\xEF\xBB\xBF")) offset = 3;
      scan.emplace(path, limits.max_depth, piece.substr(0, offset));
      piece.remove_prefix(offset);
    }
    const std::size_t cut = end ? piece.size() : json_detail::utf8_cut(piece);
    if (Status s = scan->feed(piece.substr(0, cut)); !s) return s.error();
    buffer.erase(0, buffer.size() - (piece.size() - cut));
    if (end) break;
  }
  if (f.bad()) return Error::io(path, "read failed");
  // 2. The parse, from the file again.
  f.clear();
  f.seekg(static_cast<std::streamoff>(offset));
  if (!f) return Error::io(path, "cannot read the file a second time (expected a regular file)");
  bool parsed = false;
  try {
    parsed = Json::sax_parse(f, &handler, Json::input_format_t::json, true);
  } catch (const std::exception& e) {  // Allocation failure: reported, never escaping.
    return Error::invalid_input(path, std::string("cannot parse the JSON: ") + e.what());
  }
  if (parsed) return Ok{};
  if (f.bad()) return Error::io(path, "read failed");
  return json_detail::parse_failure(path, handler, offset, [&](std::size_t at) {
    // Line and column of byte `at`, counted on a third read of the file up to it.
    std::ifstream again(path, std::ios::binary);
    std::string head(at, '\0');
    again.read(head.data(), static_cast<std::streamsize>(at));
    head.resize(static_cast<std::size_t>(again.gcount()));
    return json_detail::line_col(head, at);
  });
}

/// Parses `text` (named `source` in errors) under `limits`. Errors (invalid_input): too long;
/// invalid UTF-8, too deep or malformed, at "<source>:<line>:<column>"; a number beyond double
/// range ("1e400"), at "<source>: <JSON pointer>". Never throws.
template <class Json = nlohmann::json>
Result<Json> parse_json(std::string_view text, const std::string& source,
                        const JsonLimits& limits = {}) {
  Json doc;
  json_detail::DomBuilder<Json> builder(doc);
  if (Status st = parse_json_events<Json>(text, source, limits, builder); !st) return st.error();
  return doc;
}

/// parse_json on the file at `path`, read in pieces (parse_json_file_events).
template <class Json = nlohmann::json>
Result<Json> parse_json_file(const std::string& path, const JsonLimits& limits = {},
                             std::size_t piece_bytes = std::size_t{1} << 20) {
  Json doc;
  json_detail::DomBuilder<Json> builder(doc);
  if (Status st = parse_json_file_events<Json>(path, limits, builder, piece_bytes); !st)
    return st.error();
  return doc;
}

}  // namespace cityforge
